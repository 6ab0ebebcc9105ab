// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes the fuzzer's seed corpus, each section with the fuzzer's tail
 * appended (sframe_fuzz.h):
 *
 *  - every section of the reader's case tables, for every ABI: twice,
 *    without a second writer and with one that changes the first element's
 *    FDE count and the first FDE's size while it is read.  Good sections
 *    also get the rule cache, a copy and validation, and all an index
 *    built from a copy of their bytes; the unreadable pages of bad ones
 *    become the mode's hole.
 *  - sections for what the tables test through their own harness, or not
 *    at all, each with the mode that reaches it: failed allocations one by
 *    one, FRE budgets, text ranges, init arguments, bytes that cannot be
 *    read, elements that disagree, functions with many FREs (written with
 *    the mutator's model, sframe_mutate.c), sections tiled past what an
 *    input holds.
 *
 * With the mutator, these reach the coverage make fuzz-smoke asks for in
 * its short run: keep them so when the reader grows a path.
 */
#include "sframe_internal.h"
#include "sframe_fuzz.h"
#include "../../../tests/kunit/sframe_cases.h"
/* Its model writes what sfb_build() cannot: more FREs, more FDEs */
#include "sframe_mutate.c"

#define SEED_ADDR	FUZZ_ADDR
#define SEED_TEXT	(SEED_ADDR + SFB_TEXT_DISTANCE)
#define SEED_ROOM	(SFB_BUF_SIZE + FUZZ_TAIL_LEN)
#define PAGE		4096

static u8 buf[SEED_ROOM], out[SEED_ROOM];
static const char *seed_dir;
static int bad;

/* The mutator's fallback, which libFuzzer has: no mutation here */
size_t LLVMFuzzerMutate(u8 *data, size_t size, size_t max_size)
{
	return data && size <= max_size ? size : 0;
}

/* The tail of a seed: how the fuzz target is to run it */
struct seed_tail {
	u8	b[FUZZ_TAIL_LEN];
};

static u8 *mode(struct seed_tail *t)
{
	return t->b;
}

static void set16(u8 *p, u16 v)
{
	memcpy(p, &v, sizeof(v));
}

/* The lookups of the seed: every fourth at @pc, from the text base */
static void look(struct seed_tail *t, s64 pc)
{
	u64 rel = SEED_TEXT + pc - SEED_ADDR;

	memcpy(t->b + FUZZ_MODE_LEN + FUZZ_SCRIPT_LEN, &rel, sizeof(rel));
}

static void hole(struct seed_tail *t, u16 off, u8 len)
{
	set16(mode(t) + FUZZ_M_HOLE, off);
	mode(t)[FUZZ_M_HOLE_LEN] = len;
}

static void emit(const char *name, const u8 *section, u32 size, const struct seed_tail *t)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", seed_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(section, 1, size, f) != size ||
	    fwrite(t->b, 1, FUZZ_TAIL_LEN, f) != FUZZ_TAIL_LEN) {
		perror(path);
		bad = 1;
	}
	if (f && fclose(f))
		bad = 1;
}

/*
 * Store 0 raises the first element's num_fdes right after its first read;
 * store 1 makes the first FDE's size huge after read 3, about when the
 * FDEs are indexed.  Values are in the section's byte order.
 */
static void put_script(struct seed_tail *t, const u8 *section, u32 size, u8 abi)
{
	static const u16 off[2] = { 8, 28 + 8 };
	u8 *s = t->b + FUZZ_MODE_LEN;
	bool big = sfb_big_endian(abi);
	u32 num_fdes = 0;
	int i;

	for (i = 0; i < 4 && size >= 12; i++)
		num_fdes |= (u32)section[big ? 11 - i : 8 + i] << (8 * i);
	memset(s, 0, FUZZ_SCRIPT_LEN);
	s[FUZZ_S_TRIGGER] = 0x80;
	s[FUZZ_S_TRIGGER + 1] = 3;
	memcpy(s + FUZZ_S_OFFSET, off, sizeof(off));
	sfb_put(s + FUZZ_S_VALUE, num_fdes + 1, 4, big);
	sfb_put(s + FUZZ_S_VALUE + 4, 0xffffffff, 4, big);
}

/* A case of the tables, without and with the second writer */
static void case_seed(const char *abi, u8 abi_id, const char *name, u32 size, s32 pc,
		      u8 hole_page)
{
	struct seed_tail t = { 0 };
	char full[256];

	if (size > SFB_BUF_SIZE)
		size = SFB_BUF_SIZE;
	look(&t, pc);
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_CACHE | FUZZ_F_COPY | FUZZ_F_VALIDATE | FUZZ_F_IMAGE;
	if (hole_page)
		hole(&t, (hole_page - 1) * PAGE, 255);
	snprintf(full, sizeof(full), "%s-%s", abi, name);
	emit(full, buf, size, &t);
	put_script(&t, buf, size, abi_id);
	snprintf(full, sizeof(full), "%s-%s-writer", abi, name);
	emit(full, buf, size, &t);
}

