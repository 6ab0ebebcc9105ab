// SPDX-License-Identifier: GPL-2.0-only
/*
 * A structure-aware mutator for the SFrame fuzz target (sframe_fuzz.c).
 *
 * libFuzzer's byte mutations rarely keep a section whole: one changed
 * count or offset and the reader refuses it at init, so the lookup paths
 * behind the checks are seldom reached.  Here the input is parsed the way
 * the reader reads it (elements, header, FDE table, V3 attribute blocks,
 * FREs of every address size) into a model, and one of these is done:
 *
 *  - a field of a header, FDE, attribute block or FRE is overwritten in
 *    place with a value chosen for that field (a count off by one, an
 *    offset to the end, a start equal to the one before, an info byte
 *    with another type or word size...), so that one thing is wrong;
 *  - the model is changed (FDEs and FREs added, removed, reordered,
 *    resized; versions, ABIs, flags, address and word sizes, flex rules;
 *    elements added) and written back with every count and offset right;
 *  - the input's tail (sframe_fuzz.h) is changed: the mode, a second
 *    writer's store aimed at a field, lookups aimed at an FRE;
 *  - or libFuzzer's own mutations run, on the section or on everything.
 *
 * Inputs that do not parse get libFuzzer's mutations or a new section.
 * The cross-over splices elements or FDEs of one input into another.
 */
#include "sframe_internal.h"
#include "sframe_fuzz.h"

#define MZ_MAX_ELEMS	4
#define MZ_MAX_FDES	32
#define MZ_MAX_FRES	32
#define MZ_MAX_WORDS	15
#define MZ_MAX_JUNK	64
#define MZ_HDR		28
#define MZ_FDA		5

struct mz_fre {
	u32	start;
	u8	info;
	u32	word[MZ_MAX_WORDS];
	u32	off;		/* where it is in the bytes parsed or written */
};

struct mz_fde {
	u64	func;		/* function start, a user address */
	u32	size;
	u8	info;
	u8	info2;
	u8	rep_size;
	u8	nfres;
	u32	off;		/* its entry in the FDE table */
	u32	attr;		/* V3: attribute block; V2: first FRE */
	struct mz_fre fre[MZ_MAX_FRES];
};

struct mz_elem {
	u8	version;
	u8	flags;
	u8	abi;
	s8	fixed_fp;
	s8	fixed_ra;
	u8	auxhdr_len;
	bool	big;
	u8	nfdes;
	u16	fde_gap;	/* bytes between the (aux) header and the FDEs */
	u16	fre_gap;	/* bytes between the FDEs and the FREs */
	u16	fre_pad;	/* bytes after the last FRE, in the sub-section */
	u32	off;		/* its header */
	struct mz_fde fde[MZ_MAX_FDES];
};

struct mz_section {
	u8	nelems;
	u8	junk_len;
	struct mz_elem elem[MZ_MAX_ELEMS];
	u8	junk[MZ_MAX_JUNK];	/* after the last element */
	u8	tail[FUZZ_TAIL_LEN];
};

/* The models are large: static, as libFuzzer mutates on one thread. */
static struct mz_section mz_a, mz_b;
static u64 mz_state;

static u32 rnd(u32 n)
{
	mz_state ^= mz_state << 13;
	mz_state ^= mz_state >> 7;
	mz_state ^= mz_state << 17;
	return n ? (mz_state >> 11) % n : 0;
}

static bool one_in(u32 n)
{
	return !rnd(n);
}

static u64 get(const u8 *p, unsigned int width, bool big)
{
	unsigned int i;
	u64 v = 0;

	for (i = 0; i < width; i++)
		v |= (u64)p[big ? width - 1 - i : i] << (8 * i);
	return v;
}

static void put(u8 *p, u64 v, unsigned int width, bool big)
{
	unsigned int i;

	for (i = 0; i < width; i++)
		p[big ? width - 1 - i : i] = v >> (8 * i);
}

static bool abi_big(u8 abi)
{
	return abi == SFRAME_ABI_AARCH64_ENDIAN_BIG || abi == SFRAME_ABI_S390X_ENDIAN_BIG;
}

static unsigned int fde_size(const struct mz_elem *e)
{
	return e->version == SFRAME_VERSION_2 ? sizeof(struct sframe_fde_v2) :
						sizeof(struct sframe_fde_v3);
}

/* Bytes of an FRE start; type 3, which no reader accepts, is written as 4. */
static unsigned int addr_size(u8 fde_info)
{
	return 1U << min(SFRAME_FDE_INFO_FRE_TYPE(fde_info), 2);
}

static unsigned int word_size(u8 fre_info)
{
	return 1U << min(SFRAME_FRE_INFO_DW_SIZE(fre_info), 2);
}

/* ---- parsing: the bytes into a model, leniently ---- */

static void parse_fres(struct mz_fde *f, const u8 *p, u32 at, u32 end, u32 count, bool big)
{
	unsigned int as, ws, n, k;
	struct mz_fre *r;

	f->nfres = 0;
	if (SFRAME_FDE_INFO_FRE_TYPE(f->info) > SFRAME_FRE_TYPE_ADDR4)
		return;
	as = addr_size(f->info);
	while (f->nfres < count && f->nfres < MZ_MAX_FRES && at <= end &&
	       end - at >= as + 1) {
		r = &f->fre[f->nfres];
		r->off = at;
		r->start = get(p + at, as, big);
		r->info = p[at + as];
		n = SFRAME_FRE_INFO_DW_COUNT(r->info);
		ws = word_size(r->info);
		if (SFRAME_FRE_INFO_DW_SIZE(r->info) > SFRAME_FRE_DATAWORD_4B ||
		    end - at - as - 1 < n * ws)
			return;
		at += as + 1;
		memset(r->word, 0, sizeof(r->word));
		for (k = 0; k < n; k++, at += ws)
			r->word[k] = get(p + at, ws, big);
		f->nfres++;
	}
}

