// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs the SFrame reader's case tables (tests/kunit/sframe_cases.h) against
 * the kernel reader built in user space, for every ABI, under ASan and UBSan.
 * The KUnit suite runs the same tables inside the kernel for the native ABI.
 * Then good sections that change while the reader reads them (the race_
 * results), each in a child process so that a sanitizer report is counted.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sframe_internal.h"
#include "../../../tests/kunit/sframe_cases.h"

#define USER_ADDR	0x7f1234560000UL
#define PAGE		4096UL

static unsigned char buf[SFB_BUF_SIZE];
static unsigned int passed, failed;

static void report(bool ok, const char *abi, const char *name, const char *fmt,
		   const char *got, const char *want)
{
	if (ok) {
		passed++;
		printf("ok %s/%s\n", abi, name);
		return;
	}
	failed++;
	printf("not ok %s/%s: ", abi, name);
	printf(fmt, got, want);
	printf("\n");
}

static void map(u32 size, u8 hole_page)
{
	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0].addr = USER_ADDR;
	sframe_umem[0].len = size > SFB_BUF_SIZE ? SFB_BUF_SIZE : size;
	sframe_umem[0].data = buf;
	if (hole_page) {
		sframe_umem[0].hole_start = USER_ADDR + (hole_page - 1) * PAGE;
		sframe_umem[0].hole_end = sframe_umem[0].hole_start + PAGE;
	}
}

static const char *errname(int err)
{
	static char other[16];

	switch (err) {
	case 0: return "0";
	case -ENOENT: return "-ENOENT";
	case -EINVAL: return "-EINVAL";
	case -EFAULT: return "-EFAULT";
	case -EOPNOTSUPP: return "-EOPNOTSUPP";
	case -E2BIG: return "-E2BIG";
	case -EFBIG: return "-EFBIG";
	case -ENOMEM: return "-ENOMEM";
	case -EDQUOT: return "-EDQUOT";
	}
	snprintf(other, sizeof(other), "%d", err);
	return other;
}

static void run_decode(const struct sframe_decode_case *c, u8 abi, const char *abiname)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct sframe_section sec;
	char got[128];
	u32 size;
	int ret;

	size = sframe_decode_case_bytes(c, abi, buf, USER_ADDR, text);
	map(size, 0);
	ret = sframe_section_init(&sec, USER_ADDR, size, text - SFB_TEXT_BEFORE,
				  text + SFB_TEXT_SIZE, SIZE_MAX);
	if (ret) {
		report(false, abiname, c->name, "init failed: %s (%s)", errname(ret),
		       sec.reason);
		return;
	}
	sframe_describe_lookup(&sec, text + c->pc, got, sizeof(got));
	/* With a rule cache: the lookup that fills it, then the one it answers */
	if (!strcmp(got, c->expect) && !sframe_section_cache_alloc(&sec)) {
		sframe_describe_lookup(&sec, text + c->pc, got, sizeof(got));
		if (!strcmp(got, c->expect))
			sframe_describe_lookup(&sec, text + c->pc, got, sizeof(got));
	}
	report(!strcmp(got, c->expect), abiname, c->name, "got \"%s\", want \"%s\"",
	       got, c->expect);
	sframe_section_release(&sec);
}

static void run_bad(const struct sframe_bad_case *c, u8 abi, const char *abiname)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	char got[96];
	u32 size;
	int ret;

	size = sframe_bad_case_bytes(c, abi, buf, USER_ADDR, text);
	map(size, c->hole_page);
	ret = sframe_section_init(&sec, USER_ADDR, size, text - SFB_TEXT_BEFORE,
				  text + SFB_TEXT_SIZE, SIZE_MAX);
	if (!ret && c->at_init) {
		report(false, abiname, c->name, "%sinit succeeded, want %s", "",
		       errname(c->err));
		sframe_section_release(&sec);
		return;
	}
	if (!ret) {
		ret = sframe_find(&sec, text + c->pc, &frame, SFRAME_UNBOUNDED);
		sframe_section_release(&sec);
	} else if (!c->at_init) {
		report(false, abiname, c->name, "init failed: %s (%s)", errname(ret),
		       sec.reason);
		return;
	}
	snprintf(got, sizeof(got), "%s", errname(ret));
	report(ret == c->err && sec.reason, abiname, c->name,
	       "got %s, want %s", got, errname(c->err));
}

