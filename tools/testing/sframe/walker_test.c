// SPDX-License-Identifier: GPL-2.0-only
/*
 * The walker's host cases: kernel/unwind/user.c built in user space for
 * one architecture, walking stacks laid out by hand with the section of
 * the KUnit walker suite (tests/kunit/unwind_user_kunit.c).  Each case
 * states the frames it must give, and every walk of it is also checked
 * by the oracle (walker_oracle.c).  With --seeds DIR, writes each case as
 * an input of the fuzzer instead.
 */
#include <stdarg.h>
#include <linux/unwind_user.h>
#include <linux/sframe_format.h>
#include "walker_oracle.h"
#include "../../../tests/kunit/sframe_build.h"
#include "../../../tests/kunit/unwind_user_stubs.h"

/* In ASan's shadow gap on x86-64 hosts: a stray dereference faults. */
#define T_TEXT		0x10000000000UL
#define T_SECTION	0x10000100000UL
#define T_STACK		0x10000200000UL
#define T_ALT		0x10000300000UL
#define T_TEXT_LEN	0x800
/* The section describes the first half; the rest is code of an object without SFrame */
#define T_DESCRIBED	0x400
#define T_STACK_LEN	0x1000
#define T_ALT_LEN	0x400

/* Functions of the section, as offsets into the text, as the KUnit suite's */
#define F_SP		0x000	/* CFA = SP + 16: RA at CFA - 8 */
#define F_FP		0x040	/* CFA = FP + 16: FP at CFA - 16 */
#define F_END		0x100	/* outermost: RA undefined */
#define F_REG		0x140	/* CFA = r9 + 16, a register rule */
#define F_SAME		0x180	/* CFA = SP: a caller's CFA no higher */
#define F_ROWS		0x1c0	/* three rows, all CFA = SP + 16 */
#define NO_SFRAME	0x200	/* code no FDE covers */
#define SIGRETURN	0x300	/* a sigreturn trampoline */
#define F_FLEX		0x380	/* CFA = SP + 16, RA at FP + 8, by register rules */
#define F_LEAF		0x3c0	/* CFA = SP, RA in its register */
#define PLAIN		0x600	/* code of an object without SFrame */

/* What each SP-based CFA offset must add on an arch whose SP sits below it */
#define SP_BIAS		(-(UNWIND_USER_CFA_TO_SP))
/* Neither a frame pointer nor a back chain anything can follow */
#define JUNK		0x5555555555555555UL

static u8 text[T_TEXT_LEN], section[SFB_BUF_SIZE];
static u8 stack[T_STACK_LEN], alt[T_ALT_LEN];
static struct walk_input in;
static struct walk_result res;
static const struct unwind_user_sigframe sigframes[] = UNWIND_USER_SIGFRAMES;

struct expect {
	unsigned int	n;
	unsigned long	ip[8];
	bool		error;
};

/* What a case expects of the stepped walks; unset ones are not checked */
static struct expect want, want_nofault, want_budgeted;
static bool have_nofault, have_budgeted;
/* The case's section is not registered (text above TASK_SIZE). */
static bool unregistered;

