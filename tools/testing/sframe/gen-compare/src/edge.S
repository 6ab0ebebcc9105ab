/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CFI at the edges of what SFrame V3 can say, for gen-compare: each rule
 * either has one exact SFrame equivalent, which the converter must write,
 * or none, and then the converter must write nothing for the function.
 * The code is never run: only its CFI matters.
 */
#if defined(__x86_64__)
#define NOP	nop
#elif defined(__aarch64__)
#define NOP	nop
#else
#define NOP	nopr
#endif

#define FUNC(name)			\
	.globl	name;			\
	.type	name, @function;	\
name:					\
	.cfi_startproc

#define END(name)			\
	.cfi_endproc;			\
	.size	name, .-name

	.text
/* An epilogue in the middle: remember_state/restore_state */
FUNC(edge_two_exits)
#if defined(__x86_64__)
	NOP
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	NOP
	.cfi_remember_state
	.cfi_def_cfa_offset 8
	.cfi_restore %rbp
	NOP
	.cfi_restore_state
	NOP
	.cfi_def_cfa_offset 8
	.cfi_restore %rbp
	NOP
#elif defined(__aarch64__)
	NOP
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	NOP
	.cfi_remember_state
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	NOP
	.cfi_restore_state
	NOP
#else
	NOP
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	.cfi_def_cfa_offset 320
	NOP
	.cfi_remember_state
	.cfi_restore 14
	.cfi_restore 15
	.cfi_def_cfa_offset 160
	NOP
	.cfi_restore_state
	NOP
#endif
	NOP
END(edge_two_exits)

/* The FP kept in another register, then at CFA + offset as a value */
FUNC(edge_fp_places)
#if defined(__x86_64__)
	NOP
	.cfi_register %rbp, %r12
	NOP
	.cfi_val_offset %rbp, -32
	NOP
	.cfi_def_cfa %rbp, 16
	NOP
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	NOP
#elif defined(__aarch64__)
	NOP
	.cfi_register 29, 9
	NOP
	.cfi_def_cfa 29, 16
	.cfi_offset 30, -8
	NOP
	.cfi_def_cfa 31, 0
	.cfi_restore 29
	.cfi_restore 30
	NOP
#else
	NOP
	.cfi_register 11, 17
	NOP
	.cfi_def_cfa 11, 160
	NOP
	.cfi_def_cfa 15, 160
	.cfi_restore 11
	NOP
#endif
	NOP
END(edge_fp_places)

/* A CFA by an expression SFrame cannot say */
FUNC(edge_cfa_expr_complex)
	NOP
#if defined(__x86_64__)
	.cfi_escape 0x0f, 0x04, 0x77, 0x08, 0x23, 0x08	/* breg7 8; plus_uconst 8 */
#elif defined(__aarch64__)
	.cfi_escape 0x0f, 0x04, 0x8f, 0x00, 0x23, 0x10	/* breg31 0; plus_uconst 16 */
#else
	.cfi_escape 0x0f, 0x05, 0x7f, 0xa0, 0x01, 0x23, 0x08	/* breg15 160; plus_uconst 8 */
#endif
	NOP
	NOP
END(edge_cfa_expr_complex)

/* The RA by rules SFrame cannot say on x86_64 (unchanged) or can (in a register) */
FUNC(edge_ra_places)
	NOP
#if defined(__x86_64__)
	.cfi_same_value %rip
#elif defined(__aarch64__)
	.cfi_offset 30, -16
	.cfi_def_cfa_offset 16
	NOP
	.cfi_register 30, 10
#else
	.cfi_register 14, 1
#endif
	NOP
	NOP
END(edge_ra_places)

#if defined(__s390x__)
/* A CFA offset SFrame cannot store on s390x (not a multiple of 8) */
FUNC(edge_cfa_odd)
	NOP
	.cfi_def_cfa_offset 164
	NOP
	.cfi_def_cfa_offset 160
	NOP
END(edge_cfa_odd)
#endif

#if defined(__aarch64__)
/* The RA signed, then one exit remembered signed, then authenticated */
FUNC(edge_pac_state)
	.cfi_negate_ra_state
	NOP
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	NOP
	.cfi_remember_state
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	.cfi_negate_ra_state
	NOP
	.cfi_restore_state
	NOP
	.cfi_def_cfa_offset 0
	.cfi_negate_ra_state
	NOP
END(edge_pac_state)
#endif
	.section	.note.GNU-stack,"",@progbits
