/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/uprobes.h>: the walker in user space has no uprobes (no
 * CONFIG_UPROBES), so nothing of it: see walker_internal.h
 */
#include "walker_internal.h"
