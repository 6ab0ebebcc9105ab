// SPDX-License-Identifier: GPL-2.0
/*
 * sf-stress SECONDS: a hostile process, for a debug kernel to watch.
 *
 * Threads, all at once, until the time is up:
 *   dl       dlopen() and dlclose() an SFrame library, calling into it;
 *   jit      map JIT code and register sections for it, valid, garbage or
 *            valid and then scribbled over while walks use them; unmap,
 *            mremap, mprotect and MAP_FIXED-replace their text and data;
 *            rewrite a section and register it again, which replaces it;
 *   run      run that JIT code, so that samples land in it;
 *   fork     fork children that exit at once, or exec this program;
 *   deep     recurse thousands of frames, taking signals on an alternate
 *            stack at the bottom;
 *   proc     read /proc/thread-self/ustack and /proc/self/sframe;
 *   plant    spin on planted stacks (sf_plant.c): kernel addresses,
 *            cycles, a hole, misaligned words;
 *   forkfail forks that the kernel must refuse, in a process that owns a
 *            deferred-unwind cache: over RLIMIT_NPROC, in a pids cgroup at
 *            its limit, and (fail-nth) each allocation of fork in turn;
 *   nth      fail-nth over the unwinder's system calls: registering a
 *            section, reading /proc/thread-self/ustack, /proc/self/sframe
 *            and another thread's ustack, attaching a section to a file
 *            (PR_SFRAME_ATTACH), each fault point in turn;
 *   attach   attach sf-attach's section to it (sf-attach.sframe, beside
 *            this program), run it, so that its exec registers the
 *            kernel's copy of the section, and detach it again (that file,
 *            or all);
 * while the kernel samples every thread (task-clock, user callchains, sync
 * and deferred, and a BPF program taking bpf_get_stack()), a reader
 * drains the rings, and ftrace takes a user stack trace at every context
 * switch.
 *
 * The kernel's console is the verdict (tools/vm-run fails a run with any
 * splat).  Here: no operation that must succeed failed, the samples came,
 * no user callchain (perf's or BPF's) is longer than its bound or holds an
 * address beyond user space (sf_plant.h), and once the process is gone,
 * the sections it registered are gone too (/sys/kernel/sframe/sections),
 * and so are its attachments (/sys/kernel/sframe/attached);
 * a kmemleak scan, when the kernel has
 * kmemleak, finds nothing new.
 *
 * Where the kernel has fault injection (the debug kernel), the workers
 * mark themselves for it (make-it-fail) for about every other operation,
 * and failslab, fail_page_alloc and fail_usercopy fail a few percent of
 * their allocations and user copies, the unwinder's among them (its walks
 * in task_work, its registrations, its /proc files).  An operation done
 * marked may fail as an allocation or a copy fails (ENOMEM, EFAULT,
 * EAGAIN): that is counted, not a failure; done unmarked it must work as
 * before.  The run fails if an injection never fired, or if no
 * registration, /proc read or fork failed by fail-nth.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <link.h>
#include <linux/sframe.h>

#include "sf_bpf.h"
#include "sf_perf.h"
#include "sf_plant.h"
#include "sframe_jit.h"
#include "sf_harness.h"

#ifndef PR_SFRAME_ATTACH
#define PR_SFRAME_ATTACH	0x53460003
#define PR_SFRAME_DETACH	0x53460004
#endif

#define SF_JIT_SLOTS		8
#define SF_DEEP_FRAMES		3000
#define SF_RING_PAGES		64

struct sf_jit_slot {
	pthread_mutex_t	lock;
	unsigned long	text;		/* one page of code, 0 when unmapped */
	unsigned long	data;		/* one page, the section at its start */
	bool		registered;
};

static struct sf_jit_slot slots[SF_JIT_SLOTS];

#define SF_WORKERS	10

/* Two rings a worker: sync and deferred callchains; its deferred records */
static struct sf_perf_ring rings[2 * SF_WORKERS];
static atomic_bool ring_mapped[2 * SF_WORKERS];
static atomic_ulong ring_deferred[2 * SF_WORKERS];
/* The workers' thread ids, and the drain thread's last */
static atomic_int worker_tids[SF_WORKERS + 1];
static atomic_bool stop;
static atomic_ulong ops_dl, ops_jit, ops_run, ops_fork, ops_deep, ops_proc, ops_plant;
static atomic_ulong ops_forkfail, ops_nth, ops_attach;
static atomic_ulong samples, deferred, deferred_empty, lost, bad, beyond_ips, long_chains;
/* The longest callchains a sample and a deferred record may have */
static unsigned long sync_max, deferred_max;
static unsigned long page;
static const char *self_path;

/*
 * Fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS): with task-filter set,
 * failslab, fail_page_alloc and fail_usercopy fail SF_FAIL_PERCENT of the
 * allocations and user copies of the threads marked make-it-fail.
 * min-order 0 and ignore-gfp-wait 0 let them fail the small sleeping
 * allocations the unwinder makes; user pages (highmem) still come, or a
 * page fault would only loop.  times counts down what fired.
 */
#define SF_FAIL_DIR		"/sys/kernel/debug/"
#define SF_FAIL_PERCENT		2
#define SF_FAIL_TIMES		1000000000L
/* How long the registry may take to drop its workers' sections */
#define SF_STRESS_SETTLE_MS	5000

static const char *const sf_fail_attrs[] = { "failslab", "fail_page_alloc", "fail_usercopy" };

static bool inject;
static __thread int inject_fd = -1;	/* the thread's make-it-fail */
static __thread bool injecting;		/* the thread is marked */
/* Operations that failed marked, and registrations of them with ENOMEM */
static atomic_ulong inj_ops, inj_reg_nomem;

/* Errors a system call gives for an allocation or user copy that failed */
static bool sf_injectable(int err)
{
	return err == ENOMEM || err == EFAULT || err == EAGAIN;
}

/* An operation failed: fine when marked and the error is an injected one */
static bool sf_bad(const char *what, int err)
{
	if (injecting && sf_injectable(err)) {
		atomic_fetch_add(&inj_ops, 1);
		return true;
	}
	atomic_fetch_add(&bad, 1);
	sf_fail("%s: %s%s", what, strerror(err), injecting ? " (marked for faults)" : "");
	return false;
}

static bool sf_fail_set(const char *attr, const char *knob, long value)
{
	char path[128];

	snprintf(path, sizeof(path), SF_FAIL_DIR "%s/%s", attr, knob);
	return !sf_param_set_path(path, value);
}

/* Injected failures that fired since sf_inject_setup(), for each attr */
static long sf_fail_fired(const char *attr)
{
	char path[128];

	snprintf(path, sizeof(path), SF_FAIL_DIR "%s/times", attr);
	return SF_FAIL_TIMES - sf_param_get_path(path);
}

