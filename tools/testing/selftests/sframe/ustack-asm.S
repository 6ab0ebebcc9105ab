/* SPDX-License-Identifier: GPL-2.0 */
/*
 * long ustack_asm_point(long fd, char *buf, long len, long which)
 *
 * pread(fd, buf, len, 0) of /proc/thread-self/ustack from one of the
 * prologue- and epilogue-shaped points of this function, chosen by
 * @which, where the CFA is still (or again) moving: on entry, after each
 * step that saves a register or moves SP, and just before returning.
 * The CFI says where everything is at each point; the assembler turns it
 * into the SFrame rows the kernel must follow.  ustack_asm_npoints holds
 * how many points there are.
 */
	.text
	.globl	ustack_asm_point
	.type	ustack_asm_point, @function

#if defined(__x86_64__)

/* pread64 clobbers rax, rcx and r11; @which moves to r8. */
#define POINT(n)			\
	cmp	$n, %r8;		\
	jne	1f;			\
	mov	$17, %eax;		\
	xor	%r10d, %r10d;		\
	syscall;			\
1:

ustack_asm_point:
	.cfi_startproc
	mov	%rcx, %r8
	POINT(0)			/* CFA = rsp + 8 */
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	POINT(1)			/* CFA = rsp + 16 */
	sub	$24, %rsp
	.cfi_adjust_cfa_offset 24
	POINT(2)			/* CFA = rsp + 40 */
	add	$24, %rsp
	.cfi_adjust_cfa_offset -24
	POINT(3)			/* CFA = rsp + 16 again */
	pop	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	POINT(4)			/* CFA = rsp + 8, about to return */
	ret
	.cfi_endproc
#define NPOINTS	5

#elif defined(__aarch64__)

/* pread64 returns in x0; its offset argument, x3, held @which.  (No '#'
 * before immediates: cpp would take it for its stringizing operator.) */
#define POINT(n)			\
	cmp	x4, n;			\
	b.ne	1f;			\
	mov	x8, 67;			\
	svc	0;			\
1:

ustack_asm_point:
	.cfi_startproc
	mov	x4, x3
	mov	x3, #0
	POINT(0)			/* RA in LR, CFA = sp */
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	POINT(1)			/* RA saved, CFA = sp + 32 */
	ldp	x29, x30, [sp], #32
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	POINT(2)			/* RA in LR again, about to return */
	ret
	.cfi_endproc
#define NPOINTS	3

#elif defined(__s390x__)

/* pread64 returns in r2; its offset argument, r5, held @which. */
#define POINT(n)			\
	cghi	%r0, n;			\
	jne	1f;			\
	svc	180;			\
1:

ustack_asm_point:
	.cfi_startproc
	lgr	%r0, %r5
	lghi	%r5, 0
	POINT(0)			/* RA in r14, CFA = r15 + 160 */
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_adjust_cfa_offset 160
	POINT(1)			/* RA saved, CFA = r15 + 320 */
	aghi	%r15, 160
	.cfi_adjust_cfa_offset -160
	POINT(2)			/* RA saved, CFA = r15 + 160 */
	lmg	%r14, %r15, 112(%r15)
	.cfi_restore %r14
	.cfi_restore %r15
	POINT(3)			/* RA in r14 again, about to return */
	/*
	 * What s390 leaf code does: park the RA in a call-clobbered FPR
	 * (DWARF 16 is f0).  r14 is zeroed, so only f0 leads to the caller.
	 */
	ldgr	%f0, %r14
	.cfi_register 14, 16
	lghi	%r14, 0
	POINT(4)			/* RA in f0 */
	lgdr	%r14, %f0
	.cfi_restore 14
	br	%r14
	.cfi_endproc
#define NPOINTS	5

#else
#error "no test function for this architecture"
#endif

	.size	ustack_asm_point, . - ustack_asm_point

	.section .rodata
	.globl	ustack_asm_npoints
	.type	ustack_asm_npoints, @object
ustack_asm_npoints:
	.long	NPOINTS
	.size	ustack_asm_npoints, 4

	.section .note.GNU-stack, "", @progbits
