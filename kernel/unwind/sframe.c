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
 * in kernel memory, twelve bytes an FDE, sorted and charged to the
 * process.  A lookup searches the index without touching user memory, then
 * copies the one FDE it found and that function's FREs, a chunk at a time,
 * and decodes them from the copies: a few user copies a lookup, each one
 * user-access window.
 */
#include "sframe_internal.h"
#include "sframe_search.h"

#define SFRAME_HDR_SIZE		sizeof(struct sframe_header)
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
/* FDE tables are indexed this many bytes at a time (a multiple of 16 and 20) */
#define SFRAME_FDE_CHUNK	320
/* ld -r aligns each concatenated element to at most 8 bytes */
#define SFRAME_ELEMENT_ALIGN	8

/*
 * One FDE in the index: where its function starts, from the section's
 * text_start, its size, and where the FDE is, from sframe_start.  Functions
 * that do not start in the first 4 GiB of the text are not indexed: no
 * lookup could reach them.
 */
struct sframe_index_entry {
	u32	start;
	u32	size;
	u32	fde_off;
};

/*
 * The fast lookup table, as ORC has one: the text is cut into blocks of
 * 2^fast_shift bytes, and entry k counts the FDEs starting before block k,
 * so that a search looks only at the few FDEs of one block.  Blocks are
 * sized to about one FDE each: four more bytes an FDE.
 */
#define SFRAME_FAST_MIN_SHIFT	4

/* The FRE sub-section of one element of a section that has several */
struct sframe_elem_entry {
	u32	start;
	u32	fres_off;
	u32	fres_len;
};

/* Where one element's parts are, as its header said */
struct sframe_element {
	unsigned long	start;
	unsigned long	fdes;
	unsigned long	fres;
	unsigned long	fres_end;
	unsigned int	num_fdes;
};

/* The FRE that matched, decoded from its copy */
struct sframe_raw_fre {
	u8	info;
	u32	words[SFRAME_MAX_DATA_WORDS];
};

/*
 * The rule cache: rules found before, by address, so that the addresses a
 * profile keeps hitting are not searched for again.  Lookups in NMI read
 * and fill it, so it takes no lock.  Each entry has a sequence count, odd
 * while a writer has it; a reader uses an entry only if the count was even
 * and unchanged across its copy of the entry.  A writer takes an entry by
 * moving the count from even to odd with cmpxchg, and gives up if it
 * cannot: another CPU, or the code it interrupted, is writing there.
 * Sets of two entries, replaced in turn.
 */
#define SFRAME_CACHE_WAYS	2
#define SFRAME_CACHE_MIN	16
#define SFRAME_CACHE_MAX	512
#define SFRAME_RULE_WORDS	(sizeof(struct unwind_user_frame) / sizeof(u32))

struct sframe_cache_entry {
	u32	seq;
	u32	key;		/* ip - text_start + 1; 0 for none */
	u32	rule[SFRAME_RULE_WORDS];
};

static_assert(sizeof(struct unwind_user_frame) % sizeof(u32) == 0);

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

static __always_inline int sframe_reject(struct sframe_section *sec, int err,
					 const char *reason)
{
	WRITE_ONCE(sec->reason, reason);
	return err;
}

/*
 * Section bytes for building the index: from the kernel's copy when there
 * is one (sframe_section_init_image()), else from user memory.
 */
static int sframe_build_read(const struct sframe_section *sec, void *dst,
			     unsigned long addr, size_t len)
{
	const struct sframe_image *image = sec->image;

	if (!image)
		return copy_from_user(dst, (void __user *)addr, len) ? -EFAULT : 0;
	if (addr < sec->sframe_start || len > image->len ||
	    addr - sec->sframe_start > image->len - len)
		return -EFAULT;
	memcpy(dst, image->data + (addr - sec->sframe_start), len);
	return 0;
}

static __always_inline u32 sframe_u32(const struct sframe_section *sec, u32 value)
{
	sframe_fix_order(sec, &value, sizeof(value));
	return value;
}

