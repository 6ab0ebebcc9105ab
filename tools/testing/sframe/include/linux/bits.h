/* SPDX-License-Identifier: GPL-2.0 */
/* BIT() for building kernel/unwind/ in user space. */
#ifndef _SFRAME_SHIM_LINUX_BITS_H
#define _SFRAME_SHIM_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))

#endif