static void case_seeds(const char *abi, u8 abi_id)
{
	unsigned int i;
	u32 size;

	for (i = 0; i < ARRAY_SIZE(sframe_decode_cases); i++) {
		const struct sframe_decode_case *c = &sframe_decode_cases[i];

		memset(buf, 0, sizeof(buf));
		size = sframe_decode_case_bytes(c, abi_id, buf, SEED_ADDR, SEED_TEXT);
		case_seed(abi, abi_id, c->name, size, c->pc, 0);
	}
	for (i = 0; i < ARRAY_SIZE(sframe_bad_cases); i++) {
		const struct sframe_bad_case *c = &sframe_bad_cases[i];

		memset(buf, 0, sizeof(buf));
		size = sframe_bad_case_bytes(c, abi_id, buf, SEED_ADDR, SEED_TEXT);
		case_seed(abi, abi_id, c->name, size, c->pc, c->hole_page);
	}
}

/* The base section of the tables, or @spec, and @second after it */
static u32 build(void (*spec)(struct sfb_spec *s, u8 abi),
		 void (*second)(struct sfb_spec *s, u8 abi), u8 abi, struct sfb_layout *l)
{
	memset(buf, 0, sizeof(buf));
	return sframe_case_build(spec ? spec : spec_base, second, abi, buf, SEED_ADDR,
				 SEED_TEXT, l);
}

/* ---- second elements that disagree with the first, or are not sorted ---- */

/* Another ABI of the same byte order */
static void second_abi(struct sfb_spec *s, u8 abi)
{
	spec_second_element(s, abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ?
			    SFRAME_ABI_AARCH64_ENDIAN_LITTLE : SFRAME_ABI_AMD64_ENDIAN_LITTLE);
}

static void second_fixed_fp(struct sfb_spec *s, u8 abi)
{
	spec_second_element(s, abi);
	s->fixed_fp = -16;
}

static void second_fixed_ra(struct sfb_spec *s, u8 abi)
{
	spec_second_element(s, abi);
	s->fixed_ra = 0;
}

static void second_section_relative(struct sfb_spec *s, u8 abi)
{
	spec_second_element(s, abi);
	s->flags &= ~SFRAME_F_FDE_FUNC_START_PCREL;
}

static void second_unsorted(struct sfb_spec *s, u8 abi)
{
	spec_second_element(s, abi);
	s->flags &= ~SFRAME_F_FDE_SORTED;
}

/* Eight functions of 8 bytes: copies a body apart do not overlap */
static void spec_small_functions(struct sfb_spec *s, u8 abi)
{
	unsigned int i;

	sfb_base(s, abi);
	s->nfdes = SFB_MAX_FDES;
	for (i = 0; i < SFB_MAX_FDES; i++) {
		s->fde[i] = s->fde[2];
		s->fde[i].func = 8 * i;
		s->fde[i].size = 8;
	}
}

/* Four functions: an index of exactly the room it grew to */
static void spec_four_fdes(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->nfdes = 4;
	s->fde[3] = s->fde[2];
	s->fde[3].func = 0x200;
}

/*
 * Unsorted, 0x100, 0x0, 0x40 and 0x40 again: the sort sees starts below,
 * above and equal
 */
static void spec_same_start(struct sfb_spec *s, u8 abi)
{
	spec_unsorted(s, abi);
	s->nfdes = 4;
	s->fde[3] = s->fde[1];
	s->fde[1] = s->fde[2];
	s->fde[2] = s->fde[3];
}

/* Two bytes after the last row, less than an FRE (4-byte starts) */
static void spec_fre_tail(struct sfb_spec *s, u8 abi)
{
	spec_addr4(s, abi);
	s->fre_pad = 2;
}

/* s390x: a flex CFA offset that does not scale into 32 bits, below */
static void spec_s390x_flex_range(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 2, 2, 0), SFB_FLEX_CTL(15, 0, 1), S32_MIN,
		  0, 0, 0, 0);
	s->raw_words = true;
}

/* s390x V2: an RA in a register number past 255 */
static void spec_s390x_v2_big_reg(struct sfb_spec *s, u8 abi)
{
	spec_s390x_v2_regs(s, abi);
	s->fde[2].fre[0].words[1] = 2 * 300 + 1;
	s->fde[2].fre[0].info = SFB_FRE_INFO(1, 3, SFRAME_FRE_DATAWORD_2B, 0);
}

