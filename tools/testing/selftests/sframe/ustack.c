// SPDX-License-Identifier: GPL-2.0
/*
 * sf-ustack [--no-sframe]: reads /proc/thread-self/ustack at known points
 * of known call chains and checks the stack symbol by symbol, up to main:
 *
 *   leaf     main > chain_a > lib_ustack_mid (a linked library) > chain_c > leaf
 *   fork     the same in a child forked without exec, which inherits the
 *            sections
 *   remote-* the same read by another process from /proc/<pid>/ustack:
 *            a child blocked in the leaf's read() of a pipe (blocked), a
 *            thread of this process so blocked (thread), a child spinning
 *            in main > spin_a > lib_ustack_mid > spin_c > spin_leaf, which
 *            cannot be read while it runs (running: EBUSY), then can once
 *            stopped by SIGSTOP (stopped) and by a tracer (traced); and a
 *            child that gave up root, which may not read this process's
 *            file (denied: EACCES)
 *   open-*   the file is checked and bound at open, as /proc/<pid>/mem:
 *            a descriptor root opened on the blocked child still reads
 *            after the reader gave up root for nobody, who cannot open
 *            it (kept); nobody cannot open the file of a process of
 *            nobody's that keeps capabilities nobody lacks, though the
 *            mode lets it try (denied: EACCES at open, not at read)
 *   exec-*   a descriptor opened before the thread exec()s shows nothing
 *            of the new image: ESRCH, read by another process (remote),
 *            and by the new image itself from its own thread's file
 *            opened before the exec (self), as a setuid program would
 *   empty-*  no user stack, an empty file: a zombie child (zombie), a
 *            child that exits after the open (exited) and kthreadd
 *            (kthread)
 *   remote-frozen  a stopped child, frozen and thawed by the legacy
 *            cgroup freezer (TASK_FROZEN, as suspend freezes) while
 *            another thread reads its file over and over: reads go on
 *            while it is frozen and show its stack; none waits for the
 *            thaw, as wait_task_inactive() did
 *   dlopen   main > dl_a > dl_ustack_mid (a dlopen-ed library) > chain_c > leaf
 *   signal   main > signal > sig_a > sig_b, interrupted by a signal:
 *            handler > leaf
 *   altstack the same with an SA_SIGINFO handler on a sigaltstack (on
 *            s390 the other kind of signal frame)
 *   asm-N    main > asm_caller > ustack_asm_point, which reads the file at
 *            its N-th prologue- or epilogue-shaped point (ustack-asm.S)
 *   jit      main > jit_caller > code written at run time, which reads the
 *            file itself, described by a section registered with
 *            PR_SFRAME_REGISTER (sframe_jit.c): the JIT frame is stepped
 *            by that section's SFrame; then the code and the section
 *            rewritten in place with a frame at the same place, and
 *            registered again (jit-replace), or unregistered and
 *            registered (jit-reregister), after lookups filled the
 *            kernel's rule cache: the walk must follow the new rules
 *
 * The leaf reads the file with its own system call instruction, so the
 * first frame is this program's code, not glibc's (which has no SFrame).
 * Built -O2 -fomit-frame-pointer.  With --no-sframe (the same sources
 * built without SFrame) nothing is checked but that frame pointers were
 * the only method; it prints how many of each chain's frames they found.
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_syscall.h"
#include "sframe_jit.h"
#include "sf_harness.h"

#define USTACK_MAX	64
#define USTACK_BUF	16384

typedef long (*ustack_cb)(void);
typedef long (*ustack_mid)(ustack_cb cb);

long lib_ustack_mid(ustack_cb cb);
long ustack_asm_point(long fd, char *buf, long len, long which);
extern const int ustack_asm_npoints;

struct ustack {
	int		n;
	unsigned long	ip[USTACK_MAX];
	char		method[USTACK_MAX][8];
	char		text[USTACK_BUF];
};

static int ustack_fd = -1;
/* pread64() of the file; read() of a pipe for a thread to block in */
static long ustack_nr = SYS_pread64;
static struct ustack ustack_got;
static bool ustack_no_sframe;
static volatile int ustack_spinning = 1;

/* The leaf: one system call, no frame of its own on most arches. */
__attribute__((noinline)) long ustack_leaf(void)
{
	return sf_syscall4(ustack_nr, ustack_fd, (long)ustack_got.text,
			   sizeof(ustack_got.text) - 1, 0);
}

/* A leaf that runs until killed, in user mode */
__attribute__((noinline)) long ustack_spin_leaf(void)
{
	while (ustack_spinning)
		__asm__ volatile("" : : : "memory");
	return 0;
}

SF_CHAIN_FN(ustack_chain_c, (void), ustack_leaf())

SF_CHAIN_FN(ustack_chain_a, (void), lib_ustack_mid(ustack_chain_c))

SF_CHAIN_FN(ustack_dl_a, (ustack_mid mid), mid(ustack_chain_c))

SF_CHAIN_FN(ustack_spin_c, (void), ustack_spin_leaf())

SF_CHAIN_FN(ustack_spin_a, (void), lib_ustack_mid(ustack_spin_c))

__attribute__((noinline)) void ustack_handler(int sig)
{
	(void)sig;
	ustack_leaf();
	__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) void ustack_handler_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	ustack_leaf();
	__asm__ volatile("" : : : "memory");
}

