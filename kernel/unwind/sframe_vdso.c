// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vDSO's SFrame section, registered for every process at exec, next to
 * the executable's: user stacks sampled in clock_gettime() and the other
 * vDSO functions are then walked through them by SFrame.
 *
 * The kernel built the vDSO, but its section is read the way any other is:
 * from the process's own mapping, through the reader's checks.  The vDSO
 * is found the way /proc/<pid>/maps names it, by the name of its special
 * mapping, which every architecture calls "[vdso]"; its ELF header and
 * program headers are read from the start of that mapping, where the
 * image begins.  A 32-bit (compat) vDSO is not a 64-bit image of this
 * architecture and is left alone: SFrame has no ABI for it.
 */
#include <linux/elf.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "sframe_elf.h"
#include "sframe_registry.h"

static bool sframe_vma_is_vdso(struct vm_area_struct *vma)
{
	const char *name;

	if (!vma->vm_ops || !vma->vm_ops->name)
		return false;
	name = vma->vm_ops->name(vma);
	return name && !strcmp(name, "[vdso]");
}

/**
 * sframe_vdso_find() - where the vDSO is mapped
 * @mm: the address space.
 * @start: set to the start of the vDSO's mapping.
 * @end: set to its end.
 *
 * Context: Process context, mmap lock not held; may sleep.
 * Return: true if @mm has an executable mapping named "[vdso]".
 */
VISIBLE_IF_KUNIT bool sframe_vdso_find(struct mm_struct *mm, unsigned long *start,
				       unsigned long *end)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	bool found = false;

	if (mmap_read_lock_killable(mm))
		return false;
	for_each_vma(vmi, vma) {
		if ((vma->vm_flags & VM_EXEC) && sframe_vma_is_vdso(vma)) {
			*start = vma->vm_start;
			*end = vma->vm_end;
			found = true;
			break;
		}
	}
	mmap_read_unlock(mm);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_vdso_find);

/* @len bytes at @addr of @mm: the current task's, or a task's that is not running */
static int sframe_vdso_copy(struct mm_struct *mm, void *dst, unsigned long addr,
			    unsigned long len)
{
	if (mm == current->mm)
		return copy_from_user(dst, (const void __user *)addr, len) ? -EFAULT : 0;
	return access_remote_vm(mm, addr, dst, len, 0) == len ? 0 : -EFAULT;
}

/* The program headers of the image at [@start, @end) of @mm. */
static int sframe_vdso_read(struct mm_struct *mm, unsigned long start,
			    unsigned long end, struct sframe_elf_info *info)
{
	struct elf64_phdr *phdrs;
	struct elf64_hdr eh;
	unsigned long size, at;
	int ret = 0;

	if (end - start < sizeof(eh) ||
	    sframe_vdso_copy(mm, &eh, start, sizeof(eh)))
		return -EFAULT;
	if (!sframe_elf_header_ok(&eh))
		return -ENOEXEC;
	size = eh.e_phnum * sizeof(*phdrs);
	if (check_add_overflow(start, (unsigned long)eh.e_phoff, &at) ||
	    at > end || end - at < size)
		return -ENOEXEC;
	phdrs = kmalloc(size, SFRAME_GFP);
	if (!phdrs)
		return -ENOMEM;
	if (sframe_vdso_copy(mm, phdrs, at, size))
		ret = -EFAULT;
	else
		sframe_elf_parse_phdrs(info, phdrs, eh.e_phnum);
	kfree(phdrs);
	return ret;
}

/**
 * sframe_vdso_add() - register the SFrame section of a vDSO image
 * @mm: the address space: current->mm, or that of a task which is not
 *	running.
 * @start: start of the vDSO's mapping, where its ELF image begins.
 * @end: end of the mapping.
 *
 * Each executable segment of the image is registered with the section
 * PT_GNU_SFRAME gives, both where the image's load bias puts them, as
 * for an ELF file; both must lie in the mapping.
 *
 * Context: Process context, mmap lock not held; may sleep.
 * Return: 0 when a section was registered, -ENOENT when the image has no
 *	SFrame, -ENOEXEC when it is not a 64-bit ELF image of this
 *	architecture or its segments lie outside the mapping, else the
 *	error of reading it or of sframe_add_section().
 */
VISIBLE_IF_KUNIT int sframe_vdso_add(struct mm_struct *mm, unsigned long start,
				     unsigned long end)
{
	unsigned long seg_start, seg_end, bias, sframe_start, sframe_end;
	struct sframe_elf_info info;
	struct sframe_new_section add;
	int ret, err = -ENOENT;
	unsigned int i;

	ret = sframe_vdso_read(mm, start, end, &info);
	if (ret)
		return ret;
	if (!info.has_sframe)
		return -ENOENT;

	for (i = 0; i < info.nr_text; i++) {
		const struct sframe_elf_segment *seg = &info.text[i];

		if (check_add_overflow(start, seg->offset, &seg_start) ||
		    check_add_overflow(seg_start, seg->memsz, &seg_end) ||
		    seg_start >= end) {
			err = -ENOEXEC;
			continue;
		}
		bias = seg_start - seg->vaddr;
		if (check_add_overflow(bias, info.sframe_vaddr, &sframe_start) ||
		    check_add_overflow(sframe_start, info.sframe_memsz, &sframe_end) ||
		    sframe_start < start || sframe_end > end) {
			err = -ENOEXEC;
			continue;
		}
		add = (struct sframe_new_section){
			.sframe_start = sframe_start,
			.sframe_size = info.sframe_memsz,
			.seg_start = seg_start,
			.seg_end = seg_end,
			.start = seg_start,
			.end = min(seg_end, end),
			.vdso = true,
		};
		ret = sframe_add_section(mm, &add);
		if (!ret)
			return 0;
		err = ret;
	}
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_vdso_add);

/**
 * sframe_vdso_register() - hook: exec mapped the vDSO; register its section
 *
 * Called by the ELF loader once the architecture has mapped the vDSO into
 * the new program's address space, before it first runs, and by
 * sframe_register_mm() when a process is first wanted.  Nothing happens
 * when the vDSO has no SFrame or the process is not wanted (yet); an error
 * leaves the process without it, walked by frame pointers in the vDSO as
 * before, and fails nothing.
 *
 * Context: Process context (exec, or a first walk), current->mm the
 *	address space, no lock held; may sleep.
 */
void sframe_vdso_register(void)
{
	if (current->mm)
		sframe_vdso_register_mm(current->mm);
}

/**
 * sframe_vdso_register_mm() - register the vDSO's section in an address space
 * @mm: the address space, wanted (SFRAME_MM_WANTED): current->mm, or that
 *	of a task which is not running, whose sections another process's
 *	walk registers (sframe_register_task_mm()).
 *
 * Context: Process context, no lock held; may sleep.
 */
void sframe_vdso_register_mm(struct mm_struct *mm)
{
	unsigned long start, end;

	if (test_bit(SFRAME_MM_WANTED, &mm->sframe_flags) &&
	    sframe_vdso_find(mm, &start, &end))
		sframe_vdso_add(mm, start, end);
}
