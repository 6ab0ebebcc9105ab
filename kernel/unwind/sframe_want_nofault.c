// SPDX-License-Identifier: GPL-2.0-only
/*
 * The first walk of a process's user stack in interrupt or NMI context
 * (perf, BPF, ftrace) cannot read files or take locks, so it goes by
 * frame pointers and asks the deferred unwinder for a pass on the way
 * back to user space; that pass registers the process's sections
 * (unwind_user_faultable()), and every later walk has them.  See
 * sframe_want.c for when a process is wanted at all.
 */
#include <linux/hardirq.h>
#include <linux/init.h>
#include <linux/mm_types.h>
#include <linux/sched.h>
#include <linux/unwind_deferred.h>

#include "sframe_registry.h"

static struct unwind_work sframe_want_work;
static bool sframe_want_work_ready __ro_after_init;

/**
 * sframe_want_current_nofault() - the current task's user stack is to be
 *	walked, in interrupt or NMI context
 *
 * The first call for an address space asks the deferred unwinder to
 * register its sections before the task returns to user space: this walk
 * goes without them.  Later calls cost a bit test.
 *
 * Context: Any, NMI included, with current a user task.
 */
void sframe_want_current_nofault(void)
{
	struct mm_struct *mm = current->mm;
	u64 cookie;

	if (!mm || (current->flags & (PF_KTHREAD | PF_EXITING)) ||
	    test_bit(SFRAME_MM_WANTED, &mm->sframe_flags))
		return;
	if (!READ_ONCE(sframe_want_work_ready) ||
	    (in_nmi() && !IS_ENABLED(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG)))
		return;
	unwind_deferred_request(&sframe_want_work, &cookie);
}

/*
 * The deferred pass that serves this request registered the sections
 * before it took the trace (unwind_user_faultable()): nothing is left.
 */
static void sframe_want_deferred(struct unwind_work *work,
				 struct unwind_stacktrace *trace, u64 cookie)
{
}

static int __init sframe_want_nofault_init(void)
{
	int ret = unwind_deferred_init(&sframe_want_work, sframe_want_deferred);

	/* Without it a process is wanted at its first walk that may sleep. */
	if (!ret)
		sframe_want_work_ready = true;
	return ret;
}
core_initcall(sframe_want_nofault_init);
