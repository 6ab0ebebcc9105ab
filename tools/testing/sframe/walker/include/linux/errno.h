/* SPDX-License-Identifier: GPL-2.0 */
/* The system's <linux/errno.h>, which libc headers include too, and the walker's */
#include_next <linux/errno.h>
#include "walker_internal.h"
