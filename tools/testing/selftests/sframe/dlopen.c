// SPDX-License-Identifier: GPL-2.0
/*
 * (c) sf-dlopen [ROUNDS [EVERY]]: dlopen() and dlclose() an SFrame library
 * ROUNDS times (default 3000).  Its one line must be there after every
 * dlopen and gone after every dlclose; every EVERY-th round (default 100)
 * the whole file must match the oracle and the system-wide section count
 * must be one above, then back at, its start value.  At the end the lines
 * and the count are what they were before the first round.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sf_harness.h"

#define SF_DL_LIB	"libsf-dl.so"

/* Lines for the library now; -1 if the file cannot be read. */
static int sf_dl_lines(const struct sf_line **line)
{
	struct sf_set got;
	const struct sf_line *l;
	static struct sf_line copy;
	int n;

	if (sf_actual("self", &got))
		return -1;
	l = sf_set_find_path(&got, "/" SF_DL_LIB, &n);
	if (l && line) {
		copy = *l;
		*line = &copy;
	}
	sf_set_free(&got);
	return n;
}

/* The lines and, on @full rounds, the oracle and the count agree with @open. */
static bool sf_dl_state(int i, bool open, bool full, long sections0)
{
	const char *step = open ? "after dlopen" : "after dlclose";
	const struct sf_line *l = NULL;
	int n = sf_dl_lines(&l);

	if (!SF_CHECK(n == open, "round %d: %d lines for %s %s, expected %d", i, n, SF_DL_LIB,
		      step, open))
		return false;
	if (i == 0 && open)
		SF_CHECK(l->version == SFRAME_VERSION_3 && l->fdes > 0 && !strcmp(l->state, "ok"),
			 "line '%s': want v3, fdes > 0, ok", l->text);
	if (!full)
		return true;
	return sf_check_oracle(step) &&
	       SF_CHECK(sf_stat_get("sections") == sections0 + open,
			"round %d: %ld sections %s, expected %ld", i, sf_stat_get("sections"),
			step, sections0 + open);
}

static bool sf_dl_round(int i, bool full, long sections0)
{
	int (*fn)(int x);
	bool ok;
	void *h;

	h = dlopen(SF_DL_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!SF_CHECK(h, "round %d: dlopen: %s", i, dlerror()))
		return false;
	fn = (int (*)(int))dlsym(h, "sf_lib_dl");
	ok = SF_CHECK(fn && fn(2) == 42, "round %d: the library does not work", i) &&
	     sf_dl_state(i, true, full, sections0);
	if (!SF_CHECK(!dlclose(h), "round %d: dlclose: %s", i, dlerror()))
		return false;
	return ok && sf_dl_state(i, false, full, sections0);
}

SF_TEST_ARGS(dlopen, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("3000", "100"))

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3000;
	int every = argc > 2 ? atoi(argv[2]) : 100;
	struct timespec t0, t1;
	struct sf_set start;
	long sections0;
	int i;

	sf_harness_enter(argc, argv);

	if (every < 1)
		every = 1;
	sections0 = sf_stat_get("sections");
	SF_CHECK(sections0 >= 0, "cannot read " SF_STATS_DIR "sections");
	if (!sf_check_oracle("before the first dlopen") ||
	    !sf_read_self(&start, "before the first dlopen"))
		sf_exit();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rounds; i++)
		if (!sf_dl_round(i, i % every == 0 || i == rounds - 1, sections0))
			break;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sf_note("%d of %d rounds in %ld ms", i, rounds,
		(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);

	sf_check_want(&start, "after the last dlclose");
	SF_CHECK(sf_stat_get("sections") == sections0, "%ld sections at the end, expected %ld",
		 sf_stat_get("sections"), sections0);
	sf_exit();
}