/* The element whose header is at @off, if its magic is there. */
static bool parse_elem(struct mz_elem *e, const u8 *p, u32 off, u32 len, u32 *end)
{
	u64 hdr_end, fdes, fres, fres_end, q, value;
	u32 num_fdes, fres_off, count, i, fs;
	struct mz_fde *f;
	u16 magic;

	if (len < MZ_HDR || off > len - MZ_HDR)
		return false;
	magic = get(p + off, 2, false);
	if (magic != SFRAME_MAGIC && magic != swab16(SFRAME_MAGIC))
		return false;
	memset(e, 0, offsetof(struct mz_elem, fde));
	e->big = magic != SFRAME_MAGIC;
	e->off = off;
	e->version = p[off + 2];
	e->flags = p[off + 3];
	e->abi = p[off + 4];
	e->fixed_fp = p[off + 5];
	e->fixed_ra = p[off + 6];
	e->auxhdr_len = p[off + 7];
	num_fdes = get(p + off + 8, 4, e->big);
	hdr_end = off + MZ_HDR + e->auxhdr_len;
	fdes = hdr_end + get(p + off + 20, 4, e->big);
	fres = hdr_end + get(p + off + 24, 4, e->big);
	fres_end = min(fres + get(p + off + 16, 4, e->big), (u64)len);
	fres = min(fres, fres_end);
	fs = fde_size(e);
	if (fdes <= len) {
		e->fde_gap = min(fdes - hdr_end, (u64)0xffff);
		e->nfdes = min_t(u64, min(num_fdes, MZ_MAX_FDES), (len - fdes) / fs);
	}
	if (fres > fdes + e->nfdes * fs)
		e->fre_gap = min(fres - fdes - e->nfdes * fs, (u64)0xffff);
	for (i = 0; i < e->nfdes; i++) {
		f = &e->fde[i];
		q = fdes + i * fs;
		f->off = q;
		if (fs == sizeof(struct sframe_fde_v2))
			value = (s32)get(p + q, 4, e->big);
		else
			value = get(p + q, 8, e->big);
		f->func = FUZZ_ADDR + value + (e->flags & SFRAME_F_FDE_FUNC_START_PCREL ? q : off);
		q += fs == sizeof(struct sframe_fde_v2) ? 4 : 8;
		f->size = get(p + q, 4, e->big);
		fres_off = get(p + q + 4, 4, e->big);
		f->attr = min(fres + fres_off, fres_end);
		f->info = 0;
		f->info2 = 0;
		f->rep_size = 0;
		f->nfres = 0;
		if (fs == sizeof(struct sframe_fde_v2)) {
			count = get(p + q + 8, 4, e->big);
			f->info = p[q + 12];
			f->rep_size = p[q + 13];
			parse_fres(f, p, f->attr, fres_end, count, e->big);
		} else if (fres_end - f->attr >= MZ_FDA) {
			count = get(p + f->attr, 2, e->big);
			f->info = p[f->attr + 2];
			f->info2 = p[f->attr + 3];
			f->rep_size = p[f->attr + 4];
			parse_fres(f, p, f->attr + MZ_FDA, fres_end, count, e->big);
		}
	}
	*end = fres_end;
	return true;
}

/* @data into @s: false if it does not start with an element */
static bool parse(struct mz_section *s, const u8 *data, size_t size)
{
	u32 len = size >= FUZZ_TAIL_LEN ? size - FUZZ_TAIL_LEN : size, off = 0, end, last;

	s->nelems = 0;
	s->junk_len = 0;
	memset(s->tail, 0, sizeof(s->tail));
	if (size >= FUZZ_TAIL_LEN)
		memcpy(s->tail, data + len, FUZZ_TAIL_LEN);
	while (s->nelems < MZ_MAX_ELEMS && parse_elem(&s->elem[s->nelems], data, off, len, &end)) {
		s->nelems++;
		/* Where the reader looks for another element */
		last = ALIGN(end, 8);
		for (off = end; off <= last && off + MZ_HDR <= len; off++)
			if (get(data + off, 2, false) == SFRAME_MAGIC ||
			    get(data + off, 2, false) == swab16(SFRAME_MAGIC))
				break;
		if (off > last || off + MZ_HDR > len) {
			off = end;
			break;
		}
	}
	if (!s->nelems)
		return false;
	if (off < len) {
		s->junk_len = min_t(u32, len - off, MZ_MAX_JUNK);
		memcpy(s->junk, data + off, s->junk_len);
	}
	return true;
}

/* ---- writing a model back, every count and offset right ---- */

struct mz_out {
	u8	*p;
	u32	pos;
	u32	max;
	bool	full;
};

static u8 *room(struct mz_out *o, u32 n)
{
	u8 *p;

	if (o->full || n > o->max - o->pos) {
		o->full = true;
		return NULL;
	}
	p = o->p + o->pos;
	memset(p, 0, n);
	o->pos += n;
	return p;
}

