// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/<pid>/ustack: a thread's user stack as the kernel unwinds it, one
 * frame per line: "0x<ip> <method>".  A debugging aid for users and the
 * test hook of the unwinder.
 *
 * The reading thread's own file (/proc/thread-self/ustack) shows its stack
 * at that read() call.  Another thread's shows the stack at the point the
 * thread entered the kernel, and only while it stays there: stopped,
 * traced, frozen, or blocked in a system call.  A thread that is running
 * cannot be read (EBUSY: stop it first), and one that runs before the walk
 * is over gives EAGAIN, as its stack may have changed under the walk.
 * Nothing here waits for the thread: neither for it to leave the CPU nor
 * for a freezer to let it go.
 *
 * As /proc/<pid>/mem, the file is checked and bound at open: the opener
 * must be allowed to ptrace the thread (PTRACE_MODE_ATTACH_FSCREDS; its
 * own process needs no check), and the file keeps the address space the
 * thread had then, so whoever reads the descriptor later (a process it was
 * passed to, the opener after it gave up privileges) sees what the opener
 * was allowed to see.  Once the thread has exec()ed, its stack is not in
 * that address space: a read gives ESRCH, for the reading thread's own
 * file too (a descriptor kept across exec of a setuid program must not
 * show the program's stack).  A kernel thread, a thread that has exited
 * (a zombie) and one that exits after the open have no user stack: their
 * file is empty.  Mode 0400, as /proc/<pid>/stack, mem, environ and syscall,
 * the files that show what only a tracer may see: anyone but the thread's
 * owner (root, for a process that is not dumpable) is turned away before
 * the ptrace check.  Its memory is read the way /proc/<pid>/mem reads it.
 *
 * The first walk of a process nobody walked before (no profiler asked
 * for its stacks) registers its SFrame sections first, read from its
 * memory as /proc/<pid>/mem reads it: a pstack of a process that hangs is
 * walked as a profiler's sample of it would be.
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
#include <linux/sframe_mm.h>
#include <linux/unwind_user.h>
#include <linux/wait.h>

#include "internal.h"
#include "ustack.h"

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

/* Another thread, seen while the scheduler holds it where it is */
struct ustack_stop {
	struct pt_regs	*regs;		/* copied here at the first look */
	unsigned long	nr_switches;	/* its context switches then */
};

/*
 * Called through task_call_func(), which holds off @task's wakeup and
 * scheduling: it is inactive if it is neither on a CPU nor queued to run
 * (task_is_runnable() counts a task whose dequeue the scheduler delayed
 * as blocked), the test the freezer makes before it touches a task's
 * state (__set_task_frozen()).  Stopped, traced, asleep or frozen, it
 * cannot run before it is woken and switched in, and every way it then
 * leaves the CPU again counts a context switch.  So the state is not
 * looked at, and in particular not matched with wait_task_inactive():
 * when the freezer moves a task's state to saved_state, that function
 * takes the task to be still queued and waits for it in uninterruptible
 * ticks until the thaw, which would leave the reader unkillable and make
 * a suspend fail on it.
 */
static int ustack_inactive(struct task_struct *task, void *arg)
{
	struct ustack_stop *stop = arg;
	unsigned long nr = task->nvcsw + task->nivcsw;

	if (task_curr(task) || task_is_runnable(task))
		return -EBUSY;
	if (stop->regs) {
		*stop->regs = *task_pt_regs(task);
		stop->nr_switches = nr;
		return 0;
	}
	return nr == stop->nr_switches ? 0 : -EAGAIN;
}

/*
 * @task's user stack, walked in @mm.  exec() replaces a thread's mm under
 * exec_update_lock, held for writing: holding it for reading across the
 * copy of the registers and the walk keeps both in the address space the
 * file was opened on, as proc_pid_stack() holds it (lock_trace()) over the
 * kernel stack.
 */
static int ustack_show_task(struct seq_file *m, struct task_struct *task,
			    struct mm_struct *mm)
{
	struct ustack_stop stop = {};
	struct unwind_user_state walk;
	struct mm_struct *task_mm;
	struct pt_regs regs;
	int ret;

	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		return ret;
	task_mm = get_task_mm(task);
	if (task_mm != mm) {
		/* exec()ed since the open: ESRCH; exited: no user stack */
		ret = task_mm ? -ESRCH : 0;
		goto unlock;
	}
	if (!try_get_task_stack(task)) {
		ret = 0;
		goto unlock;
	}
	stop.regs = &regs;
	ret = task_call_func(task, ustack_inactive, &stop);
	put_task_stack(task);
	if (ret)
		goto unlock;
	/* A process nobody walked before: its sections come first. */
	sframe_want_task(task, mm);
	unwind_user_start_remote(&walk, task, mm, &regs);
	ret = ustack_show(m, &walk);
	/* Its registers and stack may have changed under the walk. */
	stop.regs = NULL;
	if (!ret && task_call_func(task, ustack_inactive, &stop))
		ret = -EAGAIN;
unlock:
	up_read(&task->signal->exec_update_lock);
	if (task_mm)
		mmput(task_mm);
	return ret;
}

/**
 * ustack_seq_show() - show a thread's user stack
 * @m: the file's seq_file; @m->private is the address space the file was
 *	opened on, NULL for a thread that had none.
 * @v: unused (single_open()).
 *
 * The reading thread's own stack at this read(), or that of another thread
 * which is not running, as long as it is still in the address space the
 * file was opened on.
 *
 * Context: Process context, in the reader's read(); faults and sleeps.
 * Return: 0, with nothing shown for a thread with no user stack (a kernel
 *	thread, one that has exited); -ESRCH if the thread has exec()ed
 *	since the open or is gone; -EBUSY if it is running; -EAGAIN if it
 *	ran during the walk; -EINTR when the reader is killed.
 */
static int ustack_seq_show(struct seq_file *m, void *v)
{
	struct mm_struct *mm = m->private;
	struct unwind_user_state walk;
	struct task_struct *task;
	int ret;

	/* Opened on a kernel thread or on one that had exited */
	if (!mm)
		return 0;
	task = get_proc_task(file_inode(m->file));
	if (!task)
		return -ESRCH;
	if (task != current) {
		ret = ustack_show_task(m, task, mm);
	} else if (current->mm != mm) {
		/* Its own file, kept across exec(): not the image it was opened on */
		ret = -ESRCH;
	} else {
		/* The first walk of a process registers its sections first. */
		sframe_want_current();
		unwind_user_start(&walk, false);
		ret = ustack_show(m, &walk);
	}
	put_task_struct(task);
	return ret;
}

/**
 * ustack_open() - check the opener and bind the file to an address space
 * @inode: the file's inode, in a /proc/<pid> or /proc/<pid>/task/<tid>
 *	directory.
 * @file: the file being opened.
 *
 * The check of /proc/<pid>/mem, made once, with the opener's credentials:
 * whoever reads the descriptor later sees what the opener may see.  The
 * address space is pinned (mmgrab(), not its memory) so that a read can
 * tell that the thread is still in it.
 *
 * Context: Process context; sleeps.
 * Return: 0 (a kernel thread, or one that has exited, opens with no
 *	address space and reads as empty); -EACCES if the opener may not
 *	ptrace the thread; -ESRCH if it is gone; -EINTR when the opener is
 *	killed; -ENOMEM.
 */
static int ustack_open(struct inode *inode, struct file *file)
{
	return proc_mm_seq_open(inode, file, ustack_seq_show, PTRACE_MODE_ATTACH);
}

const struct file_operations proc_pid_ustack_operations = {
	.open		= ustack_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= proc_mm_seq_release,
};

/**
 * proc_mm_seq_open() - open a /proc/<pid> seq file bound to an address space
 * @inode: the file's inode, in a /proc/<pid> or /proc/<pid>/task/<tid>
 *	directory.
 * @file: the file being opened.
 * @show: the file's single_open() show function: its seq_file's private
 *	data is the address space, NULL for a kernel thread or one that had
 *	exited.
 * @mode: the PTRACE_MODE_* check the opener must pass.
 *
 * The opener is checked once, here, as for /proc/<pid>/mem, and the
 * address space pinned (mmgrab()) until proc_mm_seq_release().  Shared
 * by /proc/<pid>/ustack and /proc/<pid>/sframe.
 *
 * Context: Process context; sleeps.
 * Return: 0, or the error of proc_mem_open() or single_open().
 */
int proc_mm_seq_open(struct inode *inode, struct file *file,
		     int (*show)(struct seq_file *, void *), unsigned int mode)
{
	struct mm_struct *mm = proc_mem_open(inode, mode);
	int ret;

	if (IS_ERR(mm))
		return PTR_ERR(mm);
	ret = single_open(file, show, mm);
	if (ret && mm)
		mmdrop(mm);
	return ret;
}

/**
 * proc_mm_seq_release() - release a file opened by proc_mm_seq_open()
 * @inode: its inode.
 * @file: the file.
 *
 * Return: 0.
 */
int proc_mm_seq_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	if (m->private)
		mmdrop(m->private);
	return single_release(inode, file);
}
