// SPDX-License-Identifier: GPL-2.0
/*
 * sf-step [--every N] [--bind-now] [--attach OBJECT SECTION]...
 *         [--attach-dir ELFDIR SFRAMEDIR]... [--name NAME] [--quiet]
 *         [--min-exact PCT] [--max-steps N] [--trace FROM TO]
 *         -- PROGRAM [ARG...]
 *
 * The instruction-level oracle.  PROGRAM runs under ptrace from its first
 * instruction (the dynamic loader's entry) to its exit, one instruction at
 * a time, while this program keeps the stack its calls truly made: a
 * shadow stack of the return addresses each call instruction left, and of
 * the interrupted PC and return address of each signal delivered to a
 * handler.  At every Nth instruction, and at the program's entry point, it
 * reads PROGRAM's /proc/<pid>/ustack (nobody profiles PROGRAM: the read
 * itself must bring in its SFrame) and judges the walk against the shadow
 * stack:
 *   exact  frame for frame the same;
 *   short  a strict prefix: the walk stopped early;
 *   wrong  a frame differs, or there are frames past the truth.
 * A wrong stack is what a profiler would show as a real call path: the
 * test fails on the first one, and prints each (up to a bound) with the
 * object and offset of every frame.
 *
 * The shadow stack, per arch:
 *  - x86_64: a call pushed its return address; the entry goes once the
 *    stack pointer is above the slot it was pushed to, which covers ret,
 *    longjmp and every unwinding.
 *  - arm64 (BL, BLR, BLRAA...) and s390x (BRASL, BRAS, BASR with %r14):
 *    the call put its return address in the link register; the entry goes
 *    at the return to it with the stack pointer the call had, or once the
 *    stack pointer is above the caller's.
 *  - A signal delivered to a handler adds the interrupted PC and the
 *    handler's return address (the restorer); rt_sigreturn takes both.
 * Instructions between a stack switch that is not a return (longjmp's
 * move to the saved stack pointer) and the jump that follows it cannot be
 * judged: the truth and the code's own CFI disagree by design.  They are
 * counted and left out, by that rule alone.
 *
 * --attach OBJECT SECTION attaches SECTION, made by sframe-gen --raw
 * --addr SF_STEP_SECTION_VADDR, to the object this program has loaded
 * whose file name is OBJECT (libc.so.6, the loader) before PROGRAM starts,
 * and detaches it at the end: Debian's libraries have no SFrame of their
 * own.  --attach-dir ELFDIR SFRAMEDIR does so for each NAME.sframe in
 * SFRAMEDIR and the file ELFDIR/NAME, loaded here or not (a Debian
 * program and its libraries, run through their own loader).  --bind-now
 * runs PROGRAM with LD_BIND_NOW=1 (Debian's default is lazy binding).
 * --name names PROGRAM in the figures (one run through its loader).
 * --min-exact PCT fails a run with fewer exact stacks; --max-steps N
 * ends one after N instructions, saying where it was.  --trace FROM TO
 * prints each step numbered FROM to TO: the instruction (object+offset
 * and bytes), where it went, SP and the link register after it, whether
 * a breakpoint made the stop (s390x), the shadow stack's depth, and each
 * entry it pushed or popped; the numbers are those of "WRONG at step N".
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/sframe.h>

#include "sf_harness.h"
#include "sframe_test.h"

#ifndef PR_SFRAME_ATTACH
#define PR_SFRAME_ATTACH	0x53460003
#define PR_SFRAME_DETACH	0x53460004
#endif

/*
 * A named failure, not the walker's: GNU ld 2.47 writes x86_64 .plt.got
 * SFrame wrong (see st_in_pltgot()); the project's own 2.47 is patched.
 * Counted apart, printed, and bounded at 0.5% of the stacks judged.
 */
#if defined(__x86_64__)
#define SF_STEP_PLTGOT_KNOWN	1
#else
#define SF_STEP_PLTGOT_KNOWN	0
#endif

/* Where sframe-gen --raw --addr put the sections given to --attach */
#define SF_STEP_SECTION_VADDR	0xfffffff000000000UL

#define ST_MAX_FRAMES	256
#define ST_MAX_ATTACH	32
#define ST_MAX_SHOWN_WRONG	20
#define ST_MAX_SHOWN_SHORT	3
/* Every place is printed, for tools/testing/sframe/why-short to explain */
#define ST_MAX_STOPS	512
#define ST_MAX_OBJECTS	32
/* No instruction is longer than this (x86), none shorter than 2 (s390x) */
#define ST_INSN_MAX	16
#define ST_PROGRESS_STEPS	250000

struct st_regs {
	unsigned long pc, sp, lr, sysno;
};

enum st_kind { ST_CALL, ST_SIGNAL };

struct st_entry {
	unsigned long	ra;
	/* x86_64: the slot of the return address; else SP at the call */
	unsigned long	key;
	enum st_kind	kind;
};

struct st_stack {
	unsigned int	n;
	struct st_entry	e[ST_MAX_FRAMES];
};

struct st_object {
	char		name[128];
	unsigned long	samples, exact, shortened, wrong;
};

/*
 * Where short walks stopped: the last frame walked, as object+offset, and
 * whether it was the topmost one (its PC) or a return address (its call
 * site is what a lookup asks about).
 */
struct st_stop {
	char		where[128];
	bool		topmost;
	/* the frame the walk missed, as the calls left it */
	char		caller[128];
	unsigned long	count;
};

static struct {
	unsigned long	steps, samples, exact, shortened, wrong, unjudged;
	/* the program's entry point (AT_ENTRY), judged whatever the stride */
	unsigned long	entry, entry_judged;
	unsigned long	pltgot, pltgot_wrong;
	/* s390x: stops made by a breakpoint after a branch */
	unsigned long	branch_stops;
	/* arm64: exclusive sequences run at full speed */
	unsigned long	exclusive_runs;
	unsigned long	truth_frames, got_frames;
	unsigned int	shown_wrong, shown_short;
	struct st_object obj[ST_MAX_OBJECTS];
	unsigned int	nobj;
	struct st_stop	stop[ST_MAX_STOPS];
	unsigned int	nstop;
} st;

static bool st_quiet;
static unsigned long st_max_steps;
/* --trace FROM TO; the breakpoint that made the last stop, or 0 (s390x) */
static bool st_tracing;
static unsigned long st_trace_from, st_trace_to;
static unsigned long st_last_hit;
static double st_min_exact;

static long st_peek(pid_t pid, unsigned long addr, bool *ok)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKDATA, pid, (void *)addr, NULL);
	if (errno)
		*ok = false;
	return v;
}

