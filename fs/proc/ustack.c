// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/<pid>/ustack: the reading thread's own user stack, as the kernel
 * unwinds it at that read() call, one frame per line: "0x<ip> <method>".
 * A debugging aid for users and the test hook of the unwinder.
 *
 * A line's method says how the frame's address was found: "sframe" (the
 * SFrame rules of the code below it), "fp" (frame pointers), "signal"
 * (the context the kernel saved in a signal frame).  The first line, the
 * address the thread entered the kernel from, carries the method of the
 * step that left it.
 *
 * Only a thread's own stack can be walked safely, so the file of another
 * process cannot be read.  Stacks deeper than unwind_user.max_frames are
 * cut there.
 */
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/unwind_user.h>

#include "internal.h"

static const char *ustack_method(enum unwind_user_type type)
{
	switch (type) {
	case UNWIND_USER_TYPE_SFRAME:
		return "sframe";
	case UNWIND_USER_TYPE_SIGNAL:
		return "signal";
	default:
		return "fp";
	}
}

/**
 * proc_pid_ustack() - show the reading thread's user stack
 * @m: the file's seq_file.
 * @ns: the pid namespace of the /proc instance.
 * @pid: the pid of the directory.
 * @task: the task of the directory, which must be in the reader's process.
 *
 * Context: Process context, in the reader's read(); faults and sleeps.
 * Return: 0; -EACCES for another process's file; -EINTR when killed.
 */
int proc_pid_ustack(struct seq_file *m, struct pid_namespace *ns,
		    struct pid *pid, struct task_struct *task)
{
	struct unwind_user_state state;
	unsigned long first_ip = 0;
	unsigned int n = 0, max = READ_ONCE(unwind_user_max_frames);

	if (!same_thread_group(task, current))
		return -EACCES;

	for (unwind_user_start(&state, false); !state.done;
	     unwind_user_next(&state)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		if (n >= max)
			break;
		/* The first frame waits for the method of the step out of it. */
		if (!n++) {
			first_ip = state.ip;
			continue;
		}
		if (n == 2)
			seq_printf(m, "0x%lx %s\n", first_ip,
				   ustack_method(state.current_type));
		seq_printf(m, "0x%lx %s\n", state.ip,
			   ustack_method(state.current_type));
	}
	if (n == 1)
		seq_printf(m, "0x%lx %s\n", first_ip,
			   ustack_method(state.current_type));
	return 0;
}
