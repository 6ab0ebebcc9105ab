// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame reader: the frame rules of a user address, from an SFrame V2 or V3
 * section that lives in the user address space.
 *
 * The section belongs to the process and may hold anything, so every byte
 * is copied out of user memory once, checked against the bounds its
 * headers give and decoded from the copy; every loop is bounded by a count
 * that was checked against those bounds, and nothing here warns or prints.
 * Callers get -ENOENT (the address is not described), -EINVAL (malformed),
 * -EFAULT (not readable) or -EOPNOTSUPP (a format or ABI this kernel does
 * not read); sec->reason names the problem in a few words.
 *
 * When a section is registered its FDE tables are read once into an index
 * in kernel memory (sframe_index.c).  A lookup searches the index without
 * touching user memory, then copies the one FDE it found and that
 * function's FREs, a chunk at a time, and decodes them from the copies: a
 * few user copies a lookup, each one user-access window.
 */
#include "sframe_reader.h"
#include "sframe_search.h"

#define SFRAME_FDA_V3_SIZE	sizeof(struct sframe_fda_v3)
/* Flex FDEs use at most three (control, offset) pairs */
#define SFRAME_MAX_DATA_WORDS	6
/* The largest FRE any FDE type allows: 4-byte start, info, six 4-byte words */
#define SFRAME_MAX_FRE_SIZE	(4 + 1 + SFRAME_MAX_DATA_WORDS * 4)
/*
 * FREs are copied this many bytes at a time: most functions' rows fit in
 * one copy, and the buffer is small enough for the stack of an NMI.
 */
#define SFRAME_FRE_CHUNK	128

/* The FRE that matched, decoded from its copy */
struct sframe_raw_fre {
	u8	info;
	u32	words[SFRAME_MAX_DATA_WORDS];
};

/*
 * FRE bytes copied out of the section: those of [addr, addr + len).  @mm
 * is the address space of another task whose section a lookup reads
 * (/proc/<pid>/ustack), NULL for the current task's own.  @held is the
 * kernel's copy of a section mapped nowhere, its first byte at @held_start.
 */
struct sframe_fre_buf {
	unsigned long	addr;
	unsigned int	len;
	struct mm_struct *mm;
	const struct sframe_image *held;
	unsigned long	held_start;
	u8		data[SFRAME_FRE_CHUNK];
};

static __always_inline void sframe_fre_buf_init(struct sframe_fre_buf *b,
						const struct sframe_section *sec,
						struct mm_struct *mm)
{
	b->addr = 0;
	b->len = 0;
	b->mm = mm;
	b->held = sec->held;
	b->held_start = sec->sframe_start;
}

/* Copies @len bytes of the section; false if they fault or lie outside it. */
static __always_inline bool sframe_copy(const struct sframe_fre_buf *b, void *dst,
					unsigned long addr, int len)
{
	unsigned long off = addr - b->held_start;

	if (b->held) {
		if (addr < b->held_start || (unsigned long)len > b->held->len ||
		    off > b->held->len - len)
			return false;
		memcpy(dst, b->held->data + off, len);
		return true;
	}
	if (b->mm)
		return access_remote_vm(b->mm, addr, dst, len, 0) == len;
	return !copy_from_user(dst, (void __user *)addr, len);
}

/*
 * Lookups: the index is searched in kernel memory; the FDE found and its
 * FREs are copied out of user memory and decoded from the copies.
 */

/* sframe_search() callback: the start of the i-th element */
static __always_inline int sframe_elem_start(void *data, unsigned int i,
					     unsigned long *start)
{
	const struct sframe_section *sec = data;

	*start = sec->elems[i].start;
	return 0;
}

/* The FRE sub-section of the element holding the FDE at @fde_off */
static __always_inline void sframe_fde_fres(struct sframe_section *sec, u32 fde_off,
					    unsigned long *fres,
					    unsigned long *fres_end)
{
	const struct sframe_elem_entry *elem;
	unsigned int i = 0;

	if (!sec->elems) {
		*fres = sec->fres;
		*fres_end = sec->fres_end;
		return;
	}
	/* Each indexed FDE lies in a recorded element: the search finds it. */
	sframe_search(sec->num_elems, fde_off, sframe_elem_start, sec, &i);
	elem = &sec->elems[i];
	*fres = sec->sframe_start + elem->fres_off;
	*fres_end = *fres + elem->fres_len;
}

/*
 * Make [@addr, @addr + min(@want, @end - @addr)) readable in @b: if it is
 * not already, copy a chunk from @addr, in one user access.
 */
