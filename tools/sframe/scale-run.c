// SPDX-License-Identifier: GPL-2.0-only
/*
 * scale-run: tools/bench-scale's driver in its guest (no shell there).
 *
 *   scale-run mem fork|exec[-profiled] N ROUNDS SETTLE_MS HOLD LIB_WITHOUT LIB_WITH
 *   scale-run mem exec-audit[-dry] N ROUNDS SETTLE_MS HOLD LIB_WITHOUT MODULE
 *
 * Kernel memory taken by N processes holding a library mapped, the library
 * without its SFrame section and with it: ROUNDS rounds of runs in the
 * order without, with, with, without, after one run without that is not
 * counted (the first finds caches cold).  A run reads /proc/meminfo with the
 * system settled, starts the N processes (exec: N times HOLD LIB hold;
 * fork: one HOLD LIB fork N, which has mapped LIB when the first reading
 * is taken, then forks N children), waits until each has said it is
 * ready, reads /proc/meminfo settled again, then checks that every one of
 * them is alive, has LIB mapped and that /proc/<pid>/sframe lists LIB's
 * section (with, profiled) or does not (without, or nobody profiling),
 * and kills them.  "-profiled": a perf event that takes user callchains
 * is open throughout, as while perf record -g runs, so every process
 * registers its sections as it maps them; otherwise none is walked, and
 * none registers anything.  Prints each run,
 * then "mem MODE N KIND FIELD=kB..." for the median of each kind and
 * "mem MODE N per-process FIELD=kB..." for (with - without) / N.  If
 * /sys/kernel/sframe exists, every file in it is printed before and with
 * the processes alive, after each run.
 *
 * exec-audit: the same library without SFrame both times, the "with" runs
 * under LD_AUDIT=MODULE (libsframe-audit.so), whose prctl() registrations
 * nobody profiling asks for; its cache in $SFRAME_AUDIT_CACHE, by default
 * /tmp/scale-audit-cache, filled by the run not counted, which is a "with"
 * run here.  Each process must have the module's sections ("[jit]" in
 * /proc/<pid>/sframe) with, and none without.  exec-audit-dry: the
 * "without" runs are under the module too, in its dry run
 * (SFRAME_AUDIT_DRY_RUN=1: the cache mapped, nothing registered), so that
 * the difference is the kernel's registration alone, not the module's
 * own mappings.
 *
 *   scale-run start RUNS NAME PROG [ARG]... + NAME PROG [ARG]...
 *
 * Start-up: runs the two commands RUNS times each (after 3 not counted),
 * alternated A B B A, and prints the median wall and CPU time of each
 * (the child's user + system time from wait4()) and their ratios B / A,
 * after the name of the guest's clock source.
 * Every run must exit with status 0.  (Not "--": tools/vm/steps splits
 * its commands at that.)
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYSFS_DIR	"/sys/kernel/sframe"
#define CLOCKSOURCE	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define READY_TIMEOUT_MS 600000	/* a thousand exec()s under TCG */

/*
 * The /proc/meminfo fields a run compares, in kB, and one of our own:
 * MemFree leaves out the free pages the page allocator keeps on its
 * per-CPU lists, which come and go by hundreds; FreePcp counts them in
 * (/proc/zoneinfo's pagesets).  The first two are free memory.
 */
static const char *const fields[] = {
	"MemFree", "FreePcp", "Slab", "SUnreclaim", "KernelStack", "PageTables",
	"VmallocUsed", "Percpu",
};
#define FIELD_FREE_PCP	1
#define NR_FREE_FIELDS	2

#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

struct meminfo {
	long kb[NR_FIELDS];
};

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "scale-run: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void __attribute__((noreturn)) fail(const char *fmt, const char *arg, long n)
{
	printf("scale-run: FAILED: ");
	printf(fmt, arg, n);
	printf("\n");
	exit(1);
}

static void meminfo_read(struct meminfo *mi)
{
	char line[256], name[64];
	unsigned int i, found = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	long kb;

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %ld", name, &kb) != 2)
			continue;
		for (i = 0; i < NR_FIELDS; i++) {
			if (!strcmp(name, fields[i])) {
				mi->kb[i] = kb;
				found++;
			}
		}
	}
	fclose(f);
	if (found != NR_FIELDS - 1)
		fail("/proc/meminfo has %s%ld of the fields wanted", "", found);

	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		die("/proc/zoneinfo");
	kb = 0;
	found = 0;
	while (fgets(line, sizeof(line), f)) {
		long pages;

		if (sscanf(line, " count: %ld", &pages) == 1) {
			kb += pages * (sysconf(_SC_PAGESIZE) / 1024);
			found++;
		}
	}
	fclose(f);
	if (!found)
		fail("/proc/zoneinfo: no per-CPU list counts%s (%ld)", "", kb);
	mi->kb[FIELD_FREE_PCP] = mi->kb[0] + kb;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	/* stat_refresh may say EINVAL (a negative counter): it has folded them */
	if (fd >= 0) {
		ssize_t ignored = write(fd, text, strlen(text));

		(void)ignored;
		close(fd);
	}
}

