// SPDX-License-Identifier: GPL-2.0-only
/*
 * Looking a user address up in the current (or a walked) address space's
 * SFrame sections: the entry whose range holds it, found under RCU in
 * any context, NMI included; its rule from the reader.  A section found
 * corrupt by a lookup that may fault is dropped from the table and
 * reported once; one that cannot fault goes without and leaves that to
 * the next.  Also what /proc/<pid>/sframe shows of the table.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/unwind_user.h>
#include <kunit/visibility.h>

#include "sframe_share.h"
#include "sframe_table.h"

/*
 * Only data that says something wrong condemns a section.  A page that
 * cannot be read (unmapped by a racing munmap, not resident for a
 * non-faulting walk) or a walk's row budget says nothing about it.
 */
static bool sframe_malformed(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP;
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
