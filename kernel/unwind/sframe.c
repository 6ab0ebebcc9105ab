// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame reader: the frame rules of a user address, from an SFrame V2 or V3
 * section that lives in the user address space.
 *
 * The section belongs to the process and may hold anything, so every byte
 * is read with fault-tolerant user accesses and checked against the bounds
 * its headers give before it is used, every loop is bounded by a count
 * that was checked against those bounds, and nothing here warns or prints.
 * Callers get -ENOENT (the address is not described), -EINVAL (malformed),
 * -EFAULT (not readable) or -EOPNOTSUPP (a format or ABI this kernel does
 * not read); sec->reason names the problem in a few words.
 *
 * A linked program has one element with its FDEs sorted: lookups
 * binary-search its FDE table in user memory.  Anything else (unsorted FDEs,
 * several concatenated elements) gets a sorted index in kernel memory,
 * charged to the process.
 */
#include "sframe_internal.h"

#define SFRAME_HDR_SIZE		sizeof(struct sframe_header)
#define SFRAME_FDA_V3_SIZE	sizeof(struct sframe_fda_v3)
/* Flex FDEs use at most three (control, offset) pairs */
#define SFRAME_MAX_DATA_WORDS	6
/* ld -r aligns each concatenated element to at most 8 bytes */
#define SFRAME_ELEMENT_ALIGN	8

/*
 * One FDE of an indexed section.  Offsets count from sframe_start, which
 * works because sections larger than 4 GiB are refused.
 */
struct sframe_index_entry {
	unsigned long	func_start;
	u32		func_size;
	u32		fde_off;
	u32		elem_off;
	u32		fres_off;
	u32		fres_len;
};

/* Where one element's parts are */
struct sframe_element {
	unsigned long	start;
	unsigned long	fdes;
	unsigned long	fres;
	unsigned long	fres_end;
	unsigned int	num_fdes;
};

/* The FRE that matched, copied out of user memory before it is decoded */
struct sframe_raw_fre {
	u8	info;
	u32	words[SFRAME_MAX_DATA_WORDS];
};

static __always_inline int sframe_reject(struct sframe_section *sec, int err,
					 const char *reason)
{
	WRITE_ONCE(sec->reason, reason);
	return err;
}

/* Puts a value read from the section into host byte order. */
static __always_inline void sframe_fix_order(const struct sframe_section *sec,
					     void *value, unsigned int size)
{
	if (!SFRAME_READS_FOREIGN || !sec->foreign_endian)
		return;
	switch (size) {
	case 2:
		*(u16 *)value = swab16(*(u16 *)value);
		break;
	case 4:
		*(u32 *)value = swab32(*(u32 *)value);
		break;
	case 8:
		*(u64 *)value = swab64(*(u64 *)value);
		break;
	}
}

static __always_inline u32 sframe_u32(const struct sframe_section *sec, u32 value)
{
	sframe_fix_order(sec, &value, sizeof(value));
	return value;
}

static __always_inline u64 sframe_u64(const struct sframe_section *sec, u64 value)
{
	sframe_fix_order(sec, &value, sizeof(value));
	return value;
}

/* One field from inside an open user-access window. */
#define sframe_get(sec, x, addr, label)					\
do {									\
	typeof(x) *__dst = &(x);					\
									\
	unsafe_get_user(*__dst, (typeof(x) __user *)(addr), label);	\
	sframe_fix_order(sec, __dst, sizeof(*__dst));			\
} while (0)

static __always_inline unsigned int sframe_fde_size(const struct sframe_section *sec)
{
	return sec->version == SFRAME_VERSION_2 ? sizeof(struct sframe_fde_v2) :
						  sizeof(struct sframe_fde_v3);
}

/* @field is the user address of the start field; @elem_start its element. */
static __always_inline unsigned long sframe_func_start(const struct sframe_section *sec,
						       unsigned long elem_start,
						       unsigned long field, s64 value)
{
	if (sec->flags & SFRAME_F_FDE_FUNC_START_PCREL)
		return field + value;
	return elem_start + value;
}

static int sframe_parse_header(struct sframe_section *sec, unsigned long addr,
			       unsigned long end, bool first,
			       struct sframe_element *elem)
{
	struct sframe_header hdr;
	unsigned long hdr_end, fdes_end;
	const char *mismatch;
	bool foreign = false;
	u8 allowed_flags;

