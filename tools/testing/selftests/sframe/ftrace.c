// SPDX-License-Identifier: GPL-2.0
/*
 * sf-ftrace [--no-sframe]: ftrace's user stack traces.  With the
 * userstacktrace option on and the signal_generate event enabled for this
 * process alone, the program sends itself an ignored signal from the leaf
 * of a known call chain,
 *
 *   main > ftrace_run > ftrace_a > lib_ustack_mid (a linked library) >
 *   ftrace_c > ftrace_leaf
 *
 * and checks each user stack the trace recorded, symbol by symbol to main.
 * The leaf sends the signal with its own system call instruction, so the
 * first frame is this program's code.  Built -O2 -fomit-frame-pointer;
 * with --no-sframe (the same sources without SFrame) it only reports how
 * many stacks frame pointers alone followed to main.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_syscall.h"
#include "sf_harness.h"

#define TRACING		"/sys/kernel/tracing"
#define FTRACE_SIGNALS	20
#define FTRACE_DEPTH	8	/* ftrace keeps 8 user frames */

typedef long (*ftrace_cb)(void);

long lib_ustack_mid(ftrace_cb cb);

static long ftrace_pid;

/* The leaf: an ignored signal to itself, by its own instruction */
__attribute__((noinline)) long ftrace_leaf(void)
{
	return sf_syscall4(SYS_kill, ftrace_pid, SIGURG, 0, 0);
}

SF_CHAIN_FN(ftrace_c, (void), ftrace_leaf())

SF_CHAIN_FN(ftrace_a, (void), lib_ustack_mid(ftrace_c))

__attribute__((noinline)) void ftrace_run(void)
{
	int i;

	for (i = 0; i < FTRACE_SIGNALS; i++)
		ftrace_a();
	__asm__ volatile("" : : : "memory");
}

static bool ftrace_write(const char *file, const char *value)
{
	char path[128];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), TRACING "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (!SF_CHECK(fd >= 0, "open %s: %m", path))
		return false;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return SF_CHECK(ok, "write %s to %s: %m", value, path);
}

static const char *ftrace_sym(unsigned long ip, bool ret)
{
	Dl_info info;

	if (!dladdr((void *)(ret ? ip - 1 : ip), &info) || !info.dli_sname)
		return "?";
	return info.dli_sname;
}

/* Checks one recorded stack; returns whether it is the chain to main. */
static bool ftrace_check(const unsigned long *ips, int nr, bool show)
{
	static const char *const chain[] = {
		"ftrace_leaf", "ftrace_c", "lib_ustack_mid", "ftrace_a", "ftrace_run",
		"main", NULL
	};
	int i;

	for (i = 0; chain[i]; i++)
		if (i >= nr || strcmp(chain[i], ftrace_sym(ips[i], i)))
			break;
	if (!chain[i])
		return true;
	if (show) {
		sf_info("inexact user stack:");
		for (i = 0; i < nr; i++)
			sf_info("  %#lx %s", ips[i], ftrace_sym(ips[i], i));
	}
	return false;
}

/* sf-ftrace-nosf, the same built without SFrame, is the control */
#ifndef SF_CONTROL
SF_TEST_ARGS(ftrace, SF_TEST_SECONDS, SF_NO_ARGS, SF_NO_ARGS)
#else
SF_TEST_ARGS(ftrace_no_sframe, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--no-sframe"))
#endif

int main(int argc, char **argv)
{
	bool no_sframe = argc > 1 && !strcmp(argv[1], "--no-sframe");
	unsigned long ips[FTRACE_DEPTH];
	int stacks = 0, exact = 0, nr = -1;
	char line[256], pid[32];
	FILE *trace;

	sf_harness_enter(argc, argv);

	ftrace_pid = getpid();
	signal(SIGURG, SIG_IGN);
	if (mount("tracefs", TRACING, "tracefs", 0, NULL) && errno != EBUSY)
		sf_fail("mount tracefs: %m");
	snprintf(pid, sizeof(pid), "%ld", ftrace_pid);
	if (!ftrace_write("tracing_on", "0") || !ftrace_write("trace", "") ||
	    !ftrace_write("set_event_pid", pid) ||
	    !ftrace_write("options/userstacktrace", "1") ||
	    !ftrace_write("events/signal/signal_generate/enable", "1"))
		sf_exit();

	ftrace_write("tracing_on", "1");
	ftrace_run();
	ftrace_write("tracing_on", "0");
	ftrace_write("events/signal/signal_generate/enable", "0");
	ftrace_write("options/userstacktrace", "0");

	trace = fopen(TRACING "/trace", "r");
	if (!SF_CHECK(trace, "open trace: %m"))
		sf_exit();
	/* "<user stack trace>", then lines " =>  <address>", one a frame */
	while (fgets(line, sizeof(line), trace)) {
		bool start = strstr(line, "<user stack trace>");
		unsigned long ip;

		if (!start && nr >= 0 && sscanf(line, " => <%lx>", &ip) == 1) {
			if (nr < FTRACE_DEPTH)
				ips[nr++] = ip;
			continue;
		}
		if (nr > 0) {
			stacks++;
			exact += ftrace_check(ips, nr, !no_sframe && stacks - exact <= 3);
		}
		nr = start ? 0 : -1;
	}
	if (nr > 0) {
		stacks++;
		exact += ftrace_check(ips, nr, !no_sframe && stacks - exact <= 3);
	}
	fclose(trace);

	SF_CHECK(stacks == FTRACE_SIGNALS, "%d user stacks traced, %d signals sent",
		 stacks, FTRACE_SIGNALS);
	if (no_sframe)
		sf_check_control("ftrace", exact, stacks);
	else if (SF_CHECK(exact == stacks, "%d of %d user stacks exact to main", exact,
			  stacks))
		sf_note("%d of %d user stacks exact to main", exact, stacks);
	sf_exit();
}
