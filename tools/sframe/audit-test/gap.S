/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * audit_gap(x) = audit_gap_leaf(x) + x, for tools/sframe/test-audit's
 * libraries with -DAUDIT_GAP.  Written with CFI directives, so that
 * .eh_frame describes it; assembled without --gsframe into a library
 * whose C is assembled with it, so that the library's .sframe has a gap
 * here, which libsframe-audit.so fills.
 */
	.text
	.globl	audit_gap
	.type	audit_gap, @function
audit_gap:
	.cfi_startproc
#if defined(__x86_64__)
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	movl	%edi, %ebx
	call	audit_gap_leaf@PLT
	addl	%ebx, %eax
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
#elif defined(__aarch64__)
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	x19, [sp, #16]
	.cfi_offset 19, -16
	mov	w19, w0
	bl	audit_gap_leaf
	add	w0, w0, w19
	ldr	x19, [sp, #16]
	ldp	x29, x30, [sp], #32
	.cfi_restore 19
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
#elif defined(__s390x__)
	stmg	%r13, %r15, 104(%r15)
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_adjust_cfa_offset 160
	lr	%r13, %r2
	brasl	%r14, audit_gap_leaf@PLT
	ar	%r2, %r13
	lgfr	%r2, %r2
	lmg	%r13, %r15, 264(%r15)
	.cfi_restore %r13
	.cfi_restore %r14
	.cfi_restore %r15
	.cfi_adjust_cfa_offset -160
	br	%r14
#else
#error "gap.S: no code for this architecture"
#endif
	.cfi_endproc
	.size	audit_gap, . - audit_gap
	.section .note.GNU-stack, "", @progbits
