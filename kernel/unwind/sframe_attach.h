/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame sections attached to ELF files that have none: see
 * sframe_attach.c.
 */
#ifndef _KERNEL_UNWIND_SFRAME_ATTACH_H
#define _KERNEL_UNWIND_SFRAME_ATTACH_H

#include <linux/types.h>

#include "sframe_elf.h"

struct file;
struct mm_struct;
struct sframe_attachment;

int sframe_attach_user(struct sframe_attachment __user *uatt);
int sframe_detach_fd(unsigned long fd);
bool sframe_attached_any(struct file *file);
void sframe_attached_register(struct mm_struct *mm, struct file *file,
			      unsigned long file_base, unsigned long vm_start,
			      unsigned long vm_end,
			      const struct sframe_elf_info *info);
int sframe_attached_at(unsigned long addr);
long sframe_attached_count(void);

#endif /* _KERNEL_UNWIND_SFRAME_ATTACH_H */