/* Failures for the marked threads, @percent of their calls; false if none */
static bool sf_inject_setup(long percent)
{
	bool ok = true;

	for (size_t i = 0; i < ARRAY_SIZE(sf_fail_attrs); i++) {
		const char *a = sf_fail_attrs[i];

		if (!percent) {
			ok &= sf_fail_set(a, "probability", 0);
			continue;
		}
		/* verbose 0: no "forcing a failure" stack dump on the console */
		ok &= sf_fail_set(a, "verbose", 0) && sf_fail_set(a, "task-filter", 1) &&
		      sf_fail_set(a, "interval", 1) && sf_fail_set(a, "space", 0) &&
		      sf_fail_set(a, "times", SF_FAIL_TIMES);
		if (strcmp(a, "fail_usercopy"))
			ok &= sf_fail_set(a, "ignore-gfp-wait", 0);
		if (!strcmp(a, "fail_page_alloc"))
			ok &= sf_fail_set(a, "min-order", 0);
		/*
		 * User copies fail by fail-nth only: a random failure draws a
		 * random number under whatever lock the copy runs under, and
		 * the sched_switch user stack trace copies under the runqueue
		 * lock, where the crng's lock may not be taken (lockdep's
		 * "Invalid wait context" in should_fail_ex()).  fail-nth needs
		 * no random number.
		 */
		ok &= sf_fail_set(a, "probability",
				  strcmp(a, "fail_usercopy") ? percent : 0);
	}
	return ok;
}

/* Marks the calling thread for fault injection, or not */
static void sf_inject(bool on)
{
	if (!inject || injecting == on)
		return;
	if (inject_fd < 0)
		inject_fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	/* Marked, the write's own copy from user space may fail */
	while (pwrite(inject_fd, on ? "1" : "0", 1, 0) != 1) {
		if (!injecting || !sf_injectable(errno)) {
			sf_bad("make-it-fail", errno);
			return;
		}
	}
	injecting = on;
}

static unsigned int sf_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 16;
}

/* Marked for about every other operation */
static void sf_inject_maybe(unsigned int *seed)
{
	sf_inject(sf_rand(seed) % 2);
}

static void *sf_dl(void *arg)
{
	unsigned int seed = 5;
	int (*fn)(int x);
	void *h;

	while (!atomic_load(&stop)) {
		sf_inject_maybe(&seed);
		h = dlopen("libsf-dl.so", RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			/* The loader says no errno: any failure, when marked */
			if (injecting) {
				atomic_fetch_add(&inj_ops, 1);
				continue;
			}
			atomic_fetch_add(&bad, 1);
			sf_fail("dlopen: %s", dlerror());
			break;
		}
		fn = (int (*)(int))dlsym(h, "sf_lib_dl");
		if (!fn || fn(2) != 42)
			sf_bad("sf_lib_dl", EINVAL);
		dlclose(h);
		atomic_fetch_add(&ops_dl, 1);
	}
	sf_inject(false);
	return arg;
}

/* Fresh code and a section for it in @s, registered or not: under its lock */
static void sf_jit_fill(struct sf_jit_slot *s, unsigned int *seed)
{
	struct sframe_registration reg;
	unsigned char *data;
	bool garbage;
	size_t len;
	int err;

	s->text = (unsigned long)mmap(NULL, page, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s->data = (unsigned long)mmap(NULL, page, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->text == (unsigned long)MAP_FAILED || s->data == (unsigned long)MAP_FAILED) {
		sf_bad("mmap", errno);
		goto unmap;
	}
	memcpy((void *)s->text, sf_jit_loop_code, sf_jit_loop_size);
	__builtin___clear_cache((char *)s->text, (char *)s->text + sf_jit_loop_size);
	if (mprotect((void *)s->text, page, PROT_READ | PROT_EXEC)) {
		sf_bad("mprotect", errno);
		goto unmap;
	}
	data = (unsigned char *)s->data;
	len = sf_jit_build(data, sf_rand(seed) % 4 ? SFRAME_VERSION_3 : SFRAME_VERSION_2,
			   s->text, page);
	/* One in eight is garbage from the start */
	garbage = !(sf_rand(seed) % 8);
	if (garbage)
		for (size_t i = 0; i < len; i++)
			data[i] = sf_rand(seed);
	sf_jit_reg(&reg, data, len, s->text, page);
	err = sf_jit_register(&reg);
	s->registered = !err;
	if (err == ENOMEM && injecting)
		atomic_fetch_add(&inj_reg_nomem, 1);
	/* A valid section is never refused as malformed, faults or not. */
	if (err && !(garbage && (err == EINVAL || err == EOPNOTSUPP)) &&
	    err != ENOSPC && err != EDQUOT)
		sf_bad("PR_SFRAME_REGISTER", err);
	return;
unmap:
	/* Only text that is mapped executable is run: none here */
	if (s->text != (unsigned long)MAP_FAILED)
		munmap((void *)s->text, page);
	if (s->data != (unsigned long)MAP_FAILED)
		munmap((void *)s->data, page);
	s->text = 0;
	s->data = 0;
}

/* Unmaps @s's text and data, under its lock: a change that failed halfway */
static void sf_jit_drop(struct sf_jit_slot *s)
{
	munmap((void *)s->text, page);
	munmap((void *)s->data, page);
	s->text = 0;
	s->data = 0;
	s->registered = false;
}

/* One hostile change to @s, under its lock */
static void sf_jit_change(struct sf_jit_slot *s, unsigned int *seed)
{
	unsigned char *data = (unsigned char *)s->data;
	struct sframe_registration reg;
	void *moved;
	int err;

	switch (sf_rand(seed) % 7) {
	case 0:		/* scribble over the section while it is in use */
		data[sf_rand(seed) % SF_JIT_SECTION_MAX] = sf_rand(seed);
		break;
	case 1:		/* a JIT patching code and section, then registering again */
		mprotect((void *)s->text, page, PROT_READ | PROT_WRITE);
		if (mprotect((void *)s->text, page, PROT_READ | PROT_EXEC)) {
			/* Not executable: the run thread must not call it */
			sf_bad("mprotect", errno);
			sf_jit_drop(s);
			break;
		}
		if (!s->registered)
			break;
		sf_jit_reg(&reg, data, sf_jit_build(data, SFRAME_VERSION_3, s->text, page),
			   s->text, page);
		/* It replaces the registration; a new one if that went with its data */
		err = sf_jit_register(&reg);
		if (err && err != ENOSPC && err != EDQUOT)
			sf_bad("PR_SFRAME_REGISTER again", err);
		s->registered |= !err;
		break;
	case 2:
		/* Gone already when its data was replaced or found corrupt */
		if (s->registered && sf_jit_unregister(s->text) && errno != ENOENT)
			sf_bad("PR_SFRAME_UNREGISTER", errno);
		s->registered = false;
		break;
	case 3:		/* the section's data replaced under it */
		if (mmap((void *)s->data, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
			break;
		/* A MAP_FIXED mmap() that failed may have unmapped the old data */
		sf_bad("mmap MAP_FIXED", errno);
		sf_jit_drop(s);
		break;
	case 4:		/* the text moved */
		moved = mremap((void *)s->text, page, page, MREMAP_MAYMOVE | MREMAP_FIXED,
			       (void *)s->data);
		if (moved != MAP_FAILED) {
			s->text = s->data;
			s->data = 0;
		}
		__attribute__((fallthrough));	/* then start again */
	default:	/* unmapped: the registration goes with it */
		munmap((void *)s->text, page);
		if (s->data)
			munmap((void *)s->data, page);
		s->text = 0;
		s->data = 0;
		s->registered = false;
		break;
	}
}

static void *sf_jit(void *arg)
{
	unsigned int seed = 1;
	struct sf_jit_slot *s;

	while (!atomic_load(&stop)) {
		s = &slots[sf_rand(&seed) % SF_JIT_SLOTS];
		sf_inject_maybe(&seed);
		pthread_mutex_lock(&s->lock);
		if (!s->text)
			sf_jit_fill(s, &seed);
		else
			sf_jit_change(s, &seed);
		pthread_mutex_unlock(&s->lock);
		atomic_fetch_add(&ops_jit, 1);
	}
	sf_inject(false);
	return arg;
}

/* Runs JIT code; the lock keeps it mapped executable meanwhile */
static void *sf_run(void *arg)
{
	unsigned int seed = 2;
	struct sf_jit_slot *s;

	/* No system calls: its deferred walks are what fail */
	sf_inject(true);
	while (!atomic_load(&stop)) {
		s = &slots[sf_rand(&seed) % SF_JIT_SLOTS];
		if (pthread_mutex_trylock(&s->lock))
			continue;
		if (s->text && s->data) {
			((void (*)(void))s->text)();
			atomic_fetch_add(&ops_run, 1);
		}
		pthread_mutex_unlock(&s->lock);
	}
	sf_inject(false);
	return arg;
}

static void *sf_fork(void *arg)
{
	unsigned int seed = 3;
	int status;
	pid_t pid;

	while (!atomic_load(&stop)) {
		sf_inject_maybe(&seed);
		pid = fork();
		if (!pid) {
			if (sf_rand(&seed) % 2)
				execl(self_path, self_path, "--exit", (char *)NULL);
			_exit(0);
		}
		if (pid < 0) {
			if (!sf_bad("fork", errno))
				break;
			continue;
		}
		/*
		 * The child inherits the mark: its exec may fail past the
		 * point of no return (SIGSEGV), or the loader of the new
		 * program may fail.
		 */
		if (waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!sf_bad("the child of a fork", injecting ? ENOMEM : ECHILD))
				break;
			continue;
		}
		atomic_fetch_add(&ops_fork, 1);
	}
	sf_inject(false);
	return arg;
}

static void sf_on_signal(int sig)
{
	volatile char pad[256];

	pad[0] = sig;
	(void)pad[0];
}

static __attribute__((noinline)) int sf_recurse(int depth)
{
	volatile char frame[48];

	frame[0] = depth;
	if (depth)
		return sf_recurse(depth - 1) + frame[0] - depth;
	/* A signal frame that cannot be written or read back is SIGSEGV */
	sf_inject(false);
	raise(SIGUSR1);
	return 0;
}

static void *sf_deep(void *arg)
{
	stack_t alt = { .ss_size = 64 * 1024 };
	struct sigaction sa = { .sa_handler = sf_on_signal, .sa_flags = SA_ONSTACK };

	alt.ss_sp = malloc(alt.ss_size);
	if (!alt.ss_sp || sigaltstack(&alt, NULL) || sigaction(SIGUSR1, &sa, NULL)) {
		sf_bad("sigaltstack", errno);
		return arg;
	}
	while (!atomic_load(&stop)) {
		sf_inject(true);
		sf_recurse(SF_DEEP_FRAMES);
		atomic_fetch_add(&ops_deep, 1);
	}
	return arg;
}

/* Reads @fd to its end into @buf, cut to fit and NUL-terminated; 0 or an errno */
static int sf_read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	do {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0)
			return errno;
		len += n;
	} while (n && len < size - 1);
	buf[len] = '\0';
	return 0;
}

