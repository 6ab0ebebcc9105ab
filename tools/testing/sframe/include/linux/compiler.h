/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's <linux/compiler.h>, as much of it as the headers shared with
 * the kernel use here (include/linux/sframe_format.h).
 */
#ifndef _SFRAME_SHIM_LINUX_COMPILER_H
#define _SFRAME_SHIM_LINUX_COMPILER_H

#ifndef __packed
#define __packed	__attribute__((__packed__))
#endif

#endif /* _SFRAME_SHIM_LINUX_COMPILER_H */