/* Flex: the RA in a register number past 255 */
static void spec_flex_big_ra_reg(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 4, 1, 0), SFB_FLEX_CTL(7, 0, 1), 8,
		  SFB_FLEX_CTL(300, 0, 1), 0, 0, 0);
}

/* V3: a flex FDE without FREs is not outermost, just undescribed */
static void spec_flex_no_fres(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].info2 = SFRAME_FDE_TYPE_FLEX;
	s->fde[2].nfres = 0;
}

/*
 * The base section with a function of @n rows of 13 bytes at 0x100, its
 * size 0x100: a lookup reads it in several copies.
 */
static u32 many_fres(unsigned int n, struct sfb_layout *l, u32 *attr)
{
	struct mz_fde *f;
	unsigned int j;
	u32 size;

	size = build(NULL, NULL, SFRAME_ABI_AMD64_ENDIAN_LITTLE, l);
	memset(buf + size, 0, FUZZ_TAIL_LEN);
	if (!parse(&mz_a, buf, size + FUZZ_TAIL_LEN))
		return 0;
	f = &mz_a.elem[0].fde[2];
	f->info = SFRAME_FRE_TYPE_ADDR4;
	f->size = 0x100;
	f->nfres = n;
	for (j = 0; j < n; j++) {
		memset(&f->fre[j], 0, sizeof(f->fre[j]));
		f->fre[j].start = 2 * j;
		f->fre[j].info = SFB_FRE_INFO(1, 2, SFRAME_FRE_DATAWORD_4B, 0);
		f->fre[j].word[0] = 16 + 8 * j;
		f->fre[j].word[1] = -16;
	}
	size = write_section(&mz_a, out, sizeof(out)) - FUZZ_TAIL_LEN;
	*attr = f->attr;
	return size;
}

/* Seeds named @name-N: the Nth allocation fails, N up to @n; @t as given */
/* The base section with @n functions more, of 8 bytes from 0x200 */
static u32 many_fdes(unsigned int n)
{
	struct mz_elem *e = &mz_a.elem[0];
	struct sfb_layout l;
	u32 size;

	size = build(NULL, NULL, SFRAME_ABI_AMD64_ENDIAN_LITTLE, &l);
	memset(buf + size, 0, FUZZ_TAIL_LEN);
	if (!parse(&mz_a, buf, size + FUZZ_TAIL_LEN))
		return 0;
	while (n-- && e->nfdes < MZ_MAX_FDES) {
		e->fde[e->nfdes] = e->fde[2];
		e->fde[e->nfdes].func = SEED_TEXT + 0x200 + 8 * (e->nfdes - 3);
		e->fde[e->nfdes].size = 8;
		e->nfdes++;
	}
	return write_section(&mz_a, out, sizeof(out)) - FUZZ_TAIL_LEN;
}

static void fail_alloc_seeds(const char *name, u32 size, unsigned int n,
			     struct seed_tail t)
{
	char full[64];
	unsigned int i;

	for (i = 1; i <= n; i++) {
		mode(&t)[FUZZ_M_FAIL_ALLOC] = i;
		snprintf(full, sizeof(full), "%s-%u", name, i);
		emit(full, buf, size, &t);
	}
}

