// SPDX-License-Identifier: GPL-2.0-only
/* A shared library: exported and static functions, calls through the PLT. */
#include <stdio.h>
#include <string.h>

static int counter;

static __attribute__((noinline)) int helper(int x)
{
	return x * 3 + counter++;
}

int lib_leaf(int x)
{
	return x + 1;
}

int lib_entry(int x)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%d", helper(x));
	return (int)strlen(buf) + lib_leaf(x);
}

int lib_recurse(int n)
{
	return n <= 0 ? 0 : lib_entry(n) + lib_recurse(n - 1);
}