static void section_spec(struct sfb_spec *s)
{
	static const struct sfb_fde fdes[] = {
		{ .func = F_SP, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 16 } } } },
		{ .func = F_FP, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(0, 2, 0, 0), { 16, -16 } } } },
		{ .func = F_END, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 0, 0, 0), { 0 } } } },
		{ .func = F_REG, .size = 0x40, .info2 = SFRAME_FDE_TYPE_FLEX,
		  .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(0, 2, 0, 0),
			  { SFB_FLEX_CTL(9, 0, 1), 16 } } } },
		{ .func = F_SAME, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 0 } } } },
		{ .func = F_ROWS, .size = 0x40, .nfres = 3, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 16 } },
			{ 0x1, SFB_FRE_INFO(1, 1, 0, 0), { 16 } },
			{ 0x2, SFB_FRE_INFO(1, 1, 0, 0), { 16 } } } },
		{ .func = F_FLEX, .size = 0x40, .info2 = SFRAME_FDE_TYPE_FLEX,
		  .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(0, 6, 1, 0),
			  { SFB_FLEX_CTL(UNWIND_USER_DWARF_SP, 0, 1), 16,
			    SFB_FLEX_CTL(UNWIND_USER_DWARF_FP, 1, 1), 8,
			    SFB_FLEX_CTL(0, 1, 0), -16 } } } },
		{ .func = F_LEAF, .size = 0x40, .info2 = SFRAME_FDE_TYPE_FLEX,
		  .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(0, 4, 1, 0),
			  { SFB_FLEX_CTL(UNWIND_USER_DWARF_SP, 0, 1), 0,
			    SFB_FLEX_CTL(UNWIND_USER_DWARF_RA, 0, 1), 0 } } } },
	};
	unsigned int i;

	sfb_base(s, walk_sframe_abi);
	s->nfdes = ARRAY_SIZE(fdes);
	memcpy(s->fde, fdes, sizeof(fdes));
	s->fde[0].fre[0].words[0] += SP_BIAS;
	s->fde[4].fre[0].words[0] += SP_BIAS;
	for (i = 0; i < 3; i++)
		s->fde[5].fre[i].words[0] += SP_BIAS;
	s->fde[6].fre[0].words[1] += SP_BIAS;
	s->fde[7].fre[0].words[1] += SP_BIAS;
}

static void map(enum walk_region_kind kind, unsigned long addr,
		unsigned long len, const u8 *data)
{
	struct walk_region *r = &in.region[kind];

	r->addr = addr;
	r->len = len;
	r->data = data;
}

static void reset(void)
{
	static struct sfb_spec spec;
	struct sfb_layout l;
	u32 size;

	section_spec(&spec);
	size = sfb_build(&spec, section, T_SECTION, T_TEXT, &l);
	memset(text, 0, sizeof(text));
	memset(stack, 0, sizeof(stack));
	memset(alt, 0, sizeof(alt));
	memset(&in, 0, sizeof(in));
	map(WALK_SECTION, T_SECTION, size, section);
	map(WALK_TEXT, T_TEXT, T_TEXT_LEN, text);
	map(WALK_STACK, T_STACK, T_STACK_LEN, stack);
	map(WALK_ALT, T_ALT, T_ALT_LEN, alt);
	in.text_start = T_TEXT;
	in.text_end = T_TEXT + T_DESCRIBED;
	/* s390: a 4-level ASCE, as a 64-bit task's mm starts with */
	in.asce_limit = 1UL << 53;
	in.max_entries = 64;
	memset(&want, 0, sizeof(want));
	have_nofault = false;
	have_budgeted = false;
	unregistered = false;
}

static u8 *mem_at(unsigned long addr, unsigned long len)
{
	static const struct {
		unsigned long	addr;
		unsigned long	len;
		u8		*buf;
	} bufs[] = {
		{ T_TEXT, T_TEXT_LEN, text },
		{ T_STACK, T_STACK_LEN, stack },
		{ T_ALT, T_ALT_LEN, alt },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bufs); i++)
		if (addr >= bufs[i].addr && addr + len <= bufs[i].addr + bufs[i].len)
			return bufs[i].buf + (addr - bufs[i].addr);
	fprintf(stderr, "%#lx: outside the case's memory\n", addr);
	abort();
}

static void put(unsigned long addr, unsigned long val)
{
	memcpy(mem_at(addr, sizeof(val)), &val, sizeof(val));
}

static void fill(unsigned long val)
{
	unsigned long a;

	for (a = T_STACK; a < T_STACK + T_STACK_LEN; a += 8)
		put(a, val);
	for (a = T_ALT; a < T_ALT + T_ALT_LEN; a += 8)
		put(a, val);
}