	if (end - addr < SFRAME_HDR_SIZE)
		return sframe_reject(sec, -EINVAL, "truncated header");
	if (copy_from_user(&hdr, (void __user *)addr, sizeof(hdr)))
		return sframe_reject(sec, -EFAULT, "header not readable");

	if (hdr.preamble.magic == swab16(SFRAME_MAGIC)) {
		if (!SFRAME_READS_FOREIGN)
			return sframe_reject(sec, -EOPNOTSUPP, "foreign byte order");
		foreign = true;
	} else if (hdr.preamble.magic != SFRAME_MAGIC) {
		return sframe_reject(sec, -EINVAL, "bad magic");
	}

	switch (hdr.preamble.version) {
	case SFRAME_VERSION_2:
		allowed_flags = SFRAME_V2_F_ALL;
		break;
	case SFRAME_VERSION_3:
		allowed_flags = SFRAME_V3_F_ALL;
		break;
	case SFRAME_VERSION_1:
		return sframe_reject(sec, -EOPNOTSUPP, "obsolete version 1");
	default:
		return sframe_reject(sec, -EOPNOTSUPP, "unknown version");
	}
	if (hdr.preamble.flags & ~allowed_flags)
		return sframe_reject(sec, -EOPNOTSUPP, "flags the version does not define");
	if (hdr.abi_arch < SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	    hdr.abi_arch > SFRAME_ABI_S390X_ENDIAN_BIG)
		return sframe_reject(sec, -EOPNOTSUPP, "unknown ABI");
	mismatch = sframe_abi_mismatch(hdr.abi_arch, foreign);
	if (mismatch)
		return sframe_reject(sec, -EOPNOTSUPP, mismatch);

	if (first) {
		sec->version = hdr.preamble.version;
		sec->flags = hdr.preamble.flags;
		sec->abi = hdr.abi_arch;
		sec->fixed_fp_off = hdr.cfa_fixed_fp_offset;
		sec->fixed_ra_off = hdr.cfa_fixed_ra_offset;
		sec->foreign_endian = foreign;
	} else if (sec->version != hdr.preamble.version ||
		   sec->abi != hdr.abi_arch ||
		   sec->foreign_endian != foreign ||
		   sec->fixed_fp_off != hdr.cfa_fixed_fp_offset ||
		   sec->fixed_ra_off != hdr.cfa_fixed_ra_offset ||
		   (sec->flags ^ hdr.preamble.flags) & SFRAME_F_FDE_FUNC_START_PCREL) {
		return sframe_reject(sec, -EINVAL, "elements of one section disagree");
	} else if (!(hdr.preamble.flags & SFRAME_F_FDE_SORTED)) {
		sec->flags &= ~SFRAME_F_FDE_SORTED;
	}

	/* All sums below stay far from overflow: each term is below 2^37. */
	hdr_end = addr + SFRAME_HDR_SIZE + hdr.auxhdr_len;
	elem->start = addr;
	elem->num_fdes = sframe_u32(sec, hdr.num_fdes);
	elem->fdes = hdr_end + sframe_u32(sec, hdr.fdes_off);
	elem->fres = hdr_end + sframe_u32(sec, hdr.fres_off);
	elem->fres_end = elem->fres + sframe_u32(sec, hdr.fre_len);
	fdes_end = elem->fdes + (unsigned long)elem->num_fdes * sframe_fde_size(sec);

	if (hdr_end > end)
		return sframe_reject(sec, -EINVAL, "truncated auxiliary header");
	if (fdes_end > end)
		return sframe_reject(sec, -EINVAL, "FDE sub-section out of bounds");
	if (elem->fres_end > end)
		return sframe_reject(sec, -EINVAL, "FRE sub-section out of bounds");
	if (fdes_end > elem->fres)
		return sframe_reject(sec, -EINVAL, "FDE and FRE sub-sections overlap");
	return 0;
}

/*
 * Another element may follow an element, after padding to its alignment.
 * Anything else after the data is not ours: a PT_GNU_SFRAME segment may be
 * larger than the section it holds.
 */
static bool sframe_next_element(struct sframe_section *sec, unsigned long *addr,
				unsigned long elem_end, unsigned long end)
{
	unsigned long last = ALIGN(elem_end, SFRAME_ELEMENT_ALIGN);
	u16 magic;

	for (*addr = elem_end; *addr <= last && end - *addr >= SFRAME_HDR_SIZE; (*addr)++) {
		if (get_user(magic, (u16 __user *)*addr))
			return false;
		sframe_fix_order(sec, &magic, sizeof(magic));
		if (magic == SFRAME_MAGIC)
			return true;
	}
	return false;
}