/* Lines of a ustack file, "0x<ip> <method>": each ip within user space */
static void sf_check_ustack(const char *text)
{
	unsigned long ip;

	while (text && *text) {
		if (sscanf(text, "%lx", &ip) == 1 && sf_plant_beyond_user(ip) &&
		    atomic_fetch_add(&beyond_ips, 1) < 3)
			sf_fail("an address beyond user space in a ustack file: %#lx", ip);
		text = strchr(text, '\n');
		if (text)
			text++;
	}
}

/*
 * Reads the thread's own ustack, the process's sframe, or the ustack of
 * another thread, which may be running (EBUSY), run under the walk
 * (EAGAIN) or be gone (ESRCH, ENOENT): -1 for those.
 */
static int sf_proc_read(const char *path, char *buf, size_t size, bool other)
{
	int fd, err;

	fd = open(path, O_RDONLY);
	err = fd < 0 ? errno : sf_read_all(fd, buf, size);
	if (fd >= 0)
		close(fd);
	if (other && (err == EBUSY || err == EAGAIN || err == ESRCH || err == ENOENT))
		return -1;
	if (!err && strstr(path, "ustack"))
		sf_check_ustack(buf);
	return err;
}

/* Another thread's ustack, or the caller's own if that one has not started */
static void sf_other_ustack(char *path, size_t size, unsigned int *seed)
{
	int tid = atomic_load(&worker_tids[sf_rand(seed) % (SF_WORKERS + 1)]);

	snprintf(path, size, "/proc/self/task/%d/ustack", tid ? tid : gettid());
}

static void *sf_proc(void *arg)
{
	static char buf[256 * 1024];
	unsigned int seed = 6;
	char path[64];
	int err, kind;

	while (!atomic_load(&stop)) {
		kind = sf_rand(&seed) % 3;
		if (kind == 2)
			sf_other_ustack(path, sizeof(path), &seed);
		else
			strcpy(path, kind ? "/proc/self/sframe" : "/proc/thread-self/ustack");
		sf_inject_maybe(&seed);
		err = sf_proc_read(path, buf, sizeof(buf), kind == 2);
		/* procfs says ENOENT when it cannot allocate the file's inode */
		if (err > 0)
			sf_bad(path, err == ENOENT && injecting ? ENOMEM : err);
		atomic_fetch_add(&ops_proc, 1);
	}
	sf_inject(false);
	return arg;
}

static void *sf_plant(void *arg)
{
	unsigned int seed = 4;
	struct sf_plant p;

	if (sf_plant_init(&p)) {
		sf_bad("planted stack", errno);
		return arg;
	}
	sf_inject(true);
	while (!atomic_load(&stop)) {
		sf_plant_run(&p, &seed, 200000);
		atomic_fetch_add(&ops_plant, 1);
	}
	sf_inject(false);
	return arg;
}

/*
 * fail-nth: the Nth fault point (allocation or user copy) of the thread
 * from now on fails.  Reading the count left is a user copy itself: with
 * one left it fails there (EFAULT); more read as they are, and 0 means it
 * fired before.  Writing 0 disarms it, whether or not that write's own
 * copy is the one that fires.
 */
#define SF_NTH_MAX	5000

static void sf_nth_arm(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fd, buf, len, 0) != len)
		sf_bad("fail-nth", errno);
}

static bool sf_nth_fired(int fd)
{
	char buf[16] = "";
	bool fired = pread(fd, buf, sizeof(buf) - 1, 0) > 0 && !atol(buf);

	if (pwrite(fd, "0", 1, 0) != 1 && errno != EFAULT)
		sf_bad("fail-nth", errno);
	return fired;
}