/* @len bytes of @pid's memory at @addr; false if any word is unreadable */
static bool st_read(pid_t pid, unsigned long addr, void *dst, size_t len)
{
	unsigned char *d = dst;
	bool ok = true;
	size_t i;

	for (i = 0; i < len && ok; i += sizeof(long)) {
		long w = st_peek(pid, addr + i, &ok);

		memcpy(d + i, &w, len - i < sizeof(long) ? len - i : sizeof(long));
	}
	return ok;
}

#if defined(__x86_64__)
static bool st_get_regs(pid_t pid, struct st_regs *r)
{
	struct user_regs_struct u;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &u))
		return false;
	r->pc = u.rip;
	r->sp = u.rsp;
	r->lr = 0;
	r->sysno = u.rax;
	return true;
}

/* ret, repz ret, bnd ret, ret imm16 */
static bool st_insn_ret(const unsigned char *c)
{
	return c[0] == 0xc3 || c[0] == 0xc2 ||
	       ((c[0] == 0xf3 || c[0] == 0xf2) && c[1] == 0xc3);
}

static bool st_insn_sigreturn(const unsigned char *c, const struct st_regs *o)
{
	return c[0] == 0x0f && c[1] == 0x05 && o->sysno == 15;
}

/*
 * A call pushed its return address: the stack pointer went down a word
 * and that word is an address just past the instruction, and the PC
 * moved elsewhere (a push of the next PC, as a call to the next
 * instruction leaves, does not start a frame).
 */
static bool st_called(pid_t pid, const unsigned char *c, const struct st_regs *o,
		      const struct st_regs *n, struct st_entry *e)
{
	bool ok = true;
	unsigned long ra;

	(void)c;
	if (n->sp != o->sp - 8)
		return false;
	ra = st_peek(pid, n->sp, &ok);
	if (!ok || ra <= o->pc || ra - o->pc > ST_INSN_MAX || n->pc == ra)
		return false;
	e->ra = ra;
	e->key = n->sp;
	return true;
}

static bool st_dropped(const struct st_entry *e, const struct st_regs *n)
{
	return n->sp > e->key;
}

/* The handler's first instruction: its return address at SP, above it the frame */
static void st_signal_entries(pid_t pid, const struct st_regs *o,
			      const struct st_regs *n, struct st_entry *sig,
			      struct st_entry *ret)
{
	bool ok = true;

	sig->ra = o->pc;
	sig->key = n->sp + 8;
	ret->ra = st_peek(pid, n->sp, &ok);
	ret->key = n->sp;
}

static bool st_control_moved(const struct st_regs *o, const struct st_regs *n)
{
	return n->pc <= o->pc || n->pc - o->pc > ST_INSN_MAX;
}

#elif defined(__aarch64__) || defined(__s390x__)

/*
 * Breakpoints, for what single steps get wrong: an illegal instruction
 * the kernel reports as SIGTRAP (TRAP_BRKPT) at its address.  arm64's BRK
 * leaves the PC there; s390x's (S390_BREAKPOINT_U16) past its two bytes.
 */
#if defined(__aarch64__)
static const unsigned char st_breakpoint[4] = { 0x00, 0x00, 0x20, 0xd4 };	/* BRK #0 */
#else
static const unsigned char st_breakpoint[2] = { 0x00, 0x01 };
#endif

struct st_bp {
	unsigned long	addr, word_at;
	long		word;
	bool		armed;
};

/* Never across a word: instructions are aligned to their breakpoint's size */
static void st_bp_arm(pid_t pid, struct st_bp *bp, unsigned long addr)
{
	bool ok = true;
	long armed;

	bp->addr = addr;
	bp->word_at = addr & ~(sizeof(long) - 1);
	bp->word = st_peek(pid, bp->word_at, &ok);
	armed = bp->word;
	memcpy((char *)&armed + (addr - bp->word_at), st_breakpoint, sizeof(st_breakpoint));
	bp->armed = ok && !ptrace(PTRACE_POKETEXT, pid, (void *)bp->word_at, (void *)armed);
}

static bool st_bp_disarm(pid_t pid, struct st_bp *bp)
{
	return !bp->armed || !ptrace(PTRACE_POKETEXT, pid, (void *)bp->word_at,
				     (void *)bp->word);
}

/* Put back, last armed first (two may share a word): where did it stop? */
static bool st_bp_disarm_all(pid_t pid, struct st_bp *bp, unsigned int n,
			     const int *status, unsigned long *hit)
{
	bool ok = true;
	siginfo_t si;
	unsigned int i;

	*hit = 0;
	for (i = n; i-- > 0;)
		ok &= st_bp_disarm(pid, &bp[i]);
	if (!ok || WSTOPSIG(*status) != SIGTRAP ||
	    ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) || si.si_code != TRAP_BRKPT)
		return ok;
	for (i = 0; i < n; i++)
		if (bp[i].armed && (unsigned long)si.si_addr == bp[i].addr)
			*hit = bp[i].addr;
	return ok;
}

#if defined(__aarch64__)
static bool st_get_regs(pid_t pid, struct st_regs *r)
{
	struct user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return false;
	r->pc = u.pc;
	r->sp = u.sp;
	r->lr = u.regs[30];
	r->sysno = u.regs[8];
	return true;
}

static uint32_t st_insn32(const unsigned char *c)
{
	uint32_t i;

	memcpy(&i, c, sizeof(i));
	return i;
}

/* RET, RETAA, RETAB */
static bool st_insn_ret(const unsigned char *c)
{
	uint32_t i = st_insn32(c);

	return (i & 0xfffffc1f) == 0xd65f0000 || i == 0xd65f0bff || i == 0xd65f0fff;
}

static bool st_insn_sigreturn(const unsigned char *c, const struct st_regs *o)
{
	return st_insn32(c) == 0xd4000001 && o->sysno == 139;
}

/* BL, BLR and the pointer-authenticating BLRAA/BLRAB(Z): length 4 */
static unsigned int st_call_len(const unsigned char *c)
{
	uint32_t i = st_insn32(c);

	if ((i & 0xfc000000) == 0x94000000 || (i & 0xfffffc1f) == 0xd63f0000 ||
	    (i & 0xfefff800) == 0xd63f0800)
		return 4;
	return 0;
}

/* The exclusive loads and stores (LDXR, LDAXR, LDXP... STXR, STLXR...) */
static bool st_insn_load_exclusive(uint32_t i)
{
	return (i & 0x3fc00000) == 0x08400000;
}

static bool st_insn_store_exclusive(uint32_t i)
{
	return (i & 0x3fc00000) == 0x08000000;
}

/* Where B.cond, CBZ/CBNZ or TBZ/TBNZ at @pc may go, or 0 */
static unsigned long st_cond_branch_target(uint32_t i, unsigned long pc)
{
	if ((i & 0xff000010) == 0x54000000 || (i & 0x7e000000) == 0x34000000)
		return pc + ((long)((int32_t)(i << 8) >> 13) << 2);
	if ((i & 0x7e000000) == 0x36000000)
		return pc + ((long)((int32_t)(i << 13) >> 18) << 2);
	return 0;
}