static int sframe_index_cmp(const void *a, const void *b)
{
	const struct sframe_index_entry *x = a, *y = b;

	if (x->func_start != y->func_start)
		return x->func_start < y->func_start ? -1 : 1;
	return 0;
}

/* Index the FDEs of @elem, whose header was read once, into @entry[]. */
static int sframe_index_element(struct sframe_section *sec,
				const struct sframe_element *elem,
				struct sframe_index_entry *entry)
{
	unsigned int fde_size = sframe_fde_size(sec), i;
	unsigned long addr = elem->fdes;
	union {
		struct sframe_fde_v2 v2;
		struct sframe_fde_v3 v3;
	} raw;
	s64 start;
	u32 size;

	for (i = 0; i < elem->num_fdes; i++, addr += fde_size, entry++) {
		if (copy_from_user(&raw, (void __user *)addr, fde_size))
			return sframe_reject(sec, -EFAULT, "FDE not readable");
		if (sec->version == SFRAME_VERSION_2) {
			start = (s32)sframe_u32(sec, raw.v2.func_start);
			size = sframe_u32(sec, raw.v2.func_size);
		} else {
			start = (s64)sframe_u64(sec, raw.v3.func_start);
			size = sframe_u32(sec, raw.v3.func_size);
		}
		entry->func_start = sframe_func_start(sec, elem->start, addr, start);
		entry->func_size = size;
		entry->fde_off = addr - sec->sframe_start;
		entry->elem_off = elem->start - sec->sframe_start;
		entry->fres_off = elem->fres - sec->sframe_start;
		entry->fres_len = elem->fres_end - elem->fres;
	}
	return 0;
}

/* @index, holding @done entries, moved to room for @n; NULL if none */
static struct sframe_index_entry *
sframe_index_resize(struct sframe_index_entry *index, unsigned int done,
		    unsigned int n)
{
	struct sframe_index_entry *moved;

	moved = kvmalloc_array(n, sizeof(*moved), GFP_KERNEL_ACCOUNT);
	if (!moved)
		return NULL;
	if (done)
		memcpy(moved, index, done * sizeof(*moved));
	kvfree(index);
	return moved;
}

/*
 * Make room for @need entries in @*index, which holds @done and has room
 * for @*room.  The index grows as elements are read, so that each header
 * is read once; it stays within what the caller allows the section to
 * hold, checked before anything is allocated.
 */
static int sframe_index_reserve(struct sframe_section *sec,
				struct sframe_index_entry **index,
				unsigned int done, unsigned int *room,
				unsigned int need, size_t max_bytes)
{
	struct sframe_index_entry *bigger;
	unsigned int n;

	if (need <= *room)
		return 0;
	if (need > SFRAME_MAX_INDEX_FDES)
		return sframe_reject(sec, -E2BIG, "too many FDEs to index");
	if (need > max_bytes / sizeof(*bigger))
		return sframe_reject(sec, -EDQUOT, "FDE index over the allowance");
	n = max(need, min_t(unsigned int, 2 * *room, SFRAME_MAX_INDEX_FDES));
	n = min_t(size_t, n, max_bytes / sizeof(*bigger));
	bigger = sframe_index_resize(*index, done, n);
	if (!bigger)
		return sframe_reject(sec, -ENOMEM, "no memory for the FDE index");
	*index = bigger;
	*room = n;
	return 0;
}

/*
 * Index every FDE of every element, from @elem, the first, whose header
 * sframe_section_init() read; @next is where the next element starts, or
 * 0.  What a header said is used from the one read of it: the section is
 * in memory the process may change at any time.
 */
