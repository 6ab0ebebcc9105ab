// SPDX-License-Identifier: GPL-2.0
/*
 * sf-perf-defer kernel|exit|exec: deferred user callchains (Linux 6.19's
 * perf ABI) of samples taken in the kernel, where one stay in the kernel
 * holds many samples and ends in one of three ways.  Samples are of
 * kernel mode only (exclude_user), their callchains PERF_CONTEXT_USER_DEFERRED
 * and a cookie; the user stack comes in a PERF_RECORD_CALLCHAIN_DEFERRED
 * with that cookie.  The stays are read() calls of 4 MiB from /dev/zero,
 * made by the program's own system call instruction in
 *
 *   main > defer_<mode> [> defer_child] > defer_run > defer_a >
 *   lib_ustack_mid (a linked library) > defer_read
 *
 * kernel  two events on the task, cpu-clock and task-clock, and a third
 *         that takes the records (as perf record's tracking event does),
 *         all in one ring buffer: every sample of a stay, of either event,
 *         has the stay's cookie and is followed by a record with it (a
 *         sample taken after the stay's record, on the way out, by a
 *         second one, up to DEFER_MAX_RECORDS a stay; samples after the
 *         last go unanswered); no stay reuses a cookie; every one
 *         of >= 1,000 answered samples gets a stack exact to main.
 * exit    a child in that loop, sampled by its parent, is killed with
 *         SIGKILL: no sample, the last stay's included, goes without its
 *         record, and the records are exact to main.
 * exec    a child calls execve() from defer_read with 5 MB of
 *         arguments, so that samples land while they are copied: those
 *         samples must get the stack of the call to execve(), exact to
 *         main, and the samples after the point of no return another
 *         cookie (the new program's stack, which is not checked).
 *         Every 10 us of the child's time, the shortest period perf
 *         gives: on a slow guest samples then come faster than records
 *         are written, and the stays must still end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#define DEFER_READ_BYTES	(4UL << 20)
#define DEFER_SAMPLES		1000
#define DEFER_MAX_SECONDS	60
#define DEFER_DATA_PAGES	256
/*
 * exec: the parent shares the guest's one CPU with a child that may take
 * tens of thousands of samples in one execve(): room for all of them.
 */
#define DEFER_EXEC_PAGES	2048
#define DEFER_EXEC_ARGS		50
#define DEFER_EXEC_ARG_BYTES	(100 * 1024)
#define DEFER_EXEC_STACK	(64UL << 20)	/* room for the arguments */

typedef long (*defer_cb)(void);

long lib_ustack_mid(defer_cb cb);

/* The chain of each mode, innermost first */
static const char *const defer_kernel_chain[] = {
	"defer_read", "lib_ustack_mid", "defer_a", "defer_run", "defer_kernel",
	"main", NULL
};

static const char *const defer_exit_chain[] = {
	"defer_read", "lib_ustack_mid", "defer_a", "defer_run", "defer_child",
	"defer_exit", "main", NULL
};

static const char *const defer_exec_chain[] = {
	"defer_read", "lib_ustack_mid", "defer_a", "defer_run", "defer_child",
	"defer_exec", "main", NULL
};

static const char *const *defer_chain;

static int defer_zero = -1;
static char *defer_buf;
static char *const *defer_exec_argv;

/* The stay in the kernel: one read(), or the execve() of exec mode */
__attribute__((noinline)) long defer_read(void)
{
	long r;

	if (defer_exec_argv) {
		r = sf_syscall4(SYS_execve, (long)"/proc/self/exe",
				(long)defer_exec_argv, (long)environ, 0);
		printf("FAIL: execve: %s\n", strerror(-r));
		fflush(stdout);
		_exit(3);
	} else {
		r = sf_syscall4(SYS_read, defer_zero, (long)defer_buf,
				DEFER_READ_BYTES, 0);
	}
	__asm__ volatile("" : : : "memory");
	return r;
}

SF_CHAIN_FN(defer_a, (void), lib_ustack_mid(defer_read))