static __always_inline int sframe_fre_buf_fill(struct sframe_section *sec,
					       struct sframe_fre_buf *b,
					       unsigned long addr,
					       unsigned long end,
					       unsigned int want)
{
	unsigned long len = min_t(unsigned long, want, end - addr);

	if (addr >= b->addr && addr - b->addr + len <= b->len)
		return 0;
	len = min_t(unsigned long, SFRAME_FRE_CHUNK, end - addr);
	if (!sframe_copy(b, b->data, addr, len))
		return sframe_reject(sec, -EFAULT, "FRE not readable");
	b->addr = addr;
	b->len = len;
	return 0;
}

static int sframe_fde_check(struct sframe_section *sec, const struct sframe_fde *fde)
{
	if (fde->num_fres > SFRAME_MAX_FRES_PER_FDE)
		return sframe_reject(sec, -EINVAL, "too many FREs in one FDE");
	if (SFRAME_FDE_INFO_FRE_TYPE(fde->info) > SFRAME_FRE_TYPE_ADDR4)
		return sframe_reject(sec, -EOPNOTSUPP, "unknown FRE type");
	if (SFRAME_FDE_INFO2_TYPE(fde->info2) > SFRAME_FDE_TYPE_FLEX)
		return sframe_reject(sec, -EOPNOTSUPP, "unknown FDE type");
	if (SFRAME_FDE_INFO_PCTYPE(fde->info) == SFRAME_FDE_PCTYPE_MASK && !fde->rep_size)
		return sframe_reject(sec, -EINVAL, "repeat block of size 0");
	return 0;
}

/*
 * The FDE of index entry @e, copied and decoded.  The function's bounds
 * are the index's, checked when it was built, not a second read of them
 * that may differ.  V3 keeps the rest in an attribute block before the
 * FREs: it is copied into @b with the first FREs.  Inlined: a frame of
 * its own, below sframe_find_uncached()'s, was the deepest of an NMI's walk.
 */
static __always_inline int sframe_fde_load(struct sframe_section *sec,
					   const struct sframe_index_entry *e,
					   struct sframe_fde *fde,
					   struct sframe_fre_buf *b)
{
	unsigned long addr = sec->sframe_start + e->fde_off, fres, fres_len;
	union {
		struct sframe_fde_v2 v2;
		struct sframe_fde_v3 v3;
	} raw;
	const u8 *attr;
	u32 fres_off;
	int ret;

	sframe_fde_fres(sec, e->fde_off, &fres, &fde->fres_end);
	fres_len = fde->fres_end - fres;
	fde->func_start = sec->text_start + e->start;
	fde->func_size = e->size;
	if (!sframe_copy(b, &raw, addr, sframe_fde_size(sec)))
		return sframe_reject(sec, -EFAULT, "FDE not readable");

	if (sec->version == SFRAME_VERSION_2) {
		fres_off = sframe_u32(sec, raw.v2.fres_off);
		fde->num_fres = sframe_u32(sec, raw.v2.num_fres);
		fde->info = raw.v2.info;
		fde->info2 = SFRAME_FDE_TYPE_DEFAULT;
		fde->rep_size = raw.v2.rep_size;
		if (fres_off > fres_len)
			return sframe_reject(sec, -EINVAL, "FRE offset out of bounds");
		fde->fres = fres + fres_off;
		return sframe_fde_check(sec, fde);
	}

	fres_off = sframe_u32(sec, raw.v3.fres_off);
	if (fres_off > fres_len || fres_len - fres_off < SFRAME_FDA_V3_SIZE)
		return sframe_reject(sec, -EINVAL, "FRE offset out of bounds");
	addr = fres + fres_off;
	ret = sframe_fre_buf_fill(sec, b, addr, fde->fres_end,
				  SFRAME_FDA_V3_SIZE + SFRAME_MAX_FRE_SIZE);
	if (ret)
		return ret;
	attr = b->data + (addr - b->addr);
	fde->num_fres = sframe_load(sec, u16, attr + offsetof(struct sframe_fda_v3, num_fres));
	fde->info = attr[offsetof(struct sframe_fda_v3, info)];
	fde->info2 = attr[offsetof(struct sframe_fda_v3, info2)];
	fde->rep_size = attr[offsetof(struct sframe_fda_v3, rep_size)];
	fde->fres = addr + SFRAME_FDA_V3_SIZE;
	return sframe_fde_check(sec, fde);
}

/*
 * Bytes of data words an FRE info byte announces, by all its bits but the
 * CFA base (the lowest): SFRAME_FRE_DATA_BAD for a word size or count no
 * FDE type allows.
 */
#define SFRAME_FRE_INFO_DATA(info)	((u8)(info) >> 1)
#define SFRAME_FRE_DATA_BAD		0xff
static_assert(SFRAME_FRE_CHUNK < SFRAME_FRE_DATA_BAD);