static int sframe_build_index(struct sframe_section *sec,
			      struct sframe_element *elem, unsigned long next,
			      unsigned long end, size_t max_bytes)
{
	struct sframe_index_entry *index = NULL, *exact;
	unsigned int done = 0, room = 0, elements = 1, i;
	int ret;

	for (;;) {
		/* Parsed headers fit in 4 GiB: the sum cannot wrap. */
		ret = sframe_index_reserve(sec, &index, done, &room,
					   done + elem->num_fdes, max_bytes);
		/* An element of no FDEs may come before any index exists. */
		if (!ret && elem->num_fdes)
			ret = sframe_index_element(sec, elem, index + done);
		if (ret)
			goto err;
		done += elem->num_fdes;
		sec->sframe_end = elem->fres_end;
		if (!next)
			break;
		if (++elements > SFRAME_MAX_ELEMENTS) {
			ret = sframe_reject(sec, -E2BIG, "too many elements");
			goto err;
		}
		ret = sframe_parse_header(sec, next, end, false, elem);
		if (ret)
			goto err;
		if (!sframe_next_element(sec, &next, elem->fres_end, end))
			next = 0;
	}

	/* Not one FDE: nothing to search, whatever the layout. */
	sec->num_fdes = done;
	if (!done)
		return 0;
	/* The memory charged is what the section reports it holds. */
	if (room > done) {
		exact = sframe_index_resize(index, done, done);
		if (!exact) {
			ret = sframe_reject(sec, -ENOMEM, "no memory for the FDE index");
			goto err;
		}
		index = exact;
	}
	sort(index, done, sizeof(*index), sframe_index_cmp, NULL);
	for (i = 1; i < done; i++) {
		if (index[i - 1].func_start + index[i - 1].func_size > index[i].func_start) {
			ret = sframe_reject(sec, -EINVAL, "overlapping FDEs");
			goto err;
		}
	}
	sec->index = index;
	return 0;
err:
	kvfree(index);
	return ret;
}

/**
 * sframe_section_init() - check an SFrame section and prepare lookups in it
 * @sec: the section to fill in.
 * @sframe_start: user address of the section.
 * @sframe_size: bytes available there; the data the headers describe may
 *	be shorter (PT_GNU_SFRAME segments can be larger than the section).
 * @text_start: start of the code the section describes.
 * @text_end: end of that code; lookups outside [@text_start, @text_end)
 *	are not covered.
 * @max_bytes: kernel memory the section may take (its FDE index).
 *
 * Reads every element header once, checks that the parts they describe
 * fit in the section, and builds a sorted FDE index in kernel memory when
 * the section is not one element with sorted FDEs.
 *
 * Context: Process context with the address space's user memory mapped;
 *	may fault and sleep.
 * Return: 0 on success; -EINVAL for a malformed section, -EOPNOTSUPP for
 *	one of a version, byte order, ABI or flags this kernel does not read,
 *	-EFAULT if it cannot be read, -E2BIG or -ENOMEM if it is too large to
 *	index, -EDQUOT if its index would take more than @max_bytes.
 *	@sec->reason says which problem it was.
 */
