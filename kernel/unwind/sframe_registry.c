// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame sections of each address space: which section describes which
 * code, kept exact through mmap, munmap, mprotect, fork and exit.
 *
 * Each mm points to an immutable, sorted table of text ranges.  Writers
 * hold the mmap lock for writing and publish a new table for every change,
 * so lookups need nothing but RCU and can later run from NMI.  A section
 * (an entry) belongs to one mm; a table holds one reference to it however
 * many ranges point at it, and a lookup that may sleep holds another.  A
 * file's section whose data is mapped from the file uses the index every
 * mapping of that file version shares (sframe_share.c).
 *
 * When memory for a new table cannot be had while unmapping, the ranges
 * that had to go are emptied in place instead: what is left can only miss,
 * never describe code that is no longer there.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/task_work.h>
#include <kunit/visibility.h>

#include "sframe_registry.h"
#include "sframe_search.h"
#include "sframe_share.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."

/* A process with over a thousand ELF objects with SFrame is unheard of. */
VISIBLE_IF_KUNIT unsigned int sframe_max_sections = 1024;
EXPORT_SYMBOL_IF_KUNIT(sframe_max_sections);
module_param_named(max_sections, sframe_max_sections, uint, 0644);
MODULE_PARM_DESC(max_sections, "SFrame sections one process may register");

VISIBLE_IF_KUNIT unsigned long sframe_max_bytes = 64UL << 20;
EXPORT_SYMBOL_IF_KUNIT(sframe_max_bytes);
module_param_named(max_bytes, sframe_max_bytes, ulong, 0644);
MODULE_PARM_DESC(max_bytes, "Kernel memory one process's SFrame sections may hold");

static atomic_long_t sframe_sections = ATOMIC_LONG_INIT(0);
static atomic_long_t sframe_private = ATOMIC_LONG_INIT(0);

/* Kernel memory held for one process alone: entries, their own indexes and caches, tables */
static void sframe_charge(long bytes)
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

static struct sframe_entry *sframe_entry_alloc(void)
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

static void sframe_entry_put(struct sframe_entry *e)
{
	if (refcount_dec_and_test(&e->ref)) {
		atomic_long_dec(&sframe_sections);
		call_rcu(&e->rcu, sframe_entry_free_rcu);
	}
}

static bool sframe_range_live(const struct sframe_range *r)
{
	return r->start != READ_ONCE(r->end);
}

static bool sframe_range_overlaps(const struct sframe_range *r,
				  unsigned long start, unsigned long end)
{
	return sframe_range_live(r) && r->start < end && start < r->end;
}

/* Kernel memory a table of @nr_ranges takes, charged like its sections */
static size_t sframe_table_bytes(unsigned int nr_ranges)
{
	struct sframe_table *t;

	return struct_size(t, ranges, nr_ranges);
}

static struct sframe_table *sframe_table_alloc(unsigned int nr_ranges)
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
static void sframe_table_free(struct sframe_table *t, bool published)
{
	sframe_charge(-(long)sframe_table_bytes(t->alloc_ranges));
	if (published)
		kvfree_rcu(t, rcu);
	else
		kvfree(t);
}

/* The table a writer changes: mmap lock held for writing */
static struct sframe_table *sframe_table_locked(struct mm_struct *mm)
{
	return rcu_dereference_protected(mm->sframe_table,
					 lockdep_is_held_type(&mm->mmap_lock, 0));
}

/* The table as readers under the mmap lock see it: no writer runs then. */
static struct sframe_table *sframe_table_read_locked(struct mm_struct *mm)
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
static struct sframe_range *sframe_range_find(struct sframe_table *t,
					      unsigned long ip)
{
	unsigned int i;

	if (sframe_search(t->nr_ranges, ip, sframe_range_start, t, &i))
		return NULL;
	return ip < READ_ONCE(t->ranges[i].end) ? &t->ranges[i] : NULL;
}

/**
 * struct sframe_cut - what a change takes out of a table
 * @start: start of the address range that goes away.
 * @end: its end.
 * @data_gone: the range was unmapped, so sections whose data lay in it go
 *	too; otherwise (exec permission dropped) only their text is trimmed.
 * @drop: an entry to remove whole, or NULL.
 */
struct sframe_cut {
	unsigned long		start;
	unsigned long		end;
	bool			data_gone;
	struct sframe_entry	*drop;
};

static int sframe_check_vmas(struct mm_struct *mm, unsigned long start,
			     unsigned long end, vm_flags_t flags,
			     struct file *file, unsigned long file_base);

/*
 * Did @cut take away the data of @e?  ld.so maps each segment of a library
 * over its first whole-file mapping with MAP_FIXED: the same file at the
 * same place is the same data, so a section survives that.
 */
static bool sframe_cut_data(struct mm_struct *mm, const struct sframe_entry *e,
			    const struct sframe_cut *cut)
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
static unsigned int sframe_cut_range(struct mm_struct *mm,
				     const struct sframe_range *r,
				     const struct sframe_cut *cut,
				     struct sframe_range out[2])
{
	const struct sframe_entry *e = r->entry;
	unsigned int n = 0;

