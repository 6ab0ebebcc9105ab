/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A forked child for KUnit cases: the test thread's address space is copied
 * by the kernel's own fork path (copy_mm(), dup_mmap() and every hook in
 * it), and a function runs in the child as a user task of its own mm, the
 * way the kernel's usermode helpers start.  The child never reaches user
 * space; it exits when the function returns, through do_exit(), so exit's
 * hooks run too before the test goes on.
 */
#ifndef _SFRAME_KUNIT_FORK_H
#define _SFRAME_KUNIT_FORK_H

#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/signal.h>

struct kunit_fork_child {
	int	(*fn)(void *arg);
	void	*arg;
	int	ret;
};

static int kunit_fork_child_main(void *data)
{
	struct kunit_fork_child *child = data;

	child->ret = child->fn(child->arg);
	do_exit(0);
}

/*
 * Returns what @fn returned in the child, or the error that kept the child
 * from running.  The test thread must have an mm (kunit_vm_mmap() gives it
 * one).
 */
static int kunit_fork_run(int (*fn)(void *arg), void *arg)
{
	struct kunit_fork_child child = { .fn = fn, .arg = arg, .ret = -ECHILD };
	struct kernel_clone_args args = {
		.flags		= CLONE_UNTRACED,
		.exit_signal	= SIGCHLD,
		.fn		= kunit_fork_child_main,
		.fn_arg		= &child,
	};
	int status;
	pid_t pid;

	/* Kernel threads ignore SIGCHLD, which would reap the child unseen. */
	kernel_sigaction(SIGCHLD, SIG_DFL);
	pid = kernel_clone(&args);
	if (pid > 0 && kernel_wait(pid, &status) < 0)
		pid = -ECHILD;
	kernel_sigaction(SIGCHLD, SIG_IGN);
	return pid < 0 ? pid : child.ret;
}

#endif /* _SFRAME_KUNIT_FORK_H */
