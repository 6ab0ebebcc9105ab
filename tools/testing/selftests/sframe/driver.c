// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-selftests [--repeat N] [NAME...]: runs each test program of this
 * directory in turn (N times over) and reports each as one TAP line
 * through kselftest.h, then kselftest's totals; exits KSFT_PASS, KSFT_FAIL,
 * or KSFT_SKIP when nothing can run (not root, no SFrame registry).
 *
 * A test whose program is not beside the driver is skipped, with why:
 * not-built names what the Makefile's compilers could not build.  The
 * programs on kselftest_harness.h (sf_harness.h) skip a test themselves
 * when something else it needs is missing: Debian's perf, bpftrace and
 * sqlite3 are there only as tools/testing/selftests/sframe/run lays them
 * out for its guest.
 *
 * Each test runs in its own process group, its output collected through
 * a pipe: a failing test's output is shown as "# " lines, NOTE: lines
 * always.  The programs on the harness run each test with its time
 * limit, as a process being profiled or not, and judge it and what it
 * left; this driver starts them with "-t NAME", guarding only against a
 * harness that hangs.  sframe-check and sf-compat32 it runs itself, as
 * processes being profiled (sf_profiler_set()), with a time limit.
 * After each test, once its processes are gone, the system-wide count of
 * registered sections must be back where it was: exit (and everything
 * the test undid) frees what it registered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * kselftest.h from the kernel tree this directory is laid into, not a
 * copy: tools/kernel lays it there, run and lib.mk build it there, and a
 * copy here would drift from the runner that reads its output.
 */
#include "../kselftest.h"
#include "sf_group.h"
#include "sf_need.h"
#include "sframe_test.h"

/* sframe-check's and sf-compat32's time; under TCG, not a measure */
#define SF_TEST_SECONDS		60
/*
 * A program on kselftest_harness.h ends each test at the test's own time
 * (sf_harness.h; up to 2,400 s for the oracle at every instruction) and
 * judges what it left: the driver's limit only guards against a harness
 * that hangs, and must not be the one that ends a slow test first (its
 * process group would outlive the harness killed under it).
 */
#define SF_HARNESS_GUARD_SECONDS	2700
#define SF_LEAK_WAIT_MS		2000
#define SF_DIE_WAIT_MS		10000
#define SF_MAX_ARGS		4

/*
 * @harness: @argv runs one test of a program on kselftest_harness.h,
 * which skips it itself when a file it needs is missing
 */
struct sf_test {
	const char	*name;
	const char	*argv[SF_MAX_ARGS];
	bool		harness;
};

/* Test @test of @program, which the harness names sframe.@test */
#define SF_HARNESS_TEST(name, program, test)	{ name, { program, "-t", test }, true }

/*
 * Tests run only when named: tools/testing/selftests/sframe/run boots a
 * guest for bpftrace's, with more memory, and for s390x's oracle, under
 * another QEMU (see step.c); the oracle at every instruction and
 * Debian's programs under it take longer than make check's budget (make
 * oracle runs them).
 */
static const char *const sf_named_only_tests[] = { "bpftrace", "bpftrace-no-sframe",
						   "step-every", "step-every-bind-now",
						   "step-debian-sqlite3", "step-debian-find",
#if defined(__s390x__)
						   "step", "step-bind-now",
#endif
};

