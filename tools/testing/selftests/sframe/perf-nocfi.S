/* SPDX-License-Identifier: GPL-2.0 */
/*
 * long perf_nocfi_spin(void *unused): a leaf that spins without touching
 * the stack, written without CFI, so that the assembler gives it no
 * SFrame FDE while the rest of the program has them, as glibc's _init
 * and _fini (crti.o) are.  Its code is no PLT stub: nothing tells the
 * walker that the caller is still where the call left it (a prologue of
 * such code may have moved the stack pointer), so a sample in it ends
 * there, with the leaf alone, rather than guess.
 */
	.text
	.globl	perf_nocfi_spin
	.type	perf_nocfi_spin, @function
perf_nocfi_spin:
#if defined(__x86_64__)
	mov	$200000, %ecx
1:	dec	%ecx
	jnz	1b
	xor	%eax, %eax
	ret
#elif defined(__aarch64__)
	mov	x1, 0x30000
1:	subs	x1, x1, 1
	b.ne	1b
	mov	x0, 0
	ret
#elif defined(__s390x__)
	lgfi	%r1, 200000
1:	brctg	%r1, 1b
	lghi	%r2, 0
	br	%r14
#else
#error "no perf_nocfi_spin for this architecture"
#endif
	.size	perf_nocfi_spin, . - perf_nocfi_spin

	.section .note.GNU-stack, "", @progbits