/* Interrupted in its own system call: the handler runs on the way out. */
__attribute__((noinline)) long ustack_sig_b(void)
{
	long pid = sf_syscall4(SYS_getpid, 0, 0, 0, 0);
	long r = sf_syscall4(SYS_kill, pid, SIGUSR1, 0, 0);

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

SF_CHAIN_FN(ustack_sig_a, (void), ustack_sig_b())

static bool ustack_parse(struct ustack *u)
{
	char *line = u->text, *next;

	u->n = 0;
	for (; *line && u->n < USTACK_MAX; line = next) {
		next = strchr(line, '\n');
		if (!SF_CHECK(next, "unterminated line '%s'", line))
			return false;
		*next++ = 0;
		if (!SF_CHECK(sscanf(line, "0x%lx %7s", &u->ip[u->n], u->method[u->n]) == 2,
			      "bad line '%s'", line))
			return false;
		if (!SF_CHECK(!strcmp(u->method[u->n], "sframe") ||
			      !strcmp(u->method[u->n], "fp") ||
			      !strcmp(u->method[u->n], "signal"),
			      "bad method in '%s'", line))
			return false;
		u->n++;
	}
	return true;
}

/* The function an address returns into (or was interrupted in) */
static const char *ustack_sym(unsigned long ip)
{
	Dl_info info;

	if (!dladdr((void *)(ip - 1), &info) || !info.dli_sname)
		return "?";
	return info.dli_sname;
}

static void ustack_show(const struct ustack *u)
{
	int i;

	for (i = 0; i < u->n; i++)
		sf_info("  %#lx %-6s %s", u->ip[i], u->method[i], ustack_sym(u->ip[i]));
}

/*
 * Checks that @want (NULL-terminated, "*" for any one frame) is the stack
 * from its first function down to main, and that the frame after "*" was
 * found in a signal frame.  Returns how many of @want were found in order.
 */
static int ustack_check(const char *name, const struct ustack *u,
			const char *const *want)
{
	int i = 0, w = 0, nwant = 0;

	while (want[nwant])
		nwant++;
	while (i < u->n && strcmp(ustack_sym(u->ip[i]), want[0]))
		i++;
	for (; i < u->n && want[w]; i++, w++) {
		if (!strcmp(want[w], "*"))
			continue;
		if (strcmp(ustack_sym(u->ip[i]), want[w]))
			break;
		if (w && !strcmp(want[w - 1], "*") && !ustack_no_sframe &&
		    !SF_CHECK(!strcmp(u->method[i], "signal"),
			      "%s: %s found by %s, not signal", name, want[w],
			      u->method[i]))
			break;
	}
	if (ustack_no_sframe) {
		for (i = 0; i < u->n; i++)
			SF_CHECK(strcmp(u->method[i], "sframe"),
				 "%s: frame %d found by SFrame in a program without it",
				 name, i);
		sf_note("%s: frame pointers alone found %d of %d frames", name, w, nwant);
	} else if (!SF_CHECK(w == nwant, "%s: %d of %d frames match", name, w, nwant)) {
		ustack_show(u);
	} else {
		sf_note("%s: all %d frames to main, %d in all", name, nwant, u->n);
	}
	return w;
}

static void ustack_take_result(long got)
{
	if (!SF_CHECK(got > 0, "reading ustack gave %ld", got))
		return;
	ustack_got.text[got] = 0;
	ustack_parse(&ustack_got);
}

__attribute__((noinline)) void ustack_signal(const char *name, bool altstack)
{
	static const char *const want[] = {
		"ustack_leaf", "ustack_handler", "*", "ustack_sig_b",
		"ustack_sig_a", "ustack_signal", "main", NULL
	};
	static const char *const want_info[] = {
		"ustack_leaf", "ustack_handler_info", "*", "ustack_sig_b",
		"ustack_sig_a", "ustack_signal", "main", NULL
	};
	struct sigaction sa = { .sa_handler = ustack_handler };
	stack_t ss = { .ss_size = 1 << 16 };

	if (altstack) {
		ss.ss_sp = malloc(ss.ss_size);
		SF_CHECK(ss.ss_sp && !sigaltstack(&ss, NULL), "sigaltstack");
		sa.sa_sigaction = ustack_handler_info;
		sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
	}
	SF_CHECK(!sigaction(SIGUSR1, &sa, NULL), "sigaction");
	memset(&ustack_got, 0, sizeof(ustack_got));
	ustack_sig_a();
	ustack_take_result(strlen(ustack_got.text));
	ustack_check(name, &ustack_got, altstack ? want_info : want);
}

__attribute__((noinline)) long ustack_asm_caller(long which)
{
	long r = ustack_asm_point(ustack_fd, ustack_got.text,
				  sizeof(ustack_got.text) - 1, which);

	__asm__ volatile("" : : : "memory");
	return r;
}

static void ustack_asm(void)
{
	static const char *const want[] = {
		"ustack_asm_point", "ustack_asm_caller", "main", NULL
	};
	char name[16];
	int i;

	for (i = 0; i < ustack_asm_npoints; i++) {
		memset(&ustack_got, 0, sizeof(ustack_got));
		ustack_take_result(ustack_asm_caller(i));
		snprintf(name, sizeof(name), "asm-%d", i);
		ustack_check(name, &ustack_got, want);
	}
}

/*
 * A leaf that reads the file with pread64(fd, buf, len, 0), its arguments
 * already in the argument registers: as the first instruction's frame rule
 * (the only one sframe_jit.c writes) holds all through it.
 */
static const unsigned char ustack_jit_code[] = {
#if defined(__x86_64__)
	0xb8, 0x11, 0x00, 0x00, 0x00,	/* mov $__NR_pread64, %eax */
	0x45, 0x31, 0xd2,		/* xor %r10d, %r10d */
	0x0f, 0x05,			/* syscall */
	0xc3,				/* ret */
#elif defined(__aarch64__)
	0x1f, 0x20, 0x03, 0xd5,		/* nop: svc where the one below has it */
	0x03, 0x00, 0x80, 0xd2,		/* mov x3, #0 */
	0x68, 0x08, 0x80, 0xd2,		/* mov x8, #__NR_pread64 */
	0x01, 0x00, 0x00, 0xd4,		/* svc #0 */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
#elif defined(__s390x__)
	0x47, 0x00, 0x00, 0x00,		/* nop: svc where the one below has it */
	0xa7, 0x59, 0x00, 0x00,		/* lghi %r5, 0 */
	0x0a, 0xb4,			/* svc __NR_pread64 */
	0x07, 0xfe,			/* br %r14 */
#endif
};

/*
 * The same leaf rewritten with a frame: it moves the stack pointer by
 * USTACK_JIT_FRAME bytes before the system call, which returns to the
 * same offset as in the code above, so the rule the kernel looked up
 * there before no longer holds.  The section gets the new rule, CFA from
 * SP USTACK_JIT_FRAME bytes further (USTACK_JIT_CFA_STEP in the stored
 * data word), which is wrong before the first instruction has run, but
 * right where the file is read.
 */
static const unsigned char ustack_jit_framed[] = {
#if defined(__x86_64__)
#define USTACK_JIT_FRAME	8
#define USTACK_JIT_CFA_STEP	8
	0x53,				/* push %rbx */
	0x6a, 0x11,			/* push $__NR_pread64 */
	0x58,				/* pop %rax */
	0x45, 0x31, 0xd2,		/* xor %r10d, %r10d */
	0x90,				/* nop */
	0x0f, 0x05,			/* syscall */
	0x5b,				/* pop %rbx */
	0xc3,				/* ret */
#elif defined(__aarch64__)
#define USTACK_JIT_FRAME	16
#define USTACK_JIT_CFA_STEP	16
	0xff, 0x43, 0x00, 0xd1,		/* sub sp, sp, #16 */
	0x03, 0x00, 0x80, 0xd2,		/* mov x3, #0 */
	0x68, 0x08, 0x80, 0xd2,		/* mov x8, #__NR_pread64 */
	0x01, 0x00, 0x00, 0xd4,		/* svc #0 */
	0xff, 0x43, 0x00, 0x91,		/* add sp, sp, #16 */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
#elif defined(__s390x__)
#define USTACK_JIT_FRAME	8
#define USTACK_JIT_CFA_STEP	1	/* CFA offsets are stored in 8-byte units */
	0xa7, 0xfb, 0xff, 0xf8,		/* aghi %r15, -8 */
	0xa7, 0x59, 0x00, 0x00,		/* lghi %r5, 0 */
	0x0a, 0xb4,			/* svc __NR_pread64 */
	0xa7, 0xfb, 0x00, 0x08,		/* aghi %r15, 8 */
	0x07, 0xfe,			/* br %r14 */
#endif
};

typedef long (*ustack_jit_fn)(long fd, char *buf, long len);

__attribute__((noinline)) long ustack_jit_caller(ustack_jit_fn fn)
{
	long r = fn(ustack_fd, ustack_got.text, sizeof(ustack_got.text) - 1);

	__asm__ volatile("" : : : "memory");
	return r;
}

/*
 * Reads the file from the JIT code at @text; true if the stack was right.
 * Inline, as ustack_jit() is in main(): symbols are only found for
 * functions the program exports.
 */
static inline __attribute__((always_inline))
bool ustack_jit_walk(const char *name, unsigned char *text, size_t size)
{
	const struct ustack *u = &ustack_got;

	memset(&ustack_got, 0, sizeof(ustack_got));
	ustack_take_result(ustack_jit_caller((ustack_jit_fn)text));
	if (SF_CHECK(u->n >= 3, "%s: %d frames", name, u->n) &&
	    SF_CHECK(u->ip[0] >= (unsigned long)text &&
		     u->ip[0] < (unsigned long)text + size,
		     "%s: first frame %#lx is not the JIT code", name, u->ip[0]) &&
	    SF_CHECK(!strcmp(ustack_sym(u->ip[1]), "ustack_jit_caller") &&
		     !strcmp(u->method[1], "sframe"),
		     "%s: frame 1 is %s by %s", name, ustack_sym(u->ip[1]), u->method[1]) &&
	    SF_CHECK(!strcmp(ustack_sym(u->ip[2]), "main"),
		     "%s: frame 2 is %s", name, ustack_sym(u->ip[2])))
		return true;
	ustack_show(u);
	return false;
}

/*
 * Writes @code at @text and its section at @sframe, as a JIT does: the
 * code made writable, then executable again.  @framed: the section says
 * the code has ustack_jit_framed's frame.  Returns the section's size.
 */
static size_t ustack_jit_write(unsigned char *text, unsigned char *sframe,
			       const unsigned char *code, size_t size, bool framed)
{
	size_t page = sf_page_size(), len, i;

	if (!SF_CHECK(!mprotect(text, page, PROT_READ | PROT_WRITE), "mprotect RW"))
		return 0;
	/*
	 * Byte stores, not memcpy(): QEMU's s390x emulation ran the old code
	 * after glibc's memcpy() (MVC) rewrote it, plain stores it notices.
	 */
	for (i = 0; i < size; i++)
		((volatile unsigned char *)text)[i] = code[i];
	__builtin___clear_cache((char *)text, (char *)text + size);
	len = sf_jit_build(sframe, SFRAME_VERSION_3, (unsigned long)text, size);
	/* The one FRE's CFA offset is the section's last byte. */
	if (framed)
		sframe[len - 1] += USTACK_JIT_CFA_STEP;
	if (!SF_CHECK(!mprotect(text, page, PROT_READ | PROT_EXEC), "mprotect RX"))
		return 0;
	return len;
}

/*
 * jit, then what a JIT does when it rewrites code in place: the kernel has
 * the old rule cached for where the file is read (three reads: one asks
 * for the rule cache, one fills it, one uses it), the code gets a frame
 * there and the section says so, and the section is registered again,
 * which replaces the registration (jit-replace); then rewritten back,
 * unregistered and registered (jit-reregister).  Each must walk the
 * new code by its new rules.
 */
static void ustack_jit(void)
{
	size_t page = sf_page_size(), len;
	struct sframe_registration reg;
	unsigned char *text, *sframe;
	int i, err;

	text = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(text != MAP_FAILED, "mmap"))
		return;
	sframe = text + page;
	len = ustack_jit_write(text, sframe, ustack_jit_code, sizeof(ustack_jit_code), false);
	if (!len)
		return;
	sf_jit_reg(&reg, sframe, len, (unsigned long)text, sizeof(ustack_jit_code));
	if (!SF_CHECK(!sf_jit_register(&reg), "PR_SFRAME_REGISTER"))
		return;

	for (i = 0; i < 3; i++)
		if (!ustack_jit_walk("jit", text, sizeof(ustack_jit_code)))
			goto out;
	sf_note("jit: code registered with PR_SFRAME_REGISTER, to main");

	len = ustack_jit_write(text, sframe, ustack_jit_framed, sizeof(ustack_jit_framed), true);
	if (!len)
		goto out;
	sf_jit_reg(&reg, sframe, len, (unsigned long)text, sizeof(ustack_jit_framed));
	err = sf_jit_register(&reg);
	SF_CHECK(!err, "jit-replace: PR_SFRAME_REGISTER again: %s", strerror(err));
	/* Walked even if that failed: with the old rule, the walk goes astray. */
	if (ustack_jit_walk("jit-replace", text, sizeof(ustack_jit_framed)) &&
	    ustack_jit_walk("jit-replace", text, sizeof(ustack_jit_framed)) && !err)
		sf_note("jit-replace: code rewritten with a frame, registered again, to main");

	len = ustack_jit_write(text, sframe, ustack_jit_code, sizeof(ustack_jit_code), false);
	if (!len)
		goto out;
	sf_jit_reg(&reg, sframe, len, (unsigned long)text, sizeof(ustack_jit_code));
	if (SF_CHECK(!sf_jit_unregister((unsigned long)text), "PR_SFRAME_UNREGISTER") &&
	    SF_CHECK(!sf_jit_register(&reg), "jit-reregister: PR_SFRAME_REGISTER") &&
	    ustack_jit_walk("jit-reregister", text, sizeof(ustack_jit_code)) &&
	    ustack_jit_walk("jit-reregister", text, sizeof(ustack_jit_code)))
		sf_note("jit-reregister: code rewritten back, unregistered, registered, to main");
out:
	SF_CHECK(!sf_jit_unregister((unsigned long)text), "PR_SFRAME_UNREGISTER");
	munmap(text, 2 * page);
}

