// SPDX-License-Identifier: GPL-2.0
/*
 * sf-fork-fail: a fork() that fails must leave its parent's deferred
 * unwind state alone.  dup_task_struct() copies the parent's task_struct,
 * the pointer to its cache of walked stacks included; a fork that failed
 * before the child's copy was cleared used to free the parent's cache,
 * which the parent's next deferred walk then wrote into, and which its
 * exit freed again.
 *
 * As an unprivileged user the program samples itself with deferred user
 * callchains (perf's ABI of Linux 6.19) until records arrive, so that its
 * cache exists; then, with RLIMIT_NPROC at 0, each fork() fails at the
 * limit's check, early in copy_process(); then it samples on until as
 * many records again have come, and exits.  Every fork must fail with
 * EAGAIN and every record be a stack exact to main, sampled while waiting
 * for records, or between two forks:
 *
 *   main > ff_sample > ff_round > ff_a > ff_b > ff_spin
 *   main > ff_forks > ff_round > ff_a > ff_b > ff_spin
 *
 * A lean kernel may not show the damage at all; the debug kernel's KASAN
 * reports it on the console, which fails the run (tools/vm-run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_perf.h"
#include "sf_syscall.h"
#include "sf_harness.h"

#define FF_UID		65534	/* nobody: not exempt from RLIMIT_NPROC */
#define FF_PERIOD_NS	100000
#define FF_PAGES	64
#define FF_RECORDS	100	/* before the forks, and again after them */
#define FF_FORKS	32	/* each one freed the cache again */
#define FF_MAX_SECONDS	20
#define FF_SPIN		20000

static const char *const ff_sample_chain[] = {
	"ff_spin", "ff_b", "ff_a", "ff_round", "ff_sample", "sf_test_fork_fail", "main", NULL
};

static const char *const ff_forks_chain[] = {
	"ff_spin", "ff_b", "ff_a", "ff_round", "ff_forks", "sf_test_fork_fail", "main", NULL
};

static volatile unsigned long ff_sink;
static int ff_fd = -1;

/* The leaf: arithmetic only, so a sample of it is in this program. */
__attribute__((noinline)) long ff_spin(void)
{
	unsigned long x = ff_sink, i;

	for (i = 0; i < FF_SPIN; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	ff_sink = x;
	return x & 1;
}

SF_CHAIN_FN(ff_b, (void), ff_spin())

SF_CHAIN_FN(ff_a, (void), ff_b())

/* Sampling is on only here, switched by this function's own syscalls. */
__attribute__((noinline)) long ff_round(void)
{
	long r;

	sf_syscall4(SYS_ioctl, ff_fd, PERF_EVENT_IOC_ENABLE, 0, 0);
	r = ff_a();
	sf_syscall4(SYS_ioctl, ff_fd, PERF_EVENT_IOC_DISABLE, 0, 0);
	__asm__ volatile("" : : : "memory");
	return r;
}

struct ff_tally {
	unsigned int	records;
	unsigned int	exact;
	unsigned int	shown;
};

/* The records the ring holds, each a stack that must be one of the chains */
static void ff_drain(struct sf_perf_ring *ring, struct ff_tally *t, const char *step)
{
	const struct perf_event_header *hdr;
	const uint64_t *rec = ring->rec;

	while ((hdr = sf_perf_ring_next(ring))) {
		SF_CHECK(hdr->type != PERF_RECORD_LOST, "%s: records lost", step);
		if (hdr->type != PERF_RECORD_CALLCHAIN_DEFERRED)
			continue;
		/* header, cookie, nr, ips */
		t->records++;
		if (sf_perf_chain_exact(ff_sample_chain, &rec[3], rec[2]) ||
		    sf_perf_chain_exact(ff_forks_chain, &rec[3], rec[2]))
			t->exact++;
		else if (t->shown++ < 3)
			sf_perf_chain_show(step, &rec[3], rec[2]);
	}
}

/* Samples until @want records have come, or the time is up. */
__attribute__((noinline)) void ff_sample(struct sf_perf_ring *ring, struct ff_tally *t,
					 unsigned int want, const char *step)
{
	time_t end = time(NULL) + FF_MAX_SECONDS;

	while (t->records < want && time(NULL) < end) {
		ff_round();
		ff_drain(ring, t, step);
	}
	SF_CHECK(t->records >= want, "%s: %u records of %u in %d s", step,
		 t->records, want, FF_MAX_SECONDS);
	SF_CHECK(t->exact == t->records, "%s: %u of %u records exact to main",
		 step, t->exact, t->records);
}

/* Forks that must all fail at RLIMIT_NPROC; returns how many did. */
__attribute__((noinline)) unsigned int ff_forks(void)
{
	struct rlimit none = { 0, 0 };
	unsigned int i, failed = 0;
	pid_t pid;

	if (!SF_CHECK(!setrlimit(RLIMIT_NPROC, &none), "setrlimit: %m"))
		return 0;
	for (i = 0; i < FF_FORKS; i++) {
		pid = fork();
		if (!pid)
			_exit(0);
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			sf_fail("fork %u succeeded over RLIMIT_NPROC 0", i);
			continue;
		}
		failed += SF_CHECK(errno == EAGAIN, "fork %u: %m, not EAGAIN", i);
		/* A sample between forks walks with whatever cache is left. */
		ff_round();
	}
	return failed;
}

/* The summary: the forks refused, then the exact stacks before and after them */
#define FF_NOTE	"%u forks failed with EAGAIN; deferred stacks exact to main: %u of %u before them, %u of %u after"

SF_TEST(fork_fail)
{
	static struct sf_perf_ring ring;
	struct ff_tally before = { 0 }, after = { 0 };
	unsigned int failed;

	/* Root may fork past RLIMIT_NPROC: be nobody, as an attacker is. */
	if (!SF_CHECK(!setgroups(0, NULL) && !setgid(FF_UID) && !setuid(FF_UID),
		      "dropping root: %m"))
		sf_exit();
	ff_fd = sf_perf_self_cpu(FF_PERIOD_NS, SF_PERF_DEFER, &ring, FF_PAGES);
	if (!SF_CHECK(ff_fd >= 0, "perf_event_open as uid %d: %m", FF_UID))
		sf_exit();

	ff_sample(&ring, &before, FF_RECORDS, "before the forks");
	failed = ff_forks();
	ff_sample(&ring, &after, FF_RECORDS, "after the forks");
	sf_note(FF_NOTE, failed, before.exact, before.records, after.exact, after.records);
	sf_exit();
}

SF_HARNESS_MAIN