static void start(unsigned long ip, unsigned long sp, unsigned long fp)
{
	in.regs[WALK_REG_IP] = T_TEXT + ip;
	in.regs[UNWIND_USER_DWARF_SP] = sp;
	in.regs[UNWIND_USER_DWARF_FP] = fp;
}

static void expect(bool error, unsigned int n, ...)
{
	va_list ap;
	unsigned int i;

	want.n = n;
	want.error = error;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		want.ip[i] = T_TEXT + va_arg(ap, unsigned long);
	va_end(ap);
}

/*
 * A frame-pointer frame by the arch's template: the caller's RA and FP
 * saved below @cfa, and whatever links the frame to @cfa (the frame
 * pointer, or s390's back chain at SP).  Returns the FP to start with.
 */
static unsigned long fp_frame(unsigned long sp, unsigned long cfa,
			      unsigned long ra, unsigned long caller_fp)
{
	struct unwind_user_frame t;
	unsigned long fp = 0;

	unwind_user_fp_frame(&t, sizeof(long), false);
	if (t.cfa.deref)
		put(sp + t.cfa.offset, cfa - UNWIND_USER_FP_CFA_ADJUST);
	else
		fp = cfa - t.cfa.offset;
	put(cfa + t.ra.offset, ra);
	put(cfa + t.fp.offset, caller_fp);
	return fp;
}

/* The return address where the arch's function-entry rule finds it */
static void entry_ra(const struct unwind_user_frame *t, unsigned long cfa,
		     unsigned long ra)
{
	if (t->ra.base == UNWIND_USER_BASE_SAME)
		in.regs[UNWIND_USER_DWARF_RA] = ra;
	else
		put(cfa + t->ra.offset, ra);
}

/* SFrame all the way: FP-based CFA, SP-based CFA, then an outermost row. */
static void case_sframe_chain(void)
{
	unsigned long sp = T_STACK + 0x800, fp = sp + 0x40;
	unsigned long cfa1 = fp + 16, cfa2 = cfa1 + 16;

	put(cfa1 - 16, 0xf00d0);
	put(cfa1 - 8, T_TEXT + F_SP + 0x10);
	put(cfa2 - 8, T_TEXT + F_END + 0x8);
	start(F_FP + 0x8, sp, fp);
	expect(false, 3, F_FP + 0x8, F_SP + 0x10, F_END + 0x8);
}

/*
 * A call that never returns ends F_SP, so its return address is F_FP's
 * first byte: the caller's rules are F_SP's, the call's, not F_FP's.
 */
static void case_noreturn_call(void)
{
	unsigned long sp = T_STACK + 0x800, fp = sp + 0x40;
	unsigned long cfa1 = fp + 16, cfa2 = cfa1 + 16;

	put(cfa1 - 16, 0xf00d0);
	put(cfa1 - 8, T_TEXT + F_FP);
	put(cfa2 - 8, T_TEXT + F_END + 0x8);
	start(F_FP + 0x8, sp, fp);
	expect(false, 3, F_FP + 0x8, F_FP, F_END + 0x8);
}

/* The chain's entry points cut at their bounds, and where they walk nothing */
static void case_max_one(void)
{
	case_sframe_chain();
	in.max_entries = 1;
}

static void case_max_zero(void)
{
	case_sframe_chain();
	in.max_entries = 0;
}

static void case_kthread(void)
{
	case_sframe_chain();
	in.flags = WALK_F_KTHREAD;
	expect(false, 0);
}

static void case_kernel_mode(void)
{
	case_sframe_chain();
	in.flags = WALK_F_KERNEL_MODE;
	expect(false, 0);
}

/*
 * A task past exit_mm(): no section, so frame pointers, which lose the
 * chain's second caller; s390 takes no return address at all without
 * an mm to bound it (and its zero back chain ends the walk cleanly).
 */