static long defer_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Stays until @ms have passed (exit mode: until killed; exec: once) */
__attribute__((noinline)) void defer_run(unsigned int ms)
{
	long end = defer_now_ms() + ms;

	while (defer_now_ms() < end)
		defer_a();
	__asm__ volatile("" : : : "memory");
}

#define DEFER_COOKIES		64
/*
 * The records one stay may get: its first, and UNWIND_MAX_REPEATS more
 * (include/linux/unwind_deferred.h) for samples taken after one.  Samples
 * after the last go unanswered, as in mainline.
 */
#define DEFER_MAX_RECORDS	5

struct defer_tally {
	/* Samples waiting for their stack: all of one stay, one cookie */
	uint64_t		pending_cookie;
	unsigned int		npending;
	bool			pending_seen[2];	/* by each of the two events */
	uint64_t		cookies[DEFER_COOKIES];	/* the last records' */
	unsigned int		ncookies;
	unsigned int		sync;		/* samples whose request was refused */
	unsigned int		repeats;	/* a stay's records after its first */
	unsigned int		stay_records;	/* the last cookie's records */
	unsigned int		unanswered;	/* samples after their stay's last */
	uint64_t		ids[2];		/* the two events' ids (kernel mode) */
	unsigned int		samples, exact, records, both;
	unsigned int		chain_stays;	/* stays whose stack is in the chain */
	unsigned int		shown;
};

static struct defer_tally tally;
static int defer_child_fd = -1;
static struct sf_perf_ring ring;

/*
 * Samples waiting with the last record's cookie once that stay had all
 * its records: the kernel answers no more, so they may wait for ever.
 */
static bool defer_unanswered(void)
{
	if (!tally.npending || !tally.ncookies ||
	    tally.cookies[(tally.ncookies - 1) % DEFER_COOKIES] != tally.pending_cookie ||
	    tally.stay_records != DEFER_MAX_RECORDS)
		return false;
	tally.unanswered += tally.npending;
	tally.npending = 0;
	memset(tally.pending_seen, 0, sizeof(tally.pending_seen));
	return true;
}

/* header, ip, pid/tid, id, nr, ips: see defer_attr()'s sample_type */
static void defer_sample(const uint64_t *rec)
{
	uint64_t nr = rec[4];

	/* Refused (an exiting task): the user part is taken at once. */
	if (nr >= 1 && rec[5] == PERF_CONTEXT_USER) {
		tally.sync++;
		return;
	}
	if (!SF_CHECK(nr == 2 && rec[5] == PERF_CONTEXT_USER_DEFERRED,
		      "a sample's callchain of %llu, not a deferred one",
		      (unsigned long long)nr))
		return;
	/* The samples a record answers are all of its stay. */
	if (tally.npending && rec[6] != tally.pending_cookie)
		defer_unanswered();
	if (tally.npending && !SF_CHECK(rec[6] == tally.pending_cookie,
					"a sample with cookie %#llx among samples with %#llx",
					(unsigned long long)rec[6],
					(unsigned long long)tally.pending_cookie))
		return;
	tally.pending_cookie = rec[6];
	tally.pending_seen[0] |= rec[3] == tally.ids[0];
	tally.pending_seen[1] |= rec[3] == tally.ids[1];
	tally.npending++;
}