/*
 * The index of a file's section is built from a kernel copy and placed
 * for each process with sframe_section_view(): build it from @buf with no
 * user memory at all, then look up through a view of it at another
 * address where the same bytes are mapped.
 */
#define VIEW_SHIFT	(256 * PAGE)

static int init_shared(struct sframe_section *img, struct sframe_section *view,
		       u32 size, unsigned long text)
{
	struct sframe_image image = { .data = buf, .len = size };
	int ret;

	memset(sframe_umem, 0, sizeof(sframe_umem));
	ret = sframe_section_init_image(img, &image, USER_ADDR, text - SFB_TEXT_BEFORE,
					text + SFB_TEXT_SIZE, SIZE_MAX);
	if (ret)
		return ret;
	sframe_umem[0].addr = USER_ADDR + VIEW_SHIFT;
	sframe_umem[0].len = size;
	sframe_umem[0].data = buf;
	sframe_section_view(view, img, USER_ADDR + VIEW_SHIFT,
			    text - SFB_TEXT_BEFORE + VIEW_SHIFT);
	return 0;
}

static void run_decode_shared(const struct sframe_decode_case *c, u8 abi,
			      const char *abiname)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct sframe_section img, view, copy;
	char got[128], name[96];
	u32 size;
	int ret;

	snprintf(name, sizeof(name), "shared_%s", c->name);
	size = sframe_decode_case_bytes(c, abi, buf, USER_ADDR, text);
	ret = init_shared(&img, &view, size, text);
	if (ret) {
		report(false, abiname, name, "init from a copy failed: %s (%s)",
		       errname(ret), img.reason);
		return;
	}
	sframe_describe_lookup(&view, text + VIEW_SHIFT + c->pc, got, sizeof(got));
	/* A forked child's copy of a view borrows the same tables. */
	if (!strcmp(got, c->expect) && !sframe_section_copy(&copy, &view)) {
		if (copy.index != img.index || sframe_section_bytes(&copy))
			snprintf(got, sizeof(got), "a copy that does not borrow");
		else
			sframe_describe_lookup(&copy, text + VIEW_SHIFT + c->pc, got,
					       sizeof(got));
		sframe_section_release(&copy);
	}
	report(!strcmp(got, c->expect), abiname, name, "got \"%s\", want \"%s\"",
	       got, c->expect);
	/* A view frees its own cache and leaves the index to its owner. */
	sframe_section_release(&view);
	sframe_section_release(&img);
}

/* Bad sections are refused from a copy as from user memory, with the same error. */
static void run_bad_shared(const struct sframe_bad_case *c, u8 abi, const char *abiname)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct unwind_user_frame frame;
	struct sframe_section img, view;
	char name[96];
	u32 size;
	int ret;

	/* A page missing from user memory has no counterpart in a copy. */
	if (c->hole_page)
		return;
	snprintf(name, sizeof(name), "shared_%s", c->name);
	size = sframe_bad_case_bytes(c, abi, buf, USER_ADDR, text);
	if (size > SFB_BUF_SIZE)
		return;
	ret = init_shared(&img, &view, size, text);
	if (!ret) {
		if (c->at_init) {
			report(false, abiname, name, "%sinit succeeded, want %s", "",
			       errname(c->err));
			sframe_section_release(&img);
			return;
		}
		ret = sframe_find(&view, text + VIEW_SHIFT + c->pc, &frame,
				  SFRAME_UNBOUNDED);
		sframe_section_release(&view);
		sframe_section_release(&img);
	} else if (!c->at_init) {
		report(false, abiname, name, "init failed: %s (%s)", errname(ret),
		       img.reason);
		return;
	}
	report(ret == c->err, abiname, name, "got %s, want %s", errname(ret),
	       errname(c->err));
}

static int init_at(struct sframe_section *sec, u8 *bytes, u32 size,
		   unsigned long text_start, unsigned long text_end)
{
	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0].addr = USER_ADDR;
	sframe_umem[0].len = size;
	sframe_umem[0].data = bytes;
	return sframe_section_init(sec, USER_ADDR, size, text_start, text_end, SIZE_MAX);
}

static void check(bool ok, const char *name)
{
	report(ok, "api", name, "%s%s", "failed", "");
}

