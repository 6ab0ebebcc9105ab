// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustack-bench: the cost of one unwinding step in the kernel, from
 * /proc/thread-self/ustack read at two stack depths: the difference per
 * frame removes the system call and the formatting of the fixed frames.
 * Built twice by `make bench`, with SFrame and with frame pointers only
 * (-fno-omit-frame-pointer, no SFrame), so the two methods are compared
 * in the same guest: under QEMU's emulation only the ratio means much.
 *
 *   ustack-bench [ROUNDS]	prints "<method> <ns per frame>"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sf_syscall.h"

#define BENCH_SHALLOW	10
#define BENCH_DEEP	410

static char stack_text[65536];
static int stack_fd;
static long rounds = 2000;

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Reads the file @rounds times at the bottom of @depth frames: ns per read */
__attribute__((noinline)) double bench_at(int depth)
{
	double t, r;
	long i;

	if (depth) {
		r = bench_at(depth - 1);
		__asm__ volatile("" : : : "memory");
		return r;
	}
	t = bench_now();
	for (i = 0; i < rounds; i++)
		if (sf_syscall4(SYS_pread64, stack_fd, (long)stack_text,
				sizeof(stack_text) - 1, 0) <= 0)
			return -1;
	return (bench_now() - t) / rounds;
}

int main(int argc, char **argv)
{
	double shallow, deep;
	char method[8] = "?";
	int lines;
	char *p;

	if (argc > 1)
		rounds = atol(argv[1]);
	stack_fd = open("/proc/thread-self/ustack", O_RDONLY);
	if (stack_fd < 0) {
		perror("/proc/thread-self/ustack");
		return 1;
	}
	shallow = bench_at(BENCH_SHALLOW);
	deep = bench_at(BENCH_DEEP);
	for (lines = 0, p = stack_text; (p = strchr(p, '\n')); p++)
		lines++;
	/* The method of a frame in the middle of the recursion */
	p = stack_text;
	for (int i = 0; i < BENCH_DEEP / 2 && p; i++)
		p = strchr(p, '\n') + 1;
	if (p)
		sscanf(p, "%*s %7s", method);
	if (shallow < 0 || deep < 0 || lines < BENCH_DEEP) {
		fprintf(stderr, "reading the stack failed (%d frames)\n", lines);
		return 1;
	}
	printf("%s %.0f ns per frame (%d frames deep: %.0f ns a read, %d: %.0f)\n",
	       method, (deep - shallow) / (BENCH_DEEP - BENCH_SHALLOW),
	       lines, deep, BENCH_SHALLOW, shallow);
	return 0;
}
