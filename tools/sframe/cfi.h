/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DWARF CFA program interpreter of sframe-gen: a CIE's initial
 * instructions and an FDE's, run into rows (a PC range and the rules of
 * the CFA, the return address and the frame pointer there).  Only what an
 * SFrame unwinder needs is tracked; other registers' rules are read and
 * dropped.  Errors: -EINVAL for malformed programs, -EOPNOTSUPP for valid
 * ones this interpreter does not follow, -E2BIG past the bounds below.
 */
#ifndef _SFRAME_GEN_CFI_H
#define _SFRAME_GEN_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ehframe.h"

/* Bounds that keep hostile CFI cheap */
#define CFI_MAX_ROWS		65535	/* SFrame's FREs per FDE */
#define CFI_MAX_STATE_DEPTH	16	/* DW_CFA_remember_state nesting */

/**
 * enum cfi_reg_kind - the rule of a tracked register (RA or FP)
 * @CFI_SAME: unchanged (same value or no rule): still in the register.
 * @CFI_UNDEF: undefined; for the RA, the outermost frame.
 * @CFI_OFFSET: saved at CFA + off.
 * @CFI_VAL_OFFSET: the value is CFA + off.
 * @CFI_REG: the value is register @reg + off (DW_CFA_register: off 0;
 *	DW_CFA_val_expression DW_OP_breg<reg> off).
 * @CFI_AT_REG: saved at reg + off (DW_CFA_expression DW_OP_breg<reg> off,
 *	as x86_64 DRAP code saves RBP).
 * @CFI_EXPR: any other DWARF expression: not followed.
 */
enum cfi_reg_kind {
	CFI_SAME,
	CFI_UNDEF,
	CFI_OFFSET,
	CFI_VAL_OFFSET,
	CFI_REG,
	CFI_AT_REG,
	CFI_EXPR,
};

/**
 * enum cfi_cfa_kind - the CFA rule
 * @CFI_CFA_NONE: no rule yet.
 * @CFI_CFA_REG: CFA = reg + off.
 * @CFI_CFA_DEREF: CFA = *(reg + off), from DW_OP_breg, DW_OP_deref.
 * @CFI_CFA_PLT: GNU ld's x86_64 PLT expression:
 *	CFA = rsp + off + ((rip & plt_mask) >= plt_thresh ? 8 : 0).
 * @CFI_CFA_EXPR: any other expression: not followed.
 */
enum cfi_cfa_kind {
	CFI_CFA_NONE,
	CFI_CFA_REG,
	CFI_CFA_DEREF,
	CFI_CFA_PLT,
	CFI_CFA_EXPR,
};

struct cfi_reg_rule {
	uint8_t		kind;
	uint16_t	reg;
	int64_t		off;
};

struct cfi_cfa_rule {
	uint8_t		kind;
	uint16_t	reg;
	int64_t		off;
	uint8_t		plt_mask;
	uint8_t		plt_thresh;
};

/**
 * struct cfi_state - the rules of one row
 * @cfa: the CFA.
 * @ra: the return address column.
 * @fp: the frame pointer.
 * @sp: the stack pointer's rule: where a copy of the caller's SP is
 *	(s390x saves r15), or, with a CFA from another register, where the
 *	SP is instead of the CFA (glibc's x86_64 __longjmp: in %r8), which no
 *	SFrame row can say.
 * @ra_signed: aarch64: the RA is signed (DW_CFA_AARCH64_negate_ra_state).
 */
struct cfi_state {
	struct cfi_cfa_rule	cfa;
	struct cfi_reg_rule	ra;
	struct cfi_reg_rule	fp;
	struct cfi_reg_rule	sp;
	bool			ra_signed;
};

/**
 * struct cfi_row - one row: its rules hold from @start to the next row
 * @start: offset from the FDE's pc_begin.
 * @st: the rules.
 */
struct cfi_row {
	uint64_t		start;
	struct cfi_state	st;
};

/**
 * struct cfi_params - what the program is interpreted against
 * @ctx: for byte order and messages.
 * @cie: the CIE (alignment factors, RA column).
 * @fp_reg: the DWARF number of the frame pointer.
 * @sp_reg: the DWARF number of the stack pointer.
 * @aarch64: 0x2d is DW_CFA_AARCH64_negate_ra_state (else not supported).
 * @max_rows: bound on rows, at most CFI_MAX_ROWS (0: CFI_MAX_ROWS).
 */
struct cfi_params {
	const struct eh_ctx	*ctx;
	const struct eh_cie	*cie;
	unsigned int		fp_reg;
	unsigned int		sp_reg;
	bool			aarch64;
	unsigned int		max_rows;
};

/**
 * struct cfi_rows - rows made by cfi_run_fde()
 * @rows: the rows, by increasing @start, the first at 0; adjacent rows differ.
 * @n: how many.
 * @cap: allocated.
 */
struct cfi_rows {
	struct cfi_row	*rows;
	unsigned int	n;
	unsigned int	cap;
};

bool cfi_state_equal(const struct cfi_state *a, const struct cfi_state *b);
int cfi_run_cie(const struct cfi_params *p, struct cfi_state *init);
int cfi_run_fde(const struct cfi_params *p, const struct cfi_state *init,
		const uint8_t *insns, size_t len, uint64_t range, struct cfi_rows *out);
void cfi_rows_free(struct cfi_rows *rows);

#endif /* _SFRAME_GEN_CFI_H */