/* The same bounds the KUnit limits test checks, plus -ENOMEM. */
static void run_limits(void)
{
	u8 *big = calloc(1, (SFRAME_MAX_INDEX_FDES + 1) * 16 + 28);
	u8 abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	struct sframe_section sec;
	u32 size;
	int ret;

	if (!big)
		abort();
	check(sframe_section_init(&sec, USER_ADDR, 1UL << 32, 0, 1, SIZE_MAX) == -EINVAL,
	      "section_over_4g");
	check(sframe_section_init(&sec, USER_ADDR, 64, 5, 5, SIZE_MAX) == -EINVAL, "empty_text");
	check(sframe_section_init(&sec, ~0UL - 0x1000, 64, 0, 1, SIZE_MAX) == -EINVAL,
	      "section_above_user_addresses");

	size = sframe_many_elements(big, SFRAME_MAX_ELEMENTS, abi);
	ret = init_at(&sec, big, size, 0, 1);
	check(ret == 0, "max_elements");
	if (!ret)
		sframe_section_release(&sec);
	size = sframe_many_elements(big, SFRAME_MAX_ELEMENTS + 1, abi);
	check(init_at(&sec, big, size, 0, 1) == -EFBIG, "too_many_elements");

	/* The FDE table of zeros: starts 16 bytes apart, sizes 0 */
	memset(big, 0, (SFRAME_MAX_INDEX_FDES + 1) * 16 + 28);
	size = sframe_big_index_header(big, SFRAME_MAX_INDEX_FDES + 1, abi);
	check(init_at(&sec, big, size, 0, 1) == -EFBIG, "index_too_big");
	size = sframe_big_index_header(big, SFRAME_MAX_INDEX_FDES, abi);
	ret = init_at(&sec, big, size, USER_ADDR, USER_ADDR + size);
	check(ret == 0 && sec.num_fdes == SFRAME_MAX_INDEX_FDES &&
	      sframe_section_bytes(&sec) == SFRAME_MAX_INDEX_FDES * 12UL +
	      ((size >> sec.fast_shift) + 2) * 4UL, "index_at_limit");
	if (!ret)
		sframe_section_release(&sec);
	/* Functions that start outside the text are not indexed. */
	ret = init_at(&sec, big, size, USER_ADDR, USER_ADDR + 28 + 16 * 10);
	check(ret == 0 && sec.num_fdes == 10, "index_text_only");
	if (!ret)
		sframe_section_release(&sec);

	sframe_fail_alloc = true;
	check(init_at(&sec, big, size, USER_ADDR, USER_ADDR + size) == -ENOMEM && sec.reason,
	      "index_no_memory");
	sframe_fail_alloc = false;
	free(big);
}

/* A text of 4 GiB and more: the fast lookup table's blocks stay addressable */
static void run_big_text(void)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec spec;
	u32 size;

	sfb_base(&spec, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	spec.nfdes = 1;
	size = sfb_build(&spec, buf, USER_ADDR, text, &l);
	if (init_at(&sec, buf, size, text, text + (1UL << 33))) {
		check(false, "text_of_8g");
		return;
	}
	check(sec.num_fdes == 1 && sec.fast_shift < 32 && !sframe_find(&sec, text + 4, &frame, SFRAME_UNBOUNDED) &&
	      sframe_find(&sec, text + (1UL << 32) + 4, &frame, SFRAME_UNBOUNDED) == -ENOENT &&
	      sframe_find(&sec, text + 0x1000, &frame, SFRAME_UNBOUNDED) == -ENOENT, "text_of_8g");
	sframe_section_release(&sec);
}