static void write_fres(struct mz_out *o, struct mz_fde *f, bool big)
{
	unsigned int as = addr_size(f->info), ws, n, j, k;
	struct mz_fre *r;
	u8 *q;

	for (j = 0; j < f->nfres; j++) {
		r = &f->fre[j];
		n = SFRAME_FRE_INFO_DW_COUNT(r->info);
		ws = word_size(r->info);
		r->off = o->pos;
		q = room(o, as + 1 + n * ws);
		if (!q)
			return;
		put(q, r->start, as, big);
		q[as] = r->info;
		for (k = 0; k < n; k++)
			put(q + as + 1 + k * ws, r->word[k], ws, big);
	}
}

static void write_elem(struct mz_out *o, struct mz_elem *e)
{
	u32 hdr_end, fdes, fres, num_fres = 0, fs = fde_size(e), i, q;
	bool v2 = fs == sizeof(struct sframe_fde_v2);
	struct mz_fde *f;
	u64 value;
	u8 *h;

	e->off = o->pos;
	h = room(o, MZ_HDR + e->auxhdr_len + e->fde_gap);
	if (!h)
		return;
	hdr_end = e->off + MZ_HDR + e->auxhdr_len;
	fdes = o->pos;
	if (!room(o, e->nfdes * fs + e->fre_gap))
		return;
	fres = o->pos;
	for (i = 0; i < e->nfdes; i++) {
		f = &e->fde[i];
		f->off = fdes + i * fs;
		f->attr = o->pos;
		if (!v2) {
			h = room(o, MZ_FDA);
			if (!h)
				return;
			put(h, f->nfres, 2, e->big);
			h[2] = f->info;
			h[3] = f->info2;
			h[4] = f->rep_size;
		}
		write_fres(o, f, e->big);
		num_fres += f->nfres;
	}
	if (!room(o, e->fre_pad))
		return;

	h = o->p + e->off;
	put(h, SFRAME_MAGIC, 2, e->big);
	h[2] = e->version;
	h[3] = e->flags;
	h[4] = e->abi;
	h[5] = e->fixed_fp;
	h[6] = e->fixed_ra;
	h[7] = e->auxhdr_len;
	put(h + 8, e->nfdes, 4, e->big);
	put(h + 12, num_fres, 4, e->big);
	put(h + 16, o->pos - fres, 4, e->big);
	put(h + 20, fdes - hdr_end, 4, e->big);
	put(h + 24, fres - hdr_end, 4, e->big);
	for (i = 0; i < e->nfdes; i++) {
		f = &e->fde[i];
		q = f->off;
		value = f->func - FUZZ_ADDR -
			(e->flags & SFRAME_F_FDE_FUNC_START_PCREL ? q : e->off);
		put(o->p + q, value, v2 ? 4 : 8, e->big);
		q += v2 ? 4 : 8;
		put(o->p + q, f->size, 4, e->big);
		put(o->p + q + 4, f->attr - fres, 4, e->big);
		if (v2) {
			put(o->p + q + 8, f->nfres, 4, e->big);
			o->p[q + 12] = f->info;
			o->p[q + 13] = f->rep_size;
		}
	}
}

/* @s into @out: its size, 0 if it does not fit in @max bytes */
static size_t write_section(struct mz_section *s, u8 *out, size_t max)
{
	struct mz_out o = { .p = out, .max = min_t(size_t, max, U32_MAX) };
	unsigned int k;
	u8 *p;

	for (k = 0; k < s->nelems; k++) {
		/* ld -r pads elements to 8 bytes; the reader looks there */
		if (k && !room(&o, ALIGN(o.pos, 8) - o.pos))
			return 0;
		write_elem(&o, &s->elem[k]);
	}
	p = room(&o, s->junk_len + FUZZ_TAIL_LEN);
	if (!p)
		return 0;
	memcpy(p, s->junk, s->junk_len);
	memcpy(p + s->junk_len, s->tail, FUZZ_TAIL_LEN);
	return o.pos;
}

/* ---- values worth trying ---- */

static const s32 interesting[] = {
	0, 1, -1, 2, 4, 8, 16, 32, 64, 127, 128, 255, 256, -8, -16, -128, -129,
	0x7fff, 0x8000, 0xffff, 0x10000, -0x8000, 0x7fffffff, (s32)0x80000000,
	160, 168, -72, 2 * 14 + 1, 2 * 16 + 1, 2 * 17 + 1, -3,
};

static s64 pick_value(void)
{
	switch (rnd(4)) {
	case 0:
		return (s32)(rnd(0x10000) << 16 | rnd(0x10000));
	case 1:
		return (s64)rnd(64) - 32;
	default:
		return interesting[rnd(ARRAY_SIZE(interesting))];
	}
}

/* A new value for a field that held @old: near it, or worth trying */
static u64 pick_near(u64 old)
{
	switch (rnd(4)) {
	case 0:
		return old + 1 + rnd(16);
	case 1:
		return old - 1 - rnd(16);
	default:
		return pick_value();
	}
}

/* A control word of a flex FDE: a register, or 0 for padding */
static u32 flex_ctl(void)
{
	static const u16 regs[] = { 0, 1, 6, 7, 14, 15, 16, 18, 29, 30, 31, 255, 256, 300 };

	if (one_in(6))
		return one_in(2) ? SFRAME_FLEX_CTL_NONE : rnd(0x10000);
	return regs[rnd(ARRAY_SIZE(regs))] << 3 | rnd(2) << 1 | !one_in(4);
}

