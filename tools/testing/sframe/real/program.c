// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for the KUnit real-assembler test: functions of several shapes,
 * so its .sframe has leaves, frames with saved registers, a large frame,
 * a variable-length array and calls through the PLT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static long saves(long a, long b, long c)
{
	long r = 0;

	for (long i = 0; i < a; i++)
		r += leaf(i) * b - c;
	return r + leaf(a);
}

__attribute__((noinline)) static int big_frame(int n)
{
	volatile char buf[70000];

	memset((char *)buf, n, sizeof(buf));
	return buf[n % sizeof(buf)] + leaf(n);
}

__attribute__((noinline)) static int vla(int n)
{
	volatile int a[n + 1];

	for (int i = 0; i <= n; i++)
		a[i] = leaf(i);
	return a[n];
}

__attribute__((noinline)) static int recurse(int n)
{
	if (n <= 0)
		return leaf(n);
	return recurse(n - 1) + vla(n % 7);
}

int main(int argc, char **argv)
{
	long r = saves(argc, 3, 4) + big_frame(argc) + recurse(argc + 3);

	printf("%ld\n", r);
	return argv[1] ? atoi(argv[1]) : 0;
}