/* Only user space can place text at the top of the address space. */
static void run_wrap(void)
{
	unsigned long text = ~0UL - 0x120;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec spec;
	u32 size;

	sfb_base(&spec, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	size = sfb_build(&spec, buf, USER_ADDR, text, &l);
	check(init_at(&sec, buf, size, text, ~0UL) == -EINVAL && sec.reason &&
	      !strcmp(sec.reason, "function wraps around"), "function_wraps_around");
}

/* The FDE and FRE walk that sframe-dump and validation use. */
static void run_walk(void)
{
	static const char * const want[] = {
		SP8, SP16FP, SP8, SP16FP, "cfa=fp+16 ra=*(cfa-8) fp=*(cfa-16)", SP8,
	};
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec spec;
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned int i, j, n = 0;
	unsigned long addr;
	bool ok = true;
	char got[128];
	u32 size;

	spec_unsorted(&spec, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	size = sfb_build(&spec, buf, USER_ADDR, text, &l);
	if (init_at(&sec, buf, size, text, text + 0x1000)) {
		check(false, "walk_fdes_and_fres");
		return;
	}
	for (i = 0; i < sec.num_fdes; i++) {
		ok &= !sframe_read_fde(&sec, i, &fde);
		ok &= fde.func_start == text + (i == 2 ? 0x100 : i * 0x40);
		for (j = 0, addr = fde.fres; ok && j < fde.num_fres; j++, addr = fre.next) {
			ok &= !sframe_read_fre(&sec, &fde, addr, &fre) && n < ARRAY_SIZE(want);
			if (!ok)
				break;
			sframe_format_frame(got, sizeof(got), &fre.frame);
			ok &= !strcmp(got, want[n++]);
		}
	}
	check(ok && n == ARRAY_SIZE(want), "walk_fdes_and_fres");
	check(sframe_read_fde(&sec, sec.num_fdes, &fde) == -ENOENT, "read_fde_past_end");
	sframe_read_fde(&sec, 0, &fde);
	check(sframe_read_fre(&sec, &fde, fde.fres_end, &fre) == -EINVAL,
	      "read_fre_outside_fde");
	sframe_section_release(&sec);
}

/*
 * The rule cache: a second lookup of an address gives what the first gave,
 * from the cache; an entry a writer holds (odd count) or whose count moved
 * is not used, whatever it holds.
 */
static void run_cache(void)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	static char first[0x200][128];
	struct sframe_section sec, copy;
	size_t bytes;
	struct sfb_layout l;
	struct sfb_spec spec;
	unsigned long reads;
	unsigned int rules = 0;
	bool same = true;
	char got[128];
	u32 size;
	int pc;

	sfb_base(&spec, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	size = sfb_build(&spec, buf, USER_ADDR, text, &l);
	if (init_at(&sec, buf, size, text - SFB_TEXT_BEFORE, text + SFB_TEXT_SIZE)) {
		check(false, "cache_hit");
		return;
	}
	/* None until asked for; asked for, it is counted */
	bytes = sframe_section_bytes(&sec);
	sframe_fail_alloc = true;
	check(!sec.cache && sframe_section_cache_alloc(&sec) == -ENOMEM && !sec.cache &&
	      sframe_section_bytes(&sec) == bytes, "cache_no_memory");
	sframe_fail_alloc = false;
	check(!sframe_section_cache_alloc(&sec) && sec.cache &&
	      sframe_section_cache_bytes(&sec) == 16 * 36 &&
	      sframe_section_bytes(&sec) == bytes + 16 * 36, "cache_counted");
	/* A forked child's copy starts without one */
	if (!sframe_section_copy(&copy, &sec)) {
		check(!copy.cache && sframe_section_bytes(&copy) == bytes, "cache_not_copied");
		sframe_section_release(&copy);
	} else {
		check(false, "cache_not_copied");
	}

	/* An address looked up again is answered from the cache: no user reads */
	for (pc = 0; pc < 0x200; pc++) {
		sframe_describe_lookup(&sec, text + pc, first[pc], sizeof(first[0]));
		reads = sframe_umem_reads;
		sframe_describe_lookup(&sec, text + pc, got, sizeof(got));
		same &= !strcmp(got, first[pc]);
		if (!strncmp(got, "cfa=", 4)) {
			rules++;
			same &= sframe_umem_reads == reads;
		}
	}
	check(same && rules > 0x40, "cache_hit");

	sframe_shim_cache_tear(&sec);
	for (pc = 0, same = true; pc < 0x200; pc++) {
		sframe_describe_lookup(&sec, text + pc, got, sizeof(got));
		same &= !strcmp(got, first[pc]);
	}
	check(same, "cache_entry_being_written");
	sframe_section_release(&sec);
}

/* The shim's second writer itself: each trigger stores when it should. */
/*
 * A walk's row budget bounds its work, whatever the rows hold: one function
 * of BUDGET_ROWS rows whose last start does not rise, and a walk's worth of
 * lookups (BUDGET_LOOKUPS frames returning into it) sharing one budget, as
 * a walk in NMI does.  Every row the failing lookup read is spent, so the
 * first one takes the whole budget and the rest read no row at all; when a
 * failure cost nothing, each lookup read all of them again.
 */
#define BUDGET_ROWS	4096	/* UNWIND_USER_NOFAULT_FRES */
#define BUDGET_LOOKUPS	127
#define BUDGET_TEXT	(USER_ADDR + 0x100000)

static void run_budget(void)
{
	static u8 big[28 + 16 + 5 + BUDGET_ROWS * 4];
	unsigned long first_reads = 0, reads;
	struct unwind_user_ctx ctx = { .budget = BUDGET_ROWS };
	unsigned int i, j, e2big = 0;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec s;
	u32 size, pos;
	int ret;

	sfb_base(&s, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	s.nfdes = 1;
	s.fde[0] = (struct sfb_fde){ .func = 0, .size = BUDGET_ROWS * 4,
		.info = SFB_FDE_INFO(SFRAME_FRE_TYPE_ADDR2, 0, 0, 0), .nfres = 1,
		.fre = { { 0, SFB_FRE_INFO(1, 1, 0, 0), { 16 } } } };
	sfb_build(&s, big, USER_ADDR, BUDGET_TEXT, &l);
	/* Rows of 4 bytes: a 2-byte start, the info byte, one 1-byte word */
	for (j = 0, pos = l.fre[0][0]; j < BUDGET_ROWS; j++, pos += 4) {
		sfb_put(big + pos, j < BUDGET_ROWS - 1 ? 4 * j : 4 * (j - 1), 2, false);
		big[pos + 2] = SFB_FRE_INFO(1, 1, 0, 0);
		big[pos + 3] = 16;
	}
	size = pos;
	sfb_put(big + l.attr[0], BUDGET_ROWS, 2, false);
	sfb_put(big + 12, BUDGET_ROWS, 4, false);
	sfb_put(big + 16, size - l.fres, 4, false);
	ret = init_at(&sec, big, size, BUDGET_TEXT, BUDGET_TEXT + BUDGET_ROWS * 4);
	check(!ret, "budget_section");
	if (ret)
		return;

	for (i = 0; i < BUDGET_LOOKUPS; i++) {
		reads = sframe_umem_reads;
		ret = sframe_find(&sec, BUDGET_TEXT + 4 * BUDGET_ROWS - 1, &frame, &ctx);
		reads = sframe_umem_reads - reads;
		if (!i) {
			first_reads = reads;
			check(ret == -EINVAL && !ctx.budget, "budget_failing_lookup_spends_its_rows");
		} else {
			e2big += ret == -E2BIG && reads <= 2;
		}
	}
	/* The first read the whole function; each other its FDE and attributes. */
	check(first_reads >= BUDGET_ROWS * 4 / 128 && e2big == BUDGET_LOOKUPS - 1,
	      "budget_bounds_a_walk");
	printf("# budget: %u lookups, the first %lu user copies, %u out of budget\n",
	       BUDGET_LOOKUPS, first_reads, e2big);
	sframe_section_release(&sec);
}

static void run_second_writer(void)
{
	static u8 mem[16];
	u32 v[3];
	int i;

	memset(sframe_umem, 0, sizeof(sframe_umem));
	memset(mem, 0, sizeof(mem));
	sframe_umem[0].addr = USER_ADDR;
	sframe_umem[0].len = sizeof(mem);
	sframe_umem[0].data = mem;
	sframe_umem_disarm();
	sframe_umem_writes[0] = (struct sframe_umem_write){
		.addr = USER_ADDR + 4, .len = 4, .bytes = { 1, 1, 1, 1 }, .after_read = 2,
	};
	sframe_umem_arm();
	for (i = 0; i < 3; i++)
		sframe_umem_copy(&v[i], USER_ADDR + 4, 4);
	check(!v[0] && !v[1] && v[2] == 0x01010101, "second_writer_after_read");

	memset(mem, 0, sizeof(mem));
	sframe_umem_writes[0].after_read = 0;
	sframe_umem_arm();
	sframe_umem_copy(&v[0], USER_ADDR, 4);
	sframe_umem_copy(&v[1], USER_ADDR + 2, 4);
	sframe_umem_copy(&v[2], USER_ADDR + 4, 4);
	check(!v[0] && !v[1] && v[2] == 0x01010101, "second_writer_first_overlap");
	sframe_umem_disarm();
}

/*
 * A second writer: the process changes its section while the reader reads
 * it.  Each scenario stores one 4-byte word right after the reader's first
 * read of it; a reader that fetches the word again and trusts both reads
 * to agree shows it here, under ASan, as a heap overflow or as garbage in
 * its index.
 */

/* Room between an element's FDEs and FREs, so a raised count still fits */
#define RACE_ROOM		1024
/* Addresses looked up after init, from the text base: all the functions */
#define RACE_PC_FIRST		(-0x10)
#define RACE_PC_END		0x300
#define RACE_VERDICT_SIZE	4096
#define RACE_NUM_FDES		offsetof(struct sframe_header, num_fdes)

static void spec_roomy(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fre_gap = RACE_ROOM;
}

static void spec_roomy_second(struct sfb_spec *s, u8 abi)
{
	spec_second_element(s, abi);
	s->fre_gap = RACE_ROOM;
}

/**
 * struct race - one section and one store into it
 * @spec: builds the first element.
 * @second: builds a concatenated second element, or NULL.
 * @abi: the SFrame ABI.
 * @at: section offset of the word stored.
 * @value: the word, stored in the section's byte order.
 * @exact: every lookup must give what it gives on the unchanged section,
 *	and the word must have been read; else any rule or documented error.
 */
struct race {
	void	(*spec)(struct sfb_spec *s, u8 abi);
	void	(*second)(struct sfb_spec *s, u8 abi);
	u8	abi;
	u32	at;
	u32	value;
	bool	exact;
};

/* Filled by the child running a scenario: why it failed */
static char *race_verdict;
static char race_want[RACE_PC_END - RACE_PC_FIRST][128];

/* The errors sframe_section_init() and sframe_find() document */
static bool documented(int err)
{
	return !err || err == -ENOENT || err == -EINVAL || err == -EFAULT ||
	       err == -EOPNOTSUPP || err == -E2BIG || err == -EFBIG || err == -ENOMEM ||
	       err == -EDQUOT;
}

static bool frame_sane(const struct unwind_user_frame *f)
{
	if (f->outermost)
		return true;
	return f->cfa.base >= UNWIND_USER_BASE_SP && f->cfa.base <= UNWIND_USER_BASE_REG &&
	       f->ra.base <= UNWIND_USER_BASE_REG && f->fp.base <= UNWIND_USER_BASE_REG;
}

static int race_init(struct sframe_section *sec, u32 size)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;

	return sframe_section_init(sec, USER_ADDR, size, text - SFB_TEXT_BEFORE,
				   text + SFB_TEXT_SIZE, SIZE_MAX);
}

/* Lookups in a section that may have changed since init */
static bool race_lookups(const struct race *r, struct sframe_section *sec,
			 char *why, size_t len)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct unwind_user_frame frame;
	char got[128];
	int pc, ret;

	for (pc = RACE_PC_FIRST; pc < RACE_PC_END; pc++) {
		if (r->exact) {
			sframe_describe_lookup(sec, text + pc, got, sizeof(got));
			if (strcmp(got, race_want[pc - RACE_PC_FIRST])) {
				snprintf(why, len, "pc %#x: got \"%s\", want \"%s\"", pc, got,
					 race_want[pc - RACE_PC_FIRST]);
				return false;
			}
			continue;
		}
		ret = sframe_find(sec, text + pc, &frame, SFRAME_UNBOUNDED);
		if (!documented(ret) || (!ret && !frame_sane(&frame))) {
			snprintf(why, len, "pc %#x: %s, or an impossible rule", pc, errname(ret));
			return false;
		}
	}
	return true;
}

static bool race_run(const struct race *r, char *why, size_t len)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	long live = sframe_kmem_live;
	struct sframe_section sec;
	struct sfb_layout l;
	bool ok;
	u32 size;
	int ret, pc;

	size = sframe_case_build(r->spec, r->second, r->abi, buf, USER_ADDR, text, &l);
	map(size, 0);
	sframe_umem_disarm();
	if (r->exact) {
		ret = race_init(&sec, size);
		if (ret) {
			snprintf(why, len, "unchanged section: init %s", errname(ret));
			return false;
		}
		for (pc = RACE_PC_FIRST; pc < RACE_PC_END; pc++)
			sframe_describe_lookup(&sec, text + pc, race_want[pc - RACE_PC_FIRST],
					       sizeof(race_want[0]));
		sframe_section_release(&sec);
	}

	sframe_umem_writes[0].addr = USER_ADDR + r->at;
	sframe_umem_writes[0].len = 4;
	sfb_put(sframe_umem_writes[0].bytes, r->value, 4, l.big_endian);
	sframe_umem_arm();
	ret = race_init(&sec, size);
	if (ret) {
		ok = documented(ret) && sec.reason && sframe_kmem_live == live;
		snprintf(why, len, "init: %s (%s), %ld blocks leaked", errname(ret),
			 sec.reason, sframe_kmem_live - live);
		return ok;
	}
	if (r->exact && !sframe_umem_writes[0].fired) {
		snprintf(why, len, "the word was never read");
		ok = false;
	} else if (!sframe_shim_index_sane(&sec)) {
		snprintf(why, len, "index of %u FDEs not sane after init", sec.num_fdes);
		ok = false;
	} else {
		ok = race_lookups(r, &sec, why, len);
	}
	sframe_section_release(&sec);
	if (ok && sframe_kmem_live != live) {
		snprintf(why, len, "%ld blocks leaked", sframe_kmem_live - live);
		ok = false;
	}
	return ok;
}

