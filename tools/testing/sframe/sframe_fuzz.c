// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the SFrame reader: the input is a section, placed at
 * a fixed user address.  Its tail also steers the run (sframe_fuzz.h):
 *
 *   [size - 40, size - 24)	the mode: cache, copy, validation, failed
 *				allocations, FRE budget, text range,
 *				unreadable bytes, init arguments, tiling
 *   [size - 24, size - 8)	a script for the second writer (below)
 *   [size - 8, size)		picks the addresses looked up
 *
 * All three stay part of the section, as junk after the data or as data.
 * Everything the reader offers is exercised: init, the rule cache, copies,
 * validation, lookups bounded or not, and a walk of every FDE and FRE that
 * also looks up where each FRE starts.  Crashes, sanitizer reports, errors
 * outside the reader's documented set, impossible rules, an index that is
 * not sane after init or takes more than its allowance, leaked index
 * memory, a copy or cache that is not counted right, and, when nothing
 * changes the section, answers that disagree are findings: a cached rule
 * or a copy's that differs from the first lookup's, an FRE decoded one way
 * by the walk and another by a lookup, a lookup that fails on a section
 * validation accepted.
 *
 * The script stores into the section while the reader runs, as another
 * thread of the process could: bytes [0, 2) are the triggers of two
 * 4-byte stores (0: none; bit 7 set: right after the first read that
 * overlaps the stored bytes; else right after that read number), [2, 4)
 * the index allowance in units of 16 bytes (0: none), [4, 8) their section
 * offsets (two little-endian u16, modulo the size) and [8, 16) their
 * values.
 */
#include "sframe_internal.h"
#include "sframe_fuzz.h"

#define FUZZ_LOOKUPS	16
#define FUZZ_MAX_FDES	64
#define FUZZ_MAX_FRES	256
/* FREs of an FDE whose starts the walk also looks up */
#define FUZZ_FRE_LOOKUPS 8

/* How this run calls the reader, from the input's tail */
struct fuzz_run {
	u8		flags;
	bool		quiet;		/* no store scripted: answers must agree */
	bool		hole;
	bool		hole_late;
	unsigned long	hole_start;
	unsigned long	hole_end;
	bool		valid;		/* quiet, no hole, and validation passed */
	unsigned int	budget;
	unsigned long	sframe_start;
	unsigned long	sframe_size;
	unsigned long	text_start;
	unsigned long	text_end;
	size_t		max_bytes;
	unsigned long	seed;
};

static void check_err(int err)
{
	if (err && err != -ENOENT && err != -EINVAL && err != -EFAULT &&
	    err != -EOPNOTSUPP && err != -E2BIG && err != -EFBIG && err != -ENOMEM &&
	    err != -EDQUOT)
		__builtin_trap();
}

static void check_rule(const struct unwind_user_rule *r)
{
	if (r->base > UNWIND_USER_BASE_REG)
		__builtin_trap();
}

static void check_frame(const struct unwind_user_frame *f)
{
	if (f->outermost)
		return;
	if (f->cfa.base == UNWIND_USER_BASE_SAME || f->cfa.base == UNWIND_USER_BASE_CFA)
		__builtin_trap();
	check_rule(&f->ra);
	check_rule(&f->fp);
}

static bool same_rule(const struct unwind_user_rule *a, const struct unwind_user_rule *b)
{
	return a->base == b->base && a->regnum == b->regnum && a->deref == b->deref &&
	       a->offset == b->offset;
}

static bool same_frame(const struct unwind_user_frame *a, const struct unwind_user_frame *b)
{
	return same_rule(&a->cfa, &b->cfa) && same_rule(&a->ra, &b->ra) &&
	       same_rule(&a->fp, &b->fp) && a->outermost == b->outermost &&
	       a->signal == b->signal && a->ra_signed == b->ra_signed &&
	       a->pauth_key == b->pauth_key;
}