static void case_no_mm(void)
{
	case_sframe_chain();
	in.flags = WALK_F_NO_MM;
#ifdef WALKER_ARCH_S390
	expect(false, 1, F_FP + 0x8);
#else
	expect(true, 2, F_FP + 0x8, F_SP + 0x10);
#endif
}

static void case_nmi(void)
{
	case_sframe_chain();
	in.flags = WALK_F_NMI;
}

static void case_nmi_other_mm(void)
{
	case_sframe_chain();
	in.flags = WALK_F_NMI | WALK_F_OTHER_MM;
}

/* The chain's second RA where nothing can be read, or not without faulting */
static void case_hole(void)
{
	unsigned long slot = T_STACK + 0x800 + 0x40 + 32 - 8;

	fill(JUNK);
	case_sframe_chain();
	in.region[WALK_STACK].hole_start = slot;
	in.region[WALK_STACK].hole_end = slot + 8;
	expect(true, 2, F_FP + 0x8, F_SP + 0x10);
}

static void case_cold(void)
{
	case_hole();
	in.region[WALK_STACK].hole_cold = true;
	want_nofault = want;
	have_nofault = true;
	expect(false, 3, F_FP + 0x8, F_SP + 0x10, F_END + 0x8);
}

/* Code of an object without SFrame is stepped by frame pointers, then SFrame again. */
static void case_fp_fallback(void)
{
	unsigned long sp = T_STACK + 0x800, cfa1 = sp + 0x100, cfa2 = cfa1 + 16;
	unsigned long fp;

	fp = fp_frame(sp, cfa1, T_TEXT + F_SP + 0x4, 0);
	put(cfa2 - 8, T_TEXT + F_END + 0x4);
	start(PLAIN + 0x10, sp, fp);
	expect(false, 3, PLAIN + 0x10, F_SP + 0x4, F_END + 0x4);
}

/* Not in code of an object with SFrame that no FDE covers: the walk ends. */
static void case_fp_covered(void)
{
	unsigned long sp = T_STACK + 0x800, cfa1 = sp + 0x100, fp;

	fp = fp_frame(sp, cfa1, T_TEXT + F_SP + 0x4, 0);
	start(NO_SFRAME + 0x10, sp, fp);
	expect(true, 1, NO_SFRAME + 0x10);
}

/* A zero frame pointer (back chain) ends a frame-pointer walk cleanly. */
static void case_fp_end(void)
{
	unsigned long sp = T_STACK + 0x800;

	put(sp, 0);
	start(PLAIN, sp, 0);
	expect(false, 1, PLAIN);
}

/* A register rule, in the topmost frame where the register is known */
static void case_register_rule(void)
{
	unsigned long sp = T_STACK + 0x800, cfa = sp + 0x40 + 16;

	fill(JUNK);
	in.regs[9] = sp + 0x40;
	put(cfa - 8, T_TEXT + F_END + 0x4);
	start(F_REG, sp, sp + 3);
	expect(false, 2, F_REG, F_END + 0x4);
}

/* Register rules naming SP and FP, which every frame knows */
static void case_flex_regs(void)
{
	unsigned long sp = T_STACK + 0x800, fp = sp + 0x20;
	unsigned long cfa = sp + 16 + SP_BIAS;

	fill(JUNK);
	put(fp + 8, T_TEXT + F_END + 0x4);
	put(cfa - 16, 0xf00d0);
	start(F_FLEX, sp, fp);
	expect(false, 2, F_FLEX, F_END + 0x4);
}

/* A leaf's RA still in its register: x86-64 has none, frame pointers fail */
static void case_leaf(void)
{
	unsigned long sp = T_STACK + 0x800;

	fill(JUNK);
	in.regs[UNWIND_USER_DWARF_RA] = T_TEXT + F_END + 0x4;
	start(F_LEAF, sp, sp + 3);
#ifdef WALKER_ARCH_X86
	expect(true, 1, F_LEAF);
#else
	expect(false, 2, F_LEAF, F_END + 0x4);
#endif
}