/* Each test's arguments, what it needs and its time are its program's. */
static const struct sf_test sf_tests[] = {
	SF_HARNESS_TEST("check-self",		"sf-check",	"check_self"),
	SF_HARNESS_TEST("check-other",		"sf-check",	"check_other"),
	SF_HARNESS_TEST("static",		"sf-static",	"static_executable"),
	SF_HARNESS_TEST("rule-cache",		"sf-cache",	"rule_cache"),
	SF_HARNESS_TEST("pie",			"sf-pie",	"pie"),
#if !defined(__s390x__)		/* binutils 2.44 has no s390x SFrame */
	SF_HARNESS_TEST("pie-v2",		"sf-pie-v2",	"pie"),
#endif
	SF_HARNESS_TEST("dlopen",		"sf-dlopen",	"dlopen"),
	SF_HARNESS_TEST("bad-library",		"sf-badlib",	"bad_library"),
	SF_HARNESS_TEST("fork",			"sf-fork",	"fork"),
	SF_HARNESS_TEST("share",		"sf-share",	"share"),
	SF_HARNESS_TEST("attach",		"sf-attach",	"attach"),
	SF_HARNESS_TEST("audit-attach",		"sf-attach",	"audit_attach"),
	SF_HARNESS_TEST("audit-share",		"sf-share",	"audit_share"),
	SF_HARNESS_TEST("munmap",		"sf-munmap",	"munmap"),
	SF_HARNESS_TEST("mremap",		"sf-mremap",	"mremap"),
	SF_HARNESS_TEST("mprotect",		"sf-mprotect",	"mprotect"),
	SF_HARNESS_TEST("map-fixed",		"sf-mapfixed",	"map_fixed"),
	SF_HARNESS_TEST("exec-plain",		"sf-exec",	"exec_plain"),
	SF_HARNESS_TEST("jit",			"sf-jit",	"jit"),
	SF_HARNESS_TEST("permissions",		"sf-perm",	"permissions"),
	SF_HARNESS_TEST("userfaultfd",		"sf-uffd",	"userfaultfd"),
	SF_HARNESS_TEST("memcg",		"sf-memcg",	"memcg"),
	SF_HARNESS_TEST("fuse",			"sf-fuse",	"fuse"),
	SF_HARNESS_TEST("ustack",		"sf-ustack",	"ustack"),
	SF_HARNESS_TEST("ustack-no-sframe",	"sf-ustack-nosf", "ustack_no_sframe"),
	SF_HARNESS_TEST("deferred",		"sf-deferred",	"deferred"),
	SF_HARNESS_TEST("perf",			"sf-perf",	"perf"),
	SF_HARNESS_TEST("perf-no-sframe",	"sf-perf-nosf",	"perf_no_sframe"),
	SF_HARNESS_TEST("perf-defer",		"sf-perf",	"perf_defer"),
	SF_HARNESS_TEST("perf-fork",		"sf-perf",	"perf_fork"),
	SF_HARNESS_TEST("perf-nocfi",		"sf-perf",	"perf_nocfi"),
	SF_HARNESS_TEST("perf-first",		"sf-perf",	"perf_first"),
	SF_HARNESS_TEST("perf-defer-first",	"sf-perf",	"perf_defer_first"),
	SF_HARNESS_TEST("perf-defer-nocfi",	"sf-perf",	"perf_defer_nocfi"),
	SF_HARNESS_TEST("perf-gap",		"sf-perf-gap",	"perf_gap"),
	SF_HARNESS_TEST("perf-gap-audit",	"sf-perf-gap",	"perf_gap_audit"),
	SF_HARNESS_TEST("vdso",			"sf-vdso",	"vdso"),
	SF_HARNESS_TEST("perf-defer-kernel",	"sf-perf-defer", "perf_defer_kernel"),
	SF_HARNESS_TEST("perf-defer-exit",	"sf-perf-defer", "perf_defer_exit"),
	SF_HARNESS_TEST("perf-defer-exec",	"sf-perf-defer", "perf_defer_exec"),
	SF_HARNESS_TEST("perf-uprobe",		"sf-perf-uprobe", "perf_uprobe"),
	SF_HARNESS_TEST("fork-fail",		"sf-fork-fail",	"fork_fail"),
	SF_HARNESS_TEST("bpf",			"sf-perf",	"bpf"),
	SF_HARNESS_TEST("bpf-no-sframe",	"sf-perf-nosf",	"bpf_no_sframe"),
	SF_HARNESS_TEST("perf-tool-fp",		"sf-perf-tool",	"perf_tool_fp"),
	SF_HARNESS_TEST("perf-tool-defer",	"sf-perf-tool",	"perf_tool_defer"),
	SF_HARNESS_TEST("perf-tool-fp-no-sframe", "sf-perf-tool", "perf_tool_fp_no_sframe"),
#if defined(__aarch64__)
	SF_HARNESS_TEST("perf-tool-event",	"sf-perf-tool",	"perf_tool_event"),
	SF_HARNESS_TEST("perf-tool-fp-patched",	"sf-perf-tool",	"perf_tool_fp_patched"),
#endif
	SF_HARNESS_TEST("sqlite3-perf-sync",	"sf-perf-dwarf", "sqlite3_perf_sync"),
	SF_HARNESS_TEST("sqlite3-perf-defer",	"sf-perf-dwarf", "sqlite3_perf_defer"),
	SF_HARNESS_TEST("sqlite3-bpf",		"sf-perf-dwarf", "sqlite3_bpf"),
	SF_HARNESS_TEST("sqlite3-audit-perf-sync", "sf-perf-dwarf", "sqlite3_audit_perf_sync"),
	SF_HARNESS_TEST("debian-sqlite3-audit-perf-sync", "sf-perf-dwarf",
			"debian_sqlite3_audit_perf_sync"),
	SF_HARNESS_TEST("debian-sqlite3-audit-ustack", "sf-ustack-remote",
			"debian_sqlite3_audit_ustack"),
	SF_HARNESS_TEST("debian-sqlite3-ustack", "sf-ustack-remote", "debian_sqlite3_ustack"),
	SF_HARNESS_TEST("step",			"sf-step",	"step"),
	SF_HARNESS_TEST("step-bind-now",	"sf-step",	"step_bind_now"),
	SF_HARNESS_TEST("step-every",		"sf-step",	"step_every"),
	SF_HARNESS_TEST("step-every-bind-now",	"sf-step",	"step_every_bind_now"),
	SF_HARNESS_TEST("step-debian-sqlite3",	"sf-step",	"step_debian_sqlite3"),
	SF_HARNESS_TEST("step-debian-find",	"sf-step",	"step_debian_find"),
	SF_HARNESS_TEST("stress",		"sf-stress",	"stress"),
#if defined(__x86_64__)
	SF_HARNESS_TEST("bpftrace",		"sf-bpftrace-tool", "bpftrace"),
	SF_HARNESS_TEST("bpftrace-no-sframe",	"sf-bpftrace-tool", "bpftrace_no_sframe"),
#endif
	SF_HARNESS_TEST("ftrace",		"sf-ftrace",	"ftrace"),
	SF_HARNESS_TEST("ftrace-no-sframe",	"sf-ftrace-nosf", "ftrace_no_sframe"),
#if defined(__x86_64__)
	{ "compat32",		{ "sf-compat32" }, false },
#endif
#if defined(__aarch64__)
	SF_HARNESS_TEST("ustack-pac-a",		"sf-ustack-pac", "ustack"),
	SF_HARNESS_TEST("ustack-pac-b",		"sf-ustack-pacb", "ustack"),
#endif
};