/* Arms the script in @s for a section of @size bytes; returns the allowance. */
static size_t arm_script(const u8 *s, size_t size, bool *quiet)
{
	struct sframe_umem_write *w;
	unsigned int i;
	u16 off, units;

	sframe_umem_disarm();
	*quiet = true;
	for (i = 0; i < SFRAME_UMEM_MAX_WRITES && size >= 4; i++) {
		if (!s[FUZZ_S_TRIGGER + i])
			continue;
		w = &sframe_umem_writes[i];
		memcpy(&off, s + FUZZ_S_OFFSET + 2 * i, sizeof(off));
		w->addr = FUZZ_ADDR + off % (size - 3);
		w->len = 4;
		memcpy(w->bytes, s + FUZZ_S_VALUE + 4 * i, 4);
		w->after_read = s[FUZZ_S_TRIGGER + i] & 0x80 ? 0 : s[FUZZ_S_TRIGGER + i];
		*quiet = false;
	}
	sframe_umem_arm();
	memcpy(&units, s + FUZZ_S_ALLOWANCE, sizeof(units));
	return units ? units * 16UL : SIZE_MAX;
}

/* sframe_section_init()'s arguments and the rest of the run, from @mode */
static void read_mode(struct fuzz_run *r, const u8 *mode, size_t size)
{
	u16 budget, text_mb, hole;
	unsigned long text_len;

	r->flags = mode[FUZZ_M_FLAGS];
	sframe_fail_alloc_in = mode[FUZZ_M_FAIL_ALLOC];
	memcpy(&budget, mode + FUZZ_M_BUDGET, sizeof(budget));
	r->budget = budget ? budget : UINT_MAX;
	memcpy(&text_mb, mode + FUZZ_M_TEXT_MB, sizeof(text_mb));
	text_len = text_mb ? (unsigned long)text_mb << 20 : FUZZ_TEXT_LEN;
	if (r->flags & FUZZ_F_TEXT_TOP) {
		/* A function starting there may end past the last address */
		r->text_end = ULONG_MAX;
		r->text_start = ULONG_MAX - text_len;
	} else {
		r->text_start = FUZZ_TEXT_START;
		r->text_end = FUZZ_TEXT_START + text_len;
	}
	r->sframe_start = FUZZ_ADDR;
	r->sframe_size = size;
	switch (mode[FUZZ_M_ARGS]) {
	case FUZZ_ARGS_EMPTY_TEXT:
		r->text_end = r->text_start;
		break;
	case FUZZ_ARGS_HUGE:
		r->sframe_size = (1UL << 32) + size;
		break;
	case FUZZ_ARGS_HIGH:
		r->sframe_start = (1UL << 63) + FUZZ_ADDR;
		break;
	case FUZZ_ARGS_WRAP:
		r->sframe_start = ULONG_MAX - 15;
		break;
	}
	memcpy(&hole, mode + FUZZ_M_HOLE, sizeof(hole));
	r->hole = mode[FUZZ_M_HOLE_LEN] && size;
	if (r->hole) {
		r->hole_start = FUZZ_ADDR + hole % size;
		r->hole_end = r->hole_start + mode[FUZZ_M_HOLE_LEN];
		r->hole_late = r->flags & FUZZ_F_HOLE_LATE;
	}
	if (r->hole && !r->hole_late) {
		sframe_umem[0].hole_start = r->hole_start;
		sframe_umem[0].hole_end = r->hole_end;
	}
}

/*
 * The 16 lookups the seed picks, sharing the budget on the first pass:
 * @got and @frames take their answers, which later passes must repeat.
 */
static void lookups(struct sframe_section *sec, const struct fuzz_run *r, bool first,
		    int *got, struct unwind_user_frame *frames)
{
	struct unwind_user_ctx ctx = { .budget = r->budget };
	struct unwind_user_frame frame;
	unsigned int i;
	unsigned long addr;
	int ret;

	for (i = 0; i < FUZZ_LOOKUPS; i++) {
		/* near the section, where PC-relative starts usually land */
		addr = FUZZ_ADDR + (long)(s32)(r->seed >> (i % 4 * 16)) + i * 7;
		if (first)
			ret = sframe_find(sec, addr, &frame, &ctx);
		else
			ret = sframe_find(sec, addr, &frame, SFRAME_UNBOUNDED);
		check_err(ret);
		if (!ret)
			check_frame(&frame);
		else if (r->valid && ret != -ENOENT && ret != -E2BIG)
			__builtin_trap();
		if (first) {
			got[i] = ret;
			frames[i] = frame;
		} else if (r->quiet && got[i] != -E2BIG &&
			   (ret != got[i] || (!ret && !same_frame(&frame, &frames[i])))) {
			/* Not bounded now: only a lookup out of budget may differ */
			__builtin_trap();
		}
	}
}