#define PLT_AT		(NO_SFRAME + 0x20)

/*
 * Interrupted where the section's object has no FDE, in a PLT entry the
 * arch knows by its code: the caller by the function-entry rule, then
 * SFrame on.  Elsewhere (x86-64 knows no such stub) the walk ends.
 */
static void case_uncovered(void)
{
	unsigned long sp = T_STACK + 0x800, cfa;
	struct unwind_user_frame t;

	memcpy(text + PLT_AT, uw_plt_stub, sizeof(uw_plt_stub));
	unwind_user_entry_frame(&t, sizeof(long));
	cfa = sp + t.cfa.offset;
	entry_ra(&t, cfa, T_TEXT + F_SP + 0x4);
	put(cfa + 16 - 8, T_TEXT + F_END + 0x4);
	start(PLT_AT + UW_PLT_SECOND, sp, 0);
	if (UNWIND_USER_STUB_BYTES)
		expect(false, 3, PLT_AT + UW_PLT_SECOND, F_SP + 0x4, F_END + 0x4);
	else
		expect(true, 1, PLT_AT + UW_PLT_SECOND);
}

/*
 * A handler returned into the sigreturn trampoline: the interrupted frame
 * from the saved context, on another stack (sigaltstack), then SFrame on.
 */
static void signal_case_at(unsigned int kind, unsigned int at)
{
	const struct unwind_user_sigframe *sf = &sigframes[kind];
	unsigned long sp = T_STACK + 0x800, ctx = sp + sf->context;
	unsigned long isp = T_ALT + 0x100, icfa = isp + 16 + SP_BIAS;

	memcpy(mem_at(T_TEXT + SIGRETURN, sf->len), sf->code, sf->len);
	put(ctx + UNWIND_USER_SIGCONTEXT_IP, T_TEXT + F_SP + 0x20);
	put(ctx + UNWIND_USER_SIGCONTEXT_SP, isp);
	put(ctx + UNWIND_USER_SIGCONTEXT_FP, 0xbeef0);
	put(icfa - 8, T_TEXT + F_END + 0x4);
	start(SIGRETURN + at, sp, 0);
	expect(false, 3, SIGRETURN + at, F_SP + 0x20, F_END + 0x4);
}

static void signal_case(unsigned int kind)
{
	signal_case_at(kind, 0);
}

/*
 * Stopped at the trampoline's system call (a tick, a single step): the
 * topmost frame is the signal frame all the same.  An arch whose
 * trampoline is that one instruction has nothing more to try: the walk
 * ends, as anywhere else past a trampoline's start.
 */
#if defined(WALKER_ARCH_X86)
static const u8 sigreturn_syscall[] = { 0x0f, 0x05 };			/* syscall */
#elif defined(WALKER_ARCH_ARM64)
static const u8 sigreturn_syscall[] = { 0x01, 0x00, 0x00, 0xd4 };	/* svc #0 */
#else
static const u8 sigreturn_syscall[] = { 0x0a };				/* svc */
#endif

static void case_signal_syscall(void)
{
	const struct unwind_user_sigframe *sf = &sigframes[0];
	unsigned int at = sf->len - sizeof(sigreturn_syscall);

	/* The code, not the description under test, says where the call is. */
	while (at && memcmp(sf->code + at, sigreturn_syscall, sizeof(sigreturn_syscall)))
		at--;
	if (at) {
		signal_case_at(0, at);
		return;
	}
	signal_case_at(0, 1);
	expect(true, 1, SIGRETURN + 1);
}

static void case_signal_first(void)
{
	signal_case(0);
}

static void case_signal_last(void)
{
	signal_case(ARRAY_SIZE(sigframes) - 1);
}

/*
 * A signal frame that says it interrupted itself: every step finds it
 * again.  No check of the walker's refuses that, each frame being what
 * the rules give; only the consumer's bound ends the walk.
 */