#define USTACK_REMOTE_WAIT_MS	20000

static bool ustack_wait_read(int pid, int tid)
{
	return SF_CHECK(sf_wait_syscall(pid, tid, SYS_read, USTACK_REMOTE_WAIT_MS),
			"thread %d of %d not blocked in read()", tid, pid);
}

/* Reads @fd into @u: 0 (@u->n frames, none if the file is empty) or an errno */
static int ustack_pread(int fd, struct ustack *u)
{
	long got;

	memset(u, 0, sizeof(*u));
	got = pread(fd, u->text, sizeof(u->text) - 1, 0);
	if (got < 0)
		return errno;
	u->text[got] = 0;
	ustack_parse(u);
	return 0;
}

/* Opens another thread's file: the descriptor, or -errno */
static int ustack_open_remote(int pid, int tid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/ustack", pid, tid);
	fd = open(path, O_RDONLY);
	return fd < 0 ? -errno : fd;
}

/* Reads another thread's file into ustack_got: 0, or the errno of the read */
static int ustack_read_remote(int pid, int tid)
{
	int fd = ustack_open_remote(pid, tid), err;

	if (fd < 0)
		return -fd;
	err = ustack_pread(fd, &ustack_got);
	close(fd);
	if (!err)
		SF_CHECK(ustack_got.n > 0, "the ustack of %d/%d is empty", pid, tid);
	return err;
}

