// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/sframe against what the oracle derives from /proc/PID/maps
 * and the mapped files' program headers, as the sframe-check tool
 * compares them: for this process (check_self), and for another one read
 * from outside (check_other), whose sections the reader's own reads must
 * not change.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_harness.h"

/* @pid's lines as the oracle expects them, every difference a failure */
static void check_pid(const char *pid)
{
	struct sf_set want, got;
	int diff;

	/* The kernel's view first: the oracle's reads map nothing. */
	if (!SF_CHECK(!sf_actual(pid, &got), "/proc/%s/sframe: %m", pid) ||
	    !SF_CHECK(!sf_expected(pid, &want), "the oracle for %s failed", pid))
		sf_exit();
	diff = sf_compare(&want, &got, stdout, "# ");
	SF_CHECK(!diff, "/proc/%s/sframe: %d lines differ (%d expected, %d read)", pid, diff,
		 want.n, got.n);
	SF_CHECK(got.n > 0, "/proc/%s/sframe: no line", pid);
	sf_set_free(&want);
	sf_set_free(&got);
}

SF_TEST(check_self)
{
	check_pid("self");
	sf_exit();
}

SF_TEST(check_other)
{
	char pid[16], c = 0;
	int ready[2], done[2], status;
	pid_t child;

	if (!SF_CHECK(!pipe(ready) && !pipe(done), "pipe: %m"))
		sf_exit();
	child = fork();
	if (!SF_CHECK(child >= 0, "fork: %m"))
		sf_exit();
	if (!child) {
		/* Its own read registers what nobody registered yet. */
		check_pid("self");
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(2);
		_exit(sf_failed ? 1 : 0);
	}
	if (SF_CHECK(read(ready[0], &c, 1) == 1, "the child ended before its own check")) {
		snprintf(pid, sizeof(pid), "%d", (int)child);
		check_pid(pid);
		/* Twice: the first reader's reads must have left it as it was. */
		check_pid(pid);
	}
	if (write(done[1], &c, 1) != 1)
		kill(child, SIGKILL);
	SF_CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 !WEXITSTATUS(status), "the child's own check failed: status %#x", status);
	sf_exit();
}

SF_HARNESS_MAIN
