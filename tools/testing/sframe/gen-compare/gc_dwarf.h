/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The third opinion: DWARF CFI as GNU readelf interprets it
 * (--debug-dump=frames-interp), completed by its raw listing
 * (--debug-dump=frames) where the table leaves things out, and turned
 * into gen-compare's rule type wherever SFrame V3 can say the same.
 */
#ifndef _GC_DWARF_H
#define _GC_DWARF_H

#include "gc.h"

/* Why a DWARF row has no SFrame equivalent */
enum gc_nx {
	GC_NX_NONE,		/* expressible */
	GC_NX_CFA_EXPR,		/* CFA by an expression other than breg[+deref] */
	GC_NX_CFA_ALIGN,	/* s390x CFA offset not a multiple of 8 */
	GC_NX_RA_UNCHANGED,	/* x86_64 RA "same value"/unset: RA is always at CFA-8 */
	GC_NX_RA_EXPR,		/* RA by an expression other than breg */
	GC_NX_RA_VAL,		/* RA = CFA + off: flex's control word would be 0, padding */
	GC_NX_FP_EXPR,		/* FP by an expression other than breg */
	GC_NX_FP_VAL,		/* FP = CFA + off, likewise */
	GC_NX_RANGE,		/* an offset beyond 32 bits or a register beyond 255 */
	GC_NX_PAUTH_PC,		/* DW_CFA_AARCH64_negate_ra_state_with_pc (PAuth_LR) */
	GC_NX_SP_ELSEWHERE,	/* the caller's SP in a register, the CFA on another */
	GC_NX_RA_ABOVE_CFA,	/* aarch64: RA at or above a CFA not on SP */
	GC_NX_CFA_BEFORE_SP,	/* s390x: CFA back at the entry's, r15 not yet restored */
	GC_NX_ORACLE,		/* the table and the raw listing disagree */
	GC_NX_COUNT,
};

const char *gc_nx_name(unsigned int nx);

/**
 * struct gc_row - one DWARF row: a rule for [@start, @end)
 * @start: first address.
 * @end: end.
 * @fde: index of the FDE it came from, in file order.
 * @nx: enum gc_nx.
 * @frame: the rule, normalized, when @nx is GC_NX_NONE.
 */
struct gc_row {
	u64				start;
	u64				end;
	unsigned int			fde;
	unsigned int			nx;
	struct unwind_user_frame	frame;
};

/**
 * struct gc_dwarf - a file's CFI, as rows sorted by address
 * @rows: the rows; those of FDEs that overlap an earlier one are trimmed.
 * @n: how many.
 * @fdes: FDEs with code.
 * @overlap_bytes: bytes claimed by two FDEs (the first is kept).
 */
struct gc_dwarf {
	struct gc_row	*rows;
	size_t		n;
	unsigned int	fdes;
	u64		overlap_bytes;
};

void gc_dwarf_load(const struct gc_abi *abi, const char *interp, const char *raw,
		   struct gc_dwarf *out);
void gc_dwarf_free(struct gc_dwarf *d);

#endif /* _GC_DWARF_H */