#define ST_EXCLUSIVE_MAX	16

/*
 * An exclusive load and the exclusive store that ends its sequence (a
 * compare-and-swap or atomic add of outline atomics, when the CPU has
 * no LSE or before the program knows it) cannot be single-stepped: the
 * step's exception clears the exclusive monitor, the store always fails
 * and the loop never ends.  Such a sequence runs at full speed to a
 * breakpoint after its store, or at a branch out of it; it makes no
 * call.  False when @code starts no such sequence.
 */
static bool st_step_exclusive(pid_t pid, const struct st_regs *o,
			      const unsigned char *code, int *status, bool *ok)
{
	unsigned char seq[ST_EXCLUSIVE_MAX * 4];
	struct st_bp bp[4] = {};
	unsigned int n = 0, k;
	unsigned long hit, to;

	if (!st_insn_load_exclusive(st_insn32(code)) || !st_read(pid, o->pc, seq, sizeof(seq)))
		return false;
	for (k = 1; k < ST_EXCLUSIVE_MAX; k++) {
		uint32_t i = st_insn32(seq + 4 * k);

		to = st_cond_branch_target(i, o->pc + 4 * k);
		if (to && (to < o->pc || to > o->pc + 4 * k) && n < ARRAY_SIZE(bp) - 1)
			st_bp_arm(pid, &bp[n++], to);
		if (st_insn_store_exclusive(i))
			break;
	}
	if (k == ST_EXCLUSIVE_MAX) {
		while (n--)
			st_bp_disarm(pid, &bp[n]);
		return false;
	}
	st_bp_arm(pid, &bp[n++], o->pc + 4 * (k + 1));
	*ok = !ptrace(PTRACE_CONT, pid, NULL, NULL) && waitpid(pid, status, 0) == pid;
	if (*ok && WIFSTOPPED(*status)) {
		*ok = st_bp_disarm_all(pid, bp, n, status, &hit);
		if (hit)
			st.exclusive_runs++;
	}
	return true;
}

static bool st_singlestep(pid_t pid, int sig, const struct st_regs *o,
			  const unsigned char *code, int *status)
{
	bool ok;

	if (!sig && st_step_exclusive(pid, o, code, status, &ok))
		return ok;
	return !ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig) &&
	       waitpid(pid, status, 0) == pid;
}
#else
static bool st_get_regs(pid_t pid, struct st_regs *r)
{
	/* NT_PRSTATUS gives its leading psw, gprs, acrs and orig_gpr2 */
	struct _user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return false;
	r->pc = u.psw.addr;
	r->sp = u.gprs[15];
	r->lr = u.gprs[14];
	r->sysno = u.gprs[1];
	return true;
}

/* BR %r14 */
static bool st_insn_ret(const unsigned char *c)
{
	return c[0] == 0x07 && c[1] == 0xfe;
}

/* rt_sigreturn (173) or sigreturn (119): SVC n, or SVC 0 with n in %r1 */
static bool st_insn_sigreturn(const unsigned char *c, const struct st_regs *o)
{
	unsigned long nr = c[1] ? c[1] : o->sysno;

	return c[0] == 0x0a && (nr == 173 || nr == 119);
}

/* BRASL, BRAS and BASR that link in %r14: their lengths */
static unsigned int st_call_len(const unsigned char *c)
{
	if (c[0] == 0xc0 && c[1] == 0xe5)
		return 6;
	if (c[0] == 0xa7 && c[1] == 0xe5)
		return 4;
	if (c[0] == 0x0d && (c[1] >> 4) == 14 && (c[1] & 15))
		return 2;
	return 0;
}
#endif

/*
 * A call put its return address in the link register and went elsewhere.
 * Not a stop that left the PC where it was: that ran nothing (s390x stops
 * once more, at once, after each breakpoint of st_singlestep()), and the
 * link register may hold this very return address still, from the same
 * call's last turn (arm64's RET leaves it, s390x's LMG puts it back), so
 * a call that has not run would be pushed, and again when it runs.
 */
static bool st_called(pid_t pid, const unsigned char *c, const struct st_regs *o,
		      const struct st_regs *n, struct st_entry *e)
{
	unsigned int len = st_call_len(c);

	(void)pid;
	if (!len || n->lr != o->pc + len || n->pc == o->pc + len || n->pc == o->pc)
		return false;
	e->ra = o->pc + len;
	e->key = o->sp;
	return true;
}

static bool st_dropped(const struct st_entry *e, const struct st_regs *n)
{
	return n->sp > e->key || (n->pc == e->ra && n->sp == e->key);
}

/* The handler's first instruction: its return address in the link register */
static void st_signal_entries(pid_t pid, const struct st_regs *o,
			      const struct st_regs *n, struct st_entry *sig,
			      struct st_entry *ret)
{
	(void)pid;
	sig->ra = o->pc;
	sig->key = n->sp;
	ret->ra = n->lr;
	ret->key = n->sp;
}

static bool st_control_moved(const struct st_regs *o, const struct st_regs *n)
{
	return n->pc <= o->pc || n->pc - o->pc > 6;
}

#if defined(__s390x__)
/*
 * The target of a branch, or 0: the relative ones (BRC, BRAS, BRCT(G),
 * BRCL, BRASL, BRCTH, BRXH(G), BRXLE, BRXLG, the compare-and-branch
 * family; each keeps its halfword offset at byte 2), and those to a
 * register or an RX address (BCR, BASR, BCTR, BC, BAS, BCT).
 */
static unsigned long st_branch_target(pid_t pid, const unsigned char *c, unsigned long pc)
{
	long off16 = (int16_t)(c[2] << 8 | c[3]);
	long off32 = (int32_t)((uint32_t)c[2] << 24 | c[3] << 16 | c[4] << 8 | c[5]);
	unsigned int x = c[1] & 15, b = c[2] >> 4;
	struct _user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };

	switch (c[0]) {
	case 0xa7:
		return x >= 4 && x <= 7 ? pc + 2 * off16 : 0;
	case 0xc0:
		return x == 4 || x == 5 ? pc + 2 * off32 : 0;
	case 0xcc:
		return x == 6 ? pc + 2 * off32 : 0;
	case 0x84:
	case 0x85:
		return pc + 2 * off16;
	case 0xec:
		switch (c[5]) {
		case 0x44: case 0x45: case 0x64: case 0x65: case 0x76:
		case 0x77: case 0x7c: case 0x7d: case 0x7e: case 0x7f:
			return pc + 2 * off16;
		}
		return 0;
	case 0x06:
	case 0x07:
	case 0x0d:
	case 0x46:
	case 0x47:
	case 0x4d:
		break;
	default:
		return 0;
	}
	/* BCR and BC with mask 0 never branch (NOPR, NOP) */
	if ((c[0] == 0x07 || c[0] == 0x47) && !(c[1] >> 4))
		return 0;
	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return 0;
	if (c[0] < 0x40)	/* RR: to the second register; none when it is 0 */
		return x ? u.gprs[x] : 0;
	return ((c[2] & 15) << 8 | c[3]) + (x ? u.gprs[x] : 0) + (b ? u.gprs[b] : 0);
}

