// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/<pid>/sframe: the SFrame sections the kernel knows for a process,
 * one line per registered text range.  Opened under the same rule as
 * /proc/<pid>/maps, checked at open time for the same reason.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/sframe_mm.h>

#include "internal.h"

static int proc_sframe_show(struct seq_file *m, void *v)
{
	struct mm_struct *mm = m->private;
	int ret;

	if (!mm || !mmget_not_zero(mm))
		return 0;
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
	struct mm_struct *mm = proc_mem_open(inode, PTRACE_MODE_READ);
	int ret;

	if (IS_ERR(mm))
		return PTR_ERR(mm);
	ret = single_open(file, proc_sframe_show, mm);
	if (ret && mm)
		mmdrop(mm);
	return ret;
}

static int proc_sframe_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	if (m->private)
		mmdrop(m->private);
	return single_release(inode, file);
}

const struct file_operations proc_pid_sframe_operations = {
	.open		= proc_sframe_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= proc_sframe_release,
};
