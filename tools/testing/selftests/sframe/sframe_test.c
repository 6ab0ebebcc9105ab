// SPDX-License-Identifier: GPL-2.0
/*
 * Reporting and common checks for the test programs (see sframe_test.h).
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sframe_test.h"

/* Reads of the registry's count around one walk over /proc, at most */
#define SF_UNOWNED_TRIES	10

int sf_failed;

static void sf_vprint(const char *lead, const char *fmt, va_list ap)
{
	fputs(lead, stdout);
	vprintf(fmt, ap);
	putchar('\n');
	/* Unbuffered in effect: a crash later must not eat what we said. */
	fflush(stdout);
}

void sf_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sf_vprint("FAIL: ", fmt, ap);
	va_end(ap);
	sf_failed++;
}

void sf_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sf_vprint("NOTE: ", fmt, ap);
	va_end(ap);
}

void sf_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sf_vprint("# ", fmt, ap);
	va_end(ap);
}

/*
 * _exit, not exit: tests cut libraries' text out from under the loader,
 * and their destructors must not run.
 */
void sf_exit(void)
{
	fflush(stdout);
	fflush(stderr);
	_exit(sf_failed ? 1 : 0);
}

unsigned long sf_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

unsigned long sf_page_down(unsigned long addr)
{
	return addr & ~(sf_page_size() - 1);
}

unsigned long sf_page_up(unsigned long addr)
{
	return sf_page_down(addr + sf_page_size() - 1);
}

/* /proc/self/sframe into @got; a failure of @step if it cannot be read. */
bool sf_read_self(struct sf_set *got, const char *step)
{
	if (!sf_actual("self", got))
		return true;
	sf_fail("%s: reading /proc/self/sframe: %s", step, strerror(errno));
	return false;
}

static void sf_print_set(const char *what, const struct sf_set *s)
{
	int i;

	printf("#   %s (%d lines):\n", what, s->n);
	for (i = 0; i < s->n; i++)
		printf("#     %s\n", s->line[i].text);
}

/*
 * A control run, the same program without SFrame: frame pointers alone
 * must NOT give whole stacks, or the checker that calls them exact could
 * not tell a right walk from a wrong one.
 */
bool sf_check_control(const char *what, unsigned int exact, unsigned int total)
{
	if (!SF_CHECK(total, "%s: no stacks to control with", what) ||
	    !SF_CHECK(exact * 100ULL <= total * (unsigned long long)SF_CONTROL_MAX_PERCENT,
		      "%s: without SFrame %u of %u stacks still exact to main: the check does not discriminate",
		      what, exact, total))
		return false;
	sf_note("%s: without SFrame, frame pointers alone followed %u of %u stacks to main",
		what, exact, total);
	return true;
}

/* /proc/self/sframe must hold exactly @want, in order. */
bool sf_check_want(const struct sf_set *want, const char *step)
{
	struct sf_set got;
	bool ok;

	if (!sf_read_self(&got, step))
		return false;
	ok = !sf_compare(want, &got, stdout, "#   ");
	if (!ok) {
		sf_fail("%s: /proc/self/sframe is not as expected", step);
		sf_print_set("expected", want);
		sf_print_set("/proc/self/sframe", &got);
	}
	sf_set_free(&got);
	return ok;
}

/* The oracle's lines for this process now; a failure if it cannot tell. */
bool sf_oracle_self(struct sf_set *want, const char *step)
{
	if (!sf_expected("self", want))
		return true;
	sf_fail("%s: the oracle cannot work out the expected lines", step);
	return false;
}

/* /proc/self/sframe must be what the oracle derives from the maps. */
bool sf_check_oracle(const char *step)
{
	struct sf_set want;
	bool ok;

	if (!sf_oracle_self(&want, step))
		return false;
	ok = sf_check_want(&want, step);
	sf_set_free(&want);
	return ok;
}

/* The one line of @s whose path ends in @suffix; NULL and a failure if not one. */
const struct sf_line *sf_only_line(const struct sf_set *s, const char *suffix,
				   const char *step)
{
	const struct sf_line *l;
	int n;

	l = sf_set_find_path(s, suffix, &n);
	if (n == 1)
		return l;
	sf_fail("%s: %d lines for %s, expected 1", step, n, suffix);
	return NULL;
}