/*
 * Let freeing finish (RCU, the vmstat worker), drop the caches /proc reads
 * filled, fold the per-CPU counters, then read.
 */
static void meminfo_settled(struct meminfo *mi, long settle_ms)
{
	struct timespec ts = { settle_ms / 1000, settle_ms % 1000 * 1000000 };

	write_file("/proc/sys/vm/drop_caches", "3");
	nanosleep(&ts, NULL);
	write_file("/proc/sys/vm/stat_refresh", "1");
	meminfo_read(mi);
}

/* Every file of /sys/kernel/sframe, one line each, into @buf */
static void sysfs_read(char *buf, size_t size)
{
	char path[512], val[256];
	struct dirent *d;
	size_t len = 0;
	DIR *dir = opendir(SYSFS_DIR);
	ssize_t n;
	int fd;

	buf[0] = 0;
	if (!dir)
		return;
	while ((d = readdir(dir)) && len + 600 < size) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYSFS_DIR "/%s", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, val, sizeof(val) - 1);
		close(fd);
		if (n < 0)
			continue;
		while (n && (val[n - 1] == '\n' || val[n - 1] == ' '))
			n--;
		val[n] = 0;
		for (char *p = val; *p; p++)
			if (*p == '\n')
				*p = ' ';
		len += snprintf(buf + len, size - len, "%s=%s\n", d->d_name, val);
	}
	closedir(dir);
}

static void sysfs_print(const char *mode, long n, const char *kind,
			const char *before, const char *after)
{
	const char *b = before, *a = after;

	while (*a) {
		int la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		printf("sysfs %s %ld %s %.*s (before: %.*s)\n", mode, n, kind,
		       la, a, lb, b);
		a += la + !!a[la];
		b += lb + !!b[lb];
	}
}

/* A pipe on descriptors above the 3 and 4 the children are given */
static void pipe_high(int p[2])
{
	int q[2], i;

	if (pipe2(q, O_CLOEXEC))
		die("pipe");
	for (i = 0; i < 2; i++) {
		p[i] = fcntl(q[i], F_DUPFD_CLOEXEC, 10);
		if (p[i] < 0)
			die("fcntl");
		close(q[i]);
	}
}

static pid_t spawn(char **argv, int ready_w, int go_r)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		if (dup2(ready_w, 3) < 0 || (go_r >= 0 && dup2(go_r, 4) < 0))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Reads @n pids from @fd into @pids */
static void read_pids(int fd, int *pids, long n)
{
	long got = 0;

	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, READY_TIMEOUT_MS) != 1)
			fail("%s%ld processes of those started said they were ready", "", got);
		r = read(fd, pids + got, (n - got) * sizeof(int));
		if (r <= 0 || r % sizeof(int))
			fail("reading the ready pipe%s (%ld)", "", r);
		got += r / sizeof(int);
	}
}

/* How many lines of /proc/<pid>/@file contain @what; -1 if unreadable */
static long count_lines(int pid, const char *file, const char *what)
{
	char path[64], line[4096];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, what);
	fclose(f);
	return n;
}

static void check_process(int pid, const char *lib, int with, int audit)
{
	char path[64], stat[512], *state;
	long sections;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	r = fd < 0 ? -1 : read(fd, stat, sizeof(stat) - 1);
	if (fd >= 0)
		close(fd);
	if (r <= 0)
		fail("process %s%ld is gone", "", pid);
	stat[r] = 0;
	state = strrchr(stat, ')');
	if (!state || state[1] != ' ' || state[2] == 'Z' || state[2] == 'X')
		fail("process %s%ld is not alive", "", pid);
	if (count_lines(pid, "maps", lib) < 1)
		fail("%s is not mapped in process %ld", lib, pid);
	if (audit) {
		sections = count_lines(pid, "sframe", "[jit]");
		if (with && sections < 1)
			fail("/proc/<pid>/sframe has no section of the module in process %s%ld", "",
			     pid);
		if (!with && sections != 0)
			fail("/proc/<pid>/sframe has the module's sections without it in process %s%ld",
			     "", pid);
		return;
	}
	sections = count_lines(pid, "sframe", lib);
	if (with && sections < 1)
		fail("/proc/<pid>/sframe does not list %s in process %ld", lib, pid);
	if (!with && sections != 0)
		fail("/proc/<pid>/sframe lists %s (no SFrame) in process %ld", lib, pid);
}

