// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/gen-fill: the part built without SFrame (-Wa,--gsframe=no), as a
 * precompiled helper library would be.  It needs a frame: it calls out
 * with an array on its stack.
 */
#include <string.h>

static void (*volatile fill_clear)(void *, int, size_t) = (void *)memset;

long fill_helper(long x)
{
	long a[16];
	long i, sum = 0;

	fill_clear(a, 0, sizeof(a));
	for (i = 0; i < 16; i++)
		a[i] += x * i;
	fill_clear(a + 8, 0, 8 * sizeof(a[0]));
	for (i = 0; i < 16; i++)
		sum += a[i];
	return sum;
}