/* header, cookie, nr, ips */
static void defer_record(const uint64_t *rec)
{
	uint64_t cookie = rec[1], nr = rec[2];
	const uint64_t *ips = &rec[3];
	bool in_chain, exact, repeat;
	unsigned int i;

	tally.records++;
	if (tally.npending && tally.pending_cookie != cookie)
		defer_unanswered();
	/*
	 * A record answers the samples before it; one taken after it in the
	 * same stay gets a second record with the same cookie (a sample
	 * taken while the first was being made gets both).  A cookie of an
	 * older stay must not come back.
	 */
	SF_CHECK(cookie, "record with cookie 0");
	repeat = tally.ncookies &&
		 tally.cookies[(tally.ncookies - 1) % DEFER_COOKIES] == cookie;
	if (!repeat) {
		for (i = 0; i < DEFER_COOKIES && i < tally.ncookies; i++)
			SF_CHECK(tally.cookies[i] != cookie,
				 "cookie %#llx of an earlier stay again",
				 (unsigned long long)cookie);
		tally.cookies[tally.ncookies++ % DEFER_COOKIES] = cookie;
		tally.stay_records = 0;
	}
	SF_CHECK(++tally.stay_records <= DEFER_MAX_RECORDS,
		 "cookie %#llx: %u records, the kernel's bound is %u",
		 (unsigned long long)cookie, tally.stay_records, DEFER_MAX_RECORDS);
	if (tally.npending)
		SF_CHECK(tally.pending_cookie == cookie,
			 "samples with cookie %#llx before the record of %#llx",
			 (unsigned long long)tally.pending_cookie,
			 (unsigned long long)cookie);
	if (!tally.npending) {
		SF_CHECK(repeat, "record with cookie %#llx, which no sample has",
			 (unsigned long long)cookie);
		tally.repeats++;
		return;
	}
	tally.both += tally.pending_seen[0] && tally.pending_seen[1];
	/*
	 * Stacks that start in the chain must be the rest of it.  Others
	 * (start-up, the C library, the vDSO; after exec, the new program)
	 * are not checked.
	 */
	in_chain = nr && sf_perf_in_chain(defer_chain, sf_perf_sym(ips[0], false));
	exact = in_chain && sf_perf_chain_exact(defer_chain, ips, nr);
	if (in_chain) {
		tally.samples += tally.npending;
		tally.chain_stays++;
	}
	if (exact)
		tally.exact += tally.npending;
	else if (in_chain && tally.shown++ < 3)
		sf_perf_chain_show("inexact", ips, nr);
	tally.npending = 0;
	memset(tally.pending_seen, 0, sizeof(tally.pending_seen));
}

static void defer_drain(void)
{
	const struct perf_event_header *hdr;

	while ((hdr = sf_perf_ring_next(&ring))) {
		if (hdr->type == PERF_RECORD_SAMPLE)
			defer_sample(ring.rec);
		else if (hdr->type == PERF_RECORD_CALLCHAIN_DEFERRED)
			defer_record(ring.rec);
		else
			SF_CHECK(hdr->type != PERF_RECORD_LOST, "samples lost");
	}
}

/*
 * Kernel-mode samples every @period_ns of CPU time, disabled: asking for
 * deferred callchains, taking the records, or both.
 */
static int defer_open(uint64_t config, uint64_t period_ns, bool callchain,
		      bool output, int pid)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.sample_period = period_ns,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID |
			       PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_user = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
		.read_format = PERF_FORMAT_LOST,
	};
	int fd;

	sf_perf_defer(&attr, callchain, output);
	fd = sf_perf_open(&attr, pid, -1);
	SF_CHECK(fd >= 0, "perf_event_open: %m");
	return fd;
}

/*
 * Records the kernel could not write (a full ring buffer) are lost in
 * silence until it writes the next one: ask each event that writes.
 */
static void defer_no_loss(const int *fds, unsigned int n)
{
	uint64_t value[2];	/* count, lost */
	unsigned int i;

	for (i = 0; i < n; i++)
		SF_CHECK(read(fds[i], value, sizeof(value)) == sizeof(value) && !value[1],
			 "event %u: %llu records lost", i, (unsigned long long)value[1]);
}

static bool defer_setup(void)
{
	defer_zero = open("/dev/zero", O_RDONLY);
	defer_buf = malloc(DEFER_READ_BYTES);
	return SF_CHECK(defer_zero >= 0 && defer_buf, "/dev/zero and a buffer: %m");
}

/* How often records came again, and samples went without one */
static const char *defer_repeats_note(void)
{
	static char note[128];

	snprintf(note, sizeof(note),
		 "%u repeats no sample waited for; %u samples after their stay's last record",
		 tally.repeats, tally.unanswered);
	return note;
}