static u8 fre_info(bool flex)
{
	static const u8 counts[] = { 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 15 };

	/* Flex rules come in pairs after the CFA's: even counts */
	if (flex && !one_in(4))
		return (2 + 2 * rnd(3)) << 1 | (one_in(8) ? 3 : rnd(3)) << 5 |
		       (one_in(4) ? 0x80 : 0);
	return rnd(2) | counts[rnd(ARRAY_SIZE(counts))] << 1 |
	       (one_in(8) ? 3 : rnd(3)) << 5 | (one_in(4) ? 0x80 : 0);
}

static void fill_words(struct mz_fre *r, bool flex)
{
	unsigned int k, n = SFRAME_FRE_INFO_DW_COUNT(r->info);

	for (k = 0; k < n && k < MZ_MAX_WORDS; k++) {
		if (flex && !(k & 1))
			r->word[k] = flex_ctl();
		else if (!k)
			r->word[k] = 8 * (1 + rnd(8));
		else
			r->word[k] = one_in(2) ? -8 * (1 + rnd(4)) : pick_value();
	}
}

/* ---- changes to a model ---- */

static struct mz_elem *pick_elem(struct mz_section *s)
{
	return &s->elem[rnd(s->nelems)];
}

static void new_fre(struct mz_fde *f, unsigned int j, u32 start)
{
	bool flex = SFRAME_FDE_INFO2_TYPE(f->info2) == SFRAME_FDE_TYPE_FLEX;
	struct mz_fre *r;

	if (f->nfres >= MZ_MAX_FRES || j > f->nfres)
		return;
	memmove(&f->fre[j + 1], &f->fre[j], (f->nfres - j) * sizeof(f->fre[0]));
	f->nfres++;
	r = &f->fre[j];
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->info = one_in(3) ? fre_info(flex) : flex ? 4 << 1 : 1 | (1 + rnd(3)) << 1;
	fill_words(r, flex);
}

static void new_fde(struct mz_elem *e, unsigned int i, u64 func)
{
	struct mz_fde *f;
	unsigned int j, n;

	if (e->nfdes >= MZ_MAX_FDES || i > e->nfdes)
		return;
	memmove(&e->fde[i + 1], &e->fde[i], (e->nfdes - i) * sizeof(e->fde[0]));
	e->nfdes++;
	f = &e->fde[i];
	memset(f, 0, offsetof(struct mz_fde, fre));
	f->func = func;
	f->size = 1 + rnd(0x100);
	f->info = one_in(4) ? rnd(0x100) : rnd(3);
	f->info2 = one_in(4) ? SFRAME_FDE_TYPE_FLEX : 0;
	f->rep_size = one_in(4) ? rnd(0x100) : 0;
	n = rnd(5);
	for (j = 0; j < n; j++)
		new_fre(f, j, j * (1 + rnd(8)));
}

/* Where a new function can go: after those in the GiB above the section */
static u64 free_func(const struct mz_section *s)
{
	u64 end = FUZZ_ADDR + 0x100000, func;
	unsigned int k, i;

	for (k = 0; k < s->nelems; k++) {
		for (i = 0; i < s->elem[k].nfdes; i++) {
			func = s->elem[k].fde[i].func;
			if (func - FUZZ_ADDR < FUZZ_TEXT_LEN / 4)
				end = max(end, func + s->elem[k].fde[i].size);
		}
	}
	return end + rnd(3) * rnd(64);
}

static void sort_fdes(struct mz_elem *e)
{
	unsigned int i, j;
	struct mz_fde t;

	for (i = 1; i < e->nfdes; i++) {
		for (j = i; j && e->fde[j - 1].func > e->fde[j].func; j--) {
			t = e->fde[j];
			e->fde[j] = e->fde[j - 1];
			e->fde[j - 1] = t;
		}
	}
}

/* Starts an FDE's address size holds, in order */
static void fit_fres(struct mz_fde *f)
{
	unsigned int as = addr_size(f->info), j;
	u64 max = as == 4 ? U32_MAX : (1ULL << (8 * as)) - 1;

	for (j = 0; j < f->nfres; j++)
		if (f->fre[j].start > max)
			f->fre[j].start = max - (f->nfres - j);
}

static void mutate_fre(struct mz_fde *f, struct mz_fre *r, unsigned int j)
{
	bool flex = SFRAME_FDE_INFO2_TYPE(f->info2) == SFRAME_FDE_TYPE_FLEX;
	unsigned int n = SFRAME_FRE_INFO_DW_COUNT(r->info);

	switch (rnd(7)) {
	case 0:
		if (j && one_in(2))
			r->start = f->fre[j - 1].start + rnd(3) - 1;
		else
			r->start = pick_near(r->start);
		break;
	case 1:
		r->info = fre_info(flex);
		fill_words(r, flex);
		break;
	case 2:
		/* Another word size: the values stay, as far as they fit */
		r->info = (r->info & ~0x60) | rnd(one_in(8) ? 4 : 3) << 5;
		break;
	case 3:
		r->info ^= 1 << rnd(8);
		break;
	case 4:
		if (n)
			r->word[rnd(min(n, MZ_MAX_WORDS))] = flex && one_in(2) ? flex_ctl() :
							     pick_value();
		break;
	case 5:
		r->info = (r->info & ~0x1e) | rnd(8) << 1;
		fill_words(r, flex);
		break;
	default:
		r->start = f->size - rnd(3);
		break;
	}
}

