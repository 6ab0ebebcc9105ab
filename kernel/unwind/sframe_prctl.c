// SPDX-License-Identifier: GPL-2.0-only
/*
 * prctl(PR_SFRAME_REGISTER / PR_SFRAME_UNREGISTER): SFrame sections that
 * no mapped ELF file announces, for JITs and runtimes; PR_SFRAME_ATTACH
 * and PR_SFRAME_DETACH (sframe_attach.c) for ELF files without any, and
 * PR_SFRAME_ATTACHED to ask whether code is covered by an attachment.  The
 * argument is an extensible structure that starts with its own size,
 * read the way clone3() and openat2() read theirs.
 */
#include <linux/overflow.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <uapi/linux/sframe.h>
#include <kunit/visibility.h>

#include "sframe_attach.h"
#include "sframe_registry.h"

static int sframe_register_user(struct sframe_registration __user *ureg)
{
	struct sframe_registration reg;
	u64 sframe_end, text_end;
	struct sframe_new_section add;
	u32 size;
	int ret;

	if (get_user(size, &ureg->size))
		return -EFAULT;
	if (size < SFRAME_REGISTRATION_SIZE_VER0)
		return -EINVAL;
	/* As clone3() and openat2(): no page of zeros to check byte by byte */
	if (size > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&reg, sizeof(reg), ureg, size);
	if (ret)
		return ret;
	if ((reg.flags & ~SFRAME_REGISTER_REPLACE) || !reg.sframe_size || !reg.text_size ||
	    check_add_overflow(reg.sframe_start, reg.sframe_size, &sframe_end) ||
	    check_add_overflow(reg.text_start, reg.text_size, &text_end))
		return -EINVAL;
	add = (struct sframe_new_section){
		.sframe_start = reg.sframe_start,
		.sframe_size = reg.sframe_size,
		.seg_start = reg.text_start,
		.seg_end = text_end,
		.start = reg.text_start,
		.end = text_end,
		.replace = reg.flags & SFRAME_REGISTER_REPLACE,
	};
	return sframe_add_section(current->mm, &add);
}

/**
 * sframe_prctl() - hook: the SFrame options of prctl()
 * @option: PR_SFRAME_REGISTER, PR_SFRAME_UNREGISTER, PR_SFRAME_ATTACH,
 *	PR_SFRAME_DETACH or PR_SFRAME_ATTACHED.
 * @arg2: the struct sframe_registration, the text start to unregister,
 *	the struct sframe_attachment, the ELF file's descriptor to detach, or
 *	the address of code to ask about.
 * @arg3: must be 0.
 * @arg4: must be 0.
 * @arg5: must be 0.
 *
 * Return: 0 or a negative error, as include/uapi/linux/sframe.h lists;
 * PR_SFRAME_ATTACHED 1 or 0 for its answer.
 */
int sframe_prctl(int option, unsigned long arg2, unsigned long arg3,
		 unsigned long arg4, unsigned long arg5)
{
	if (arg3 || arg4 || arg5 || !current->mm)
		return -EINVAL;
	switch (option) {
	case PR_SFRAME_REGISTER:
		return sframe_register_user((struct sframe_registration __user *)arg2);
	case PR_SFRAME_UNREGISTER:
		return sframe_remove_explicit(current->mm, arg2);
	case PR_SFRAME_ATTACH:
		return sframe_attach_user((struct sframe_attachment __user *)arg2);
	case PR_SFRAME_DETACH:
		return sframe_detach_fd(arg2);
	case PR_SFRAME_ATTACHED:
		return sframe_attached_at(arg2);
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_prctl);