/*
 * A child blocked in the leaf's read() of a pipe, the write end in *@wfd
 * (closing it lets the child exit 0); with @keep_caps, as nobody that
 * kept root's capabilities, so that nobody may not ptrace it.  Its stack
 * is ustack_want_blocked.
 */
__attribute__((noinline)) pid_t ustack_blocked_child(int *wfd, bool keep_caps)
{
	int pipefd[2];
	pid_t pid;

	if (!SF_CHECK(!pipe(pipefd), "pipe"))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(pipefd[1]);
		if (keep_caps && (prctl(PR_SET_KEEPCAPS, 1) ||
				  setresgid(65534, 65534, 65534) ||
				  setresuid(65534, 65534, 65534) ||
				  prctl(PR_SET_DUMPABLE, 1)))
			_exit(2);
		ustack_fd = pipefd[0];
		ustack_nr = SYS_read;
		ustack_chain_a();
		_exit(0);
	}
	close(pipefd[0]);
	if (!SF_CHECK(pid > 0, "fork")) {
		close(pipefd[1]);
		return -1;
	}
	*wfd = pipefd[1];
	return pid;
}

static const char *const ustack_want_blocked[] = {
	"ustack_leaf", "ustack_chain_c", "lib_ustack_mid",
	"ustack_chain_a", "ustack_blocked_child", NULL
};

/* Lets the blocked child go and checks that it exited 0 */
static void ustack_end_child(pid_t pid, int wfd)
{
	int status = 0;

	close(wfd);
	SF_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		 !WEXITSTATUS(status), "the blocked child failed (status %#x)", status);
}

