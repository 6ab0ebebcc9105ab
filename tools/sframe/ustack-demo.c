// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustack-demo: prints its own user stack as the kernel unwinds it, from
 * /proc/thread-self/ustack, with each address's symbol.  `make demo` builds
 * it -O2 -fomit-frame-pointer twice, with SFrame and without, to show what
 * frame pointers alone miss.  ustack-demo --spin SECONDS instead spins that
 * long (CPU time) at the end of the same chain, for perf to sample.
 *
 * The file is read by a system call in the innermost function itself, so
 * the first frame is this program's code and not glibc's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_syscall.h"

static char stack_text[16384];
static int stack_fd;
static double spin_seconds;
static volatile unsigned long spin_sink;

__attribute__((noinline)) long demo_read_stack(void)
{
	return sf_syscall4(SYS_pread64, stack_fd, (long)stack_text,
			   sizeof(stack_text) - 1, 0);
}

__attribute__((noinline)) long demo_spin(void)
{
	unsigned long x = spin_sink, i;

	for (i = 0; i < 100000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	spin_sink = x;
	return x & 1;
}

/* As SF_CHAIN_FN, the leaf chosen by the mode */
__attribute__((noinline)) long demo_inner(int depth)
{
	long r;

	if (depth)
		r = demo_inner(depth - 1);
	else
		r = spin_seconds ? demo_spin() : demo_read_stack();

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

SF_CHAIN_FN(demo_middle, (void), demo_inner(2))

SF_CHAIN_FN(demo_outer, (void), demo_middle())

int main(int argc, char **argv)
{
	char *line = stack_text, *end;
	unsigned long ip;
	char method[8];
	Dl_info info;

	if (argc == 3 && !strcmp(argv[1], "--spin")) {
		spin_seconds = atof(argv[2]);
		while ((double)clock() / CLOCKS_PER_SEC < spin_seconds)
			demo_outer();
		return 0;
	}
	stack_fd = open("/proc/thread-self/ustack", O_RDONLY);
	if (stack_fd < 0) {
		perror("/proc/thread-self/ustack");
		return 1;
	}
	if (demo_outer() <= 0) {
		perror("reading /proc/thread-self/ustack");
		return 1;
	}
	for (; (end = strchr(line, '\n')); line = end + 1) {
		*end = 0;
		if (sscanf(line, "0x%lx %7s", &ip, method) != 2)
			break;
		/* A return address points after its call: look up the call. */
		if (!dladdr((void *)(ip - 1), &info) || !info.dli_sname)
			info.dli_sname = "?";
		printf("  %#14lx  %-6s  %s\n", ip, method, info.dli_sname);
	}
	return 0;
}
