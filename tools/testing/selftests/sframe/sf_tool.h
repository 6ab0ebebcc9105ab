/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a Debian tool in the guest (tools/vm/guest-tool): DIR holds the
 * tool, its libraries and a .loader file naming the dynamic loader it
 * needs; the tool runs through that loader so that the programs it starts
 * keep the guest's own C library.
 */
#ifndef _SF_TOOL_H
#define _SF_TOOL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

bool sf_tool_init(const char *dir, const char *tool);
bool sf_tool_realpaths(char *loader, char *tool);
FILE *sf_tool_run(const char *const *args, pid_t *pid);
bool sf_tool_wait(pid_t pid, const char *what);

#endif /* _SF_TOOL_H */
