/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_ARM64_UNWIND_USER_SFRAME_H
#define _ASM_ARM64_UNWIND_USER_SFRAME_H

#include <linux/sframe_format.h>

/* The only SFrame ABI a native task of this architecture can use */
#ifdef CONFIG_CPU_BIG_ENDIAN
#define SFRAME_ABI	SFRAME_ABI_AARCH64_ENDIAN_BIG
#else
#define SFRAME_ABI	SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#endif

#endif /* _ASM_ARM64_UNWIND_USER_SFRAME_H */
