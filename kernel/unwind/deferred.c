// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user stack unwinding.  A request may come from any context
 * (a PMU interrupt, an NMI, a tracepoint): it only marks the task and
 * queues a task_work, reading no user memory and allocating nothing.  The
 * task_work walks the user stack once, on the way back to user space where
 * pages may be faulted in, and calls every work that asked with the same
 * trace and the cookie each was given.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/sframe_mm.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/task_work.h>
#include <linux/unwind_deferred.h>
#include <linux/unwind_user.h>
#include <kunit/visibility.h>

/*
 * A request from NMI claims its bit with cmpxchg; an architecture whose
 * cmpxchg is not NMI-safe may not ask from there.
 */
#ifdef CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG
#define CAN_USE_IN_NMI	1
#else
#define CAN_USE_IN_NMI	0
#endif

/* Users' bits in unwind_mask, and the list the task_work calls them from */
static DEFINE_MUTEX(unwind_works_lock);
static LIST_HEAD(unwind_works);
static unsigned long unwind_works_bits;
DEFINE_STATIC_SRCU(unwind_srcu);

#ifdef CONFIG_UNWIND_USER_DEFERRED_TEST
/* Walks done, not served from a cache: what the end-to-end tests compare */
static atomic_long_t unwind_deferred_walks = ATOMIC_LONG_INIT(0);

static void unwind_count_walk(void)
{
	atomic_long_inc(&unwind_deferred_walks);
}

/**
 * unwind_deferred_walk_count() - user stacks walked for deferred requests
 *
 * Requests served from a task's cache do not count: tests compare it.
 *
 * Return: the count since boot.
 */
long unwind_deferred_walk_count(void)
{
	return atomic_long_read(&unwind_deferred_walks);
}
#else
static inline void unwind_count_walk(void) {}
#endif

/* Per CPU count of stays in the kernel given a cookie: see union unwind_task_id */
static DEFINE_PER_CPU(u32, unwind_ctx_ctr);

/*
 * Interrupts are off, so the CPU cannot change, but an NMI may ask in the
 * middle: whoever sets the count first wins, and both return its cookie.
 */
static u64 unwind_get_cookie(struct unwind_task_info *info)
{
	u32 cnt, none = 0;

	if (READ_ONCE(info->id.cpu))
		return info->id.id;
	cnt = (__this_cpu_read(unwind_ctx_ctr) + 2) | 1;
	if (try_cmpxchg(&info->id.cnt, &none, cnt))
		__this_cpu_write(unwind_ctx_ctr, cnt);
	WRITE_ONCE(info->id.cpu, smp_processor_id() + 1);
	return info->id.id;
}

/*
 * The task's cache, sized for the current frame limit.  A trace handed out
 * during this stay points into the cache until the task returns to user
 * space, so a changed limit is followed only at the first walk of a stay.
 */
static struct unwind_cache *unwind_cache_get(struct unwind_task_info *info)
{
	unsigned int max = READ_ONCE(unwind_user_max_frames);
	struct unwind_cache *cache = info->cache;

	if (cache && (cache->walked || cache->max_entries == max))
		return cache;
	/* A task at its cgroup's limit goes without a stack, not OOM-killed */
	cache = kvzalloc(struct_size(cache, entries, max),
			 GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!cache)
		return info->cache;
	cache->max_entries = max;
	kvfree(info->cache);
	info->cache = cache;
	return cache;
}

/**
 * unwind_user_faultable() - the current task's user stack, walked at most
 *	once per stay in the kernel
 * @trace: set to the walked stack, which stays valid until the task
 *	returns to user space.
 *
 * Context: Task context that may fault and sleep: task_work, or a system
 *	call.
 * Return: 0 and the stack (maybe empty) in @trace; -EINVAL for a task
 *	with no user space; -ENOMEM if no cache could be allocated.
 */
int unwind_user_faultable(struct unwind_stacktrace *trace)
{
	struct unwind_task_info *info = &current->unwind_info;
	struct unwind_cache *cache;

	might_fault();
	trace->nr = 0;
	trace->entries = NULL;
	if ((current->flags & PF_KTHREAD) || !current->mm)
		return -EINVAL;

	cache = unwind_cache_get(info);
	if (!cache)
		return -ENOMEM;
	trace->entries = cache->entries;
	if (cache->walked) {
		trace->nr = cache->nr_entries;
		return 0;
	}
	/* The first walk of a process registers its sections first. */
	sframe_want_current();
	unwind_user(trace, cache->max_entries);
	cache->nr_entries = trace->nr;
	cache->walked = true;
	/* unwind_reset_info() forgets the walk on the way to user space. */
	atomic_long_or(UNWIND_USED, &info->unwind_mask);
	unwind_count_walk();
	return 0;
}

