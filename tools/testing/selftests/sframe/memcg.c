// SPDX-License-Identifier: GPL-2.0
/*
 * sf-memcg: what sections cost is charged to the process's memory cgroup.
 *
 * prctl   A child builds a section of 65,536 FDEs (its kernel index is
 *         over 1 MiB), then moves into a cgroup whose limit leaves it
 *         256 KiB: PR_SFRAME_REGISTER must fail with ENOMEM, the child
 *         must live on (no OOM kill in the cgroup), and a small section
 *         must still register.
 * oom     A child in that cgroup spins in JIT code, sampled with deferred
 *         callchains, and allocates until the OOM killer takes it: it dies
 *         of SIGKILL with requests pending, and every section it had goes.
 *
 * The kernel's console (no splat) is tools/vm-run's to check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_perf.h"
#include "sframe_jit.h"
#include "sf_harness.h"

#define MEMCG_ROOT	"/sys/fs/cgroup"
#define MEMCG_DIR	MEMCG_ROOT "/sf-memcg"
#define MEMCG_FDES	65536
#define MEMCG_ROOM	(256 * 1024)

static bool memcg_write(const char *file, const char *value)
{
	char path[128];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", strchr(file, '/') ? "" : MEMCG_DIR, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return false;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok;
}

/* A number from a cgroup file, or a "key value" line of one; -1 if none */
static long memcg_read(const char *file, const char *key)
{
	char path[128], line[128];
	size_t klen = key ? strlen(key) : 0;
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), MEMCG_DIR "/%s", file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!key)
			v = atol(line);
		else if (!strncmp(line, key, klen) && line[klen] == ' ')
			v = atol(line + klen + 1);
	fclose(f);
	return v;
}

static bool memcg_setup(void)
{
	mkdir(MEMCG_ROOT, 0755);
	if (mount("cgroup2", MEMCG_ROOT, "cgroup2", 0, NULL) && errno != EBUSY)
		return SF_CHECK(false, "mount cgroup2: %m");
	if (!SF_CHECK(memcg_write(MEMCG_ROOT "/cgroup.subtree_control", "+memory"),
		      "enabling the memory controller: %m"))
		return false;
	return SF_CHECK(!mkdir(MEMCG_DIR, 0755) || errno == EEXIST, "mkdir: %m");
}

/* Moves @pid in, with a limit @room above what the cgroup holds now */
static bool memcg_enter(pid_t pid, long room)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	if (!SF_CHECK(memcg_write("cgroup.procs", buf), "moving %d in: %m", (int)pid))
		return false;
	snprintf(buf, sizeof(buf), "%ld", memcg_read("memory.current", NULL) + room);
	return SF_CHECK(memcg_write("memory.max", buf), "memory.max: %m");
}

static unsigned char *memcg_text(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t size = (MEMCG_FDES + page - 1) / page * page;
	unsigned char *text = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (text == MAP_FAILED)
		return NULL;
	memcpy(text, sf_jit_loop_code, sf_jit_loop_size);
	__builtin___clear_cache((char *)text, (char *)text + sf_jit_loop_size);
	return mprotect(text, size, PROT_READ | PROT_EXEC) ? NULL : text;
}

/*
 * The prctl child: everything it needs is built (and charged elsewhere)
 * before its parent moves it in; exit status 0 when the big registration
 * failed with ENOMEM and a small one then worked.
 */
/* Says the child is ready, then waits to be let go (inside the cgroup) */
static bool memcg_ready(int ready, int go)
{
	char c;

	return write(ready, "r", 1) == 1 && read(go, &c, 1) == 1;
}