/*
 * Runs @r in a child process: a sanitizer report ends the process it
 * happens in, and every scenario must still be counted.  Returns whether
 * it passed; @why says how it failed.
 */
static bool race_child(const struct race *r, char *why, size_t len)
{
	int status;
	pid_t pid;

	race_verdict[0] = '\0';
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	/* Not exit(): a leak check at each exit would take most of the time */
	if (!pid)
		_exit(race_run(r, race_verdict, RACE_VERDICT_SIZE) ? 0 : 3);
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		exit(2);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		snprintf(why, len, "%s", race_verdict);
	else if (WIFEXITED(status))
		snprintf(why, len, "sanitizer report or crash (exit status %d), see stderr",
			 WEXITSTATUS(status));
	else
		snprintf(why, len, "sanitizer report or crash (signal %d), see stderr",
			 WTERMSIG(status));
	return false;
}

static void race_report(const char *abi, const char *name, const struct race *r)
{
	char why[RACE_VERDICT_SIZE + 64];
	bool ok = race_child(r, why, sizeof(why));

	report(ok, abi, name, "%s%s", ok ? "" : why, "");
}

/*
 * The double fetch the review found: an element's FDE count changes after
 * the reader first read it, raised (a reader that sized its index from the
 * first read and fills it from a second overflows it) or lowered (it leaves
 * entries unwritten).  Both elements, as the first header is read by
 * different code than the others.
 */
