/* SPDX-License-Identifier: GPL-2.0 */
/*
 * long uprobe_leaf(void): a leaf with CFI (so SFrame) whose second
 * instruction, at uprobe_site, is where sf-perf-uprobe puts its uprobe:
 * an add, which every arch's uprobes single-step out of line (none
 * emulates it, as x86_64 does pushes and branches).  uprobe_site is
 * hidden, so that the dynamic symbols still name the function it is in.
 */
	.text
	.globl	uprobe_leaf
	.type	uprobe_leaf, @function
	.globl	uprobe_site
	.hidden	uprobe_site
uprobe_leaf:
	.cfi_startproc
#if defined(__x86_64__)
	xor	%eax, %eax
uprobe_site:
	add	$1, %rax
	ret
#elif defined(__aarch64__)
	mov	x0, 0
uprobe_site:
	add	x0, x0, 1
	ret
#elif defined(__s390x__)
	lghi	%r2, 0
uprobe_site:
	aghi	%r2, 1
	br	%r14
#else
#error "no uprobe_leaf for this architecture"
#endif
	.cfi_endproc
	.size	uprobe_leaf, . - uprobe_leaf

	.section .note.GNU-stack, "", @progbits