static void mutate_fde(struct mz_elem *e, struct mz_fde *f, unsigned int i)
{
	unsigned int j, n;

	switch (rnd(14)) {
	case 0:
		f->func = pick_near(f->func);
		break;
	case 1:
		/* Onto, into or right after another function */
		j = rnd(e->nfdes);
		f->func = e->fde[j].func + (one_in(2) ? e->fde[j].size : rnd(e->fde[j].size + 1));
		break;
	case 2:
		/* Out of the text, or at the top of the address space */
		switch (rnd(3)) {
		case 0:
			f->func = FUZZ_TEXT_START + FUZZ_TEXT_LEN + rnd(0x100);
			break;
		case 1:
			f->func = FUZZ_TEXT_START - 1 - rnd(0x100);
			break;
		default:
			f->func = ULONG_MAX - rnd(0x1000);
			break;
		}
		break;
	case 3:
		f->size = one_in(3) ? pick_near(f->size) : one_in(2) ? 0 : U32_MAX - rnd(4);
		break;
	case 4:
		/* Up to the next function, or one byte into it */
		if (i + 1 < e->nfdes)
			f->size = e->fde[i + 1].func - f->func + rnd(2);
		break;
	case 5:
		f->info = (f->info & ~0xf) | (one_in(6) ? rnd(16) : rnd(3));
		fit_fres(f);
		break;
	case 6:
		f->info ^= 0x10 << rnd(4);
		if (SFRAME_FDE_INFO_PCTYPE(f->info) && one_in(2))
			f->rep_size = one_in(4) ? 0 : 1 + rnd(32);
		break;
	case 7:
		f->info2 = one_in(4) ? rnd(0x100) : rnd(2);
		for (j = 0; j < f->nfres; j++) {
			if (one_in(3))
				continue;
			f->fre[j].info = fre_info(f->info2 == SFRAME_FDE_TYPE_FLEX);
			fill_words(&f->fre[j], f->info2 == SFRAME_FDE_TYPE_FLEX);
		}
		break;
	case 8:
		f->rep_size = one_in(3) ? rnd(0x100) : rnd(2) ? 0 : 16;
		break;
	case 9:
		j = rnd(f->nfres + 1);
		new_fre(f, j, j ? f->fre[j - 1].start + rnd(4) : 0);
		break;
	case 10:
		if (f->nfres) {
			j = rnd(f->nfres);
			memmove(&f->fre[j], &f->fre[j + 1], (f->nfres - j - 1) * sizeof(f->fre[0]));
			f->nfres--;
		}
		break;
	case 11:
		/* Many rows: several copies, so that a lookup reads on */
		n = 8 + rnd(MZ_MAX_FRES);
		f->info = (f->info & ~0xf) | (one_in(2) ? SFRAME_FRE_TYPE_ADDR4 : rnd(3));
		while (f->nfres < n && f->nfres < MZ_MAX_FRES)
			new_fre(f, f->nfres, f->nfres ? f->fre[f->nfres - 1].start + 1 +
				rnd(3) : 0);
		for (j = 0; j < f->nfres && one_in(2); j++)
			f->fre[j].info = (f->fre[j].info & ~0x60) | SFRAME_FRE_DATAWORD_4B << 5;
		fit_fres(f);
		f->size = max(f->size, f->fre[f->nfres - 1].start + 1 + rnd(8));
		break;
	default:
		if (f->nfres) {
			j = rnd(f->nfres);
			mutate_fre(f, &f->fre[j], j);
		}
		break;
	}
}

static void mutate_elem(struct mz_section *s, struct mz_elem *e)
{
	struct mz_fde t;
	unsigned int i, j;

	switch (rnd(13)) {
	case 0:
		e->version = one_in(4) ? rnd(6) : e->version == SFRAME_VERSION_2 ?
			     SFRAME_VERSION_3 : SFRAME_VERSION_2;
		break;
	case 1:
		e->flags ^= one_in(6) ? 1 << rnd(8) : 1 << rnd(3);
		break;
	case 2:
		e->abi = one_in(4) ? rnd(7) : 1 + rnd(4);
		if (!one_in(8))
			e->big = abi_big(e->abi);
		break;
	case 3:
		e->fixed_fp = one_in(2) ? 0 : pick_value();
		break;
	case 4:
		e->fixed_ra = one_in(2) ? 0 : one_in(2) ? -8 : pick_value();
		break;
	case 5:
		e->auxhdr_len = one_in(2) ? 0 : rnd(2) ? 8 : rnd(0x100);
		break;
	case 6:
		switch (rnd(3)) {
		case 0:
			e->fde_gap = one_in(2) ? 0 : rnd(64);
			break;
		case 1:
			e->fre_gap = one_in(2) ? 0 : rnd(64);
			break;
		default:
			e->fre_pad = one_in(2) ? 0 : rnd(64);
			break;
		}
		break;
	case 7:
		new_fde(e, one_in(2) ? e->nfdes : rnd(e->nfdes + 1), free_func(s));
		break;
	case 8:
		if (e->nfdes) {
			i = rnd(e->nfdes);
			memmove(&e->fde[i], &e->fde[i + 1], (e->nfdes - i - 1) * sizeof(e->fde[0]));
			e->nfdes--;
		}
		break;
	case 9:
		/* Out of order, or a copy of one: same start */
		if (e->nfdes > 1 && !one_in(3)) {
			i = rnd(e->nfdes);
			j = rnd(e->nfdes);
			t = e->fde[i];
			e->fde[i] = e->fde[j];
			e->fde[j] = t;
		} else if (e->nfdes && e->nfdes < MZ_MAX_FDES) {
			i = rnd(e->nfdes);
			e->fde[e->nfdes++] = e->fde[i];
		}
		break;
	case 10:
		sort_fdes(e);
		break;
	case 11:
		/* A byte order that does not match the ABI */
		e->big = !e->big;
		break;
	default:
		if (e->nfdes) {
			i = rnd(e->nfdes);
			mutate_fde(e, &e->fde[i], i);
		}
		break;
	}
}

