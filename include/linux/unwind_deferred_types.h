/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_UNWIND_DEFERRED_TYPES_H
#define _LINUX_UNWIND_DEFERRED_TYPES_H

#include <linux/atomic.h>
#include <linux/types.h>

/**
 * struct unwind_cache - one task's user stack, walked once per kernel entry
 * @nr_entries: entries walked.
 * @max_entries: room in @entries.
 * @walked: @entries hold this stay's stack, and traces handed out point
 *	into them until the task returns to user space.
 * @entries: the return addresses.
 */
struct unwind_cache {
	unsigned int		nr_entries;
	unsigned int		max_entries;
	bool			walked;
	unsigned long		entries[];
};

/*
 * The cookie of a task's stay in the kernel: the CPU (plus one) that first
 * asked for its user stack, and that CPU's count of such first requests,
 * always odd.  Never zero, and no two stays share one.
 */
union unwind_task_id {
	struct {
		u32		cpu;
		u32		cnt;
	};
	u64			id;
};

/**
 * struct unwind_task_info - deferred unwinding state of a task
 * @unwind_mask: bits of the works that asked for this stay's stack, plus
 *	UNWIND_PENDING while the task_work is queued and UNWIND_USED once
 *	anything was asked.
 * @unwind_completed: bits of the works whose callbacks have had this
 *	stay's stack (atomic bit operations: requests from NMI clear them).
 * @repeats: callbacks called again this stay, for requests that came
 *	after theirs had run; at most UNWIND_MAX_REPEATS.
 * @cache: the walked stack, allocated at the first walk.
 * @work: the task_work that walks and calls back.
 * @id: this stay's cookie, 0 until asked for.
 */
struct unwind_task_info {
	atomic_long_t		unwind_mask;
	unsigned long		unwind_completed;
	unsigned int		repeats;
	struct unwind_cache	*cache;
	struct callback_head	work;
	union unwind_task_id	id;
};

#endif /* _LINUX_UNWIND_DEFERRED_TYPES_H */
