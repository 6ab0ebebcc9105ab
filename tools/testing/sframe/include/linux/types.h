/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel integer types for building kernel/unwind/ in user space. */
#ifndef _SFRAME_SHIM_LINUX_TYPES_H
#define _SFRAME_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#endif