static const u8 sframe_fre_data_bytes[128] = {
	/* 1-byte words, 0 to 15 of them */
	0, 1, 2, 3, 4, 5, 6, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 2-byte words, 0 to 15 of them */
	0, 2, 4, 6, 8, 10, 12, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 4-byte words, 0 to 15 of them */
	0, 4, 8, 12, 16, 20, 24, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* word size 3: none such, 0 to 15 of them */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 1-byte words, 0 to 15 of them, RA mangled */
	0, 1, 2, 3, 4, 5, 6, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 2-byte words, 0 to 15 of them, RA mangled */
	0, 2, 4, 6, 8, 10, 12, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 4-byte words, 0 to 15 of them, RA mangled */
	0, 4, 8, 12, 16, 20, 24, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* word size 3: none such, 0 to 15 of them, RA mangled */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* Why sframe_fre_data_bytes[] refused @info */
static int sframe_fre_info_bad(struct sframe_section *sec, u8 info)
{
	if (SFRAME_FRE_INFO_DW_SIZE(info) > SFRAME_FRE_DATAWORD_4B)
		return sframe_reject(sec, -EINVAL, "data word size 3");
	return sframe_reject(sec, -EINVAL, "data word count no FDE type allows");
}

/* The start offset of the FRE at @fre, a copy */
static __always_inline u32 sframe_fre_start(const struct sframe_section *sec,
					    const u8 *fre, unsigned int addr_size)
{
	if (addr_size == 1)
		return fre[0];
	if (addr_size == 2)
		return sframe_load(sec, u16, fre);
	return sframe_load(sec, u32, fre);
}

/*
 * The bytes of data words of the FRE at @fre, a copy holding @room bytes
 * from it (at most a chunk), or an error.  SFRAME_FRE_DATA_BAD is more
 * than any room, so one test refuses both a bad info byte and an FRE cut
 * short.
 */
static __always_inline int sframe_fre_len(struct sframe_section *sec, const u8 *fre,
					  unsigned int addr_size, unsigned long room)
{
	unsigned int len;

	if (room < addr_size + 1)
		return sframe_reject(sec, -EINVAL, "FRE past the end of its sub-section");
	len = sframe_fre_data_bytes[SFRAME_FRE_INFO_DATA(fre[addr_size])];
	if (room - addr_size - 1 < len) {
		if (len == SFRAME_FRE_DATA_BAD)
			return sframe_fre_info_bad(sec, fre[addr_size]);
		return sframe_reject(sec, -EINVAL, "FRE past the end of its sub-section");
	}
	return len;
}

/*
 * The fixed part of the FRE at @addr, from its copy in @b (made if need
 * be), and where the next FRE begins.  After it, @b holds the whole FRE.
 */
static __always_inline int sframe_fre_head(struct sframe_section *sec,
					   const struct sframe_fde *fde,
					   struct sframe_fre_buf *b,
					   unsigned long addr, u32 *start,
					   u8 *info, unsigned long *next)
{
	unsigned int addr_size = 1U << SFRAME_FDE_INFO_FRE_TYPE(fde->info);
	const u8 *p;
	int len;

	if (fde->fres_end - addr < addr_size + 1)
		return sframe_reject(sec, -EINVAL, "FRE past the end of its sub-section");
	len = sframe_fre_buf_fill(sec, b, addr, fde->fres_end, SFRAME_MAX_FRE_SIZE);
	if (len)
		return len;
	p = b->data + (addr - b->addr);
	/* What the copy holds: a whole FRE, or up to the sub-section's end */
	len = sframe_fre_len(sec, p, addr_size,
			     min_t(unsigned long, fde->fres_end - addr, SFRAME_MAX_FRE_SIZE));
	if (len < 0)
		return len;
	*start = sframe_fre_start(sec, p, addr_size);
	*info = p[addr_size];
	*next = addr + addr_size + 1 + len;
	return 0;
}

/* The info byte and data words of the FRE at @fre, a copy */
static __always_inline void sframe_fre_words(const struct sframe_section *sec,
					     unsigned int addr_size, const u8 *fre,
					     struct sframe_raw_fre *raw)
{
	unsigned int words, i;
	const u8 *p = fre + addr_size + 1;

	raw->info = fre[addr_size];
	words = SFRAME_FRE_INFO_DW_COUNT(raw->info);

	for (i = 0; i < words; i++) {
		switch (SFRAME_FRE_INFO_DW_SIZE(raw->info)) {
		case SFRAME_FRE_DATAWORD_1B:
			raw->words[i] = p[i];
			break;
		case SFRAME_FRE_DATAWORD_2B:
			raw->words[i] = sframe_load(sec, u16, p + 2 * i);
			break;
		default:
			raw->words[i] = sframe_load(sec, u32, p + 4 * i);
			break;
		}
	}
}

/*
 * The FRE covering @pc_off is the last one starting at or below it.  FREs
 * have variable size, so they are read in order, from copies of up to
 * SFRAME_FRE_CHUNK bytes; their starts must rise, or the row chosen could
 * be wrong.  The match's words are taken from the copy it was found in,
 * before the next copy replaces it.  At most @n rows are read; @rows is
 * set to those read, the one that ended the search or failed included.
 * @addr_size is a constant: one loop for each FRE type.
 */
static __always_inline int sframe_scan_rows(struct sframe_section *sec,
					    const struct sframe_fde *fde,
					    struct sframe_fre_buf *b, u32 pc_off,
					    struct sframe_raw_fre *raw,
					    unsigned int n, unsigned int *rows,
					    const unsigned int addr_size)
{
	int match = -1, whole, ret;
	unsigned int i, off, len;
	s64 prev = -1;
	const u8 *p;
	u32 start;

	*rows = 0;
	ret = sframe_fre_buf_fill(sec, b, fde->fres, fde->fres_end, SFRAME_MAX_FRE_SIZE);
	if (ret)
		return ret;
	off = fde->fres - b->addr;
	/* Up to here any FRE lies whole in the copy, whatever its info says. */
	whole = b->len - SFRAME_MAX_FRE_SIZE;
	for (i = 0; i < n; i++) {
		p = b->data + off;
		if ((int)off <= whole) {
			/* Whole in the copy: the room is a constant */
			ret = sframe_fre_len(sec, p, addr_size, SFRAME_MAX_FRE_SIZE);
		} else {
			/* Short of a whole FRE, and the sub-section goes on: copy on. */
			if (b->addr + b->len < fde->fres_end) {
				if (match >= 0)
					sframe_fre_words(sec, addr_size, b->data + match, raw);
				match = -1;
				ret = sframe_fre_buf_fill(sec, b, b->addr + off, fde->fres_end,
							  SFRAME_FRE_CHUNK);
				if (ret)
					goto failed;
				off = 0;
				whole = b->len - SFRAME_MAX_FRE_SIZE;
				p = b->data;
			}
			ret = sframe_fre_len(sec, p, addr_size, b->len - off);
		}
		if (ret < 0)
			goto failed;
		len = ret;
		start = sframe_fre_start(sec, p, addr_size);
		if (start > pc_off)
			break;
		/* Past @pc_off a start cannot be at or below the one before. */
		if ((s64)start <= prev) {
			ret = sframe_reject(sec, -EINVAL, "FRE start addresses not increasing");
			goto failed;
		}
		prev = start;
		match = off;
		off += addr_size + 1 + len;
	}
	*rows = i < n ? i + 1 : i;
	if (i == n && n < fde->num_fres)
		return -E2BIG;
	/* Each FRE passed started at or below @pc_off. */
	if (!i)
		return sframe_reject(sec, -ENOENT, "no FRE covers the address");
	if (match >= 0)
		sframe_fre_words(sec, addr_size, b->data + match, raw);
	return 0;
failed:
	/* The row that failed was read too. */
	*rows = i + 1;
	return ret;
}

/*
 * Every row read is spent, whatever came of it: a function whose last row
 * is malformed must not be free to read again at every frame of a walk.
 * A lookup that reads rows at all costs at least one, so that a walk's
 * budget bounds its lookups too.
 */
static __always_inline int sframe_scan_fres(struct sframe_section *sec,
					    const struct sframe_fde *fde,
					    struct sframe_fre_buf *b, u32 pc_off,
					    struct sframe_raw_fre *raw,
					    unsigned int *budget,
					    const unsigned int addr_size)
{
	unsigned int n = min(fde->num_fres, *budget), rows;
	int ret;

	if (!*budget)
		return -E2BIG;
	ret = sframe_scan_rows(sec, fde, b, pc_off, raw, n, &rows, addr_size);
	if (ret == -E2BIG)
		*budget = 0;
	else
		*budget -= max(rows, 1U);
	return ret;
}

static int sframe_find_fre(struct sframe_section *sec, const struct sframe_fde *fde,
			   struct sframe_fre_buf *b, unsigned long ip,
			   struct sframe_raw_fre *raw, unsigned int *budget)
{
	u32 pc_off = ip - fde->func_start;

	if (SFRAME_FDE_INFO_PCTYPE(fde->info) == SFRAME_FDE_PCTYPE_MASK)
		pc_off %= fde->rep_size;
	switch (SFRAME_FDE_INFO_FRE_TYPE(fde->info)) {
	case SFRAME_FRE_TYPE_ADDR1:
		return sframe_scan_fres(sec, fde, b, pc_off, raw, budget, 1);
	case SFRAME_FRE_TYPE_ADDR2:
		return sframe_scan_fres(sec, fde, b, pc_off, raw, budget, 2);
	default:
		return sframe_scan_fres(sec, fde, b, pc_off, raw, budget, 4);
	}
}

/* Decoding the FRE that matched, from its copy */

static __always_inline s32 sframe_word(const struct sframe_raw_fre *raw, unsigned int i)
{
	switch (SFRAME_FRE_INFO_DW_SIZE(raw->info)) {
	case SFRAME_FRE_DATAWORD_1B:
		return (s8)raw->words[i];
	case SFRAME_FRE_DATAWORD_2B:
		return (s16)raw->words[i];
	default:
		return (s32)raw->words[i];
	}
}

static __always_inline int sframe_cfa_offset(struct sframe_section *sec, s32 stored, s32 *offset)
{
	s64 off = stored;

	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG)
		off = off * SFRAME_S390X_CFA_OFFSET_ALIGNMENT -
		      SFRAME_S390X_CFA_OFFSET_ADJUSTMENT;
	if (off < S32_MIN || off > S32_MAX)
		return sframe_reject(sec, -EINVAL, "CFA offset out of range");
	*offset = off;
	return 0;
}

