// SPDX-License-Identifier: GPL-2.0-only
/*
 * When a process's files' sections are registered: once something may
 * walk its stack, not before.  Registering a library reads its ELF
 * headers, finds or builds its index and faults the section in, at every
 * exec and dlopen(); a process that nobody profiles must not pay that.
 *
 * An address space is "wanted" (SFRAME_MM_WANTED) from
 *  - its creation, while a consumer of user stacks exists: a perf event
 *    that takes user callchains (not one with exclude_callchain_user, as
 *    perf's DWARF mode opens), or a BPF program or stack map, which may;
 *  - its parent's being wanted, for a forked child, which copies the
 *    parent's sections;
 *  - its first walk.  One that may sleep (a deferred unwind, a read of
 *    /proc/<pid>/ustack, its own or another's) registers every
 *    executable mapping before it walks.  One that may not (perf, BPF or
 *    ftrace in an interrupt or NMI, which reads only what is registered
 *    and resident) walks by frame pointers as before and asks the
 *    deferred unwinder to register them before the task returns to user
 *    space (sframe_want_nofault.c).
 * The walker registers nothing itself: its callers ask here first (the
 * deferred unwinder, /proc/<pid>/ustack, the tracers' nofault walk).
 * From then on, the mmap hooks register what it maps, until exec replaces
 * the address space.  Explicit registrations (prctl()) need none of this.
 */
#include <linux/mm_types.h>
#include <linux/sched.h>

#include "sframe_registry.h"

/**
 * sframe_want_current() - the current task's user stack is to be walked,
 *	by a walk that may sleep
 *
 * The first call for an address space registers its sections, before the
 * walk; later calls cost a bit test.  A thread racing with the first may
 * walk while the registration is under way.
 *
 * Context: Task context that may fault and sleep (task_work, a system
 *	call), current a user task.
 */
void sframe_want_current(void)
{
	struct mm_struct *mm = current->mm;

	/* An exiting thread would mark it wanted and register nothing. */
	if (!mm || (current->flags & (PF_KTHREAD | PF_EXITING)) ||
	    test_bit(SFRAME_MM_WANTED, &mm->sframe_flags))
		return;
	/* Fully ordered: a mapping made after it is the hook's to register. */
	if (!test_and_set_bit(SFRAME_MM_WANTED, &mm->sframe_flags))
		sframe_register_mm(mm);
}

/**
 * sframe_want_task() - a task's user stack is to be walked by another
 * @task: a user task that is not running (stopped, traced, or asleep in
 *	the kernel) and not exiting.
 * @mm: its address space; the caller holds a reference (mmget()).
 *
 * As sframe_want_current() for a walk of another process's stack
 * (/proc/<pid>/ustack): a pstack of a process nobody profiled is taken
 * by SFrame, its sections registered from its memory before the walk.
 *
 * Context: Process context that may fault and sleep.
 */
void sframe_want_task(struct task_struct *task, struct mm_struct *mm)
{
	if (task == current) {
		sframe_want_current();
		return;
	}
	if ((task->flags & (PF_KTHREAD | PF_EXITING)) ||
	    test_bit(SFRAME_MM_WANTED, &mm->sframe_flags))
		return;
	if (!test_and_set_bit(SFRAME_MM_WANTED, &mm->sframe_flags))
		sframe_register_task_mm(task, mm);
}
