// SPDX-License-Identifier: GPL-2.0
/*
 * sf-bpftrace-tool DIR PROGRAM [--no-sframe]: Debian's own bpftrace,
 * unchanged, profiles PROGRAM (sf-perf --work MS, as sf-perf-tool does)
 * with
 *
 *   bpftrace -e 'profile:hz:999 /comm == "PROGRAM"/ { @[ustack] = count(); }
 *                interval:s:6 { exit(); }'
 *
 * (PROGRAM starts once bpftrace has attached, and still runs when it
 * prints, so that it can name the functions)
 * and reads the stacks it prints (one "@[" block per stack, a frame per
 * line, then "]: COUNT"): every stack whose first frame is one of the
 * chains' functions must go on exact to main, all of >= 1,000
 * samples.  bpftrace takes the stacks with bpf_get_stackid(), so through
 * perf's get_perf_callchain() and the SFrame walker.  With --no-sframe
 * (PROGRAM built without SFrame) it only reports what frame pointers got.
 *
 * DIR holds bpftrace, its loader and its libraries (tools/vm/guest-tool).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_harness.h"
#include "sf_perf.h"
#include "sf_tool.h"
#include "sframe_test.h"

#define BT_SAMPLES	1000
#define BT_LINE		1024
#define BT_NAME		256
/*
 * bpftrace's start (compiling its program with LLVM) and its 6 s under
 * TCG beside other guests: 60 s was seen to run out
 */
#define BT_SECONDS	300

SF_TEST_ARGS(bpftrace, BT_SECONDS, SF_ARGS("bpftrace", "sf-perf"),
	     SF_ARGS("bpftrace", "sf-perf"))
SF_TEST_ARGS(bpftrace_no_sframe, BT_SECONDS, SF_ARGS("bpftrace", "sf-perf-nosf"),
	     SF_ARGS("bpftrace", "sf-perf-nosf", "--no-sframe"))

int main(int argc, char **argv)
{
	char script[BT_LINE];
	static char names[SF_PERF_CHAIN_NAMES][BT_NAME];
	const char *name_ptr[SF_PERF_CHAIN_NAMES];
	unsigned int samples = 0, exact = 0, nr = 0, shown = 0, i;
	char line[BT_LINE], sym[BT_NAME];
	bool no_sframe, in_stack = false;
	pid_t work = -1, bt = -1;
	unsigned long count;
	FILE *f;

	sf_harness_enter(argc, argv);
	if (!SF_CHECK(argc >= 3,
		      "usage: sf-bpftrace-tool DIR PROGRAM [--no-sframe]"))
		sf_exit();
	no_sframe = argc > 3 && !strcmp(argv[3], "--no-sframe");
	for (i = 0; i < SF_PERF_CHAIN_NAMES; i++)
		name_ptr[i] = names[i];
	if (!sf_tool_init(argv[1], "bpftrace"))
		sf_exit();

	snprintf(script, sizeof(script),
		 "profile:hz:999 /comm == \"%.15s\"/ { @[ustack] = count(); } interval:s:6 { exit(); }",
		 strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2]);
	f = sf_tool_run((const char *const[]){ "-e", script, NULL }, &bt);
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Attach", 6) && work < 0) {
			work = fork();
			if (!work) {
				execl(argv[2], argv[2], "--work", "4000",
				      no_sframe ? "--no-sframe" : NULL, NULL);
				_exit(127);
			}
		} else if (!strncmp(line, "@[", 2)) {
			in_stack = true;
			nr = 0;
		} else if (in_stack && sscanf(line, "]: %lu", &count) == 1) {
			in_stack = false;
			if (!nr || (!sf_perf_in_chain(sf_perf_linked_chain, names[0]) &&
				    !sf_perf_in_chain(sf_perf_dl_chain, names[0])))
				continue;	/* start-up, the C library */
			samples += count;
			if (sf_perf_names_exact(sf_perf_linked_chain, name_ptr, nr) ||
			    sf_perf_names_exact(sf_perf_dl_chain, name_ptr, nr)) {
				exact += count;
			} else if (!no_sframe && shown++ < 3) {
				sf_info("inexact stack, %lu samples:", count);
				for (i = 0; i < nr && i < 12; i++)
					sf_info("  %s", names[i]);
			}
		} else if (in_stack && sscanf(line, " %255s", sym) == 1) {
			if (nr < SF_PERF_CHAIN_NAMES) {
				strtok(sym, "+");
				strcpy(names[nr++], sym);
			}
		} else if (!in_stack && line[0] != '\n') {
			sf_info("bpftrace: %s", strtok(line, "\n"));
		}
	}
	if (f)
		fclose(f);
	if (SF_CHECK(work > 0, "bpftrace did not attach, or fork: %m")) {
		kill(work, SIGKILL);
		waitpid(work, NULL, 0);
	}
	sf_tool_wait(bt, "bpftrace");
	SF_CHECK(samples >= BT_SAMPLES, "%u samples", samples);
	if (no_sframe)
		sf_check_control("bpftrace", exact, samples);
	else if (SF_CHECK(exact == samples,
			  "%u of %u samples exact to main", exact, samples))
		sf_note("bpftrace ustack: %u of %u samples exact to main", exact, samples);
	sf_exit();
}
