// SPDX-License-Identifier: GPL-2.0
/*
 * A library of many functions, as a real one has: 4,096 fillers of 16
 * bytes, each with CFI and so an FDE, plus one function to call.  The
 * fillers are never run.
 */
__asm__(".text\n"
	".rept 4096\n"
	".cfi_startproc\n"
	".skip 16\n"
	".cfi_endproc\n"
	".endr\n");

int sf_lib_many(int x)
{
	return x + 1;
}
