// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/sframe/test-audit's program that closes every descriptor past
 * stderr, as daemons and shells do, then opens DIR, which takes the
 * lowest number free (where the module kept its cache directory), and
 * dlopens LIB: the module, converting LIB, must not take DIR for its
 * cache.  Prints the descriptor DIR got.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *h;
	int fd;

	if (argc != 3)
		return 2;
	if (syscall(SYS_close_range, 3U, ~0U, 0U))
		return 1;
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	printf("dir fd %d\n", fd);
	fflush(stdout);
	h = dlopen(argv[2], RTLD_NOW);
	if (!h)
		return 1;
	return dlclose(h) != 0;
}