static bool st_set_pc(pid_t pid, unsigned long pc)
{
	struct _user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return false;
	u.psw.addr = pc;
	return !ptrace(PTRACE_SETREGSET, pid, (void *)NT_PRSTATUS, &iov);
}

static unsigned int st_insn_len(const unsigned char *c)
{
	return (c[0] >> 6) == 0 ? 2 : (c[0] >> 6) == 3 ? 6 : 4;
}

/*
 * One step.  QEMU 10's TCG misses the single-step event after some
 * branches (at the target of a taken relative or conditional one, and
 * after a conditional one not taken): the next instruction runs too,
 * unseen, and so does a chain of such branches.  Breakpoints at a
 * branch's target and at the instruction after it make it stop there
 * (where QEMU stops by itself, none is reached); the PC a breakpoint's
 * trap leaves past it is put back.  The step after such a trap stops at
 * once, having run nothing (--trace shows it after every one): the PC
 * stays, which st_called() knows is no call.  A branch to itself keeps
 * no breakpoint there: it would hit before the branch ran, and what it
 * skips (another turn of a counting loop) is no call.
 */
static bool st_singlestep(pid_t pid, int sig, const struct st_regs *o,
			  const unsigned char *code, int *status)
{
	unsigned long target = st_branch_target(pid, code, o->pc);
	unsigned long next = o->pc + st_insn_len(code);
	struct st_bp bp[2] = {};
	unsigned int n = 0;
	unsigned long hit;

	st_last_hit = 0;
	if (target) {
		st_bp_arm(pid, &bp[n++], next);
		if (target != o->pc && target != next)
			st_bp_arm(pid, &bp[n++], target);
	}
	if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig) ||
	    waitpid(pid, status, 0) != pid)
		return false;
	if (!n || !WIFSTOPPED(*status))
		return true;
	if (!st_bp_disarm_all(pid, bp, n, status, &hit))
		return false;
	st_last_hit = hit;
	if (hit) {
		st.branch_stops++;
		return st_set_pc(pid, hit);
	}
	return true;
}
#endif
#else
#error "sf-step: no shadow stack for this architecture"
#endif

#if defined(__x86_64__)
static bool st_singlestep(pid_t pid, int sig, const struct st_regs *o,
			  const unsigned char *code, int *status)
{
	(void)o;
	(void)code;
	return !ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig) &&
	       waitpid(pid, status, 0) == pid;
}
#endif

static void st_push(struct st_stack *s, const struct st_entry *e, enum st_kind kind)
{
	if (s->n == ST_MAX_FRAMES) {
		sf_fail("the shadow stack is deeper than %d frames", ST_MAX_FRAMES);
		sf_exit();
	}
	s->e[s->n] = *e;
	s->e[s->n++].kind = kind;
}

/* The object and offset of @addr in @pid, from its maps */
static void st_where(pid_t pid, unsigned long addr, char *out, size_t len)
{
	unsigned long start, end, off;
	char path[64], line[512], name[256];
	FILE *f;

	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end, &off,
			   name) < 3 || addr < start || addr >= end)
			continue;
		snprintf(out, len, "%s+0x%lx", *name ? basename(name) : "anon",
			 addr - start + off);
		break;
	}
	if (f)
		fclose(f);
}

static struct st_object *st_object_of(pid_t pid, unsigned long pc)
{
	char where[128], *plus;
	unsigned int i;

	st_where(pid, pc, where, sizeof(where));
	plus = strrchr(where, '+');
	if (plus)
		*plus = '\0';
	for (i = 0; i < st.nobj; i++)
		if (!strcmp(st.obj[i].name, where))
			return &st.obj[i];
	if (st.nobj == ST_MAX_OBJECTS)
		return &st.obj[ST_MAX_OBJECTS - 1];
	snprintf(st.obj[st.nobj].name, sizeof(st.obj[0].name), "%s", where);
	return &st.obj[st.nobj++];
}

/*
 * Is @addr in the .plt.got section of the file @pid has mapped there?
 * Told by the file's section headers: GNU ld 2.47 writes SFrame for x86_64
 * .plt.got entries with CFA = SP + 16, where the call left SP + 8.
 */
static bool st_in_pltgot(pid_t pid, unsigned long addr)
{
	unsigned long start, end, off, foff;
	char path[64], line[512], name[256];
	bool found = false, in = false;
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strtab;
	char sname[16];
	FILE *f;
	int fd = -1, i;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end, &off,
			   name) == 4 && addr >= start && addr < end && name[0] == '/') {
			found = true;
			break;
		}
	}
	if (f)
		fclose(f);
	if (found)
		fd = open(name, O_RDONLY);
	if (fd < 0)
		return false;
	foff = addr - start + off;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && eh.e_shstrndx < eh.e_shnum &&
	    pread(fd, &strtab, sizeof(strtab), eh.e_shoff + eh.e_shstrndx *
		  sizeof(strtab)) == sizeof(strtab)) {
		for (i = 0; i < eh.e_shnum && !in; i++) {
			if (pread(fd, &sh, sizeof(sh), eh.e_shoff + i * sizeof(sh)) !=
			    sizeof(sh) ||
			    pread(fd, sname, sizeof(sname), strtab.sh_offset + sh.sh_name) !=
			    sizeof(sname))
				continue;
			in = !strncmp(sname, ".plt.got", sizeof(".plt.got")) &&
			     foff >= sh.sh_offset && foff - sh.sh_offset < sh.sh_size;
		}
	}
	close(fd);
	return in;
}

/* The walk of @pid's stack as /proc/<pid>/ustack shows it */
static int st_ustack(int fd, unsigned long *ip, char method[][8])
{
	static char text[ST_MAX_FRAMES * 32];
	char *line, *save;
	ssize_t len;
	int n = 0;

	len = pread(fd, text, sizeof(text) - 1, 0);
	if (len < 0)
		return -errno;
	text[len] = '\0';
	for (line = strtok_r(text, "\n", &save); line && n < ST_MAX_FRAMES;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lx %7s", &ip[n], method[n]) != 2)
			return -EINVAL;
		n++;
	}
	return n;
}

