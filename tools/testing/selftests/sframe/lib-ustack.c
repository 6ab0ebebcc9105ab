// SPDX-License-Identifier: GPL-2.0
/*
 * The library in the middle of sf-ustack's call chains: linked as
 * lib_ustack_mid, dlopen-ed as dl_ustack_mid (-DUSTACK_MID=...).
 */
#ifndef USTACK_MID
#define USTACK_MID	lib_ustack_mid
#endif

typedef long (*ustack_cb)(void);

__attribute__((noinline)) long USTACK_MID(ustack_cb cb)
{
	long r = cb();

	/* Work after the call, so it is not a tail call */
	__asm__ volatile("" : : : "memory");
	return r + 1;
}
