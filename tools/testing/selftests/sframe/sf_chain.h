/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions of the test programs' known call chains.  Each calls the
 * next and does work after the call, so the call is never a tail call and
 * every function keeps its own frame for the unwinders to find.
 */
#ifndef _SF_CHAIN_H
#define _SF_CHAIN_H

/* long @name @params, which returns @call + 1 (held in @name##_ret) */
#define SF_CHAIN_FN(name, params, call)				\
__attribute__((noinline)) long name params			\
{								\
	long name##_ret = call;					\
								\
	__asm__ volatile("" : : : "memory");			\
	return name##_ret + 1;					\
}

#endif /* _SF_CHAIN_H */
