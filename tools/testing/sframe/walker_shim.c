// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's user stack walker, built in user space: the shim header
 * first, then kernel/unwind/user.c exactly as the kernel compiles it, with
 * the arch hooks of arch/<arch>/include/asm/unwind_user.h.
 */
#include "walker_internal.h"
#include "../../../kernel/unwind/user.c"

struct task_struct walk_task;
bool walk_in_nmi;
bool walk_nmi_uaccess_okay = true;

int param_get_uint(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "%u\n", *(unsigned int *)kp->arg);
}
