// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-check [-v] [-e] [PID|self]
 *
 * Compares /proc/PID/sframe with what the oracle (sframe_oracle.c) derives
 * from /proc/PID/maps and the ELF program headers of the mapped files, and
 * prints every line that is missing or unexpected.  -e prints the expected
 * lines only, without reading /proc/PID/sframe (for kernels without it);
 * -v says how each expected line was derived.
 *
 * Exit status: 0 the lines match, 1 they differ, 2 an error.  Explicit
 * (JIT) registrations are never expected: a process with some differs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sframe_oracle.h"

static void usage(void)
{
	fprintf(stderr, "usage: sframe-check [-v] [-e] [PID|self]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool expected_only = false;
	struct sf_set want, got;
	const char *pid = "self";
	int opt, i, diff;

	while ((opt = getopt(argc, argv, "ve")) != -1) {
		switch (opt) {
		case 'v':
			sf_oracle_verbose = true;
			break;
		case 'e':
			expected_only = true;
			break;
		default:
			usage();
		}
	}
	if (optind < argc - 1)
		usage();
	if (optind == argc - 1)
		pid = argv[optind];
	if (strcmp(pid, "self") && strspn(pid, "0123456789") != strlen(pid))
		usage();

	/* Read the kernel's view first: the oracle's reads map nothing. */
	if (!expected_only && sf_actual(pid, &got)) {
		fprintf(stderr, "sframe-check: /proc/%s/sframe: %s\n", pid, strerror(errno));
		return 2;
	}
	if (sf_expected(pid, &want))
		return 2;
	if (expected_only) {
		for (i = 0; i < want.n; i++)
			printf("%s\n", want.line[i].text);
		return 0;
	}
	diff = sf_compare(&want, &got, stdout, "");
	if (diff)
		printf("sframe-check: /proc/%s/sframe: %d lines differ (%d expected, %d read)\n",
		       pid, diff, want.n, got.n);
	else
		printf("sframe-check: /proc/%s/sframe: all %d lines as expected\n", pid, got.n);
	return diff ? 1 : 0;
}