/* How the reader is called: cache, budgets, text, allowances, arguments */
static void call_seeds(void)
{
	const u8 amd64 = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	struct seed_tail t;
	struct sfb_layout l;
	unsigned int i;
	char name[64];
	u32 size;

	/* The cache, torn or not, copies and validation; FRE budgets */
	size = build(NULL, NULL, amd64, &l);
	memset(&t, 0, sizeof(t));
	look(&t, 0x45);
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_CACHE | FUZZ_F_COPY | FUZZ_F_VALIDATE | FUZZ_F_TEAR;
	emit("mode-cache-torn", buf, size, &t);
	mode(&t)[FUZZ_M_FLAGS] = 0;
	for (i = 1; i <= 3; i++) {
		set16(mode(&t) + FUZZ_M_BUDGET, i);
		snprintf(name, sizeof(name), "mode-budget-%u", i);
		emit(name, buf, size, &t);
	}

	/*
	 * Text that ends before the functions, looked up inside; text longer
	 * than 4 GiB, looked up 4 GiB in
	 */
	memset(&t, 0, sizeof(t));
	memcpy(t.b + FUZZ_MODE_LEN + FUZZ_SCRIPT_LEN, &(u32){ S32_MIN + 16 }, sizeof(u32));
	set16(mode(&t) + FUZZ_M_TEXT_MB, 1);
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_CACHE | FUZZ_F_COPY;
	emit("mode-text-short", buf, size, &t);
	memcpy(t.b + FUZZ_MODE_LEN + FUZZ_SCRIPT_LEN, &(u32){ S32_MAX }, sizeof(u32));
	set16(mode(&t) + FUZZ_M_TEXT_MB, 5000);
	emit("mode-text-long", buf, size, &t);
	/* 3 GiB, the functions in it */
	look(&t, 0x4);
	set16(mode(&t) + FUZZ_M_TEXT_MB, 3072);
	emit("mode-text-3gib", buf, size, &t);

	/*
	 * Four FDEs in an allowance of 64 bytes: the index fits, then its
	 * fast table does not
	 */
	size = build(spec_four_fdes, NULL, amd64, &l);
	memset(&t, 0, sizeof(t));
	set16(t.b + FUZZ_MODE_LEN + FUZZ_S_ALLOWANCE, 4);
	emit("allowance-fast", buf, size, &t);

	/* Equal starts to sort; an FRE count one past what fits */
	size = build(spec_same_start, NULL, amd64, &l);
	memset(&t, 0, sizeof(t));
	emit("same-start-unsorted", buf, size, &t);
	size = build(spec_fre_tail, NULL, amd64, &l);
	sfb_put(buf + l.attr[2], 3, 2, false);
	look(&t, 0x100);
	emit("fre-count-past-tail", buf, size, &t);

	/* The FRE sub-section runs into the tail: no room for another header */
	size = build(NULL, NULL, amd64, &l);
	sfb_put(buf + 16, size - l.fres + FUZZ_TAIL_LEN - 8, 4, false);
	look(&t, 0x4);
	emit("fres-into-tail", buf, size, &t);

	/* Index allowances of a few 16 bytes, two elements */
	size = build(NULL, spec_second_element, amd64, &l);
	memset(&t, 0, sizeof(t));
	look(&t, 0x204);
	for (i = 1; i <= 8; i++) {
		set16(t.b + FUZZ_MODE_LEN + FUZZ_S_ALLOWANCE, i);
		snprintf(name, sizeof(name), "allowance-%u", i);
		emit(name, buf, size, &t);
	}
	size = build(NULL, NULL, amd64, &l);

	/* Init arguments no section gives */
	memset(&t, 0, sizeof(t));
	for (i = FUZZ_ARGS_EMPTY_TEXT; i <= FUZZ_ARGS_WRAP; i++) {
		mode(&t)[FUZZ_M_ARGS] = i;
		snprintf(name, sizeof(name), "args-%u", i);
		emit(name, buf, size, &t);
	}

	/* Each allocation failing in turn, one element and two */
	memset(&t, 0, sizeof(t));
	look(&t, 0x204);
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_CACHE | FUZZ_F_COPY;
	fail_alloc_seeds("fail-alloc", size, 8, t);
	size = build(NULL, spec_second_element, amd64, &l);
	fail_alloc_seeds("fail-alloc-elements", size, 14, t);
}

/* Bytes that cannot be read */
static void hole_seeds(void)
{
	const u8 amd64 = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	struct seed_tail t;
	struct sfb_layout l;
	u32 size;

	/* Unreadable: the next element's magic; FDEs and FREs after init */
	size = build(NULL, spec_second_element, amd64, &l);
	memset(&t, 0, sizeof(t));
	look(&t, 0x204);
	hole(&t, l.size, 1);
	emit("hole-next-element", buf, size, &t);
	size = build(NULL, NULL, amd64, &l);
	look(&t, 0x4);
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_HOLE_LATE;
	hole(&t, l.fde[0], 4);
	emit("hole-late-fde", buf, size, &t);
	hole(&t, l.attr[0], 4);
	emit("hole-late-fre", buf, size, &t);
	hole(&t, 0, 4);
	mode(&t)[FUZZ_M_FLAGS] = 0;
	emit("hole-header", buf, size, &t);
}