static __always_inline void sframe_rule(struct unwind_user_rule *rule, u8 base,
					u8 regnum, bool deref, s32 offset)
{
	rule->base = base;
	rule->regnum = regnum;
	rule->deref = deref;
	rule->offset = offset;
}

/* Where a value the FRE does not mention is: the header's fixed slot or its register */
static __always_inline void sframe_default_slot(struct unwind_user_rule *rule, s8 fixed_off)
{
	if (fixed_off != SFRAME_CFA_FIXED_OFFSET_NONE)
		sframe_rule(rule, UNWIND_USER_BASE_CFA, 0, true, fixed_off);
	else
		sframe_rule(rule, UNWIND_USER_BASE_SAME, 0, false, 0);
}

/* A saved RA or FP of a default FDE */
static __always_inline int sframe_saved(struct sframe_section *sec,
					struct unwind_user_rule *rule, s32 offset,
					bool is_ra)
{
	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG) {
		if (is_ra && offset == SFRAME_FRE_RA_OFFSET_INVALID) {
			sframe_rule(rule, UNWIND_USER_BASE_SAME, 0, false, 0);
			return 0;
		}
		/* V2 s390x encodes "in register N" as the odd value 2N + 1 */
		if (sec->version == SFRAME_VERSION_2 && (offset & 1)) {
			if (offset < 0 || offset >> 1 > U8_MAX)
				return sframe_reject(sec, -EINVAL, "register number out of range");
			sframe_rule(rule, UNWIND_USER_BASE_REG, offset >> 1, false, 0);
			return 0;
		}
	}
	sframe_rule(rule, UNWIND_USER_BASE_CFA, 0, true, offset);
	return 0;
}