static void case_signal_loop(void)
{
	const struct unwind_user_sigframe *sf = &sigframes[0];
	unsigned long sp = T_STACK + 0x800, ctx = sp + sf->context;
	unsigned int i;

	memcpy(mem_at(T_TEXT + SIGRETURN, sf->len), sf->code, sf->len);
	put(ctx + UNWIND_USER_SIGCONTEXT_IP, T_TEXT + SIGRETURN);
	put(ctx + UNWIND_USER_SIGCONTEXT_SP, sp);
	start(SIGRETURN, sp, 0);
	want.n = WALK_MAX_FRAMES;
	for (i = 0; i < ARRAY_SIZE(want.ip); i++)
		want.ip[i] = T_TEXT + SIGRETURN;
}

/* A function whose CFA is its SP, returning into itself: refused the second time */
static void case_same_cfa(void)
{
	unsigned long sp = T_STACK + 0x800, cfa = sp + SP_BIAS;

	fill(JUNK);
	put(cfa - 8, T_TEXT + F_SAME + 0x8);
	start(F_SAME, sp, sp + 3);
	expect(true, 2, F_SAME, F_SAME + 0x8);
}

/* Return addresses that are no user code's: above TASK_SIZE, on the stack */
static void bad_ra_case(unsigned long ra)
{
	unsigned long sp = T_STACK + 0x800, cfa = sp + 16 + SP_BIAS;

	fill(JUNK);
	put(cfa - 8, ra);
	start(F_SP, sp, sp + 3);
	expect(true, 1, F_SP);
}

/* Still above it once arm64 strips what would be a PAC */
static void case_ra_kernel(void)
{
	bad_ra_case(max_t(unsigned long, WALK_TASK_SIZE(false), -(1UL << 30)));
}

static void case_ra_on_stack(void)
{
	bad_ra_case(T_STACK + 0x800 + 8);
}

/* s390: below TASK_SIZE, but above what the mm can map; elsewhere as above */
static void case_ra_past_mm(void)
{
#ifdef WALKER_ARCH_S390
	bad_ra_case(in.asce_limit);
#else
	case_ra_kernel();
#endif
}

#ifdef WALKER_ARCH_ARM64
/* A return address signed by pac-ret: stripped, whatever the rules say */
static void case_pac(void)
{
	unsigned long sp = T_STACK + 0x800, cfa = sp + 16;

	fill(JUNK);
	put(cfa - 8, (T_TEXT + F_END + 0x4) | 0x7fUL << 48);
	start(F_SP, sp, sp + 3);
	expect(false, 2, F_SP, F_END + 0x4);
}
#endif

#ifdef WALKER_ARCH_X86
/* A compat task: 4-byte frame pointers, no SFrame, no signal frames */
static void case_compat(void)
{
	unsigned long sp = T_STACK + 0x800, fp = sp + 0x20;
	u32 link[2] = { 0, 0x08048100 };

	memcpy(mem_at(fp, sizeof(link)), link, sizeof(link));
	start(F_FP, sp, fp);
	in.flags = WALK_F_COMPAT_MODE;
	expect(false, 2, F_FP, 0x08048100 - T_TEXT);
}
#else
/* A compat task: not walked at all (its text is above its TASK_SIZE here) */
static void case_compat(void)
{
	case_sframe_chain();
	in.flags = WALK_F_COMPAT_MODE | WALK_F_COMPAT_TASK;
	expect(false, 0);
	unregistered = true;
}
#endif

#ifdef WALKER_ARCH_ARM64
/*
 * arm64's PLT0 pushes {x16, x30} first: past the push the caller's SP is
 * 16 bytes up, its return address still in LR.  At the push itself the
 * rule of a function's entry holds.
 */