static void mutate_section(struct mz_section *s)
{
	struct mz_elem *e;
	unsigned int k, i;
	u64 shift;

	switch (rnd(8)) {
	case 0:
		/* Another element: a copy of one, its functions moved past the others */
		if (s->nelems >= MZ_MAX_ELEMS)
			break;
		e = &s->elem[s->nelems];
		*e = *pick_elem(s);
		shift = one_in(4) ? 0 : free_func(s) - (e->nfdes ? e->fde[0].func : 0);
		for (i = 0; i < e->nfdes; i++)
			e->fde[i].func += shift;
		if (one_in(4))
			mutate_elem(s, e);
		s->nelems++;
		break;
	case 1:
		if (s->nelems > 1) {
			k = rnd(s->nelems);
			memmove(&s->elem[k], &s->elem[k + 1],
				(s->nelems - k - 1) * sizeof(s->elem[0]));
			s->nelems--;
		}
		break;
	case 2:
		/* Junk after the data: zeros, bytes, or what looks like a header */
		s->junk_len = rnd(MZ_MAX_JUNK + 1);
		for (i = 0; i < s->junk_len; i++)
			s->junk[i] = one_in(2) ? 0 : rnd(0x100);
		if (s->junk_len >= 2 && one_in(2))
			put(s->junk + rnd(min(8, s->junk_len - 1)), SFRAME_MAGIC, 2,
			    s->elem[0].big);
		break;
	default:
		mutate_elem(s, pick_elem(s));
		break;
	}
}

/* ---- fields of the bytes, for changes in place ---- */

struct mz_field {
	u32	off;
	u8	width;
	u8	kind;
	bool	big;
};

enum {
	MZ_K_COUNT, MZ_K_MAGIC, MZ_K_VERSION, MZ_K_FLAGS, MZ_K_ABI, MZ_K_S8, MZ_K_AUX,
	MZ_K_START, MZ_K_FDE_INFO, MZ_K_INFO2, MZ_K_REP, MZ_K_FRE_START,
	MZ_K_FRE_INFO, MZ_K_WORD,
};

/* A field of @s, where it was last parsed or written */
static bool pick_field(const struct mz_section *s, struct mz_field *fl)
{
	static const u8 hdr[][3] = {
		{ 0, 2, MZ_K_MAGIC }, { 2, 1, MZ_K_VERSION }, { 3, 1, MZ_K_FLAGS },
		{ 4, 1, MZ_K_ABI }, { 5, 1, MZ_K_S8 }, { 6, 1, MZ_K_S8 },
		{ 7, 1, MZ_K_AUX }, { 8, 4, MZ_K_COUNT }, { 12, 4, MZ_K_COUNT },
		{ 16, 4, MZ_K_COUNT }, { 20, 4, MZ_K_COUNT }, { 24, 4, MZ_K_COUNT },
	};
	static const u8 v2[][3] = {
		{ 0, 4, MZ_K_START }, { 4, 4, MZ_K_COUNT }, { 8, 4, MZ_K_COUNT },
		{ 12, 4, MZ_K_COUNT }, { 16, 1, MZ_K_FDE_INFO }, { 17, 1, MZ_K_REP },
		{ 18, 2, MZ_K_COUNT },
	};
	static const u8 v3[][3] = {
		{ 0, 8, MZ_K_START }, { 8, 4, MZ_K_COUNT }, { 12, 4, MZ_K_COUNT },
	};
	static const u8 fda[][3] = {
		{ 0, 2, MZ_K_COUNT }, { 2, 1, MZ_K_FDE_INFO }, { 3, 1, MZ_K_INFO2 },
		{ 4, 1, MZ_K_REP },
	};
	const struct mz_elem *e = &s->elem[rnd(s->nelems)];
	unsigned int as, ws, n, w;
	const struct mz_fde *f;
	const struct mz_fre *r;
	const u8 *t;

	fl->big = e->big;
	if (!e->nfdes || one_in(5)) {
		t = hdr[rnd(ARRAY_SIZE(hdr))];
		fl->off = e->off + t[0];
	} else {
		f = &e->fde[rnd(e->nfdes)];
		switch (f->nfres ? rnd(4) : rnd(2)) {
		case 0:
			if (e->version == SFRAME_VERSION_2)
				t = v2[rnd(ARRAY_SIZE(v2))];
			else
				t = v3[rnd(ARRAY_SIZE(v3))];
			fl->off = f->off + t[0];
			break;
		case 1:
			if (e->version == SFRAME_VERSION_2)
				return false;
			t = fda[rnd(ARRAY_SIZE(fda))];
			fl->off = f->attr + t[0];
			break;
		default:
			r = &f->fre[rnd(f->nfres)];
			as = addr_size(f->info);
			n = SFRAME_FRE_INFO_DW_COUNT(r->info);
			ws = word_size(r->info);
			fl->kind = !n || one_in(3) ? (rnd(2) ? MZ_K_FRE_START : MZ_K_FRE_INFO) :
				   MZ_K_WORD;
			if (fl->kind == MZ_K_FRE_START) {
				fl->off = r->off;
				fl->width = as;
			} else if (fl->kind == MZ_K_FRE_INFO) {
				fl->off = r->off + as;
				fl->width = 1;
			} else {
				w = rnd(min(n, MZ_MAX_WORDS));
				fl->off = r->off + as + 1 + w * ws;
				fl->width = ws;
			}
			return true;
		}
	}
	fl->width = t[1];
	fl->kind = t[2];
	return true;
}