/* A value of type @type from copied section bytes at @p, in host byte order */
#define sframe_load(sec, type, p)					\
({									\
	type __v;							\
									\
	memcpy(&__v, (p), sizeof(__v));					\
	sframe_fix_order(sec, &__v, sizeof(__v));			\
	__v;								\
})

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

/* What this kernel reads: byte order, version, flags and ABI of @hdr */
static int sframe_check_preamble(struct sframe_section *sec,
				 const struct sframe_header *hdr, bool *foreign)
{
	const char *mismatch;
	u8 allowed_flags;

	*foreign = false;
	if (hdr->preamble.magic == swab16(SFRAME_MAGIC)) {
		if (!SFRAME_READS_FOREIGN)
			return sframe_reject(sec, -EOPNOTSUPP, "foreign byte order");
		*foreign = true;
	} else if (hdr->preamble.magic != SFRAME_MAGIC) {
		return sframe_reject(sec, -EINVAL, "bad magic");
	}

	switch (hdr->preamble.version) {
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
	if (hdr->preamble.flags & ~allowed_flags)
		return sframe_reject(sec, -EOPNOTSUPP, "flags the version does not define");
	if (hdr->abi_arch < SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	    hdr->abi_arch > SFRAME_ABI_S390X_ENDIAN_BIG)
		return sframe_reject(sec, -EOPNOTSUPP, "unknown ABI");
	mismatch = sframe_abi_mismatch(hdr->abi_arch, *foreign);
	if (mismatch)
		return sframe_reject(sec, -EOPNOTSUPP, mismatch);
	return 0;
}

/*
 * The first element's header describes the section; a later one must
 * agree with it on everything a lookup reads from the section.
 */
static int sframe_merge_header(struct sframe_section *sec,
			       const struct sframe_header *hdr, bool first,
			       bool foreign)
{
	if (first) {
		sec->version = hdr->preamble.version;
		sec->flags = hdr->preamble.flags;
		sec->abi = hdr->abi_arch;
		sec->fixed_fp_off = hdr->cfa_fixed_fp_offset;
		sec->fixed_ra_off = hdr->cfa_fixed_ra_offset;
		sframe_set_foreign(sec, foreign);
		return 0;
	}
	if (sec->version != hdr->preamble.version ||
	    sec->abi != hdr->abi_arch ||
	    sframe_foreign(sec) != foreign ||
	    sec->fixed_fp_off != hdr->cfa_fixed_fp_offset ||
	    sec->fixed_ra_off != hdr->cfa_fixed_ra_offset ||
	    (sec->flags ^ hdr->preamble.flags) & SFRAME_F_FDE_FUNC_START_PCREL)
		return sframe_reject(sec, -EINVAL, "elements of one section disagree");
	if (!(hdr->preamble.flags & SFRAME_F_FDE_SORTED))
		sec->flags &= ~SFRAME_F_FDE_SORTED;
	return 0;
}

static int sframe_parse_header(struct sframe_section *sec, unsigned long addr,
			       unsigned long end, bool first,
			       struct sframe_element *elem)
{
	struct sframe_header hdr;
	unsigned long hdr_end, fdes_end;
	bool foreign;
	int err;

	if (end - addr < SFRAME_HDR_SIZE)
		return sframe_reject(sec, -EINVAL, "truncated header");
	if (sframe_build_read(sec, &hdr, addr, sizeof(hdr)))
		return sframe_reject(sec, -EFAULT, "header not readable");
	err = sframe_check_preamble(sec, &hdr, &foreign);
	if (!err)
		err = sframe_merge_header(sec, &hdr, first, foreign);
	if (err)
		return err;

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
		if (sframe_build_read(sec, &magic, *addr, sizeof(magic)))
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

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * Make room for @need entries of @size bytes in @*array, which holds @done
 * and has room for @*room: at most @max_n, and at most @max_bytes.  Arrays
 * grow as elements are read, so that each header is read once.
 */
static int sframe_reserve(struct sframe_section *sec, void **array, size_t size,
			  unsigned int done, unsigned int *room, unsigned int need,
			  unsigned int max_n, size_t max_bytes)
{
	unsigned int n;
	void *bigger;

	if (need <= *room)
		return 0;
	if (need > max_n)
		return sframe_reject(sec, -E2BIG, "too many FDEs to index");
	if (need > max_bytes / size)
		return sframe_reject(sec, -EDQUOT, "FDE index over the allowance");
	n = max(need, min_t(unsigned int, 2 * *room, max_n));
	n = min_t(size_t, n, max_bytes / size);
	bigger = kvmalloc_array(n, size, SFRAME_GFP);
	if (!bigger)
		return sframe_reject(sec, -ENOMEM, "no memory for the FDE index");
	if (done)
		memcpy(bigger, *array, done * size);
	kvfree(*array);
	*array = bigger;
	*room = n;
	return 0;
}

/* @array, holding @n entries of @size bytes, in an allocation of just that */
static void *sframe_shrink(void *array, size_t size, unsigned int n)
{
	void *exact = kvmalloc_array(n, size, SFRAME_GFP);

	if (exact)
		memcpy(exact, array, n * size);
	kvfree(array);
	return exact;
}

/*
 * Append to @index the FDEs of @elem whose functions start in the text,
 * reading its FDE table a chunk at a time.  @sorted is cleared if a start
 * is below the one before it.
 */
static int sframe_index_element(struct sframe_section *sec,
				const struct sframe_element *elem,
				struct sframe_index_entry **index,
				unsigned int *done, unsigned int *room,
				size_t max_bytes, bool *sorted)
{
	unsigned long text_len = min(sec->text_end - sec->text_start, 1UL << 32);
	unsigned int fde_size = sframe_fde_size(sec), i, j, n;
	bool v2 = sec->version == SFRAME_VERSION_2;
	struct sframe_index_entry *e;
	unsigned long addr, start;
	u8 chunk[SFRAME_FDE_CHUNK];
	const u8 *p;
	s64 value;
	u32 size;
	int ret;

	for (i = 0; i < elem->num_fdes; i += n) {
		n = min(SFRAME_FDE_CHUNK / fde_size, elem->num_fdes - i);
		addr = elem->fdes + (unsigned long)i * fde_size;
		if (sframe_build_read(sec, chunk, addr, n * fde_size))
			return sframe_reject(sec, -EFAULT, "FDE not readable");
		for (j = 0, p = chunk; j < n; j++, p += fde_size, addr += fde_size) {
			if (v2) {
				value = (s32)sframe_load(sec, u32, p);
				size = sframe_load(sec, u32, p + offsetof(struct sframe_fde_v2,
									  func_size));
			} else {
				value = (s64)sframe_load(sec, u64, p);
				size = sframe_load(sec, u32, p + offsetof(struct sframe_fde_v3,
									  func_size));
			}
			start = sframe_func_start(sec, elem->start, addr, value);
			if (start - sec->text_start >= text_len)
				continue;
			if (start + size < start)
				return sframe_reject(sec, -EINVAL, "function wraps around");
			/* Only what is indexed is charged: the header's count may be far more. */
			ret = sframe_reserve(sec, (void **)index, sizeof(**index), *done, room,
					     *done + 1, SFRAME_MAX_INDEX_FDES, max_bytes);
			if (ret)
				return ret;
			e = &(*index)[(*done)++];
			e->start = start - sec->text_start;
			e->size = size;
			e->fde_off = addr - sec->sframe_start;
			if (*done > 1 && e->start < e[-1].start)
				*sorted = false;
		}
		cond_resched();
	}
	return 0;
}

/* Record where @elem's FREs are, for the FDEs it added to the index */
static int sframe_add_elem(struct sframe_section *sec,
			   const struct sframe_element *elem, unsigned int *room,
			   size_t max_bytes)
{
	struct sframe_elem_entry *entry;
	int ret;

	ret = sframe_reserve(sec, (void **)&sec->elems, sizeof(*entry),
			     sec->num_elems, room, sec->num_elems + 1,
			     SFRAME_MAX_ELEMENTS, max_bytes);
	if (ret)
		return ret;
	entry = &sec->elems[sec->num_elems++];
	entry->start = elem->start - sec->sframe_start;
	entry->fres_off = elem->fres - sec->sframe_start;
	entry->fres_len = elem->fres_end - elem->fres;
	return 0;
}

/* Entries of the fast lookup table of @sec with blocks of 2^@shift bytes */
static unsigned int sframe_fast_entries(const struct sframe_section *sec,
					unsigned int shift)
{
	unsigned long text_len = min(sec->text_end - sec->text_start, 1UL << 32);

	return (text_len >> shift) + 2;
}

/* The fast lookup table of @index, sorted and holding sec->num_fdes FDEs */
static int sframe_build_fast(struct sframe_section *sec,
			     const struct sframe_index_entry *index,
			     size_t max_bytes)
{
	unsigned int shift = SFRAME_FAST_MIN_SHIFT, entries, k, i = 0;
	u32 *fast;

	/* Below 32: lookups shift 32-bit offsets by it */
	while (shift < 31 && sframe_fast_entries(sec, shift) - 2 > sec->num_fdes)
		shift++;
	entries = sframe_fast_entries(sec, shift);
	if (entries > max_bytes / sizeof(*fast))
		return sframe_reject(sec, -EDQUOT, "FDE index over the allowance");
	fast = kvmalloc_array(entries, sizeof(*fast), SFRAME_GFP);
	if (!fast)
		return sframe_reject(sec, -ENOMEM, "no memory for the FDE index");
	for (k = 0; k < entries; k++) {
		while (i < sec->num_fdes && index[i].start < ((u64)k << shift))
			i++;
		fast[k] = i;
	}
	sec->fast = fast;
	sec->fast_shift = shift;
	return 0;
}

/* An index being built: the FDEs read so far, and room for more */
struct sframe_index_build {
	struct sframe_index_entry	*index;
	unsigned int			done;
	unsigned int			room;
	unsigned int			elem_room;
	bool				sorted;
};

/*
 * Read into @b the FDEs of every element, from @elem, the first, whose
 * header sframe_section_init() read; @next is where the next element
 * starts, or 0.  What a header said is used from the one read of it: the
 * section is in memory the process may change at any time.
 */
static int sframe_index_elements(struct sframe_section *sec,
				 struct sframe_element *elem, unsigned long next,
				 unsigned long end, size_t max_bytes,
				 struct sframe_index_build *b)
{
	unsigned int elements = 1, before;
	int ret;

	for (;;) {
		/* Parsed headers fit in 4 GiB: the sum cannot wrap. */
		if (b->done + elem->num_fdes > SFRAME_MAX_INDEX_FDES)
			return sframe_reject(sec, -E2BIG, "too many FDEs to index");
		before = b->done;
		ret = sframe_index_element(sec, elem, &b->index, &b->done, &b->room,
					   max_bytes - b->elem_room * sizeof(*sec->elems),
					   &b->sorted);
		if (!ret && b->done > before)
			ret = sframe_add_elem(sec, elem, &b->elem_room,
					      max_bytes - b->room * sizeof(*b->index));
		if (ret)
			return ret;
		sec->sframe_end = elem->fres_end;
		if (!next)
			return 0;
		if (++elements > SFRAME_MAX_ELEMENTS)
			return sframe_reject(sec, -E2BIG, "too many elements");
		ret = sframe_parse_header(sec, next, end, false, elem);
		if (ret)
			return ret;
		if (!sframe_next_element(sec, &next, elem->fres_end, end))
			next = 0;
	}
}

/* A lone element's FRE bounds live in @sec, with no array to search. */
static int sframe_settle_elems(struct sframe_section *sec, unsigned int elem_room)
{
	if (sec->num_elems == 1) {
		sec->fres = sec->sframe_start + sec->elems[0].fres_off;
		sec->fres_end = sec->fres + sec->elems[0].fres_len;
		kvfree(sec->elems);
		sec->elems = NULL;
	} else if (sec->num_elems < elem_room) {
		sec->elems = sframe_shrink(sec->elems, sizeof(*sec->elems), sec->num_elems);
		if (!sec->elems)
			return sframe_reject(sec, -ENOMEM, "no memory for the FDE index");
	}
	return 0;
}

/* Lookups search by start and take the first function below the address. */
static int sframe_order_index(struct sframe_section *sec,
			      struct sframe_index_entry *index, unsigned int n,
			      bool sorted)
{
	unsigned int i;

	if (!sorted)
		sort(index, n, sizeof(*index), sframe_index_cmp, NULL);
	for (i = 1; i < n; i++) {
		if ((u64)index[i - 1].start + index[i - 1].size > index[i].start)
			return sframe_reject(sec, -EINVAL, "overlapping FDEs");
	}
	return 0;
}

/* Index every FDE of every element: see sframe_index_elements() */
static int sframe_build_index(struct sframe_section *sec,
			      struct sframe_element *elem, unsigned long next,
			      unsigned long end, size_t max_bytes)
{
	struct sframe_index_build b = { .sorted = true };
	/* A lone element that says its FDEs are sorted must not lie. */
	bool one_claims_sorted = !next && (sec->flags & SFRAME_F_FDE_SORTED);
	int ret;

	ret = sframe_index_elements(sec, elem, next, end, max_bytes, &b);
	if (ret)
		goto err;
	sec->num_fdes = b.done;
	if (!b.sorted && one_claims_sorted) {
		ret = sframe_reject(sec, -EINVAL, "FDEs not sorted");
		goto err;
	}
	ret = sframe_settle_elems(sec, b.elem_room);
	if (ret)
		goto err;
	if (!b.done) {
		kvfree(b.index);
		return 0;
	}
	/* The memory charged is what the section reports it holds. */
	if (b.room > b.done) {
		b.index = sframe_shrink(b.index, sizeof(*b.index), b.done);
		if (!b.index) {
			ret = sframe_reject(sec, -ENOMEM, "no memory for the FDE index");
			goto err;
		}
	}
	ret = sframe_order_index(sec, b.index, b.done, b.sorted);
	if (!ret)
		ret = sframe_build_fast(sec, b.index, max_bytes - sframe_section_bytes(sec) -
					b.done * sizeof(*b.index));
	if (ret)
		goto err;
	sec->index = b.index;
	return 0;
err:
	kvfree(b.index);
	kvfree(sec->elems);
	sec->elems = NULL;
	return ret;
}

/* sframe_section_init() from user memory, or from @image when it is set */
static int sframe_section_prepare(struct sframe_section *sec,
				  const struct sframe_image *image,
				  unsigned long sframe_start,
				  unsigned long sframe_size,
				  unsigned long text_start,
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
	sec->image = image;

	ret = sframe_parse_header(sec, sframe_start, end, true, &elem);
	if (!ret) {
		sec->sframe_end = elem.fres_end;
		/* An element ends after its header, so no next one starts at 0. */
		if (!sframe_next_element(sec, &next, elem.fres_end, end))
			next = 0;
		ret = sframe_build_index(sec, &elem, next, end, max_bytes);
	}
	sec->image = NULL;
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
 *	are not covered, and FDEs of functions starting outside it are left
 *	out.
 * @max_bytes: kernel memory the section may take (its FDE index).
 *
 * Reads every element header and FDE table once, checks that the parts
 * they describe fit in the section and that the functions do not overlap,
 * and builds the sorted FDE index lookups search.
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
	return sframe_section_prepare(sec, NULL, sframe_start, sframe_size,
				      text_start, text_end, max_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_init);

/**
 * sframe_section_init_image() - sframe_section_init() from a kernel copy
 * @sec: the section to fill in.
 * @image: the section's bytes, as they are at @sframe_start; only read
 *	during the call.
 * @sframe_start: the user address the bytes are for.
 * @text_start: start of the code the section describes.
 * @text_end: end of that code.
 * @max_bytes: kernel memory the section may take.
 *
 * The index of a file's section is built once from the file and shared by
 * every process that maps it (sframe_section_view()): a copy read once,
 * which no process can change while it is indexed.  Lookups in @sec read
 * user memory at @sframe_start, as for any other section.
 *
 * Context: Process context; may sleep.
 * Return: as sframe_section_init(); -EFAULT for headers that point past
 *	@image.
 */
int sframe_section_init_image(struct sframe_section *sec,
			      const struct sframe_image *image,
			      unsigned long sframe_start,
			      unsigned long text_start, unsigned long text_end,
			      size_t max_bytes)
{
	return sframe_section_prepare(sec, image, sframe_start, image->len,
				      text_start, text_end, max_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_init_image);

/**
 * sframe_section_init_held() - sframe_section_init() of a section the
 *	kernel keeps
 * @sec: the section to fill in.
 * @image: the section's bytes, which lookups in @sec and in its views and
 *	copies read from then on: they must outlive all of them.
 * @sframe_start: the address the index is built for; nothing is read
 *	there, and views place the index where each process has the text.
 * @text_start: start of the code the section describes, at that place.
 * @text_end: end of that code.
 * @max_bytes: kernel memory the index may take.
 *
 * For a section that no process has mapped (an attachment): its bytes
 * were read once, by the kernel, and no process can change them.
 *
 * Context: Process context; may sleep.
 * Return: as sframe_section_init_image().
 */
int sframe_section_init_held(struct sframe_section *sec,
			     const struct sframe_image *image,
			     unsigned long sframe_start,
			     unsigned long text_start, unsigned long text_end,
			     size_t max_bytes)
{
	int ret = sframe_section_init_image(sec, image, sframe_start, text_start,
					    text_end, max_bytes);

	if (!ret)
		sec->held = image;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_init_held);

/**
 * sframe_section_view() - @src's index, for the same section elsewhere
 * @dst: the view to fill in.
 * @src: a section sframe_section_init() or _init_image() accepted.
 * @sframe_start: user address of the section in the view's address space.
 * @text_start: the address of @src's text there.
 *
 * The index holds offsets from the section and its text, so another
 * mapping of the same file, or a forked child, can search it where it
 * has them.  @dst borrows @src's tables, which must outlive it, and gets
 * a rule cache of its own when sframe_section_cache_alloc() is called.
 */
void sframe_section_view(struct sframe_section *dst,
			 const struct sframe_section *src,
			 unsigned long sframe_start, unsigned long text_start)
{
	*dst = *src;
	dst->cache = NULL;
	dst->cache_sets = 0;
	dst->reason = NULL;
	dst->borrowed = true;
	dst->sframe_start = sframe_start;
	dst->sframe_end = sframe_start + (src->sframe_end - src->sframe_start);
	dst->text_start = text_start;
	dst->text_end = text_start + (src->text_end - src->text_start);
	if (src->fres) {
		dst->fres = sframe_start + (src->fres - src->sframe_start);
		dst->fres_end = sframe_start + (src->fres_end - src->sframe_start);
	}
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_view);

/**
 * sframe_section_release() - free what sframe_section_init() allocated
 * @sec: the section; it must not be used for lookups afterwards.  A view
 *	frees its rule cache only.
 */
void sframe_section_release(struct sframe_section *sec)
{
	if (!sec->borrowed) {
		kvfree(sec->index);
		kvfree(sec->elems);
		kvfree(sec->fast);
	}
	kvfree(sec->cache);
	sec->index = NULL;
	sec->elems = NULL;
	sec->fast = NULL;
	sec->cache = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_release);

/**
 * sframe_section_copy() - duplicate a prepared section for another process
 * @dst: the copy.
 * @src: a section sframe_section_init() accepted, or a view.
 *
 * A forked child's memory holds the same section at the same address, so
 * only the kernel-side index needs copying; a view's copy is a view of the
 * same tables.  The rule cache is not copied (the parent's entries may be
 * half written right now): the child gets one of its own when it is first
 * unwound.
 *
 * Return: 0, or -ENOMEM with @dst holding nothing to release.
 */
int sframe_section_copy(struct sframe_section *dst,
			const struct sframe_section *src)
{
	*dst = *src;
	dst->cache = NULL;
	dst->cache_sets = 0;
	if (src->borrowed)
		return 0;
	dst->index = NULL;
	dst->elems = NULL;
	dst->fast = NULL;
	if (src->index) {
		dst->index = kvmemdup(src->index, src->num_fdes * sizeof(*src->index),
				      SFRAME_GFP);
		dst->fast = kvmemdup(src->fast, sframe_fast_entries(src, src->fast_shift) *
				     sizeof(*src->fast), SFRAME_GFP);
		if (!dst->index || !dst->fast) {
			sframe_section_release(dst);
			return -ENOMEM;
		}
	}
	if (src->elems) {
		dst->elems = kvmemdup(src->elems, src->num_elems * sizeof(*src->elems),
				      SFRAME_GFP);
		if (!dst->elems) {
			sframe_section_release(dst);
			return -ENOMEM;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_copy);

/**
 * sframe_section_bytes() - kernel memory a prepared section holds
 * @sec: the section.
 *
 * Return: bytes of its FDE index, fast lookup table, rule cache and element
 *	table, 0 when it has none; of a view, its rule cache's alone.
 */
size_t sframe_section_bytes(const struct sframe_section *sec)
{
	/* Pairs with sframe_section_cache_alloc(): the cache is all there. */
	size_t bytes = smp_load_acquire(&sec->cache) ? sframe_section_cache_bytes(sec) : 0;

	if (sec->borrowed)
		return bytes;
	if (sec->index)
		bytes += sec->num_fdes * sizeof(*sec->index);
	if (sec->fast)
		bytes += sframe_fast_entries(sec, sec->fast_shift) * sizeof(*sec->fast);
	if (sec->elems)
		bytes += sec->num_elems * sizeof(*sec->elems);
	return bytes;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_bytes);

/* Rule cache entries for @sec: one for about four FDEs, a power of two */
static unsigned int sframe_cache_entries(const struct sframe_section *sec)
{
	unsigned int n = SFRAME_CACHE_MIN;

	if (!sec->num_fdes)
		return 0;
	while (n < SFRAME_CACHE_MAX && 4 * n < sec->num_fdes)
		n *= 2;
	return n;
}

/**
 * sframe_section_cache_bytes() - memory the rule cache of a section takes
 * @sec: a section sframe_section_init() accepted.
 *
 * Return: the bytes sframe_section_cache_alloc() allocates for it (36 for
 *	every four FDEs, 576 to 18,432), 0 if it has no FDE.
 */
size_t sframe_section_cache_bytes(const struct sframe_section *sec)
{
	return sframe_cache_entries(sec) * sizeof(struct sframe_cache_entry);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_cache_bytes);

/**
 * sframe_section_cache_alloc() - give a section its rule cache
 * @sec: a section sframe_section_init() accepted, that may be in use.
 *
 * Sections start without one, so that a process that is never unwound
 * pays nothing for it.  Lookups use the cache from the moment it is
 * published here; one caller at a time.
 *
 * Context: Process context; may sleep.
 * Return: 0 (also when @sec has a cache already, or no FDE to cache),
 *	-ENOMEM.
 */
int sframe_section_cache_alloc(struct sframe_section *sec)
{
	unsigned int n = sframe_cache_entries(sec);
	struct sframe_cache_entry *cache;

	if (!n || sec->cache)
		return 0;
	cache = kvmalloc_array(n, sizeof(*cache), SFRAME_GFP);
	if (!cache)
		return -ENOMEM;
	memset(cache, 0, n * sizeof(*cache));
	sec->cache_sets = n / SFRAME_CACHE_WAYS;
	/* Lookups in other contexts see the set count with the pointer. */
	smp_store_release(&sec->cache, cache);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_section_cache_alloc);

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