static __always_inline int sframe_decode_default(struct sframe_section *sec,
						 const struct sframe_raw_fre *raw,
						 struct unwind_user_frame *frame)
{
	unsigned int words = SFRAME_FRE_INFO_DW_COUNT(raw->info), fp_word;
	s32 cfa_off;
	int ret;

	ret = sframe_cfa_offset(sec, sframe_word(raw, 0), &cfa_off);
	if (ret)
		return ret;
	sframe_rule(&frame->cfa, SFRAME_FRE_INFO_CFA_BASE_SP(raw->info) ?
		    UNWIND_USER_BASE_SP : UNWIND_USER_BASE_FP, 0, false, cfa_off);

	/* With a fixed RA slot (x86_64) the FRE tracks only CFA and FP. */
	if (sec->fixed_ra_off != SFRAME_CFA_FIXED_OFFSET_NONE) {
		sframe_default_slot(&frame->ra, sec->fixed_ra_off);
		fp_word = 1;
	} else {
		fp_word = 2;
		if (words > 1)
			ret = sframe_saved(sec, &frame->ra, sframe_word(raw, 1), true);
		else
			sframe_default_slot(&frame->ra, SFRAME_CFA_FIXED_OFFSET_NONE);
		if (ret)
			return ret;
	}

	if (words > fp_word + 1)
		return sframe_reject(sec, -EINVAL, "data word count no FDE type allows");
	if (words > fp_word)
		return sframe_saved(sec, &frame->fp, sframe_word(raw, fp_word), false);
	sframe_default_slot(&frame->fp, sec->fixed_fp_off);
	return 0;
}