static void run_races(u8 abi, const char *abiname)
{
	struct race r = { spec_roomy, spec_roomy_second, abi, RACE_NUM_FDES, 0, true };
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct sfb_spec first, second;
	struct sfb_layout l;
	u32 second_at;

	spec_roomy(&first, abi);
	spec_roomy_second(&second, abi);
	sframe_case_build(spec_roomy, spec_roomy_second, abi, buf, USER_ADDR, text, &l);
	second_at = ALIGN(l.size, 8U);

	r.value = first.nfdes + RACE_ROOM / sizeof(struct sframe_fde_v3);
	race_report(abiname, "race_first_num_fdes_raised", &r);
	r.value = first.nfdes - 2;
	race_report(abiname, "race_first_num_fdes_lowered", &r);
	r.at = second_at + RACE_NUM_FDES;
	r.value = second.nfdes + RACE_ROOM / sizeof(struct sframe_fde_v3);
	race_report(abiname, "race_second_num_fdes_raised", &r);
	r.value = second.nfdes - 1;
	race_report(abiname, "race_second_num_fdes_lowered", &r);
}

/* Bytes of an element's header and FDE table, from the element's start */
static u32 race_fdes_end(const struct sfb_spec *s)
{
	u32 fde_size = s->version == SFRAME_VERSION_2 ? sizeof(struct sframe_fde_v2) :
							sizeof(struct sframe_fde_v3);

	return sizeof(struct sframe_header) + s->auxhdr_len + s->fde_gap + s->nfdes * fde_size;
}

