/* Hand-written CFI: a signal-frame function (.cfi_signal_frame), an
   outermost function (RA undefined) and, where the arch allows, odd rules. */
#if defined(__x86_64__)
#define RA_REG 16
#elif defined(__aarch64__)
#define RA_REG 30
#elif defined(__s390x__)
#define RA_REG 14
#endif
	.text
	.globl	sig_tramp
	.type	sig_tramp, @function
sig_tramp:
	.cfi_startproc
	.cfi_signal_frame
#if defined(__x86_64__)
	nop
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	nop
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
#elif defined(__aarch64__)
	nop
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	nop
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
#elif defined(__s390x__)
	nopr
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	nopr
	lmg	%r14, %r15, 272(%r15)
	.cfi_restore 14
	.cfi_restore 15
	.cfi_def_cfa_offset 160
	br	%r14
#endif
	.cfi_endproc
	.size	sig_tramp, .-sig_tramp

	.globl	outermost_fn
	.type	outermost_fn, @function
outermost_fn:
	.cfi_startproc
	.cfi_undefined RA_REG
	nop
	nop
#if defined(__x86_64__)
	hlt
#elif defined(__aarch64__)
	brk	#0
#elif defined(__s390x__)
	.long	0
#endif
	.cfi_endproc
	.size	outermost_fn, .-outermost_fn

#if defined(__x86_64__)
/* DRAP-style CFA: CFA = *(rbp - 8) via DW_CFA_def_cfa_expression
   (DW_OP_breg6 -8; DW_OP_deref), as gcc emits for realigned frames. */
	.globl	drap_fn
	.type	drap_fn, @function
drap_fn:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	andq	$-64, %rsp
	pushq	-8(%r10)
	pushq	%rbp
	.cfi_escape 0x10,0x6,0x2,0x76,0
	movq	%rsp, %rbp
	pushq	%r10
	.cfi_escape 0xf,0x3,0x76,0x78,0x6
	nop
	popq	%r10
	.cfi_def_cfa %r10, 0
	popq	%rbp
	leaq	-8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	drap_fn, .-drap_fn

/* CFA based on a non-SP/FP register. */
	.globl	r12_cfa_fn
	.type	r12_cfa_fn, @function
r12_cfa_fn:
	.cfi_startproc
	movq	%rsp, %r12
	.cfi_def_cfa_register %r12
	subq	$64, %rsp
	nop
	movq	%r12, %rsp
	.cfi_def_cfa_register %rsp
	ret
	.cfi_endproc
	.size	r12_cfa_fn, .-r12_cfa_fn
#endif

#if defined(__aarch64__)
/* Return address parked in another register. */
	.globl	ra_in_reg_fn
	.type	ra_in_reg_fn, @function
ra_in_reg_fn:
	.cfi_startproc
	mov	x9, x30
	.cfi_register 30, 9
	nop
	mov	x30, x9
	.cfi_restore 30
	ret
	.cfi_endproc
	.size	ra_in_reg_fn, .-ra_in_reg_fn
#endif
	.section .note.GNU-stack,"",@progbits
