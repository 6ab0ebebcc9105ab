/* SPDX-License-Identifier: GPL-2.0 */
/*
 * long perf_gap_asm(void): perf_gap_spin() + 1, through a frame of its
 * own: it saves a register and reserves stack (x86_64: push, then 16
 * bytes; arm64: 32 bytes with x19 and the link register; s390x: the
 * register save area and 160 bytes), so that the stack pointer has moved
 * when it calls.  Written with CFI, so that .eh_frame describes it, and
 * assembled without --gsframe (the Makefile's rule for it), so that the
 * program's .sframe, made by gas from its C, has a gap here.  Without
 * filling, the walker steps it by its rule for uncovered code, which
 * takes the return address where the call would have left it, so that
 * samples through it are wrong; libsframe-audit.so fills the gap from
 * .eh_frame.  The frame pointer is left alone, so that a walk by frame
 * pointers cannot stand in.
 */
	.text
	.globl	perf_gap_asm
	.type	perf_gap_asm, @function
perf_gap_asm:
	.cfi_startproc
#if defined(__x86_64__)
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	subq	$16, %rsp
	.cfi_adjust_cfa_offset 16
	/* Not a return address: where the rule for uncovered code looks */
	movq	$0, (%rsp)
	call	perf_gap_spin@PLT
	leaq	1(%rax), %rax
	addq	$16, %rsp
	.cfi_adjust_cfa_offset -16
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
#elif defined(__aarch64__)
	stp	x19, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 19, -32
	.cfi_offset 30, -24
	str	xzr, [sp, #16]
	bl	perf_gap_spin
	add	x0, x0, #1
	ldp	x19, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	ret
#elif defined(__s390x__)
	stmg	%r13, %r15, 104(%r15)
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_adjust_cfa_offset 160
	brasl	%r14, perf_gap_spin@PLT
	aghi	%r2, 1
	lmg	%r13, %r15, 264(%r15)
	.cfi_restore %r13
	.cfi_restore %r14
	.cfi_restore %r15
	.cfi_adjust_cfa_offset -160
	br	%r14
#else
#error "no perf_gap_asm for this architecture"
#endif
	.cfi_endproc
	.size	perf_gap_asm, . - perf_gap_asm

	.section .note.GNU-stack, "", @progbits