int sframe_section_init(struct sframe_section *sec, unsigned long sframe_start,
			unsigned long sframe_size, unsigned long text_start,
			unsigned long text_end, size_t max_bytes)
{
	struct sframe_element elem;
	unsigned long next, end = sframe_start + sframe_size;
	int ret;

	memset(sec, 0, sizeof(*sec));
	if (sframe_size > U32_MAX || end < sframe_start)
		return sframe_reject(sec, -EINVAL, "section too large");
	/* No user address is this high; below it no offset sum can wrap. */
	if (sframe_start > LONG_MAX)
		return sframe_reject(sec, -EINVAL, "section above user addresses");
	if (text_start >= text_end)
		return sframe_reject(sec, -EINVAL, "empty text range");
	sec->sframe_start = sframe_start;
	sec->text_start = text_start;
	sec->text_end = text_end;

	ret = sframe_parse_header(sec, sframe_start, end, true, &elem);
	if (ret)
		return ret;
	sec->fdes = elem.fdes;
	sec->fres = elem.fres;
	sec->fres_end = elem.fres_end;
	sec->num_fdes = elem.num_fdes;
	sec->sframe_end = elem.fres_end;
	/* An element ends after its header, so no next one starts at 0. */
	if (!sframe_next_element(sec, &next, elem.fres_end, end)) {
		if (sec->flags & SFRAME_F_FDE_SORTED)
			return 0;
		next = 0;
	}
	return sframe_build_index(sec, &elem, next, end, max_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_init);

/**
 * sframe_section_release() - free what sframe_section_init() allocated
 * @sec: the section; it must not be used for lookups afterwards.
 */
void sframe_section_release(struct sframe_section *sec)
{
	kvfree(sec->index);
	sec->index = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_release);

/**
 * sframe_section_copy() - duplicate a prepared section for another process
 * @dst: the copy.
 * @src: a section sframe_section_init() accepted.
 *
 * A forked child's memory holds the same section at the same address, so
 * only the kernel-side index needs copying.
 *
 * Return: 0, or -ENOMEM with @dst holding nothing to release.
 */
int sframe_section_copy(struct sframe_section *dst,
			const struct sframe_section *src)
{
	*dst = *src;
	if (!src->index)
		return 0;
	dst->index = kvmemdup(src->index, sframe_section_bytes(src),
			      GFP_KERNEL_ACCOUNT);
	return dst->index ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_copy);

/**
 * sframe_section_bytes() - kernel memory a prepared section holds
 * @sec: the section.
 *
 * Return: bytes of its FDE index, 0 when it has none.
 */
size_t sframe_section_bytes(const struct sframe_section *sec)
{
	if (!sec->index)
		return 0;
	return max(sec->num_fdes, 1U) * sizeof(*sec->index);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_bytes);

/*
 * Everything from here to sframe_find() runs inside one user-access window
 * over the whole section: always inline, no calls, and each helper ends on
 * its own fault label.
 */

/* sframe_search() callbacks: the start of the i-th FDE, by index or table */
static __always_inline int sframe_index_start(void *data, unsigned int i,
					      unsigned long *start)
{
	const struct sframe_section *sec = data;

	*start = sec->index[i].func_start;
	return 0;
}

static __always_inline int __sframe_fde_start(void *data, unsigned int i,
					      unsigned long *start)
{
	struct sframe_section *sec = data;
	unsigned long addr = sec->fdes + (unsigned long)i * sframe_fde_size(sec);
	s64 value;

	if (sec->version == SFRAME_VERSION_2) {
		s32 v2;

		sframe_get(sec, v2, addr, efault);
		value = v2;
	} else {
		sframe_get(sec, value, addr, efault);
	}
	*start = sframe_func_start(sec, sec->sframe_start, addr, value);
	return 0;
efault:
	return sframe_reject(sec, -EFAULT, "FDE not readable");
}

static __always_inline int __sframe_read_fde(struct sframe_section *sec,
					     const struct sframe_element *elem,
					     unsigned long addr, struct sframe_fde *fde)
{
	unsigned long fres_len = elem->fres_end - elem->fres;
	u32 fres_off;

	fde->fres_end = elem->fres_end;
	if (sec->version == SFRAME_VERSION_2) {
		s32 start;
		u32 num_fres;

		sframe_get(sec, start, addr, efault);
		sframe_get(sec, fde->func_size, addr + 4, efault);
		sframe_get(sec, fres_off, addr + 8, efault);
		sframe_get(sec, num_fres, addr + 12, efault);
		sframe_get(sec, fde->info, addr + 16, efault);
		sframe_get(sec, fde->rep_size, addr + 17, efault);
		fde->info2 = SFRAME_FDE_TYPE_DEFAULT;
		fde->num_fres = num_fres;
		fde->func_start = sframe_func_start(sec, elem->start, addr, start);
		if (fres_off > fres_len)
			return sframe_reject(sec, -EINVAL, "FRE offset out of bounds");
		fde->fres = elem->fres + fres_off;
	} else {
		unsigned long attr;
		s64 start;
		u16 num_fres;

		sframe_get(sec, start, addr, efault);
		sframe_get(sec, fde->func_size, addr + 8, efault);
		sframe_get(sec, fres_off, addr + 12, efault);
		fde->func_start = sframe_func_start(sec, elem->start, addr, start);
		if (fres_off > fres_len || fres_len - fres_off < SFRAME_FDA_V3_SIZE)
			return sframe_reject(sec, -EINVAL, "FRE offset out of bounds");
		attr = elem->fres + fres_off;
		sframe_get(sec, num_fres, attr, efault);
		sframe_get(sec, fde->info, attr + 2, efault);
		sframe_get(sec, fde->info2, attr + 3, efault);
		sframe_get(sec, fde->rep_size, attr + 4, efault);
		fde->num_fres = num_fres;
		fde->fres = attr + SFRAME_FDA_V3_SIZE;
	}

	if (fde->func_start + fde->func_size < fde->func_start)
		return sframe_reject(sec, -EINVAL, "function wraps around");
	if (fde->num_fres > SFRAME_MAX_FRES_PER_FDE)
		return sframe_reject(sec, -EINVAL, "too many FREs in one FDE");
	if (SFRAME_FDE_INFO_FRE_TYPE(fde->info) > SFRAME_FRE_TYPE_ADDR4)
		return sframe_reject(sec, -EOPNOTSUPP, "unknown FRE type");
	if (SFRAME_FDE_INFO2_TYPE(fde->info2) > SFRAME_FDE_TYPE_FLEX)
		return sframe_reject(sec, -EOPNOTSUPP, "unknown FDE type");
	if (SFRAME_FDE_INFO_PCTYPE(fde->info) == SFRAME_FDE_PCTYPE_MASK && !fde->rep_size)
		return sframe_reject(sec, -EINVAL, "repeat block of size 0");
	return 0;
efault:
	return sframe_reject(sec, -EFAULT, "FDE not readable");
}

/* The FDE at position @n of the section's address order, and its element */
static __always_inline unsigned long sframe_fde_at(const struct sframe_section *sec,
						   unsigned int n,
						   struct sframe_element *elem)
{
	const struct sframe_index_entry *e;

	if (!sec->index) {
		elem->start = sec->sframe_start;
		elem->fres = sec->fres;
		elem->fres_end = sec->fres_end;
		return sec->fdes + (unsigned long)n * sframe_fde_size(sec);
	}
	e = &sec->index[n];
	elem->start = sec->sframe_start + e->elem_off;
	elem->fres = sec->sframe_start + e->fres_off;
	elem->fres_end = elem->fres + e->fres_len;
	return sec->sframe_start + e->fde_off;
}

static __always_inline int __sframe_find_fde(struct sframe_section *sec,
					     unsigned long ip, struct sframe_fde *fde)
{
	struct sframe_element elem;
	unsigned long addr, next_start, prev_start;
	unsigned int i = 0;
	u32 prev_size;
	int ret;

	/* One call per callback, so that each is inlined in the window */
	if (sec->index)
		ret = sframe_search(sec->num_fdes, ip, sframe_index_start, sec, &i);
	else
		ret = sframe_search(sec->num_fdes, ip, __sframe_fde_start, sec, &i);
	if (ret == -ENOENT)
		return sframe_reject(sec, ret, "no FDE covers the address");
	if (ret == -EINVAL)
		return sframe_reject(sec, ret, "FDEs not sorted");
	if (ret)
		return ret;
	addr = sframe_fde_at(sec, i, &elem);

	ret = __sframe_read_fde(sec, &elem, addr, fde);
	if (ret)
		return ret;
	/* What the index was checked with, not a second read that may differ */
	if (sec->index) {
		fde->func_start = sec->index[i].func_start;
		fde->func_size = sec->index[i].func_size;
	}
	if (ip - fde->func_start >= fde->func_size)
		return sframe_reject(sec, -ENOENT, "no FDE covers the address");
	if (sec->index)
		return 0;

	/* The index was checked for overlaps when built; the table was not. */
	if (i + 1 < sec->num_fdes) {
		ret = __sframe_fde_start(sec, i + 1, &next_start);
		if (ret)
			return ret;
		if (next_start < fde->func_start + fde->func_size)
			return sframe_reject(sec, -EINVAL, "overlapping FDEs");
	}
	if (i > 0) {
		ret = __sframe_fde_start(sec, i - 1, &prev_start);
		if (ret)
			return ret;
		addr -= sframe_fde_size(sec);
		addr += sec->version == SFRAME_VERSION_2 ? 4 : 8;
		sframe_get(sec, prev_size, addr, efault);
		if (prev_start + prev_size > fde->func_start)
			return sframe_reject(sec, -EINVAL, "overlapping FDEs");
	}
	return 0;
efault:
	return sframe_reject(sec, -EFAULT, "FDE not readable");
}

/* Reads the fixed part of the FRE at @addr and finds where the next begins. */
static __always_inline int __sframe_read_fre_head(struct sframe_section *sec,
						  const struct sframe_fde *fde,
						  unsigned long addr, u32 *start,
						  u8 *info, unsigned long *next)
{
	unsigned int addr_size = 1U << SFRAME_FDE_INFO_FRE_TYPE(fde->info);
	unsigned int words, word_size;

	if (fde->fres_end - addr < addr_size + 1)
		return sframe_reject(sec, -EINVAL, "FRE past the end of its sub-section");
	switch (addr_size) {
	case 1: {
		u8 v;

		sframe_get(sec, v, addr, efault);
		*start = v;
		break;
	}
	case 2: {
		u16 v;

		sframe_get(sec, v, addr, efault);
		*start = v;
		break;
	}
	default:
		sframe_get(sec, *start, addr, efault);
		break;
	}
	sframe_get(sec, *info, addr + addr_size, efault);

	if (SFRAME_FRE_INFO_DW_SIZE(*info) > SFRAME_FRE_DATAWORD_4B)
		return sframe_reject(sec, -EINVAL, "data word size 3");
	word_size = 1U << SFRAME_FRE_INFO_DW_SIZE(*info);
	words = SFRAME_FRE_INFO_DW_COUNT(*info);
	if (fde->fres_end - addr - addr_size - 1 < words * word_size)
		return sframe_reject(sec, -EINVAL, "FRE past the end of its sub-section");
	*next = addr + addr_size + 1 + words * word_size;
	return 0;
efault:
	return sframe_reject(sec, -EFAULT, "FRE not readable");
}

static __always_inline int __sframe_read_words(struct sframe_section *sec,
					       unsigned long addr,
					       struct sframe_raw_fre *raw)
{
	unsigned int words = SFRAME_FRE_INFO_DW_COUNT(raw->info), i;

	if (words > SFRAME_MAX_DATA_WORDS)
		return sframe_reject(sec, -EINVAL, "data word count no FDE type allows");
	for (i = 0; i < words; i++) {
		switch (SFRAME_FRE_INFO_DW_SIZE(raw->info)) {
		case SFRAME_FRE_DATAWORD_1B: {
			u8 v;

			sframe_get(sec, v, addr + i, efault);
			raw->words[i] = v;
			break;
		}
		case SFRAME_FRE_DATAWORD_2B: {
			u16 v;

			sframe_get(sec, v, addr + 2 * i, efault);
			raw->words[i] = v;
			break;
		}
		default:
			sframe_get(sec, raw->words[i], addr + 4 * i, efault);
			break;
		}
	}
	return 0;
efault:
	return sframe_reject(sec, -EFAULT, "FRE not readable");
}

/*
 * The FRE covering @ip is the last one starting at or below its offset in
 * the function.  FREs have variable size, so they are read in order; their
 * starts must rise, or the row chosen could be wrong.
 */
static __always_inline int __sframe_find_fre(struct sframe_section *sec,
					     const struct sframe_fde *fde,
					     unsigned long ip,
					     struct sframe_raw_fre *raw,
					     unsigned int *budget)
{
	unsigned long addr = fde->fres, next, match = 0;
	u32 pc_off = ip - fde->func_start, start, prev = 0;
	unsigned int i;
	u8 info;
	int ret;

	if (SFRAME_FDE_INFO_PCTYPE(fde->info) == SFRAME_FDE_PCTYPE_MASK)
		pc_off %= fde->rep_size;

	for (i = 0; i < fde->num_fres; i++, addr = next) {
		/* The caller's limit, not the section's fault: no reason set */
		if (!*budget)
			return -E2BIG;
		--*budget;
		ret = __sframe_read_fre_head(sec, fde, addr, &start, &info, &next);
		if (ret)
			return ret;
		if (i && start <= prev)
			return sframe_reject(sec, -EINVAL, "FRE start addresses not increasing");
		if (start > pc_off)
			break;
		prev = start;
		match = addr;
		raw->info = info;
	}
	if (!match)
		return sframe_reject(sec, -ENOENT, "no FRE covers the address");

	match += (1U << SFRAME_FDE_INFO_FRE_TYPE(fde->info)) + 1;
	return __sframe_read_words(sec, match, raw);
}

/* The rest runs outside the user-access window: decoding, no user access. */

static s32 sframe_word(const struct sframe_raw_fre *raw, unsigned int i)
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

static int sframe_cfa_offset(struct sframe_section *sec, s32 stored, s32 *offset)
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

static void sframe_rule(struct unwind_user_rule *rule, u8 base, u8 regnum,
			bool deref, s32 offset)
{
	rule->base = base;
	rule->regnum = regnum;
	rule->deref = deref;
	rule->offset = offset;
}

/* Where a value the FRE does not mention is: the header's fixed slot or its register */
static void sframe_default_slot(struct unwind_user_rule *rule, s8 fixed_off)
{
	if (fixed_off != SFRAME_CFA_FIXED_OFFSET_NONE)
		sframe_rule(rule, UNWIND_USER_BASE_CFA, 0, true, fixed_off);
	else
		sframe_rule(rule, UNWIND_USER_BASE_SAME, 0, false, 0);
}

/* A saved RA or FP of a default FDE */
static int sframe_saved(struct sframe_section *sec, struct unwind_user_rule *rule,
			s32 offset, bool is_ra)
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

static int sframe_decode_default(struct sframe_section *sec,
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
static int sframe_flex_rule(struct sframe_section *sec,
			    const struct sframe_raw_fre *raw, unsigned int *word,
			    struct unwind_user_rule *rule, s8 fixed_off)
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

static int sframe_decode_flex(struct sframe_section *sec,
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

static int sframe_decode(struct sframe_section *sec, const struct sframe_fde *fde,
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

/* Opens the window the __sframe_*() helpers read in: inline, so no call returns with it open. */
static __always_inline bool sframe_open(struct sframe_section *sec)
{
	return user_read_access_begin((void __user *)sec->sframe_start,
				      sec->sframe_end - sec->sframe_start);
}

/**
 * sframe_find_bounded() - the frame rules of a user address, reading at
 *	most a given number of FREs
 * @sec: a section prepared by sframe_section_init().
 * @ip: the user address.
 * @frame: filled with the rules of the FRE that covers @ip.
 * @budget: FREs the lookup may still read; decremented by those it reads.
 *
 * A function may have 65,535 FREs, read in order: callers that cannot
 * take that long (NMI) share one budget among the lookups of a walk.
 *
 * Context: As sframe_find().
 * Return: as sframe_find(); -E2BIG when @budget ran out first, which says
 *	nothing about the section.
 */
int sframe_find_bounded(struct sframe_section *sec, unsigned long ip,
			struct unwind_user_frame *frame, unsigned int *budget)
{
	struct sframe_raw_fre raw;
	struct sframe_fde fde;
	int ret;

	if (ip < sec->text_start || ip >= sec->text_end)
		return sframe_reject(sec, -ENOENT, "address outside the text range");
	if (!sframe_open(sec))
		return sframe_reject(sec, -EFAULT, "section not accessible");
	ret = __sframe_find_fde(sec, ip, &fde);
	if (!ret) {
		if (sframe_fde_outermost(sec, &fde))
			raw.info = 0;
		else
			ret = __sframe_find_fre(sec, &fde, ip, &raw, budget);
	}
	user_read_access_end();
	if (ret)
		return ret;
	return sframe_decode(sec, &fde, &raw, frame);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_find_bounded);

/**
 * sframe_find() - the frame rules of a user address
 * @sec: a section prepared by sframe_section_init().
 * @ip: the user address.
 * @frame: filled with the rules of the FRE that covers @ip.
 *
 * Context: Any context where the section's user memory may be read; with
 *	page faults disabled a page that is not resident reads as -EFAULT.
 * Return: 0 on success; -ENOENT if no FRE of the section covers @ip;
 *	-EINVAL if the part of the section it read is malformed; -EOPNOTSUPP
 *	for an FDE of a kind this kernel does not read; -EFAULT if the
 *	section cannot be read.
 */
int sframe_find(struct sframe_section *sec, unsigned long ip,
		struct unwind_user_frame *frame)
{
	unsigned int budget = UINT_MAX;

	return sframe_find_bounded(sec, ip, frame, &budget);
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
	struct sframe_element elem;
	unsigned long addr;
	int ret;

	if (n >= sec->num_fdes)
		return sframe_reject(sec, -ENOENT, "no such FDE");
	addr = sframe_fde_at(sec, n, &elem);
	if (!sframe_open(sec))
		return sframe_reject(sec, -EFAULT, "section not accessible");
	ret = __sframe_read_fde(sec, &elem, addr, fde);
	user_read_access_end();
	return ret;
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
	struct sframe_raw_fre raw;
	int ret;

	if (fre_addr < fde->fres || fre_addr >= fde->fres_end)
		return sframe_reject(sec, -EINVAL, "FRE past the end of its sub-section");
	if (!sframe_open(sec))
		return sframe_reject(sec, -EFAULT, "section not accessible");
	ret = __sframe_read_fre_head(sec, fde, fre_addr, &fre->start, &raw.info,
				     &fre->next);
	if (!ret)
		ret = __sframe_read_words(sec, fre_addr +
					  (1U << SFRAME_FDE_INFO_FRE_TYPE(fde->info)) + 1,
					  &raw);
	user_read_access_end();
	if (ret)
		return ret;
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
