// SPDX-License-Identifier: GPL-2.0-only
/*
 * Registering the SFrame sections of files as they are mapped executable:
 * the executable and its interpreter at exec (binfmt_elf maps them with
 * vm_mmap()), libraries as ld.so maps them, code made executable again by
 * mprotect().  No help from user space is needed; a file without a
 * section of its own may have one attached (sframe_attach.c).
 *
 * The hooks run with the mmap lock held, where reading a file is a lock
 * order hazard, so they only note the new range.  The work happens on the
 * way back to user space (task_work), with no lock held: by then ld.so's
 * mmap() of the whole file, or exec's mapping of every segment, has put
 * the section's data in place too.
 */
#include <linux/atomic.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "sframe_attach.h"
#include "sframe_elf.h"
#include "sframe_registry.h"

/* Holders of sframe_want_all_begin(): perf events and BPF programs that take user callchains */
static atomic_t sframe_want_all = ATOMIC_INIT(0);

/**
 * sframe_want_all_begin() - want every new address space: user stacks may be taken
 *
 * From now until the matching sframe_want_all_end(), every new address
 * space registers its files' sections as they are mapped, so that a
 * profiled program's first samples have them (sframe_mm_init()).
 *
 * Context: Any.
 */
void sframe_want_all_begin(void)
{
	atomic_inc(&sframe_want_all);
}

/**
 * sframe_want_all_end() - the matching sframe_want_all_begin() is over
 *
 * Address spaces wanted meanwhile stay wanted.
 *
 * Context: Any.
 */
void sframe_want_all_end(void)
{
	atomic_dec(&sframe_want_all);
}

struct sframe_mmap_work {
	struct callback_head	work;
	unsigned long		start;
	unsigned long		end;
};

/* One executable mapping of @file, as it was when the lock was dropped */
struct sframe_mapping {
	struct file	*file;
	unsigned long	vm_start;
	unsigned long	vm_end;
	unsigned long	file_base;	/* address of file offset 0 */
};

/*
 * Register the part of each executable segment of the file that lies in
 * both the mapping and [@start, @end).  The section is where the segment's
 * load bias puts PT_GNU_SFRAME.
 */
static void sframe_register_mapping(struct mm_struct *mm,
				    const struct sframe_mapping *map,
				    unsigned long start, unsigned long end)
{
	unsigned long seg_start, seg_end, bias;
	struct sframe_elf_info info;
	struct sframe_new_section add;
	unsigned int i;

	if (sframe_elf_info(map->file, &info))
		return;
	if (!info.has_sframe) {
		sframe_attached_register(mm, map->file, map->file_base,
					 map->vm_start, map->vm_end, &info);
		return;
	}
	start = max(start, map->vm_start);
	end = min(end, map->vm_end);

	for (i = 0; i < info.nr_text; i++) {
		const struct sframe_elf_segment *seg = &info.text[i];

		if (check_add_overflow(map->file_base, seg->offset, &seg_start) ||
		    check_add_overflow(seg_start, seg->memsz, &seg_end))
			continue;
		if (seg_end <= start || seg_start >= end)
			continue;
		/* Wrapping is harmless here: the reader refuses such sections. */
		bias = seg_start - seg->vaddr;
		add = (struct sframe_new_section){
			.file = map->file,
			.file_base = map->file_base,
			.sframe_start = bias + info.sframe_vaddr,
			.sframe_size = info.sframe_memsz,
			.seg_start = seg_start,
			.seg_end = seg_end,
			.start = max(seg_start, start),
			.end = min(seg_end, end),
		};
		sframe_add_section(mm, &add);
	}
}

/* Register the sections of every executable file mapping in [@start, @end) */
static void sframe_register_range(struct mm_struct *mm, unsigned long start,
				  unsigned long end)
{
	struct vm_area_struct *vma;
	struct sframe_mapping map;
	unsigned long addr = start;

	while (!(current->flags & PF_EXITING) && addr < end) {
		if (mmap_read_lock_killable(mm))
			break;
		vma = find_vma_intersection(mm, addr, end);
		map.file = NULL;
		if (vma && vma->vm_file && (vma->vm_flags & VM_EXEC)) {
			map.file = get_file(vma->vm_file);
			map.vm_start = vma->vm_start;
			map.vm_end = vma->vm_end;
			map.file_base = vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT);
		}
		addr = vma ? vma->vm_end : end;
		mmap_read_unlock(mm);

		if (map.file) {
			sframe_register_mapping(mm, &map, start, end);
			fput(map.file);
		}
	}
}