/* One TAP line; the reason after "#" says why a test failed */
static void sf_result(const char *name, const char *reason)
{
	if (reason)
		ksft_test_result_code(KSFT_FAIL, name, "%s", reason);
	else
		ksft_test_result_code(KSFT_PASS, name, NULL);
}

static void sf_child(const struct sf_test *t, int out)
{
	char *argv[SF_MAX_ARGS + 1];
	char path[256];
	int i;

	for (i = 0; i < SF_MAX_ARGS && t->argv[i]; i++)
		argv[i] = (char *)t->argv[i];
	argv[i] = NULL;
	setpgid(0, 0);
	dup2(out, 1);
	dup2(out, 2);
	close(out);
	snprintf(path, sizeof(path), "./%s", argv[0]);
	execv(path, argv);
	printf("FAIL: cannot run %s: %s\n", path, strerror(errno));
	fflush(stdout);
	_exit(127);
}

/*
 * Reads the test's output until it closes the pipe or its time is up;
 * keeps the output for a failure report and the first FAIL: line.
 */
static bool sf_collect(int fd, unsigned int seconds, char **out, size_t *len)
{
	long deadline = sf_now_ms() + seconds * 1000L;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	for (;;) {
		long left = deadline - sf_now_ms();

		if (left <= 0)
			return false;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true;
		*out = realloc(*out, *len + n + 1);
		if (!*out) {
			perror("realloc");
			exit(2);
		}
		memcpy(*out + *len, buf, n);
		*len += n;
		(*out)[*len] = '\0';
	}
}

