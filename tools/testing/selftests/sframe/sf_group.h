/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test's processes, found by their process group: how many are left,
 * where each is stuck in the kernel, and taking them all down.  The
 * runner (the harness or the driver) puts each test in a group of its
 * own so that nothing it started outlives it unseen: a process left
 * behind would hold sections the next test's leak check counts.
 */
#ifndef _SF_GROUP_H
#define _SF_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

int sf_group_count(pid_t pgrp);
int sf_group_show(pid_t pgrp, char *where, size_t len);
bool sf_group_kill(pid_t pgrp, long ms);

#endif /* _SF_GROUP_H */
