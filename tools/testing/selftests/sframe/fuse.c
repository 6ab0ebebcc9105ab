// SPDX-License-Identifier: GPL-2.0
/*
 * sf-fuse: a section read from a file on a FUSE server that stops
 * answering.  The program is its own server: a thread speaks the FUSE
 * protocol on /dev/fuse for a mount holding one file, a JIT section built
 * by the child.  The child maps the file, registers it for its JIT text,
 * drops the page from its mapping and from the page cache, and spins in
 * the JIT code while a perf event asks for deferred user callchains; the
 * server then holds every read.  The walk on the way back to user space
 * needs the section and waits for the file's page.
 *
 * With reads answered asynchronously, as libfuse's servers do by default,
 * the walk waits on the page killably.  Three endings:
 *
 *   kill   SIGKILL ends the child within seconds, with the hung-task
 *          detector's timeout cut to one second meanwhile: a wait that
 *          is not killable would show as a hung task on the console,
 *          which tools/vm-run fails;
 *   unmap  another thread unmaps the section while the walk waits on it:
 *          the section leaves the registry at once, and when the server
 *          answers, the walk ends on the unmapped page and the child
 *          runs on;
 *   exit   another thread calls exit_group() while the walk waits: the
 *          process exits with that status and its mm and section go.
 *
 * A server that reads synchronously makes every reader of its files, the
 * walk as much as read(2), wait out a request the server has taken, even
 * after SIGKILL (fs/fuse/dev.c, request_wait_answer()).  That is FUSE's
 * rule, and aborting the connection is its way out:
 *
 *   sync   SIGKILL, then umount -f: the child dies and its section goes.
 *
 * And an attached section (PR_SFRAME_ATTACH) read from the server's file:
 *
 *   attach the kernel copies it during the call; the server then stops
 *          answering, and sf-attach, run from its ELF file (not on FUSE),
 *          has its text registered and walks its stack from its start
 *          without waiting: no read of the section's file comes after
 *          the call.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/sframe.h>

#include "sf_perf.h"
#include "sframe_jit.h"
#include "sf_harness.h"

#define FUSE_DIR		"/tmp/sf-fuse"
#define FUSE_FILE		FUSE_DIR "/sframe"
#define FUSE_FILE_INO		2
#define FUSE_HELD_MAX		64
#define FUSE_STUCK_WAIT_MS	15000
#define FUSE_DIE_WAIT_MS	10000
/* Long enough for the hung-task detector, at one second, to look twice */
#define FUSE_HOLD_MS		4000
#define FUSE_HUNG_TASK		"/proc/sys/kernel/hung_task_timeout_secs"
#define FUSE_EXIT_STATUS	7
/* The protocol's answer to an operation a server lacks: not asked again */
#define FUSE_NOT_IMPLEMENTED	ENOSYS
/* Room for sf-attach.sframe, the largest file served */
#define FUSE_FILE_MAX		16384

#ifndef PR_SFRAME_ATTACH
#define PR_SFRAME_ATTACH	0x53460003
#define PR_SFRAME_DETACH	0x53460004
#endif
/* Where the runner's sframe-gen --raw --addr made sf-attach.sframe for */
#define FUSE_ATTACH_VADDR	(~0UL - (1UL << 36) + 1)

/* The file's bytes: written by the child, served by the parent's server */
struct fuse_file {
	size_t		len;
	unsigned char	bytes[FUSE_FILE_MAX];
};

static struct fuse_file *fuse_file;
static int fuse_dev = -1;
static bool fuse_async_read;
static atomic_bool fuse_silent;
static pthread_mutex_t fuse_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fuse_read_in fuse_held_in[FUSE_HELD_MAX];
static uint64_t fuse_held[FUSE_HELD_MAX];
static unsigned int fuse_nheld, fuse_reads;

static void fuse_reply(uint64_t unique, int error, const void *body, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + len, .error = error, .unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &out, .iov_len = sizeof(out) },
		{ .iov_base = (void *)body, .iov_len = len },
	};

	/*
	 * A request whose task was killed is gone (ENOENT), and so is every
	 * request of an aborted connection (ENODEV): neither is an error.
	 */
	if (writev(fuse_dev, iov, len ? 2 : 1) < 0 && errno != ENOENT && errno != ENODEV)
		sf_fail("writing a FUSE reply: %m");
}