/* One (control, offset) pair of a flex FDE; a lone 0 control word is padding. */
static __always_inline int sframe_flex_rule(struct sframe_section *sec,
					    const struct sframe_raw_fre *raw,
					    unsigned int *word,
					    struct unwind_user_rule *rule,
					    s8 fixed_off)
{
	unsigned int words = SFRAME_FRE_INFO_DW_COUNT(raw->info);
	u32 ctl;

	if (*word >= words) {
		sframe_default_slot(rule, fixed_off);
		return 0;
	}
	ctl = raw->words[*word];
	if (ctl == SFRAME_FLEX_CTL_NONE) {
		sframe_default_slot(rule, fixed_off);
		*word += 1;
		return 0;
	}
	if (*word + 1 >= words)
		return sframe_reject(sec, -EINVAL, "flex rule without its offset");
	if (SFRAME_FLEX_CTL_REGNUM(ctl) > U8_MAX)
		return sframe_reject(sec, -EINVAL, "register number out of range");
	sframe_rule(rule, SFRAME_FLEX_CTL_REG_P(ctl) ? UNWIND_USER_BASE_REG :
		    UNWIND_USER_BASE_CFA, SFRAME_FLEX_CTL_REG_P(ctl) ?
		    SFRAME_FLEX_CTL_REGNUM(ctl) : 0, SFRAME_FLEX_CTL_DEREF(ctl),
		    sframe_word(raw, *word + 1));
	*word += 2;
	return 0;
}

/*
 * Inlined, as the rest of the decoding is, so that sframe_find_uncached()
 * calls nothing but the user copies: a frame below its own would be the
 * deepest of an NMI's walk.
 */
static __always_inline int sframe_decode_flex(struct sframe_section *sec,
					      const struct sframe_raw_fre *raw,
					      struct unwind_user_frame *frame)
{
	unsigned int words = SFRAME_FRE_INFO_DW_COUNT(raw->info), word = 2;
	u32 ctl = raw->words[0];
	s32 cfa_off;
	int ret;

	if (words < 2)
		return sframe_reject(sec, -EINVAL, "data word count no FDE type allows");
	if (!SFRAME_FLEX_CTL_REG_P(ctl))
		return sframe_reject(sec, -EINVAL, "CFA rule without a base register");
	if (SFRAME_FLEX_CTL_REGNUM(ctl) > U8_MAX)
		return sframe_reject(sec, -EINVAL, "register number out of range");
	ret = sframe_cfa_offset(sec, sframe_word(raw, 1), &cfa_off);
	if (ret)
		return ret;
	sframe_rule(&frame->cfa, UNWIND_USER_BASE_REG, SFRAME_FLEX_CTL_REGNUM(ctl),
		    SFRAME_FLEX_CTL_DEREF(ctl), cfa_off);

	ret = sframe_flex_rule(sec, raw, &word, &frame->ra, sec->fixed_ra_off);
	if (!ret)
		ret = sframe_flex_rule(sec, raw, &word, &frame->fp, sec->fixed_fp_off);
	if (ret)
		return ret;
	if (word != words)
		return sframe_reject(sec, -EINVAL, "data word count no FDE type allows");
	return 0;
}

static __always_inline int sframe_decode(struct sframe_section *sec,
					 const struct sframe_fde *fde,
					 const struct sframe_raw_fre *raw,
					 struct unwind_user_frame *frame)
{
	memset(frame, 0, sizeof(*frame));
	if (sec->version == SFRAME_VERSION_3)
		frame->signal = SFRAME_FDE_INFO_SIGNAL(fde->info);
	frame->ra_signed = SFRAME_FRE_INFO_MANGLED_RA(raw->info);
	frame->pauth_key = SFRAME_FDE_INFO_PAUTH_KEY(fde->info);

	/* No data words: the RA is undefined, this is the outermost frame. */
	if (!SFRAME_FRE_INFO_DW_COUNT(raw->info)) {
		frame->outermost = true;
		return 0;
	}
	if (SFRAME_FDE_INFO2_TYPE(fde->info2) == SFRAME_FDE_TYPE_FLEX)
		return sframe_decode_flex(sec, raw, frame);
	return sframe_decode_default(sec, raw, frame);
}

/* V3 marks a whole function outermost with a default FDE that has no FREs. */
static bool sframe_fde_outermost(const struct sframe_section *sec,
				 const struct sframe_fde *fde)
{
	return sec->version == SFRAME_VERSION_3 && !fde->num_fres &&
	       SFRAME_FDE_INFO2_TYPE(fde->info2) == SFRAME_FDE_TYPE_DEFAULT;
}

/* The set of @cache, of @sec, where @key may be */
static __always_inline struct sframe_cache_entry *
sframe_cache_set(const struct sframe_section *sec,
		 struct sframe_cache_entry *cache, u32 key)
{
	return &cache[hash_32(key, ilog2(sec->cache_sets)) * SFRAME_CACHE_WAYS];
}

