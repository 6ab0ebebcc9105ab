// SPDX-License-Identifier: GPL-2.0
/*
 * (b) The rule cache: a section holds its FDE index from the start, and
 * gets its rule cache only once the process is first unwound, counted in
 * the bytes /proc/self/sframe shows.  A forked child starts without one
 * and gets its own the same way.  The index is the file's, shared by
 * every process that maps it (the guest's files are on tmpfs, which keeps
 * the version counter sharing needs): its bytes are in shared=, the same
 * in parent and child, and bytes= is the process's own, the cache.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_syscall.h"
#include "sf_harness.h"

/* The index all processes of this program share; set by the first read */
static unsigned long shared_index;

/*
 * The bytes of this program's line that are the process's own, and its FDE
 * count; ULONG_MAX if not one line, or if its shared index is not the one
 * seen first.
 */
static unsigned long sf_exe_bytes(const char *step, unsigned long *fdes)
{
	unsigned long bytes = ULONG_MAX;
	const struct sf_line *l;
	struct sf_set got;

	if (!sf_read_self(&got, step))
		return ULONG_MAX;
	l = sf_only_line(&got, "/sf-cache", step);
	if (l && SF_CHECK(l->parsed, "%s: line '%s' not parsed", step, l->text)) {
		if (!shared_index)
			shared_index = l->shared;
		if (SF_CHECK(l->shared == shared_index, "%s: shared=%lu, first %lu",
			     step, l->shared, shared_index))
			bytes = l->bytes;
		*fdes = l->fdes;
	}
	sf_set_free(&got);
	return bytes;
}

/* A walk of this thread's stack, from a system call of our own code */
static void sf_unwind(void)
{
	static char text[16384];
	int fd = open("/proc/thread-self/ustack", O_RDONLY);

	if (!SF_CHECK(fd >= 0, "opening /proc/thread-self/ustack"))
		return;
	SF_CHECK(sf_syscall4(SYS_pread64, fd, (long)text, sizeof(text) - 1, 0) > 0,
		 "reading /proc/thread-self/ustack");
	close(fd);
}

/* In a child: no cache until it unwinds, then one as large as the parent's */
static int sf_child(unsigned long before, unsigned long after)
{
	unsigned long fdes;

	SF_CHECK(sf_exe_bytes("child", &fdes) == before, "child: want %lu bytes", before);
	sf_unwind();
	SF_CHECK(sf_exe_bytes("child unwound", &fdes) == after,
		 "child unwound: want %lu bytes", after);
	return sf_failed ? 1 : 0;
}

SF_TEST(rule_cache)
{
	unsigned long fdes = 0, before, after, cache;
	int status;
	pid_t pid;

	before = sf_exe_bytes("before any unwind", &fdes);
	cache = SF_CACHE_ENTRY * sf_cache_entries(fdes);
	SF_CHECK(fdes > 0 && before == 0 && shared_index >= 12 * fdes,
		 "%lu bytes of its own, %lu shared, for %lu FDEs", before, shared_index, fdes);

	sf_unwind();
	after = sf_exe_bytes("unwound", &fdes);
	SF_CHECK(after == before + cache, "unwound: %lu bytes, want %lu + %lu", after,
		 before, cache);
	sf_unwind();
	SF_CHECK(sf_exe_bytes("unwound again", &fdes) == after, "a second cache?");

	pid = fork();
	if (!pid)
		_exit(sf_child(before, after));
	SF_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		 !WEXITSTATUS(status), "the child's checks failed (its output above)");
	sf_exit();
}

SF_HARNESS_MAIN