static void st_show(pid_t pid, const char *verdict, const unsigned long *truth,
		    unsigned int nt, const unsigned long *got, char method[][8],
		    unsigned int ng)
{
	bool is_short = verdict[0] == 's';
	unsigned int *shown = is_short ? &st.shown_short : &st.shown_wrong;
	char where[128];
	unsigned int i;

	if ((*shown)++ >= (is_short ? ST_MAX_SHOWN_SHORT : ST_MAX_SHOWN_WRONG))
		return;
	printf("# %s at step %lu: %u frames true, %u walked\n", verdict, st.steps, nt, ng);
	for (i = 0; i < nt || i < ng; i++) {
		st_where(pid, i < nt && (i >= ng || got[i] == truth[i]) ? truth[i] : got[i],
			 where, sizeof(where));
		printf("#   %2u true 0x%-14lx walked 0x%-14lx %-6s %s%s\n", i,
		       i < nt ? truth[i] : 0, i < ng ? got[i] : 0,
		       i < ng ? method[i] : "-", where,
		       i < nt && i < ng && truth[i] != got[i] ? "  <--" : "");
	}
}

static void st_count_stop(pid_t pid, unsigned long ip, bool topmost, unsigned long caller)
{
	char where[128], at[128];
	unsigned int i;

	st_where(pid, ip, where, sizeof(where));
	st_where(pid, caller, at, sizeof(at));
	for (i = 0; i < st.nstop; i++)
		if (st.stop[i].topmost == topmost && !strcmp(st.stop[i].where, where) &&
		    !strcmp(st.stop[i].caller, at))
			break;
	if (i == st.nstop) {
		/* The last slot takes whatever does not fit, and says so */
		if (st.nstop == ST_MAX_STOPS) {
			i = ST_MAX_STOPS - 1;
			snprintf(where, sizeof(where), "places past the first %u", i);
		}
		snprintf(st.stop[i].where, sizeof(where), "%s", where);
		snprintf(st.stop[i].caller, sizeof(at), "%s", at);
		st.stop[i].topmost = topmost;
		st.nstop += st.nstop < ST_MAX_STOPS;
	}
	st.stop[i].count++;
}

/* One sample: the shadow stack against the walk */
static void st_judge(pid_t pid, int fd, const struct st_regs *r, const struct st_stack *s)
{
	static unsigned long truth[ST_MAX_FRAMES + 1], got[ST_MAX_FRAMES];
	static char method[ST_MAX_FRAMES][8];
	struct st_object *obj;
	unsigned int nt = 0, i;
	int ng;

	truth[nt++] = r->pc;
	for (i = s->n; i-- > 0 && nt < ST_MAX_FRAMES;)
		truth[nt++] = s->e[i].ra;
	ng = st_ustack(fd, got, method);
	if (!SF_CHECK(ng > 0, "reading the stack at step %lu: %s", st.steps,
		      ng ? strerror(-ng) : "empty"))
		sf_exit();

	st.samples++;
	st.entry_judged += r->pc == st.entry;
	if (SF_STEP_PLTGOT_KNOWN && st_in_pltgot(pid, r->pc))
		st.pltgot++;
	st.truth_frames += nt;
	st.got_frames += ng;
	obj = st_object_of(pid, r->pc);
	obj->samples++;
	for (i = 0; i < (unsigned int)ng && i < nt; i++)
		if (got[i] != truth[i])
			break;
	if (i == nt && (unsigned int)ng == nt) {
		st.exact++;
		obj->exact++;
	} else if (i == (unsigned int)ng) {
		st.shortened++;
		obj->shortened++;
		st_count_stop(pid, got[ng - 1], ng == 1, truth[ng]);
		if (!st_quiet)
			st_show(pid, "short", truth, nt, got, method, ng);
	} else if (SF_STEP_PLTGOT_KNOWN && st_in_pltgot(pid, r->pc)) {
		st.pltgot_wrong++;
		obj->wrong++;
	} else {
		st.wrong++;
		obj->wrong++;
		st_show(pid, "WRONG", truth, nt, got, method, ng);
	}
}

/* Does @pid catch @sig with a handler?  From /proc/<pid>/status */
static bool st_caught(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	if (f)
		fclose(f);
	return sig > 0 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

/*
 * Where calls returned to, with the stack pointer they returned with.
 * longjmp() returns from setjmp() a second time, which the stack pointer
 * alone does not show where the link register holds return addresses:
 * setjmp()'s caller called step_jump() with the same SP that longjmp()
 * restores.  Landing on a place a call returned to, with the SP it
 * returned with, by any jump but a return, puts the walk back in that
 * frame: every call made from it, or deeper, is over.
 */
#define ST_RETURNS	4096

static struct {
	unsigned long	pc, sp;
} st_returns[ST_RETURNS];
static unsigned int st_nreturns;

static void st_returned(const struct st_regs *n)
{
	unsigned int i;

	for (i = 0; i < st_nreturns && i < ST_RETURNS; i++)
		if (st_returns[i].pc == n->pc && st_returns[i].sp == n->sp)
			return;
	st_returns[st_nreturns++ % ST_RETURNS].pc = n->pc;
	st_returns[(st_nreturns - 1) % ST_RETURNS].sp = n->sp;
}

static bool st_returns_again(const struct st_regs *n)
{
	unsigned int i;

	for (i = 0; i < st_nreturns && i < ST_RETURNS; i++)
		if (st_returns[i].pc == n->pc && st_returns[i].sp == n->sp)
			return true;
	return false;
}

/* Lines of /proc/<pid>/sframe, and how many of them are attachments */
static int st_sections(pid_t pid, int *attached)
{
	char path[64], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sframe", pid);
	f = fopen(path, "r");
	*attached = 0;
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		*attached += !!strstr(line, "[attached]");
	}
	if (f)
		fclose(f);
	return f ? n : -1;
}

/* Executable mappings of files, and the vDSO: each has a section here */
static int st_code_mappings(pid_t pid)
{
	char path[64], line[512], perms[8], name[256];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%*s %7s %*s %*s %*s %255s", perms, name) >= 1 &&
		    perms[2] == 'x' && (name[0] == '/' || !strcmp(name, "[vdso]")))
			n++;
	}
	if (f)
		fclose(f);
	return n;
}

/*
 * Nobody profiles the program: it has no section registered until the
 * first read of its stack, which registers one for each code mapping
 * (the program's own, the loader's attachment, the vDSO's) before it
 * walks.
 */
static void st_check_registered_by_read(pid_t pid, int fd, const struct st_regs *r,
					const struct st_stack *s)
{
	int before, after, attached, code = st_code_mappings(pid);

	before = st_sections(pid, &attached);
	SF_CHECK(before == 0, "%d sections registered before any walk", before);
	st_judge(pid, fd, r, s);
	after = st_sections(pid, &attached);
	SF_CHECK(after == code && code >= 2 && attached >= 1,
		 "%d sections (%d attached) registered by the first read of the stack, for %d code mappings",
		 after, attached, code);
}

