// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of each address space's SFrame sections: which section (an
 * entry) describes which code.
 *
 * Each mm points to an immutable, sorted table of text ranges.  Writers
 * hold the mmap lock for writing and publish a new table for every change,
 * so lookups need nothing but RCU and can run from NMI.  A section belongs
 * to one mm; a table holds one reference to it however many ranges point
 * at it, and a lookup that may sleep holds another.
 *
 * When memory for a new table cannot be had while unmapping, the ranges
 * that had to go are emptied in place instead: what is left can only miss,
 * never describe code that is no longer there.  What goes in and out of
 * the table, and when, is sframe_registry.c's.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "sframe_search.h"
#include "sframe_share.h"
#include "sframe_table.h"

static atomic_long_t sframe_sections = ATOMIC_LONG_INIT(0);
static atomic_long_t sframe_private = ATOMIC_LONG_INIT(0);

/* Kernel memory held for one process alone: entries, their own indexes and caches, tables */
void sframe_charge(long bytes)
{
	atomic_long_add(bytes, &sframe_private);
}

/**
 * sframe_live_sections() - sections registered in all address spaces
 *
 * Return: the count, for leak checks.
 */
long sframe_live_sections(void)
{
	return atomic_long_read(&sframe_sections);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_live_sections);

/**
 * sframe_private_bytes() - kernel memory the registries hold per process
 *
 * Return: bytes of every address space's entries, table of ranges, and the
 *	indexes and rule caches that are theirs alone; shared indexes are
 *	counted by sframe_shared_total_bytes().
 */
long sframe_private_bytes(void)
{
	return atomic_long_read(&sframe_private);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_private_bytes);

struct sframe_entry *sframe_entry_alloc(void)
{
	struct sframe_entry *e = kzalloc(sizeof(*e), SFRAME_GFP);

	if (!e)
		return NULL;
	refcount_set(&e->ref, 1);
	e->bytes = sizeof(*e);
	atomic_long_inc(&sframe_sections);
	sframe_charge(sizeof(*e));
	return e;
}

static void sframe_entry_free_rcu(struct rcu_head *rcu)
{
	struct sframe_entry *e = container_of(rcu, struct sframe_entry, rcu);

	sframe_charge(-(long)(sizeof(*e) + sframe_section_bytes(&e->sec)));
	sframe_section_release(&e->sec);
	if (e->shared)
		sframe_shared_put(e->shared);
	if (e->file)
		fput(e->file);
	kfree(e);
}

void sframe_entry_put(struct sframe_entry *e)
{
	if (refcount_dec_and_test(&e->ref)) {
		atomic_long_dec(&sframe_sections);
		call_rcu(&e->rcu, sframe_entry_free_rcu);
	}
}

/* Kernel memory a table of @nr_ranges takes, charged like its sections */
size_t sframe_table_bytes(unsigned int nr_ranges)
{
	struct sframe_table *t;

	return struct_size(t, ranges, nr_ranges);
}

struct sframe_table *sframe_table_alloc(unsigned int nr_ranges)
{
	struct sframe_table *t;

	t = kvmalloc(sframe_table_bytes(nr_ranges), SFRAME_GFP);
	if (t) {
		t->nr_ranges = nr_ranges;
		t->alloc_ranges = nr_ranges;
		sframe_charge(sframe_table_bytes(nr_ranges));
	}
	return t;
}

/* Free @t once lockless readers are done, or at once if it was never published */
void sframe_table_free(struct sframe_table *t, bool published)
{
	sframe_charge(-(long)sframe_table_bytes(t->alloc_ranges));
	if (published)
		kvfree_rcu(t, rcu);
	else
		kvfree(t);
}

/* The table a writer changes: mmap lock held for writing */
struct sframe_table *sframe_table_locked(struct mm_struct *mm)
{
	return rcu_dereference_protected(mm->sframe_table,
					 lockdep_is_held_type(&mm->mmap_lock, 0));
}

/* The table as readers under the mmap lock see it: no writer runs then. */
struct sframe_table *sframe_table_read_locked(struct mm_struct *mm)
{
	return rcu_dereference_protected(mm->sframe_table,
					 lockdep_is_held(&mm->mmap_lock));
}

/*
 * Publish @new in place of @old, then release the entries of @old that
 * lost their last range (SFRAME_ENTRY_GONE).  Only then: a lockless
 * lookup that starts before the swap can still find them in @old, and
 * RCU waits for it only if the release comes after the swap.  The read
 * lock keeps the entries met twice in @old there until the loop is done.
 */
static void sframe_table_publish(struct mm_struct *mm, struct sframe_table *old,
				 struct sframe_table *new)
{
	unsigned int i;

