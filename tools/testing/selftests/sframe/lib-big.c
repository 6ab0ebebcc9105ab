// SPDX-License-Identifier: GPL-2.0
/*
 * A library whose text spans many pages, so that tests can cut single
 * pages out of its middle and still leave text on both sides (even with
 * 64 KiB pages).  The filler is never run; its CFI gives it an FDE like
 * any function.
 */
__asm__(".text\n"
	".globl sf_big_filler\n"
	".type sf_big_filler, @function\n"
	"sf_big_filler:\n"
	".cfi_startproc\n"
	".skip 0x40000\n"
	".cfi_endproc\n"
	".size sf_big_filler, . - sf_big_filler\n");

int sf_lib_big(int x)
{
	return x - 1;
}
