/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gen-compare: one rule a text address, from three sources, compared.
 *
 * The rule type is the kernel's own struct unwind_user_frame, brought to
 * one normal form (gc_normalize()) so that two encodings of the same rule
 * compare equal: a flex CFA on the stack pointer register and a default
 * FDE's "CFA on SP", the RA "in the link register" and "unchanged".
 */
#ifndef _GC_H
#define _GC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>

#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __noreturn		__attribute__((__noreturn__))

enum gc_arch {
	GC_X86_64,
	GC_AARCH64,
	GC_S390X,
};

/**
 * struct gc_abi - the registers an ABI's SFrame knows by role
 * @name: for messages.
 * @sp: DWARF number of the stack pointer.
 * @fp: of the frame pointer.
 * @ra: of the return address column (RA "in @ra" means unchanged).
 * @fixed_ra: the RA is always at CFA-8 (x86_64): "unchanged" cannot be said.
 * @cfa_align: CFA offsets must be multiples of this (s390x stores them / 8).
 */
struct gc_abi {
	const char	*name;
	u8		sp;
	u8		fp;
	u8		ra;
	bool		fixed_ra;
	unsigned int	cfa_align;
};

const struct gc_abi *gc_abi(enum gc_arch arch);

void gc_normalize(const struct gc_abi *abi, struct unwind_user_frame *f);
bool gc_frame_eq(const struct unwind_user_frame *a, const struct unwind_user_frame *b);

__printf(1, 2) __noreturn void gc_fail(const char *fmt, ...);

#endif /* _GC_H */