/* The one line of @s whose text meets [@start, @end); NULL and a failure if not one. */
const struct sf_line *sf_line_in(const struct sf_set *s, unsigned long start,
				 unsigned long end, const char *step)
{
	const struct sf_line *found = NULL;
	int i, n = 0;

	for (i = 0; i < s->n; i++) {
		if (s->line[i].text_start < end && s->line[i].text_end > start) {
			found = &s->line[i];
			n++;
		}
	}
	if (n == 1)
		return found;
	sf_fail("%s: %d lines for %lx-%lx, expected 1", step, n, start, end);
	return NULL;
}

/* Adds to @s the part [@start, @end) of @l's text, same section. */
void sf_add_piece(struct sf_set *s, const struct sf_line *l, unsigned long start,
		  unsigned long end)
{
	struct sf_line piece = *l;

	piece.text_start = start;
	piece.text_end = end;
	sf_line_format(&piece);
	sf_set_add(s, &piece);
}

/*
 * A page inside @l's text with text left on both sides and none of the
 * SFrame data on it (cutting that would remove the whole section); 0 if
 * the text is too small.
 */
unsigned long sf_middle_page(const struct sf_line *l)
{
	unsigned long page = sf_page_size();
	unsigned long lo = sf_page_up(l->text_start), hi = sf_page_down(l->text_end);
	unsigned long p;

	if (hi < lo + 3 * page)
		return 0;
	p = lo + (hi - lo) / page / 2 * page;
	if (p < sf_page_up(l->sframe_end) && p + page > sf_page_down(l->sframe_start))
		return 0;
	return p;
}

/* The lines of /proc/self/sframe whose text meets [@start, @end) are @want. */
bool sf_check_range(const struct sf_set *want, unsigned long start, unsigned long end,
		    const char *step)
{
	struct sf_set got, in;
	bool ok;
	int i;

	if (!sf_read_self(&got, step))
		return false;
	sf_set_init(&in);
	for (i = 0; i < got.n; i++)
		if (got.line[i].parsed && got.line[i].text_start < end &&
		    got.line[i].text_end > start)
			sf_set_add(&in, &got.line[i]);
	ok = !sf_compare(want, &in, stdout, "#   ");
	if (!ok) {
		sf_fail("%s: lines for %lx-%lx are not as expected", step, start, end);
		sf_print_set("expected", want);
		sf_print_set("/proc/self/sframe", &got);
	}
	sf_set_free(&in);
	sf_set_free(&got);
	return ok;
}

/* The system-wide count of registered sections is @want. */
bool sf_check_sections(long want, const char *step)
{
	long now = sf_stat_get("sections");

	if (now == want)
		return true;
	sf_fail("%s: %ld sections registered, expected %ld", step, now, want);
	return false;
}

/*
 * The system-wide count of registered sections once it is @want, or as it
 * is after @ms: a walk that is ending, or work it left for the task's
 * return to user space, may hold a removed section a little longer, and
 * a slow guest may take a while to get there.
 */
long sf_sections_settle(long want, long ms)
{
	long deadline = sf_now_ms() + ms, now;

	while ((now = sf_stat_get("sections")) != want && sf_now_ms() < deadline)
		usleep(20000);
	return now;
}

/* The lines of every process's /proc/PID/sframe */
static long sf_sections_held(void)
{
	struct dirent *d;
	char path[300];
	long held = 0;
	DIR *dir;
	FILE *f;
	int c;

	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (atoi(d->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/sframe", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while ((c = getc(f)) != EOF)
			held += c == '\n';
		fclose(f);
	}
	closedir(dir);
	return held;
}

/*
 * Registered sections no live process holds: the system-wide count less
 * the lines of every process's /proc/PID/sframe.  A test that samples
 * the whole system makes processes it never started register theirs;
 * only this count says whether the test left some behind.  Read until
 * the count is the same on both sides of the walk over /proc (reading
 * its own file registers the caller's sections), or as it is after a
 * few tries; LONG_MIN if the count cannot be read.
 */
long sf_sections_unowned(void)
{
	long total = sf_stat_get("sections"), then, held = -1;

	for (int i = 0; i < SF_UNOWNED_TRIES && total >= 0; i++) {
		then = total;
		held = sf_sections_held();
		total = sf_stat_get("sections");
		if (total == then)
			break;
	}
	return total < 0 || held < 0 ? LONG_MIN : total - held;
}

/* sf_sections_unowned() once it is @want, or as it is after @ms */
long sf_sections_unowned_settle(long want, long ms)
{
	long deadline = sf_now_ms() + ms, now;

	while ((now = sf_sections_unowned()) != want && sf_now_ms() < deadline)
		usleep(20000);
	return now;
}

/* A number in a sysfs or procfs file; -1 with errno set when it cannot be read. */
long sf_param_get_path(const char *path)
{
	char buf[64];
	ssize_t n;
	char *end;
	long v;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		errno = n ? errno : ENODATA;
		return -1;
	}
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v < 0) {
		errno = EINVAL;
		return -1;
	}
	return v;
}

