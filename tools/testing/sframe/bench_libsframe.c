// SPDX-License-Identifier: GPL-2.0-only
/*
 * GNU libsframe's lookup, sframe_find_fre(), on the PCs sframe_bench
 * wrote, for the comparison in bench.c.
 *
 *   libsframe_bench run ELF FILE [ROUNDS]
 *   libsframe_bench rows ELF FILE
 *
 * libsframe decodes the section into its own memory once; its PCs are
 * offsets from the section's address.  Under callgrind,
 * bench_lookups() alone is the lookup's cost.  "rows" prints each PC and
 * its row as sframe_bench does, in sframe-dump's words (for default FDEs,
 * the only kind the benchmark's inputs have).
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

/* One PC's row in sframe-dump's words, as frame-str.c writes the kernel's */
static void bench_row(sframe_decoder_ctx *dctx, uint64_t sec_addr, uint64_t pc)
{
	const uint32_t type = SFRAME_FDE_TYPE_DEFAULT;
	sframe_frame_row_entry fre;
	int32_t cfa, ra, fp;
	int err = 0, ra_err = 0, fp_err = 0, base;

	printf("%#llx ", (unsigned long long)pc);
	if (sframe_find_fre(dctx, (int64_t)(pc - sec_addr), &fre)) {
		printf("none\n");
		return;
	}
	base = sframe_fre_get_base_reg_id(&fre, &err);
	cfa = sframe_fre_get_cfa_offset(dctx, &fre, type, &err);
	if (err) {
		printf("outermost\n");
		return;
	}
	ra = sframe_fre_get_ra_offset(dctx, &fre, type, &ra_err);
	fp = sframe_fre_get_fp_offset(dctx, &fre, type, &fp_err);
	printf("cfa=%s%+d ", base == SFRAME_BASE_REG_SP ? "sp" : "fp", cfa);
	if (ra_err)
		printf("ra=same ");
	else
		printf("ra=*(cfa%+d) ", ra);
	if (fp_err)
		printf("fp=same\n");
	else
		printf("fp=*(cfa%+d)\n", fp);
}

static int bench_rows(sframe_decoder_ctx *dctx, uint64_t sec_addr,
		      const uint64_t *pcs, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		bench_row(dctx, sec_addr, pcs[i]);
	return 0;
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

	if ((argc != 4 && argc != 5) ||
	    (strcmp(argv[1], "run") && (strcmp(argv[1], "rows") || argc != 4))) {
		fprintf(stderr, "usage: libsframe_bench run ELF FILE [ROUNDS]\n"
				"       libsframe_bench rows ELF FILE\n");
		return 2;
	}
	sframe_elf_load("libsframe_bench", argv[2], &loc);
	rounds = bench_rounds(argc == 5 ? argv[4] : NULL);
	pcs = bench_read_pcs(argv[3], &n);
	dctx = sframe_decode((const char *)loc.bytes, loc.size, &err);
	if (!dctx)
		sframe_elf_fail("sframe_decode: %s", sframe_errmsg(err));
	if (!strcmp(argv[1], "rows"))
		return bench_rows(dctx, loc.addr, pcs, n);
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
