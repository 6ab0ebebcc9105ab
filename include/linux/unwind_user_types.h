/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_UNWIND_USER_TYPES_H
#define _LINUX_UNWIND_USER_TYPES_H

#include <linux/bits.h>
#include <linux/types.h>

struct mm_struct;

/**
 * enum unwind_user_base - what a recovery rule adds its offset to
 * @UNWIND_USER_BASE_SAME: no rule in this frame: the value is still in the
 *	register that holds it (a leaf's RA in LR, an FP not yet saved).
 * @UNWIND_USER_BASE_CFA: the canonical frame address of this frame.
 * @UNWIND_USER_BASE_SP: the stack pointer (CFA rules only).
 * @UNWIND_USER_BASE_FP: the frame pointer (CFA rules only).
 * @UNWIND_USER_BASE_REG: the DWARF register named by the rule.
 */
enum unwind_user_base {
	UNWIND_USER_BASE_SAME,
	UNWIND_USER_BASE_CFA,
	UNWIND_USER_BASE_SP,
	UNWIND_USER_BASE_FP,
	UNWIND_USER_BASE_REG,
};

/**
 * struct unwind_user_rule - how to recover one value of the caller's frame
 * @base: enum unwind_user_base.
 * @regnum: DWARF register number when @base is UNWIND_USER_BASE_REG.
 * @deref: the value is loaded from (base + offset) instead of being it.
 * @offset: signed byte offset added to the base.
 */
struct unwind_user_rule {
	u8	base;
	u8	regnum;
	bool	deref;
	s32	offset;
};

/**
 * struct unwind_user_frame - how to step from one user frame to its caller
 * @cfa: rule for the canonical frame address.
 * @ra: rule for the return address.
 * @fp: rule for the caller's frame pointer.
 * @outermost: the return address is undefined: the walk is complete.
 * @signal: this frame was set up by the kernel to run a signal handler.
 * @ra_signed: the return address carries a pointer authentication code.
 * @pauth_key: the key it was signed with (0 for A, 1 for B).
 *
 * Mainline describes a frame with fixed CFA/RA/FP offsets and a choice of
 * SP or FP as the CFA base.  SFrame V3 flexible FDEs need more (registers,
 * dereferences, values left in registers), so each of the three is a rule.
 */
struct unwind_user_frame {
	struct unwind_user_rule	cfa;
	struct unwind_user_rule	ra;
	struct unwind_user_rule	fp;
	bool			outermost;
	bool			signal;
	bool			ra_signed;
	u8			pauth_key;
};

/**
 * struct unwind_user_ctx - whose memory a walk reads, and how; the same for
 *	the SFrame lookups it makes
 * @mm: the address space of another task's stack (/proc/<pid>/ustack),
 *	read with access_remote_vm(): pages are faulted in, and a range a
 *	userfaultfd watches fails rather than waits.  NULL when the walk
 *	reads the current task's own.
 * @budget: SFrame rows the walk's lookups may still read; each lookup
 *	takes off those it read.  A function may have 65,535 rows, read in
 *	order: a walk that cannot take that long (NMI) shares a small budget.
 * @nofault: page faults are disabled (IRQ, NMI): a lookup takes no
 *	reference, allocates nothing, and drops no section it finds bad.
 */
struct unwind_user_ctx {
	struct mm_struct	*mm;
	unsigned int		budget;
	bool			nofault;
};

/*
 * Ways of finding a caller, in the order the walker tries them for each
 * frame.  SFrame knows the function; a signal frame is recognised by the
 * kernel's own sigreturn trampoline; frame pointers are the fallback.
 */
enum unwind_user_type_bits {
	UNWIND_USER_TYPE_SFRAME_BIT =	0,
	UNWIND_USER_TYPE_SIGNAL_BIT =	1,
	UNWIND_USER_TYPE_FP_BIT =	2,
	NR_UNWIND_USER_TYPE_BITS,
};

enum unwind_user_type {
	UNWIND_USER_TYPE_NONE =		0,
	UNWIND_USER_TYPE_SFRAME =	BIT(UNWIND_USER_TYPE_SFRAME_BIT),
	UNWIND_USER_TYPE_SIGNAL =	BIT(UNWIND_USER_TYPE_SIGNAL_BIT),
	UNWIND_USER_TYPE_FP =		BIT(UNWIND_USER_TYPE_FP_BIT),
};

/**
 * struct unwind_stacktrace - a user stack trace
 * @nr: entries filled in.
 * @entries: return addresses, innermost first.
 */
struct unwind_stacktrace {
	unsigned int	nr;
	unsigned long	*entries;
};

#endif /* _LINUX_UNWIND_USER_TYPES_H */
