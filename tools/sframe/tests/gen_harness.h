/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scaffolding of sframe-gen's test programs, one source file each:
 * CHECK() counts a check, passed or failed, and prints a failed one as
 * "FAIL <test_name> (line N): <message>"; gen_report() prints the end
 * line, "N passed, N failed", and gives the exit status.
 */
#ifndef _SFRAME_GEN_HARNESS_H
#define _SFRAME_GEN_HARNESS_H

#include <stdio.h>

static int passed, failed;
static const char *test_name;

#define CHECK(cond, ...)						\
do {									\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s (line %d): ", test_name, __LINE__);	\
		printf(__VA_ARGS__);					\
		putchar('\n');						\
	}								\
} while (0)

/* The counts; returns 1 if any check failed, else 0 */
static inline int gen_report(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* _SFRAME_GEN_HARNESS_H */
