// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/sframe/test-audit's link swapper: exchanges the names A and B
 * (renameat2(RENAME_EXCHANGE): each always names one of the two files)
 * as fast as it can, until the file STOP exists or SECONDS have passed.
 *
 *   swap A B STOP SECONDS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t;
	unsigned long n = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: swap A B STOP SECONDS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE)) {
			perror("swap: renameat2");
			return 1;
		}
		if (++n % 1024)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!access(argv[3], F_OK) || t.tv_sec - t0.tv_sec >= atol(argv[4]))
			break;
	}
	printf("%lu swaps\n", n);
	return 0;
}