	if (!sframe_range_live(r) || e == cut->drop)
		return 0;
	if (sframe_cut_data(mm, e, cut))
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

static bool sframe_cut_changes(const struct sframe_range *r, unsigned int n,
			       const struct sframe_range out[2])
{
	return n != 1 || out[0].start != r->start || out[0].end != r->end;
}

/*
 * Apply @cut to @mm's table: a new table without what it removes, entries
 * that lose their last range released.  Mmap lock held for writing.
 */
static void sframe_apply_cut(struct mm_struct *mm, const struct sframe_cut *cut)
{
	struct sframe_table *old = sframe_table_locked(mm), *new = NULL;
	struct sframe_range out[2];
	unsigned int i, j = 0, n, nr = 0;
	bool changed = false;

	if (!old)
		return;
	for (i = 0; i < old->nr_ranges; i++) {
		n = sframe_cut_range(mm, &old->ranges[i], cut, out);
		changed |= sframe_cut_changes(&old->ranges[i], n, out);
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

				n = sframe_cut_range(mm, r, cut, out);
				if (sframe_cut_changes(r, n, out))
					WRITE_ONCE(r->end, r->start);
			}
			return;
		}
		new->nr_sections = old->nr_sections;
		new->bytes = old->bytes;
	}

	for (i = 0; i < old->nr_ranges; i++) {
		struct sframe_entry *e = old->ranges[i].entry;

		n = sframe_cut_range(mm, &old->ranges[i], cut, out);
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
static struct sframe_entry *sframe_explicit_at(struct sframe_table *t,
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
static unsigned int sframe_table_place(struct sframe_table *t, unsigned int n,
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
static int sframe_table_insert(struct mm_struct *mm, struct sframe_entry *e,
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
	new->nr_ranges = sframe_table_place(new, j, e, start, end);
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
static int sframe_check_vmas(struct mm_struct *mm, unsigned long start,
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

static int sframe_check_mapped(struct mm_struct *mm, struct file *file,
			       unsigned long file_base,
			       unsigned long sframe_start, unsigned long sframe_end,
			       unsigned long text_start, unsigned long text_end)
{
	int ret;

	ret = sframe_check_vmas(mm, text_start, text_end, VM_EXEC, file, file_base);
	if (!ret && !file)
		ret = sframe_check_vmas(mm, sframe_start, sframe_end, VM_READ,
					NULL, 0) ? -EFAULT : 0;
	return ret;
}

/*
 * Only data that says something wrong condemns a section.  A page that
 * cannot be read (unmapped by a racing munmap, not resident for a
 * non-faulting walk) or a walk's row budget says nothing about it.
 */
static bool sframe_malformed(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP;
}

/* Process context: a section is dropped only where a lookup may fault. */
static void sframe_report(const struct sframe_entry *e, int err)
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

/*
 * Another part of a file's text whose section is registered already (the
 * text's mapping was split, or part of it mapped again): add the range to
 * that entry.  -ENOENT if there is none.
 */
static int sframe_add_range(struct mm_struct *mm, const struct sframe_add *add)
{
	struct sframe_entry *e = NULL;
	struct sframe_table *t;
	unsigned int i;
	int ret = -ENOENT;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	t = sframe_table_locked(mm);
	for (i = 0; t && i < t->nr_ranges && !e; i++) {
		struct sframe_entry *c = t->ranges[i].entry;

		if (sframe_range_live(&t->ranges[i]) && c->file == add->file &&
		    c->file_base == add->file_base &&
		    c->sframe_start == add->sframe_start &&
		    c->sec.text_start == add->seg_start &&
		    c->sec.text_end == add->seg_end)
			e = c;
	}
	if (e) {
		ret = sframe_check_mapped(mm, add->file, add->file_base, 0, 0,
					  add->start, add->end);
		if (!ret)
			ret = sframe_table_insert(mm, e, add->start, add->end, NULL,
						  false);
	}
	mmap_write_unlock(mm);
	return ret;
}

/* Does @add register a section by prctl()? */
static bool sframe_add_explicit(const struct sframe_add *add)
{
	return !add->file && !add->vdso;
}

/*
 * The explicit registration @add takes the place of, if any.  The kernel's
 * registration of an attachment is replaced by the kernel's alone (the
 * text mapped again): a process's own registration of that text is
 * refused as overlapping (EEXIST) unless it asks to replace what it
 * overlaps, so that a module converting what the kernel already has can
 * tell it needs not.
 */
static struct sframe_entry *sframe_replaced_at(struct sframe_table *t,
					       const struct sframe_add *add)
{
	struct sframe_entry *e;

	if (!sframe_add_explicit(add))
		return NULL;
	e = sframe_explicit_at(t, add->seg_start);
	if (e && test_bit(SFRAME_ENTRY_ATTACHED, &e->flags) && !add->held)
		return NULL;
	return e;
}

/*
 * Free in @sections and @used the room of one entry other than @replace
 * whose text overlaps @add's, if there is one.  A lower bound of what
 * the replacement frees: counting each entry once would take a set, or
 * a pass per entry, under RCU, and sframe_table_insert() counts them
 * exactly under the lock anyway.  RCU read lock held.
 */
static void sframe_overlap_room(struct sframe_table *t,
				const struct sframe_add *add,
				const struct sframe_entry *replace,
				unsigned int *sections, size_t *used)
{
	unsigned int i;

	for (i = 0; t && i < t->nr_ranges; i++) {
		const struct sframe_range *r = &t->ranges[i];

		if (r->entry == replace ||
		    !sframe_range_overlaps(r, add->start, add->end))
			continue;
		if (*sections) {
			(*sections)--;
			*used -= min(*used, r->entry->bytes);
		}
		return;
	}
}

/*
 * What one more section of @mm may take in kernel memory for its index, or
 * -ENOSPC or -EDQUOT when the process has no room for another: checked
 * before a section is read, and again when it is added.  A registration
 * that replaces another (@add explicit, at its text start) has the room
 * of the one it replaces; one with @add->replace at least that of one its
 * text overlaps (whether it may replace them is known only under the lock).
 */
static int sframe_room(struct mm_struct *mm, const struct sframe_add *add,
		       size_t *room)
{
	size_t used = sizeof(struct sframe_entry), max = READ_ONCE(sframe_max_bytes);
	unsigned int sections = 0, ranges = 0;
	struct sframe_entry *replace;
	struct sframe_table *t;

	scoped_guard(rcu) {
		t = rcu_dereference(mm->sframe_table);
		if (t) {
			sections = t->nr_sections;
			ranges = t->nr_ranges;
			used += t->bytes;
		}
		replace = sframe_replaced_at(t, add);
		if (replace) {
			sections--;
			used -= replace->bytes;
		}
		if (add->replace)
			sframe_overlap_room(t, add, replace, &sections, &used);
	}
	if (sections >= READ_ONCE(sframe_max_sections))
		return -ENOSPC;
	used += sframe_table_bytes(ranges + 1);
	if (used > max)
		return -EDQUOT;
	*room = max - used;
	return 0;
}

/* Faulted in between two chances to reschedule */
#define SFRAME_POPULATE_CHUNK	(64 * PAGE_SIZE)

/*
 * Samples walk user stacks in interrupts, where a page of the section that
 * is not mapped in cannot be read, and a process rarely reads its own
 * .sframe: without this, profiles of it would fall back to frame pointers
 * all along.  So the section is faulted in once, when it is added.  If
 * reclaim takes a page away later, interrupt-time walks fall back at that
 * page until a walk that may fault (deferred, /proc) brings it back.
 */
static void sframe_populate(unsigned long start, unsigned long end)
{
	size_t len;

	while (start < end && !fatal_signal_pending(current)) {
		len = min(end - start, SFRAME_POPULATE_CHUNK);
		if (fault_in_readable((const char __user *)start, len))
			break;
		start += len;
		cond_resched();
	}
}

/**
 * sframe_has_file() - does @mm have a section registered from @file?
 * @mm: the address space.
 * @file: the file.
 *
 * Context: Any; takes no lock but RCU.
 * Return: true if one of @mm's registered ranges is of @file.
 */
bool sframe_has_file(struct mm_struct *mm, const struct file *file)
{
	struct sframe_table *t;
	unsigned int i;

	guard(rcu)();
	t = rcu_dereference(mm->sframe_table);
	for (i = 0; t && i < t->nr_ranges; i++)
		if (t->ranges[i].entry->file == file)
			return true;
	return false;
}

/**
 * sframe_populate_range() - fault in what sections of @mm lie in a range
 * @mm: the address space, current->mm.
 * @start: start of the range, typically a new mapping.
 * @end: its end.
 *
 * ld.so maps a library whole, then each segment over it: the mapping
 * that held the section when it was registered and faulted in may be
 * replaced by one with nothing mapped in yet.
 *
 * Context: Process context, mmap lock not held; may sleep.
 */
void sframe_populate_range(struct mm_struct *mm, unsigned long start,
			   unsigned long end)
{
	unsigned long addr = start, lo, hi;
	struct sframe_table *t;
	unsigned int i;

	while (addr < end && !fatal_signal_pending(current)) {
		lo = end;
		hi = end;
		scoped_guard(rcu) {
			t = rcu_dereference(mm->sframe_table);
			for (i = 0; t && i < t->nr_ranges; i++) {
				const struct sframe_entry *e = t->ranges[i].entry;
				unsigned long s = max(e->sframe_start, addr);

				if (e->sec.held)
					continue;
				if (s < min(e->sframe_end, end) && s < lo) {
					lo = s;
					hi = min(e->sframe_end, end);
				}
			}
		}
		if (lo >= end)
			break;
		sframe_populate(lo, hi);
		addr = hi;
	}
}

/*
 * @key's layout part: the section and its text as offsets from the
 * address of the file's offset 0 in the mapping that holds the section.
 * The text's may be a distance to another mapping, even a negative one:
 * keys are equal only for the same layout.
 */
static void sframe_share_layout(struct sframe_share_key *key,
				const struct sframe_add *add, unsigned long file_base)
{
	key->sframe_off = add->sframe_start - file_base;
	key->sframe_size = add->sframe_size;
	key->text_off = add->seg_start - file_base;
	key->text_len = add->seg_end - add->seg_start;
}

/*
 * The key of the shared index @add may use: only if the section's data is
 * mapped from the same file, at the same place as its text, so that the
 * file's bytes are what the process reads there.  False otherwise, and
 * for files whose versions cannot be told apart.
 */
static bool sframe_share_key_of(struct mm_struct *mm, const struct sframe_add *add,
				struct sframe_share_key *key)
{
	bool mapped;

	if (!add->file || !sframe_file_version(add->file, &key->version))
		return false;
	if (mmap_read_lock_killable(mm))
		return false;
	mapped = !sframe_check_vmas(mm, add->sframe_start,
				    add->sframe_start + add->sframe_size, VM_READ,
				    add->file, add->file_base);
	mmap_read_unlock(mm);
	sframe_share_layout(key, add, add->file_base);
	return mapped;
}

/*
 * The file an explicit registration's section may share an index of, with
 * its key and the address of its offset 0, or NULL.  Its bytes in memory
 * must be the file's: one readable, never writable mapping of a regular
 * file holds all of it, and no anonymous page was ever written over the
 * file's there (no anon_vma).  A file open for writing or mapped writable
 * shared is left out: a JIT that rewrites its code and section through a
 * shared mapping, which need not move i_version, and registers them again
 * must get the new bytes' index, not the old one's.  (One that unmapped
 * its writable mapping of a tmpfs file first is not caught: the version
 * cannot tell, for a library's section as little.)  The audit module maps
 * its cache files read-only, at one distance from their text in every
 * process, so their sections share indexes as libraries' do.  Caller holds
 * the mmap lock; the file comes with a reference.
 */
static struct file *sframe_explicit_share(struct mm_struct *mm,
					  const struct sframe_add *add,
					  struct sframe_share_key *key,
					  unsigned long *file_base)
{
	unsigned long end = add->sframe_start + add->sframe_size;
	struct vm_area_struct *vma = vma_lookup(mm, add->sframe_start);
	struct file *file = vma ? vma->vm_file : NULL;

	if (!file || vma->vm_end < end || vma->anon_vma ||
	    (vma->vm_flags & (VM_READ | VM_WRITE)) != VM_READ ||
	    !S_ISREG(file_inode(file)->i_mode) ||
	    inode_is_open_for_write(file_inode(file)) ||
	    mapping_writably_mapped(file->f_mapping) ||
	    !sframe_file_version(file, &key->version))
		return NULL;
	*file_base = vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT);
	sframe_share_layout(key, add, *file_base);
	return get_file(file);
}

/*
 * The index of a section in another process's memory (/proc/<pid>/ustack
 * registers the sections of a process nobody walked before): built from a
 * copy read as /proc/<pid>/mem reads, counted with the other copies read
 * for indexes; lookups read the process's memory, as for any section.
 */
static int sframe_section_init_remote(struct sframe_section *sec,
				      struct mm_struct *mm,
				      const struct sframe_add *add, size_t room)
{
	struct sframe_image image = { .len = add->sframe_size };
	void *data;
	int ret;

	if (sframe_copy_room_get(image.len))
		return -EAGAIN;
	data = kvmalloc(image.len, SFRAME_GFP);
	ret = -ENOMEM;
	if (data) {
		image.data = data;
		ret = -EFAULT;
		if (access_remote_vm(mm, add->sframe_start, data, image.len, 0) ==
		    image.len)
			ret = sframe_section_init_image(sec, &image, add->sframe_start,
							add->seg_start, add->seg_end,
							room);
		kvfree(data);
	}
	sframe_copy_room_put(image.len);
	return ret;
}

/*
 * Prepare @e's section: a view of the held section's index for an
 * attachment; a view of the shared index of @key's version of @file when
 * there is a key and the file gives a stable copy; else an index of its
 * own read from the memory of @mm; within @room bytes.
 */
static int sframe_entry_index(struct sframe_entry *e, struct mm_struct *mm,
			      const struct sframe_add *add, struct file *file,
			      const struct sframe_share_key *key, size_t room)
{
	const char *reason = NULL;
	struct sframe_shared *sh;

	if (add->held) {
		if (add->held->bytes > room) {
			e->sec.reason = "FDE index over the allowance";
			return -EDQUOT;
		}
		e->shared = sframe_shared_get_ref(add->held);
		sframe_section_view(&e->sec, &add->held->sec, add->sframe_start,
				    add->seg_start);
		e->bytes += add->held->bytes;
		return 0;
	}
	if (key) {
		sh = sframe_shared_get(file, key, add->sframe_start,
				       add->seg_start, room, &reason);
		if (!IS_ERR(sh)) {
			e->shared = sh;
			sframe_section_view(&e->sec, &sh->sec, add->sframe_start,
					    add->seg_start);
			e->bytes += sh->bytes;
			return 0;
		}
		if (PTR_ERR(sh) != -EAGAIN) {
			e->sec.reason = reason;
			return PTR_ERR(sh);
		}
	}
	if (mm != current->mm)
		return sframe_section_init_remote(&e->sec, mm, add, room);
	return sframe_section_init(&e->sec, add->sframe_start, add->sframe_size,
				   add->seg_start, add->seg_end, room);
}

/*
 * The entry for @add, its section read (within @room bytes) and charged.
 * A section found bad is still an entry, marked so, that keeps its range
 * from being read again; an explicit registration of one fails instead.
 */
static struct sframe_entry *sframe_entry_new(struct mm_struct *mm,
					     const struct sframe_add *add,
					     struct file *share_file,
					     const struct sframe_share_key *key,
					     size_t room)
{
	struct sframe_entry *e = sframe_entry_alloc();
	int ret;

	if (!e)
		return ERR_PTR(-ENOMEM);
	if (add->vdso)
		set_bit(SFRAME_ENTRY_VDSO, &e->flags);
	else if (sframe_add_explicit(add))
		set_bit(SFRAME_ENTRY_EXPLICIT, &e->flags);
	if (add->held)
		set_bit(SFRAME_ENTRY_ATTACHED, &e->flags);
	e->file = add->file ? get_file(add->file) : NULL;
	e->file_base = add->file_base;
	e->sframe_start = add->sframe_start;
	e->sframe_end = add->sframe_start + add->sframe_size;
	ret = sframe_entry_index(e, mm, add, share_file, key, room);
	if (!ret && IS_ENABLED(CONFIG_UNWIND_USER_SFRAME_VALIDATE))
		ret = sframe_section_validate(&e->sec);
	if (ret) {
		/* No room to copy another's section now: not the section's fault */
		if (test_bit(SFRAME_ENTRY_EXPLICIT, &e->flags) || ret == -ENOMEM ||
		    ret == -EINTR || ret == -EAGAIN) {
			sframe_entry_put(e);
			return ERR_PTR(ret);
		}
		set_bit(SFRAME_ENTRY_BAD, &e->flags);
		sframe_report(e, ret);
	}
	sframe_charge(sframe_section_bytes(&e->sec));
	e->bytes += sframe_section_bytes(&e->sec);
	/* The rule cache comes with the first unwind; its room is kept now. */
	if (!ret && e->bytes - sizeof(*e) + sframe_section_cache_bytes(&e->sec) <= room)
		e->bytes += sframe_section_cache_bytes(&e->sec);
	else
		set_bit(SFRAME_ENTRY_NO_CACHE, &e->flags);
	return e;
}

/**
 * sframe_add_section() - register a section in an address space
 * @mm: the address space the section is read from: current->mm, or that
 *	of a task which is not running (sframe_register_task_mm()).
 * @add: what to register: the section, the code it may describe
 *	(@add->seg_start to @add->seg_end), the part of that code to
 *	register (@add->start to @add->end), and for a file's section the
 *	file and the address its offset 0 has in the mapping.
 *
 * An attachment's section (@add->held) is the kernel's copy and index:
 * only its text must be mapped, and it is neither read nor faulted in.
 * Reads and checks the section, then takes the mmap lock for writing and
 * adds it if the text is still mapped as it was (of the file at that
 * place, executable), then faults all of it in.  A file's section, and
 * an explicit one mapped read-only and unwritten from a file, uses the
 * index that every registration of the same bytes at the same distance
 * from their text shares.  A file's or the vDSO's section that fails the
 * checks is kept, marked bad, so that /proc shows it; an explicit one is
 * refused.  Text of a file's section already
 * registered joins that registration.  An explicit registration whose text
 * starts where another's does replaces that one whole, in the same table
 * swap: a JIT that rewrote code and section in place registers them again
 * so that lookups stop using the old section's index and rule cache.
 * With @add->replace it also replaces every registration (a file's, the
 * vDSO's, an explicit one) its text overlaps, in the same swap, provided
 * all of that one's text lies within the new text; -EEXIST otherwise,
 * with nothing changed.
 *
 * Context: Process context, mmap lock not held; may sleep.
 * Return: 0 on success, else see the errors in include/uapi/linux/sframe.h.
 */
int sframe_add_section(struct mm_struct *mm, const struct sframe_add *add)
{
	unsigned long sframe_end = add->sframe_start + add->sframe_size;
	struct file *explicit_file = NULL;
	struct sframe_entry *e, *replace;
	struct sframe_share_key key;
	unsigned long explicit_base = 0;
	bool bad, share = false;
	size_t room;
	int ret;

	if (!add->sframe_size || sframe_end < add->sframe_start ||
	    add->start >= add->end || add->start < add->seg_start ||
	    add->end > add->seg_end)
		return -EINVAL;
	if (add->file) {
		ret = sframe_add_range(mm, add);
		if (ret != -ENOENT)
			return ret;
		share = sframe_share_key_of(mm, add, &key);
	} else if (add->held) {
		if (mmap_read_lock_killable(mm))
			return -EINTR;
		ret = sframe_check_vmas(mm, add->start, add->end, VM_EXEC, NULL, 0);
		mmap_read_unlock(mm);
		if (ret)
			return ret;
	} else {
		if (mmap_read_lock_killable(mm))
			return -EINTR;
		ret = sframe_check_mapped(mm, NULL, 0, add->sframe_start,
					  sframe_end, add->start, add->end);
		if (!ret && sframe_add_explicit(add))
			explicit_file = sframe_explicit_share(mm, add, &key,
							      &explicit_base);
		mmap_read_unlock(mm);
		if (ret)
			return ret;
		share = !!explicit_file;
	}

	ret = sframe_room(mm, add, &room);
	if (ret)
		goto out;
	e = sframe_entry_new(mm, add, add->file ?: explicit_file,
			     share ? &key : NULL, room);
	if (IS_ERR(e)) {
		ret = PTR_ERR(e);
		goto out;
	}
	bad = test_bit(SFRAME_ENTRY_BAD, &e->flags);

	ret = mmap_write_lock_killable(mm);
	if (ret)
		goto put;
	if (add->held)
		ret = sframe_check_vmas(mm, add->start, add->end, VM_EXEC, NULL, 0);
	else
		ret = sframe_check_mapped(mm, add->file, add->file_base,
					  add->sframe_start, sframe_end, add->start,
					  add->end);
	/* A shared index is the file's: the section must still be mapped from it. */
	if (!ret && e->shared && explicit_file)
		ret = sframe_check_vmas(mm, add->sframe_start, sframe_end, VM_READ,
					explicit_file, explicit_base);
	if (!ret) {
		replace = sframe_replaced_at(sframe_table_locked(mm), add);
		ret = sframe_table_insert(mm, e, add->start, add->end, replace,
					  add->replace);
	}
	mmap_write_unlock(mm);
	if (!ret) {
		/*
		 * @e is the table's now: another thread may drop it any time.
		 * Another process's sections are faulted in by that process
		 * (sframe_register_task_mm()).
		 */
		if (!bad && !add->held && mm == current->mm)
			sframe_populate(add->sframe_start, sframe_end);
		goto out;
	}
put:
	sframe_entry_put(e);
out:
	if (explicit_file)
		fput(explicit_file);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_add_section);

/**
 * sframe_remove_explicit() - unregister what prctl() registered
 * @mm: the address space.
 * @text_start: text start the registration was made with.
 *
 * Context: Process context, mmap lock not held; may sleep.
 * Return: 0, -ENOENT if no explicit registration starts at @text_start,
 *	-EINTR if killed while waiting for the mmap lock.
 */
int sframe_remove_explicit(struct mm_struct *mm, unsigned long text_start)
{
	struct sframe_cut cut = {};

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	cut.drop = sframe_explicit_at(sframe_table_locked(mm), text_start);
	if (cut.drop)
		sframe_apply_cut(mm, &cut);
	mmap_write_unlock(mm);
	return cut.drop ? 0 : -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_remove_explicit);

/**
 * sframe_remove_range() - forget code and data that go away
 * @mm: the address space, mmap lock held for writing.
 * @start: start of the range.
 * @end: end of the range.
 * @data_gone: the range is unmapped (sections with data in it go whole),
 *	not merely made non-executable (text in it is trimmed).
 */
void sframe_remove_range(struct mm_struct *mm, unsigned long start,
			 unsigned long end, bool data_gone)
{
	struct sframe_cut cut = {
		.start = start, .end = end, .data_gone = data_gone,
	};

	mmap_assert_write_locked(mm);
	sframe_apply_cut(mm, &cut);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_remove_range);

/**
 * sframe_munmap() - hook: [@start, @end) of @mm is being unmapped
 * @mm: the address space, mmap lock held for writing.
 * @start: start of the range.
 * @end: end of the range.
 */
void sframe_munmap(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	if (rcu_access_pointer(mm->sframe_table))
		sframe_remove_range(mm, start, end, true);
}

/**
 * sframe_mm_init() - hook: a new mm starts without sections
 * @mm: the address space, not yet in use.
 *
 * It registers its files' sections as they are mapped if something may
 * take user stacks now (see sframe_demand.c); a forked child's follows
 * its parent's instead (sframe_dup_mm()).
 */
void sframe_mm_init(struct mm_struct *mm)
{
	RCU_INIT_POINTER(mm->sframe_table, NULL);
	mm->sframe_flags = sframe_consumers_present() ? BIT(SFRAME_MM_WANTED) : 0;
}

/*
 * What dup_mmap() did not give the child (VM_DONTCOPY), or gave it only
 * as zeros (VM_WIPEONFORK), is gone from the child as if unmapped: its
 * text and the sections whose data lay there.
 */
static void sframe_cut_uncopied(struct mm_struct *oldmm, struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, oldmm, 0);
	struct vm_area_struct *vma;

	for_each_vma(vmi, vma) {
		if (vma->vm_flags & (VM_DONTCOPY | VM_WIPEONFORK))
			sframe_remove_range(mm, vma->vm_start, vma->vm_end, true);
	}
}

/* A child's copy of @e, with no ranges yet; NULL if out of memory */
static struct sframe_entry *sframe_entry_dup(const struct sframe_entry *e)
{
	struct sframe_entry *c = sframe_entry_alloc();

	if (!c)
		return NULL;
	if (sframe_section_copy(&c->sec, &e->sec)) {
		sframe_entry_put(c);
		return NULL;
	}
	sframe_charge(sframe_section_bytes(&c->sec));
	c->shared = e->shared ? sframe_shared_get_ref(e->shared) : NULL;
	c->file = e->file ? get_file(e->file) : NULL;
	c->file_base = e->file_base;
	c->sframe_start = e->sframe_start;
	c->sframe_end = e->sframe_end;
	/* The child's cache comes with its own first unwind. */
	c->flags = READ_ONCE(e->flags) & ~BIT(SFRAME_ENTRY_CACHE_ASKED);
	c->bytes = e->bytes;
	return c;
}

/**
 * sframe_dup_mm() - hook: give a forked child copies of the parent's sections
 * @oldmm: the parent's address space, mmap lock held for writing.
 * @mm: the child's, its mappings copied, mmap lock held for writing.
 *
 * The child gets the sections of what it has of the parent's memory.
 *
 * Return: 0, or -ENOMEM (the fork fails).
 */
int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct sframe_table *old = sframe_table_locked(oldmm), *new;
	unsigned int i, j = 0, nr = 0;
	int ret = 0;

	RCU_INIT_POINTER(mm->sframe_table, NULL);
	/* The child maps what its parent would have registered: so does it. */
	if (test_bit(SFRAME_MM_WANTED, &oldmm->sframe_flags))
		set_bit(SFRAME_MM_WANTED, &mm->sframe_flags);
	if (!old)
		return 0;
	for (i = 0; i < old->nr_ranges; i++)
		nr += sframe_range_live(&old->ranges[i]);
	if (!nr)
		return 0;
	new = sframe_table_alloc(nr);
	if (!new)
		return -ENOMEM;
	new->nr_sections = 0;
	new->bytes = 0;

	for (i = 0; i < old->nr_ranges; i++) {
		struct sframe_range *r = &old->ranges[i];
		struct sframe_entry *e = r->entry, *c = e->copy;

		if (!sframe_range_live(r))
			continue;
		if (!c) {
			c = sframe_entry_dup(e);
			if (!c) {
				ret = -ENOMEM;
				break;
			}
			e->copy = c;
			new->nr_sections++;
			new->bytes += c->bytes;
		}
		c->nr_ranges++;
		new->ranges[j++] = (struct sframe_range){ r->start, r->end, c };
	}

	/* On failure the copies are in @new only: release each once. */
	for (i = 0; i < old->nr_ranges; i++) {
		struct sframe_entry *e = old->ranges[i].entry;

		if (ret && e->copy)
			sframe_entry_put(e->copy);
		e->copy = NULL;
	}
	if (ret) {
		sframe_table_free(new, false);
		return ret;
	}
	rcu_assign_pointer(mm->sframe_table, new);
	sframe_cut_uncopied(oldmm, mm);
	return 0;
}

/**
 * sframe_free_mm() - hook: release every section of a dying address space
 * @mm: the address space, no longer used by any task.
 */
void sframe_free_mm(struct mm_struct *mm)
{
	struct sframe_table *t = rcu_dereference_protected(mm->sframe_table, true);
	unsigned int i;

	if (!t)
		return;
	RCU_INIT_POINTER(mm->sframe_table, NULL);
	for (i = 0; i < t->nr_ranges; i++) {
		struct sframe_entry *e = t->ranges[i].entry;

		if (!--e->nr_ranges)
			sframe_entry_put(e);
	}
	sframe_table_free(t, true);
}

/**
 * sframe_mm_has_sections() - does an address space have SFrame sections?
 * @mm: the address space.
 *
 * Context: Any; the answer may be stale by the time it is used.
 * Return: true if a section is registered in @mm.
 */
bool sframe_mm_has_sections(struct mm_struct *mm)
{
	return rcu_access_pointer(mm->sframe_table);
}

/* The usable entry describing @ip, if any; under rcu_read_lock(). */
static struct sframe_entry *sframe_entry_at(struct mm_struct *mm,
					    unsigned long ip)
{
	struct sframe_table *t = mm ? rcu_dereference(mm->sframe_table) : NULL;
	struct sframe_range *r = t ? sframe_range_find(t, ip) : NULL;

	if (!r || test_bit(SFRAME_ENTRY_BAD, &r->entry->flags))
		return NULL;
	return r->entry;
}

/* The usable entry describing @ip, with a reference, for a lookup that may sleep */
static struct sframe_entry *sframe_entry_get(struct mm_struct *mm,
					     unsigned long ip)
{
	struct sframe_entry *e;

	guard(rcu)();
	e = sframe_entry_at(mm, ip);
	return e && refcount_inc_not_zero(&e->ref) ? e : NULL;
}

static void sframe_cache_work(struct callback_head *work)
{
	struct sframe_entry *e = container_of(work, struct sframe_entry, cache_work);

	/* No cache is no error: lookups go on without one. */
	if (!e->sec.cache && !sframe_section_cache_alloc(&e->sec) && e->sec.cache)
		sframe_charge(sframe_section_cache_bytes(&e->sec));
	sframe_entry_put(e);
}

/*
 * A section is given its rule cache when it is first looked up, so that
 * processes never unwound pay nothing for it.  The lookup may be in NMI:
 * the allocation waits for the task's return to user space, with a
 * reference that keeps @e until then.  @may_sleep: the lookup is one that
 * may fault and sleep.
 */
static void sframe_want_cache(struct sframe_entry *e, bool may_sleep)
{
	enum task_work_notify_mode mode = TWA_RESUME;

	if (likely(READ_ONCE(e->sec.cache)) ||
	    test_bit(SFRAME_ENTRY_NO_CACHE, &e->flags) ||
	    test_and_set_bit(SFRAME_ENTRY_CACHE_ASKED, &e->flags) ||
	    (current->flags & PF_KTHREAD) || !refcount_inc_not_zero(&e->ref))
		return;
	init_task_work(&e->cache_work, sframe_cache_work);
	/*
	 * With KASAN, TWA_RESUME records the caller's stack and may allocate
	 * a page for it.  A lookup that may not fault can run with a raw lock
	 * held and interrupts off even in task context (a sched_switch user
	 * stack trace, a perf sample at a context switch: the runqueue lock),
	 * where the page allocator's locks must not be taken.
	 */
	if (in_nmi())
		mode = TWA_NMI_CURRENT;
	else if (!may_sleep)
		mode |= TWAF_NO_ALLOC;
	if (!task_work_add(current, &e->cache_work, mode))
		return;
	/* Only a task past exit_mm() refuses work, and it has no mm to look in. */
	if (in_nmi())
		WARN_ON_ONCE(!refcount_dec_not_one(&e->ref));
	else
		sframe_entry_put(e);
}

/* The rules of @ip in @e's section; -ENODATA if none of its FDEs covers it */
static int sframe_entry_find(struct sframe_entry *e, unsigned long ip,
			     struct unwind_user_frame *frame,
			     struct unwind_user_ctx *ctx)
{
	int ret = sframe_find(&e->sec, ip, frame, ctx);

	return ret == -ENOENT ? -ENODATA : ret;
}

/*
 * With page faults disabled: entries are freed after an RCU grace period,
 * so the whole lookup runs under rcu_read_lock() and takes no reference,
 * whose last put could not free from NMI.  A page of the section that is
 * not resident is not the section's fault: it stays in use, and a
 * malformed one is left for the next faultable lookup to find and report
 * (no printk from NMI).
 */
static int sframe_lookup_nofault(struct unwind_user_ctx *ctx, unsigned long ip,
				 struct unwind_user_frame *frame)
{
	struct sframe_entry *e;

	guard(rcu)();
	e = sframe_entry_at(current->mm, ip);
	if (!e)
		return -ENOENT;
	sframe_want_cache(e, false);
	return sframe_entry_find(e, ip, frame, ctx);
}

/*
 * A section found malformed by its own process's lookup is dropped for
 * that process, with one rate-limited message naming it; another task's
 * reader (/proc/<pid>/ustack) leaves it for the owner's next lookup to
 * find and report.  One that cannot be read is not dropped: the page may
 * have gone with a racing munmap(), which removes the section anyway, or
 * be back at the next lookup.  Not inlined: its frame and calls stay off
 * the stack of an NMI's lookup.
 */
static noinline int sframe_lookup_faultable(struct unwind_user_ctx *ctx,
					    unsigned long ip,
					    struct unwind_user_frame *frame)
{
	struct sframe_entry *e;
	int ret;

	might_fault();
	e = sframe_entry_get(ctx->mm ?: current->mm, ip);
	if (!e)
		return -ENOENT;
	if (!ctx->mm)
		sframe_want_cache(e, true);
	ret = sframe_entry_find(e, ip, frame, ctx);
	if (!ctx->mm && sframe_malformed(ret) &&
	    !test_and_set_bit(SFRAME_ENTRY_BAD, &e->flags))
		sframe_report(e, ret);
	sframe_entry_put(e);
	return ret;
}

/**
 * sframe_lookup() - the frame rules at a user address, by the sections
 *	registered for its address space
 * @ctx: the walk the lookup serves: whose address space (@ctx->mm, read
 *	with access_remote_vm(); NULL for the current task's), whether page
 *	faults are disabled (@ctx->nofault; never with @ctx->mm), and the
 *	FREs it may still read (@ctx->budget, decremented by those read).
 * @ip: the address.
 * @frame: where to store the rules.
 *
 * One lookup for every walk: perf's, BPF's and ftrace's in an interrupt
 * or NMI (@ctx->nofault); deferred ones and a task's read of its own
 * stack, which may fault; a reader of a stopped task's stack (@ctx->mm).
 *
 * Context: Process context that may fault and sleep; with @ctx->nofault,
 *	any context with page faults disabled, NMI included.
 * Return: 0 on success; -ENOENT if no usable section holds @ip; -ENODATA
 *	if one does but none of its FDEs covers @ip (PLT stubs, code without
 *	CFI); -EFAULT if the section cannot be read (with @ctx->nofault, also
 *	data that is not resident); -EINVAL or -EOPNOTSUPP for a malformed
 *	section; -E2BIG when the budget ran out.
 */
int sframe_lookup(struct unwind_user_ctx *ctx, unsigned long ip,
		  struct unwind_user_frame *frame)
{
	if (ctx->nofault)
		return sframe_lookup_nofault(ctx, ip, frame);
	return sframe_lookup_faultable(ctx, ip, frame);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_lookup);

#if IS_ENABLED(CONFIG_SFRAME_KUNIT_TEST)
/**
 * sframe_mm_ranges() - the registered ranges of an address space
 * @mm: the address space.
 * @info: where to store up to @max ranges.
 * @max: room in @info.
 *
 * Context: Process context, mmap lock not held.
 * Return: the number of ranges, which may be more than @max.
 */
unsigned int sframe_mm_ranges(struct mm_struct *mm,
			      struct sframe_range_info *info, unsigned int max)
{
	struct sframe_table *t;
	unsigned int i, n = 0;

	mmap_read_lock(mm);
	t = sframe_table_read_locked(mm);
	for (i = 0; t && i < t->nr_ranges; i++) {
		const struct sframe_range *r = &t->ranges[i];
		const struct sframe_entry *e = r->entry;

		if (!sframe_range_live(r))
			continue;
		if (n < max)
			info[n] = (struct sframe_range_info){
				.start = r->start,
				.end = r->end,
				.sframe_start = e->sframe_start,
				.sframe_end = e->sframe_end,
				.num_fdes = e->sec.num_fdes,
				.bad = test_bit(SFRAME_ENTRY_BAD, &e->flags),
				.explicit = test_bit(SFRAME_ENTRY_EXPLICIT, &e->flags),
				.vdso = test_bit(SFRAME_ENTRY_VDSO, &e->flags),
				.shared = e->shared,
			};
		n++;
	}
	mmap_read_unlock(mm);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_mm_ranges);
#endif

/**
 * sframe_mm_show() - /proc/<pid>/sframe: one line per registered range
 * @m: the seq_file.
 * @mm: the address space, mmap lock held for reading.
 *
 * Return: 0.
 */
int sframe_mm_show(struct seq_file *m, struct mm_struct *mm)
{
	struct sframe_table *t = sframe_table_read_locked(mm);
	unsigned int i;

	for (i = 0; t && i < t->nr_ranges; i++) {
		const struct sframe_range *r = &t->ranges[i];
		const struct sframe_entry *e = r->entry;

		if (!sframe_range_live(r))
			continue;
		seq_printf(m, "%lx-%lx %lx-%lx v%u fdes=%u bytes=%zu shared=%zu %s ",
			   r->start, r->end, e->sframe_start, e->sframe_end,
			   e->sec.version, e->sec.num_fdes, sframe_section_bytes(&e->sec),
			   e->shared ? e->shared->bytes : 0,
			   test_bit(SFRAME_ENTRY_BAD, &e->flags) ? "bad" : "ok");
		if (e->file)
			seq_path(m, file_user_path(e->file), "\n");
		else if (test_bit(SFRAME_ENTRY_VDSO, &e->flags))
			seq_puts(m, "[vdso]");
		else if (test_bit(SFRAME_ENTRY_ATTACHED, &e->flags))
			seq_puts(m, "[attached]");
		else
			seq_puts(m, "[jit]");
		seq_putc(m, '\n');
	}
	return 0;
}
