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
 * while the kernel samples every thread (task-clock, user callchains, sync
 * and deferred, and a BPF program taking bpf_get_stack()), a reader
 * drains the rings, and ftrace takes a user stack trace at every context
 * switch.
 *
 * The kernel's console is the verdict (tools/vm-run fails a run with any
 * splat).  Here: no operation that must succeed failed, the samples came,
 * no user callchain (perf's or BPF's) is longer than its bound or holds an
 * address beyond user space (sf_plant.h), and once the process is gone,
 * the sections it registered are gone too (sections,
 * /sys/module/sframe/parameters/); a kmemleak scan, when the kernel has
 * kmemleak, finds nothing new.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sf_bpf.h"
#include "sf_perf.h"
#include "sf_plant.h"
#include "sframe_jit.h"
#include "sframe_test.h"

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
static atomic_bool stop;
static atomic_ulong ops_dl, ops_jit, ops_run, ops_fork, ops_deep, ops_proc, ops_plant;
static atomic_ulong samples, deferred, lost, bad, beyond_ips, long_chains;
/* The longest callchains a sample and a deferred record may have */
static unsigned long sync_max, deferred_max;
static unsigned long page;
static const char *self_path;

static void sf_bad(const char *what, int err)
{
	atomic_fetch_add(&bad, 1);
	sf_fail("%s: %s", what, strerror(err));
}

static unsigned int sf_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 16;
}