static void fuse_attr(struct fuse_attr *attr, uint64_t ino)
{
	memset(attr, 0, sizeof(*attr));
	attr->ino = ino;
	attr->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		attr->mode = S_IFDIR | 0755;
		attr->nlink = 2;
	} else {
		attr->mode = S_IFREG | 0444;
		attr->nlink = 1;
		attr->size = fuse_file->len;
		attr->blocks = 1;
	}
}

static void fuse_answer_read(uint64_t unique, const struct fuse_read_in *in)
{
	size_t len = fuse_file->len;

	if (in->offset >= len) {
		fuse_reply(unique, 0, NULL, 0);
		return;
	}
	len -= in->offset;
	fuse_reply(unique, 0, fuse_file->bytes + in->offset, len < in->size ? len : in->size);
}

/* Reads are answered unless the server is silent; then they wait here */
static void fuse_read(uint64_t unique, const struct fuse_read_in *in)
{
	pthread_mutex_lock(&fuse_lock);
	fuse_reads++;
	if (atomic_load(&fuse_silent) && fuse_nheld < FUSE_HELD_MAX) {
		fuse_held_in[fuse_nheld] = *in;
		fuse_held[fuse_nheld++] = unique;
		in = NULL;
	}
	pthread_mutex_unlock(&fuse_lock);
	if (in)
		fuse_answer_read(unique, in);
}

/* The server speaks again, first answering what it held */
static void fuse_speak(void)
{
	unsigned int i;

	pthread_mutex_lock(&fuse_lock);
	atomic_store(&fuse_silent, false);
	for (i = 0; i < fuse_nheld; i++)
		fuse_answer_read(fuse_held[i], &fuse_held_in[i]);
	fuse_nheld = 0;
	pthread_mutex_unlock(&fuse_lock);
}

static unsigned int fuse_held_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&fuse_lock);
	n = fuse_nheld;
	pthread_mutex_unlock(&fuse_lock);
	return n;
}

static void fuse_request(const struct fuse_in_header *in, const void *arg)
{
	union {
		struct fuse_init_out	init;
		struct fuse_entry_out	entry;
		struct fuse_attr_out	attr;
		struct fuse_open_out	open;
	} out;

	memset(&out, 0, sizeof(out));
	switch (in->opcode) {
	case FUSE_INIT:
		out.init.major = FUSE_KERNEL_VERSION;
		out.init.minor = FUSE_KERNEL_MINOR_VERSION;
		out.init.max_readahead = 4096;
		out.init.max_write = 4096;
		out.init.flags = fuse_async_read ? FUSE_ASYNC_READ : 0;
		fuse_reply(in->unique, 0, &out.init, sizeof(out.init));
		break;
	case FUSE_LOOKUP:
		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "sframe")) {
			fuse_reply(in->unique, -ENOENT, NULL, 0);
			break;
		}
		out.entry.nodeid = FUSE_FILE_INO;
		out.entry.generation = 1;
		out.entry.entry_valid = 3600;
		out.entry.attr_valid = 3600;
		fuse_attr(&out.entry.attr, FUSE_FILE_INO);
		fuse_reply(in->unique, 0, &out.entry, sizeof(out.entry));
		break;
	case FUSE_GETATTR:
		out.attr.attr_valid = 3600;
		fuse_attr(&out.attr.attr, in->nodeid);
		fuse_reply(in->unique, 0, &out.attr, sizeof(out.attr));
		break;
	case FUSE_OPEN:
		fuse_reply(in->unique, 0, &out.open, sizeof(out.open));
		break;
	case FUSE_READ:
		fuse_read(in->unique, arg);
		break;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
		fuse_reply(in->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:	/* the read it names is answered when we speak */
		break;
	default:
		fuse_reply(in->unique, -FUSE_NOT_IMPLEMENTED, NULL, 0);
	}
}

static void *fuse_server(void *arg)
{
	static unsigned char buf[FUSE_MIN_READ_BUFFER + 65536];
	const struct fuse_in_header *in = (const void *)buf;
	ssize_t n;

	(void)arg;
	for (;;) {
		n = read(fuse_dev, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < 0)		/* ENODEV: unmounted */
			return NULL;
		if ((size_t)n < sizeof(*in) || in->len != (size_t)n) {
			sf_fail("a FUSE request of %zd bytes does not parse", n);
			return NULL;
		}
		fuse_request(in, in + 1);
	}
}