/* Fork failures the kernel made, by kind; fail-nth's, by what it failed */
static atomic_ulong ff_nproc, ff_pids, ff_nth;
static atomic_ulong nth_reg[2], nth_ustack, nth_sframe, nth_other, nth_attach, nth_sweeps;
static bool pids_cgroup;

#define SF_PIDS_CG	"/sys/fs/cgroup/sf-stress"
#define SF_NOBODY	65534

/* A pids cgroup that holds one process: a fork inside it fails */
static bool sf_pids_setup(void)
{
	mkdir("/sys/fs/cgroup", 0755);
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL) && errno != EBUSY)
		return false;
	if (!sf_write_file("/sys/fs/cgroup/cgroup.subtree_control", "+pids"))
		return false;
	if (mkdir(SF_PIDS_CG, 0755) && errno != EEXIST)
		return false;
	return sf_write_file(SF_PIDS_CG "/pids.max", "1");
}

/*
 * How much of its own CPU time a thread spins for a deferred record its
 * sampler (one sample every few tens of microseconds of that time) owes
 * it: counted in CPU time, so that a loaded host stretching the wall
 * clock does not fail a wait that is not late.
 */
#define SF_RECORD_CPU_MS	10000

/*
 * Spins in user space until @count grows (a deferred record came), for at
 * most @cpu_ms of the thread's CPU time or until the run stops.
 */
static bool sf_spin_until(atomic_ulong *count, long cpu_ms)
{
	unsigned long before = atomic_load(count);
	long end = sf_thread_cpu_ms() + cpu_ms;

	while (atomic_load(count) == before) {
		for (volatile int k = 0; k < 100000; k++)
			;
		if (sf_thread_cpu_ms() > end || atomic_load(&stop))
			return false;
	}
	return true;
}

/* What the child got instead, and the CPU time it spent waiting */
#define SF_CHILD_NO_RECORD_NOTE	"forkfail child: no deferred record: %lu samples, %lu other records, user %ld ms, system %ld ms"

/* Spins until the child's own deferred sampler gives a record */
static bool sf_child_deferred(struct sf_perf_ring *ring)
{
	const struct perf_event_header *h;
	long end = sf_thread_cpu_ms() + SF_RECORD_CPU_MS;
	unsigned long samples = 0, others = 0;
	struct rusage ru;
	bool late;

	do {
		/*
		 * Read once more after the deadline: on a slow guest one spin
		 * can outlast it (the samples' interrupts taking nearly all
		 * of the child's time), and the record came during that spin.
		 */
		late = sf_thread_cpu_ms() >= end;
		while ((h = sf_perf_ring_next(ring))) {
			if (h->type == PERF_RECORD_CALLCHAIN_DEFERRED)
				return true;
			if (h->type == PERF_RECORD_SAMPLE)
				samples++;
			else
				others++;
		}
		for (volatile int k = 0; !late && k < 100000; k++)
			;
	} while (!late);
	getrusage(RUSAGE_SELF, &ru);
	sf_note(SF_CHILD_NO_RECORD_NOTE, samples, others,
		ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000,
		ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000);
	return false;
}

enum { SF_FF_NPROC, SF_FF_PIDS, SF_FF_NTH, SF_FF_KINDS };
#define SF_FF_FORKS	4

/*
 * A child owning a deferred-unwind cache (a deferred record came for it)
 * forks where the kernel must refuse, as an unprivileged user over
 * RLIMIT_NPROC (root's forks skip that check) or inside the pids cgroup
 * at its limit: EAGAIN each time, and it goes on being sampled, deferred
 * too, and exits cleanly.  Returns the step that went wrong, or 0.
 */
static int sf_forkfail_child(int kind)
{
	static struct sf_perf_ring ring;
	const struct rlimit one = { 1, 1 };
	pid_t pid;

	if (sf_perf_self(20000, true, &ring, 8) < 0)
		return 1;
	if (!sf_child_deferred(&ring))
		return 2;
	if (kind == SF_FF_NPROC ?
	    setresuid(SF_NOBODY, SF_NOBODY, SF_NOBODY) || setrlimit(RLIMIT_NPROC, &one) :
	    !sf_write_file(SF_PIDS_CG "/cgroup.procs", "0"))
		return 3;
	for (int i = 0; i < SF_FF_FORKS; i++) {
		pid = fork();
		if (!pid)
			_exit(0);
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			return 4;
		}
		if (errno != EAGAIN)
			return 5;
		if (!sf_child_deferred(&ring))
			return 6;
	}
	return 0;
}

/*
 * fail-nth over fork() in this thread, whose deferred sampler gave it a
 * cache: each time the first SF_FORK_NTH_HEAD fault points of fork in
 * turn (dup_task_struct()'s and copy_creds()'s among them), then the next
 * SF_FORK_NTH_STEP of the rest, which a fork of this big process has
 * hundreds of, until a fork passes them all and the rest start over.
 */
#define SF_FORK_NTH_HEAD	24
#define SF_FORK_NTH_STEP	8

static void sf_fork_nth(int nth_fd, atomic_ulong *own_deferred)
{
	static unsigned int next = SF_FORK_NTH_HEAD + 1;
	unsigned int n;
	bool fired;
	pid_t pid;
	int err;

	for (n = 1; n <= SF_NTH_MAX && !atomic_load(&stop); n++) {
		if (n == SF_FORK_NTH_HEAD + 1)
			n = next;
		if (n == next + SF_FORK_NTH_STEP) {
			next = n;
			return;
		}
		sf_nth_arm(nth_fd, n);
		pid = fork();
		err = errno;
		if (!pid)
			_exit(0);
		fired = sf_nth_fired(nth_fd);
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			if (!fired) {
				next = SF_FORK_NTH_HEAD + 1;
				return;
			}
			continue;
		}
		if (!fired || (err != ENOMEM && err != EAGAIN)) {
			atomic_fetch_add(&bad, 1);
			sf_fail("fork with its fault point %u made to fail: %s%s", n,
				strerror(err), fired ? "" : " (none fired)");
			return;
		}
		atomic_fetch_add(&ff_nth, 1);
		/* A sample now and then walks with the cache fork left */
		if (!(n % 8))
			sf_spin_until(own_deferred, 1000);
	}
	if (!atomic_load(&stop))
		sf_fail("fork still failed at fault point %u", n);
}