	rcu_assign_pointer(mm->sframe_table, new);
	if (!old)
		return;
	rcu_read_lock();
	for (i = 0; i < old->nr_ranges; i++) {
		struct sframe_entry *e = old->ranges[i].entry;

		if (test_and_clear_bit(SFRAME_ENTRY_GONE, &e->flags))
			sframe_entry_put(e);
	}
	rcu_read_unlock();
	sframe_table_free(old, true);
}

static __always_inline int sframe_range_start(void *data, unsigned int i,
					      unsigned long *start)
{
	const struct sframe_table *t = data;

	*start = t->ranges[i].start;
	return 0;
}

/* The last range starting at or below @ip, if it covers @ip. */
struct sframe_range *sframe_range_find(struct sframe_table *t,
				       unsigned long ip)
{
	unsigned int i;

	if (sframe_search(t->nr_ranges, ip, sframe_range_start, t, &i))
		return NULL;
	return ip < READ_ONCE(t->ranges[i].end) ? &t->ranges[i] : NULL;
}

/*
 * Did @cut take away the data of @e?  ld.so maps each segment of a library
 * over its first whole-file mapping with MAP_FIXED: the same file at the
 * same place is the same data, so a section survives that.
 */
static bool sframe_removal_takes_data(struct mm_struct *mm, const struct sframe_entry *e,
				      const struct sframe_removal *cut)
{
	unsigned long start = max(cut->start, e->sframe_start);
	unsigned long end = min(cut->end, e->sframe_end);

	/* A held section's data is the kernel's: nothing can unmap it. */
	if (!cut->data_gone || start >= end || e->sec.held)
		return false;
	return !e->file || sframe_check_vmas(mm, start, end, 0, e->file,
					     e->file_base);
}

/* What is left of @r after @cut: 0, 1 or 2 ranges in @out. */
static unsigned int sframe_range_remainder(struct mm_struct *mm,
					   const struct sframe_range *r,
					   const struct sframe_removal *cut,
					   struct sframe_range out[2])
{
	const struct sframe_entry *e = r->entry;
	unsigned int n = 0;

	if (!sframe_range_live(r) || e == cut->drop)
		return 0;
	if (sframe_removal_takes_data(mm, e, cut))
		return 0;
	/*
	 * A JIT makes its code writable to patch it and executable again:
	 * what it registered stays until it unregisters or unmaps it.
	 */
	if (cut->start >= r->end || cut->end <= r->start ||
	    (!cut->data_gone && test_bit(SFRAME_ENTRY_EXPLICIT, &e->flags))) {
		out[0] = *r;
		return 1;
	}
	if (r->start < cut->start) {
		out[n] = *r;
		out[n++].end = cut->start;
	}
	if (r->end > cut->end) {
		out[n] = *r;
		out[n++].start = cut->end;
	}
	return n;
}

static bool sframe_removal_changes(const struct sframe_range *r, unsigned int n,
				   const struct sframe_range out[2])
{
	return n != 1 || out[0].start != r->start || out[0].end != r->end;
}

/*
 * Could @cut change @t?  Only if it overlaps a range's text, takes an entry
 * away, or unmaps data a section reads from the process's memory.  ld.so
 * lays out each library it loads with several mappings over one
 * reservation, each a cut: a process that loads hundreds of libraries
 * makes thousands, and working out every range's remainder for each made
 * that quadratic.  The text is found by a binary search (sorted ranges
 * that do not overlap have sorted ends too); the data needs a look at
 * each range's entry, but a short one, and none for a cut that only
 * changes protection.  A no here is only ever a no: ranges emptied in
 * place stay until a cut that changes something, or the next insert.
 */
static bool sframe_cut_may_change(struct sframe_table *t, const struct sframe_removal *cut)
{
	unsigned int i, next = 0;

	if (cut->drop)
		return true;
	if (!sframe_search(t->nr_ranges, cut->start, sframe_range_start, t, &i)) {
		if (t->ranges[i].end > cut->start)
			return true;
		next = i + 1;
	}
	if (next < t->nr_ranges && t->ranges[next].start < cut->end)
		return true;
	if (!cut->data_gone)
		return false;
	for (i = 0; i < t->nr_ranges; i++) {
		const struct sframe_entry *e = t->ranges[i].entry;

		if (!e->sec.held && e->sframe_start < cut->end && cut->start < e->sframe_end)
			return true;
	}
	return false;
}

/*
 * Apply @cut to @mm's table: a new table without what it removes, entries
 * that lose their last range released.  Mmap lock held for writing.
 */