static void sframe_mmap_work(struct callback_head *head)
{
	struct sframe_mmap_work *w = container_of(head, struct sframe_mmap_work, work);

	if (current->mm)
		sframe_register_range(current->mm, w->start, w->end);
	kfree(w);
}

/**
 * sframe_register_mm() - register the sections of everything mapped now
 * @mm: the address space, which has just become wanted
 *	(SFRAME_MM_WANTED set): what it maps from here on is registered by
 *	the hooks.
 *
 * Context: Process context, no lock held; may sleep.
 */
void sframe_register_mm(struct mm_struct *mm)
{
	sframe_register_range(mm, 0, ULONG_MAX);
	sframe_vdso_register_mm(mm);
}

/* A mapping that may hold a registered section: see sframe_fault_in_range() */
static void sframe_fault_in_work(struct callback_head *head)
{
	struct sframe_mmap_work *w = container_of(head, struct sframe_mmap_work, work);

	if (current->mm && !(current->flags & PF_EXITING))
		sframe_fault_in_range(current->mm, w->start, w->end);
	kfree(w);
}

/* Run @func for [@start, @end) when @task next returns to user space */
static void sframe_queue_task(struct task_struct *task, unsigned long start,
			      unsigned long end, task_work_func_t func)
{
	struct sframe_mmap_work *w;

	/* Kernel threads borrowing an mm never return to user space. */
	if (task->flags & (PF_KTHREAD | PF_IO_WORKER | PF_EXITING))
		return;
	w = kmalloc(sizeof(*w), SFRAME_GFP);
	if (!w)
		return;
	init_task_work(&w->work, func);
	w->start = start;
	w->end = end;
	if (task_work_add(task, &w->work, TWA_RESUME))
		kfree(w);
}

static void sframe_queue(struct mm_struct *mm, unsigned long start,
			 unsigned long end, task_work_func_t func)
{
	if (mm == current->mm)
		sframe_queue_task(current, start, end, func);
}

/**
 * sframe_register_task_mm() - register another task's sections
 * @task: a user task that is not running (stopped, traced, or asleep in
 *	the kernel), whose address space has just become wanted.
 * @mm: its address space; the caller holds a reference (mmget()).
 *
 * For a walk of @task's stack by another process (/proc/<pid>/ustack):
 * the sections are read from @mm as /proc/<pid>/mem reads it.  The pages
 * of the sections are faulted in by @task itself, before it runs another
 * instruction of its own, as after fork() (sframe_fork()).
 *
 * Context: Process context, no lock held; may sleep.
 */
void sframe_register_task_mm(struct task_struct *task, struct mm_struct *mm)
{
	sframe_register_mm(mm);
	if (rcu_access_pointer(mm->sframe_table))
		sframe_queue_task(task, 0, ULONG_MAX, sframe_fault_in_work);
}

/**
 * sframe_mmap() - hook: [@start, @end) of @vma was just mapped
 * @vma: the new mapping, mmap lock held for writing.
 * @start: start of what was mapped.
 * @end: its end (@vma may be larger after a merge).
 *
 * New code is registered, in a process whose stack may be walked (see
 * sframe_want.c); a new mapping of other parts of a file whose sections
 * are registered gets the pages of those it holds faulted in.  Code of a
 * file version known to have no SFrame costs a cache lookup; any mapping
 * of a process not wanted yet, a bit test.
 */
void sframe_mmap(struct vm_area_struct *vma, unsigned long start,
		 unsigned long end)
{
	/* Only regular files hold ELF images: see sframe_elf_info(). */
	if (!vma->vm_file || !S_ISREG(file_inode(vma->vm_file)->i_mode))
		return;
	/* Nothing may walk this process yet: its first walk registers all. */
	if (!test_bit(SFRAME_MM_WANTED, &vma->vm_mm->sframe_flags))
		return;
	if (vma->vm_flags & VM_EXEC) {
		if (!sframe_elf_known_without(vma->vm_file) ||
		    sframe_attached_any(vma->vm_file))
			sframe_queue(vma->vm_mm, start, end, sframe_mmap_work);
	} else if (sframe_has_file(vma->vm_mm, vma->vm_file)) {
		sframe_queue(vma->vm_mm, start, end, sframe_fault_in_work);
	}
}

