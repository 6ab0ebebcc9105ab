/* SPDX-License-Identifier: GPL-2.0 */
/* What the walker takes from <linux/unaligned.h>: see walker_internal.h */
#include "walker_internal.h"