static bool fuse_mount(pthread_t *server, bool async_read)
{
	char opts[128];

	fuse_async_read = async_read;
	fuse_dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_dev < 0 && errno == ENOENT &&
	    !mknod("/dev/fuse", S_IFCHR | 0666, makedev(10, 229)))
		fuse_dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (!SF_CHECK(fuse_dev >= 0, "/dev/fuse: %m"))
		return false;
	mkdir(FUSE_DIR, 0755);
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse_dev);
	if (!SF_CHECK(!mount("sf-fuse", FUSE_DIR, "fuse", MS_NOSUID | MS_NODEV, opts),
		      "mount fuse: %m"))
		return false;
	return SF_CHECK(!pthread_create(server, NULL, fuse_server, NULL), "pthread_create");
}

struct fuse_spinner {
	unsigned char	*text;
	int		ready;
};

/* Samples itself with deferred callchains and spins in the JIT code */
static void *fuse_spin(void *arg)
{
	static struct sf_perf_ring ring;
	struct fuse_spinner *s = arg;
	char tid[16];
	int len;

	if (sf_perf_self(100000, true, &ring, 16) < 0)
		_exit(1);
	len = snprintf(tid, sizeof(tid), "%ld", syscall(SYS_gettid));
	if (write(s->ready, tid, len) != len)
		_exit(1);
	for (;;)
		((void (*)(void))s->text)();
}

/*
 * The child: registers the FUSE file as its JIT text's section, then runs
 * fuse_spin() in a thread once the parent says go, while this thread
 * waits for commands: 'u' unmaps the section ('d' when done), 'x' calls
 * exit_group().  Exits 1 when a step fails, after saying why.
 */
static void fuse_child(int ready, int cmd)
{
	long page = sysconf(_SC_PAGESIZE);
	struct sframe_registration reg;
	struct fuse_spinner spinner;
	unsigned char *data, resident;
	pthread_t thread;
	char c;
	int fd;

	spinner.ready = ready;
	spinner.text = mmap(NULL, page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(spinner.text != MAP_FAILED, "mmap: %m"))
		_exit(1);
	memcpy(spinner.text, sf_jit_loop_code, sf_jit_loop_size);
	__builtin___clear_cache((char *)spinner.text, (char *)spinner.text + sf_jit_loop_size);
	if (!SF_CHECK(!mprotect(spinner.text, page, PROT_READ | PROT_EXEC), "mprotect: %m"))
		_exit(1);
	/*
	 * The section's start addresses are relative to where it lies: it is
	 * built in an anonymous page that the file's mapping then replaces.
	 */
	data = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(data != MAP_FAILED, "mmap: %m"))
		_exit(1);
	fuse_file->len = sf_jit_build(data, SFRAME_VERSION_3, (unsigned long)spinner.text, page);
	memcpy(fuse_file->bytes, data, fuse_file->len);
	fd = open(FUSE_FILE, O_RDONLY);
	if (!SF_CHECK(fd >= 0 && mmap(data, page, PROT_READ, MAP_PRIVATE | MAP_FIXED,
				      fd, 0) == data, "%s: %m", FUSE_FILE))
		_exit(1);
	sf_jit_reg(&reg, data, fuse_file->len, (unsigned long)spinner.text, page);
	if (!SF_CHECK(!sf_jit_register(&reg), "PR_SFRAME_REGISTER: %m"))
		_exit(1);
	/* The section stays registered; its page must come from the server again */
	if (!SF_CHECK(!madvise(data, page, MADV_DONTNEED) &&
		      !posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), "dropping the page: %m") ||
	    !SF_CHECK(!mincore(data, page, &resident) && !(resident & 1),
		      "the section's page stayed in the page cache"))
		_exit(1);
	if (write(ready, "r", 1) != 1 || read(cmd, &c, 1) != 1 ||
	    pthread_create(&thread, NULL, fuse_spin, &spinner))
		_exit(1);
	while (read(cmd, &c, 1) == 1) {
		if (c == 'x')
			syscall(SYS_exit_group, FUSE_EXIT_STATUS);
		if (c == 'u' && (munmap(data, page) || write(ready, "d", 1) != 1))
			_exit(1);
	}
	_exit(1);
}

static bool fuse_read_byte(int fd, char want, long ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&pfd, 1, ms) == 1 && read(fd, &c, 1) == 1 && c == want;
}