/**
 * sframe_mprotect() - hook: [@start, @end) of @vma changed protection
 * @vma: the mapping, mmap lock held for writing.
 * @start: start of the range.
 * @end: its end.
 * @oldflags: the flags it had before.
 *
 * Code that stops being executable is forgotten; a file's code that
 * becomes executable (ld.so does this around text relocations) is
 * registered again.
 */
void sframe_mprotect(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long oldflags)
{
	bool was_exec = oldflags & VM_EXEC, is_exec = vma->vm_flags & VM_EXEC;

	if (was_exec && !is_exec) {
		if (rcu_access_pointer(vma->vm_mm->sframe_table))
			sframe_remove_range(vma->vm_mm, start, end, false);
	} else if (!was_exec && is_exec) {
		sframe_mmap(vma, start, end);
	}
}

/**
 * sframe_fork() - hook: a forked child faults in its sections
 * @p: the new task, not yet running.
 * @clone_flags: how it was made.
 *
 * fork() leaves a file mapping's pages to be faulted in again unless it
 * has anonymous ones, so a child has its sections registered
 * (sframe_dup_mm()) but none of their pages mapped, and walks that
 * cannot fault would fall back at every frame.  The child faults them in
 * on its first return to user space, before it runs an instruction
 * there, as a process does when it maps them.
 */
void sframe_fork(struct task_struct *p, unsigned long clone_flags)
{
	if (clone_flags & CLONE_VM || !p->mm ||
	    !rcu_access_pointer(p->mm->sframe_table))
		return;
	sframe_queue_task(p, 0, ULONG_MAX, sframe_fault_in_work);
}

/**
 * sframe_munmap() - hook: [@start, @end) of @mm is being unmapped
 * @mm: the address space, mmap lock held for writing.
 * @start: start of the range.
 * @end: end of the range.
 */
void sframe_munmap(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	if (rcu_access_pointer(mm->sframe_table))
		sframe_remove_range(mm, start, end, true);
}

/**
 * sframe_mm_init() - hook: a new mm starts without sections
 * @mm: the address space, not yet in use.
 *
 * It registers its files' sections as they are mapped if something may
 * take user stacks now (see sframe_want.c); a forked child's follows
 * its parent's instead (sframe_dup_mm()).
 */
void sframe_mm_init(struct mm_struct *mm)
{
	RCU_INIT_POINTER(mm->sframe_table, NULL);
	mm->sframe_flags = atomic_read(&sframe_want_all) > 0 ? BIT(SFRAME_MM_WANTED) : 0;
}

/*
 * What dup_mmap() did not give the child (VM_DONTCOPY), or gave it only
 * as zeros (VM_WIPEONFORK), is gone from the child as if unmapped: its
 * text and the sections whose data lay there.
 */
static void sframe_remove_uncopied(struct mm_struct *oldmm, struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, oldmm, 0);
	struct vm_area_struct *vma;

	for_each_vma(vmi, vma) {
		if (vma->vm_flags & (VM_DONTCOPY | VM_WIPEONFORK))
			sframe_remove_range(mm, vma->vm_start, vma->vm_end, true);
	}
}

/**
 * sframe_dup_mm() - hook: give a forked child copies of the parent's sections
 * @oldmm: the parent's address space, mmap lock held for writing.
 * @mm: the child's, its mappings copied, mmap lock held for writing.
 *
 * The child gets the sections of what it has of the parent's memory.
 *
 * Return: 0, or -ENOMEM (the fork fails).
 */
int sframe_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm)
{
	int ret;

	RCU_INIT_POINTER(mm->sframe_table, NULL);
	/* The child maps what its parent would have registered: so does it. */
	if (test_bit(SFRAME_MM_WANTED, &oldmm->sframe_flags))
		set_bit(SFRAME_MM_WANTED, &mm->sframe_flags);
	ret = sframe_registry_dup(oldmm, mm);
	if (!ret && rcu_access_pointer(mm->sframe_table))
		sframe_remove_uncopied(oldmm, mm);
	return ret;
}

/**
 * sframe_free_mm() - hook: release every section of a dying address space
 * @mm: the address space, no longer used by any task.
 */
void sframe_free_mm(struct mm_struct *mm)
{
	sframe_registry_free(mm);
}