static void *sf_forkfail(void *arg)
{
	atomic_ulong *own_deferred = &ring_deferred[2 * (long)arg + 1];
	int nth_fd = -1, status, kind = 0, err;
	pid_t pid;

	if (inject)
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (!sf_spin_until(own_deferred, SF_RECORD_CPU_MS)) {
		sf_bad(atomic_load(&stop) ?
		       "no deferred record for the forkfail thread before the run stopped" :
		       "no deferred record for the forkfail thread in its CPU time",
		       ETIMEDOUT);
		return arg;
	}
	for (; !atomic_load(&stop); kind = (kind + 1) % SF_FF_KINDS) {
		if (kind == SF_FF_NTH) {
			if (nth_fd >= 0)
				sf_fork_nth(nth_fd, own_deferred);
			continue;
		}
		if (kind == SF_FF_PIDS && !pids_cgroup)
			continue;
		pid = fork();
		if (!pid)
			_exit(sf_forkfail_child(kind));
		err = errno;
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			atomic_fetch_add(&bad, 1);
			sf_fail("%s fork failures: %s",
				kind == SF_FF_NPROC ? "RLIMIT_NPROC" : "pids cgroup",
				pid < 0 ? strerror(err) : "the child failed");
			/* Exit status: the step of sf_forkfail_child() that failed */
			if (pid > 0)
				sf_fail("its status %#x", status);
			break;
		}
		atomic_fetch_add(kind == SF_FF_NPROC ? &ff_nproc : &ff_pids, SF_FF_FORKS);
		atomic_fetch_add(&ops_forkfail, 1);
	}
	if (nth_fd >= 0)
		close(nth_fd);
	return arg;
}

/*
 * The attachment the attach worker and fail-nth make, one at a time (the
 * second of the same text would be EEXIST): sf-attach's own section, in
 * a copy root owns that others may read, as the kernel asks.
 */
static struct sframe_attachment attach_att;
static const char *attach_prog;
static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;

/* sf-attach's first executable segment, from its file; false if none */
static bool sf_attach_setup(void)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	static char prog[4096], sec[4096 + 8];
	struct stat st;
	int elf, fd, out;
	char *slash;
	ssize_t n;
	char buf[4096];

	snprintf(prog, sizeof(prog), "%s", self_path);
	slash = strrchr(prog, '/');
	snprintf(slash ? slash + 1 : prog, sizeof(prog) - (slash ? slash + 1 - prog : 0),
		 "sf-attach");
	snprintf(sec, sizeof(sec), "%s.sframe", prog);
	elf = open(prog, O_RDONLY);
	fd = open(sec, O_RDONLY);
	unlink("/tmp/sf-stress.sframe");
	out = open("/tmp/sf-stress.sframe", O_RDWR | O_CREAT | O_EXCL, 0644);
	if (elf < 0 || fd < 0 || out < 0 || pread(elf, &eh, sizeof(eh), 0) != sizeof(eh))
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return false;
	close(fd);
	if (fchmod(out, 0644) || fstat(out, &st))
		return false;
	attach_att = (struct sframe_attachment){
		.size = sizeof(attach_att), .elf_fd = elf, .sframe_fd = out,
		.sframe_size = st.st_size, .sframe_vaddr = ~0UL - (1UL << 36) + 1,
	};
	for (int i = 0; i < eh.e_phnum; i++) {
		if (pread(elf, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			return false;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			attach_att.text_vaddr = ph.p_vaddr;
			attach_att.text_size = ph.p_memsz;
			attach_prog = prog;
			return true;
		}
	}
	return false;
}

static int sf_attach_op(void)
{
	return prctl(PR_SFRAME_ATTACH, &attach_att, 0, 0, 0) ? errno : 0;
}

/* Remove it, by its file or all; 0 or the error */
static int sf_detach(bool all)
{
	return prctl(PR_SFRAME_DETACH, all ? -1UL : (unsigned long)attach_att.elf_fd,
		     0, 0, 0) ? errno : 0;
}