/*
 * A lookup where the walk found an FRE of @fde to start: on a quiet
 * section it must give the row the walk decoded, as long as the starts
 * rose so far.
 */
static void lookup_fre(struct sframe_section *sec, const struct fuzz_run *r,
		       const struct sframe_fde *fde, const struct sframe_fre *fre,
		       bool rising)
{
	struct unwind_user_frame frame;
	int ret;

	if (fre->start >= fde->func_size)
		return;
	ret = sframe_find(sec, fde->func_start + fre->start, &frame, SFRAME_UNBOUNDED);
	check_err(ret);
	if (ret) {
		if (r->valid && ret != -ENOENT)
			__builtin_trap();
		return;
	}
	check_frame(&frame);
	if (r->quiet && rising && !SFRAME_FDE_INFO_PCTYPE(fde->info) &&
	    !same_frame(&frame, &fre->frame))
		__builtin_trap();
}

/*
 * Every FDE and its FREs, read one by one as tools do.  If the section
 * passed sframe_section_validate() and nothing changed it since, nothing
 * read may fail.
 */
static void walk(struct sframe_section *sec, const struct fuzz_run *r)
{
	bool valid = r->valid;
	struct unwind_user_frame frame;
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned long addr;
	unsigned int i, j;
	bool rising;
	s64 prev;
	int ret;

	if (sframe_read_fde(sec, sec->num_fdes, &fde) != -ENOENT)
		__builtin_trap();
	for (i = 0; i < sec->num_fdes && i < FUZZ_MAX_FDES; i++) {
		ret = sframe_read_fde(sec, i, &fde);
		check_err(ret);
		if (ret) {
			if (valid)
				__builtin_trap();
			continue;
		}
		ret = sframe_find(sec, fde.func_start, &frame, SFRAME_UNBOUNDED);
		check_err(ret);
		if (valid && ret && ret != -ENOENT)
			__builtin_trap();
		if (fde.func_size) {
			ret = sframe_find(sec, fde.func_start + fde.func_size - 1, &frame, SFRAME_UNBOUNDED);
			check_err(ret);
			if (valid && ret && ret != -ENOENT)
				__builtin_trap();
		}
		addr = fde.fres;
		rising = true;
		prev = -1;
		for (j = 0; j < fde.num_fres && j < FUZZ_MAX_FRES; j++) {
			ret = sframe_read_fre(sec, &fde, addr, &fre);
			check_err(ret);
			if (ret) {
				if (valid)
					__builtin_trap();
				break;
			}
			check_frame(&fre.frame);
			if (fre.next <= addr)
				__builtin_trap();
			rising = rising && fre.start > prev;
			prev = fre.start;
			if (j < FUZZ_FRE_LOOKUPS || j + 1 == fde.num_fres)
				lookup_fre(sec, r, &fde, &fre, rising);
			addr = fre.next;
		}
		/* Tools may ask for an FRE anywhere: not outside the sub-section */
		if (sframe_read_fre(sec, &fde, fde.fres - 1, &fre) != -EINVAL ||
		    sframe_read_fre(sec, &fde, fde.fres_end, &fre) != -EINVAL)
			__builtin_trap();
	}
}

/* A copy answers as the section it was made from, and holds no cache. */
static void check_copy(struct sframe_section *sec, const struct fuzz_run *r,
		       int *got, struct unwind_user_frame *frames)
{
	struct sframe_section copy;
	int ret;

	ret = sframe_section_copy(&copy, sec);
	if (ret) {
		if (ret != -ENOMEM || copy.index || copy.elems || copy.fast || copy.cache)
			__builtin_trap();
		return;
	}
	if (copy.cache || sframe_section_bytes(&copy) !=
	    sframe_section_bytes(sec) - (sec->cache ? sframe_section_cache_bytes(sec) : 0))
		__builtin_trap();
	lookups(&copy, r, false, got, frames);
	sframe_section_release(&copy);
}