void sframe_apply_removal(struct mm_struct *mm, const struct sframe_removal *cut)
{
	struct sframe_table *old = sframe_table_locked(mm), *new = NULL;
	struct sframe_range out[2];
	unsigned int i, j = 0, n, nr = 0;
	bool changed = false;

	if (!old || !sframe_cut_may_change(old, cut))
		return;
	for (i = 0; i < old->nr_ranges; i++) {
		n = sframe_range_remainder(mm, &old->ranges[i], cut, out);
		changed |= sframe_removal_changes(&old->ranges[i], n, out);
		nr += n;
	}
	if (!changed)
		return;

	if (nr) {
		new = sframe_table_alloc(nr);
		if (!new) {
			/* Empty what must go; the kept parts are lost too. */
			for (i = 0; i < old->nr_ranges; i++) {
				struct sframe_range *r = &old->ranges[i];

				n = sframe_range_remainder(mm, r, cut, out);
				if (sframe_removal_changes(r, n, out))
					WRITE_ONCE(r->end, r->start);
			}
			return;
		}
		new->nr_sections = old->nr_sections;
		new->bytes = old->bytes;
	}

	for (i = 0; i < old->nr_ranges; i++) {
		struct sframe_entry *e = old->ranges[i].entry;

		n = sframe_range_remainder(mm, &old->ranges[i], cut, out);
		if (n)
			memcpy(&new->ranges[j], out, n * sizeof(out[0]));
		j += n;
		e->nr_ranges = e->nr_ranges + n - 1;
		if (!e->nr_ranges) {
			if (new) {
				new->nr_sections--;
				new->bytes -= e->bytes;
			}
			/* Lockless readers of @old still see @e: put at the swap. */
			set_bit(SFRAME_ENTRY_GONE, &e->flags);
		}
	}
	sframe_table_publish(mm, old, new);
}

/*
 * The explicit registration of @t made for text starting at @text_start,
 * if any: the one PR_SFRAME_UNREGISTER removes and a new PR_SFRAME_REGISTER
 * there replaces.
 */
struct sframe_entry *sframe_explicit_at(struct sframe_table *t,
					unsigned long text_start)
{
	unsigned int i;

	for (i = 0; t && i < t->nr_ranges; i++) {
		struct sframe_entry *e = t->ranges[i].entry;

		if (sframe_range_live(&t->ranges[i]) &&
		    test_bit(SFRAME_ENTRY_EXPLICIT, &e->flags) &&
		    e->sec.text_start == text_start)
			return e;
	}
	return NULL;
}

/*
 * Put [@start, @end) of @e among the @n sorted ranges of @t, joined with a
 * range of @e it touches; @t has room for one more.  Return: the new count.
 */
static unsigned int sframe_table_add_range(struct sframe_table *t, unsigned int n,
					   struct sframe_entry *e,
					   unsigned long start, unsigned long end)
{
	struct sframe_range *r = t->ranges;
	unsigned int i;

	for (i = n; i > 0 && r[i - 1].start > start; i--)
		r[i] = r[i - 1];
	r[i] = (struct sframe_range){ start, end, e };
	e->nr_ranges++;
	n++;
	if (i + 1 < n && r[i + 1].entry == e && r[i + 1].start == end) {
		r[i].end = r[i + 1].end;
		memmove(&r[i + 1], &r[i + 2], (n - i - 2) * sizeof(*r));
		e->nr_ranges--;
		n--;
	}
	if (i > 0 && r[i - 1].entry == e && r[i - 1].end == start) {
		r[i - 1].end = r[i].end;
		memmove(&r[i], &r[i + 1], (n - i - 1) * sizeof(*r));
		e->nr_ranges--;
		n--;
	}
	return n;
}

/* Mark @e as one the insert replaces, its room freed once. */
static void sframe_mark_replaced(struct sframe_entry *e, unsigned int *sections,
				 size_t *bytes)
{
	if (!test_and_set_bit(SFRAME_ENTRY_REPLACED, &e->flags)) {
		(*sections)--;
		*bytes -= e->bytes;
	}
}

/*
 * Which entries of @old the insert of [@start, @end) replaces: @replace,
 * and with @overlap those with text there, each only if it has no text
 * elsewhere, so that no code a registration described loses it.  Marks
 * them SFRAME_ENTRY_REPLACED and frees their room in @sections and @bytes.
 * Return: the live ranges kept, or -EEXIST with nothing marked.
 */
static int sframe_table_replaced(struct sframe_table *old,
				 unsigned long start, unsigned long end,
				 struct sframe_entry *replace, bool overlap,
				 unsigned int *sections, size_t *bytes)
{
	unsigned int i, nr = 0;

	if (replace)
		sframe_mark_replaced(replace, sections, bytes);
	for (i = 0; i < old->nr_ranges; i++) {
		const struct sframe_range *r = &old->ranges[i];

		if (!sframe_range_overlaps(r, start, end) ||
		    test_bit(SFRAME_ENTRY_REPLACED, &r->entry->flags))
			continue;
		if (!overlap)
			goto busy;
		sframe_mark_replaced(r->entry, sections, bytes);
	}
	for (i = 0; i < old->nr_ranges; i++) {
		const struct sframe_range *r = &old->ranges[i];

		if (!sframe_range_live(r))
			continue;
		if (!test_bit(SFRAME_ENTRY_REPLACED, &r->entry->flags))
			nr++;
		/* @replace goes whole, as PR_SFRAME_REGISTER at its start says. */
		else if (r->entry != replace && (r->start < start || r->end > end))
			goto busy;
	}
	return nr;
busy:
	for (i = 0; i < old->nr_ranges; i++)
		clear_bit(SFRAME_ENTRY_REPLACED, &old->ranges[i].entry->flags);
	return -EEXIST;
}

