// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's SFrame lookup, sframe_find(), timed in user space on the
 * .sframe of a real program, against the same PCs given to GNU libsframe
 * (bench_libsframe.c).
 *
 *   sframe_bench pcs ELF uniform|fde|hot N FILE   write N PCs to FILE
 *   sframe_bench run ELF FILE [ROUNDS]            look them all up
 *   sframe_bench rows ELF FILE                    each PC's row, one a line
 *
 * PCs are drawn by splitmix64 from a fixed seed: uniform over the bytes
 * the FDEs cover; a uniform FDE, then a uniform byte of it; or 64 of the
 * first kind over and over (a hot loop being profiled).  FILE holds their
 * count, then the PCs, as native u64.
 *
 * "run" prints one line: lookups, how many found a row, the sum of the
 * rows' CFA offsets (both programs must agree), user-memory reads per
 * lookup, and ns per lookup of each of ROUNDS passes (default 5).  Under
 * callgrind, bench_lookups() alone is the lookup's cost
 * (--toggle-collect=bench_lookups).  "rows" prints each PC and the rules
 * found for it in sframe-dump's words, or "none": libsframe_bench prints
 * the same from GNU's decoding, and the two must be identical.
 *
 * User memory here is the section's bytes, read inline (a bounds check
 * and a load, counted) where the kernel has unsafe_get_user().
 */
#define SFRAME_UMEM_INLINE
#include "sframe_internal.h"
#include "../../../kernel/unwind/sframe_index.c"
#include "../../../kernel/unwind/sframe.c"

#include "bench.h"
#include "../../sframe/frame-str.h"
#include "../../sframe/sframe-elf.h"

#define BENCH_HOT_PCS	64
#define BENCH_SEED	0x5eed2026ULL

struct sframe_umem_region sframe_umem[SFRAME_UMEM_MAX_REGIONS];
unsigned long sframe_umem_reads;
bool sframe_fail_alloc;
unsigned long sframe_fail_alloc_in;
long sframe_kmem_live;

static uint64_t bench_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void bench_open(const char *path, struct sframe_loc *loc,
		       struct sframe_section *sec)
{
	int ret;

	sframe_elf_load("sframe_bench", path, loc);
	sframe_umem[0] = (struct sframe_umem_region) {
		.addr = loc->addr, .len = loc->size, .data = (unsigned char *)loc->bytes,
	};
	ret = sframe_section_init(sec, loc->addr, loc->size, loc->code_lo,
				  loc->code_hi, SIZE_MAX);
	/* As the kernel gives it once the process is first unwound */
	if (!ret)
		ret = sframe_section_cache_alloc(sec);
	if (ret)
		sframe_elf_fail("%s (%s)", sec->reason ? sec->reason : "rejected",
				strerror(-ret));
}

/* PC number @i of distribution @dist, from the FDEs' starts and sizes */
static uint64_t bench_pc(const char *dist, const struct sframe_fde *fdes,
			 const uint64_t *ends, unsigned int nfdes, uint64_t *state)
{
	uint64_t r = bench_splitmix64(state);
	unsigned int lo = 0, hi = nfdes - 1, mid;

	if (!strcmp(dist, "fde")) {
		lo = r % nfdes;
		return fdes[lo].func_start +
		       bench_splitmix64(state) % fdes[lo].func_size;
	}
	/* uniform over covered bytes: ends[] are the running totals */
	r %= ends[nfdes - 1];
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ends[mid] <= r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return fdes[lo].func_start + (r - (lo ? ends[lo - 1] : 0));
}