/*
 * The rule cached for @key, into @frame; false if there is none (@frame
 * then holds anything).  A key that matches before the count is read is
 * checked again after: the entry may have been rewritten in between.
 */
static __always_inline bool sframe_cache_get(const struct sframe_section *sec,
					     struct sframe_cache_entry *cache,
					     u32 key, struct unwind_user_frame *frame)
{
	struct sframe_cache_entry *e = sframe_cache_set(sec, cache, key);
	u32 seq;

	if (READ_ONCE(e->key) != key && READ_ONCE((++e)->key) != key)
		return false;
	seq = READ_ONCE(e->seq);
	/* The count before the entry: pairs with cmpxchg() in the writer */
	smp_rmb();
	if ((seq & 1) || READ_ONCE(e->key) != key)
		return false;
	/* Plain copies, as seqcount readers make: the count says if they tore. */
	memcpy(frame, e->rule, sizeof(*frame));
	/* The entry before the count again: pairs with smp_store_release() */
	smp_rmb();
	return READ_ONCE(e->seq) == seq;
}

static __always_inline void sframe_cache_put(const struct sframe_section *sec,
					     struct sframe_cache_entry *cache, u32 key,
					     const struct unwind_user_frame *frame)
{
	struct sframe_cache_entry *e = sframe_cache_set(sec, cache, key);
	u32 seq;

	/* The way written to less often: the two are replaced in turn. */
	if (READ_ONCE(e[1].seq) < READ_ONCE(e[0].seq))
		e++;
	seq = READ_ONCE(e->seq);
	/* A full barrier when it succeeds: the odd count before the stores */
	if ((seq & 1) || cmpxchg(&e->seq, seq, seq + 1) != seq)
		return;
	WRITE_ONCE(e->key, key);
	memcpy(e->rule, frame, sizeof(*frame));
	/* The stores before the even count: pairs with the reader's second smp_rmb() */
	smp_store_release(&e->seq, seq + 2);
}

/*
 * A lookup the rule cache could not answer: the index, then user memory.
 * @ip is in the section's text (sframe_find() checked).  Five arguments,
 * the most s390x passes in registers: more would go on the stack of every
 * caller, below an NMI's walk.  So the cache is found again, not passed.
 */
