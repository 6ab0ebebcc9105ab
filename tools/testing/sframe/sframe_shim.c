// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's SFrame reader, built in user space: the shim header first,
 * then kernel/unwind/sframe.c exactly as the kernel compiles it.
 */
#include "sframe_internal.h"
#include "../../../kernel/unwind/sframe_index.c"
#include "../../../kernel/unwind/sframe.c"

struct sframe_umem_region sframe_umem[SFRAME_UMEM_MAX_REGIONS];
struct sframe_umem_write sframe_umem_writes[SFRAME_UMEM_MAX_WRITES];
unsigned long sframe_umem_reads;
bool sframe_fail_alloc;
unsigned long sframe_fail_alloc_in;
long sframe_kmem_live;

/* sframe_umem_reads when the writes were armed: read numbers count from it */
static unsigned long sframe_umem_armed_at;

static struct sframe_umem_region *sframe_umem_find(unsigned long addr,
						   unsigned long len)
{
	struct sframe_umem_region *r;
	int i;

	if (addr + len < addr)
		return NULL;
	for (i = 0; i < SFRAME_UMEM_MAX_REGIONS; i++) {
		r = &sframe_umem[i];
		if (r->data && addr >= r->addr && addr + len <= r->addr + r->len)
			return r;
	}
	return NULL;
}

/*
 * Makes the stores due after the read of [@src, @src + @len), which read
 * bytes if @ok.  A read that faulted saw nothing, so it cannot be the
 * first read of bytes that change.
 */
static void sframe_umem_second_writer(unsigned long src, unsigned long len, bool ok)
{
	struct sframe_umem_write *w;
	struct sframe_umem_region *r;
	unsigned long n;
	bool due;
	int i;

	for (i = 0; i < SFRAME_UMEM_MAX_WRITES; i++) {
		w = &sframe_umem_writes[i];
		n = min_t(unsigned long, w->len, sizeof(w->bytes));
		if (!n || w->fired)
			continue;
		if (w->after_read)
			due = sframe_umem_reads - sframe_umem_armed_at == w->after_read;
		else
			due = ok && src < w->addr + n && w->addr < src + len;
		if (!due)
			continue;
		w->fired = true;
		r = sframe_umem_find(w->addr, n);
		if (r)
			memcpy(r->data + (w->addr - r->addr), w->bytes, n);
	}
}

bool sframe_umem_copy(void *dst, unsigned long src, unsigned long len)
{
	const struct sframe_umem_region *r = sframe_umem_find(src, len);
	bool ok = r && !(src < r->hole_end && src + len > r->hole_start);

	sframe_umem_reads++;
	if (ok)
		memcpy(dst, r->data + (src - r->addr), len);
	sframe_umem_second_writer(src, len, ok);
	return ok;
}

/* Starts the scripted writes of sframe_umem_writes[], read numbers from 1. */
void sframe_umem_arm(void)
{
	int i;

	sframe_umem_armed_at = sframe_umem_reads;
	for (i = 0; i < SFRAME_UMEM_MAX_WRITES; i++)
		sframe_umem_writes[i].fired = false;
}

void sframe_umem_disarm(void)
{
	memset(sframe_umem_writes, 0, sizeof(sframe_umem_writes));
}

/*
 * The index sframe_section_init() built must be all the reader trusts
 * later without checking: every entry written (the allocator leaves a
 * pattern, not zeros), pointing inside the section, and in address order
 * for the binary search.  Tests and the fuzzer check it after init, even
 * when the section changed under the reader.
 */
bool sframe_shim_index_sane(const struct sframe_section *sec)
{
	unsigned long size = sec->sframe_end - sec->sframe_start;
	unsigned int fde_size = sframe_fde_size(sec), i;
	const struct sframe_index_entry *e;
	const struct sframe_elem_entry *el;

	if (!sec->num_fdes)
		return !sec->index;
	if (!sec->index || sec->sframe_end < sec->sframe_start || size > U32_MAX ||
	    size < SFRAME_HDR_SIZE + fde_size)
		return false;
	for (i = 0; i < sec->num_fdes; i++) {
		e = &sec->index[i];
		if (e->fde_off < SFRAME_HDR_SIZE || e->fde_off > size - fde_size ||
		    e->start > sec->text_end - sec->text_start - 1)
			return false;
		if (i && (u64)e[-1].start + e[-1].size > e->start)
			return false;
	}
	if (!sec->elems)
		return sec->fres >= sec->sframe_start && sec->fres <= sec->fres_end &&
		       sec->fres_end <= sec->sframe_end;
	for (i = 0; i < sec->num_elems; i++) {
		el = &sec->elems[i];
		if (el->start > size - SFRAME_HDR_SIZE || el->fres_off > size ||
		    el->fres_len > size - el->fres_off ||
		    (i && el[-1].start >= el->start))
			return false;
	}
	return sec->elems[0].start <= sec->index[0].fde_off;
}

/* Every rule cache entry as a writer leaves it halfway: garbage, count odd */
void sframe_shim_cache_tear(struct sframe_section *sec)
{
	unsigned int i;

	for (i = 0; i < sec->cache_sets * SFRAME_CACHE_WAYS; i++) {
		memset(sec->cache[i].rule, 0x5a, sizeof(sec->cache[i].rule));
		sec->cache[i].seq |= 1;
	}
}