static void ustack_remote_blocked(const char *const *want)
{
	int pipefd[2], err;
	pid_t pid;

	if (!SF_CHECK(!pipe(pipefd), "pipe"))
		return;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(pipefd[1]);
		ustack_fd = pipefd[0];
		ustack_nr = SYS_read;
		ustack_chain_a();
		_exit(0);
	}
	close(pipefd[0]);
	if (SF_CHECK(pid > 0, "fork") && ustack_wait_read(pid, pid)) {
		err = ustack_read_remote(pid, pid);
		if (SF_CHECK(!err, "reading the child's ustack: %s", strerror(err)))
			ustack_check("remote-blocked", &ustack_got, want);
	}
	if (pid > 0)
		ustack_end_child(pid, pipefd[1]);
	else
		close(pipefd[1]);
}

static int ustack_thread_tid;

__attribute__((noinline)) void *ustack_thread_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&ustack_thread_tid, sf_syscall4(SYS_gettid, 0, 0, 0, 0),
			 __ATOMIC_RELEASE);
	ustack_chain_a();
	__asm__ volatile("" : : : "memory");
	return NULL;
}

static void ustack_remote_thread(void)
{
	static const char *const want[] = {
		"ustack_leaf", "ustack_chain_c", "lib_ustack_mid",
		"ustack_chain_a", "ustack_thread_main", NULL
	};
	int pipefd[2], fd = ustack_fd, tid;
	pthread_t thread;

	if (!SF_CHECK(!pipe(pipefd), "pipe"))
		return;
	ustack_fd = pipefd[0];
	ustack_nr = SYS_read;
	if (SF_CHECK(!pthread_create(&thread, NULL, ustack_thread_main, NULL),
		     "pthread_create")) {
		while (!(tid = __atomic_load_n(&ustack_thread_tid, __ATOMIC_ACQUIRE)))
			usleep(1000);
		if (ustack_wait_read(getpid(), tid) &&
		    SF_CHECK(!ustack_read_remote(getpid(), tid),
			     "reading the thread's ustack: %m"))
			ustack_check("remote-thread", &ustack_got, want);
		close(pipefd[1]);
		pthread_join(thread, NULL);
	} else {
		close(pipefd[1]);
	}
	close(pipefd[0]);
	ustack_fd = fd;
	ustack_nr = SYS_pread64;
}

/* The stack of a child spinning in ustack_spin_leaf() */
static const char *const ustack_want_spin[] = {
	"ustack_spin_leaf", "ustack_spin_c", "lib_ustack_mid",
	"ustack_spin_a", "main", NULL
};

/*
 * A child spinning in ustack_spin_leaf(), once it runs; -1 if none.
 * Inlined, as its callers are into main(): the child's stack is
 * ustack_want_spin, ustack_spin_a() called from main().
 */
static inline __attribute__((__always_inline__)) pid_t ustack_spinner(void)
{
	int ready[2];
	pid_t pid;
	char c = 0;

	if (!SF_CHECK(!pipe(ready), "pipe"))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(ready[0]);
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		ustack_spin_a();
		_exit(0);
	}
	close(ready[1]);
	if (!SF_CHECK(pid > 0 && read(ready[0], &c, 1) == 1, "the spinning child")) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

/* A running child cannot be read; stopped, or traced, it can. */
static void ustack_remote_spin(void)
{
	const char *const *want = ustack_want_spin;
	pid_t pid = ustack_spinner();
	int status = 0, err;

	if (pid < 0)
		return;
	usleep(50000);
	err = ustack_read_remote(pid, pid);
	SF_CHECK(err == EBUSY, "remote-running: read gave %s, not EBUSY",
		 err ? strerror(err) : "a stack");

	if (SF_CHECK(!kill(pid, SIGSTOP) && waitpid(pid, &status, WUNTRACED) == pid &&
		     WIFSTOPPED(status), "stopping the child")) {
		err = ustack_read_remote(pid, pid);
		if (SF_CHECK(!err, "remote-stopped: %s", strerror(err)))
			ustack_check("remote-stopped", &ustack_got, want);
	}
	kill(pid, SIGCONT);

	if (SF_CHECK(!ptrace(PTRACE_SEIZE, pid, 0, 0) &&
		     !ptrace(PTRACE_INTERRUPT, pid, 0, 0) &&
		     waitpid(pid, &status, 0) == pid && WIFSTOPPED(status),
		     "tracing the child: %m")) {
		err = ustack_read_remote(pid, pid);
		if (SF_CHECK(!err, "remote-traced: %s", strerror(err)))
			ustack_check("remote-traced", &ustack_got, want);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* A process that may not ptrace this one may not read its stack either. */
static void ustack_remote_denied(void)
{
	int status = 0, err, parent = getpid();
	pid_t pid;

	if (geteuid()) {
		sf_note("remote-denied: not root, nothing to give up");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (setresuid(65534, 65534, 65534))
			_exit(2);
		err = ustack_read_remote(parent, parent);
		_exit(err == EACCES ? 0 : 1);
	}
	if (SF_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
		     "the unprivileged child (status %#x)", status))
		SF_CHECK(!WEXITSTATUS(status),
			 "remote-denied: %s", WEXITSTATUS(status) == 2 ?
			 "setresuid failed" : "read did not fail with EACCES");
}

/* Runs @fn in a child as nobody; true if it exited 0 (its own checks passed) */
static bool ustack_as_nobody(const char *name, void (*fn)(void *arg), void *arg)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		/* Only this child's own checks count in its exit status. */
		sf_failed = 0;
		if (!SF_CHECK(!setresgid(65534, 65534, 65534) &&
			      !setresuid(65534, 65534, 65534), "%s: setresuid: %m", name))
			sf_exit();
		fn(arg);
		sf_exit();
	}
	return SF_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			!WEXITSTATUS(status), "%s: the child as nobody failed (status %#x)",
			name, status);
}

struct ustack_kept {
	int		fd, pid;
	const char	*const *want;
};