static void *sf_dl(void *arg)
{
	int (*fn)(int);
	void *h;

	while (!atomic_load(&stop)) {
		h = dlopen("libsf-dl.so", RTLD_NOW | RTLD_LOCAL);
		if (!h) {
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
	return arg;
}

/* Fresh code and a section for it in @s, registered or not: under its lock */
static void sf_jit_fill(struct sf_jit_slot *s, unsigned int *seed)
{
	struct sframe_registration reg;
	unsigned char *data;
	size_t len;
	int err;

	s->text = (unsigned long)mmap(NULL, page, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s->data = (unsigned long)mmap(NULL, page, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->text == (unsigned long)MAP_FAILED || s->data == (unsigned long)MAP_FAILED) {
		sf_bad("mmap", errno);
		s->text = s->data = 0;
		return;
	}
	memcpy((void *)s->text, sf_jit_loop_code, sf_jit_loop_size);
	__builtin___clear_cache((char *)s->text, (char *)s->text + sf_jit_loop_size);
	if (mprotect((void *)s->text, page, PROT_READ | PROT_EXEC))
		sf_bad("mprotect", errno);
	data = (unsigned char *)s->data;
	len = sf_jit_build(data, sf_rand(seed) % 4 ? SFRAME_VERSION_3 : SFRAME_VERSION_2,
			   s->text, page);
	/* One in eight is garbage from the start */
	if (!(sf_rand(seed) % 8))
		for (size_t i = 0; i < len; i++)
			data[i] = sf_rand(seed);
	sf_jit_reg(&reg, data, len, s->text, page);
	err = sf_jit_register(&reg);
	s->registered = !err;
	if (err && err != EINVAL && err != EOPNOTSUPP && err != ENOSPC && err != EDQUOT)
		sf_bad("PR_SFRAME_REGISTER", err);
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
		mprotect((void *)s->text, page, PROT_READ | PROT_EXEC);
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
		mmap((void *)s->data, page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
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
		s->text = s->data = 0;
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
		pthread_mutex_lock(&s->lock);
		if (!s->text)
			sf_jit_fill(s, &seed);
		else
			sf_jit_change(s, &seed);
		pthread_mutex_unlock(&s->lock);
		atomic_fetch_add(&ops_jit, 1);
	}
	return arg;
}

/* Runs JIT code; the lock keeps it mapped executable meanwhile */
static void *sf_run(void *arg)
{
	unsigned int seed = 2;
	struct sf_jit_slot *s;

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
	return arg;
}

static void *sf_fork(void *arg)
{
	unsigned int seed = 3;
	int status;
	pid_t pid;

	while (!atomic_load(&stop)) {
		pid = fork();
		if (!pid) {
			if (sf_rand(&seed) % 2)
				execl(self_path, self_path, "--exit", (char *)NULL);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			sf_bad("fork or its child", pid < 0 ? errno : ECHILD);
			break;
		}
		atomic_fetch_add(&ops_fork, 1);
	}
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
		sf_recurse(SF_DEEP_FRAMES);
		atomic_fetch_add(&ops_deep, 1);
	}
	return arg;
}

static void *sf_proc(void *arg)
{
	static char buf[256 * 1024];
	const char *files[] = { "/proc/thread-self/ustack", "/proc/self/sframe" };
	int fd, i = 0;

	while (!atomic_load(&stop)) {
		fd = open(files[i++ % 2], O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			sf_bad(files[(i - 1) % 2], errno);
		if (fd >= 0)
			close(fd);
		atomic_fetch_add(&ops_proc, 1);
	}
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
	while (!atomic_load(&stop)) {
		sf_plant_run(&p, &seed, 200000);
		atomic_fetch_add(&ops_plant, 1);
	}
	return arg;
}

#define SF_WORKERS	7

/* BPF's count of its samples: bpf_get_stack() took one, failed, or saw no user address */
enum { SF_BPF_OK, SF_BPF_FAILED, SF_BPF_BEYOND, SF_BPF_KEYS };
#define SF_BPF_WORDS	32

static int bpf_counts = -1;

/* Emits: count[r7]++; return 0.  Returns the instructions written. */
static unsigned int sf_bpf_count_r7(struct bpf_insn *insn)
{
	const struct bpf_insn tail[] = {
		SF_BPF_INSN(BPF_STX | BPF_MEM | BPF_W, 10, 7, -260, 0),
		SF_BPF_LOOKUP_AT_FP(bpf_counts, -260),
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

/* Two rings a worker: sync and deferred callchains */
static struct sf_perf_ring rings[2 * SF_WORKERS];
static atomic_bool ring_mapped[2 * SF_WORKERS];

static void *sf_drain(void *arg)
{
	const struct perf_event_header *h;
	int i;

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
	sf_dl, sf_jit, sf_run, sf_fork, sf_deep, sf_proc, sf_plant,
};

static int bpf_prog = -1;

/* A worker, sampled while it works */
static void *sf_worker(void *arg)
{
	long i = (long)arg;

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

static int sf_stress(double seconds)
{
	pthread_t threads[SF_WORKERS + 1];
	struct timespec end;
	long i;

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
	/* The drain thread reads each ring once its worker mapped it */
	pthread_create(&threads[0], NULL, sf_drain, NULL);
	for (i = 0; i < SF_WORKERS; i++)
		pthread_create(&threads[i + 1], NULL, sf_worker, (void *)i);
	end.tv_sec = (time_t)seconds;
	end.tv_nsec = (long)((seconds - end.tv_sec) * 1e9);
	nanosleep(&end, NULL);
	atomic_store(&stop, true);
	for (i = 0; i <= SF_WORKERS; i++)
		pthread_join(threads[i], NULL);
	sf_note("ops: dl %lu, jit %lu, run %lu, fork %lu, deep %lu, proc %lu, plant %lu; "
		"samples %lu, deferred %lu, lost records %lu; BPF stacks %llu, failed %llu",
		atomic_load(&ops_dl), atomic_load(&ops_jit), atomic_load(&ops_run),
		atomic_load(&ops_fork), atomic_load(&ops_deep), atomic_load(&ops_proc),
		atomic_load(&ops_plant), atomic_load(&samples), atomic_load(&deferred),
		atomic_load(&lost), (unsigned long long)sf_bpf_count(SF_BPF_OK),
		(unsigned long long)sf_bpf_count(SF_BPF_FAILED));
	SF_CHECK(atomic_load(&samples) > 0, "no samples came");
	SF_CHECK(sf_bpf_count(SF_BPF_OK) > 0, "BPF took no stack");
	SF_CHECK(!atomic_load(&long_chains), "%lu callchains over their bound",
		 atomic_load(&long_chains));
	SF_CHECK(!atomic_load(&beyond_ips) && !sf_bpf_count(SF_BPF_BEYOND),
		 "addresses beyond user space in user callchains: %lu in perf's, %llu in BPF's",
		 atomic_load(&beyond_ips), (unsigned long long)sf_bpf_count(SF_BPF_BEYOND));
	SF_CHECK(atomic_load(&ops_jit) > 0 && atomic_load(&ops_dl) > 0 &&
		 atomic_load(&ops_fork) > 0 && atomic_load(&ops_deep) > 0 &&
		 atomic_load(&ops_plant) > 0, "a worker made no progress");
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

int main(int argc, char **argv)
{
	long sections0, leaks;
	int status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	if (argc < 2) {
		fprintf(stderr, "usage: sf-stress SECONDS\n");
		return 2;
	}
	self_path = argv[0];
	sections0 = sf_param_get("sections");
	leaks = sf_kmemleak("clear");
	sf_trace_switches(true);
	pid = fork();
	if (!pid)
		_exit(sf_stress(atof(argv[1])));
	SF_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		 !WEXITSTATUS(status), "the stressed process failed (its lines above)");
	sf_trace_switches(false);
	SF_CHECK(sf_param_get("sections") == sections0,
		 "%ld sections registered after it exited, %ld before",
		 sf_param_get("sections"), sections0);
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
