// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustack-demo: prints its own user stack as the kernel unwinds it, from
 * /proc/thread-self/ustack, with each address's symbol.  `make demo` builds
 * it -O2 -fomit-frame-pointer twice, with SFrame and without, to show what
 * frame pointers alone miss.
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
#include <unistd.h>

static char stack_text[16384];
static int stack_fd;

__attribute__((noinline)) long demo_read_stack(void)
{
	long ret;

#if defined(__x86_64__)
	register long r10 __asm__("r10") = 0;

	ret = SYS_pread64;
	__asm__ volatile("syscall" : "+a"(ret)
			 : "D"((long)stack_fd), "S"(stack_text),
			   "d"(sizeof(stack_text) - 1), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_pread64;
	register long x0 __asm__("x0") = stack_fd;
	register long x1 __asm__("x1") = (long)stack_text;
	register long x2 __asm__("x2") = sizeof(stack_text) - 1;
	register long x3 __asm__("x3") = 0;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
			 : "memory");
	ret = x0;
#elif defined(__s390x__)
	register long r1 __asm__("1") = SYS_pread64;
	register long r2 __asm__("2") = stack_fd;
	register long r3 __asm__("3") = (long)stack_text;
	register long r4 __asm__("4") = sizeof(stack_text) - 1;
	register long r5 __asm__("5") = 0;

	__asm__ volatile("svc 0" : "+d"(r2) : "d"(r1), "d"(r3), "d"(r4), "d"(r5)
			 : "memory");
	ret = r2;
#endif
	return ret;
}

/* Work after each call keeps the compiler from turning it into a jump. */
__attribute__((noinline)) long demo_inner(int depth)
{
	long r = depth ? demo_inner(depth - 1) : demo_read_stack();

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

__attribute__((noinline)) long demo_middle(void)
{
	long r = demo_inner(2);

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

__attribute__((noinline)) long demo_outer(void)
{
	long r = demo_middle();

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

int main(void)
{
	char *line = stack_text, *end;
	unsigned long ip;
	char method[8];
	Dl_info info;

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