static void ustack_read_kept(void *arg)
{
	const struct ustack_kept *k = arg;
	int fd = ustack_open_remote(k->pid, k->pid), err;

	SF_CHECK(fd == -EACCES, "open-kept: nobody opened root's child's file (%s)",
		 fd < 0 ? strerror(-fd) : "no error");
	if (fd >= 0)
		close(fd);
	err = ustack_pread(k->fd, &ustack_got);
	if (SF_CHECK(!err, "open-kept: reading root's descriptor as nobody: %s",
		     strerror(err)))
		ustack_check("open-kept", &ustack_got, k->want);
}

/* The check is made when root opens the file: nobody may read that descriptor. */
static void ustack_open_kept(void)
{
	struct ustack_kept k = { .want = ustack_want_blocked };
	int wfd;

	if (geteuid()) {
		sf_note("open-kept: not root, nothing to give up");
		return;
	}
	k.pid = ustack_blocked_child(&wfd, false);
	if (k.pid < 0)
		return;
	if (ustack_wait_read(k.pid, k.pid)) {
		k.fd = ustack_open_remote(k.pid, k.pid);
		if (SF_CHECK(k.fd >= 0, "open-kept: %s", strerror(-k.fd))) {
			ustack_as_nobody("open-kept", ustack_read_kept, &k);
			close(k.fd);
		}
	}
	ustack_end_child(k.pid, wfd);
}

static void ustack_open_denied_child(void *arg)
{
	char path[64];
	struct stat st;
	int pid = *(int *)arg, fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/ustack", pid, pid);
	/* Owned by nobody: the mode bits let nobody try, the ptrace check must refuse. */
	if (!SF_CHECK(!stat(path, &st) && st.st_uid == 65534,
		      "open-denied: %s is not nobody's (uid %d)", path, (int)st.st_uid))
		return;
	fd = ustack_open_remote(pid, pid);
	if (SF_CHECK(fd == -EACCES, "open-denied: opening %s gave %s, not EACCES", path,
		     fd < 0 ? strerror(-fd) : "a descriptor"))
		sf_note("open-denied: nobody's open of a file it owns: EACCES");
	if (fd >= 0)
		close(fd);
}

/* nobody may not ptrace a process of nobody's with more capabilities. */
static void ustack_open_denied(void)
{
	int pid, wfd;

	if (geteuid()) {
		sf_note("open-denied: not root, no capabilities to keep");
		return;
	}
	pid = ustack_blocked_child(&wfd, true);
	if (pid < 0)
		return;
	if (ustack_wait_read(pid, pid))
		ustack_as_nobody("open-denied", ustack_open_denied_child, &pid);
	ustack_end_child(pid, wfd);
}

/*
 * The image a child exec()s (main's --exec-blocked RFD READY): says it
 * runs; main then blocks in the leaf's read() of RFD.
 */
static bool ustack_exec_blocked(char **argv)
{
	ustack_fd = atoi(argv[2]);
	ustack_nr = SYS_read;
	return write(atoi(argv[3]), "x", 1) == 1;
}

/*
 * The image a child exec()s (main's --exec-read FD): reads its own
 * thread's file, opened before the exec; 0 if that gave ESRCH, 1 if it
 * showed a stack, 2 for any other error.
 */
static int ustack_exec_read(char **argv)
{
	int err = ustack_pread(atoi(argv[2]), &ustack_got);

	if (!err)
		ustack_show(&ustack_got);
	return err == ESRCH ? 0 : err ? 2 : 1;
}

/* A descriptor opened on a child before it execs shows nothing of the new image. */
static void ustack_exec_remote(void)
{
	int go[2], in[2], ready[2], fd = -1, status = 0, err;
	char rfd[16], wready[16], c;
	char *argv[5] = { "sf-ustack", "--exec-blocked", rfd, wready, NULL };
	pid_t pid;

	if (!SF_CHECK(!pipe(go) && !pipe(in) && !pipe(ready), "pipe"))
		return;
	snprintf(rfd, sizeof(rfd), "%d", in[0]);
	snprintf(wready, sizeof(wready), "%d", ready[1]);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(go[1]);
		close(in[1]);
		close(ready[0]);
		/* Opened on this image; exec once the parent has its descriptor */
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(go[0]);
	close(in[0]);
	close(ready[1]);
	if (!SF_CHECK(pid > 0, "fork"))
		goto out;
	fd = ustack_open_remote(pid, pid);
	if (!SF_CHECK(fd >= 0, "exec-remote: opening the child's file: %s", strerror(-fd)) ||
	    !SF_CHECK(write(go[1], "x", 1) == 1 && read(ready[0], &c, 1) == 1,
		      "exec-remote: the child did not exec") ||
	    !ustack_wait_read(pid, pid))
		goto out;
	err = ustack_pread(fd, &ustack_got);
	if (!SF_CHECK(err == ESRCH, "exec-remote: reading after the exec gave %s, not ESRCH",
		      err ? strerror(err) : "a stack"))
		ustack_show(&ustack_got);
	/*
	 * A new descriptor shows the new image (laid out apart from this one,
	 * so its frames are counted, not named): the refusal is the old one's.
	 */
	err = ustack_read_remote(pid, pid);
	if (SF_CHECK(!err, "exec-remote: a new descriptor: %s", strerror(err)))
		sf_note("exec-remote: a new descriptor shows %d frames", ustack_got.n);
out:
	if (fd >= 0)
		close(fd);
	close(go[1]);
	close(in[1]);
	close(ready[0]);
	if (pid > 0)
		SF_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			 !WEXITSTATUS(status), "exec-remote: the child failed (status %#x)",
			 status);
}