static void defer_summary(const char *what)
{
	SF_CHECK(!tally.npending || defer_unanswered(), "%u samples never got their stacks",
		 tally.npending);
	if (SF_CHECK(tally.exact == tally.samples,
		     "%u of %u samples exact to main", tally.exact, tally.samples))
		sf_note("%s: %u of %u samples exact to main; %u stays, %u records, %s",
			what, tally.exact, tally.samples, tally.ncookies, tally.records,
			defer_repeats_note());
}

__attribute__((noinline)) void defer_kernel(void)
{
	time_t end = time(NULL) + DEFER_MAX_SECONDS;
	int fd[2], track;

	if (!defer_setup())
		return;
	/*
	 * As perf record does: the records go to a tracking event that
	 * stays enabled, so that samples taken while the sampling events
	 * are being disabled get theirs too.
	 */
	track = defer_open(PERF_COUNT_SW_DUMMY, 1, false, true, 0);
	fd[0] = defer_open(PERF_COUNT_SW_CPU_CLOCK, 100000, true, false, 0);
	fd[1] = defer_open(PERF_COUNT_SW_TASK_CLOCK, 100000, true, false, 0);
	if (track < 0 || fd[0] < 0 || fd[1] < 0 ||
	    !sf_perf_ring_map(&ring, track, DEFER_DATA_PAGES))
		return;
	if (!SF_CHECK(!ioctl(fd[0], PERF_EVENT_IOC_SET_OUTPUT, track) &&
		      !ioctl(fd[1], PERF_EVENT_IOC_SET_OUTPUT, track) &&
		      !ioctl(fd[0], PERF_EVENT_IOC_ID, &tally.ids[0]) &&
		      !ioctl(fd[1], PERF_EVENT_IOC_ID, &tally.ids[1]) &&
		      !ioctl(track, PERF_EVENT_IOC_ENABLE, 0),
		      "the events' output and ids: %m"))
		return;
	while (tally.samples < DEFER_SAMPLES && time(NULL) < end) {
		ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
		ioctl(fd[1], PERF_EVENT_IOC_ENABLE, 0);
		/* Short rounds: the ring buffer must not fill between reads. */
		defer_run(100);
		ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd[1], PERF_EVENT_IOC_DISABLE, 0);
		defer_drain();
	}
	SF_CHECK(tally.samples >= DEFER_SAMPLES, "%u samples", tally.samples);
	SF_CHECK(tally.both, "no stay was sampled by both events");
	defer_no_loss((int[]){ track, fd[0], fd[1] }, 3);
	defer_summary("kernel");
	sf_note("kernel: %u records answered samples of both events", tally.both);
}

/*
 * A child that waits for its parent's word, then runs (exit mode) or
 * execs (exec mode), sampled by its parent: every @period_ns of its
 * @config clock, into the ring buffer.  Returns its pid, or -1.
 */
__attribute__((noinline)) pid_t defer_child(uint64_t config, uint64_t period_ns)
{
	int p[2], fd;
	pid_t pid;
	char c;

	if (!SF_CHECK(!pipe(p), "pipe: %m"))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		defer_run(DEFER_MAX_SECONDS * 1000);
		_exit(2);
	}
	close(p[0]);
	if (!SF_CHECK(pid > 0, "fork: %m"))
		return -1;
	fd = defer_open(config, period_ns, true, true, pid);
	defer_child_fd = fd;
	if (fd < 0 || !sf_perf_ring_map(&ring, fd, defer_exec_argv ? DEFER_EXEC_PAGES :
								  DEFER_DATA_PAGES) ||
	    !SF_CHECK(!ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) && write(p[1], "g", 1) == 1,
		      "enable, write: %m")) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[1]);
	return pid;
}

