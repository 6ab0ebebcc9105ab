/* SPDX-License-Identifier: GPL-2.0 */
/* What the walker takes from <linux/mm.h>: see walker_internal.h */
#include "walker_internal.h"