/*
 * Add [@start, @end) of @e to @mm's table; @e may have ranges there already.
 * Touching ranges of one entry become one.  Mmap lock held for writing.
 * Ranges emptied in place are left out of the new table, and so are those
 * of the entries it replaces (sframe_table_replaced()), which the new
 * table no longer holds: one table swap, so that no lookup finds neither
 * section.
 */
int sframe_table_insert(struct mm_struct *mm, struct sframe_entry *e,
			unsigned long start, unsigned long end,
			struct sframe_entry *replace, bool overlap)
{
	struct sframe_table *old = sframe_table_locked(mm), *new;
	unsigned int i, j = 0, sections = 0;
	bool joins = e->nr_ranges;
	size_t bytes = 0;
	int nr = 0, ret;

	if (old) {
		sections = old->nr_sections;
		bytes = old->bytes;
		nr = sframe_table_replaced(old, start, end, replace, overlap,
					   &sections, &bytes);
		if (nr < 0)
			return nr;
	}
	ret = -ENOSPC;
	if (!joins && sections >= READ_ONCE(sframe_max_sections))
		goto unmark;
	ret = -EDQUOT;
	if (bytes + (joins ? 0 : e->bytes) + sframe_table_bytes(nr + 1) >
	    READ_ONCE(sframe_max_bytes))
		goto unmark;
	ret = -ENOMEM;
	new = sframe_table_alloc(nr + 1);
	if (!new)
		goto unmark;

	new->nr_sections = sections + !joins;
	new->bytes = bytes + (joins ? 0 : e->bytes);
	for (i = 0; old && i < old->nr_ranges; i++) {
		struct sframe_range *r = &old->ranges[i];

		if (test_bit(SFRAME_ENTRY_REPLACED, &r->entry->flags)) {
			/* Its room is freed already; put at the swap. */
			if (!--r->entry->nr_ranges) {
				clear_bit(SFRAME_ENTRY_REPLACED, &r->entry->flags);
				set_bit(SFRAME_ENTRY_GONE, &r->entry->flags);
			}
			continue;
		}
		if (!sframe_range_live(r)) {
			if (!--r->entry->nr_ranges) {
				new->nr_sections--;
				new->bytes -= r->entry->bytes;
				set_bit(SFRAME_ENTRY_GONE, &r->entry->flags);
			}
			continue;
		}
		new->ranges[j++] = *r;
	}
	new->nr_ranges = sframe_table_add_range(new, j, e, start, end);
	/* After the swap: RCU then waits for every lookup that found them. */
	sframe_table_publish(mm, old, new);
	return 0;
unmark:
	for (i = 0; old && i < old->nr_ranges; i++)
		clear_bit(SFRAME_ENTRY_REPLACED, &old->ranges[i].entry->flags);
	return ret;
}

/*
 * Is [@start, @end) mapped by VMAs with @flags (and of @file at @file_base
 * when @file is set)?  -EFAULT for holes or another mapping, -EACCES when
 * mapped without @flags.
 */
int sframe_check_vmas(struct mm_struct *mm, unsigned long start,
		      unsigned long end, vm_flags_t flags,
		      struct file *file, unsigned long file_base)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;
	unsigned long addr = start;

	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_start > addr)
			return -EFAULT;
		if (file && (vma->vm_file != file ||
			     vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT) != file_base))
			return -EFAULT;
		if ((vma->vm_flags & flags) != flags)
			return -EACCES;
		addr = vma->vm_end;
		if (addr >= end)
			return 0;
	}
	return -EFAULT;
}

/* Process context: a section is dropped only where a lookup may fault. */
void sframe_report(const struct sframe_entry *e, int err)
{
	char where[80];

	if (e->file)
		snprintf(where, sizeof(where), "of %pD", e->file);
	else if (test_bit(SFRAME_ENTRY_VDSO, &e->flags))
		strscpy(where, "of [vdso]");
	else
		snprintf(where, sizeof(where), "at %lx", e->sframe_start);
	pr_warn_ratelimited("%s[%d]: dropping SFrame section %s: %s (%d)\n",
			    current->comm, task_tgid_nr(current), where,
			    e->sec.reason ?: "unreadable", err);
}
