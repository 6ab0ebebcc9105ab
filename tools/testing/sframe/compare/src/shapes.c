// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions of many shapes, so the assembler emits many kinds of FREs:
 * leaves, calls, recursion, varargs, alloca and VLAs, frames larger than
 * 255 and 65535 bytes (2- and 4-byte data words), switch tables, noreturn
 * and tail calls.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <alloca.h>

volatile int sink;

__attribute__((noinline)) int leaf(int a, int b)
{
	return a * b + 3;
}

__attribute__((noinline)) int nonleaf(int a)
{
	return leaf(a, a + 1) + leaf(a - 1, 2) + 1;
}

__attribute__((noinline)) long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int sum_va(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	while (n--)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) int use_alloca(int n)
{
	char *p = alloca(n + 1);

	memset(p, n, n + 1);
	sink = p[n / 2];
	return nonleaf(p[0]);
}

__attribute__((noinline)) int use_vla(int n)
{
	int v[n + 1];
	int i;

	for (i = 0; i <= n; i++)
		v[i] = leaf(i, n);
	return v[n / 2];
}

__attribute__((noinline)) int frame_300(int x)
{
	volatile char buf[300];

	buf[x % 300] = x;
	buf[299] = leaf(x, buf[x % 300]);
	return buf[299] + buf[0];
}

__attribute__((noinline)) int frame_70000(int x)
{
	volatile char buf[70000];

	buf[x % 70000] = x;
	buf[69999] = leaf(x, buf[x % 70000]);
	return buf[69999] + buf[0];
}

__attribute__((noinline)) int frame_big_leaf(int x)
{
	volatile char buf[100000];

	buf[x % 100000] = x;
	return buf[99999];
}

__attribute__((noinline)) int switch_table(int x, int y)
{
	switch (x) {
	case 0: return leaf(y, 1);
	case 1: return y * 7;
	case 2: return nonleaf(y);
	case 3: return y - 11;
	case 4: return fib(y & 7);
	case 5: return y ^ 0x55;
	case 6: return sum_va(2, y, y);
	case 7: return y << 3;
	case 8: return y % 13;
	case 9: return leaf(y, y);
	default: return -1;
	}
}

__attribute__((noinline, noreturn)) void die_now(int code)
{
	sink = code;
	abort();
}

__attribute__((noinline)) int tail_call(int x)
{
	if (x > 1000)
		die_now(x);
	return nonleaf(x + 1);
}

__attribute__((noinline)) int many_saves(int a, int b, int c)
{
	int x = leaf(a, b), y = leaf(b, c), z = leaf(c, a);
	int w = nonleaf(x + y), u = nonleaf(y + z);

	return x + y + z + w + u + leaf(w, u);
}

/* Well over 256 bytes of code with calls spread through it. */
#define STEP(i)	(sink = sink * 3 + (i), (sink & 1) ? leaf(sink, i) : 0)
#define S4(i)	STEP(i) + STEP(i + 1) + STEP(i + 2) + STEP(i + 3)
#define S16(i)	S4(i) + S4(i + 4) + S4(i + 8) + S4(i + 12)
#define S64(i)	S16(i) + S16(i + 16) + S16(i + 32) + S16(i + 48)
__attribute__((noinline)) int medium(int x)
{
	return x + S64(1) + S16(100);
}

int main(int argc, char **argv)
{
	int r = 0;

	(void)argv;
	r += nonleaf(argc) + fib(argc) + sum_va(3, 1, 2, argc);
	r += use_alloca(argc * 10) + use_vla(argc * 10);
	r += frame_300(argc) + frame_70000(argc) + frame_big_leaf(argc);
	r += switch_table(argc, r) + tail_call(r) + many_saves(r, argc, 2);
	r += medium(r);
	return r & 1;
}