/* Does /proc/<pid>/sframe list a JIT section? */
static bool fuse_has_jit(pid_t pid)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sframe", pid);
	f = fopen(path, "r");
	if (!SF_CHECK(f, "%s: %m", path))
		return true;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[jit]");
	fclose(f);
	return found;
}

/* The exit status of @pid within FUSE_DIE_WAIT_MS, or -1 */
static int fuse_reap(pid_t pid)
{
	long deadline = sf_now_ms() + FUSE_DIE_WAIT_MS;
	int status;
	pid_t done;

	while (!(done = waitpid(pid, &status, WNOHANG)) && sf_now_ms() < deadline)
		usleep(20000);
	return done == pid ? status : -1;
}

/*
 * Does a walk of thread @tid wait?  A frame of the unwinder on its kernel
 * stack says a walk is under way, but the spinner is sampled all along,
 * each sample a walk on its way back to user space, and one that runs
 * shows the same frame whenever the thread is preempted in it (one vCPU:
 * whenever this thread looks): only a thread asleep in it waits.
 */
static bool fuse_walk_waits(int tid, char *frame, size_t size, char *state)
{
	*state = 0;
	if (!sf_kstack_has(tid, "unwind", frame, size))
		return false;
	sf_task_stat(tid, state, NULL, NULL);
	return *state == 'S' || *state == 'D';
}

