/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A system call made by the calling function's own instruction, for the
 * programs that read /proc/thread-self/ustack: through glibc, the first
 * frame would be glibc's, which has no SFrame.
 */
#ifndef _SF_SYSCALL_H
#define _SF_SYSCALL_H

static inline long sf_syscall4(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	register long rax __asm__("rax") = nr;
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall" : "+r"(rax)
			 : "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return rax;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc #0" : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
#elif defined(__s390x__)
	register long r1 __asm__("1") = nr;
	register long r2 __asm__("2") = a;
	register long r3 __asm__("3") = b;
	register long r4 __asm__("4") = c;
	register long r5 __asm__("5") = d;

	__asm__ volatile("svc 0" : "+d"(r2)
			 : "d"(r1), "d"(r3), "d"(r4), "d"(r5) : "memory");
	return r2;
#else
#error "no raw system call for this architecture"
#endif
}

#endif /* _SF_SYSCALL_H */