/* --trace: the step just made, from @o to @n, and what it did to @s */
static void st_trace(pid_t pid, const struct st_regs *o, const unsigned char *code,
		     const struct st_regs *n, const struct st_stack *s, unsigned int before)
{
	char from[128], to[128], ra[128];
	unsigned int i, len = ST_INSN_MAX;

	if (!st_tracing || st.steps < st_trace_from || st.steps > st_trace_to)
		return;
#if defined(__s390x__)
	len = st_insn_len(code);
#elif defined(__aarch64__)
	len = 4;
#endif
	st_where(pid, o->pc, from, sizeof(from));
	st_where(pid, n->pc, to, sizeof(to));
	printf("# trace %lu: %s ", st.steps, from);
	for (i = 0; i < len; i++)
		printf("%02x", code[i]);
	printf(" -> %s sp %#lx lr %#lx%s depth %u\n", to, n->sp, n->lr,
	       st_last_hit ? " (breakpoint)" : "", s->n);
	for (i = s->n; i < before; i++) {
		st_where(pid, s->e[i].ra, ra, sizeof(ra));
		printf("# trace %lu:   pop %s key %#lx\n", st.steps, ra, s->e[i].key);
	}
	for (i = before; i < s->n; i++) {
		st_where(pid, s->e[i].ra, ra, sizeof(ra));
		printf("# trace %lu:   push %s key %#lx\n", st.steps, ra, s->e[i].key);
	}
}

/*
 * The program's entry point: its first instruction is a landing pad (BTI,
 * ENDBR64) before the CFI says the return address is undefined, the one
 * place a converter that follows the CFI row by row would give the
 * loader's leftover link register, or argc, as a caller.
 */
static unsigned long st_entry_point(pid_t pid)
{
	unsigned long av[2], entry = 0;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	while (read(fd, av, sizeof(av)) == sizeof(av) && av[0] != AT_NULL)
		if (av[0] == AT_ENTRY)
			entry = av[1];
	close(fd);
	return entry;
}

/* Runs @argv under single steps, judging every @every-th instruction */
static int st_run(char **argv, unsigned long every, bool bind_now)
{
	struct st_regs o, n;
	struct st_stack *s = calloc(1, sizeof(*s));
	unsigned char code[ST_INSN_MAX];
	bool switching = false, signalled;
	int status, fd = -1, sig = 0;
	unsigned int depth;
	char path[64];
	pid_t pid;

	pid = fork();
	if (!pid) {
		if (bind_now)
			setenv("LD_BIND_NOW", "1", 1);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[0], argv);
		_exit(127);
	}
	if (!SF_CHECK(pid > 0 && s, "fork") ||
	    !SF_CHECK(waitpid(pid, &status, 0) == pid && WIFSTOPPED(status) &&
		      WSTOPSIG(status) == SIGTRAP, "%s did not stop at exec", argv[0]))
		sf_exit();
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	st.entry = st_entry_point(pid);
	snprintf(path, sizeof(path), "/proc/%d/ustack", pid);
	fd = open(path, O_RDONLY);
	if (!SF_CHECK(fd >= 0, "%s: %s", path, strerror(errno)) ||
	    !SF_CHECK(st_get_regs(pid, &o), "registers"))
		sf_exit();

	for (;;) {
		struct st_entry e, ret;

		if (!st.steps)
			st_check_registered_by_read(pid, fd, &o, s);
		else if (!switching && (st.steps % every == 0 || o.pc == st.entry))
			st_judge(pid, fd, &o, s);
		else if (switching && st.steps % every == 0)
			st.unjudged++;
		if (!st_read(pid, o.pc, code, sizeof(code)))
			memset(code, 0, sizeof(code));
		signalled = sig && st_caught(pid, sig);
		if (!st_singlestep(pid, sig, &o, code, &status))
			break;
		sig = 0;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (WSTOPSIG(status) != SIGTRAP) {
			siginfo_t si;

			/*
			 * Delivered at the next step.  Where the signal came
			 * on a system call's way out, the call is done (s390x
			 * stops for it before the step's trap): the handler
			 * returns to the PC of this stop.
			 */
			sig = WSTOPSIG(status);
			if (!ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) && st_get_regs(pid, &n)) {
				printf("# step %lu: signal %d (code %d, address %p) at %#lx\n",
				       st.steps, sig, si.si_code, si.si_addr, n.pc);
				o = n;
			}
			continue;
		}
		if (!st_get_regs(pid, &n))
			break;
		/* Where a long run spends its time, for a test that runs out of it */
		if (++st.steps % ST_PROGRESS_STEPS == 0 || st.steps == st_max_steps) {
			char where[128];

			st_where(pid, n.pc, where, sizeof(where));
			printf("# %lu instructions, at %s\n", st.steps, where);
			fflush(stdout);
		}
		if (st.steps == st_max_steps) {
			sf_fail("stopped after %lu instructions (--max-steps)", st_max_steps);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		if (signalled) {
			/* Stopped at the handler's first instruction */
			st_signal_entries(pid, &o, &n, &e, &ret);
			st_push(s, &e, ST_SIGNAL);
			st_push(s, &ret, ST_CALL);
			o = n;
			continue;
		}
		depth = s->n;
		if (st_insn_sigreturn(code, &o)) {
			while (s->n && s->e[--s->n].kind != ST_SIGNAL)
				;
		} else if (st_called(pid, code, &o, &n, &e)) {
			st_push(s, &e, ST_CALL);
		} else {
			unsigned int before = s->n;
			bool ret = st_insn_ret(code);

			while (s->n && st_dropped(&s->e[s->n - 1], &n))
				s->n--;
			if (ret && s->n < before)
				st_returned(&n);
			else if (!ret && st_control_moved(&o, &n) && st_returns_again(&n))
				while (s->n && s->e[s->n - 1].key <= n.sp)
					s->n--;
			if (s->n < before && !ret)
				switching = !st_control_moved(&o, &n);
			else if (switching && st_control_moved(&o, &n))
				switching = false;
		}
		st_trace(pid, &o, code, &n, s, depth);
		o = n;
	}
	close(fd);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

struct st_attach {
	const char	*object, *section;
	int		elf_fd;
};

static struct st_attach st_attached[ST_MAX_ATTACH];
static unsigned int st_nattach;

/*
 * Attaches @a's section to the ELF file @path for the text at
 * [@text_vaddr, + @text_size), its first executable PT_LOAD.
 */