static u64 field_value(const struct mz_field *fl, u64 old, u32 size)
{
	switch (fl->kind) {
	case MZ_K_MAGIC:
		return one_in(2) ? swab16(old) : rnd(0x10000);
	case MZ_K_VERSION:
		return one_in(4) ? rnd(0x100) : rnd(5);
	case MZ_K_FLAGS:
		return one_in(3) ? rnd(0x100) : old ^ 1 << rnd(3);
	case MZ_K_ABI:
		return one_in(4) ? rnd(0x100) : rnd(6);
	case MZ_K_AUX:
		return one_in(2) ? old + rnd(9) : rnd(0x100);
	case MZ_K_FDE_INFO:
		return one_in(2) ? old ^ 1 << rnd(8) : (old & ~0xf) | rnd(4);
	case MZ_K_INFO2:
		return one_in(2) ? rnd(3) : rnd(0x100);
	case MZ_K_REP:
		return one_in(2) ? 0 : rnd(0x100);
	case MZ_K_FRE_INFO:
		return one_in(2) ? old ^ 1 << rnd(8) : fre_info(one_in(2));
	case MZ_K_WORD:
		return one_in(2) ? flex_ctl() : pick_value();
	case MZ_K_COUNT:
		/* Off by a little, to the end of the input, or anything */
		if (one_in(4))
			return one_in(2) ? size - rnd(32) : rnd(2) ? U32_MAX - rnd(4) : 0;
		return pick_near(old);
	default:
		return pick_near(old);
	}
}

/* Overwrites a field of the bytes @s was parsed from, in place */
static void poke(const struct mz_section *s, u8 *data, size_t size)
{
	struct mz_field fl;

	if (!pick_field(s, &fl) || fl.off > size || fl.width > size - fl.off)
		return;
	put(data + fl.off, field_value(&fl, get(data + fl.off, fl.width, fl.big), size),
	    fl.width, fl.big);
}

/* ---- the tail ---- */

/* A lookup address for the seed: at or near an FRE of @s, from FUZZ_ADDR */
static u64 aim(const struct mz_section *s)
{
	const struct mz_elem *e = &s->elem[rnd(s->nelems)];
	const struct mz_fde *f;

	if (!e->nfdes)
		return pick_value();
	f = &e->fde[rnd(e->nfdes)];
	switch (f->nfres ? rnd(4) : 3) {
	case 0:
		return f->func - FUZZ_ADDR + f->size - rnd(2);
	case 3:
		return f->func - FUZZ_ADDR + rnd(f->size + 1);
	default:
		return f->func - FUZZ_ADDR + f->fre[rnd(f->nfres)].start + rnd(3) - 1;
	}
}

static void put16(u8 *p, u16 v)
{
	memcpy(p, &v, sizeof(v));
}

static void mutate_tail(const struct mz_section *s, u8 *tail, size_t size)
{
	u8 *mode = tail, *script = tail + FUZZ_MODE_LEN, *seed = script + FUZZ_SCRIPT_LEN;
	struct mz_field fl;
	unsigned int i;
	u32 v;

	switch (rnd(12)) {
	case 0:
	case 1:
		mode[FUZZ_M_FLAGS] ^= 1 << rnd(6);
		break;
	case 2:
		mode[FUZZ_M_FAIL_ALLOC] = one_in(2) ? 0 : 1 + rnd(8);
		break;
	case 3:
		put16(mode + FUZZ_M_BUDGET, one_in(2) ? 0 : 1 + rnd(one_in(4) ? 0xffff : 16));
		break;
	case 4:
		/* Shorter text than the 4 GiB lookups reach, or longer */
		put16(mode + FUZZ_M_TEXT_MB, one_in(2) ? 0 : rnd(2) ? 2040 + rnd(16) :
					     4090 + rnd(16));
		break;
	case 5:
		/* Bytes that cannot be read: a field, or anywhere */
		if (one_in(3)) {
			mode[FUZZ_M_HOLE_LEN] = 0;
			break;
		}
		if (one_in(4) || !pick_field(s, &fl))
			fl.off = rnd(size);
		put16(mode + FUZZ_M_HOLE, fl.off);
		mode[FUZZ_M_HOLE_LEN] = 1 + rnd(one_in(2) ? 4 : 128);
		break;
	case 6:
		mode[FUZZ_M_ARGS] = one_in(2) ? 0 : rnd(6);
		break;
	case 7:
		/* Sections too large for an input: many elements, many FDEs */
		mode[FUZZ_M_FLAGS] ^= FUZZ_F_TILE;
		v = one_in(2) ? SFRAME_MAX_ELEMENTS + 1 - rnd(2) : 2 + rnd(64);
		memcpy(mode + FUZZ_M_TILE, &v, sizeof(v));
		break;
	case 8:
	case 9:
		/* A store by the second writer, into a field */
		i = rnd(SFRAME_UMEM_MAX_WRITES);
		script[FUZZ_S_TRIGGER + i] = one_in(4) ? 0 : one_in(2) ? 0x80 : 1 + rnd(12);
		if (pick_field(s, &fl)) {
			put16(script + FUZZ_S_OFFSET + 2 * i, fl.off);
			v = field_value(&fl, 0, size);
			put(script + FUZZ_S_VALUE + 4 * i, v, 4, fl.big);
		}
		if (one_in(4))
			put16(script + FUZZ_S_ALLOWANCE, one_in(2) ? 0 : rnd(64));
		break;
	default:
		/* Lookups at an FRE: the first of every four at the address */
		v = aim(s);
		i = rnd(3);
		memcpy(seed + 2 * i, &v, 4);
		break;
	}
}