/* exec-audit: the module the "with" runs are under */
static const char *audit_module;

struct run {
	long used[NR_FIELDS];	/* kB: taken, free memory; grown, the others */
};

static void one_run(const char *what, const char *mode, long n, long settle_ms,
		    char *hold, char *lib, int with, struct run *run)
{
	int listed = with && strstr(mode, "-profiled");
	int audit = !strncmp(mode, "exec-audit", 10);
	int dry = audit && !with && !strcmp(mode, "exec-audit-dry");
	static char sys_before[8192], sys_after[8192];
	int ready[2], go[2] = { -1, -1 }, *pids, status;
	char n_text[24], *argv[5];
	struct meminfo before, after;
	pid_t parent = 0;
	unsigned int f;
	long i;

	pids = calloc(n, sizeof(*pids));
	if (!pids)
		die("calloc");
	pipe_high(ready);
	snprintf(n_text, sizeof(n_text), "%ld", n);
	argv[0] = hold;
	argv[1] = lib;
	argv[3] = NULL;
	argv[4] = NULL;
	if (!strncmp(mode, "fork", 4)) {
		pipe_high(go);
		argv[2] = "fork";
		argv[3] = n_text;
		parent = spawn(argv, ready[1], go[0]);
		close(go[0]);
		read_pids(ready[0], pids, 1);
		meminfo_settled(&before, settle_ms);
		sysfs_read(sys_before, sizeof(sys_before));
		if (write(go[1], "", 1) != 1)
			die("go pipe");
	} else {
		meminfo_settled(&before, settle_ms);
		sysfs_read(sys_before, sizeof(sys_before));
		argv[2] = "hold";
		if (audit && (with || dry) && setenv("LD_AUDIT", audit_module, 1))
			die("setenv");
		if (dry && setenv("SFRAME_AUDIT_DRY_RUN", "1", 1))
			die("setenv");
		for (i = 0; i < n; i++)
			spawn(argv, ready[1], -1);
		if (audit && (unsetenv("LD_AUDIT") || unsetenv("SFRAME_AUDIT_DRY_RUN")))
			die("unsetenv");
	}
	read_pids(ready[0], pids, n);
	meminfo_settled(&after, settle_ms);
	sysfs_read(sys_after, sizeof(sys_after));

	/* Alive while measured: alive after it, as nothing revives them. */
	for (i = 0; i < n; i++)
		check_process(pids[i], strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib,
			      audit ? with : listed, audit);
	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	if (parent)
		kill(parent, SIGKILL);
	/* Orphans come to us, a subreaper: reap until no child is left. */
	while (wait(&status) > 0 || errno == EINTR)
		;
	close(ready[0]);
	close(ready[1]);
	if (go[1] >= 0)
		close(go[1]);
	free(pids);

	printf("%s %s %ld %s", what, mode, n, with ? "with" : "without");
	for (f = 0; f < NR_FIELDS; f++) {
		run->used[f] = f < NR_FREE_FIELDS ? before.kb[f] - after.kb[f] :
			       after.kb[f] - before.kb[f];
		printf(" %s=%ld", fields[f], run->used[f]);
	}
	printf("\n");
	sysfs_print(mode, n, with ? "with" : "without", sys_before, sys_after);
	fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A consumer of user stacks for the kernel, as perf record -g is: a
 * software event of this process that would sample callchains, never
 * enabled, open until we exit.
 */
static void profiler_open(void)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_CPU_CLOCK,
		.sample_period	= 1000000,
		.sample_type	= PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.disabled	= 1,
		.exclude_kernel	= 1,
	};

	if (syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) < 0)
		die("perf_event_open");
}