/* Shows NOTE: lines always, everything when the test failed. */
static void sf_show(const char *out, bool all, char *reason, size_t reason_len)
{
	const char *p = out, *nl;

	while (p && *p) {
		int n;

		nl = strchr(p, '\n');
		n = nl ? nl - p : (int)strlen(p);
		if (!strncmp(p, "FAIL: ", 6) && !reason[0])
			snprintf(reason, reason_len, "%.*s", n - 6, p + 6);
		if (all || !strncmp(p, "NOTE: ", 6))
			printf("%s%.*s\n", p[0] == '#' ? "" : "# ", n, p);
		p = nl ? nl + 1 : NULL;
	}
}

/*
 * A program on kselftest_harness.h exits 0 when its test was skipped
 * (something it needs is missing): its TAP line says so, and why, which
 * goes into @why.  Skipped is not passed.
 */
static bool sf_skipped_inside(const char *out, char *why, size_t len)
{
	static const char mark[] = " # SKIP ";
	const char *p, *nl, *skip;
	int n;

	for (p = out; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		n = nl ? nl - p : (int)strlen(p);
		skip = strncmp(p, "ok ", 3) ? NULL : strstr(p, mark);
		if (skip && skip < p + n) {
			skip += strlen(mark);
			snprintf(why, len, "%.*s", n - (int)(skip - p), skip);
			return true;
		}
	}
	return false;
}

/*
 * After a timeout: where the test's first process is stuck goes into the
 * report, and a group that outlives SIGKILL is a failure of its own (the
 * next test's leak check would blame itself otherwise).
 */
static void sf_timed_out(pid_t pgrp, unsigned int seconds, char *reason, size_t len)
{
	char where[160];

	printf("# the test's processes at the timeout:\n");
	sf_group_show(pgrp, where, sizeof(where));
	snprintf(reason, len, "no result within %u s; first: %s", seconds,
		 where[0] ? where : "none left");
	if (sf_group_kill(pgrp, SF_DIE_WAIT_MS))
		return;
	printf("# still there %d s after SIGKILL:\n", SF_DIE_WAIT_MS / 1000);
	sf_group_show(pgrp, where, sizeof(where));
	snprintf(reason, len, "no result within %u s; unkillable: %s", seconds, where);
}

/*
 * Registered sections no live process holds (LONG_MIN: no count): a test
 * sampling the whole system registers the driver's own, which stay.
 */
static long sf_sections(void)
{
	return sf_sections_unowned();
}

/*
 * A program on kselftest_harness.h exits 0 when its filter matched no
 * test: that must not pass for the test the driver named.  Its TAP line
 * for sframe.@test is there, or the test never ran.
 */
static bool sf_ran_inside(const char *out, const char *test)
{
	const char *p, *nl, *name;
	size_t n = strlen(test);

	for (p = out; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (strncmp(p, "ok ", 3) && strncmp(p, "not ok ", 7))
			continue;
		name = strstr(p, " sframe.");
		if (name && (!nl || name < nl) && !strncmp(name + 8, test, n) &&
		    (name[8 + n] == '\n' || name[8 + n] == ' ' || !name[8 + n]))
			return true;
	}
	return false;
}

