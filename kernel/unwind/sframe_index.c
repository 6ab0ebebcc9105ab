// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame reader, registration half: a section's headers checked and its
 * FDE tables read once, when it is registered, into an index in kernel
 * memory, twelve bytes an FDE, sorted and charged to the process (with
 * a fast table of about four bytes more an FDE, and a rule cache made on
 * the first lookups).  The section belongs to the process and may hold
 * anything: every byte is copied out once, checked against the bounds its
 * headers give and decoded from the copy, and every loop is bounded by a
 * count checked against those bounds.  Lookups are sframe.c's.
 */
#include "sframe_reader.h"

#define SFRAME_HDR_SIZE		sizeof(struct sframe_header)
/* FDE tables are indexed this many bytes at a time (a multiple of 16 and 20) */
#define SFRAME_FDE_CHUNK	320
/* ld -r aligns each concatenated element to at most 8 bytes */
#define SFRAME_ELEMENT_ALIGN	8

/*
 * The fast lookup table, as ORC has one: the text is cut into blocks of
 * 2^fast_shift bytes, and entry k counts the FDEs starting before block k,
 * so that a search looks only at the few FDEs of one block.  Blocks are
 * sized to about one FDE each: four more bytes an FDE.
 */
#define SFRAME_FAST_MIN_SHIFT	4

/* Where one element's parts are, as its header said */
struct sframe_element {
	unsigned long	start;
	unsigned long	fdes;
	unsigned long	fres;
	unsigned long	fres_end;
	unsigned int	num_fdes;
};

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
		return sframe_reject(sec, -EFBIG, "too many FDEs to index");
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
			return sframe_reject(sec, -EFBIG, "too many FDEs to index");
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
			return sframe_reject(sec, -EFBIG, "too many elements");
		ret = sframe_parse_header(sec, next, end, false, elem);
		if (ret)
			return ret;
		if (!sframe_next_element(sec, &next, elem->fres_end, end))
			next = 0;
	}
}

/* A lone element's FRE bounds live in @sec, with no array to search. */
static int sframe_trim_elements(struct sframe_section *sec, unsigned int elem_room)
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
	ret = sframe_trim_elements(sec, b.elem_room);
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
 *	-EFAULT if it cannot be read, -EFBIG or -ENOMEM if it is too large to
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