static void unwind_deferred_task_work(struct callback_head *head)
{
	struct unwind_task_info *info = container_of(head, struct unwind_task_info, work);
	struct unwind_stacktrace trace;
	struct unwind_work *work;
	unsigned long bits;
	u64 cookie;
	int idx;

	/* From here a new request queues the task_work again. */
	bits = atomic_long_fetch_andnot(UNWIND_PENDING, &info->unwind_mask);
	if (WARN_ON_ONCE(!(bits & UNWIND_PENDING)))
		return;

	unwind_user_faultable(&trace);
	cookie = info->id.id;

	idx = srcu_read_lock(&unwind_srcu);
	list_for_each_entry_srcu(work, &unwind_works, list,
				 srcu_read_lock_held(&unwind_srcu)) {
		unsigned long bit = BIT(work->bit);

		if (!(bits & bit))
			continue;
		/*
		 * Each work sees each stay's stack once; marked first, so that
		 * a request during the callback gets it called again.
		 */
		if (test_and_set_bit(work->bit, &info->unwind_completed))
			continue;
		work->func(work, &trace, cookie);
	}
	srcu_read_unlock(&unwind_srcu, idx);
}

/**
 * unwind_deferred_request() - ask for the current task's user stack
 * @work: the asking user, set up by unwind_deferred_init().
 * @cookie: set to the cookie of this stay in the kernel: every request
 *	until the task returns to user space gets the same one, and so does
 *	the callback.
 *
 * @work's callback runs in task context before the task returns to user
 * space, once for all the requests it made until then, with the stack
 * walked once for all works.  A request made after the callback ran (a
 * sample taken while the task is on its way out) has it called again,
 * with the same cookie and stack, up to UNWIND_MAX_REPEATS times a stay
 * for all works; a request after that gets the cookie and no call.
 * Safe from NMI where cmpxchg is.
 *
 * Context: Any, with current a user task.
 * Return: 0 if the callback is queued (by this or another request);
 *	1 if this work's callback is queued already, or ran and will not run
 *	again this stay; -EINVAL for a kernel
 *	thread, an exiting task, a task not from user space, or a cancelled
 *	work; the error of task_work_add() otherwise.
 */
int unwind_deferred_request(struct unwind_work *work, u64 *cookie)
{
	struct unwind_task_info *info = &current->unwind_info;
	int bit = READ_ONCE(work->bit), ret;
	unsigned long want;
	long old;

	*cookie = 0;
	if ((current->flags & (PF_KTHREAD | PF_EXITING)) ||
	    !user_mode(task_pt_regs(current)))
		return -EINVAL;
	if (WARN_ON_ONCE(!CAN_USE_IN_NMI && in_nmi()))
		return -EINVAL;
	if (WARN_ON_ONCE(bit < UNWIND_FIRST_WORK_BIT))
		return -EINVAL;
	want = BIT(bit);

	guard(irqsave)();
	*cookie = unwind_get_cookie(info);

	old = atomic_long_read(&info->unwind_mask);
	if (old & want) {
		/* Queued, or answered and out of repeats */
		if (info->repeats >= UNWIND_MAX_REPEATS ||
		    !test_and_clear_bit(bit, &info->unwind_completed))
			return 1;
		/* An NMI here sees the bit clear and returns 1: not counted twice */
		WRITE_ONCE(info->repeats, info->repeats + 1);
	}
	old = atomic_long_fetch_or(want | UNWIND_PENDING | UNWIND_USED,
				   &info->unwind_mask);
	/* Another request (or an NMI inside this one) queued it already. */
	if (old & UNWIND_PENDING)
		return 0;

	/*
	 * Interrupts are off here, and the caller may hold a raw lock (a perf
	 * sample at a context switch holds the runqueue's): no KASAN stack
	 * record that could allocate (see sframe_want_cache()).
	 */
	ret = task_work_add(current, &info->work,
			    in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME | TWAF_NO_ALLOC);
	if (WARN_ON_ONCE(ret))
		atomic_long_andnot(want | UNWIND_PENDING, &info->unwind_mask);
	return ret;
}

/**
 * unwind_deferred_init() - become a user of deferred unwinding
 * @work: the user's descriptor.
 * @func: its callback.
 *
 * Context: Process context.
 * Return: 0; -EBUSY when every bit of unwind_mask is taken.
 */
