// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/<pid>/ustack: a thread's user stack as the kernel unwinds it, one
 * frame per line: "0x<ip> <method>".  A debugging aid for users and the
 * test hook of the unwinder.
 *
 * The reading thread's own file (/proc/thread-self/ustack) shows its stack
 * at that read() call.  Another thread's shows the stack at the point the
 * thread entered the kernel, and only while it stays there: stopped,
 * traced, or blocked in a system call.  A thread that is running cannot
 * be read (EBUSY: stop it first), and one that runs before the walk is
 * over gives EAGAIN, as its stack may have changed under the walk.  The
 * reader must be allowed to ptrace it, as for /proc/<pid>/mem, and its
 * memory is read the way that file reads it.
 *
 * A line's method says how the frame's address was found: "sframe" (the
 * SFrame rules of the code below it), "fp" (frame pointers), "signal"
 * (the context the kernel saved in a signal frame).  The first line, the
 * address the thread entered the kernel from, carries the method of the
 * step that left it.  Stacks deeper than unwind_user.max_frames are cut
 * there.
 */
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
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

static int ustack_show(struct seq_file *m, struct unwind_user_state *state)
{
	unsigned long first_ip = 0;
	unsigned int n = 0, max = READ_ONCE(unwind_user_max_frames);

	for (; !state->done; unwind_user_next(state)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		if (n >= max)
			break;
		/* The first frame waits for the method of the step out of it. */
		if (!n++) {
			first_ip = state->ip;
			continue;
		}
		if (n == 2)
			seq_printf(m, "0x%lx %s\n", first_ip,
				   ustack_method(state->current_type));
		seq_printf(m, "0x%lx %s\n", state->ip,
			   ustack_method(state->current_type));
	}
	if (n == 1)
		seq_printf(m, "0x%lx %s\n", first_ip,
			   ustack_method(state->current_type));
	return 0;
}

/*
 * The user registers of @task, which must not be running; @state and
 * @ncsw say what it was doing, so that the caller can tell it stayed so.
 */
static int ustack_task_regs(struct task_struct *task, struct pt_regs *regs,
			    unsigned int *state, unsigned long *ncsw)
{
	*state = READ_ONCE(task->__state);
	if (*state == TASK_RUNNING)
		return -EBUSY;
	*ncsw = wait_task_inactive(task, *state);
	if (!*ncsw)
		return -EBUSY;
	if (!try_get_task_stack(task))
		return -ESRCH;
	*regs = *task_pt_regs(task);
	put_task_stack(task);
	return 0;
}

static int ustack_show_task(struct seq_file *m, struct task_struct *task)
{
	struct unwind_user_state walk;
	unsigned long ncsw;
	struct mm_struct *mm;
	struct pt_regs regs;
	unsigned int state;
	int ret;

	mm = mm_access(task, PTRACE_MODE_ATTACH_FSCREDS);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	/* A kernel thread, or one past exit_mm(): no user stack */
	if (!mm)
		return 0;
	ret = ustack_task_regs(task, &regs, &state, &ncsw);
	if (!ret) {
		unwind_user_start_remote(&walk, task, mm, &regs);
		ret = ustack_show(m, &walk);
		/* Its registers and stack may have changed under the walk. */
		if (!ret && wait_task_inactive(task, state) != ncsw)
			ret = -EAGAIN;
	}
	mmput(mm);
	return ret;
}

/**
 * proc_pid_ustack() - show a thread's user stack
 * @m: the file's seq_file.
 * @ns: the pid namespace of the /proc instance.
 * @pid: the pid of the directory.
 * @task: the task of the directory: the reader's own thread, or one the
 *	reader may ptrace that is not running.
 *
 * Context: Process context, in the reader's read(); faults and sleeps.
 * Return: 0; -EACCES if the reader may not ptrace @task; -EBUSY if @task
 *	is running; -EAGAIN if it ran during the walk; -EINTR when killed.
 */
int proc_pid_ustack(struct seq_file *m, struct pid_namespace *ns,
		    struct pid *pid, struct task_struct *task)
{
	struct unwind_user_state walk;

	if (task != current)
		return ustack_show_task(m, task);
	unwind_user_start(&walk, false);
	return ustack_show(m, &walk);
}