static void sf_run(const struct sf_test *t)
{
	unsigned int seconds = t->harness ? SF_HARNESS_GUARD_SECONDS : SF_TEST_SECONDS;
	char reason[256] = "", late[256] = "", *out = NULL;
	struct timespec t0, t1;
	long before, after;
	bool in_time, ok;
	size_t len = 0;
	int pipefd[2], status = 0;
	pid_t pid;

	if (!sf_need(t->argv[0], reason, sizeof(reason))) {
		ksft_test_result_code(KSFT_SKIP, t->name, "%s", reason);
		return;
	}
	/* A harness holds the perf event itself, or not for an idle test. */
	if (!sf_profiler_set(!t->harness)) {
		sf_result(t->name, "perf_event_open failed");
		return;
	}
	before = sf_sections();
	if (pipe2(pipefd, O_CLOEXEC)) {
		sf_result(t->name, "pipe failed");
		return;
	}
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		sf_result(t->name, "fork failed");
		return;
	}
	if (!pid) {
		close(pipefd[0]);
		sf_child(t, pipefd[1]);
	}
	setpgid(pid, pid);	/* also here: no race with the child's own call */
	close(pipefd[1]);
	in_time = sf_collect(pipefd[0], seconds, &out, &len);
	if (!in_time)
		sf_timed_out(pid, seconds, late, sizeof(late));
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	/* Whatever the test left behind in its group goes too. */
	kill(-pid, SIGKILL);
	while (waitpid(-pid, NULL, WNOHANG) > 0)
		;
	/* The guest's clock: under emulation, a ratio between tests only */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ksft_print_msg("%s: %ld s\n", t->name, (long)(t1.tv_sec - t0.tv_sec));

	ok = in_time && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	sf_show(out, !ok, reason, sizeof(reason));
	if (!in_time)
		snprintf(reason, sizeof(reason), "%s", late);
	else if (WIFSIGNALED(status))
		snprintf(reason, sizeof(reason), "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (!ok && !reason[0])
		snprintf(reason, sizeof(reason), "exit status %d", WEXITSTATUS(status));

	after = ok && before != LONG_MIN ? sf_sections_unowned_settle(before, SF_LEAK_WAIT_MS) :
		before;
	if (after != before) {
		snprintf(reason, sizeof(reason),
			 "leak: %ld registered sections no process held before the test, %ld after",
			 before, after);
		ok = false;
	}
	if (ok && t->harness && !sf_ran_inside(out, t->argv[2])) {
		snprintf(reason, sizeof(reason), "%s has no test %s", t->argv[0], t->argv[2]);
		ok = false;
	}
	if (ok && sf_skipped_inside(out, reason, sizeof(reason)))
		ksft_test_result_code(KSFT_SKIP, t->name, "%s", reason);
	else
		sf_result(t->name, ok ? NULL : reason);
	free(out);
}

/*
 * The test programs' libraries are beside them: found through
 * LD_LIBRARY_PATH, unless whoever started the driver set it already
 * (run's guest sets it to the directory the programs are in).
 */
static void sf_library_path(void)
{
	char cwd[4096];

	if (getenv("LD_LIBRARY_PATH") || !getcwd(cwd, sizeof(cwd)))
		return;
	setenv("LD_LIBRARY_PATH", cwd, 0);
}

static bool sf_selected(const struct sf_test *t, int argc, char **argv)
{
	const char *name = t->name;
	int i;

	if (argc < 2) {
		for (i = 0; i < (int)ARRAY_SIZE(sf_named_only_tests); i++)
			if (!strcmp(sf_named_only_tests[i], name))
				return false;
		return true;
	}
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int ntests = ARRAY_SIZE(sf_tests), i, planned = 0, repeat = 1, round;
	long start, end;

	ksft_print_header();
	/* --repeat N: each test N times over, to catch what fails rarely */
	if (argc > 2 && !strcmp(argv[1], "--repeat")) {
		repeat = atoi(argv[2]);
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	for (i = 0; i < ntests; i++)
		planned += sf_selected(&sf_tests[i], argc, argv);
	if (geteuid())
		ksft_exit_skip("needs root: perf, BPF, ftrace and the sframe parameters\n");
	if (access("/proc/self/sframe", R_OK))
		ksft_exit_skip("/proc/self/sframe: %s: %s\n", strerror(errno),
			       "a kernel without CONFIG_UNWIND_USER_SFRAME");
	ksft_set_plan(planned * repeat + 1);
	sf_library_path();

	start = sf_sections();
	if (start == LONG_MIN)
		printf("# %ssections: %s: leak checks are off\n", SF_STATS_DIR, strerror(errno));

	for (round = 0; round < repeat; round++)
		for (i = 0; i < ntests; i++)
			if (sf_selected(&sf_tests[i], argc, argv))
				sf_run(&sf_tests[i]);

	/* All of it, once more: per-test checks miss a leak from a failed test. */
	end = start == LONG_MIN ? start : sf_sections_unowned_settle(start, SF_LEAK_WAIT_MS);
	if (start == LONG_MIN) {
		sf_result("no-leak", "cannot read " SF_STATS_DIR "sections");
	} else if (end != start) {
		printf("# %ld registered sections no process held at the start, %ld at the end\n",
		       start, end);
		sf_result("no-leak", "sections count changed over the run");
	} else {
		sf_result("no-leak", NULL);
	}

	ksft_finished();
}