static void st_attach(struct st_attach *a, const char *path, unsigned long text_vaddr,
		      unsigned long text_size)
{
	struct sframe_attachment att = { .size = sizeof(att) };
	char copy[] = "/tmp/sf-step-XXXXXX";
	struct stat sb;
	int src, dst;
	ssize_t len;
	char buf[65536];

	/* The kernel takes a section only from a file only root may write */
	src = open(a->section, O_RDONLY);
	dst = mkstemp(copy);
	while (src >= 0 && dst >= 0 && (len = read(src, buf, sizeof(buf))) > 0)
		if (write(dst, buf, len) != len)
			break;
	if (src >= 0)
		close(src);
	if (!SF_CHECK(src >= 0 && dst >= 0 && !fchmod(dst, 0644) && !fstat(dst, &sb),
		      "%s: %s", a->section, strerror(errno)))
		return;
	unlink(copy);
	a->elf_fd = open(path, O_RDONLY);
	/* What a run killed before its end left attached */
	if (a->elf_fd >= 0)
		prctl(PR_SFRAME_DETACH, a->elf_fd, 0, 0, 0);
	att.elf_fd = a->elf_fd;
	att.sframe_fd = dst;
	att.sframe_size = sb.st_size;
	att.sframe_vaddr = SF_STEP_SECTION_VADDR;
	att.text_vaddr = text_vaddr;
	att.text_size = text_size;
	if (!SF_CHECK(a->elf_fd >= 0 && !prctl(PR_SFRAME_ATTACH, &att, 0, 0, 0),
		      "attaching %s to %s: %s", a->section, path, strerror(errno)))
		a->elf_fd = -1;
	close(dst);
}

/* The first executable PT_LOAD of @info, an object this program loaded */
static int st_attach_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	struct st_attach *a = data;
	const char *base = strrchr(info->dlpi_name, '/');
	int i;

	(void)size;
	if (!base || strcmp(base + 1, a->object) || a->elf_fd >= 0)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD &&
		    (info->dlpi_phdr[i].p_flags & PF_X))
			break;
	if (SF_CHECK(i < info->dlpi_phnum, "%s: no executable segment", a->object))
		st_attach(a, info->dlpi_name, info->dlpi_phdr[i].p_vaddr,
			  info->dlpi_phdr[i].p_memsz);
	return 1;
}

/* The same from the ELF file @a->object names, which nobody need have loaded */
static void st_attach_file(struct st_attach *a)
{
	int fd = open(a->object, O_RDONLY), i;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (!SF_CHECK(fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
		      !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
		      eh.e_ident[EI_CLASS] == ELFCLASS64, "%s: not a 64-bit ELF file", a->object))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			st_attach(a, a->object, ph.p_vaddr, ph.p_memsz);
			goto out;
		}
	}
	sf_fail("%s: no executable segment", a->object);
out:
	if (fd >= 0)
		close(fd);
}

/*
 * --attach-dir ELFDIR SFRAMEDIR: each NAME.sframe in SFRAMEDIR to the file
 * ELFDIR/NAME.  The names stay allocated for the detaching at the end.
 */
static void st_attach_dir(const char *elf_dir, const char *sframe_dir)
{
	struct dirent **names;
	int n, i;

	n = scandir(sframe_dir, &names, NULL, alphasort);
	if (!SF_CHECK(n >= 0, "%s: %s", sframe_dir, strerror(errno)))
		return;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		struct st_attach *a = &st_attached[st_nattach];
		char *object, *section;

		if (len <= 7 || strcmp(name + len - 7, ".sframe"))
			continue;
		if (!SF_CHECK(st_nattach < ST_MAX_ATTACH, "more than %d sections in %s",
			      ST_MAX_ATTACH, sframe_dir))
			break;
		if (asprintf(&object, "%s/%.*s", elf_dir, (int)(len - 7), name) < 0 ||
		    asprintf(&section, "%s/%s", sframe_dir, name) < 0)
			break;
		a->object = object;
		a->section = section;
		a->elf_fd = -1;
		st_nattach++;
		st_attach_file(a);
	}
	while (n-- > 0)
		free(names[n]);
	free(names);
}

/* The places most walks ended at first */
static int st_stop_cmp(const void *a, const void *b)
{
	const struct st_stop *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 :
	       strcmp(x->where, y->where);
}

/* Read by tools/figures (and the first by tools/testing/sframe/why-short) */
#define ST_FIGURES_NOTE	"%s%s: %lu instructions, %lu judged: %lu exact (%.3f%%), %lu short, %lu wrong; %lu left out in a stack switch"
#define ST_PLTGOT_NOTE	"KNOWN FAILURE: %lu of %lu stacks taken in .plt.got wrong (GNU ld 2.47 writes its SFrame with CFA = SP + 16, the call left SP + 8)"

static void st_print_figures(const char *prog, bool bind_now)
{
	unsigned int i;

	sf_note(ST_FIGURES_NOTE, prog, bind_now ? " (LD_BIND_NOW=1)" : "", st.steps, st.samples,
		st.exact, st.samples ? 100.0 * st.exact / st.samples : 0,
		st.shortened, st.wrong, st.unjudged);
	for (i = 0; i < st.nobj; i++)
		sf_note("  %-22s %6lu judged, %6lu exact, %5lu short, %3lu wrong",
			st.obj[i].name, st.obj[i].samples, st.obj[i].exact,
			st.obj[i].shortened, st.obj[i].wrong);
	qsort(st.stop, st.nstop, sizeof(st.stop[0]), st_stop_cmp);
	for (i = 0; i < st.nstop; i++)
		sf_note("  short: %5lu walks ended at %s (%s), the caller at %s",
			st.stop[i].count, st.stop[i].where,
			st.stop[i].topmost ? "pc" : "return address", st.stop[i].caller);
	if (st.pltgot_wrong)
		sf_note(ST_PLTGOT_NOTE, st.pltgot_wrong, st.pltgot);
}

/*
 * The tests, each as nobody profiles (the read must bring in the
 * SFrame): sf-step-prog from the loader's first instruction to its exit,
 * the C library and the loader given SFrame by attachment, lazily bound
 * and bound at once: at every 16th instruction, and at every instruction
 * (step_every*: some four times as long; a judgement costs more than a
 * step).  Some 110,000 (x86_64) to 250,000 (s390x) instructions: 30 to
 * 200 s under TCG at every 16th; s390x's, at every 4th, took 300 s alone.
 * The times are guards, not measures.
 *
 * s390x: Debian 12's QEMU (7.2) single-steps no branch: it sets the link
 * register of a BRASL and goes on at the next instruction, so ld64.so.1's
 * _start runs without _dl_start and faults on a GOT entry never
 * relocated.  The runner boots these under Debian 13's QEMU, which takes
 * every branch but misses the stop at the target of some (sf-step puts a
 * breakpoint there): the driver runs them only when named.
 */
