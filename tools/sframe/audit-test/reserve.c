// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/sframe/test-audit's program for a cache entry whose address is
 * taken: it maps ADDR (hex; 0: nothing) for LEN bytes before it dlopens
 * LIB, where the module would map LIB's cached sections, so that the
 * module must convert it as without the cache.  Run with ASLR off, LIB
 * loads where a first run saw it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	unsigned long addr, len;
	int (*fn)(int x);
	void *h, *m;

	if (argc != 4)
		return 2;
	addr = strtoul(argv[1], NULL, 16);
	len = strtoul(argv[2], NULL, 0);
	if (addr) {
		m = mmap((void *)addr, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != (void *)addr) {
			fprintf(stderr, "reserve: %#lx taken already\n", addr);
			return 1;
		}
	}
	h = dlopen(argv[3], RTLD_NOW);
	if (!h)
		return 1;
	fn = (int (*)(int x))dlsym(h, "audit_lib_dl");
	if (!fn)
		return 1;
	printf("result %d\n", fn(argc));
	return dlclose(h) != 0;
}