static void case_plt0(void)
{
	unsigned long sp = T_STACK + 0x800;

	memcpy(text + PLT_AT, uw_plt0, sizeof(uw_plt0));
	in.regs[UNWIND_USER_DWARF_RA] = T_TEXT + F_SP + 0x4;
	/* F_SP's CFA is 16 above its SP: the one PLT0's push left 16 up */
	put(sp + 16 + 16 - 8, T_TEXT + F_END + 0x4);
	start(PLT_AT + 16, sp, 0);
	expect(false, 3, PLT_AT + 16, F_SP + 0x4, F_END + 0x4);
}

/* A PLT entry of an object built for BTI, at its BTI C: nothing moved yet */
static void case_plt_bti(void)
{
	unsigned long sp = T_STACK + 0x800;

	memcpy(text + PLT_AT, uw_plt_bti, sizeof(uw_plt_bti));
	in.regs[UNWIND_USER_DWARF_RA] = T_TEXT + F_SP + 0x4;
	put(sp + 16 - 8, T_TEXT + F_END + 0x4);
	start(PLT_AT, sp, 0);
	expect(false, 3, PLT_AT, F_SP + 0x4, F_END + 0x4);
}
#endif

/*
 * The FRE budget: the stub rule's look at the caller reads rows even
 * when it then fails, and a walk pays for every row it reads.  With two
 * rows left, finding F_ROWS' third row (the call, one byte before the
 * return address) fails, and the walk ends there: frame pointers are no
 * method in an object with SFrame.
 */
static void case_budget_probe(void)
{
	unsigned long sp = T_STACK + 0x800, cfa, fp;
	struct unwind_user_frame t;

	memcpy(text + PLT_AT, uw_plt_stub, sizeof(uw_plt_stub));
	unwind_user_entry_frame(&t, sizeof(long));
	cfa = sp + t.cfa.offset;
	entry_ra(&t, cfa, T_TEXT + F_ROWS + 3);
	/* A frame-pointer frame the walk must not take */
	fp = fp_frame(sp, sp + 0x100, T_TEXT + F_END + 0x4, 0);
	start(PLT_AT, sp, fp);
	in.budget = 2;
	if (!UNWIND_USER_STUB_BYTES) {
		expect(true, 1, PLT_AT);
		return;
	}
	expect(false, 2, PLT_AT, F_ROWS + 3);
	want_budgeted = (struct expect){
		.n = 1, .ip = { T_TEXT + PLT_AT }, .error = true,
	};
	have_budgeted = true;
}

struct walk_case {
	const char	*name;
	void		(*set)(void);
};

static const struct walk_case cases[] = {
	{ "sframe_chain", case_sframe_chain },
	{ "noreturn_call", case_noreturn_call },
	{ "max_one", case_max_one },
	{ "max_zero", case_max_zero },
	{ "kthread", case_kthread },
	{ "kernel_mode", case_kernel_mode },
	{ "no_mm", case_no_mm },
	{ "nmi", case_nmi },
	{ "nmi_other_mm", case_nmi_other_mm },
	{ "hole", case_hole },
	{ "cold", case_cold },
	{ "fp_fallback", case_fp_fallback },
	{ "fp_end", case_fp_end },
	{ "fp_covered", case_fp_covered },
#ifdef WALKER_ARCH_ARM64
	{ "plt0", case_plt0 },
	{ "plt_bti", case_plt_bti },
#endif
	{ "register_rule", case_register_rule },
	{ "flex_regs", case_flex_regs },
	{ "leaf", case_leaf },
	{ "uncovered", case_uncovered },
	{ "signal_first", case_signal_first },
	{ "signal_last", case_signal_last },
	{ "signal_syscall", case_signal_syscall },
	{ "signal_loop", case_signal_loop },
	{ "same_cfa", case_same_cfa },
	{ "ra_kernel", case_ra_kernel },
	{ "ra_on_stack", case_ra_on_stack },
	{ "ra_past_mm", case_ra_past_mm },
#ifdef WALKER_ARCH_ARM64
	{ "pac", case_pac },
#endif
	{ "compat", case_compat },
	{ "budget_probe", case_budget_probe },
};