static bool fuse_run(const char *ending)
{
	long sections = sf_stat_get("sections"), deadline, hung = -1, now;
	int ready[2], cmd[2], tid = 0, status, failed = sf_failed;
	char frame[256] = "", buf[16] = "", state;
	long utime0 = 0, utime = 0;
	struct sf_set own;
	bool stuck = false;
	long inherited;
	ssize_t n;
	pid_t pid;

	/* What fork() copies to the child: the program's section, the vDSO's */
	sf_set_init(&own);
	if (!sf_read_self(&own, "before fork"))
		return false;
	inherited = sf_set_sections(&own);
	sf_set_free(&own);
	if (!SF_CHECK(!pipe(ready) && !pipe(cmd), "pipe: %m"))
		return false;
	pid = fork();
	if (!pid) {
		/* Else the server's connection outlives the server in the child */
		close(fuse_dev);
		close(ready[0]);
		close(cmd[1]);
		fuse_child(ready[1], cmd[0]);
	}
	close(ready[1]);
	close(cmd[0]);
	if (!SF_CHECK(pid > 0 && fuse_read_byte(ready[0], 'r', FUSE_STUCK_WAIT_MS),
		      "%s: the child did not register its section", ending))
		goto out;
	atomic_store(&fuse_silent, true);
	n = write(cmd[1], "g", 1);
	n = n == 1 ? read(ready[0], buf, sizeof(buf) - 1) : -1;
	tid = n > 0 ? atoi(buf) : 0;
	if (!SF_CHECK(tid > 0, "%s: the spinning thread did not start", ending))
		goto out;

	deadline = sf_now_ms() + FUSE_STUCK_WAIT_MS;
	while (!(stuck = fuse_walk_waits(tid, frame, sizeof(frame), &state) &&
		 fuse_held_count()) && sf_now_ms() < deadline)
		usleep(20000);
	if (!stuck) {
		sf_kstack_has(tid, "", frame, sizeof(frame));
		sf_fail("%s: no walk waited on the file in %d s (%u of %u reads held; stack: %s)",
			ending, FUSE_STUCK_WAIT_MS / 1000, fuse_held_count(), fuse_reads, frame);
		goto out;
	}
	sf_info("%s: the walk waits on the file (%s)", ending, frame);

	if (!strcmp(ending, "kill")) {
		hung = sf_param_get_path(FUSE_HUNG_TASK);
		SF_CHECK(hung >= 0 && !sf_param_set_path(FUSE_HUNG_TASK, 1),
			 "%s: %m", FUSE_HUNG_TASK);
		usleep(FUSE_HOLD_MS * 1000);
		SF_CHECK(fuse_walk_waits(tid, NULL, 0, &state),
			 "kill: the walk stopped waiting while the server was silent");
		kill(pid, SIGKILL);
		status = fuse_reap(pid);
		SF_CHECK(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			 "kill: the child did not die of SIGKILL within %d s (status %#x)",
			 FUSE_DIE_WAIT_MS / 1000, status);
	} else if (!strcmp(ending, "unmap")) {
		SF_CHECK(write(cmd[1], "u", 1) == 1 &&
			 fuse_read_byte(ready[0], 'd', FUSE_DIE_WAIT_MS),
			 "unmap: munmap() did not return while the walk waited");
		/* The walk still holds the section; the process no longer has it */
		SF_CHECK(!fuse_has_jit(pid), "unmap: the section outlived munmap()");
		fuse_speak();
		deadline = sf_now_ms() + FUSE_DIE_WAIT_MS;
		/* Asleep in no walk, and back to spinning in user space */
		SF_CHECK(sf_task_stat(tid, NULL, NULL, &utime0), "unmap: /proc/%d/stat: %m", tid);
		while ((fuse_walk_waits(tid, NULL, 0, &state) ||
			(sf_task_stat(tid, NULL, NULL, &utime) && utime <= utime0)) &&
		       sf_now_ms() < deadline)
			usleep(20000);
		SF_CHECK(!fuse_walk_waits(tid, frame, sizeof(frame), &state),
			 "unmap: the walk still waits after the server answered (%s, state %c)",
			 frame, state);
		SF_CHECK(sf_task_stat(tid, NULL, NULL, &utime) && utime > utime0,
			 "unmap: no user time for the spinner since the answer (%ld ticks)",
			 utime);
		/* Left: the child's copies of the sections fork() gave it */
		now = sf_sections_settle(sections + inherited, FUSE_DIE_WAIT_MS);
		SF_CHECK(now == sections + inherited,
			 "unmap: %ld sections once the walk ended, %ld before the child, %ld inherited",
			 now, sections, inherited);
		SF_CHECK(!waitpid(pid, &status, WNOHANG), "unmap: the child died (%#x)", status);
		SF_CHECK(write(cmd[1], "x", 1) == 1, "unmap: write: %m");
		status = fuse_reap(pid);
		SF_CHECK(status >= 0 && WIFEXITED(status) &&
			 WEXITSTATUS(status) == FUSE_EXIT_STATUS,
			 "unmap: the child's status %#x, not exit(%d)", status, FUSE_EXIT_STATUS);
	} else if (!strcmp(ending, "sync")) {
		kill(pid, SIGKILL);
		usleep(FUSE_HOLD_MS * 1000);
		sf_note("sync: %s %d s after SIGKILL", waitpid(pid, &status, WNOHANG) ?
			"the child was gone" : "the child still waited for the server",
			FUSE_HOLD_MS / 1000);
		/* umount -f aborts the connection even while the mount is busy */
		SF_CHECK(!umount2(FUSE_DIR, MNT_FORCE) || errno == EBUSY, "umount -f: %m");
		status = fuse_reap(pid);
		SF_CHECK(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			 "sync: the child did not die of SIGKILL within %d s of the abort (status %#x)",
			 FUSE_DIE_WAIT_MS / 1000, status);
	} else {
		SF_CHECK(write(cmd[1], "x", 1) == 1, "exit: write: %m");
		status = fuse_reap(pid);
		SF_CHECK(status >= 0 && WIFEXITED(status) &&
			 WEXITSTATUS(status) == FUSE_EXIT_STATUS,
			 "exit: the child's status %#x, not exit(%d) within %d s", status,
			 FUSE_EXIT_STATUS, FUSE_DIE_WAIT_MS / 1000);
	}
	if (status >= 0) {
		pid = 0;
		now = sf_sections_settle(sections, FUSE_DIE_WAIT_MS);
		SF_CHECK(now == sections, "%s: %ld sections after the child died, %ld before",
			 ending, now, sections);
	}
out:
	if (hung >= 0)
		sf_param_set_path(FUSE_HUNG_TASK, hung);
	fuse_speak();
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(ready[0]);
	close(cmd[1]);
	return sf_failed == failed;
}

/* sf-attach's first executable segment, from its file's program headers */
static bool fuse_text_of(int elf, struct sframe_attachment *att)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i;

	if (pread(elf, &eh, sizeof(eh), 0) != sizeof(eh))
		return false;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(elf, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			return false;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			att->text_vaddr = ph.p_vaddr;
			att->text_size = ph.p_memsz;
			return true;
		}
	}
	return false;
}

