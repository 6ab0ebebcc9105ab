/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What /proc/<pid>/sframe takes from /proc/<pid>/ustack's file (built
 * whenever the former is): opening a seq file checked and bound to the
 * address space at open time.
 */
#ifndef _FS_PROC_USTACK_H
#define _FS_PROC_USTACK_H

struct file;
struct inode;
struct seq_file;

int proc_mm_seq_open(struct inode *inode, struct file *file,
		     int (*show)(struct seq_file *, void *), unsigned int mode);
int proc_mm_seq_release(struct inode *inode, struct file *file);

#endif /* _FS_PROC_USTACK_H */