/* A section from nothing: one element, a few FDEs */
static void new_section(struct mz_section *s)
{
	struct mz_elem *e = &s->elem[0];
	unsigned int i, n = 1 + rnd(4);

	s->nelems = 1;
	s->junk_len = 0;
	memset(e, 0, offsetof(struct mz_elem, fde));
	e->version = rnd(2) ? SFRAME_VERSION_3 : SFRAME_VERSION_2;
	e->flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	e->abi = 1 + rnd(4);
	e->big = abi_big(e->abi);
	e->fixed_ra = e->abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ? -8 : 0;
	for (i = 0; i < n; i++)
		new_fde(e, i, free_func(s));
}

size_t LLVMFuzzerCustomMutator(u8 *data, size_t size, size_t max_size, unsigned int seed)
{
	struct mz_section *s = &mz_a;
	size_t len, n;
	u8 tail[FUZZ_TAIL_LEN];

	mz_state = seed | (u64)seed << 32 | 1;
	if (max_size < FUZZ_TAIL_LEN + MZ_HDR)
		return LLVMFuzzerMutate(data, size, max_size);
	/* libFuzzer's own, on everything or on the section alone */
	if (one_in(8))
		return LLVMFuzzerMutate(data, size, max_size);
	if (!parse(s, data, size)) {
		if (one_in(2))
			return LLVMFuzzerMutate(data, size, max_size);
		new_section(s);
		return write_section(s, data, max_size) ?: LLVMFuzzerMutate(data, size, max_size);
	}
	if (size < FUZZ_TAIL_LEN) {
		n = write_section(s, data, max_size);
		return n ?: LLVMFuzzerMutate(data, size, max_size);
	}
	len = size - FUZZ_TAIL_LEN;
	/* Tiled sections are slow to read: keep few of them */
	if ((data[len + FUZZ_M_FLAGS] & FUZZ_F_TILE) && !one_in(4))
		data[len + FUZZ_M_FLAGS] &= ~FUZZ_F_TILE;
	switch (rnd(10)) {
	case 0:
		memcpy(tail, data + len, FUZZ_TAIL_LEN);
		len = LLVMFuzzerMutate(data, len, max_size - FUZZ_TAIL_LEN);
		memcpy(data + len, tail, FUZZ_TAIL_LEN);
		return len + FUZZ_TAIL_LEN;
	case 1:
	case 2:
		poke(s, data, len);
		if (one_in(3))
			poke(s, data, len);
		return size;
	case 3:
	case 4:
		mutate_tail(s, data + len, size);
		return size;
	default:
		mutate_section(s);
		if (one_in(3))
			mutate_section(s);
		n = write_section(s, data, max_size);
		if (!n)
			return LLVMFuzzerMutate(data, size, max_size);
		if (one_in(4))
			poke(s, data, n - FUZZ_TAIL_LEN);
		if (one_in(4))
			mutate_tail(s, data + n - FUZZ_TAIL_LEN, n);
		return n;
	}
}

/*
 * Two inputs into one: an element of the second added to the first, FDEs
 * of the second put in an element of the first, or the first's section
 * with the second's tail.
 */
size_t LLVMFuzzerCustomCrossOver(const u8 *data1, size_t size1, const u8 *data2,
				 size_t size2, u8 *out, size_t max_out_size,
				 unsigned int seed)
{
	struct mz_section *a = &mz_a, *b = &mz_b;
	struct mz_elem *e, *from;
	unsigned int i, n;
	size_t len;

	mz_state = seed | (u64)seed << 32 | 1;
	if (!parse(a, data1, size1) || !parse(b, data2, size2)) {
		/* The first half of one, the second half of the other */
		len = min(size1 / 2 + size2 / 2, max_out_size);
		n = min(size1 / 2, len);
		memcpy(out, data1, n);
		memcpy(out + n, data2 + size2 - (len - n), len - n);
		return len;
	}
	switch (rnd(3)) {
	case 0:
		if (a->nelems < MZ_MAX_ELEMS)
			a->elem[a->nelems++] = *pick_elem(b);
		break;
	case 1:
		e = pick_elem(a);
		from = pick_elem(b);
		n = rnd(from->nfdes + 1);
		for (i = 0; i < n && e->nfdes < MZ_MAX_FDES; i++)
			e->fde[e->nfdes++] = from->fde[rnd(from->nfdes)];
		if (one_in(2))
			sort_fdes(e);
		break;
	default:
		memcpy(a->tail, b->tail, FUZZ_TAIL_LEN);
		break;
	}
	return write_section(a, out, max_out_size);
}
