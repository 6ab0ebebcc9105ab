// SPDX-License-Identifier: GPL-2.0-only
/*
 * GNU libsframe's lookup, sframe_find_fre(), on the PCs sframe_bench
 * wrote, for the comparison in bench.c.
 *
 *   libsframe_bench run ELF FILE [ROUNDS]
 *
 * libsframe decodes the section into its own memory once; its PCs are
 * offsets from the section's address.  Under callgrind,
 * bench_lookups() alone is the lookup's cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sframe-api.h>

#include "bench.h"
#include "../../sframe/sframe-elf.h"

__attribute__((noinline)) void bench_lookups(sframe_decoder_ctx *dctx,
					     uint64_t sec_addr,
					     const uint64_t *pcs, uint64_t n,
					     struct bench_result *res)
{
	sframe_frame_row_entry fre;
	uint64_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (sframe_find_fre(dctx, (int64_t)(pcs[i] - sec_addr), &fre))
			continue;
		res->found++;
		res->cfa_sum += sframe_fre_get_cfa_offset(dctx, &fre,
							  SFRAME_FDE_TYPE_DEFAULT,
							  &err);
	}
}

int main(int argc, char **argv)
{
	struct bench_result res = { 0 };
	double ns[BENCH_MAX_ROUNDS];
	sframe_decoder_ctx *dctx;
	struct sframe_loc loc;
	unsigned int rounds, r;
	uint64_t n, *pcs;
	int err = 0;

	if ((argc != 4 && argc != 5) || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: libsframe_bench run ELF FILE [ROUNDS]\n");
		return 2;
	}
	sframe_elf_load("libsframe_bench", argv[2], &loc);
	rounds = bench_rounds(argc == 5 ? argv[4] : NULL);
	pcs = bench_read_pcs(argv[3], &n);
	dctx = sframe_decode((const char *)loc.bytes, loc.size, &err);
	if (!dctx)
		sframe_elf_fail("sframe_decode: %s", sframe_errmsg(err));
	for (r = 0; r < rounds; r++) {
		uint64_t t0 = bench_now_ns();

		res.found = 0;
		res.cfa_sum = 0;
		bench_lookups(dctx, loc.addr, pcs, n, &res);
		ns[r] = (double)(bench_now_ns() - t0) / n;
	}
	bench_print(&res, n, ns, rounds);
	sframe_decoder_free(&dctx);
	free(pcs);
	sframe_elf_free(&loc);
	return 0;
}