__attribute__((noinline)) void defer_exit(void)
{
	time_t end = time(NULL) + DEFER_MAX_SECONDS;
	int status;
	pid_t pid;

	if (!defer_setup())
		return;
	pid = defer_child(PERF_COUNT_SW_CPU_CLOCK, 100000);
	if (pid < 0)
		return;
	/* Read as it comes (the buffer is not big enough for all), then kill. */
	while (tally.samples < DEFER_SAMPLES && time(NULL) < end) {
		usleep(100000);
		defer_drain();
	}
	kill(pid, SIGKILL);
	SF_CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status),
		 "the child did not die of SIGKILL: %#x", status);
	defer_drain();
	defer_no_loss(&defer_child_fd, 1);
	defer_summary("exit");
	sf_note("exit: %u samples taken after the task began to exit, their stacks at once",
		tally.sync);
}

/* exec's note: the exact samples, in how many stays, and the repeats */
#define DEFER_EXEC_NOTE	"exec: %u samples before the point of no return got %s, in %u stays (%u stays, %u records in all); %s"

__attribute__((noinline)) void defer_exec(void)
{
	static char *argv[DEFER_EXEC_ARGS + 3];
	struct rlimit stack = { DEFER_EXEC_STACK, DEFER_EXEC_STACK };
	int status, i;
	pid_t pid;

	argv[0] = "sf-perf-defer";
	argv[1] = "--exec-child";
	for (i = 0; i < DEFER_EXEC_ARGS; i++) {
		argv[2 + i] = malloc(DEFER_EXEC_ARG_BYTES);
		if (!SF_CHECK(argv[2 + i], "malloc"))
			return;
		memset(argv[2 + i], 'x', DEFER_EXEC_ARG_BYTES - 1);
		argv[2 + i][DEFER_EXEC_ARG_BYTES - 1] = 0;
	}
	/* Arguments may take a quarter of the stack limit. */
	if (!SF_CHECK(!setrlimit(RLIMIT_STACK, &stack), "setrlimit: %m"))
		return;
	defer_exec_argv = argv;		/* the child's defer_read() execs */
	pid = defer_child(PERF_COUNT_SW_TASK_CLOCK, 10000);
	if (pid < 0)
		return;
	/* Read as it comes: a full buffer would drop records silently. */
	while (!waitpid(pid, &status, WNOHANG)) {
		usleep(20000);
		defer_drain();
	}
	SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
		 "the child's exec failed: %#x", status);
	defer_drain();
	defer_no_loss(&defer_child_fd, 1);
	SF_CHECK(!tally.npending || defer_unanswered(),
		 "%u samples with cookie %#llx never got their stacks (%u records, last %#llx; %u sync)",
		 tally.npending, (unsigned long long)tally.pending_cookie, tally.records,
		 (unsigned long long)
		 tally.cookies[(tally.ncookies + DEFER_COOKIES - 1) % DEFER_COOKIES],
		 tally.sync);
	SF_CHECK(tally.exact == tally.samples, "%u of %u stacks of the call to execve() exact",
		 tally.exact, tally.samples);
	if (SF_CHECK(tally.exact, "no sample got the stack of the call to execve() (%u stays)",
		     tally.ncookies))
		sf_note(DEFER_EXEC_NOTE, tally.exact, "the old program's stack, exact to main",
			tally.chain_stays, tally.ncookies, tally.records, defer_repeats_note());
}

SF_TEST_ARGS(perf_defer_kernel, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("kernel"))
SF_TEST_ARGS(perf_defer_exit, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("exit"))
SF_TEST_ARGS(perf_defer_exec, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("exec"))

int main(int argc, char **argv)
{
	sf_harness_enter(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		return 0;
	if (!SF_CHECK(argc == 2, "usage: sf-perf-defer kernel|exit|exec"))
		sf_exit();
	if (!strcmp(argv[1], "kernel")) {
		defer_chain = defer_kernel_chain;
		defer_kernel();
	} else if (!strcmp(argv[1], "exit")) {
		defer_chain = defer_exit_chain;
		defer_exit();
	} else if (!strcmp(argv[1], "exec")) {
		defer_chain = defer_exec_chain;
		defer_exec();
	} else {
		sf_fail("unknown mode %s", argv[1]);
	}
	sf_exit();
}