static int memcg_prctl_child(int ready, int go)
{
	size_t len = sf_jit_many_size(MEMCG_FDES);
	unsigned char *text = memcg_text(), *big = malloc(len), small[SF_JIT_SECTION_MAX];
	struct sframe_registration reg;
	int err;

	if (!text || !big)
		return 10;
	sf_jit_build_many(big, (unsigned long)text, MEMCG_FDES);
	if (!memcg_ready(ready, go))
		return 11;
	sf_jit_reg(&reg, big, len, (unsigned long)text, MEMCG_FDES);
	err = sf_jit_register(&reg);
	if (err != ENOMEM) {
		printf("FAIL: the big section: %s, not ENOMEM\n",
		       err ? strerror(err) : "registered");
		return 12;
	}
	sf_jit_reg(&reg, small, sf_jit_build(small, SFRAME_VERSION_3, (unsigned long)text, 1),
		   (unsigned long)text, 1);
	err = sf_jit_register(&reg);
	if (err) {
		printf("FAIL: a small section after ENOMEM: %s\n", strerror(err));
		return 13;
	}
	return 0;
}

/*
 * Runs @child in a new process, moved into the cgroup with @room left once
 * it says it is ready (what it built before is charged elsewhere), then
 * let go; returns its wait status.
 */
static int memcg_run(int (*child)(int ready, int go), long room)
{
	int ready[2], go[2], status = 0;
	pid_t pid;
	char c;

	if (!SF_CHECK(!pipe(ready) && !pipe(go), "pipe: %m"))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(ready[0]);
		close(go[1]);
		_exit(child(ready[1], go[0]));
	}
	close(ready[1]);
	close(go[0]);
	if (SF_CHECK(pid > 0, "fork: %m") &&
	    SF_CHECK(read(ready[0], &c, 1) == 1, "the child did not get ready") &&
	    memcg_enter(pid, room))
		SF_CHECK(write(go[1], "g", 1) == 1, "write: %m");
	close(ready[0]);
	close(go[1]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	memcg_write("memory.max", "max");
	return status;
}

static void memcg_prctl(void)
{
	long ooms = memcg_read("memory.events", "oom_kill");
	int status = memcg_run(memcg_prctl_child, MEMCG_ROOM);

	SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
		 "the prctl child: status %#x (killed by %d)", status,
		 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	SF_CHECK(memcg_read("memory.events", "oom_kill") == ooms,
		 "an OOM kill in the cgroup: %ld, before %ld",
		 memcg_read("memory.events", "oom_kill"), ooms);
}

/* The OOM child: deferred samples of JIT code while memory runs out */
static int memcg_oom_child(int ready, int go)
{
	unsigned char *text = memcg_text(), data[SF_JIT_SECTION_MAX];
	static struct sf_perf_ring ring;
	struct sframe_registration reg;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (!text)
		return 10;
	sf_jit_reg(&reg, data, sf_jit_build(data, SFRAME_VERSION_3, (unsigned long)text, page),
		   (unsigned long)text, page);
	if (sf_jit_register(&reg))
		return 11;
	if (sf_perf_self(20000, true, &ring, 16) < 0 || !memcg_ready(ready, go))
		return 12;
	for (;;) {
		((void (*)(void))text)();
		p = malloc(page);
		if (p)
			memset(p, 1, page);
	}
}

static void memcg_oom(long sections)
{
	long ooms = memcg_read("memory.events", "oom_kill");
	int status = memcg_run(memcg_oom_child, 8 << 20);

	SF_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "the OOM child: status %#x, not killed", status);
	SF_CHECK(memcg_read("memory.events", "oom_kill") > ooms, "no OOM kill in the cgroup");
	SF_CHECK(sf_stat_get("sections") == sections, "%ld sections after, %ld before",
		 sf_stat_get("sections"), sections);
}

SF_TEST(memcg)
{
	long sections = sf_stat_get("sections");

	if (!memcg_setup())
		sf_exit();
	memcg_prctl();
	memcg_oom(sections);
	if (!sf_failed)
		sf_note("ENOMEM at the cgroup's limit, no OOM kill; %s",
			"an OOM-killed child with deferred requests left no section");
	rmdir(MEMCG_DIR);
	sf_exit();
}

SF_HARNESS_MAIN