static int bench_pcs(const char *path, const char *dist, uint64_t n, const char *out)
{
	struct sframe_section sec;
	struct sframe_loc loc;
	struct sframe_fde *fdes;
	uint64_t *ends, *pcs, total = 0, state = BENCH_SEED, i;
	unsigned int nfdes = 0, k;

	if (strcmp(dist, "uniform") && strcmp(dist, "fde") && strcmp(dist, "hot"))
		sframe_elf_fail("distribution %s: uniform, fde or hot", dist);
	bench_open(path, &loc, &sec);
	fdes = calloc(sec.num_fdes, sizeof(*fdes));
	ends = calloc(sec.num_fdes, sizeof(*ends));
	pcs = calloc(n, sizeof(*pcs));
	if (!fdes || !ends || !pcs)
		sframe_elf_fail("out of memory");
	for (k = 0; k < sec.num_fdes; k++) {
		if (sframe_read_fde(&sec, k, &fdes[nfdes]))
			sframe_elf_fail("FDE %u: %s", k, sec.reason);
		if (!fdes[nfdes].func_size)
			continue;
		total += fdes[nfdes].func_size;
		ends[nfdes++] = total;
	}
	if (!nfdes)
		sframe_elf_fail("no FDE covers any byte");
	for (i = 0; i < n; i++) {
		if (!strcmp(dist, "hot") && i >= BENCH_HOT_PCS)
			pcs[i] = pcs[i % BENCH_HOT_PCS];
		else
			pcs[i] = bench_pc(strcmp(dist, "fde") ? "uniform" : "fde",
					  fdes, ends, nfdes, &state);
	}
	bench_write_pcs(out, pcs, n);
	free(pcs);
	free(ends);
	free(fdes);
	sframe_section_release(&sec);
	sframe_elf_free(&loc);
	return 0;
}

/* The measured loop: every PC once; what callgrind counts */
noinline void bench_lookups(struct sframe_section *sec,
					     const uint64_t *pcs, uint64_t n,
					     struct bench_result *res)
{
	struct unwind_user_frame frame;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (sframe_find(sec, pcs[i], &frame, SFRAME_UNBOUNDED))
			continue;
		res->found++;
		res->cfa_sum += frame.cfa.offset;
	}
}

static int bench_run(const char *path, const char *file, unsigned int rounds)
{
	struct bench_result res = { 0 };
	struct sframe_section sec;
	struct sframe_loc loc;
	double ns[BENCH_MAX_ROUNDS];
	uint64_t n, *pcs = bench_read_pcs(file, &n);
	unsigned int r;

	bench_open(path, &loc, &sec);
	for (r = 0; r < rounds; r++) {
		uint64_t t0 = bench_now_ns();

		res.found = 0;
		res.cfa_sum = 0;
		sframe_umem_reads = 0;
		bench_lookups(&sec, pcs, n, &res);
		ns[r] = (double)(bench_now_ns() - t0) / n;
	}
	res.reads = (double)sframe_umem_reads / n;
	bench_print(&res, n, ns, rounds);
	free(pcs);
	sframe_section_release(&sec);
	sframe_elf_free(&loc);
	return 0;
}

static int bench_rows(const char *path, const char *file)
{
	char text[UNWIND_USER_FRAME_STR_SIZE];
	struct unwind_user_frame frame;
	struct sframe_section sec;
	struct sframe_loc loc;
	uint64_t n, i, *pcs = bench_read_pcs(file, &n);

	bench_open(path, &loc, &sec);
	for (i = 0; i < n; i++)
		printf("%#llx %s\n", (unsigned long long)pcs[i],
		       sframe_find(&sec, pcs[i], &frame, SFRAME_UNBOUNDED) ? "none" :
		       unwind_user_frame_str(&frame, text, sizeof(text)));
	free(pcs);
	sframe_section_release(&sec);
	sframe_elf_free(&loc);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "pcs"))
		return bench_pcs(argv[2], argv[3], strtoull(argv[4], NULL, 0), argv[5]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "run"))
		return bench_run(argv[2], argv[3], bench_rounds(argc == 5 ? argv[4] : NULL));
	if (argc == 4 && !strcmp(argv[1], "rows"))
		return bench_rows(argv[2], argv[3]);
	fprintf(stderr, "usage: sframe_bench pcs ELF uniform|fde|hot N FILE\n"
			"       sframe_bench run ELF FILE [ROUNDS]\n"
			"       sframe_bench rows ELF FILE\n");
	return 2;
}