static void *sf_attach(void *arg)
{
	unsigned int seed = 11;
	int status, err, gone;
	pid_t pid;

	while (!atomic_load(&stop)) {
		pthread_mutex_lock(&attach_lock);
		sf_inject_maybe(&seed);
		err = sf_attach_op();
		if (err && !sf_bad("PR_SFRAME_ATTACH", err)) {
			pthread_mutex_unlock(&attach_lock);
			break;
		}
		/* Its exec registers the kernel's copy; its loader does no more */
		pid = fork();
		if (!pid) {
			execl(attach_prog, attach_prog, "--child", "audit", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			sf_bad("sf-attach", injecting ? ENOMEM : ECHILD);
		sf_inject(false);
		gone = sf_detach(sf_rand(&seed) % 4 == 0);
		pthread_mutex_unlock(&attach_lock);
		if (!SF_CHECK(gone == (err ? ENOENT : 0), "detach after attach %s: %s",
			      err ? strerror(err) : "done", gone ? strerror(gone) : "done")) {
			atomic_fetch_add(&bad, 1);
			break;
		}
		atomic_fetch_add(&ops_attach, 1);
	}
	sf_inject(false);
	return arg;
}

/*
 * fail-nth over the unwinder's system calls, each fault point in turn
 * until one passes them all: registering a valid section (it is
 * registered whole or not at all: ENOMEM or EFAULT, nothing to
 * unregister), reading /proc/thread-self/ustack, /proc/self/sframe and
 * another thread's ustack (ENOMEM or EFAULT, or the stack), attaching a
 * section to a file (made whole or not at all: ENOMEM or EFAULT, nothing
 * to detach).
 */
enum { SF_NTH_REG, SF_NTH_USTACK, SF_NTH_SFRAME, SF_NTH_OTHER, SF_NTH_ATTACH, SF_NTH_KINDS };

static int sf_nth_op(int kind, const struct sframe_registration *reg, const char *path,
		     char *buf, size_t size)
{
	if (kind == SF_NTH_REG)
		return sf_jit_register(reg);
	if (kind == SF_NTH_ATTACH)
		return sf_attach_op();
	return sf_proc_read(path, buf, size, kind == SF_NTH_OTHER);
}

static void sf_nth_check(int kind, int err, bool fired, unsigned int n,
			 const struct sframe_registration *reg)
{
	static const char *const what[] = { "PR_SFRAME_REGISTER", "ustack", "sframe",
					    "another thread's ustack", "PR_SFRAME_ATTACH" };
	int gone;

	if (kind == SF_NTH_ATTACH) {
		gone = sf_detach(false);
		if (!SF_CHECK(gone == (err ? ENOENT : 0),
			      "attachment %s at fault point %u, then detaching: %s",
			      err ? strerror(err) : "made", n, gone ? strerror(gone) : "done"))
			atomic_fetch_add(&bad, 1);
	}
	if (kind == SF_NTH_REG) {
		gone = sf_jit_unregister(reg->text_start) ? errno : 0;
		if (!SF_CHECK(gone == (err ? ENOENT : 0),
			      "registration %s at fault point %u, then unregistering: %s",
			      err ? strerror(err) : "done", n, gone ? strerror(gone) : "done"))
			atomic_fetch_add(&bad, 1);
	}
	if (err <= 0)
		return;
	/* procfs says ENOENT when it cannot allocate the file's inode */
	if (!fired || (err != ENOMEM && err != EFAULT && (kind == SF_NTH_REG || err != ENOENT))) {
		atomic_fetch_add(&bad, 1);
		sf_fail("%s with fault point %u made to fail: %s%s", what[kind], n,
			strerror(err), fired ? "" : " (none fired)");
		return;
	}
	if (kind == SF_NTH_REG)
		atomic_fetch_add(&nth_reg[err == EFAULT], 1);
	else
		atomic_fetch_add(kind == SF_NTH_USTACK ? &nth_ustack :
				 kind == SF_NTH_SFRAME ? &nth_sframe :
				 kind == SF_NTH_ATTACH ? &nth_attach : &nth_other, 1);
}

static void *sf_nth(void *arg)
{
	static char buf[64 * 1024];
	struct sframe_registration reg;
	unsigned int seed = 7, n;
	unsigned long text, data;
	int fd, kind = 0, err;
	char path[64];
	bool fired;
	size_t len;

	if (!inject)
		return arg;
	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	text = (unsigned long)mmap(NULL, page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	data = (unsigned long)mmap(NULL, page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || text == (unsigned long)MAP_FAILED || data == (unsigned long)MAP_FAILED ||
	    mprotect((void *)text, page, PROT_READ | PROT_EXEC)) {
		sf_bad("fail-nth set-up", errno);
		return arg;
	}
	len = sf_jit_build((void *)data, SFRAME_VERSION_3, text, page);
	sf_jit_reg(&reg, (void *)data, len, text, page);
	while (!atomic_load(&stop)) {
		kind = (kind + 1) % SF_NTH_KINDS;
		if (kind == SF_NTH_OTHER)
			sf_other_ustack(path, sizeof(path), &seed);
		else
			strcpy(path, kind == SF_NTH_SFRAME ? "/proc/self/sframe" :
			       "/proc/thread-self/ustack");
		if (kind == SF_NTH_ATTACH)
			pthread_mutex_lock(&attach_lock);
		for (n = 1; n <= SF_NTH_MAX && !atomic_load(&stop); n++) {
			sf_nth_arm(fd, n);
			err = sf_nth_op(kind, &reg, path, buf, sizeof(buf));
			fired = sf_nth_fired(fd);
			sf_nth_check(kind, err, fired, n, &reg);
			if (!fired)
				break;
		}
		if (kind == SF_NTH_ATTACH)
			pthread_mutex_unlock(&attach_lock);
		atomic_fetch_add(&nth_sweeps, 1);
		atomic_fetch_add(&ops_nth, 1);
	}
	close(fd);
	return arg;
}

/* BPF's count of its samples: bpf_get_stack() took one, failed, or saw no user address */
enum { SF_BPF_OK, SF_BPF_FAILED, SF_BPF_BEYOND, SF_BPF_KEYS };
#define SF_BPF_WORDS	32

static int bpf_counts = -1;

/* Emits: count[r7]++; return 0.  Returns the instructions written. */
static unsigned int sf_bpf_count_r7(struct bpf_insn *insn)
{
	const struct bpf_insn tail[] = {
		SF_BPF_INSN(BPF_STX | BPF_MEM | BPF_W, 10, 7, -260, 0),
		/* r0 = bpf_map_lookup_elem(bpf_counts, r10 - 260) */
		SF_BPF_LD_MAP_FD(1, bpf_counts),
		SF_BPF_LD_IMM64_HI,
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		SF_BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -260),
		SF_BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		SF_BPF_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
		SF_BPF_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		SF_BPF_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	memcpy(insn, tail, sizeof(tail));
	return ARRAY_SIZE(tail);
}

/*
 * Each sample: bpf_get_stack(BPF_F_USER_STACK) into a zeroed buffer, then
 * every word of it looked at for an address beyond user space, counted.
 */
static int sf_bpf_stack_prog(void)
{
	struct bpf_insn insn[4 * SF_BPF_WORDS + 40];
	unsigned int n = 0, i, beyond_at;

	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	for (i = 0; i < SF_BPF_WORDS; i++)
		insn[n++] = SF_BPF_INSN(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -256 + 8 * i, 0);
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -256);
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 8 * SF_BPF_WORDS);
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, BPF_F_USER_STACK);
	insn[n++] = SF_BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stack);
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 7, 0, 0, SF_BPF_OK);
	insn[n++] = SF_BPF_INSN(BPF_JMP | BPF_JSGE | BPF_K, 0, 0, 1, 0);
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 7, 0, 0, SF_BPF_FAILED);
	/* Each word: a jump to the count of those beyond user space */
	beyond_at = n + 3 * SF_BPF_WORDS + sf_bpf_count_r7(&insn[n]);
	for (i = 0; i < SF_BPF_WORDS; i++) {
		insn[n++] = SF_BPF_INSN(BPF_LDX | BPF_MEM | BPF_DW, 1, 10, -256 + 8 * i, 0);
		insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_RSH | BPF_K, 1, 0, 0, SF_PLANT_USER_BITS);
		insn[n] = SF_BPF_INSN(BPF_JMP | BPF_JNE | BPF_K, 1, 0, beyond_at - n - 1, 0);
		n++;
	}
	n += sf_bpf_count_r7(&insn[n]);
	if (!SF_CHECK(n == beyond_at, "BPF program: %u instructions before the count, not %u",
		      n, beyond_at))
		return -1;
	insn[n++] = SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 7, 0, 0, SF_BPF_BEYOND);
	n += sf_bpf_count_r7(&insn[n]);
	return sf_bpf_perf_prog(insn, n);
}

/* A task-clock event on the calling thread whose samples go to @prog */
static void sf_bpf_sampler(int prog)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 50000,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = sf_perf_open(&attr, 0, -1);

	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		sf_bad("BPF sampler", errno);
}

static uint64_t sf_bpf_count(uint32_t key)
{
	uint64_t value = 0;

	sf_bpf_lookup(bpf_counts, key, &value);
	return value;
}

static long sf_read_long(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? atol(buf) : -1;
}

/* A callchain within its bound, every user address of it within user space */
static void sf_check_chain(const uint64_t *ips, uint64_t nr, unsigned long max)
{
	uint64_t i;

	if (nr > max) {
		if (atomic_fetch_add(&long_chains, 1) < 3)
			sf_fail("a callchain of %llu entries, more than %lu",
				(unsigned long long)nr, max);
		return;
	}
	for (i = 0; i < nr; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		if (sf_plant_beyond_user(ips[i]) &&
		    atomic_fetch_add(&beyond_ips, 1) < 3)
			sf_fail("an address beyond user space in a user callchain: %#llx",
				(unsigned long long)ips[i]);
	}
}

static void *sf_drain(void *arg)
{
	const struct perf_event_header *h;
	int i;

	atomic_store(&worker_tids[SF_WORKERS], gettid());
	while (!atomic_load(&stop)) {
		for (i = 0; i < 2 * SF_WORKERS; i++) {
			if (!atomic_load(&ring_mapped[i]))
				continue;
			while ((h = sf_perf_ring_next(&rings[i]))) {
				const uint64_t *rec = rings[i].rec;

				/* header, ip, pid/tid, nr, ips; header, cookie, nr, ips */
				if (h->type == PERF_RECORD_SAMPLE) {
					atomic_fetch_add(&samples, 1);
					sf_check_chain(&rec[4], rec[3], sync_max);
				} else if (h->type == PERF_RECORD_CALLCHAIN_DEFERRED) {
					atomic_fetch_add(&deferred, 1);
					atomic_fetch_add(&ring_deferred[i], 1);
					/*
					 * Not even the interrupted ip: no cache
					 * for the walk could be allocated
					 */
					if (!rec[2])
						atomic_fetch_add(&deferred_empty, 1);
					sf_check_chain(&rec[3], rec[2], deferred_max);
				} else if (h->type == PERF_RECORD_LOST) {
					atomic_fetch_add(&lost, 1);
				}
			}
		}
		usleep(1000);
	}
	return arg;
}