/*
 * The section indexed from a copy of its bytes, as a file's shared index
 * is, and looked up through a view of that index: where nothing changes
 * the bytes or makes them fault, the same outcome as the index read from
 * user memory (@user_ret) and the same answers (@got, @frames; NULL when
 * that failed).  Injected allocation failures may fall on either.
 */
/*
 * An index built from the kernel's copy: its error as the one from user
 * memory where nothing changed the bytes (allocation failures aside), and
 * a failure leaves a reason and nothing allocated.  True if it was built.
 */
static bool image_built(const struct sframe_section *sec, int ret, int user_ret,
			bool same, long live)
{
	check_err(ret);
	if (same && ret != user_ret && ret != -ENOMEM && user_ret != -ENOMEM)
		__builtin_trap();
	if (ret && (!sec->reason || sec->image || sframe_kmem_live != live))
		__builtin_trap();
	return !ret;
}

static void check_image(const struct fuzz_run *r, int user_ret, int *got,
			struct unwind_user_frame *frames)
{
	struct sframe_image image = {
		.data = sframe_umem[0].data, .len = sframe_umem[0].len,
	};
	bool same = r->quiet && !r->hole;
	struct sframe_section img, view, held;
	long live = sframe_kmem_live;
	int ret;

	/* The init arguments no section gives have no bytes to copy. */
	if (r->sframe_start != FUZZ_ADDR || r->sframe_size != image.len)
		return;
	ret = sframe_section_init_image(&img, &image, r->sframe_start, r->text_start,
					r->text_end, r->max_bytes);
	if (!image_built(&img, ret, user_ret, same, live))
		return;
	if (img.image || !sframe_shim_index_sane(&img))
		__builtin_trap();
	sframe_section_view(&view, &img, r->sframe_start, r->text_start);
	if (!view.borrowed || view.index != img.index || sframe_section_bytes(&view))
		__builtin_trap();
	if (same && got)
		lookups(&view, r, false, got, frames);
	sframe_section_release(&view);
	sframe_section_release(&img);
	if (sframe_kmem_live != live)
		__builtin_trap();

	/*
	 * The kernel's own copy (an attachment, sframe_attach.c): indexed the
	 * same, and looked up in the copy itself, never in user memory.
	 */
	ret = sframe_section_init_held(&held, &image, r->sframe_start, r->text_start,
				       r->text_end, r->max_bytes);
	if (!image_built(&held, ret, user_ret, same, live))
		return;
	if (held.held != &image || !sframe_shim_index_sane(&held))
		__builtin_trap();
	if (same && got)
		lookups(&held, r, false, got, frames);
	sframe_section_release(&held);
	if (sframe_kmem_live != live)
		__builtin_trap();
}

