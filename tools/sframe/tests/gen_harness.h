/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scaffolding of sframe-gen's test programs, one source file each: a
 * test is what runs under one gen_test_start() name; CHECK() fails it,
 * printing the failed check as "FAIL <test name> (line N): <message>";
 * gen_report() prints the end line, "N passed, N failed", in tests, and
 * gives the exit status.
 */
#ifndef _SFRAME_GEN_HARNESS_H
#define _SFRAME_GEN_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int passed, failed, checks;
static const char *test_name;
static bool test_failed;

/* Ends the test before, if any; a test run again under its name goes on. */
static inline void gen_test_start(const char *name)
{
	if (test_name && !strcmp(test_name, name))
		return;
	/* A check outside any test is a test of its own. */
	if (test_name || test_failed)
		*(test_failed ? &failed : &passed) += 1;
	test_name = name;
	test_failed = false;
}

#define CHECK(cond, ...)						\
do {									\
	checks++;							\
	if (!(cond)) {							\
		test_failed = true;					\
		printf("FAIL %s (line %d): ", test_name ?: "-", __LINE__); \
		printf(__VA_ARGS__);					\
		putchar('\n');						\
	}								\
} while (0)

/* The counts; returns 1 if any test failed, else 0 */
static inline int gen_report(void)
{
	gen_test_start("");
	printf("# %d checks\n", checks);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* _SFRAME_GEN_HARNESS_H */