static void *(*const workers[SF_WORKERS])(void *) = {
	sf_dl, sf_jit, sf_run, sf_fork, sf_deep, sf_proc, sf_plant, sf_forkfail, sf_nth,
	sf_attach,
};

static int bpf_prog = -1;

/* A worker, sampled while it works */
static void *sf_worker(void *arg)
{
	long i = (long)arg;

	atomic_store(&worker_tids[i], gettid());
	/* Per thread: perf maps no ring of an inherited per-task event */
	for (int defer = 0; defer < 2; defer++) {
		if (sf_perf_self(50000, defer, &rings[2 * i + defer], SF_RING_PAGES) < 0)
			sf_bad(defer ? "deferred sampler" : "sampler", errno);
		else
			atomic_store(&ring_mapped[2 * i + defer], true);
	}
	if (bpf_prog >= 0)
		sf_bpf_sampler(bpf_prog);
	return workers[i](arg);
}

/* sf_stress()'s summaries, each kept whole */
#define SF_OPS_NOTE	"ops: dl %lu, jit %lu, run %lu, fork %lu, deep %lu, proc %lu, plant %lu, forkfail %lu, nth %lu, attach %lu; samples %lu, deferred %lu (no stack %lu), lost records %lu; BPF stacks %llu, failed %llu"
#define SF_FAULTS_NOTE	"marked for faults: %lu operations failed, %lu of them registrations with ENOMEM; fail-nth: %lu sweeps, registrations failed %lu ENOMEM, %lu EFAULT, reads failed: ustack %lu, sframe %lu, another thread's %lu; attachments failed %lu"

/* One thing a run must have seen: false, and named when @report, if not */
static bool sf_seen(bool seen, bool report, const char *missing)
{
	if (!seen && report)
		sf_fail("%s", missing);
	return seen;
}

/*
 * What a run must have seen, every worker's progress and every kind of
 * failure it aims at; each one missing is named when @report.
 */
static bool sf_run_seen(bool report)
{
	bool seen = true;

	seen &= sf_seen(atomic_load(&ff_nproc) > 0, report, "no fork failed over RLIMIT_NPROC");
	seen &= sf_seen(!pids_cgroup || atomic_load(&ff_pids) > 0, report,
			"no fork failed in the pids cgroup");
	if (inject) {
		seen &= sf_seen(atomic_load(&inj_ops) > 0, report,
				"no operation failed marked for faults");
		seen &= sf_seen(atomic_load(&ff_nth) > 0, report, "no fork failed by fail-nth");
		seen &= sf_seen(atomic_load(&nth_reg[0]) > 0 && atomic_load(&nth_ustack) > 0 &&
				atomic_load(&nth_sframe) > 0 && atomic_load(&nth_attach) > 0,
				report,
				"fail-nth failed no registration, ustack or sframe read, or attachment");
	}
	seen &= sf_seen(atomic_load(&samples) > 0, report, "no samples came");
	seen &= sf_seen(sf_bpf_count(SF_BPF_OK) > 0, report, "BPF took no stack");
	seen &= sf_seen(atomic_load(&ops_jit) > 0 && atomic_load(&ops_dl) > 0 &&
			atomic_load(&ops_fork) > 0 && atomic_load(&ops_deep) > 0 &&
			atomic_load(&ops_plant) > 0 && atomic_load(&ops_forkfail) > 0 &&
			atomic_load(&ops_attach) > 0 &&
			(!inject || atomic_load(&ops_nth) > 0), report,
			"a worker made no progress");
	return seen;
}

/*
 * How long a run goes on past its length for what it has not seen yet:
 * on a loaded host one round of the slowest worker (an attachment: a
 * fork, an exec and a walk) can outlast a short run.
 */
#define SF_RUN_ON_MS		120000

static int sf_stress(double seconds)
{
	pthread_t threads[SF_WORKERS + 1];
	struct timespec end;
	long i, past;

	page = sysconf(_SC_PAGESIZE);
	for (i = 0; i < SF_JIT_SLOTS; i++)
		pthread_mutex_init(&slots[i].lock, NULL);
	/* perf's depth and context markers; the unwinder's depth and one marker */
	sync_max = sf_read_long("/proc/sys/kernel/perf_event_max_stack") +
		   sf_read_long("/proc/sys/kernel/perf_event_max_contexts_per_stack");
	deferred_max = sf_read_long("/sys/module/unwind_user/parameters/max_frames") + 1;
	if (!SF_CHECK(sync_max > 1 && deferred_max > 1, "perf's and the unwinder's limits: %m"))
		return 1;
	bpf_counts = sf_bpf_map(BPF_MAP_TYPE_ARRAY, 8, SF_BPF_KEYS);
	if (!SF_CHECK(bpf_counts >= 0, "BPF map: %m"))
		return 1;
	bpf_prog = sf_bpf_stack_prog();
	if (bpf_prog < 0)
		return 1;
	if (!SF_CHECK(sf_attach_setup(), "sf-attach and its section: %m"))
		return 1;
	pids_cgroup = sf_pids_setup();
	if (!pids_cgroup)
		sf_note("no pids cgroup (%m): no fork failures from one");
	/* The drain thread reads each ring once its worker mapped it */
	pthread_create(&threads[0], NULL, sf_drain, NULL);
	for (i = 0; i < SF_WORKERS; i++)
		pthread_create(&threads[i + 1], NULL, sf_worker, (void *)i);
	end.tv_sec = (time_t)seconds;
	end.tv_nsec = (long)((seconds - end.tv_sec) * 1e9);
	nanosleep(&end, NULL);
	past = sf_now_ms();
	while (!sf_run_seen(false) && sf_now_ms() - past < SF_RUN_ON_MS)
		usleep(100000);
	past = sf_now_ms() - past;
	atomic_store(&stop, true);
	for (i = 0; i <= SF_WORKERS; i++)
		pthread_join(threads[i], NULL);
	if (pids_cgroup)
		rmdir(SF_PIDS_CG);
	sf_note(SF_OPS_NOTE, atomic_load(&ops_dl), atomic_load(&ops_jit), atomic_load(&ops_run),
		atomic_load(&ops_fork), atomic_load(&ops_deep), atomic_load(&ops_proc),
		atomic_load(&ops_plant), atomic_load(&ops_forkfail), atomic_load(&ops_nth),
		atomic_load(&ops_attach),
		atomic_load(&samples), atomic_load(&deferred), atomic_load(&deferred_empty),
		atomic_load(&lost), (unsigned long long)sf_bpf_count(SF_BPF_OK),
		(unsigned long long)sf_bpf_count(SF_BPF_FAILED));
	sf_note("forks refused: RLIMIT_NPROC %lu, pids cgroup %lu, fail-nth %lu",
		atomic_load(&ff_nproc), atomic_load(&ff_pids), atomic_load(&ff_nth));
	if (past >= 100)
		sf_note("ran %ld ms past its %g s for what it had not seen", past, seconds);
	if (inject) {
		sf_note(SF_FAULTS_NOTE, atomic_load(&inj_ops), atomic_load(&inj_reg_nomem),
			atomic_load(&nth_sweeps), atomic_load(&nth_reg[0]),
			atomic_load(&nth_reg[1]), atomic_load(&nth_ustack),
			atomic_load(&nth_sframe), atomic_load(&nth_other),
			atomic_load(&nth_attach));
	}
	sf_run_seen(true);
	SF_CHECK(!atomic_load(&long_chains), "%lu callchains over their bound",
		 atomic_load(&long_chains));
	SF_CHECK(!atomic_load(&beyond_ips) && !sf_bpf_count(SF_BPF_BEYOND),
		 "addresses beyond user space in user callchains: %lu in perf's, %llu in BPF's",
		 atomic_load(&beyond_ips), (unsigned long long)sf_bpf_count(SF_BPF_BEYOND));
	return sf_failed ? 1 : 0;
}

