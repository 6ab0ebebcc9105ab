// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-selftests [--repeat N] [NAME...]: runs each test program of this
 * directory in turn (N times over) and reports each as one TAP line
 * through kselftest.h, then kselftest's totals; exits KSFT_PASS, KSFT_FAIL,
 * or KSFT_SKIP when nothing can run (not root, no SFrame registry).
 *
 * A test whose programs or tools are not beside the driver is skipped,
 * with why: not-built names what the Makefile's compilers could not
 * build, and Debian's perf, bpftrace and sqlite3 are there only as
 * tools/testing/selftests/sframe/run lays them out for its guest.
 *
 * Each test runs in its own process group with a time limit, its output
 * collected through a pipe: a failing test's output is shown as "# "
 * lines, NOTE: lines always.  After each test, once its processes are
 * gone, the system-wide count of registered sections must be back where
 * it was: exit (and everything the test undid) frees what it registered.
 * Tests run as processes being profiled (sf_profiler_set()), but for
 * those marked idle.  The programs on kselftest_harness.h (sf_harness.h)
 * judge each test the same way themselves; this driver starts them with
 * "-t NAME" where a program holds several tests, and goes once all are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define SF_TEST_SECONDS		60
/*
 * sf-step single-steps some 110,000 (x86_64) to 250,000 (s390x)
 * instructions: judged at every 16th, 30 to 200 s under TCG; s390x's, at
 * every 4th, took 300 s alone.  A guard, not a measure.
 */
#define SF_STEP_SECONDS		900
/* At every instruction, or Debian's programs (over a million instructions) */
#define SF_STEP_LONG_SECONDS	2400
/* sf-stress's run, up to 120 s more until it saw all it must, and its checks */
#define SF_STRESS_SECONDS	300
#define SF_LEAK_WAIT_MS		2000
#define SF_DIE_WAIT_MS		10000
#define SF_MAX_ARGS		20

#define SF_MAX_NEEDS		4

/*
 * @needs: what must be beside the driver besides the program @argv[0]:
 * another program, a library, or a tool's directory
 */
struct sf_test {
	const char	*name;
	const char	*argv[SF_MAX_ARGS];
	const char	*needs[SF_MAX_NEEDS];
};

/*
 * Tests run only when named: tools/testing/selftests/sframe/run boots a
 * guest for bpftrace's, with more memory, and for s390x's oracle, under
 * another QEMU (see SF_STEP); the oracle at every instruction and
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

/* Tests run with nobody profiling: see sf_profiler_set() */
static const char *const sf_idle_tests[] = { "perf-first", "perf-defer-first", "step",
						 "step-bind-now", "step-every",
						 "step-every-bind-now", "step-debian-sqlite3",
						 "step-debian-find" };

/*
 * Debian's perf sampling sf-perf, then reading what it recorded: under
 * emulation, perf script alone takes a while.  5 s a chain at 1 kHz: 1,000
 * samples a chain even where the guest's timer falls back to the tick.
 * SF_PERF_TOOL is sf-perf-tool's argv; such a test needs linux-perf and
 * the program sampled.
 */