static u32 race_word(const u8 *p, bool big)
{
	return big ? (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] :
		     (u32)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

/*
 * Every word of every header and FDE table of good sections the reader
 * indexes, changed after its first read into hostile values: whatever the
 * reader read twice, it must end in a documented error or a sane index.
 */
static void run_race_sweep(u8 abi, const char *abiname)
{
	static const struct {
		const char *name;
		void (*spec)(struct sfb_spec *s, u8 abi);
		void (*second)(struct sfb_spec *s, u8 abi);
	} sections[] = {
		{ "concatenated", spec_base, spec_second_element },
		{ "concatenated_v2", spec_v2_pcrel, spec_second_element_v2 },
		{ "concatenated_roomy", spec_roomy, spec_roomy_second },
		{ "unsorted", spec_unsorted, NULL },
	};
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	u32 start[2], end[2], at, old, values[4];
	unsigned int i, e, v, writes, bad;
	char why[RACE_VERDICT_SIZE + 64];
	struct sfb_layout l;
	struct sfb_spec spec;
	char name[96];

	for (i = 0; i < ARRAY_SIZE(sections); i++) {
		struct race r = {
			.spec = sections[i].spec, .second = sections[i].second, .abi = abi,
		};

		sframe_case_build(r.spec, r.second, abi, buf, USER_ADDR, text, &l);
		r.spec(&spec, abi);
		start[0] = 0;
		end[0] = race_fdes_end(&spec);
		start[1] = end[1] = ALIGN(l.size, 8U);
		if (r.second) {
			r.second(&spec, abi);
			end[1] += race_fdes_end(&spec);
		}
		writes = bad = 0;
		for (e = 0; e < 2; e++) {
			for (at = start[e]; at + 4 <= end[e]; at += 4) {
				old = race_word(buf + at, l.big_endian);
				values[0] = 0;
				values[1] = U32_MAX;
				values[2] = old + 1;
				values[3] = S32_MAX;
				for (v = 0; v < ARRAY_SIZE(values); v++) {
					r.at = at;
					r.value = values[v];
					writes++;
					if (race_child(&r, why, sizeof(why)))
						continue;
					printf("# %s/race_sweep_%s+%#x=%#x: %s\n", abiname,
					       sections[i].name, at, values[v], why);
					bad++;
				}
			}
		}
		/* One test: the sweep of one section, its size in its name */
		snprintf(name, sizeof(name), "race_sweep_%s (%u writes)",
			 sections[i].name, writes);
		snprintf(why, sizeof(why), "%u of %u writes", bad, writes);
		report(!bad && writes, abiname, name, "%s failed%s", why, "");
	}
}

int main(void)
{
	static const struct { u8 abi; const char *name; } abis[] = {
		{ SFRAME_ABI_AMD64_ENDIAN_LITTLE, "amd64" },
		{ SFRAME_ABI_AARCH64_ENDIAN_LITTLE, "aarch64" },
		{ SFRAME_ABI_S390X_ENDIAN_BIG, "s390x" },
	};
	unsigned int a, i;

	for (a = 0; a < ARRAY_SIZE(abis); a++) {
		for (i = 0; i < ARRAY_SIZE(sframe_decode_cases); i++) {
			const struct sframe_decode_case *c = &sframe_decode_cases[i];

			if (!c->abi || c->abi == abis[a].abi) {
				run_decode(c, abis[a].abi, abis[a].name);
				run_decode_shared(c, abis[a].abi, abis[a].name);
			}
		}
		for (i = 0; i < ARRAY_SIZE(sframe_bad_cases); i++) {
			const struct sframe_bad_case *c = &sframe_bad_cases[i];

			if (!c->abi || c->abi == abis[a].abi) {
				run_bad(c, abis[a].abi, abis[a].name);
				run_bad_shared(c, abis[a].abi, abis[a].name);
			}
		}
	}
	run_limits();
	run_wrap();
	run_big_text();
	run_walk();
	run_cache();
	run_budget();
	run_second_writer();

	race_verdict = mmap(NULL, RACE_VERDICT_SIZE, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (race_verdict == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (a = 0; a < ARRAY_SIZE(abis); a++) {
		run_races(abis[a].abi, abis[a].name);
		run_race_sweep(abis[a].abi, abis[a].name);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