/* sf-attach --child self: its attached text walked from its start, or a timeout */
static bool fuse_run_attached(void)
{
	long deadline = sf_now_ms() + FUSE_STUCK_WAIT_MS;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		execl("./sf-attach", "sf-attach", "--child", "self", (char *)NULL);
		_exit(127);
	}
	if (!SF_CHECK(pid > 0, "fork: %m"))
		return false;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (sf_now_ms() > deadline) {
			sf_fail("sf-attach did not finish within %d ms of the server's silence",
				FUSE_STUCK_WAIT_MS);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return false;
		}
		usleep(20000);
	}
	return SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
			"sf-attach --child self: status %#x", status);
}

/* The attach ending: see the head of this file */
static bool fuse_attach(void)
{
	struct sframe_attachment att = { .size = sizeof(att) };
	int failed = sf_failed, src, elf, sec = -1;
	unsigned int reads;
	ssize_t len;

	src = open("./sf-attach.sframe", O_RDONLY);
	elf = open("./sf-attach", O_RDONLY);
	if (!SF_CHECK(src >= 0 && elf >= 0, "sf-attach or its section: %m"))
		goto out;
	len = read(src, fuse_file->bytes, sizeof(fuse_file->bytes));
	if (!SF_CHECK(len > 0 && len < (ssize_t)sizeof(fuse_file->bytes),
		      "sf-attach.sframe: %zd bytes", len) ||
	    !SF_CHECK(fuse_text_of(elf, &att), "sf-attach: no executable segment"))
		goto out;
	fuse_file->len = len;
	sec = open(FUSE_FILE, O_RDONLY);
	if (!SF_CHECK(sec >= 0, "%s: %m", FUSE_FILE))
		goto out;
	att.elf_fd = elf;
	att.sframe_fd = sec;
	att.sframe_size = len;
	att.sframe_vaddr = FUSE_ATTACH_VADDR;
	if (!SF_CHECK(!prctl(PR_SFRAME_ATTACH, &att, 0, 0, 0), "PR_SFRAME_ATTACH: %m"))
		goto out;

	pthread_mutex_lock(&fuse_lock);
	atomic_store(&fuse_silent, true);
	reads = fuse_reads;
	pthread_mutex_unlock(&fuse_lock);
	fuse_run_attached();
	pthread_mutex_lock(&fuse_lock);
	SF_CHECK(fuse_reads == reads, "%u reads of the section's file after the attachment",
		 fuse_reads - reads);
	pthread_mutex_unlock(&fuse_lock);
	fuse_speak();
	SF_CHECK(!prctl(PR_SFRAME_DETACH, elf, 0, 0, 0), "PR_SFRAME_DETACH: %m");
	if (sf_failed == failed)
		sf_note("attach: sf-attach walked by a section read from FUSE, the server silent");
out:
	if (sec >= 0)
		close(sec);
	if (elf >= 0)
		close(elf);
	if (src >= 0)
		close(src);
	return sf_failed == failed;
}

/*
 * Unmounting aborts the connection: the server's read fails and it returns.
 * After umount -f the mount may be gone already.
 */
static bool fuse_unmount(pthread_t server, bool forced)
{
	bool ok = SF_CHECK(!umount2(FUSE_DIR, forced ? MNT_DETACH : 0) ||
			   (forced && errno == EINVAL), "umount %s: %m", FUSE_DIR);

	pthread_join(server, NULL);
	close(fuse_dev);
	return ok;
}

SF_TEST_NEEDS(fuse, SF_TEST_SECONDS, "sf-attach", "sf-attach.sframe")
{
	static const char *const endings[] = { "kill", "unmap", "exit" };
	pthread_t server;
	unsigned int i;

	fuse_file = mmap(NULL, sizeof(*fuse_file), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(fuse_file != MAP_FAILED, "mmap: %m") || !fuse_mount(&server, true))
		sf_exit();
	for (i = 0; i < ARRAY_SIZE(endings) && fuse_run(endings[i]); i++)
		;
	if (!fuse_unmount(server, false) || i < ARRAY_SIZE(endings))
		sf_exit();
	/* A mount of its own: the file's size and pages cached by none before */
	if (!fuse_mount(&server, true))
		sf_exit();
	fuse_attach();
	if (!fuse_unmount(server, false) || !fuse_mount(&server, false))
		sf_exit();
	fuse_run("sync");
	fuse_unmount(server, true);
	sf_exit();
}

SF_HARNESS_MAIN