#define SF_PERF_TOOL_SECONDS	300
#define SF_PERF_TOOL(mode, program, ...)					\
	{ "sf-perf-tool", "linux-perf", mode, program, "--work", "5000", ##__VA_ARGS__ }
/*
 * arm64: the same with perf built from the series' tree (tools/vm/build-perf,
 * directory perf-patched), whose leaf-frame fixup no longer adds the leaf's
 * caller a second time: every sample must be exact as perf shows it.
 * It needs perf-patched and the program sampled.
 */
#define SF_PERF_TOOL_PATCHED(mode, program)					\
	{ "sf-perf-tool", "--patched", "perf-patched", mode, program, "--work", "5000" }

/*
 * sqlite3 (tools/toolchain/build-sqlite3) sampled, its stacks by SFrame
 * checked against perf's DWARF unwinding: a table filled, indexed,
 * searched, sorted, aggregated into JSON and indexed for full-text search.
 */
#define SF_SQLITE_SQL								\
	"CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);"		\
	"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"	\
	" WHERE i < 100000) INSERT INTO t SELECT i, hex(randomblob(8)),"	\
	" random() % 1000 FROM n;"						\
	"CREATE INDEX tb ON t(b);"						\
	"SELECT count(*), sum(c) FROM t WHERE b LIKE '%AB%';"			\
	"SELECT b FROM t ORDER BY c, b LIMIT 1 OFFSET 1000;"			\
	"SELECT length(json_group_array(a)) FROM t WHERE a % 7 = 0;"		\
	"CREATE VIRTUAL TABLE f USING fts5(x);"					\
	"INSERT INTO f SELECT b || ' ' || a FROM t LIMIT 20000;"		\
	"SELECT count(*) FROM f WHERE f MATCH 'A*';"
#define SF_PERF_DWARF(name, mode)						\
	{ name, { "sf-perf-dwarf", "linux-perf", mode, "sqlite3", ":memory:",	\
		  SF_SQLITE_SQL }, { "linux-perf", "sqlite3" } }
/*
 * The same under libsframe-audit.so, which registers SFrame made from
 * .eh_frame as objects load: samples through glibc must be exact too.
 * Then Debian's own sqlite3 (tools/vm/guest-tool, directory
 * debian-sqlite3), unmodified, its libraries Debian's: all of its stacks
 * come from the module's sections, compared whole down to the program's
 * _start (on arm64, with the stack copy's PAC-signed return addresses
 * unsigned before perf's DWARF unwinding reads them).
 */
#define SF_PERF_DWARF_AUDIT(name, mode)						\
	{ name, { "sf-perf-dwarf", "--audit", "libsframe-audit.so", "linux-perf",	\
		  mode, "sqlite3", ":memory:", SF_SQLITE_SQL },				\
	  { "libsframe-audit.so", SF_CONVERTER, "linux-perf", "sqlite3" } }
#define SF_PERF_DWARF_DEBIAN(name, mode)					\
	{ name, { "sf-perf-dwarf", "--audit", "libsframe-audit.so", "--tool",	\
		  "debian-sqlite3", "linux-perf", mode, "sqlite3", ":memory:",	\
		  SF_SQLITE_SQL },						\
	  { "libsframe-audit.so", SF_CONVERTER, "debian-sqlite3", "linux-perf" } }

/*
 * The instruction-level oracle: sf-step-prog single-stepped from the
 * loader's first instruction to its exit, its stack judged against the
 * calls it made, the C library and the loader given SFrame by
 * attachment, with lazy binding and without: at every 16th instruction
 * (make check's), and at every instruction (step-every*: make oracle's,
 * some four times as long; a judgement costs more than a step).
 *
 * s390x: Debian 12's QEMU (7.2) single-steps no branch: it sets the link
 * register of a BRASL and goes on at the next instruction, so ld64.so.1's
 * _start runs without _dl_start and faults on a GOT entry never
 * relocated.  The runner boots these under Debian 13's QEMU, which takes
 * every branch but misses the stop at the target of some (sf-step puts a
 * breakpoint there): see sf_named_only_tests.
 */
#if defined(__x86_64__)
#define SF_LDSO		"ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define SF_LDSO		"ld-linux-aarch64.so.1"
#else
#define SF_LDSO		"ld64.so.1"
#endif
#define SF_STEP(name, every, ...)						\
	{ name, { "sf-step", "--every", every, "--min-exact", "90",		\
		  "--attach", "libc.so.6", "step-libc.sframe",			\
		  "--attach", SF_LDSO, "step-ld.sframe",			\
		  ##__VA_ARGS__, "--", "./sf-step-prog" },			\
	  { "sf-step-prog", "step-libc.sframe", "step-ld.sframe" } }

/*
 * Debian's own programs under the oracle: the program, its libraries and
 * its loader (tools/vm/guest-tool's directory DIR) each given SFrame by
 * sframe-gen --raw on the host (DIR-sframe/NAME.sframe) and attached;
 * run through that loader, lazily bound, judged at every 16th instruction.
 * SF_STEP_DEBIAN starts sf-step's argv, to go on with DIR DIR-sframe
 * --name NAME -- DIR/<loader> --library-path DIR DIR/PROG [ARG...]; such
 * a test needs DIR and DIR-sframe.
 */
#define SF_STEP_DEBIAN	"sf-step", "--every", "16", "--min-exact", "99", "--attach-dir"

/* "%PID" in an argument stands for the driver's own pid. */
static const struct sf_test sf_tests[] = {
	{ "check-self",		{ "sframe-check", "self" }, {} },
	{ "check-driver",	{ "sframe-check", "%PID" }, {} },
	{ "static",		{ "sf-static" }, {} },
	{ "rule-cache",		{ "sf-cache" }, {} },
	{ "pie",		{ "sf-pie" }, {} },
#if !defined(__s390x__)		/* binutils 2.44 has no s390x SFrame */
	{ "pie-v2",		{ "sf-pie-v2" }, {} },
#endif
	{ "dlopen",		{ "sf-dlopen" }, {} },
	{ "bad-library",	{ "sf-badlib" }, {} },
	{ "fork",		{ "sf-fork" }, {} },
	{ "share",		{ "sf-share", "-t", "share" }, {} },
	/* SFrame attached to a file without any, made by the runner */
	{ "attach",		{ "sf-attach", "-t", "attach" }, { "sf-attach.sframe", "sf-pie" } },
	{ "audit-attach",	{ "sf-attach", "-t", "audit_attach" },
	  { "libsframe-audit.so", SF_CONVERTER } },
	/* The audit module's cache files: their indexes shared the same way */
	{ "audit-share",	{ "sf-share", "-t", "audit_share" },
	  { "libsframe-audit.so", SF_CONVERTER } },
	{ "munmap",		{ "sf-munmap" }, {} },
	{ "mremap",		{ "sf-mremap" }, {} },
	{ "mprotect",		{ "sf-mprotect" }, {} },
	{ "map-fixed",		{ "sf-mapfixed" }, {} },
	{ "exec-plain",		{ "sf-exec" }, { "sf-plain" } },
	{ "jit",		{ "sf-jit" }, {} },
	{ "permissions",	{ "sf-perm" }, {} },
	{ "userfaultfd",	{ "sf-uffd" }, {} },
	{ "memcg",		{ "sf-memcg" }, {} },
	{ "fuse",		{ "sf-fuse" }, { "sf-attach", "sf-attach.sframe" } },
	{ "ustack",		{ "sf-ustack" }, {} },
	{ "ustack-no-sframe",	{ "sf-ustack-nosf" }, {} },
	{ "deferred",		{ "sf-deferred" }, {} },
	{ "perf",		{ "sf-perf", "-t", "perf" }, {} },
	{ "perf-no-sframe",	{ "sf-perf-nosf", "-t", "perf_no_sframe" }, {} },
	{ "perf-defer",		{ "sf-perf", "-t", "perf_defer" }, {} },
	{ "perf-fork",		{ "sf-perf", "-t", "perf_fork" }, {} },
	{ "perf-nocfi",		{ "sf-perf", "-t", "perf_nocfi" }, {} },
	{ "perf-first",		{ "sf-perf", "-t", "perf_first" }, {} },
	{ "perf-defer-first",	{ "sf-perf", "-t", "perf_defer_first" }, {} },
	{ "perf-defer-nocfi",	{ "sf-perf", "-t", "perf_defer_nocfi" }, {} },
	/*
	 * A gap in a program's .sframe (assembly with CFI, no SFrame) at a
	 * function that moves the stack pointer: stacks through it stop
	 * there, then none under the audit module, which fills it from
	 * .eh_frame
	 */
	{ "perf-gap",		{ "sf-perf-gap", "-t", "perf_gap" }, {} },
	{ "perf-gap-audit",	{ "sf-perf-gap", "-t", "perf_gap_audit" },
	  { "libsframe-audit.so", SF_CONVERTER } },
	{ "vdso",		{ "sf-vdso" }, {} },
	{ "perf-defer-kernel",	{ "sf-perf-defer", "-t", "perf_defer_kernel" }, {} },
	{ "perf-defer-exit",	{ "sf-perf-defer", "-t", "perf_defer_exit" }, {} },
	{ "perf-defer-exec",	{ "sf-perf-defer", "-t", "perf_defer_exec" }, {} },
	/* A uprobe's samples, at once and deferred: walked from its out-of-line step */
	{ "perf-uprobe",	{ "sf-perf-uprobe" }, {} },
	{ "fork-fail",		{ "sf-fork-fail" }, {} },
	{ "bpf",		{ "sf-perf", "-t", "bpf" }, {} },
	{ "bpf-no-sframe",	{ "sf-perf-nosf", "-t", "bpf_no_sframe" }, {} },
	{ "perf-tool-fp",	SF_PERF_TOOL("fp", "sf-perf"), { "linux-perf", "sf-perf" } },
	{ "perf-tool-defer",	SF_PERF_TOOL("defer", "sf-perf"), { "linux-perf", "sf-perf" } },
	{ "perf-tool-fp-no-sframe", SF_PERF_TOOL("fp", "sf-perf-nosf", "--no-sframe"),
	  { "linux-perf", "sf-perf-nosf" } },
#if defined(__aarch64__)
	{ "perf-tool-event",	SF_PERF_TOOL("event", "sf-perf"), { "linux-perf", "sf-perf" } },
	{ "perf-tool-fp-patched", SF_PERF_TOOL_PATCHED("fp", "sf-perf"),
	  { "perf-patched", "sf-perf" } },
#endif
	SF_PERF_DWARF("sqlite3-perf-sync", "sync"),
	SF_PERF_DWARF("sqlite3-perf-defer", "defer"),
	SF_PERF_DWARF("sqlite3-bpf", "bpf"),
	SF_PERF_DWARF_AUDIT("sqlite3-audit-perf-sync", "sync"),
	SF_PERF_DWARF_DEBIAN("debian-sqlite3-audit-perf-sync", "sync"),
	/*
	 * Debian's sqlite3 waiting for input, its stack read by another
	 * process from /proc/<pid>/ustack: under the module to _start; then
	 * without it, what is missing, which must not be the module's stack
	 */
	{ "debian-sqlite3-audit-ustack", { "sf-ustack-remote", "--audit",
					   "libsframe-audit.so", "debian-sqlite3",
					   "sqlite3", ":memory:" },
	  { "libsframe-audit.so", SF_CONVERTER, "debian-sqlite3" } },
	{ "debian-sqlite3-ustack", { "sf-ustack-remote", "--control", "libsframe-audit.so",
				     "debian-sqlite3", "sqlite3", ":memory:" },
	  { "libsframe-audit.so", SF_CONVERTER, "debian-sqlite3" } },
	SF_STEP("step", "16"),
	SF_STEP("step-bind-now", "16", "--bind-now"),
	SF_STEP("step-every", "1"),
	SF_STEP("step-every-bind-now", "1", "--bind-now"),
	{ "step-debian-sqlite3",
	  { SF_STEP_DEBIAN, "debian-sqlite3", "debian-sqlite3-sframe",
	    "--name", "Debian's sqlite3", "--", "debian-sqlite3/" SF_LDSO,
	    "--library-path", "debian-sqlite3", "debian-sqlite3/sqlite3", ":memory:",
	    "create table t(a); insert into t values (1); select * from t;" },
	  { "debian-sqlite3", "debian-sqlite3-sframe" } },
	{ "step-debian-find",
	  { SF_STEP_DEBIAN, "findutils", "findutils-sframe",
	    "--name", "Debian's find", "--", "findutils/" SF_LDSO,
	    "--library-path", "findutils", "findutils/find", "findutils", "-name", "find" },
	  { "findutils", "findutils-sframe" } },
	{ "stress",		{ "sf-stress" }, { "sf-attach", "sf-attach.sframe" } },
#if defined(__x86_64__)
	{ "bpftrace",		{ "sf-bpftrace-tool", "bpftrace", "sf-perf" },
	  { "bpftrace", "sf-perf" } },
	{ "bpftrace-no-sframe",	{ "sf-bpftrace-tool", "bpftrace", "sf-perf-nosf",
				  "--no-sframe" }, { "bpftrace", "sf-perf-nosf" } },
#endif
	{ "ftrace",		{ "sf-ftrace" }, {} },
	{ "ftrace-no-sframe",	{ "sf-ftrace-nosf" }, {} },
#if defined(__x86_64__)
	{ "compat32",		{ "sf-compat32" }, {} },
#endif
#if defined(__aarch64__)
	{ "ustack-pac-a",	{ "sf-ustack-pac" }, {} },
	{ "ustack-pac-b",	{ "sf-ustack-pacb" }, {} },
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

/* False, and why in @why, when something @t needs is not beside the driver */
static bool sf_runnable(const struct sf_test *t, char *why, size_t len)
{
	unsigned int i;

	if (!sf_need(t->argv[0], why, len))
		return false;
	for (i = 0; i < SF_MAX_NEEDS && t->needs[i]; i++)
		if (!sf_need(t->needs[i], why, len))
			return false;
	return true;
}

static void sf_child(const struct sf_test *t, int out)
{
	char pid[32], *argv[SF_MAX_ARGS + 1];
	char path[256];
	int i;

	snprintf(pid, sizeof(pid), "%d", (int)getppid());
	for (i = 0; i < SF_MAX_ARGS && t->argv[i]; i++)
		argv[i] = strcmp(t->argv[i], "%PID") ? (char *)t->argv[i] : pid;
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

static long sf_sections(void)
{
	return sf_stat_get("sections");
}

/*
 * An idle test (sf_idle_tests[]) runs with no perf event that would take
 * user callchains open (sf_profiler_set()), as the processes of a system
 * nobody profiles start.
 */
static bool sf_idle(const struct sf_test *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sf_idle_tests); i++)
		if (!strcmp(sf_idle_tests[i], t->name))
			return true;
	return false;
}

static void sf_run(const struct sf_test *t)
{
	unsigned int seconds = !strncmp(t->argv[0], "sf-perf-", 8) ? SF_PERF_TOOL_SECONDS :
			       !strncmp(t->name, "step-debian-", 12) ? SF_STEP_LONG_SECONDS :
			       !strncmp(t->name, "step-every", 10) ? SF_STEP_LONG_SECONDS :
			       !strcmp(t->argv[0], "sf-step") ? SF_STEP_SECONDS :
			       !strcmp(t->argv[0], "sf-stress") ? SF_STRESS_SECONDS :
			       SF_TEST_SECONDS;
	char reason[256] = "", late[256] = "", *out = NULL;
	struct timespec t0, t1;
	long before, after;
	bool in_time, ok;
	size_t len = 0;
	int pipefd[2], status = 0;
	pid_t pid;

	if (!sf_runnable(t, reason, sizeof(reason))) {
		ksft_test_result_code(KSFT_SKIP, t->name, "%s", reason);
		return;
	}
	if (!sf_profiler_set(!sf_idle(t))) {
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

	after = ok && before >= 0 ? sf_sections_settle(before, SF_LEAK_WAIT_MS) : before;
	if (after != before) {
		snprintf(reason, sizeof(reason),
			 "leak: %ld sections registered before the test, %ld after", before, after);
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

static bool sf_read_self_once(void)
{
	char buf[4096];
	int fd = open("/proc/self/sframe", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return !n;
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
	/* Read, it registers ours: check-driver compares them with the maps. */
	if (!sf_read_self_once())
		ksft_exit_skip("/proc/self/sframe: %s: %s\n", strerror(errno),
			       "a kernel without CONFIG_UNWIND_USER_SFRAME");
	ksft_set_plan(planned * repeat + 1);
	sf_library_path();

	start = sf_sections();
	if (start < 0)
		printf("# %ssections: %s: leak checks are off\n", SF_STATS_DIR, strerror(errno));

	for (round = 0; round < repeat; round++)
		for (i = 0; i < ntests; i++)
			if (sf_selected(&sf_tests[i], argc, argv))
				sf_run(&sf_tests[i]);

	/* All of it, once more: per-test checks miss a leak from a failed test. */
	end = sf_sections();
	if (start < 0) {
		sf_result("no-leak", "cannot read " SF_STATS_DIR "sections");
	} else if (end != start) {
		printf("# %ld sections registered at the start, %ld at the end\n", start, end);
		sf_result("no-leak", "sections count changed over the run");
	} else {
		sf_result("no-leak", NULL);
	}

	ksft_finished();
}
