// SPDX-License-Identifier: GPL-2.0-only
/*
 * PC files, the clock and the results line of the lookup benchmarks: see
 * bench.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "../../sframe/sframe-elf.h"

/* The count, then the PCs, as native u64 */
void bench_write_pcs(const char *file, const uint64_t *pcs, uint64_t n)
{
	FILE *f = fopen(file, "wb");

	if (!f || fwrite(&n, sizeof(n), 1, f) != 1 ||
	    fwrite(pcs, sizeof(*pcs), n, f) != n || fclose(f))
		sframe_elf_fail("%s: cannot write", file);
}

uint64_t *bench_read_pcs(const char *file, uint64_t *n)
{
	FILE *f = fopen(file, "rb");
	uint64_t *pcs;

	if (!f || fread(n, sizeof(*n), 1, f) != 1 || !*n || *n > (1ULL << 32))
		sframe_elf_fail("%s: not a PC file", file);
	pcs = calloc(*n, sizeof(*pcs));
	if (!pcs || fread(pcs, sizeof(*pcs), *n, f) != *n)
		sframe_elf_fail("%s: short", file);
	fclose(f);
	return pcs;
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

unsigned int bench_rounds(const char *arg)
{
	unsigned int rounds = arg ? strtoul(arg, NULL, 0) : 5;

	if (!rounds || rounds > BENCH_MAX_ROUNDS)
		sframe_elf_fail("rounds: 1 to %u", BENCH_MAX_ROUNDS);
	return rounds;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "lookups N found F cfa_sum S reads R ns MEDIAN MIN MAX" */
void bench_print(const struct bench_result *res, uint64_t n, const double *ns,
		 unsigned int rounds)
{
	double sorted[BENCH_MAX_ROUNDS];

	memcpy(sorted, ns, rounds * sizeof(*ns));
	qsort(sorted, rounds, sizeof(*sorted), bench_cmp);
	printf("lookups %llu found %llu cfa_sum %lld reads %.2f ns %.1f %.1f %.1f\n",
	       (unsigned long long)n, (unsigned long long)res->found,
	       (long long)res->cfa_sum, res->reads, sorted[rounds / 2], sorted[0],
	       sorted[rounds - 1]);
}
