/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame sections of an address space, and the hooks that keep them in
 * step with its mappings.  The hook patches in patches/ call these from
 * mmap, munmap, mprotect, fork, exit, exec, prctl and /proc, and perf's
 * callchain buffers tell it while user stacks may be taken.
 */
#ifndef _LINUX_SFRAME_MM_H
#define _LINUX_SFRAME_MM_H

#include <linux/errno.h>
#include <linux/types.h>

struct file;
struct mm_struct;
struct seq_file;
struct task_struct;
struct unwind_user_ctx;
struct unwind_user_frame;
struct vm_area_struct;

#ifdef CONFIG_UNWIND_USER_SFRAME

void sframe_mm_init(struct mm_struct *mm);
int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm);
void sframe_free_mm(struct mm_struct *mm);
void sframe_fork(struct task_struct *p, unsigned long clone_flags);

void sframe_mmap(struct vm_area_struct *vma, unsigned long start,
		 unsigned long end);
void sframe_munmap(struct mm_struct *mm, unsigned long start,
		   unsigned long end);
void sframe_mprotect(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long oldflags);

int sframe_prctl(int option, unsigned long arg2, unsigned long arg3,
		 unsigned long arg4, unsigned long arg5);
bool sframe_mm_has_sections(struct mm_struct *mm);
int sframe_lookup(struct unwind_user_ctx *ctx, unsigned long ip,
		  struct unwind_user_frame *frame);
int sframe_mm_show(struct seq_file *m, struct mm_struct *mm);

void sframe_want_all_begin(void);
void sframe_want_all_end(void);
void sframe_want_current(void);
void sframe_want_current_nofault(void);
void sframe_want_task(struct task_struct *task, struct mm_struct *mm);

extern const struct file_operations proc_pid_sframe_operations;

#else /* !CONFIG_UNWIND_USER_SFRAME */

static inline void sframe_mm_init(struct mm_struct *mm) {}

static inline int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm)
{
	return 0;
}

static inline void sframe_free_mm(struct mm_struct *mm) {}

static inline void sframe_fork(struct task_struct *p,
			       unsigned long clone_flags) {}

static inline void sframe_mmap(struct vm_area_struct *vma, unsigned long start,
			       unsigned long end) {}

static inline void sframe_munmap(struct mm_struct *mm, unsigned long start,
				 unsigned long end) {}

static inline void sframe_mprotect(struct vm_area_struct *vma,
				   unsigned long start, unsigned long end,
				   unsigned long oldflags) {}

static inline int sframe_prctl(int option, unsigned long arg2,
			       unsigned long arg3, unsigned long arg4,
			       unsigned long arg5)
{
	return -EINVAL;
}

static inline bool sframe_mm_has_sections(struct mm_struct *mm)
{
	return false;
}

static inline int sframe_lookup(struct unwind_user_ctx *ctx, unsigned long ip,
				struct unwind_user_frame *frame)
{
	return -ENOENT;
}

static inline void sframe_want_all_begin(void) {}
static inline void sframe_want_all_end(void) {}
static inline void sframe_want_current(void) {}
static inline void sframe_want_current_nofault(void) {}
static inline void sframe_want_task(struct task_struct *task,
				    struct mm_struct *mm) {}

#endif /* CONFIG_UNWIND_USER_SFRAME */

#ifdef CONFIG_UNWIND_USER_SFRAME_VDSO
void sframe_vdso_register(void);
#else
static inline void sframe_vdso_register(void) {}
#endif

#endif /* _LINUX_SFRAME_MM_H */