/* Sections of shapes the tables do not have */
static void shape_seeds(void)
{
	static const struct {
		const char *name;
		void (*second)(struct sfb_spec *s, u8 abi);
	} seconds[] = {
		{ "elements-abi", second_abi },
		{ "elements-fixed-fp", second_fixed_fp },
		{ "elements-fixed-ra", second_fixed_ra },
		{ "elements-pcrel", second_section_relative },
		{ "elements-unsorted", second_unsorted },
	};
	static const struct {
		const char *name;
		void (*spec)(struct sfb_spec *s, u8 abi);
		u8 abi;
	} specs[] = {
		{ "s390x-flex-cfa-range", spec_s390x_flex_range, SFRAME_ABI_S390X_ENDIAN_BIG },
		{ "s390x-v2-big-register", spec_s390x_v2_big_reg, SFRAME_ABI_S390X_ENDIAN_BIG },
		{ "flex-big-ra-register", spec_flex_big_ra_reg, SFRAME_ABI_AMD64_ENDIAN_LITTLE },
		{ "flex-no-fres", spec_flex_no_fres, SFRAME_ABI_AMD64_ENDIAN_LITTLE },
		{ "eight-fdes", spec_small_functions, SFRAME_ABI_AMD64_ENDIAN_LITTLE },
	};
	const u8 amd64 = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	struct seed_tail t;
	struct sfb_layout l;
	unsigned int i;
	u32 size, attr;

	/* Elements that disagree, or that do not say they are sorted */
	for (i = 0; i < ARRAY_SIZE(seconds); i++) {
		size = build(NULL, seconds[i].second, amd64, &l);
		memset(&t, 0, sizeof(t));
		look(&t, 0x204);
		emit(seconds[i].name, buf, size, &t);
	}

	/* A function at the top of the address space that wraps around */
	memset(buf, 0, sizeof(buf));
	size = sframe_case_build(spec_base, NULL, amd64, buf, SEED_ADDR, ULONG_MAX - 0x20, &l);
	memset(&t, 0, sizeof(t));
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_TEXT_TOP;
	emit("text-top-wraps", buf, size, &t);

	/* Rules out of range, a flex FDE without FREs */
	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		size = build(specs[i].spec, NULL, specs[i].abi, &l);
		memset(&t, 0, sizeof(t));
		look(&t, 0x100);
		emit(specs[i].name, buf, size, &t);
	}

	/*
	 * Many rows: the row ending a search at 0x10e is the first of the next
	 * copy, or a later copy cannot be read.
	 */
	size = many_fres(24, &l, &attr);
	if (size) {
		memset(&t, 0, sizeof(t));
		look(&t, 0x100 + 14);
		mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_VALIDATE;
		emit("many-fres", out, size, &t);
		hole(&t, attr + 160, 4);
		emit("many-fres-hole", out, size, &t);
	}

	/* More FDEs than one chunk of the FDE table holds */
	size = many_fdes(21);
	if (size) {
		memset(&t, 0, sizeof(t));
		look(&t, 0x208);
		emit("many-fdes", out, size, &t);
	}
}

/* Sections larger than an input */
static void tile_seeds(void)
{
	const u8 amd64 = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	struct seed_tail t;
	struct sfb_layout l;
	u32 size;

	/* Tiled: ten elements of eight functions, past the smallest cache */
	size = ALIGN(build(spec_small_functions, NULL, amd64, &l), 8);
	memset(&t, 0, sizeof(t));
	look(&t, 0x4);
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_TILE | FUZZ_F_CACHE | FUZZ_F_COPY;
	memcpy(mode(&t) + FUZZ_M_TILE, &(u32){ 10 }, sizeof(u32));
	emit("tile-80-fdes", buf, size, &t);
	fail_alloc_seeds("fail-alloc-tile", size, 24, t);
	/* Past the largest cache */
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_TILE | FUZZ_F_CACHE;
	memcpy(mode(&t) + FUZZ_M_TILE, &(u32){ 260 }, sizeof(u32));
	emit("tile-2080-fdes", buf, size, &t);
	/* One element too many, one FDE too many */
	size = sframe_many_elements(buf, 1, amd64);
	mode(&t)[FUZZ_M_FLAGS] = FUZZ_F_TILE;
	memcpy(mode(&t) + FUZZ_M_TILE, &(u32){ SFRAME_MAX_ELEMENTS + 1 }, sizeof(u32));
	emit("tile-elements", buf, size, &t);
	sframe_big_index_header(buf, SFRAME_MAX_INDEX_FDES + 1, amd64);
	memcpy(mode(&t) + FUZZ_M_TILE, &(u32){ (SFRAME_MAX_INDEX_FDES + 1) * 16 / 28 + 2 },
	       sizeof(u32));
	emit("tile-fdes", buf, 28, &t);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	seed_dir = argv[1];
	case_seeds("amd64", SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	case_seeds("aarch64", SFRAME_ABI_AARCH64_ENDIAN_LITTLE);
	case_seeds("s390x", SFRAME_ABI_S390X_ENDIAN_BIG);
	call_seeds();
	hole_seeds();
	shape_seeds();
	tile_seeds();
	return bad;
}
