// SPDX-License-Identifier: GPL-2.0-only
/* Calls into libc through the PLT (x86_64 gets MASK PC type PLT FDEs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int lib_entry(int x);

__attribute__((noinline)) int work(const char *s)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s-%zu", s, strlen(s));
	puts(buf);
	return atoi(s) + (int)strlen(buf);
}

int main(int argc, char **argv)
{
	char *p = malloc(32);

	strcpy(p, argc > 1 ? argv[1] : "x");
	printf("%d\n", work(p));
	free(p);
	return 0;
}