#define ST_SECONDS		900
#define ST_LONG_SECONDS		2400
#if defined(__x86_64__)
#define ST_LDSO		"ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define ST_LDSO		"ld-linux-aarch64.so.1"
#else
#define ST_LDSO		"ld64.so.1"
#endif
#define ST_TEST(name, seconds, every, ...)					\
	SF_TEST_ARGS_IDLE(name, seconds,					\
			  SF_ARGS("sf-step-prog", "step-libc.sframe", "step-ld.sframe"), \
			  SF_ARGS("--every", every, "--min-exact", "90",		\
				  "--attach", "libc.so.6", "step-libc.sframe",	\
				  "--attach", ST_LDSO, "step-ld.sframe",	\
				  ##__VA_ARGS__, "--", "./sf-step-prog"))

ST_TEST(step, ST_SECONDS, "16")
ST_TEST(step_bind_now, ST_SECONDS, "16", "--bind-now")
ST_TEST(step_every, ST_LONG_SECONDS, "1")
ST_TEST(step_every_bind_now, ST_LONG_SECONDS, "1", "--bind-now")

/*
 * Debian's own programs: the program, its libraries and its loader
 * (tools/vm/guest-tool's directory DIR) each given SFrame by sframe-gen
 * --raw on the host (DIR-sframe/NAME.sframe) and attached; run through
 * that loader, lazily bound, judged at every 16th instruction (over a
 * million instructions).
 */
#define ST_DEBIAN_ARGS(elfdir, sframedir, title)				\
	"--every", "16", "--min-exact", "99", "--attach-dir", elfdir, sframedir,\
	"--name", title, "--"

SF_TEST_ARGS_IDLE(step_debian_sqlite3, ST_LONG_SECONDS,
		  SF_ARGS("debian-sqlite3", "debian-sqlite3-sframe"),
		  SF_ARGS(ST_DEBIAN_ARGS("debian-sqlite3", "debian-sqlite3-sframe",
					 "Debian's sqlite3"),
			  "debian-sqlite3/" ST_LDSO, "--library-path", "debian-sqlite3",
			  "debian-sqlite3/sqlite3", ":memory:",
			  "create table t(a); insert into t values (1); select * from t;"))
SF_TEST_ARGS_IDLE(step_debian_find, ST_LONG_SECONDS, SF_ARGS("findutils", "findutils-sframe"),
		  SF_ARGS(ST_DEBIAN_ARGS("findutils", "findutils-sframe", "Debian's find"),
			  "findutils/" ST_LDSO, "--library-path", "findutils", "findutils/find",
			  "findutils", "-name", "find"))

int main(int argc, char **argv)
{
	unsigned long every = 1;
	const char *name = NULL;
	bool bind_now = false;
	long t0;
	unsigned int i;
	int opt = 1, ret;

	sf_harness_enter(argc, argv);
	for (; opt < argc && strcmp(argv[opt], "--"); opt++) {
		if (!strcmp(argv[opt], "--every") && opt + 1 < argc) {
			every = strtoul(argv[++opt], NULL, 0);
		} else if (!strcmp(argv[opt], "--bind-now")) {
			bind_now = true;
		} else if (!strcmp(argv[opt], "--min-exact") && opt + 1 < argc) {
			st_min_exact = strtod(argv[++opt], NULL);
		} else if (!strcmp(argv[opt], "--max-steps") && opt + 1 < argc) {
			st_max_steps = strtoul(argv[++opt], NULL, 0);
		} else if (!strcmp(argv[opt], "--trace") && opt + 2 < argc) {
			st_tracing = true;
			st_trace_from = strtoul(argv[++opt], NULL, 0);
			st_trace_to = strtoul(argv[++opt], NULL, 0);
		} else if (!strcmp(argv[opt], "--name") && opt + 1 < argc) {
			name = argv[++opt];
		} else if (!strcmp(argv[opt], "--quiet")) {
			st_quiet = true;
		} else if (!strcmp(argv[opt], "--attach") && opt + 2 < argc &&
			   st_nattach < ST_MAX_ATTACH) {
			st_attached[st_nattach].object = argv[++opt];
			st_attached[st_nattach].section = argv[++opt];
			st_attached[st_nattach].elf_fd = -1;
			dl_iterate_phdr(st_attach_loaded, &st_attached[st_nattach]);
			SF_CHECK(st_attached[st_nattach].elf_fd >= 0, "%s: not attached",
				 st_attached[st_nattach].object);
			st_nattach++;
		} else if (!strcmp(argv[opt], "--attach-dir") && opt + 2 < argc) {
			st_attach_dir(argv[opt + 1], argv[opt + 2]);
			opt += 2;
		} else {
			break;
		}
	}
	if (opt + 1 >= argc || strcmp(argv[opt], "--") || !every) {
		fputs("usage: sf-step [--every N] [--bind-now] [--quiet]\n"
		      "               [--attach OBJECT SECTION]... [--attach-dir ELFDIR SFRAMEDIR]...\n"
		      "               [--name NAME]\n"
		      "               [--min-exact PCT] [--max-steps N] [--trace FROM TO]\n"
		      "               -- PROGRAM [ARG...]\n", stderr);
		return 2;
	}
	if (sf_failed)
		sf_exit();

	t0 = sf_now_ms();
	ret = st_run(argv + opt + 1, every, bind_now);
	printf("# %lu instructions stepped in %ld ms\n", st.steps, sf_now_ms() - t0);
	if (st.branch_stops)
		printf("# %lu stops after a branch made by a breakpoint\n",
		       st.branch_stops);
	if (st.exclusive_runs)
		printf("# %lu exclusive sequences run at full speed, not judged\n",
		       st.exclusive_runs);
	SF_CHECK(ret == 0, "%s exited with %d", argv[opt + 1], ret);
	st_print_figures(name ?: argv[opt + 1], bind_now);
	SF_CHECK(st.samples > 0, "no instruction judged");
	SF_CHECK(st.entry && st.entry_judged == 1,
		 "the program's entry point %#lx judged %lu times, not once", st.entry,
		 st.entry_judged);
	SF_CHECK(st.wrong == 0, "%lu wrong stacks of %lu judged", st.wrong, st.samples);
	/*
	 * Short is honest, but a walker that stops everywhere is broken: a
	 * floor on exact stacks, set by the test under the figures it gives
	 * (frame pointers alone were 130 of 25,262 exact here).  What is
	 * left out is bounded too.
	 */
	SF_CHECK(st.exact * 100.0 >= st_min_exact * st.samples,
		 "%lu of %lu stacks exact, under the floor of %.1f%%", st.exact, st.samples,
		 st_min_exact);
	SF_CHECK(st.unjudged * 100 <= st.samples && st.exclusive_runs * 100 <= st.samples,
		 "%lu left out in a stack switch, %lu exclusive sequences: over 1%% of %lu judged",
		 st.unjudged, st.exclusive_runs, st.samples);
	SF_CHECK(st.pltgot_wrong * 200 <= st.samples,
		 "%lu wrong stacks in .plt.got, over 0.5%% of %lu judged",
		 st.pltgot_wrong, st.samples);

	for (i = 0; i < st_nattach; i++)
		if (st_attached[i].elf_fd >= 0)
			SF_CHECK(!prctl(PR_SFRAME_DETACH, st_attached[i].elf_fd, 0, 0, 0),
				 "detaching %s: %s", st_attached[i].object, strerror(errno));
	return sf_failed ? 1 : 0;
}
