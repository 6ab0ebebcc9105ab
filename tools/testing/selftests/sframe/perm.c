// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/sframe follows the read permission of /proc/<pid>/maps:
 * for ourselves, for a kernel thread, and, as an unprivileged user, for
 * root's processes (init and the driver) and for ourselves again.  Each
 * case compares the two files' outcome: both read, or both fail alike.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_harness.h"

#define SF_NOBODY	65534

/* 0 if the whole file reads, else the errno of open or read */
static int sf_try(const char *pid, const char *file)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		err = errno;
	close(fd);
	return err;
}

static const char *sf_errname(int err)
{
	return err ? strerrorname_np(err) : "success";
}

/* sframe must do as maps does; @must_fail: maps itself must be refused. */
static void sf_same(const char *who, const char *pid, bool must_fail)
{
	int maps = sf_try(pid, "maps"), sframe = sf_try(pid, "sframe");

	sf_info("%s: maps %s, sframe %s", who, sf_errname(maps), sf_errname(sframe));
	SF_CHECK(maps == sframe, "%s: /proc/%s/maps: %s but /proc/%s/sframe: %s", who, pid,
		 sf_errname(maps), pid, sf_errname(sframe));
	if (must_fail)
		SF_CHECK(maps, "%s: /proc/%s/maps is readable: the case tests nothing", who, pid);
}

SF_TEST(permissions)
{
	char driver[32];
	int status;
	pid_t pid;

	snprintf(driver, sizeof(driver), "%d", (int)getppid());
	sf_same("self", "self", false);
	sf_same("kernel thread", "2", false);

	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (setgid(SF_NOBODY) || setuid(SF_NOBODY)) {
			sf_fail("cannot become uid %d: %s", SF_NOBODY, strerror(errno));
			sf_exit();
		}
		sf_same("nobody reading init", "1", true);
		sf_same("nobody reading the driver", driver, true);
		sf_same("nobody reading itself", "self", false);
		sf_exit();
	}
	SF_CHECK(pid > 0, "fork");
	if (pid > 0) {
		waitpid(pid, &status, 0);
		SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child status %#x", status);
	}
	sf_exit();
}

SF_HARNESS_MAIN
