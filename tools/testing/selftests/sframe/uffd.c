// SPDX-License-Identifier: GPL-2.0
/*
 * sf-uffd: a section whose page never comes back.  A child registers a JIT
 * section, puts its page under userfaultfd (missing pages) and drops it,
 * then spins in the JIT code while a perf event asks for deferred user
 * callchains.  The walk on the way back to user space needs the section,
 * faults, and waits for a userfaultfd answer that never comes.  Checked:
 * the child does get stuck there (its kernel stack shows
 * handle_userfault), another process reading its /proc/<pid>/ustack
 * meanwhile is not held up by the page (the walk reads the section as
 * /proc/<pid>/mem would, and that read fails at once), yet the child dies
 * at once of SIGKILL, and its section goes with it.  (The in-interrupt
 * walk of sync callchains cannot fault: it falls back to frame pointers,
 * which sf-stress's samplers exercise.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_perf.h"
#include "sframe_jit.h"
#include "sf_harness.h"

#define UFFD_STUCK_WAIT_MS	20000
#define UFFD_DIE_WAIT_MS	10000
#define UFFD_READ_WAIT_MS	10000

/* The child: never returns; exits 1 when a step fails, after saying why */
static void uffd_child(int ready)
{
	static struct sf_perf_ring ring;
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg_uffd = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct sframe_registration reg;
	unsigned char *text, *data;
	size_t len;
	int uffd;

	text = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	data = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(text != MAP_FAILED && data != MAP_FAILED, "mmap: %m"))
		_exit(1);
	memcpy(text, sf_jit_loop_code, sf_jit_loop_size);
	__builtin___clear_cache((char *)text, (char *)text + sf_jit_loop_size);
	if (!SF_CHECK(!mprotect(text, page, PROT_READ | PROT_EXEC), "mprotect: %m"))
		_exit(1);
	len = sf_jit_build(data, SFRAME_VERSION_3, (unsigned long)text, page);
	sf_jit_reg(&reg, data, len, (unsigned long)text, page);
	if (!SF_CHECK(!sf_jit_register(&reg), "PR_SFRAME_REGISTER: %m"))
		_exit(1);

	/* Not UFFD_USER_MODE_ONLY: the kernel's own reads must wait too */
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	reg_uffd.range.start = (unsigned long)data;
	reg_uffd.range.len = page;
	if (!SF_CHECK(uffd >= 0 && !ioctl(uffd, UFFDIO_API, &api) &&
		      !ioctl(uffd, UFFDIO_REGISTER, &reg_uffd), "userfaultfd: %m"))
		_exit(1);
	/* The section stays registered; its page is gone until someone answers */
	if (!SF_CHECK(!madvise(data, page, MADV_DONTNEED), "MADV_DONTNEED: %m"))
		_exit(1);

	if (!SF_CHECK(sf_perf_self(100000, true, &ring, 16) >= 0, "perf_event_open: %m"))
		_exit(1);
	if (write(ready, "r", 1) != 1)
		_exit(1);
	for (;;)
		((void (*)(void))text)();
}

/* Reads the stuck child's ustack from another process, which must not wait. */
static void uffd_read_remote(pid_t pid)
{
	char path[64], text[4096];
	struct pollfd pfd;
	int p[2], fd, status;
	unsigned long ip;
	pid_t reader;
	long n = 0;

	if (!SF_CHECK(!pipe(p), "pipe: %m"))
		return;
	reader = fork();
	if (!reader) {
		close(p[0]);
		snprintf(path, sizeof(path), "/proc/%d/ustack", (int)pid);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
		n = n < 0 ? -errno : n;
		if (write(p[1], &n, sizeof(n)) != sizeof(n) ||
		    (n > 0 && write(p[1], text, n) != n))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (SF_CHECK(reader > 0, "fork: %m") &&
	    SF_CHECK(poll(&pfd, 1, UFFD_READ_WAIT_MS) == 1 &&
		     read(p[0], &n, sizeof(n)) == sizeof(n),
		     "reading the stuck child's ustack took over %d s",
		     UFFD_READ_WAIT_MS / 1000) &&
	    SF_CHECK(n > 0, "reading the stuck child's ustack: %s", strerror(-n))) {
		n = read(p[0], text, n);
		text[n > 0 ? n : 0] = 0;
		if (SF_CHECK(sscanf(text, "0x%lx", &ip) == 1, "bad ustack '%s'", text))
			sf_note("another process read the stuck child's stack at once, from %#lx",
				ip);
	}
	close(p[0]);
	if (reader > 0) {
		kill(reader, SIGKILL);
		waitpid(reader, &status, 0);
	}
}

SF_TEST(userfaultfd)
{
	long sections = sf_stat_get("sections"), deadline;
	int p[2], status = 0;
	bool stuck = false, ready = false;
	pid_t pid, done = 0;
	char c;

	if (!SF_CHECK(!pipe(p), "pipe: %m"))
		sf_exit();
	pid = fork();
	if (!pid) {
		close(p[0]);
		uffd_child(p[1]);
	}
	close(p[1]);
	if (!SF_CHECK(pid > 0, "fork: %m"))
		sf_exit();
	/*
	 * The first sample can come before the child says it is ready: its
	 * walk then waits on the page before write() is reached, which is
	 * the very state looked for, so the pipe is only polled.  EOF means
	 * the child gave up on a step.
	 */
	deadline = sf_now_ms() + UFFD_STUCK_WAIT_MS;
	while (!(stuck = sf_kstack_has(pid, "handle_userfault", NULL, 0)) &&
	       sf_now_ms() < deadline) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		if (ready) {
			usleep(20000);
		} else if (poll(&pfd, 1, 20) == 1) {
			ready = read(p[0], &c, 1) == 1;
			if (!SF_CHECK(ready, "the child failed before it was ready"))
				goto out;
		}
	}
	SF_CHECK(stuck, "no walk waited on the missing page in %d s%s",
		 UFFD_STUCK_WAIT_MS / 1000, ready ? "" : " (nor did the child get ready)");
	if (stuck)
		uffd_read_remote(pid);

out:
	kill(pid, SIGKILL);
	deadline = sf_now_ms() + UFFD_DIE_WAIT_MS;
	while (!(done = waitpid(pid, &status, WNOHANG)) && sf_now_ms() < deadline)
		usleep(20000);
	SF_CHECK(done == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "the child did not die of SIGKILL within %d s", UFFD_DIE_WAIT_MS / 1000);
	if (done == pid)
		SF_CHECK(sf_stat_get("sections") == sections,
			 "%ld sections after the child died, %ld before",
			 sf_stat_get("sections"), sections);
	if (stuck && done == pid)
		sf_note("a deferred walk waited on a userfaultfd page; SIGKILL ended it");
	sf_exit();
}

SF_HARNESS_MAIN