/* Writes @text to a sysfs, procfs or cgroup file, whole: true if it took it */
bool sf_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Writes a number to a sysfs or procfs file; 0, or -1 with errno. */
int sf_param_set_path(const char *path, long value)
{
	char buf[32];
	int fd, len, ret = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%ld\n", value);
	if (write(fd, buf, len) != len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return ret;
}

/* A module parameter's value; -1 with errno set when it cannot be read. */
long sf_param_get(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), SF_PARAM_DIR "%s", name);
	return sf_param_get_path(path);
}

/* A system-wide figure of /sys/kernel/sframe; -1 with errno when unreadable */
long sf_stat_get(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), SF_STATS_DIR "%s", name);
	return sf_param_get_path(path);
}

/* Writes a module parameter; 0, or -1 with errno. */
int sf_param_set(const char *name, long value)
{
	char path[128];

	snprintf(path, sizeof(path), SF_PARAM_DIR "%s", name);
	return sf_param_set_path(path, value);
}

static long sf_clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* CLOCK_MONOTONIC in milliseconds, for a test's deadlines */
long sf_now_ms(void)
{
	return sf_clock_ms(CLOCK_MONOTONIC);
}

/*
 * The calling thread's own CPU time in milliseconds: a wait for something
 * the thread's own running brings about (a sample every so much of its
 * CPU time) is bounded by it, so that a loaded host, which stretches the
 * wall clock, cannot fail it.
 */
long sf_thread_cpu_ms(void)
{
	return sf_clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * Thread or process @tid's /proc/<tid>/stat: its state letter (R running
 * or runnable, S or D asleep, ...), process group and clock ticks run in
 * user space, each where asked for; false when they cannot be read.
 */
bool sf_task_stat(int tid, char *state, long *pgrp, long *utime)
{
	char path[64], buf[512], st, *p;
	long group, ticks;
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	/* pid (comm) state ppid pgrp ... utime: comm may hold spaces and ')' */
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	ok = p && sscanf(p + 1, " %c %*d %ld %*d %*d %*d %*u %*u %*u %*u %*u %ld",
			 &st, &group, &ticks) == 3;
	if (ok && state)
		*state = st;
	if (ok && pgrp)
		*pgrp = group;
	if (ok && utime)
		*utime = ticks;
	return ok;
}

/*
 * Does the kernel stack of thread @tid (/proc/<tid>/stack) hold a frame
 * whose line contains @fn?  The line found is left in @line when given.
 */
bool sf_kstack_has(int tid, const char *fn, char *line, size_t size)
{
	char path[64], buf[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(buf, sizeof(buf), f))
		found = strstr(buf, fn);
	fclose(f);
	if (found && line && size) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(line, size, "%s", buf);
	}
	return found;
}

/*
 * Waits up to @ms for thread @tid of process @pid to be blocked in system
 * call @nr, as /proc/<pid>/task/<tid>/syscall shows it.
 */
bool sf_wait_syscall(int pid, int tid, long nr, long ms)
{
	long deadline = sf_now_ms() + ms, got;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	do {
		f = fopen(path, "r");
		got = -1;
		if (f && (!fgets(line, sizeof(line), f) ||
			  sscanf(line, "%ld", &got) != 1))
			got = -1;
		if (f)
			fclose(f);
		if (got == nr)
			return true;
		usleep(10000);
	} while (sf_now_ms() < deadline);
	return false;
}

/*
 * A perf event that would take user callchains, never enabled, open (@on)
 * or not while a test runs: with it, the test's programs start as
 * processes being profiled do, registering their sections as they map
 * them from their start (kernel/unwind/sframe_want.c); without, as the
 * processes of a system nobody profiles.  False when it cannot be had.
 */
bool sf_profiler_set(bool on)
{
	static int fd = -1;
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_CPU_CLOCK,
		.sample_period	= 1000000,
		.sample_type	= PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.disabled	= 1,
		.exclude_kernel	= 1,
	};

	if (!on && fd >= 0) {
		close(fd);
		fd = -1;
	} else if (on && fd < 0) {
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return (fd >= 0) == on;
}
