// SPDX-License-Identifier: GPL-2.0-only
/*
 * For gen-real: functions GCC gives a dynamically realigned stack (DRAP on
 * x86_64: the CFA by DW_CFA_def_cfa_expression), and a leaf and a deep
 * frame, built into a program with SFrame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double v4 __attribute__((vector_size(32)));

__attribute__((noinline)) static double realigned(int n, const char *s)
{
	v4 a[4] __attribute__((aligned(64)));
	char *buf = __builtin_alloca(n + 1);
	int i;

	memset(buf, 'x', n);
	buf[n] = 0;
	for (i = 0; i < 4; i++)
		a[i] = (v4){ i, n, strlen(buf), s[0] };
	return a[n & 3][1] + a[1][2];
}

__attribute__((noinline)) static long deep(long x)
{
	long big[600];
	int i;

	for (i = 0; i < 600; i++)
		big[i] = x + i;
	return big[x % 600] + (x > 0 ? deep(x - 1) : 0);
}

int main(int argc, char **argv)
{
	printf("%f %ld\n", realigned(argc + 5, argv[0]), deep(argc));
	return 0;
}