/* A thread's own file, opened before it execs, shows nothing of the new image. */
static void ustack_exec_self(void)
{
	char fdtext[16];
	char *argv[4] = { "sf-ustack", "--exec-read", fdtext, NULL };
	int status = 0, fd;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		fd = open("/proc/thread-self/ustack", O_RDONLY);
		if (fd < 0)
			_exit(3);
		snprintf(fdtext, sizeof(fdtext), "%d", fd);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (SF_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
		     "exec-self: the child (status %#x)", status) &&
	    SF_CHECK(!WEXITSTATUS(status), "exec-self: the new image's read %s",
		     WEXITSTATUS(status) == 1 ? "showed its stack" :
		     WEXITSTATUS(status) == 2 ? "failed, not with ESRCH" : "did not run"))
		sf_note("exec-self: ESRCH");
}

/* Reads the file opened as @fd: it must be empty */
static void ustack_check_empty(const char *name, int fd)
{
	int err;

	if (!SF_CHECK(fd >= 0, "%s: open: %s", name, strerror(-fd)))
		return;
	err = ustack_pread(fd, &ustack_got);
	if (SF_CHECK(!err, "%s: read: %s", name, strerror(err)) &&
	    SF_CHECK(!ustack_got.text[0], "%s: not empty: '%.64s'", name, ustack_got.text))
		sf_note("%s: empty", name);
	close(fd);
}

/* Waits for @pid to be a zombie, not reaping it */
static bool ustack_wait_zombie(pid_t pid)
{
	siginfo_t si;

	return SF_CHECK(!waitid(P_PID, pid, &si, WEXITED | WNOWAIT), "waitid: %m");
}

/* No user stack: a zombie, a thread that exits after the open, a kernel thread */
static void ustack_empty(void)
{
	char comm[32] = "";
	int fd, wfd, status;
	pid_t pid;
	FILE *f;

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(0);
	if (SF_CHECK(pid > 0, "fork") && ustack_wait_zombie(pid))
		ustack_check_empty("empty-zombie", ustack_open_remote(pid, pid));
	if (pid > 0)
		waitpid(pid, &status, 0);

	pid = ustack_blocked_child(&wfd, false);
	if (pid > 0) {
		fd = ustack_open_remote(pid, pid);
		close(wfd);
		if (ustack_wait_zombie(pid))
			ustack_check_empty("empty-exited", fd);
		waitpid(pid, &status, 0);
	}

	f = fopen("/proc/2/comm", "r");
	if (f && fgets(comm, sizeof(comm), f) && !strcmp(comm, "kthreadd\n"))
		ustack_check_empty("empty-kthread", ustack_open_remote(2, 2));
	else
		sf_fail("empty-kthread: pid 2 is not kthreadd ('%s')", comm);
	if (f)
		fclose(f);
}

#define USTACK_FREEZER		"/tmp/sf-ustack-freezer"
#define USTACK_FREEZER_CG	USTACK_FREEZER "/sf-ustack"
#define USTACK_FREEZE_ROUNDS	8
#define USTACK_FREEZE_MS	300

/* Freezes (or thaws) the freezer cgroup and waits until it is so */
static bool ustack_freeze(bool freeze)
{
	const char *want = freeze ? "FROZEN" : "THAWED";
	long deadline = sf_now_ms() + USTACK_REMOTE_WAIT_MS;
	char state[32];
	FILE *f;

	if (!SF_CHECK(sf_write_file(USTACK_FREEZER_CG "/freezer.state", want),
		      "writing %s to freezer.state: %m", want))
		return false;
	do {
		f = fopen(USTACK_FREEZER_CG "/freezer.state", "r");
		state[0] = 0;
		if (f) {
			if (!fgets(state, sizeof(state), f))
				state[0] = 0;
			fclose(f);
		}
		if (!strncmp(state, want, strlen(want)))
			return true;
		usleep(1000);
	} while (sf_now_ms() < deadline);
	sf_fail("freezer.state is '%s', not %s", state, want);
	return false;
}

struct ustack_reader {
	int		fd;
	atomic_long	reads, stacks, errors;
	atomic_int	last_err, stop;
	struct ustack	got;
};

static void *ustack_reader_main(void *arg)
{
	struct ustack_reader *r = arg;
	int err;

	while (!atomic_load(&r->stop)) {
		err = ustack_pread(r->fd, &r->got);
		if (err) {
			atomic_store(&r->last_err, err);
			atomic_fetch_add(&r->errors, 1);
		} else if (r->got.n) {
			atomic_fetch_add(&r->stacks, 1);
		}
		atomic_fetch_add(&r->reads, 1);
	}
	return NULL;
}

/*
 * A stopped child is frozen and thawed while a thread reads its file over
 * and over: every freeze must find reads still completing.
 */
