/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deferred user stack unwinding: a tracer asks from any context, NMI
 * included, and is called back with the user stack in task context, just
 * before the task returns to user space, where the walk may fault pages
 * in.  The cookie it gets at request time names the stack it will get, so
 * kernel samples taken meanwhile can be joined to it.
 */
#ifndef _LINUX_UNWIND_DEFERRED_H
#define _LINUX_UNWIND_DEFERRED_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/unwind_deferred_types.h>
#include <linux/unwind_user_types.h>

struct unwind_work;

typedef void (*unwind_callback_t)(struct unwind_work *work,
				  struct unwind_stacktrace *trace, u64 cookie);

/**
 * struct unwind_work - a user of deferred unwinding
 * @list: on the list of users.
 * @func: called with each stack it asked for.
 * @bit: its bit in the tasks' unwind_mask; -1 once cancelled.
 */
struct unwind_work {
	struct list_head	list;
	unwind_callback_t	func;
	int			bit;
};

#ifdef CONFIG_UNWIND_USER

enum {
	UNWIND_PENDING_BIT = 0,
	UNWIND_USED_BIT,
	UNWIND_FIRST_WORK_BIT,
};

enum {
	UNWIND_PENDING	= BIT(UNWIND_PENDING_BIT),
	UNWIND_USED	= BIT(UNWIND_USED_BIT),
};

/*
 * A request after its work's callback ran (a sample on the way out) has
 * the callback called again, but only so many times a stay: with samples
 * closer together than a callback takes, answering every one would keep
 * the task from ever reaching user space.  Later requests keep the cookie
 * and get no call, as in mainline, where no request is answered twice.
 */
#define UNWIND_MAX_REPEATS	4

void unwind_task_init(struct task_struct *task);
void unwind_task_free(struct task_struct *task);

int unwind_user_faultable(struct unwind_stacktrace *trace);

int unwind_deferred_init(struct unwind_work *work, unwind_callback_t func);
int unwind_deferred_request(struct unwind_work *work, u64 *cookie);
void unwind_deferred_cancel(struct unwind_work *work);

void unwind_deferred_task_exit(struct task_struct *task);
void unwind_deferred_task_exec(struct task_struct *task);
/* CONFIG_UNWIND_USER_DEFERRED_TEST only: /proc/unwind_deferred_test's count */
long unwind_deferred_walk_count(void);

/*
 * On the way back to user space, after task_work ran: the next stay in the
 * kernel gets a new cookie and a new walk.  Cheap when nothing was asked.
 */
static __always_inline void unwind_reset_info(void)
{
	struct unwind_task_info *info = &current->unwind_info;
	long bits = atomic_long_read(&info->unwind_mask);

	if (likely(!bits))
		return;
	do {
		/* A request came in after task_work ran: it runs again first. */
		if (bits & UNWIND_PENDING)
			return;
	} while (!atomic_long_try_cmpxchg(&info->unwind_mask, &bits, 0));
	info->id.id = 0;
	WRITE_ONCE(info->unwind_completed, 0);
	info->repeats = 0;
	if (info->cache) {
		info->cache->nr_entries = 0;
		info->cache->walked = false;
	}
}

#else /* !CONFIG_UNWIND_USER */

static inline void unwind_task_init(struct task_struct *task) {}
static inline void unwind_task_free(struct task_struct *task) {}

static inline int unwind_user_faultable(struct unwind_stacktrace *trace)
{
	return -ENOSYS;
}

static inline int unwind_deferred_init(struct unwind_work *work,
				       unwind_callback_t func)
{
	return -ENOSYS;
}

static inline int unwind_deferred_request(struct unwind_work *work, u64 *cookie)
{
	return -ENOSYS;
}

static inline void unwind_deferred_cancel(struct unwind_work *work) {}
static inline void unwind_deferred_task_exit(struct task_struct *task) {}
static inline void unwind_deferred_task_exec(struct task_struct *task) {}
static inline void unwind_reset_info(void) {}

#endif /* CONFIG_UNWIND_USER */

#endif /* _LINUX_UNWIND_DEFERRED_H */
