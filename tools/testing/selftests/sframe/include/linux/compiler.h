/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What <linux/sframe_format.h> takes from the kernel's <linux/compiler.h>,
 * and no more: the tree's tools/include/linux/compiler.h would define
 * noinline and the like over the tests' own attributes.
 */
#ifndef _SF_LINUX_COMPILER_H
#define _SF_LINUX_COMPILER_H

#ifndef __packed
#define __packed	__attribute__((__packed__))
#endif

#endif /* _SF_LINUX_COMPILER_H */