int unwind_deferred_init(struct unwind_work *work, unwind_callback_t func)
{
	int bit;

	memset(work, 0, sizeof(*work));
	guard(mutex)(&unwind_works_lock);
	bit = find_next_zero_bit(&unwind_works_bits, BITS_PER_LONG,
				 UNWIND_FIRST_WORK_BIT);
	if (bit >= BITS_PER_LONG) {
		work->bit = -1;
		return -EBUSY;
	}
	__set_bit(bit, &unwind_works_bits);
	work->bit = bit;
	work->func = func;
	list_add_rcu(&work->list, &unwind_works);
	return 0;
}

/**
 * unwind_deferred_cancel() - stop being a user of deferred unwinding
 * @work: a descriptor unwind_deferred_init() set up.
 *
 * When this returns, @func is not running and will not be called again.
 *
 * Context: Process context; sleeps.
 */
void unwind_deferred_cancel(struct unwind_work *work)
{
	struct task_struct *g, *t;
	int bit = work->bit;

	if (bit < UNWIND_FIRST_WORK_BIT)
		return;
	scoped_guard(mutex, &unwind_works_lock) {
		list_del_rcu(&work->list);
		WRITE_ONCE(work->bit, -1);
	}
	synchronize_srcu(&unwind_srcu);

	/* No task may keep the bit for the next user that gets it. */
	scoped_guard(rcu) {
		for_each_process_thread(g, t) {
			atomic_long_andnot(BIT(bit), &t->unwind_info.unwind_mask);
			clear_bit(bit, &t->unwind_info.unwind_completed);
		}
	}
	guard(mutex)(&unwind_works_lock);
	__clear_bit(bit, &unwind_works_bits);
}

/**
 * unwind_task_init() - clear a new task's deferred unwinding state
 * @task: the task, a copy of its parent.
 *
 * Until this runs, @task's state is its parent's, cache pointer included:
 * it must come before any failure path of copy_process() that frees @task.
 */
void unwind_task_init(struct task_struct *task)
{
	struct unwind_task_info *info = &task->unwind_info;

	memset(info, 0, sizeof(*info));
	init_task_work(&info->work, unwind_deferred_task_work);
}

/**
 * unwind_task_free() - release a task's deferred unwinding state
 * @task: the task, gone: called from __put_task_struct(), which a task
 *	whose fork failed never reaches.
 */
void unwind_task_free(struct task_struct *task)
{
	struct unwind_task_info *info = &task->unwind_info;

	kvfree(info->cache);
	info->cache = NULL;
	task_work_cancel(task, &info->work);
}

/**
 * unwind_deferred_task_exit() - serve requests of a task that exits
 * @task: current, in do_exit() while it still has its mm.
 *
 * It will not return to user space, so the task_work would not run in
 * time: users still get the stack of the exit.
 */
void unwind_deferred_task_exit(struct task_struct *task)
{
	struct unwind_task_info *info = &task->unwind_info;

	if (!(atomic_long_read(&info->unwind_mask) & UNWIND_PENDING))
		return;
	if (task_work_cancel(task, &info->work))
		unwind_deferred_task_work(&info->work);
}

/**
 * unwind_deferred_task_exec() - end the stay of a task that execs
 * @task: current, in exec past the point of no return, its old mm still
 *	in place.
 *
 * One stay in the kernel would otherwise hold two user stacks: requests
 * made before exec would get the new program's entry at the return to
 * user space.  They get the old program's stack now; requests after this
 * get a new cookie and, later, the new program's stack.
 *
 * Interrupts are on here, unlike on the way back to user space, and a
 * sample may ask again while the callbacks run or in the middle of the
 * reset.  The reset is done with interrupts off, once nothing is pending:
 * a request between its clearing of the mask and of the cookie would be
 * queued under the old cookie and answered under the new one, and the
 * old cookie's samples would never get a record.  A request while the
 * callbacks run is served before the stay ends; each is a repeat, so this
 * loops at most UNWIND_MAX_REPEATS + 1 times.  (An NMI can still land in
 * the reset's few instructions, as on the way back to user space.)
 */
void unwind_deferred_task_exec(struct task_struct *task)
{
	struct unwind_task_info *info = &task->unwind_info;
	unsigned long flags;
	int round;

	if (WARN_ON_ONCE(task != current))
		return;
	for (round = 0; ; round++) {
		unwind_deferred_task_exit(task);
		local_irq_save(flags);
		if (!(atomic_long_read(&info->unwind_mask) & UNWIND_PENDING))
			break;
		/* Not reached: then the stay goes on, as it did before exec. */
		if (WARN_ON_ONCE(round > UNWIND_MAX_REPEATS))
			break;
		local_irq_restore(flags);
	}
	unwind_reset_info();
	local_irq_restore(flags);
}
