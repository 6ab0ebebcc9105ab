// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/<pid>/sframe: the SFrame sections the kernel knows for a process,
 * one line per registered text range.  A process registers them once its
 * stack may be walked (kernel/unwind/sframe_want.c); reading its own
 * file is such a walk's first step.  Opened under the same rule as
 * /proc/<pid>/maps, checked at open time for the same reason.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/sframe_mm.h>

#include "internal.h"
#include "ustack.h"

static int proc_sframe_show(struct seq_file *m, void *v)
{
	struct mm_struct *mm = m->private;
	int ret;

	if (!mm || !mmget_not_zero(mm))
		return 0;
	/* A process reading its own sees those its stack walks would use. */
	if (mm == current->mm)
		sframe_want_current();
	ret = mmap_read_lock_killable(mm);
	if (!ret) {
		ret = sframe_mm_show(m, mm);
		mmap_read_unlock(mm);
	}
	mmput(mm);
	return ret;
}

static int proc_sframe_open(struct inode *inode, struct file *file)
{
	return proc_mm_seq_open(inode, file, proc_sframe_show, PTRACE_MODE_READ);
}

const struct file_operations proc_pid_sframe_operations = {
	.open		= proc_sframe_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= proc_mm_seq_release,
};
