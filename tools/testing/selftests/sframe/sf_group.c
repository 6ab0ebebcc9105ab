// SPDX-License-Identifier: GPL-2.0
/*
 * A test's process group (see sf_group.h).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_group.h"
#include "sframe_test.h"

/* Prints a file of /proc/@pid as "# " lines; its first line in @first */
static void sf_proc_show(int pid, const char *file, char *first, int len)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%.16s", pid, file);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		printf("#     %s\n", line);
		if (first && !first[0])
			snprintf(first, len, "%.*s", len - 1, line);
	}
	fclose(f);
}

/*
 * Walks the live processes of group @pgrp (zombies hold nothing); with
 * @where, shows what each is doing in the kernel (state, wait channel,
 * kernel stack) and names the first and its innermost frame there.
 */
static int sf_group_walk(pid_t pgrp, char *where, size_t len)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	if (where)
		where[0] = '\0';
	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		char comm[20] = "", top[64] = "", state = '?';
		int pid = atoi(d->d_name);
		long group;

		if (pid <= 0 || !sf_task_stat(pid, &state, &group, NULL) ||
		    group != pgrp || state == 'Z')
			continue;
		if (n++, !where)
			continue;
		printf("# pid %d, state %c:\n", pid, state);
		sf_proc_show(pid, "comm", comm, sizeof(comm));
		sf_proc_show(pid, "wchan", NULL, 0);
		sf_proc_show(pid, "stack", top, sizeof(top));
		if (n == 1)
			snprintf(where, len, "%d %s, state %c, %s", pid, comm, state,
				 top[0] ? top : "no kernel stack");
	}
	closedir(dir);
	fflush(stdout);
	return n;
}

/* The live processes left in group @pgrp */
int sf_group_count(pid_t pgrp)
{
	return sf_group_walk(pgrp, NULL, 0);
}

/*
 * Shows each live process of group @pgrp as "# " lines and returns their
 * number; the first, and where it is in the kernel, in @where.
 */
int sf_group_show(pid_t pgrp, char *where, size_t len)
{
	return sf_group_walk(pgrp, where, len);
}

/*
 * SIGKILLs group @pgrp and reaps what of it is ours; false when some of
 * it is still there after @ms: a process that outlives SIGKILL is stuck
 * in the kernel, a failure of its own.
 */
bool sf_group_kill(pid_t pgrp, long ms)
{
	long deadline = sf_now_ms() + ms;

	kill(-pgrp, SIGKILL);
	for (;;) {
		while (waitpid(-pgrp, NULL, WNOHANG) > 0)
			;
		if (!sf_group_count(pgrp))
			return true;
		if (sf_now_ms() > deadline)
			return false;
		usleep(100000);
	}
}