static void run(struct fuzz_run *r)
{
	struct unwind_user_frame frames[FUZZ_LOOKUPS];
	long live = sframe_kmem_live;
	int got[FUZZ_LOOKUPS], ret;
	struct sframe_section sec;
	size_t bytes;

	ret = sframe_section_init(&sec, r->sframe_start, r->sframe_size, r->text_start,
				  r->text_end, r->max_bytes);
	check_err(ret);
	if (ret) {
		if (!sec.reason || sframe_kmem_live != live)
			__builtin_trap();
		if (r->flags & FUZZ_F_IMAGE)
			check_image(r, ret, NULL, NULL);
		return;
	}
	/* What init built is trusted from here on, whatever the section does */
	if (!sframe_shim_index_sane(&sec))
		__builtin_trap();
	bytes = sframe_section_bytes(&sec);
	if (bytes > r->max_bytes)
		__builtin_trap();

	if (r->flags & FUZZ_F_CACHE) {
		ret = sframe_section_cache_alloc(&sec);
		if (ret ? ret != -ENOMEM || sec.cache :
		    sframe_section_bytes(&sec) != bytes + sframe_section_cache_bytes(&sec))
			__builtin_trap();
		/* A second call keeps the cache there is */
		bytes = sframe_section_bytes(&sec);
		if (!ret && (sframe_section_cache_alloc(&sec) ||
			     sframe_section_bytes(&sec) != bytes))
			__builtin_trap();
	}
	/* Memory that could be read at init, paged out since */
	if (r->hole_late) {
		sframe_umem[0].hole_start = r->hole_start;
		sframe_umem[0].hole_end = r->hole_end;
	}
	if (r->flags & FUZZ_F_VALIDATE) {
		ret = sframe_section_validate(&sec);
		check_err(ret);
		r->valid = !ret && r->quiet && !r->hole;
	}

	lookups(&sec, r, true, got, frames);
	if (r->flags & FUZZ_F_COPY)
		check_copy(&sec, r, got, frames);
	if (r->flags & FUZZ_F_IMAGE)
		check_image(r, 0, got, frames);
	walk(&sec, r);
	/* Again: from the cache, if there is one, which may be torn */
	if ((r->flags & FUZZ_F_TEAR) && sec.cache)
		sframe_shim_cache_tear(&sec);
	lookups(&sec, r, false, got, frames);

	sframe_section_release(&sec);
	if (sframe_kmem_live != live)
		__builtin_trap();
}

/*
 * The section's bytes: the input, or with FUZZ_F_TILE the input before its
 * tail @n times over, then the tail.  Returns NULL if there is no memory.
 * Tiled sections are written into one buffer kept from run to run: a
 * fresh allocation of megabytes would cost more than the run.
 */
static u8 *section_bytes(const u8 *data, size_t size, u32 n, size_t *len, bool *tiled)
{
	static u8 *tiles;
	size_t body = size > FUZZ_TAIL_LEN ? size - FUZZ_TAIL_LEN : 0, max, i;
	u8 *mem;

	max = body <= FUZZ_TILE_SMALL ? FUZZ_TILE_MAX : FUZZ_TILE_MAX_BIG;
	if (body && n > (max - FUZZ_TAIL_LEN) / body)
		n = (max - FUZZ_TAIL_LEN) / body;
	*tiled = body && n >= 2;
	if (!*tiled) {
		*len = size;
		mem = malloc(size ? size : 1);
		return mem ? memcpy(mem, data, size) : NULL;
	}
	if (!tiles)
		tiles = malloc(FUZZ_TILE_MAX);
	if (!tiles)
		return NULL;
	*len = body * n + FUZZ_TAIL_LEN;
	for (i = 0; i < n; i++)
		memcpy(tiles + i * body, data, body);
	memcpy(tiles + n * body, data + body, FUZZ_TAIL_LEN);
	return tiles;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const u8 none[FUZZ_MODE_LEN];
	const u8 *script = none, *mode = none;
	struct fuzz_run r = { 0 };
	size_t len = size;
	bool tiled;
	u32 tile = 0;
	u8 *mem;

	if (size >= FUZZ_SEED_LEN)
		memcpy(&r.seed, data + size - FUZZ_SEED_LEN, FUZZ_SEED_LEN);
	if (size >= FUZZ_SEED_LEN + FUZZ_SCRIPT_LEN)
		script = data + size - FUZZ_SEED_LEN - FUZZ_SCRIPT_LEN;
	if (size >= FUZZ_TAIL_LEN)
		mode = data + size - FUZZ_TAIL_LEN;
	if (mode[FUZZ_M_FLAGS] & FUZZ_F_TILE)
		memcpy(&tile, mode + FUZZ_M_TILE, sizeof(tile));

	/* The second writer stores into the section: libFuzzer's data is const */
	mem = section_bytes(data, size, tile, &len, &tiled);
	if (!mem)
		return 0;
	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0].addr = FUZZ_ADDR;
	sframe_umem[0].len = len;
	sframe_umem[0].data = mem;

	r.max_bytes = arm_script(script, len, &r.quiet);
	read_mode(&r, mode, len);
	run(&r);
	sframe_umem_disarm();
	sframe_fail_alloc_in = 0;
	if (!tiled)
		free(mem);
	return 0;
}
