// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frames that realign the stack: an over-aligned local (a frame-pointer
 * based CFA), the same with a variable-length array as well (on x86_64 a
 * DRAP: the CFA is *(rbp - 8) or another register while the frame is set
 * up), and a callee of a caller whose stack is only 4-byte aligned
 * (-mstackrealign).
 */
#include <alloca.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static void use(void *p, size_t n)
{
	__asm__ volatile("" : : "r"(p), "r"(n) : "memory");
}

__attribute__((noinline)) static int aligned_local(int n)
{
	char buf[256] __attribute__((aligned(64)));

	memset(buf, n, sizeof(buf));
	use(buf, sizeof(buf));
	return buf[n & 255];
}

__attribute__((noinline)) static int aligned_vla(int n)
{
	char buf[128] __attribute__((aligned(64)));
	char vla[n + 1];
	char *p = alloca(n + 16);

	memset(buf, n, sizeof(buf));
	memset(vla, n, n + 1);
	memset(p, n, n + 16);
	use(buf, sizeof(buf));
	use(vla, n + 1);
	use(p, n + 16);
	return buf[n & 127] + vla[n] + p[n];
}

typedef int v8si __attribute__((vector_size(32)));

__attribute__((noinline)) static int vector_spill(int n)
{
	v8si v[4] = { { n } };

	use(v, sizeof(v));
	return v[n & 3][0] + aligned_local(n);
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", aligned_local(argc) + aligned_vla(argc * 10) + vector_spill(argc));
	return 0;
}
