// SPDX-License-Identifier: GPL-2.0
/*
 * sf-perf-gap [--audit MODULE | --filled]: samples itself with
 * perf_event_open() (cpu-clock, user mode, user callchains) while it
 * spins in
 *
 *   main > gap_run > gap_round > gap_a > perf_gap_asm (perf-gap.S: CFI,
 *          no SFrame) > perf_gap_spin
 *
 * and checks each callchain symbol by symbol to main, as sf-perf does.
 * The program is built with SFrame but perf-gap.S without: its .sframe
 * has a gap at perf_gap_asm, a non-leaf that moves the stack pointer,
 * where nothing tells the walker where the caller is: walks through it
 * end there.
 *
 * Plain, it counts the samples exact to main and requires that some are
 * not: the gap shows, so the test discriminates.  With --audit MODULE it
 * runs itself again (--filled) under LD_AUDIT=MODULE, libsframe-audit.so,
 * which merges the program's own section with what .eh_frame says of
 * perf_gap_asm and registers it in the place of the kernel's
 * (SFRAME_REGISTER_REPLACE): /proc/self/sframe must show perf_gap_asm's
 * text as explicitly registered, and every one of at least 1,000 samples
 * must be exact to main.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_perf.h"
#include "sf_syscall.h"
#include "sf_harness.h"

#define GAP_SAMPLES		1000
/* The guest's timer fires late under emulation: sample until enough */
#define GAP_MAX_SECONDS		60
#define GAP_SPIN		200000
#define GAP_DATA_PAGES		64

static int gap_fd = -1;
static volatile unsigned long gap_sink;

/* The leaf perf_gap_asm calls: arithmetic only */
__attribute__((noinline)) long perf_gap_spin(void)
{
	unsigned long x = gap_sink, i;

	for (i = 0; i < GAP_SPIN; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	gap_sink = x;
	return x & 1;
}

long perf_gap_asm(void);

SF_CHAIN_FN(gap_a, (void), perf_gap_asm())

static const char *const gap_chain[] = {
	"perf_gap_spin", "perf_gap_asm", "gap_a", "gap_round", "gap_run", "main", NULL
};

/* Sampling is on only here, switched by this function's own syscalls. */
__attribute__((noinline)) long gap_round(void)
{
	long r;

	sf_syscall4(SYS_ioctl, gap_fd, PERF_EVENT_IOC_ENABLE, 0, 0);
	r = gap_a();
	sf_syscall4(SYS_ioctl, gap_fd, PERF_EVENT_IOC_DISABLE, 0, 0);
	__asm__ volatile("" : : : "memory");
	return r;
}

struct gap_tally {
	unsigned int	samples;
	unsigned int	exact;
	unsigned int	shown;
};

static void gap_drain(struct sf_perf_ring *ring, struct gap_tally *t, bool filled)
{
	const struct perf_event_header *hdr;
	const uint64_t *rec = ring->rec;

	while ((hdr = sf_perf_ring_next(ring))) {
		if (hdr->type != PERF_RECORD_SAMPLE) {
			SF_CHECK(hdr->type != PERF_RECORD_LOST, "samples lost");
			continue;
		}
		/* header, ip, nr, ips: user mode only, the user context first */
		if (!SF_CHECK(rec[2] >= 2 && rec[3] == PERF_CONTEXT_USER,
			      "callchain of %llu without a user context",
			      (unsigned long long)rec[2]))
			continue;
		t->samples++;
		if (sf_perf_chain_exact(gap_chain, &rec[4], rec[2] - 1))
			t->exact++;
		else if (t->shown++ < 3)
			sf_perf_chain_show(filled ? "filled" : "gap", &rec[4], rec[2] - 1);
	}
}

__attribute__((noinline)) void gap_run(struct gap_tally *t, bool filled)
{
	static struct sf_perf_ring ring;
	time_t end = time(NULL) + GAP_MAX_SECONDS;
	unsigned int round;

	/* 10 kHz */
	gap_fd = sf_perf_self_cpu(100000, 0, &ring, GAP_DATA_PAGES);
	if (gap_fd < 0)
		return;
	for (round = 0; time(NULL) < end && t->samples < GAP_SAMPLES; round++) {
		gap_round();
		gap_drain(&ring, t, filled);
	}
	sf_perf_ring_unmap(&ring);
	close(gap_fd);
	SF_CHECK(t->samples >= GAP_SAMPLES, "%u samples in %u rounds", t->samples, round);
}

/* Is @addr's text registered explicitly ([jit]) in /proc/self/sframe? */
static bool gap_explicit(uintptr_t addr, char *line, size_t size)
{
	unsigned long start, end;
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/sframe", "r");
	if (!SF_CHECK(f, "/proc/self/sframe: %m"))
		return false;
	*line = '\0';
	while (!found && fgets(line, size, f))
		found = sscanf(line, "%lx-%lx", &start, &end) == 2 &&
			addr >= start && addr < end;
	fclose(f);
	if (!found)
		*line = '\0';
	line[strcspn(line, "\n")] = '\0';
	return found && strstr(line, " [jit]");
}

SF_TEST_ARGS(perf_gap, SF_TEST_SECONDS, SF_NO_ARGS, SF_NO_ARGS)
SF_TEST_ARGS(perf_gap_audit, SF_TEST_SECONDS, SF_ARGS("libsframe-audit.so", SF_CONVERTER),
	     SF_ARGS("--audit", "libsframe-audit.so"))

int main(int argc, char **argv)
{
	struct gap_tally t = { 0 };
	char module[4096], line[512];
	bool filled = argc > 1 && !strcmp(argv[1], "--filled");

	sf_harness_enter(argc, argv);

	if (argc > 2 && !strcmp(argv[1], "--audit")) {
		char *args[3] = { argv[0], "--filled", NULL };

		if (!SF_CHECK(realpath(argv[2], module), "%s: %m", argv[2]))
			sf_exit();
		/* No cache: the conversion itself is under test */
		if (!SF_CHECK(!setenv("LD_AUDIT", module, 1) &&
			      !setenv("SFRAME_AUDIT_CACHE", "0", 1) &&
			      !setenv("SFRAME_AUDIT_VERBOSE", "1", 1), "setenv: %m"))
			sf_exit();
		execv("/proc/self/exe", args);
		sf_fail("exec of itself: %m");
		sf_exit();
	}
	if (filled) {
		if (!SF_CHECK(gap_explicit((uintptr_t)perf_gap_asm, line, sizeof(line)),
			      "perf_gap_asm's text not registered by the module: '%s'", line))
			sf_exit();
		sf_note("/proc/self/sframe: %s", line);
	} else if (!SF_CHECK(!gap_explicit((uintptr_t)perf_gap_asm, line, sizeof(line)) &&
			     *line, "perf_gap_asm's text not the file's: '%s'", line)) {
		sf_exit();
	}

	gap_run(&t, filled);
	if (filled) {
		if (SF_CHECK(t.exact == t.samples, "filled: %u of %u samples exact to main",
			     t.exact, t.samples))
			sf_note("filled: %u of %u samples exact to main", t.exact, t.samples);
	} else if (SF_CHECK(t.samples && t.exact < t.samples,
			    "gap: %u of %u samples exact to main: the gap does not show",
			    t.exact, t.samples)) {
		sf_note("gap: %u of %u samples exact to main", t.exact, t.samples);
	}
	sf_exit();
}
