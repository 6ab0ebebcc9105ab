/* Test input for the SFrame oracle: assorted frame shapes. */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

int sink;

/* Leaf: no frame at all. */
NOINLINE int leaf(int a, int b)
{
	return a * b + 3;
}

/* Variable-sized stack allocation: needs a frame pointer. */
NOINLINE int with_alloca(int n)
{
	char *p = alloca(n);
	memset(p, n, n);
	return p[n / 2] + leaf(n, p[0]);
}

/* Over-aligned local plus alloca: stack realignment (DRAP on x86_64). */
NOINLINE int realigned(int n)
{
	char big[128] __attribute__((aligned(64)));
	char *p = alloca(n);
	memset(big, 1, sizeof(big));
	memset(p, 2, n);
	sink = big[n & 127] + p[0];
	return with_alloca(n) + big[3];
}

/* Realignment with stack-passed arguments: gcc uses a DRAP register on
   x86_64 (CFA = *(rbp-N)), which gas encodes as a FLEX FDE. */
NOINLINE int drap(int n, int a, int b, int c, int d, int e, int s1, int s2)
{
	char big[256] __attribute__((aligned(64)));
	char *p = alloca(n);
	memset(big, s1, sizeof(big));
	memset(p, s2, n);
	__asm__ volatile("" : : "r"(big), "r"(p) : "memory"); /* escape */
	sink = a + b + c + d + e;
	return big[n & 255] + p[0] + leaf(n, s1);
}

/* Many callee-saved registers live across calls. */
NOINLINE long many_regs(long a, long b, long c, long d, long e, long f)
{
	long x = leaf(a, b), y = leaf(c, d), z = leaf(e, f);
	long w = leaf(x, y);
	return a + b + c + d + e + f + x + y + z + w + leaf(z, w);
}

NOINLINE int recurse(int n)
{
	if (n <= 0)
		return with_alloca(16);
	return recurse(n - 1) + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", recurse(argc + 2) + realigned(argc * 40) +
		       (int)many_regs(argc, 2, 3, 4, 5, 6) +
		       drap(argc * 8, 1, 2, 3, 4, 5, 6, 7));
	puts("done");
	return 0;
}