static void ustack_remote_frozen(const char *const *want)
{
	static struct ustack_reader r;
	int status = 0, round = 0, err;
	long before, during = 0;
	pthread_t reader;
	char pidtext[16];
	bool started = false;
	pid_t pid;

	if (geteuid()) {
		sf_note("remote-frozen: not root, no cgroup to make");
		return;
	}
	mkdir(USTACK_FREEZER, 0755);
	if (mount("freezer", USTACK_FREEZER, "cgroup", 0, "freezer") && errno != EBUSY) {
		sf_fail("remote-frozen: mounting the legacy freezer: %m%s",
			errno == ENODEV ? " (no CONFIG_CGROUP_FREEZER)" : "");
		return;
	}
	if (mkdir(USTACK_FREEZER_CG, 0755) && !SF_CHECK(errno == EEXIST, "mkdir: %m"))
		goto unmount;
	pid = ustack_spinner();
	if (pid < 0)
		goto rmdir;
	snprintf(pidtext, sizeof(pidtext), "%d", (int)pid);
	if (!SF_CHECK(sf_write_file(USTACK_FREEZER_CG "/cgroup.procs", pidtext),
		      "moving the child into the freezer cgroup: %m") ||
	    !SF_CHECK(!kill(pid, SIGSTOP) && waitpid(pid, &status, WUNTRACED) == pid &&
		      WIFSTOPPED(status), "stopping the child"))
		goto out;
	r.fd = ustack_open_remote(pid, pid);
	if (!SF_CHECK(r.fd >= 0, "remote-frozen: open: %s", strerror(-r.fd)))
		goto out;
	started = SF_CHECK(!pthread_create(&reader, NULL, ustack_reader_main, &r),
			   "pthread_create");
	for (round = 0; started && round < USTACK_FREEZE_ROUNDS; round++) {
		if (!ustack_freeze(true))
			break;
		before = atomic_load(&r.reads);
		usleep(USTACK_FREEZE_MS * 1000);
		during = atomic_load(&r.reads) - before;
		if (!SF_CHECK(during > 0,
			      "remote-frozen: round %d: no read completed in %d ms while the child was frozen",
			      round, USTACK_FREEZE_MS)) {
			ustack_freeze(false);
			break;
		}
		if (!ustack_freeze(false))
			break;
		usleep(20000 + 7000 * round);
	}
	if (started) {
		atomic_store(&r.stop, 1);
		pthread_join(reader, NULL);
		SF_CHECK(!atomic_load(&r.errors),
			 "remote-frozen: %ld of %ld reads failed, last: %s",
			 atomic_load(&r.errors), atomic_load(&r.reads),
			 strerror(atomic_load(&r.last_err)));
	}
	/* Frozen, it reads as any stopped thread does. */
	if (round == USTACK_FREEZE_ROUNDS && ustack_freeze(true)) {
		err = ustack_pread(r.fd, &ustack_got);
		if (SF_CHECK(!err, "remote-frozen: %s", strerror(err)))
			ustack_check("remote-frozen", &ustack_got, want);
		ustack_freeze(false);
		sf_note("remote-frozen: %d freezes, %ld reads, the last freeze's %ld in %d ms",
			round, atomic_load(&r.reads), during, USTACK_FREEZE_MS);
	}
	close(r.fd);
out:
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
rmdir:
	rmdir(USTACK_FREEZER_CG);
unmount:
	umount(USTACK_FREEZER);
}

/*
 * The same test in sf-ustack-pac and sf-ustack-pacb (arm64's return
 * addresses signed with key A, key B); sf-ustack-nosf, built without
 * SFrame, is the control
 */
#ifndef SF_CONTROL
SF_TEST_ARGS(ustack, SF_TEST_SECONDS, SF_NO_ARGS, SF_NO_ARGS)
#else
SF_TEST_ARGS(ustack_no_sframe, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--no-sframe"))
#endif

int main(int argc, char **argv)
{
	static const char *const want_leaf[] = {
		"ustack_leaf", "ustack_chain_c", "lib_ustack_mid",
		"ustack_chain_a", "main", NULL
	};
	static const char *const want_dl[] = {
		"ustack_leaf", "ustack_chain_c", "dl_ustack_mid",
		"ustack_dl_a", "main", NULL
	};
	ustack_mid mid;
	int status;
	pid_t pid;
	void *h;

	sf_harness_enter(argc, argv);

	if (argc == 4 && !strcmp(argv[1], "--exec-blocked")) {
		if (!ustack_exec_blocked(argv))
			return 2;
		ustack_chain_a();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--exec-read"))
		return ustack_exec_read(argv);
	ustack_no_sframe = argc > 1 && !strcmp(argv[1], "--no-sframe");
	ustack_fd = open("/proc/thread-self/ustack", O_RDONLY);
	if (!SF_CHECK(ustack_fd >= 0, "cannot open /proc/thread-self/ustack"))
		sf_exit();

	ustack_chain_a();
	ustack_take_result(strlen(ustack_got.text));
	ustack_check("leaf", &ustack_got, want_leaf);

	fflush(stdout);
	pid = fork();
	if (!pid) {
		/* The inherited file is the parent's thread's, not this one's. */
		close(ustack_fd);
		ustack_fd = open("/proc/thread-self/ustack", O_RDONLY);
		memset(&ustack_got, 0, sizeof(ustack_got));
		ustack_chain_a();
		ustack_take_result(strlen(ustack_got.text));
		ustack_check("fork", &ustack_got, want_leaf);
		sf_exit();
	}
	if (SF_CHECK(pid > 0, "fork") && SF_CHECK(waitpid(pid, &status, 0) == pid, "waitpid"))
		SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
			 "the forked child failed (status %#x)", status);

	ustack_remote_blocked(want_leaf);
	ustack_remote_thread();
	ustack_remote_spin();
	ustack_remote_denied();
	ustack_open_kept();
	ustack_open_denied();
	ustack_exec_remote();
	ustack_exec_self();
	ustack_empty();
	ustack_remote_frozen(ustack_want_spin);

	h = dlopen(ustack_no_sframe ? "libsf-ustack-dl-nosf.so" : "libsf-ustack-dl.so",
		   RTLD_NOW);
	if (SF_CHECK(h, "dlopen: %s", dlerror())) {
		mid = (ustack_mid)dlsym(h, "dl_ustack_mid");
		if (SF_CHECK(mid, "dlsym: %s", dlerror())) {
			memset(&ustack_got, 0, sizeof(ustack_got));
			ustack_dl_a(mid);
			ustack_take_result(strlen(ustack_got.text));
			ustack_check("dlopen", &ustack_got, want_dl);
		}
	}

	ustack_signal("signal", false);
	ustack_signal("altstack", true);
	ustack_asm();
	/* Its SFrame comes from the kernel, not the build: nothing to compare. */
	if (!ustack_no_sframe)
		ustack_jit();
	sf_exit();
}