static int mem(int argc, char **argv)
{
	static const int order[4] = { 0, 1, 1, 0 };	/* without, with, with, without */
	long n, rounds, settle_ms, r, k;
	double med[2][NR_FIELDS];
	char *lib[2];
	struct run *runs[2];
	double *v;
	unsigned int f;
	int w;

	if (argc != 9 || (strcmp(argv[2], "fork") && strcmp(argv[2], "exec") &&
			  strcmp(argv[2], "fork-profiled") && strcmp(argv[2], "exec-profiled") &&
			  strcmp(argv[2], "exec-audit") && strcmp(argv[2], "exec-audit-dry")))
		return 2;
	lib[0] = argv[7];
	lib[1] = argv[8];
	if (!strncmp(argv[2], "exec-audit", 10)) {
		audit_module = argv[8];
		lib[1] = argv[7];
		if (setenv("SFRAME_AUDIT_CACHE", "/tmp/scale-audit-cache", 0))
			die("setenv");
	}
	if (strstr(argv[2], "-profiled"))
		profiler_open();
	n = atol(argv[3]);
	rounds = atol(argv[4]);
	settle_ms = atol(argv[5]);
	if (n < 1 || rounds < 1 || settle_ms < 0)
		return 2;
	runs[0] = calloc(2 * rounds, sizeof(struct run));
	runs[1] = calloc(2 * rounds, sizeof(struct run));
	v = calloc(2 * rounds, sizeof(double));
	if (!runs[0] || !runs[1] || !v)
		die("calloc");
	/*
	 * The first run finds caches cold and memory never used: not counted.
	 * Under the module it is a "with" run, which fills the module's cache.
	 */
	one_run("warm-up", argv[2], n, settle_ms, argv[6], lib[!!audit_module],
		!!audit_module, &runs[0][0]);
	for (r = 0; r < rounds; r++)
		for (k = 0; k < 4; k++) {
			w = order[k];
			one_run("run", argv[2], n, settle_ms, argv[6], lib[w], w,
				&runs[w][2 * r + (k >= 2)]);
		}
	for (w = 0; w < 2; w++) {
		printf("mem %s %ld %s", argv[2], n, w ? "with" : "without");
		for (f = 0; f < NR_FIELDS; f++) {
			for (r = 0; r < 2 * rounds; r++)
				v[r] = runs[w][r].used[f];
			med[w][f] = median(v, 2 * rounds);
			printf(" %s=%.0f", fields[f], med[w][f]);
		}
		printf("\n");
	}
	printf("mem %s %ld per-process", argv[2], n);
	for (f = 0; f < NR_FIELDS; f++)
		printf(" %s=%.1f", fields[f], (med[1][f] - med[0][f]) / n);
	printf("\n");
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * The guest's clock: x86_64's TSC fails its calibration on a busy host,
 * and then the clock is jiffies, a tick apart (4 ms), too coarse for one
 * start-up.
 */
static void print_clocksource(void)
{
	char name[64] = "?";
	FILE *f = fopen(CLOCKSOURCE, "r");

	if (f) {
		if (fscanf(f, "%63s", name) != 1)
			strcpy(name, "?");
		fclose(f);
	}
	printf("start clocksource %s\n", name);
}

/* Runs @argv once: wall and CPU time in us */
static void start_once(char **argv, double *wall, double *cpu)
{
	struct rusage ru;
	double t = now_us();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4");
	*wall = now_us() - t;
	*cpu = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("%s exited with status %ld", argv[0], status);
}

static int start(int argc, char **argv)
{
	static const int order[4] = { 0, 1, 1, 0 };
	double *wall[2], *cpu[2], w, c, mw[2], mc[2];
	char **cmd[2], *name[2];
	long runs, r, k;
	int i, sep = 0;

	runs = argc > 2 ? atol(argv[2]) : 0;
	for (i = 3; i < argc; i++)
		if (!strcmp(argv[i], "+"))
			sep = i;
	if (runs < 2 || runs % 2 || sep < 5 || sep + 2 >= argc)
		return 2;
	argv[sep] = NULL;
	name[0] = argv[3];
	cmd[0] = argv + 4;
	name[1] = argv[sep + 1];
	cmd[1] = argv + sep + 2;
	for (i = 0; i < 2; i++) {
		wall[i] = calloc(runs, sizeof(double));
		cpu[i] = calloc(runs, sizeof(double));
		if (!wall[i] || !cpu[i])
			die("calloc");
	}
	print_clocksource();
	for (k = 0; k < 3; k++)
		for (i = 0; i < 2; i++)
			start_once(cmd[i], &w, &c);
	for (r = 0; r < runs / 2; r++)
		for (k = 0; k < 4; k++) {
			i = order[k];
			start_once(cmd[i], &wall[i][2 * r + (k >= 2)], &cpu[i][2 * r + (k >= 2)]);
		}
	for (i = 0; i < 2; i++) {
		mw[i] = median(wall[i], runs);
		mc[i] = median(cpu[i], runs);
		printf("start %s wall=%.0f cpu=%.0f us (median of %ld)\n",
		       name[i], mw[i], mc[i], runs);
	}
	printf("start ratio %s/%s wall=%.3f cpu=%.3f\n", name[1], name[0],
	       mw[1] / mw[0], mc[1] / mc[0]);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("PR_SET_CHILD_SUBREAPER");
	if (argc > 1 && !strcmp(argv[1], "mem"))
		ret = mem(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "start"))
		ret = start(argc, argv);
	if (ret == 2)
		fprintf(stderr, "usage: %s\n       %s\n",
			"scale-run mem fork|exec|exec-audit[-dry] N ROUNDS SETTLE_MS HOLD LIB_WITHOUT LIB_WITH",
			"scale-run start RUNS NAME PROG [ARG]... + NAME PROG [ARG]...");
	return ret;
}
