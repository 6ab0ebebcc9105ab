/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_UNWIND_USER_SFRAME_H
#define _ASM_X86_UNWIND_USER_SFRAME_H

#include <linux/sframe_format.h>

/* The only SFrame ABI a native task of this architecture can use */
#define SFRAME_ABI	SFRAME_ABI_AMD64_ENDIAN_LITTLE

#endif /* _ASM_X86_UNWIND_USER_SFRAME_H */