static bool cmp_trace(const char *walk, const struct walk_trace *t,
		      const struct expect *e, char *why, size_t len)
{
	unsigned int i;

	if (t->nr != e->n) {
		snprintf(why, len, "%s walk: %u frames, not %u", walk, t->nr, e->n);
		return false;
	}
	for (i = 0; i < t->nr && i < ARRAY_SIZE(e->ip); i++) {
		if (t->ip[i] != e->ip[i]) {
			snprintf(why, len, "%s walk: frame %u is %#lx, not %#lx",
				 walk, i, t->ip[i], e->ip[i]);
			return false;
		}
	}
	if (t->error != e->error) {
		snprintf(why, len, "%s walk: %s", walk,
			 t->error ? "ended in error" : "ended cleanly");
		return false;
	}
	return true;
}

static bool run_case(const struct walk_case *c, char *why, size_t len)
{
	reset();
	c->set();
	if (!have_nofault)
		want_nofault = want;
	if (!walk_run(&in, &res)) {
		snprintf(why, len, "%s", res.why);
		return false;
	}
	if (res.registered == unregistered) {
		snprintf(why, len, "the section was %sregistered",
			 res.registered ? "" : "not ");
		return false;
	}
	return cmp_trace("faultable", &res.faultable, &want, why, len) &&
	       cmp_trace("nofault", &res.nofault, &want_nofault, why, len) &&
	       (!have_budgeted ||
		cmp_trace("budgeted", &res.budgeted, &want_budgeted, why, len));
}

/* unwind_user.max_frames: 1 to UNWIND_USER_MAX_FRAMES */
extern const struct kernel_param walk_param_max_frames;

static bool run_param(char *why, size_t len)
{
	static const struct {
		const char	*val;
		int		ret;
		unsigned int	now;
	} sets[] = {
		{ "0", -EINVAL, UNWIND_USER_DEFAULT_FRAMES },
		{ "16385", -EINVAL, UNWIND_USER_DEFAULT_FRAMES },
		{ "-1", -EINVAL, UNWIND_USER_DEFAULT_FRAMES },
		{ "16384", 0, 16384 },
		{ "1", 0, 1 },
	};
	const struct kernel_param *kp = &walk_param_max_frames;
	unsigned int i;
	char buf[32];
	int ret;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		ret = kp->ops->set(sets[i].val, kp);
		if (ret != sets[i].ret || unwind_user_max_frames != sets[i].now) {
			snprintf(why, len, "max_frames=%s: %d, now %u", sets[i].val,
				 ret, unwind_user_max_frames);
			return false;
		}
	}
	kp->ops->get(buf, kp);
	unwind_user_max_frames = UNWIND_USER_DEFAULT_FRAMES;
	if (strcmp(buf, "1\n")) {
		snprintf(why, len, "max_frames reads %s", buf);
		return false;
	}
	return true;
}

static int write_seeds(const char *dir)
{
	static u8 buf[16384];
	char path[512];
	unsigned int i;
	size_t n;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		reset();
		cases[i].set();
		n = walk_encode(&in, buf, sizeof(buf));
		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].name);
		f = fopen(path, "wb");
		if (!n || !f || fwrite(buf, 1, n, f) != n || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int i, passed = 0, failed = 0;
	char why[512];

	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		return write_seeds(argv[2]);

	for (i = 0; i <= ARRAY_SIZE(cases); i++) {
		const char *name = "max_frames";
		bool ok;

		if (i < ARRAY_SIZE(cases)) {
			name = cases[i].name;
			ok = run_case(&cases[i], why, sizeof(why));
		} else {
			ok = run_param(why, sizeof(why));
		}
		if (ok) {
			passed++;
			printf("ok %s/%s\n", WALKER_ARCH_NAME, name);
		} else {
			failed++;
			printf("not ok %s/%s: %s\n", WALKER_ARCH_NAME, name, why);
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed != 0;
}