static noinline int sframe_find_uncached(struct sframe_section *sec,
					 struct mm_struct *mm, unsigned long ip,
					 struct unwind_user_frame *frame,
					 unsigned int *budget)
{
	struct sframe_cache_entry *cache;
	struct sframe_fre_buf b __uninitialized;
	const struct sframe_index_entry *e;
	u32 off = ip - sec->text_start;
	struct sframe_raw_fre raw;
	struct sframe_fde fde;
	unsigned int lo, hi, mid;
	int ret;

	sframe_fre_buf_init(&b, sec, mm);
	if (!sec->num_fdes)
		return sframe_reject(sec, -ENOENT, "no FDE covers the address");
	/* The index is ours and sorted: no need of sframe_search()'s checks. */
	lo = sec->fast[off >> sec->fast_shift];
	hi = sec->fast[(off >> sec->fast_shift) + 1];
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sec->index[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return sframe_reject(sec, -ENOENT, "no FDE covers the address");
	e = &sec->index[lo - 1];
	if (off - e->start >= e->size)
		return sframe_reject(sec, -ENOENT, "no FDE covers the address");

	ret = sframe_fde_load(sec, e, &fde, &b);
	if (ret)
		return ret;
	if (sframe_fde_outermost(sec, &fde)) {
		raw.info = 0;
	} else {
		ret = sframe_find_fre(sec, &fde, &b, ip, &raw, budget);
		if (ret)
			return ret;
	}
	ret = sframe_decode(sec, &fde, &raw, frame);
	/* Pairs with sframe_section_cache_alloc(), as in sframe_find() */
	cache = smp_load_acquire(&sec->cache);
	if (!ret && cache)
		sframe_cache_put(sec, cache, off + 1, frame);
	return ret;
}

/**
 * sframe_find() - the frame rules of a user address
 * @sec: a section prepared by sframe_section_init().
 * @ip: the user address.
 * @frame: filled with the rules of the FRE that covers @ip.
 * @ctx: the walk the lookup serves: the address space the section lives
 *	in (@ctx->mm; NULL for the current task's) and the FREs it may still
 *	read (@ctx->budget, decremented by those it reads; UINT_MAX for no
 *	bound).
 *
 * A function may have 65,535 FREs, read in order: a walk that cannot take
 * that long (NMI) shares one budget among its lookups.  Another task's
 * section is read with access_remote_vm(), as /proc/<pid>/mem reads: pages
 * are faulted in, and a range a userfaultfd watches reads as -EFAULT
 * rather than waiting for the task that serves it.
 *
 * Context: Any context where the section's user memory may be read; with
 *	page faults disabled a page that is not resident reads as -EFAULT.
 *	With @ctx->mm, process context that may fault and sleep.
 * Return: 0 on success; -ENOENT if no FRE of the section covers @ip;
 *	-EINVAL if the part of the section it read is malformed; -EOPNOTSUPP
 *	for an FDE of a kind this kernel does not read; -EFAULT if the
 *	section cannot be read; -E2BIG when the budget ran out first, which
 *	says nothing about the section.
 */
int sframe_find(struct sframe_section *sec, unsigned long ip,
		struct unwind_user_frame *frame, struct unwind_user_ctx *ctx)
{
	/* Pairs with sframe_section_cache_alloc(): zeroed entries, cache_sets */
	struct sframe_cache_entry *cache = smp_load_acquire(&sec->cache);
	unsigned long off = ip - sec->text_start;

	/* Below the text, @off wrapped around: one test for both ends */
	if (off >= sec->text_end - sec->text_start || off >= U32_MAX)
		return sframe_reject(sec, -ENOENT, "address outside the text range");
	/* An NMI's lookup goes from the cache test straight to the search */
	if (cache && sframe_cache_get(sec, cache, off + 1, frame))
		return 0;
	return sframe_find_uncached(sec, ctx->mm, ip, frame, &ctx->budget);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_find);

/**
 * sframe_read_fde() - the FDE at a position of the section's address order
 * @sec: a section prepared by sframe_section_init().
 * @n: position, below @sec->num_fdes.
 * @fde: filled with the decoded FDE.
 *
 * For tools and validation that visit every FDE; lookups use sframe_find().
 *
 * Context: Process context; may fault.
 * Return: 0, or the errors of sframe_find().
 */
int sframe_read_fde(struct sframe_section *sec, unsigned int n,
		    struct sframe_fde *fde)
{
	struct sframe_fre_buf b __uninitialized;

	if (n >= sec->num_fdes)
		return sframe_reject(sec, -ENOENT, "no such FDE");
	sframe_fre_buf_init(&b, sec, NULL);
	return sframe_fde_load(sec, &sec->index[n], fde, &b);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_read_fde);

/**
 * sframe_read_fre() - decode the FRE at a user address
 * @sec: a section prepared by sframe_section_init().
 * @fde: the FDE the FRE belongs to, from sframe_read_fde().
 * @fre_addr: user address of the FRE: @fde->fres for the first one, then
 *	@fre->next of the previous one.
 * @fre: filled with the decoded FRE.
 *
 * Context: Process context; may fault.
 * Return: 0, or the errors of sframe_find().
 */
int sframe_read_fre(struct sframe_section *sec, const struct sframe_fde *fde,
		    unsigned long fre_addr, struct sframe_fre *fre)
{
	struct sframe_fre_buf b __uninitialized;
	struct sframe_raw_fre raw;
	int ret;

	if (fre_addr < fde->fres || fre_addr >= fde->fres_end)
		return sframe_reject(sec, -EINVAL, "FRE past the end of its sub-section");
	sframe_fre_buf_init(&b, sec, NULL);
	ret = sframe_fre_head(sec, fde, &b, fre_addr, &fre->start, &raw.info, &fre->next);
	if (ret)
		return ret;
	sframe_fre_words(sec, 1U << SFRAME_FDE_INFO_FRE_TYPE(fde->info),
			 b.data + (fre_addr - b.addr), &raw);
	fre->info = raw.info;
	return sframe_decode(sec, fde, &raw, &fre->frame);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_read_fre);

/**
 * sframe_section_validate() - read every FDE and FRE of a section once
 * @sec: a section prepared by sframe_section_init().
 *
 * Lookups check only what they read.  This reads everything, so that a
 * section malformed anywhere is refused when it is registered rather than
 * at the lookup that stumbles on it, at the price of one pass over it.
 *
 * Context: Process context; may fault and sleep.
 * Return: 0, or the first error sframe_read_fde() or sframe_read_fre()
 *	gave, -EINVAL for FREs out of order, -EINTR if the task is killed.
 */
int sframe_section_validate(struct sframe_section *sec)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned long addr;
	unsigned int i, j;
	u32 prev = 0;
	int ret;

	for (i = 0; i < sec->num_fdes; i++) {
		ret = sframe_read_fde(sec, i, &fde);
		if (ret)
			return ret;
		addr = fde.fres;
		for (j = 0; j < fde.num_fres; j++) {
			ret = sframe_read_fre(sec, &fde, addr, &fre);
			if (ret)
				return ret;
			if (j && fre.start <= prev)
				return sframe_reject(sec, -EINVAL, "FREs out of order");
			prev = fre.start;
			addr = fre.next;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_validate);
