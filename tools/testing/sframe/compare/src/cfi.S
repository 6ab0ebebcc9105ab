/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hand-written CFI the compiler rarely emits: a CFA on a register other
 * than SP/FP (flex FDEs in V3), the RA kept in another register, a signal
 * frame and an outermost function.
 */
	.text
	.globl	cfa_on_reg
	.type	cfa_on_reg, @function
cfa_on_reg:
	.cfi_startproc
#if defined(__x86_64__)
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	movq	%rsp, %rbx
	.cfi_def_cfa_register %rbx
	subq	$64, %rsp
	nop
	movq	%rbx, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbx
	.cfi_restore %rbx
	.cfi_def_cfa_offset 8
	ret
#elif defined(__aarch64__)
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	str	x19, [sp, #16]
	.cfi_offset 19, -16
	mov	x19, sp
	.cfi_def_cfa_register 19
	sub	sp, sp, #64
	nop
	mov	sp, x19
	.cfi_def_cfa_register 31
	ldr	x19, [sp, #16]
	.cfi_restore 19
	ldp	x29, x30, [sp], #32
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
#elif defined(__s390x__)
	stmg	%r6, %r15, 48(%r15)
	.cfi_offset 6, -112
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	lgr	%r6, %r15
	.cfi_def_cfa_register 6
	aghi	%r15, -160
	nopr
	lmg	%r6, %r15, 208(%r15)
	.cfi_restore 6
	.cfi_restore 14
	.cfi_restore 15
	.cfi_def_cfa 15, 160
	br	%r14
#endif
	.cfi_endproc
	.size	cfa_on_reg, .-cfa_on_reg

	.globl	ra_in_reg
	.type	ra_in_reg, @function
ra_in_reg:
	.cfi_startproc
#if defined(__aarch64__)
	mov	x9, x30
	.cfi_register 30, 9
	nop
	mov	x30, x9
	.cfi_restore 30
	ret
#elif defined(__s390x__)
	ldgr	%f0, %r14
	.cfi_register 14, 16
	nopr
	lgdr	%r14, %f0
	.cfi_restore 14
	br	%r14
#else
	nop
	ret
#endif
	.cfi_endproc
	.size	ra_in_reg, .-ra_in_reg

	.globl	sig_handler_tramp
	.type	sig_handler_tramp, @function
sig_handler_tramp:
	.cfi_startproc
	.cfi_signal_frame
	nop
#if defined(__x86_64__)
	subq	$24, %rsp
	.cfi_adjust_cfa_offset 24
	nop
	addq	$24, %rsp
	.cfi_adjust_cfa_offset -24
	ret
#elif defined(__aarch64__)
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	nop
	add	sp, sp, #48
	.cfi_def_cfa_offset 0
	ret
#elif defined(__s390x__)
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	nopr
	aghi	%r15, 160
	.cfi_def_cfa_offset 160
	br	%r14
#endif
	.cfi_endproc
	.size	sig_handler_tramp, .-sig_handler_tramp

	.globl	thread_start
	.type	thread_start, @function
thread_start:
	.cfi_startproc
#if defined(__x86_64__)
	.cfi_undefined %rip
	xorl	%ebp, %ebp
	nop
	hlt
#elif defined(__aarch64__)
	.cfi_undefined 30
	mov	x29, #0
	nop
	brk	#0
#elif defined(__s390x__)
	.cfi_undefined 14
	lghi	%r11, 0
	nopr
	.long	0
#endif
	.cfi_endproc
	.size	thread_start, .-thread_start
	.section	.note.GNU-stack,"",@progbits
