/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/unwind/sframe.c takes from the rest of the kernel.
 *
 * tools/testing/sframe/ supplies a header of the same name and guard that
 * builds the very same reader in user space, so keep this list short.
 */
#ifndef _KERNEL_UNWIND_SFRAME_INTERNAL_H
#define _KERNEL_UNWIND_SFRAME_INTERNAL_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/swab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>
#include <asm/unwind_user_sframe.h>

/*
 * A task only runs code of its own architecture and byte order, so the
 * kernel reads values as they are.  The user-space build of this reader
 * (tools/testing/sframe) reads either order: these are its hooks.
 */
#define SFRAME_READS_FOREIGN	0

static inline bool sframe_foreign(const struct sframe_section *sec)
{
	return false;
}

static inline void sframe_set_foreign(struct sframe_section *sec, bool foreign)
{
}

static __always_inline void sframe_fix_order(const struct sframe_section *sec,
					     void *value, unsigned int size)
{
}

static inline const char *sframe_abi_mismatch(u8 abi, bool foreign_endian)
{
	return abi == SFRAME_ABI ? NULL : "ABI of another architecture";
}

#endif /* _KERNEL_UNWIND_SFRAME_INTERNAL_H */
