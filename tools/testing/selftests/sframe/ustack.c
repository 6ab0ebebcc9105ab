// SPDX-License-Identifier: GPL-2.0
/*
 * sf-ustack [--no-sframe]: reads /proc/thread-self/ustack at known points
 * of known call chains and checks the stack symbol by symbol, up to main:
 *
 *   leaf     main > chain_a > lib_ustack_mid (a linked library) > chain_c > leaf
 *   fork     the same in a child forked without exec, which inherits the
 *            sections
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
 *            by that section's SFrame
 *
 * The leaf reads the file with its own system call instruction, so the
 * first frame is this program's code, not glibc's (which has no SFrame).
 * Built -O2 -fomit-frame-pointer.  With --no-sframe (the same sources
 * built without SFrame) nothing is checked but that frame pointers were
 * the only method; it prints how many of each chain's frames they found.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_syscall.h"
#include "sframe_jit.h"
#include "sframe_test.h"

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
static struct ustack ustack_got;
static bool ustack_no_sframe;

/* The leaf: one system call, no frame of its own on most arches. */
__attribute__((noinline)) long ustack_leaf(void)
{
	return sf_syscall4(SYS_pread64, ustack_fd, (long)ustack_got.text,
			       sizeof(ustack_got.text) - 1, 0);
}

SF_CHAIN_FN(ustack_chain_c, (void), ustack_leaf())

SF_CHAIN_FN(ustack_chain_a, (void), lib_ustack_mid(ustack_chain_c))

SF_CHAIN_FN(ustack_dl_a, (ustack_mid mid), mid(ustack_chain_c))

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
	0x03, 0x00, 0x80, 0xd2,		/* mov x3, #0 */
	0x68, 0x08, 0x80, 0xd2,		/* mov x8, #__NR_pread64 */
	0x01, 0x00, 0x00, 0xd4,		/* svc #0 */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
#elif defined(__s390x__)
	0xa7, 0x59, 0x00, 0x00,		/* lghi %r5, 0 */
	0x0a, 0xb4,			/* svc __NR_pread64 */
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

static void ustack_jit(void)
{
	size_t page = sf_page_size(), len;
	struct sframe_registration reg;
	unsigned char *text, *sframe;
	const struct ustack *u = &ustack_got;

	text = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(text != MAP_FAILED, "mmap"))
		return;
	sframe = text + page;
	memcpy(text, ustack_jit_code, sizeof(ustack_jit_code));
	__builtin___clear_cache((char *)text, (char *)text + sizeof(ustack_jit_code));
	len = sf_jit_build(sframe, SFRAME_VERSION_3, (unsigned long)text,
			   sizeof(ustack_jit_code));
	if (!SF_CHECK(!mprotect(text, page, PROT_READ | PROT_EXEC), "mprotect"))
		return;
	sf_jit_reg(&reg, sframe, len, (unsigned long)text, sizeof(ustack_jit_code));
	if (!SF_CHECK(!sf_jit_register(&reg), "PR_SFRAME_REGISTER"))
		return;

	memset(&ustack_got, 0, sizeof(ustack_got));
	ustack_take_result(ustack_jit_caller((ustack_jit_fn)text));
	if (SF_CHECK(u->n >= 3, "jit: %d frames", u->n) &&
	    SF_CHECK(u->ip[0] >= (unsigned long)text &&
		     u->ip[0] < (unsigned long)text + sizeof(ustack_jit_code),
		     "jit: first frame %#lx is not the JIT code", u->ip[0]) &&
	    SF_CHECK(!strcmp(ustack_sym(u->ip[1]), "ustack_jit_caller") &&
		     !strcmp(u->method[1], "sframe"),
		     "jit: frame 1 is %s by %s", ustack_sym(u->ip[1]), u->method[1]) &&
	    SF_CHECK(!strcmp(ustack_sym(u->ip[2]), "main"),
		     "jit: frame 2 is %s", ustack_sym(u->ip[2])))
		sf_note("jit: code registered with PR_SFRAME_REGISTER, to main");
	else
		ustack_show(u);
	SF_CHECK(!sf_jit_unregister((unsigned long)text), "PR_SFRAME_UNREGISTER");
	munmap(text, 2 * page);
}

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
		/* The inherited file is the parent's: another process's stack. */
		SF_CHECK(ustack_leaf() < 0, "read the parent's ustack from a child");
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
