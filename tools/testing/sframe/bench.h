/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the two lookup benchmarks share (bench.c, the kernel's reader;
 * bench_libsframe.c, GNU libsframe): the PC files both replay, the clock,
 * and the one line of results the script reads.
 */
#ifndef _SFRAME_BENCH_H
#define _SFRAME_BENCH_H

#include <stdint.h>

#define BENCH_MAX_ROUNDS	16

/**
 * struct bench_result - what one pass over the PCs found
 * @found: lookups that found a row.
 * @cfa_sum: the sum of those rows' CFA offsets: the same on both sides.
 * @reads: user-memory reads per lookup (the kernel's reader only).
 */
struct bench_result {
	uint64_t	found;
	int64_t		cfa_sum;
	double		reads;
};

void bench_write_pcs(const char *file, const uint64_t *pcs, uint64_t n);
uint64_t *bench_read_pcs(const char *file, uint64_t *n);
uint64_t bench_now_ns(void);
unsigned int bench_rounds(const char *arg);
void bench_print(const struct bench_result *res, uint64_t n, const double *ns,
		 unsigned int rounds);

#endif /* _SFRAME_BENCH_H */
