// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program of tools/sframe/test-audit's secure-execution tests, run
 * set-user-ID root (a copy, mode 4755) by another user with the module in
 * /etc/ld.so.preload: it says whom it runs as and whether the loader ran
 * it in secure-execution mode, for the test to compare with a run without
 * the module.  AUDIT_VARIANT makes two different files of it (another
 * build-id, another layout) for the test that swaps a link between them.
 */
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

#ifndef AUDIT_VARIANT
#define AUDIT_VARIANT	0
#endif

#if AUDIT_VARIANT == 2
/* Code the other variant has not: its text is longer */
__attribute__((__noinline__)) static unsigned long audit_spin(unsigned long n)
{
	unsigned long i, x = n;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
#else
static unsigned long audit_spin(unsigned long n)
{
	return n;
}
#endif

int main(void)
{
	printf("uid %d euid %d secure %lu variant %d%s\n", (int)getuid(), (int)geteuid(),
	       getauxval(AT_SECURE), AUDIT_VARIANT, audit_spin(1) ? "" : "?");
	return 0;
}