/* New kmemleak reports since "clear"; -1 without kmemleak */
static long sf_kmemleak(const char *cmd)
{
	const char *path = "/sys/kernel/debug/kmemleak";
	char line[256];
	long n = 0;
	FILE *f;

	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(cmd, f);
	if (fclose(f))
		return -1;
	if (strcmp(cmd, "scan"))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, "unreferenced object", 19);
	fclose(f);
	return n;
}

/*
 * ftrace's user stack trace at every context switch, taken with the
 * runqueue lock held and interrupts off: the walker's lookups there must
 * neither sleep nor allocate.  @on: start it; else stop it and check that
 * it recorded user stacks.
 */
static void sf_trace_switches(bool on)
{
	static const char *const knobs[] = {
		"options/userstacktrace", "events/sched/sched_switch/enable", "tracing_on",
	};
	const char *dir = "/sys/kernel/tracing";
	char path[128], line[256];
	long stacks = 0;
	unsigned int i;
	bool ok;
	FILE *f;

	if (on && mount("tracefs", dir, "tracefs", 0, NULL) && errno != EBUSY)
		sf_fail("mount tracefs: %m");
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, knobs[on ? i : 2 - i]);
		f = fopen(path, "w");
		ok = f && fputs(on ? "1" : "0", f) >= 0;
		if (f && fclose(f))
			ok = false;
		if (!SF_CHECK(ok, "write %s: %m", path))
			return;
	}
	if (on)
		return;
	snprintf(path, sizeof(path), "%s/trace", dir);
	f = fopen(path, "r");
	if (!SF_CHECK(f, "open %s: %m", path))
		return;
	while (fgets(line, sizeof(line), f))
		stacks += !!strstr(line, "<user stack trace>");
	fclose(f);
	sf_note("sched_switch user stack traces in the buffer: %ld", stacks);
	SF_CHECK(stacks > 0, "no user stack trace at sched_switch");
}

/* The kernel's words on a killed process: an OOM kill, a fault report */
static void sf_kmsg_about_death(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	char rec[1024], *text;
	ssize_t n;

	if (fd < 0) {
		sf_note("/dev/kmsg: %m");
		return;
	}
	/* EPIPE: records overwritten while reading; go on with the next */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		if (strcasestr(text, "oom") || strcasestr(text, "killed process") ||
		    strstr(text, "segfault") || strstr(text, "sf-stress") ||
		    strstr(text, "traps:"))
			sf_note("kernel: %s", strtok(text, "\n"));
	}
	close(fd);
}

/*
 * How the stressed process ended: a signal is named, with what the kernel
 * said of the process (an OOM kill, a fault), for a death that printed no
 * line of its own.
 */
static void sf_stressed_status(int status)
{
	if (WIFEXITED(status)) {
		SF_CHECK(!WEXITSTATUS(status),
			 "the stressed process exited with %d (its lines above)",
			 WEXITSTATUS(status));
		return;
	}
	sf_fail("the stressed process was killed by signal %d (%s)%s",
		WTERMSIG(status), strsignal(WTERMSIG(status)),
		WCOREDUMP(status) ? ", core dumped" : "");
	sf_kmsg_about_death();
}

/* A short run (make stress runs it longer), and up to 120 s until it saw all it must */
SF_TEST_ARGS(stress, 300, SF_ARGS("sf-attach", "sf-attach.sframe"), SF_ARGS("20"))

int main(int argc, char **argv)
{
	static struct sf_set self_sections;
	long unowned0, unowned, attached0, leaks;
	int status;
	pid_t pid;

	sf_harness_enter(argc, argv);

	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	if (argc < 2) {
		fprintf(stderr, "usage: sf-stress SECONDS\n");
		return 2;
	}
	self_path = argv[0];
	/*
	 * Its own sections are registered by its first walk, here if not
	 * before (run alone, nobody profiles it): counted from the start.
	 */
	if (!sf_read_self(&self_sections, "start"))
		return 1;
	unowned0 = sf_sections_unowned();
	attached0 = sf_stat_get("attached");
	leaks = sf_kmemleak("clear");
	sf_trace_switches(true);
	inject = !access(SF_FAIL_DIR "failslab", F_OK);
	/* The debug kernel has both: its leak check must not go quietly. */
	SF_CHECK(!inject || leaks == 0, "kmemleak cannot be used on the debug kernel");
	if (inject && !SF_CHECK(sf_inject_setup(SF_FAIL_PERCENT), "fault injection set-up: %m"))
		sf_exit();
	pid = fork();
	if (!pid)
		_exit(sf_stress(atof(argv[1])));
	if (SF_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork or wait: %m"))
		sf_stressed_status(status);
	sf_trace_switches(false);
	if (inject) {
		long fired[ARRAY_SIZE(sf_fail_attrs)];

		for (size_t i = 0; i < ARRAY_SIZE(sf_fail_attrs); i++)
			fired[i] = sf_fail_fired(sf_fail_attrs[i]);
		sf_inject_setup(0);
		sf_note("faults injected: failslab %ld, fail_page_alloc %ld, fail_usercopy %ld",
			fired[0], fired[1], fired[2]);
		SF_CHECK(fired[0] > 0 && fired[1] > 0 && fired[2] > 0,
			 "an injection never fired");
	} else {
		sf_note("no fault injection in this kernel");
	}
	SF_CHECK(sf_stat_get("attached") == attached0,
		 "%ld attachments after it exited, %ld before", sf_stat_get("attached"), attached0);
	/*
	 * Its samples of the whole system register the sections of processes
	 * it did not start, which stay theirs: what matters is what no live
	 * process holds.  Its last workers' address spaces may go after it is
	 * reaped.
	 */
	unowned = sf_sections_unowned_settle(unowned0, SF_STRESS_SETTLE_MS);
	SF_CHECK(unowned == unowned0,
		 "%ld registered sections no process holds %d ms after it exited, %ld before",
		 unowned, SF_STRESS_SETTLE_MS, unowned0);
	if (leaks == 0) {
		/* What the process held is freed after an RCU grace period */
		sleep(2);
		sf_kmemleak("scan");
		leaks = sf_kmemleak("scan");
		sf_note("kmemleak: %ld new unreferenced objects", leaks);
		SF_CHECK(leaks == 0, "kmemleak found %ld new objects", leaks);
	}
	sf_exit();
}
