// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the user stack walker.  Each test maps "text", a stack
 * and an SFrame section describing the text into the test thread's own
 * address space, registers the section, writes a stack by hand and walks
 * it from a chosen first frame.  The frames are laid out by the same rules
 * the walker reads (the SFrame rows below, the arch's frame-pointer
 * template and signal frame layout), so each test runs on every arch.
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mman.h>
#include <linux/perf_event.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/sframe.h>
#include <linux/sframe_mm.h>
#include <linux/uaccess.h>
#include <linux/unwind_deferred.h>
#include <linux/unwind_user.h>
#include <linux/uprobes.h>
#include <asm/tlbflush.h>
#include <asm/unwind_user_sframe.h>

#include "../sframe_registry.h"
#include "kunit_fork.h"
#include "sframe_build.h"
#include "unwind_user_stubs.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define UW_TEXT_PAGES	2
#define UW_STACK_PAGES	4
#define UW_STACK_BYTES	(UW_STACK_PAGES * PAGE_SIZE)
#define UW_MAX_FRAMES	(UW_STACK_BYTES / 8 + 8)

/* What each SP-based CFA offset must add on an arch whose SP sits below it */
#define UW_SP_BIAS	(-(UNWIND_USER_CFA_TO_SP))

/* Functions of the section, as offsets into the text */
#define UW_F_SP		0x000	/* CFA = SP + 16: RA at CFA - 8 */
#define UW_F_FP		0x040	/* CFA = FP + 16: FP at CFA - 16 */
#define UW_F_END	0x100	/* outermost: RA undefined */
#define UW_F_REG	0x140	/* CFA = r9 + 16, a register rule */
#define UW_F_SAME	0x180	/* CFA = SP: a caller's CFA no higher */
#define UW_F_ROWS	0x1c0	/* three rows, all CFA = SP + 16 */
#define UW_NO_SFRAME	0x200	/* code no FDE covers */
/* The second text page is code of an object without SFrame. */
#define UW_PLAIN	(PAGE_SIZE + 0x200)
#define UW_SIGRETURN	(PAGE_SIZE + 0x300)	/* a sigreturn trampoline */

struct uw_ctx {
	unsigned long	text;
	unsigned long	stack;
	unsigned long	sframe;
	unsigned long	hole;		/* a page that was unmapped */
	unsigned long	ips[UW_MAX_FRAMES];
	unsigned int	types[UW_MAX_FRAMES];
};

static void uw_section(struct sfb_spec *s)
{
	unsigned int i;

	static const struct sfb_fde fdes[] = {
		{ .func = UW_F_SP, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 16 } } } },
		{ .func = UW_F_FP, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(0, 2, 0, 0), { 16, -16 } } } },
		{ .func = UW_F_END, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 0, 0, 0), { 0 } } } },
		{ .func = UW_F_REG, .size = 0x40, .info2 = SFRAME_FDE_TYPE_FLEX,
		  .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(0, 2, 0, 0),
			  { SFB_FLEX_CTL(9, 0, 1), 16 } } } },
		{ .func = UW_F_SAME, .size = 0x40, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 0 } } } },
		{ .func = UW_F_ROWS, .size = 0x40, .nfres = 3, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 16 } },
			{ 0x1, SFB_FRE_INFO(1, 1, 0, 0), { 16 } },
			{ 0x2, SFB_FRE_INFO(1, 1, 0, 0), { 16 } } } },
	};

	sfb_base(s, SFRAME_ABI);
	s->nfdes = ARRAY_SIZE(fdes);
	memcpy(s->fde, fdes, sizeof(fdes));
	s->fde[0].fre[0].words[0] += UW_SP_BIAS;
	s->fde[4].fre[0].words[0] += UW_SP_BIAS;
	for (i = 0; i < 3; i++)
		s->fde[5].fre[i].words[0] += UW_SP_BIAS;
}

static int uw_init(struct kunit *test)
{
	struct uw_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct sframe_new_section add = { };
	struct sfb_layout l;
	struct sfb_spec *s;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	buf = kunit_kzalloc(test, SFB_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ctx->text = kunit_vm_mmap(test, NULL, 0, UW_TEXT_PAGES * PAGE_SIZE,
				  PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	ctx->stack = kunit_vm_mmap(test, NULL, 0, UW_STACK_BYTES,
				   PROT_READ | PROT_WRITE,
				   MAP_ANONYMOUS | MAP_PRIVATE, 0);
	ctx->sframe = kunit_vm_mmap(test, NULL, 0, SFB_BUF_SIZE,
				    PROT_READ | PROT_WRITE,
				    MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ctx->text, 0);
	KUNIT_ASSERT_NE(test, ctx->stack, 0);
	KUNIT_ASSERT_NE(test, ctx->sframe, 0);
	KUNIT_ASSERT_LT(test, ctx->stack, TASK_SIZE);
	ctx->hole = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ,
				  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ctx->hole, 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->hole, PAGE_SIZE), 0);

	uw_section(s);
	add.sframe_size = sfb_build(s, buf, ctx->sframe, ctx->text, &l);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->sframe, buf,
					   SFB_BUF_SIZE), 0);
	add.sframe_start = ctx->sframe;
	add.seg_start = ctx->text;
	add.seg_end = ctx->text + PAGE_SIZE;
	add.start = add.seg_start;
	add.end = add.seg_end;
	KUNIT_ASSERT_EQ(test, sframe_add_section(current->mm, &add), 0);
	test->priv = ctx;
	return 0;
}

static void uw_put(struct kunit *test, unsigned long addr, unsigned long val)
{
	KUNIT_ASSERT_EQ(test, put_user(val, (unsigned long __user *)addr), 0);
}

static void uw_start(struct uw_ctx *ctx, struct unwind_user_state *st,
		     unsigned long ip, unsigned long sp, unsigned long fp)
{
	__unwind_user_start(st, ctx->text + ip, sp, fp, sizeof(long), false);
}

/* Walks to the end, recording each frame; returns the number of frames. */
static unsigned int uw_walk(struct uw_ctx *ctx, struct unwind_user_state *st)
{
	unsigned int n = 0;

	do {
		ctx->ips[n] = st->ip;
		ctx->types[n] = st->current_type;
		n++;
	} while (n < UW_MAX_FRAMES && !unwind_user_next(st));
	return n;
}

/*
 * Writes a frame-pointer frame by the arch's template: the caller's RA and
 * FP saved below @cfa, and whatever links the current frame to @cfa (the
 * frame pointer, or s390's back chain at SP).  Returns the FP to start with.
 */
static unsigned long uw_fp_frame(struct kunit *test, unsigned long sp,
				 unsigned long cfa, unsigned long ra,
				 unsigned long caller_fp)
{
	struct unwind_user_frame t;
	unsigned long fp = 0;

	unwind_user_fp_frame(&t, sizeof(long), false);
	if (t.cfa.deref)
		uw_put(test, sp + t.cfa.offset, cfa - UNWIND_USER_FP_CFA_ADJUST);
	else
		fp = cfa - t.cfa.offset;
	uw_put(test, cfa + t.ra.offset, ra);
	uw_put(test, cfa + t.fp.offset, caller_fp);
	return fp;
}

/* SFrame all the way: FP-based CFA, SP-based CFA, then an outermost row. */
static void uw_sframe_chain_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, fp = sp + 0x40;
	unsigned long cfa1 = fp + 16, cfa2 = cfa1 + 16;
	struct unwind_user_state st;

	uw_put(test, cfa1 - 16, 0xf00d0);	/* the caller's FP */
	uw_put(test, cfa1 - 8, ctx->text + UW_F_SP + 0x10);
	uw_put(test, cfa2 - 8, ctx->text + UW_F_END + 0x8);

	uw_start(ctx, &st, UW_F_FP + 0x8, sp, fp);
	KUNIT_ASSERT_EQ(test, uw_walk(ctx, &st), 3);
	KUNIT_EXPECT_EQ(test, ctx->ips[0], ctx->text + UW_F_FP + 0x8);
	KUNIT_EXPECT_EQ(test, ctx->ips[1], ctx->text + UW_F_SP + 0x10);
	KUNIT_EXPECT_EQ(test, ctx->ips[2], ctx->text + UW_F_END + 0x8);
	KUNIT_EXPECT_EQ(test, ctx->types[1], UNWIND_USER_TYPE_SFRAME);
	KUNIT_EXPECT_EQ(test, ctx->types[2], UNWIND_USER_TYPE_SFRAME);
	KUNIT_EXPECT_EQ(test, st.fp, 0xf00d0);
	KUNIT_EXPECT_EQ(test, st.sp, cfa2 + UNWIND_USER_CFA_TO_SP);
	KUNIT_EXPECT_FALSE_MSG(test, st.error, "an outermost row ends a walk cleanly");
}

/*
 * A call that never returns ends UW_F_SP (as exit() ends in a call to
 * _exit()): its return address is UW_F_FP's first byte, and the caller
 * must be stepped by the call's rules, UW_F_SP's, not by UW_F_FP's.
 */
static void uw_noreturn_call_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, fp = sp + 0x40;
	unsigned long cfa1 = fp + 16, cfa2 = cfa1 + 16;
	struct unwind_user_state st;

	uw_put(test, cfa1 - 16, 0xf00d0);
	uw_put(test, cfa1 - 8, ctx->text + UW_F_FP);
	uw_put(test, cfa2 - 8, ctx->text + UW_F_END + 0x8);

	uw_start(ctx, &st, UW_F_FP + 0x8, sp, fp);
	KUNIT_ASSERT_EQ(test, uw_walk(ctx, &st), 3);
	KUNIT_EXPECT_EQ(test, ctx->ips[1], ctx->text + UW_F_FP);
	KUNIT_EXPECT_EQ(test, ctx->types[1], UNWIND_USER_TYPE_SFRAME);
	KUNIT_EXPECT_EQ(test, ctx->ips[2], ctx->text + UW_F_END + 0x8);
	KUNIT_EXPECT_EQ(test, ctx->types[2], UNWIND_USER_TYPE_SFRAME);
	KUNIT_EXPECT_FALSE(test, st.error);
}

/* Code of an object without SFrame is stepped by frame pointers, then SFrame again. */
static void uw_fp_fallback_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa1 = sp + 0x100;
	unsigned long cfa2 = cfa1 + 16;
	struct unwind_user_state st;
	unsigned long fp;

	fp = uw_fp_frame(test, sp, cfa1, ctx->text + UW_F_SP + 0x4, 0);
	uw_put(test, cfa2 - 8, ctx->text + UW_F_END + 0x4);

	uw_start(ctx, &st, UW_PLAIN + 0x10, sp, fp);
	KUNIT_ASSERT_EQ(test, uw_walk(ctx, &st), 3);
	KUNIT_EXPECT_EQ(test, ctx->ips[1], ctx->text + UW_F_SP + 0x4);
	KUNIT_EXPECT_EQ(test, ctx->types[1], UNWIND_USER_TYPE_FP);
	KUNIT_EXPECT_EQ(test, ctx->types[2], UNWIND_USER_TYPE_SFRAME);
	KUNIT_EXPECT_FALSE(test, st.error);
}

/* A zero frame pointer (back chain) ends a frame-pointer walk cleanly. */
static void uw_fp_end_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800;
	struct unwind_user_state st;

	uw_put(test, sp, 0);
	uw_start(ctx, &st, UW_PLAIN, sp, 0);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);
	KUNIT_EXPECT_TRUE(test, st.done);
	KUNIT_EXPECT_FALSE(test, st.error);
}

/* Every kind of signal frame the arch's kernel sets up */
static const struct unwind_user_sigframe uw_sigframes[] = UNWIND_USER_SIGFRAMES;

static void uw_sigframe_desc(const struct unwind_user_sigframe *sf, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "kind_%td", sf - uw_sigframes);
}

KUNIT_ARRAY_PARAM(uw_sigframe, uw_sigframes, uw_sigframe_desc);

/*
 * A handler's return lands on the sigreturn trampoline; the interrupted
 * frame comes from the saved context, even on a stack below the handler's
 * (sigaltstack), and the walk goes on from it.
 */
static void uw_signal_check(struct kunit *test, unsigned int at)
{
	const struct unwind_user_sigframe *sf = test->param_value;
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, ctxp = sp + sf->context;
	unsigned long isp = ctx->stack + 0x100, icfa = isp + 16 + UW_SP_BIAS;
	struct unwind_user_state st;

	KUNIT_ASSERT_LT(test, ctxp + 0x400, ctx->stack + UW_STACK_BYTES);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->text + UW_SIGRETURN,
					   sf->code, sf->len), 0);
	uw_put(test, ctxp + UNWIND_USER_SIGCONTEXT_IP, ctx->text + UW_F_SP + 0x20);
	uw_put(test, ctxp + UNWIND_USER_SIGCONTEXT_SP, isp);
	uw_put(test, ctxp + UNWIND_USER_SIGCONTEXT_FP, 0xbeef0);
	uw_put(test, icfa - 8, ctx->text + UW_F_END + 0x4);

	uw_start(ctx, &st, UW_SIGRETURN + at, sp, 0);
	KUNIT_ASSERT_EQ(test, uw_walk(ctx, &st), 3);
	KUNIT_EXPECT_EQ(test, ctx->ips[1], ctx->text + UW_F_SP + 0x20);
	KUNIT_EXPECT_EQ(test, ctx->types[1], UNWIND_USER_TYPE_SIGNAL);
	KUNIT_EXPECT_EQ(test, ctx->ips[2], ctx->text + UW_F_END + 0x4);
	KUNIT_EXPECT_EQ(test, ctx->types[2], UNWIND_USER_TYPE_SFRAME);
	KUNIT_EXPECT_EQ(test, st.fp, 0xbeef0);
	KUNIT_EXPECT_FALSE(test, st.error);
}

static void uw_signal_test(struct kunit *test)
{
	uw_signal_check(test, 0);
}

/* Inside a trampoline's first instruction is not a signal frame. */
static void uw_not_signal_test(struct kunit *test)
{
	const struct unwind_user_sigframe *sf = test->param_value;
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800;
	struct unwind_user_state st;

	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->text + UW_SIGRETURN,
					   sf->code, sf->len), 0);
	uw_start(ctx, &st, UW_SIGRETURN + 1, sp, 0);
	unwind_user_next(&st);
	KUNIT_EXPECT_EQ(test, st.current_type, UNWIND_USER_TYPE_FP);
}

/*
 * Interrupted with only the trampoline's system call left to run, the
 * topmost frame is a signal frame all the same (a profiler's tick, a
 * single step).  A one-instruction trampoline has no such place: past its
 * first byte is inside its only instruction.
 */
static void uw_signal_last_test(struct kunit *test)
{
	const struct unwind_user_sigframe *sf = test->param_value;

	if (sf->last)
		uw_signal_check(test, sf->last);
	else
		uw_not_signal_test(test);
}

/*
 * On a function's first instruction (where the arch can tell one) the
 * frame-pointer step takes the RA from the top of the stack: the FP is
 * still the caller's and stays.
 */
static void uw_fp_entry_test(struct kunit *test)
{
	static const u8 push_bp = 0x55;
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, fp = ctx->stack + 0xc00;
	struct unwind_user_state st;

	if (!UNWIND_USER_ENTRY_INSN_BYTES)
		kunit_skip(test, "no function-entry frame-pointer rule here");
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->text + UW_PLAIN,
					   &push_bp, 1), 0);
	uw_put(test, sp, ctx->text + UW_PLAIN + 0x80);
	uw_start(ctx, &st, UW_PLAIN, sp, fp);
	KUNIT_ASSERT_EQ(test, unwind_user_next(&st), 0);
	KUNIT_EXPECT_EQ(test, st.current_type, UNWIND_USER_TYPE_FP);
	KUNIT_EXPECT_EQ(test, st.ip, ctx->text + UW_PLAIN + 0x80);
	KUNIT_EXPECT_EQ(test, st.sp, sp + sizeof(long));
	KUNIT_EXPECT_EQ(test, st.fp, fp);
}

/* The return address where the arch's function-entry rule @t finds it */
static void uw_entry_ra(struct kunit *test, struct unwind_user_state *st,
			const struct unwind_user_frame *t, unsigned long cfa,
			unsigned long ra)
{
	if (t->ra.base == UNWIND_USER_BASE_SAME) {
		st->ra = ra;
		st->ra_known = true;
	} else {
		uw_put(test, cfa + t->ra.offset, ra);
	}
}

/*
 * Interrupted in the section's object where no FDE covers the code: in a
 * PLT entry the arch knows by its code, the caller by the function-entry
 * rule when SFrame covers the code it returns to, then SFrame on.  Not
 * when it returns to uncovered code, nor in other code no FDE covers,
 * nor below the topmost frame: the walk ends there, where frame pointers
 * would guess.  In code no section describes, frame pointers (here a
 * zero FP, the walk's end).
 */
static void uw_uncovered_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa, stub = UW_NO_SFRAME + 0x20;
	bool known = UNWIND_USER_STUB_BYTES;
	struct unwind_user_state st;
	struct unwind_user_frame t;

	unwind_user_entry_frame(&t, sizeof(long));
	KUNIT_ASSERT_EQ(test, t.cfa.base, UNWIND_USER_BASE_SP);
	cfa = sp + t.cfa.offset;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->text + stub,
					   uw_plt_stub, sizeof(uw_plt_stub)), 0);

	/* At each instruction of the stub's first two */
	uw_start(ctx, &st, stub + UW_PLT_SECOND, sp, 0);
	uw_entry_ra(test, &st, &t, cfa, ctx->text + UW_F_SP + 0x4);
	/* UW_F_SP's CFA is 16 above its SP, which the stub left as it was */
	uw_put(test, cfa + 16 - 8, ctx->text + UW_F_END + 0x4);
	KUNIT_ASSERT_EQ(test, uw_walk(ctx, &st), known ? 3 : 1);
	if (known) {
		KUNIT_EXPECT_EQ(test, ctx->ips[1], ctx->text + UW_F_SP + 0x4);
		KUNIT_EXPECT_EQ(test, ctx->types[1], UNWIND_USER_TYPE_SFRAME);
		KUNIT_EXPECT_EQ(test, ctx->ips[2], ctx->text + UW_F_END + 0x4);
		KUNIT_EXPECT_FALSE(test, st.error);
	} else {
		KUNIT_EXPECT_TRUE(test, st.error);
	}

	/* Code no FDE covers that is no stub: zero bytes */
	uw_start(ctx, &st, UW_NO_SFRAME + 0x10, sp, 0);
	uw_entry_ra(test, &st, &t, cfa, ctx->text + UW_F_SP + 0x4);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);
	KUNIT_EXPECT_TRUE(test, st.error);

	/* The same caller, but from code no section describes */
	__unwind_user_start(&st, ctx->hole, sp, 0, sizeof(long), false);
	uw_entry_ra(test, &st, &t, cfa, ctx->text + UW_F_SP + 0x4);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);

	/* A stub that returns to code no FDE covers */
	uw_start(ctx, &st, stub, sp, 0);
	uw_entry_ra(test, &st, &t, cfa, ctx->text + UW_NO_SFRAME + 0x4);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);

	/* UW_F_SP returns into the stub: the rule would find UW_F_END. */
	uw_put(test, sp + 16 + UW_SP_BIAS - 8, ctx->text + stub);
	uw_start(ctx, &st, UW_F_SP + 0x4, sp, 0);
	uw_entry_ra(test, &st, &t, sp + 16 + UW_SP_BIAS + UNWIND_USER_CFA_TO_SP +
		    t.cfa.offset, ctx->text + UW_F_END + 0x4);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 2);
	KUNIT_EXPECT_EQ(test, ctx->ips[1], ctx->text + stub);
}

#ifdef CONFIG_ARM64
/* A PLT entry of an object built for BTI, interrupted at its BTI C */
static void uw_plt_bti_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa, stub = UW_NO_SFRAME + 0x40;
	struct unwind_user_state st;
	struct unwind_user_frame t;

	unwind_user_entry_frame(&t, sizeof(long));
	cfa = sp + t.cfa.offset;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->text + stub,
					   uw_plt_bti, sizeof(uw_plt_bti)), 0);
	uw_start(ctx, &st, stub, sp, 0);
	uw_entry_ra(test, &st, &t, cfa, ctx->text + UW_F_SP + 0x4);
	uw_put(test, cfa + 16 - 8, ctx->text + UW_F_END + 0x4);
	KUNIT_ASSERT_EQ(test, uw_walk(ctx, &st), 3);
	KUNIT_EXPECT_EQ(test, ctx->ips[1], ctx->text + UW_F_SP + 0x4);
	KUNIT_EXPECT_EQ(test, ctx->ips[2], ctx->text + UW_F_END + 0x4);
	KUNIT_EXPECT_FALSE(test, st.error);
}
#endif

/*
 * A register other than SP and FP is not known below the topmost frame:
 * the walk ends there, in an object with SFrame, where frame pointers
 * would only guess.
 */
static void uw_register_rule_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa1 = sp + 16 + UW_SP_BIAS;
	struct unwind_user_state st;

	uw_put(test, cfa1 - 8, ctx->text + UW_F_REG + 0x4);
	uw_start(ctx, &st, UW_F_SP, sp, 0);
	KUNIT_ASSERT_EQ(test, unwind_user_next(&st), 0);
	KUNIT_ASSERT_EQ(test, st.ip, ctx->text + UW_F_REG + 0x4);
	KUNIT_EXPECT_EQ(test, unwind_user_next(&st), -EINVAL);
	KUNIT_EXPECT_TRUE(test, st.done);
	KUNIT_EXPECT_TRUE(test, st.error);
	KUNIT_EXPECT_EQ(test, st.current_type, UNWIND_USER_TYPE_NONE);
	KUNIT_EXPECT_EQ(test, st.ip, ctx->text + UW_F_REG + 0x4);
}

/*
 * For the tests of what stops a walk: no zero word on the stack, which
 * would end a frame-pointer walk cleanly, and the tests start with a
 * misaligned FP, so the fallback cannot rescue the walk either.
 */
static void uw_fill(struct kunit *test, struct uw_ctx *ctx)
{
	unsigned long a;

	for (a = ctx->stack; a < ctx->stack + UW_STACK_BYTES; a += 8)
		uw_put(test, a, 0x5555555555555555UL);
}

/* Return addresses a hostile stack may hold, each stopping the walk */
struct uw_bad_ra {
	const char	*name;
	unsigned long	(*ra)(struct uw_ctx *ctx);
	bool		clean;		/* ends the walk without an error */
};

/*
 * Above user space on every arch, and still after arm64 strips what would
 * be a pointer authentication code (just above TASK_SIZE are bits it
 * clears: such a return address is a signed user one).  s390 user space
 * reaches up to the last page.
 */
static unsigned long uw_ra_kernel(struct uw_ctx *ctx)
{
	return max(TASK_SIZE, -(unsigned long)SZ_1G);
}

/*
 * The first address past the task's address space on s390, whose
 * TASK_SIZE is all of the 64-bit space but whose tasks map nothing at or
 * above their ASCE's limit (unwind_user_addr_end()); elsewhere TASK_SIZE
 * is that limit, and kernel_address covers it.
 */
static unsigned long uw_ra_past_mm(struct uw_ctx *ctx)
{
#ifdef CONFIG_S390
	return READ_ONCE(current->mm->context.asce_limit);
#else
	return uw_ra_kernel(ctx);
#endif
}

static unsigned long uw_ra_top(struct uw_ctx *ctx)
{
	return ~0UL & ~7UL;
}

static unsigned long uw_ra_stack(struct uw_ctx *ctx)
{
	return ctx->stack + 0x810;
}

static unsigned long uw_ra_zero(struct uw_ctx *ctx)
{
	return 0;
}

/* Mapped, readable and writable, but no code: the section's own page */
static unsigned long uw_ra_data(struct uw_ctx *ctx)
{
	return ctx->sframe + 0x10;
}

/* In no mapping at all */
static unsigned long uw_ra_unmapped(struct uw_ctx *ctx)
{
	return ctx->hole + 0x10;
}

static const struct uw_bad_ra uw_bad_ras[] = {
	{ "kernel_address",	uw_ra_kernel,	false },
	{ "past_the_mm",	uw_ra_past_mm,	false },
	{ "top_of_memory",	uw_ra_top,	false },
	{ "into_the_stack",	uw_ra_stack,	false },
	{ "zero",		uw_ra_zero,	true },
	{ "not_code",		uw_ra_data,	false },
	{ "unmapped",		uw_ra_unmapped,	false },
};

KUNIT_ARRAY_PARAM_DESC(uw_bad_ra, uw_bad_ras, name);

static void uw_bad_ra_test(struct kunit *test)
{
	const struct uw_bad_ra *c = test->param_value;
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa = sp + 16 + UW_SP_BIAS;
	struct unwind_user_state st;

	uw_fill(test, ctx);
	uw_put(test, cfa - 8, c->ra(ctx));
	uw_start(ctx, &st, UW_F_SP, sp, sp + 3);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);
	KUNIT_EXPECT_EQ(test, st.error, !c->clean);
}

/*
 * A saved IP in no code ends the walk at the trampoline (uw_fill() and a
 * misaligned FP: frame pointers cannot take it on either).
 */
static void uw_signal_not_code_test(struct kunit *test)
{
	const struct unwind_user_sigframe *sf = test->param_value;
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, ctxp = sp + sf->context;
	struct unwind_user_state st;

	KUNIT_ASSERT_LT(test, ctxp + 0x400, ctx->stack + UW_STACK_BYTES);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->text + UW_SIGRETURN,
					   sf->code, sf->len), 0);
	uw_fill(test, ctx);
	uw_put(test, ctxp + UNWIND_USER_SIGCONTEXT_IP, ctx->sframe + 0x20);
	uw_put(test, ctxp + UNWIND_USER_SIGCONTEXT_SP, ctx->stack + 0x100);
	uw_put(test, ctxp + UNWIND_USER_SIGCONTEXT_FP, 0);

	uw_start(ctx, &st, UW_SIGRETURN, sp, sp + 3);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);
	KUNIT_EXPECT_TRUE(test, st.error);
}

/* Stack pointers a hostile task may leave, each ending the walk at once */
struct uw_bad_sp {
	const char	*name;
	unsigned long	(*sp)(struct uw_ctx *ctx);
};

static unsigned long uw_sp_misaligned(struct uw_ctx *ctx)
{
	return ctx->stack + 0x804;
}

static unsigned long uw_sp_unmapped(struct uw_ctx *ctx)
{
	return ctx->hole + 0x800;
}

static unsigned long uw_sp_kernel(struct uw_ctx *ctx)
{
	return TASK_SIZE + PAGE_SIZE;
}

static unsigned long uw_sp_wraps(struct uw_ctx *ctx)
{
	return ~0UL - 7;
}

static const struct uw_bad_sp uw_bad_sps[] = {
	{ "misaligned",	uw_sp_misaligned },
	{ "unmapped",	uw_sp_unmapped },
	{ "kernel",	uw_sp_kernel },
	{ "wraps",	uw_sp_wraps },
};

KUNIT_ARRAY_PARAM_DESC(uw_bad_sp, uw_bad_sps, name);

static void uw_bad_sp_test(struct kunit *test)
{
	const struct uw_bad_sp *c = test->param_value;
	struct uw_ctx *ctx = test->priv;
	struct unwind_user_state st;
	unsigned long sp = c->sp(ctx);

	uw_fill(test, ctx);
	uw_start(ctx, &st, UW_F_SP, sp, sp + 3);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);
	KUNIT_EXPECT_TRUE(test, st.error);
}

/*
 * A stack full of return addresses into the same function climbs one
 * frame per 16 bytes and stops at the end of the mapping: the CFA must
 * rise, so no stack makes the walk go round.
 */
static void uw_climb_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long a, sp = ctx->stack;
	struct unwind_user_state st;
	unsigned int n;

	for (a = ctx->stack; a < ctx->stack + UW_STACK_BYTES; a += 8)
		uw_put(test, a, ctx->text + UW_F_SP + 0x8);
	uw_start(ctx, &st, UW_F_SP, sp, 0);
	n = uw_walk(ctx, &st);
	KUNIT_EXPECT_TRUE(test, st.done);
	KUNIT_EXPECT_LE(test, n, UW_STACK_BYTES / 16 + 1);
	KUNIT_EXPECT_GE(test, n, (UW_STACK_BYTES - 2 * UW_SP_BIAS) / 16 - 1);
}

/*
 * A function whose CFA is its SP, returning into itself: the first step
 * is fine (a leaf may have CFA == SP), the second finds the same CFA and
 * is refused, where it would otherwise go round until the depth limit.
 */
static void uw_same_cfa_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa = sp + UW_SP_BIAS;
	struct unwind_user_state st;

	uw_fill(test, ctx);
	uw_put(test, cfa - 8, ctx->text + UW_F_SAME + 0x8);
	uw_start(ctx, &st, UW_F_SAME, sp, sp + 3);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 2);
	KUNIT_EXPECT_TRUE(test, st.error);
}

/* A frame pointer that points at itself gives the same CFA twice: refused. */
static void uw_fp_cycle_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa = sp + 0x100;
	struct unwind_user_state st;
	unsigned long fp;

	fp = uw_fp_frame(test, sp, cfa, ctx->text + UW_PLAIN + 0x8, 0);
	/* The caller's frame links to the very same CFA. */
	uw_fp_frame(test, cfa + UNWIND_USER_CFA_TO_SP, cfa,
		    ctx->text + UW_PLAIN + 0x8, fp);
	uw_start(ctx, &st, UW_PLAIN, sp, fp);
	KUNIT_EXPECT_LE(test, uw_walk(ctx, &st), 2);
	KUNIT_EXPECT_TRUE(test, st.error);
}

/*
 * With page faults disabled a stack page that is not resident ends the
 * walk instead of sleeping; with faults enabled the same page is read.
 */
static void uw_nofault_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	struct unwind_user_state st;
	unsigned long fresh;

	fresh = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, fresh, 0);

	/* An FP into the same page, so the fallback faults too */
	__unwind_user_start(&st, ctx->text + UW_F_SP, fresh, fresh + 0x100,
			    sizeof(long), true);
	pagefault_disable();
	uw_walk(ctx, &st);
	pagefault_enable();
	KUNIT_EXPECT_TRUE(test, st.error);

	/* Read now, the page is all zeroes: RA 0 is the end of the stack. */
	uw_start(ctx, &st, UW_F_SP, fresh, 0);
	KUNIT_EXPECT_EQ(test, uw_walk(ctx, &st), 1);
	KUNIT_EXPECT_FALSE(test, st.error);
}

/*
 * Registration faults the whole section in, so that walks with page faults
 * disabled can use it; if its pages go (reclaim; here MADV_DONTNEED), such
 * a walk ends at that frame (frame pointers are not the method of code
 * with SFrame) and leaves the section in use, and a walk with faults
 * enabled takes the SFrame step and brings them back.  The section lives
 * in a file mapping whose FDE table is 64 KiB past its header, out of the
 * fault-around window of the header's page.
 */
static void uw_nofault_step(struct kunit *test, unsigned long text, unsigned long sp,
			    unsigned long fp, bool nofault, int type, unsigned long ip)
{
	struct unwind_user_state st;

	__unwind_user_start(&st, text + UW_F_SP, sp, fp, sizeof(long), nofault);
	if (nofault)
		pagefault_disable();
	unwind_user_next(&st);
	if (nofault)
		pagefault_enable();
	KUNIT_EXPECT_EQ(test, st.current_type, type);
	KUNIT_EXPECT_EQ(test, st.ip, ip);
}

static void uw_nofault_section_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa = sp + 16 + UW_SP_BIAS;
	unsigned long text, sframe, fp, size, fp_cfa = sp + 0x100;
	struct sframe_new_section add = { };
	struct sfb_layout l;
	struct sfb_spec *s;
	struct file *file;
	loff_t pos = 0;
	u8 *buf;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	buf = kunit_kzalloc(test, SZ_128K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	text = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_EXEC,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, text, 0);

	uw_section(s);
	s->fde_gap = U16_MAX;
	/* The size does not depend on where the section is; its bytes do. */
	size = sfb_build(s, buf, 0, text, &l);
	KUNIT_ASSERT_GE(test, l.fdes, SZ_64K);
	file = shmem_kernel_file_setup("unwind-user-test", 0, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, kernel_write(file, buf, size, &pos), (ssize_t)size);
	sframe = vm_mmap(file, 0, size, PROT_READ, MAP_PRIVATE, 0);
	KUNIT_ASSERT_LT(test, sframe, TASK_SIZE);
	sfb_build(s, buf, sframe, text, &l);
	pos = 0;
	KUNIT_ASSERT_EQ(test, kernel_write(file, buf, size, &pos), (ssize_t)size);
	fput(file);

	add.sframe_start = sframe;
	add.sframe_size = size;
	add.seg_start = text;
	add.seg_end = text + PAGE_SIZE;
	add.start = text;
	add.end = text + PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, sframe_add_section(current->mm, &add), 0);

	/* SFrame: the caller is UW_F_END; frame pointers would find UW_NO_SFRAME. */
	uw_fill(test, ctx);
	uw_put(test, cfa - 8, text + UW_F_END + 0x4);
	fp = uw_fp_frame(test, sp, fp_cfa, text + UW_NO_SFRAME + 0x4, 0);

	uw_nofault_step(test, text, sp, fp, true, UNWIND_USER_TYPE_SFRAME, text + UW_F_END + 0x4);

	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, sframe, size, MADV_DONTNEED), 0);
	uw_nofault_step(test, text, sp, fp, true, UNWIND_USER_TYPE_NONE, text + UW_F_SP);
	uw_nofault_step(test, text, sp, fp, false, UNWIND_USER_TYPE_SFRAME, text + UW_F_END + 0x4);
	uw_nofault_step(test, text, sp, fp, true, UNWIND_USER_TYPE_SFRAME, text + UW_F_END + 0x4);
}

/*
 * Every walk reads a bounded number of SFrame rows in all, one that may
 * fault (a /proc read, a deferred unwind) as much as one that may not
 * (NMI): a lookup that would read more ends the walk there, frame
 * pointers being no method for code with SFrame.  The third row of
 * UW_F_ROWS takes three reads.
 */
static const bool uw_budget_nofault[] = { true, false };

static void uw_budget_desc(const bool *nofault, char *desc)
{
	strscpy(desc, *nofault ? "nofault" : "faultable", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uw_budget, uw_budget_nofault, uw_budget_desc);

static void uw_fre_budget_test(struct kunit *test)
{
	const bool nofault = *(const bool *)test->param_value;
	struct uw_ctx *ctx = test->priv;
	unsigned long sp = ctx->stack + 0x800, cfa = sp + 16 + UW_SP_BIAS;
	unsigned long fp, fp_cfa = sp + 0x100;
	struct unwind_user_state st;
	struct unwind_user_frame t;
	unsigned int budget;

	uw_fill(test, ctx);

	/*
	 * A topmost frame in a PLT stub whose caller's lookup runs out: the
	 * rows it read are spent, though the walk ends.
	 */
	if (UNWIND_USER_STUB_BYTES) {
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->text +
						   UW_NO_SFRAME + 0x20, uw_plt_stub,
						   sizeof(uw_plt_stub)), 0);
		unwind_user_entry_frame(&t, sizeof(long));
		__unwind_user_start(&st, ctx->text + UW_NO_SFRAME + 0x20, sp, 0,
				    sizeof(long), nofault);
		uw_entry_ra(test, &st, &t, sp + t.cfa.offset, ctx->text + UW_F_ROWS + 2);
		st.ctx.budget = 2;
		if (nofault)
			pagefault_disable();
		unwind_user_next(&st);
		if (nofault)
			pagefault_enable();
		KUNIT_EXPECT_EQ(test, st.ctx.budget, 0);
		KUNIT_EXPECT_TRUE(test, st.done);
	}

	uw_put(test, cfa - 8, ctx->text + UW_F_END + 0x4);
	fp = uw_fp_frame(test, sp, fp_cfa, ctx->text + UW_NO_SFRAME + 0x4, 0);

	for (budget = 2; budget <= 3; budget++) {
		__unwind_user_start(&st, ctx->text + UW_F_ROWS + 2, sp, fp,
				    sizeof(long), nofault);
		KUNIT_EXPECT_EQ(test, st.ctx.budget, nofault ? UNWIND_USER_NOFAULT_FRES :
				UNWIND_USER_FAULTABLE_FRES);
		st.ctx.budget = budget;
		if (nofault)
			pagefault_disable();
		unwind_user_next(&st);
		if (nofault)
			pagefault_enable();
		KUNIT_EXPECT_EQ_MSG(test, st.current_type, budget == 3 ?
				    UNWIND_USER_TYPE_SFRAME : UNWIND_USER_TYPE_NONE,
				    "a budget of %u rows", budget);
		KUNIT_EXPECT_EQ(test, st.ctx.budget, 0);
	}

	/* The section was not blamed: a new walk uses it. */
	uw_start(ctx, &st, UW_F_ROWS + 2, sp, fp);
	unwind_user_next(&st);
	KUNIT_EXPECT_EQ(test, st.current_type, UNWIND_USER_TYPE_SFRAME);
}

/*
 * A deferred unwind's trace points into the task's cache until the task
 * returns to user space: a new frame limit must not free it under a
 * caller in the meantime, and is followed from the next stay on.
 */
static int uw_cache_child(void *arg)
{
	struct unwind_task_info *info = &current->unwind_info;
	unsigned int max = READ_ONCE(unwind_user_max_frames);
	struct unwind_stacktrace first, again;
	struct kunit *test = arg;

	KUNIT_EXPECT_EQ(test, unwind_user_faultable(&first), 0);
	WRITE_ONCE(unwind_user_max_frames, max / 2);
	KUNIT_EXPECT_EQ(test, unwind_user_faultable(&again), 0);
	KUNIT_EXPECT_PTR_EQ(test, again.entries, first.entries);
	KUNIT_EXPECT_EQ(test, info->cache->max_entries, max);

	/* What the way back to user space does */
	unwind_reset_info();
	KUNIT_EXPECT_EQ(test, unwind_user_faultable(&again), 0);
	KUNIT_EXPECT_EQ(test, info->cache->max_entries, max / 2);
	WRITE_ONCE(unwind_user_max_frames, max);
	return 0;
}

static void uw_cache_resize_test(struct kunit *test)
{
	unsigned int max = unwind_user_max_frames;

	KUNIT_EXPECT_EQ(test, kunit_fork_run(uw_cache_child, test), 0);
	unwind_user_max_frames = max;
}

/*
 * perf's (and BPF's) user callchains: get_perf_callchain() of a forked
 * child whose registers say it entered the kernel from user mode in the
 * middle of a hand-made stack.
 */
#define UW_PERF_MAX	8

struct uw_perf_args {
	struct kunit	*test;
	struct uw_ctx	*ctx;
	unsigned long	ip, sp, fp;
	u64		sframe[UW_PERF_MAX + 1];	/* with SFrame sections, all the way */
	unsigned int	nr_sframe;
	u64		limited[UW_PERF_MAX + 1];	/* the same, max_stack 2 */
	unsigned int	nr_limited;
	u64		deferred[UW_PERF_MAX + 1];	/* with a deferred cookie */
	unsigned int	nr_deferred;
	u64		plain[UW_PERF_MAX + 1];		/* without: the arch's own walk */
	unsigned int	nr_plain;
	u64		arch[UW_PERF_MAX + 1];		/* perf_callchain_user() itself */
	unsigned int	nr_arch;
	unsigned long	faulted[UW_PERF_MAX];		/* unwind_user() first */
	unsigned int	nr_faulted;
	u64		switching[UW_PERF_MAX + 1];	/* another mm loaded (x86) */
	unsigned int	nr_switching;
};

/* As if the task had entered the kernel from user mode at @ip */
static void uw_user_regs(struct pt_regs *regs, unsigned long ip, unsigned long sp,
			 unsigned long fp)
{
	memset(regs, 0, sizeof(*regs));
#if defined(CONFIG_X86_64)
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->ip = ip;
	regs->sp = sp;
	regs->bp = fp;
#elif defined(CONFIG_ARM64)
	regs->pstate = PSR_MODE_EL0t;
	regs->pc = ip;
	regs->sp = sp;
	regs->regs[29] = fp;
#elif defined(CONFIG_S390)
	regs->psw.mask = PSW_USER_BITS;
	regs->psw.addr = ip;
	regs->gprs[15] = sp;
	regs->gprs[11] = fp;
#endif
}

static unsigned int uw_perf_copy(struct perf_callchain_entry *entry, u64 *ips)
{
	unsigned int nr = entry ? min_t(u64, entry->nr, UW_PERF_MAX + 1) : 0;

	memcpy(ips, entry->ip, nr * sizeof(*ips));
	return nr;
}

#define UW_PERF_COOKIE	0x1234500000003ULL

static unsigned int uw_perf_take(struct pt_regs *regs, u32 max_stack, u64 cookie,
				 u64 *ips)
{
	unsigned long flags;
	unsigned int nr;

	/* As in a PMU interrupt: one CPU's callchain buffer, RCU held */
	local_irq_save(flags);
	rcu_read_lock();
	nr = uw_perf_copy(get_perf_callchain(regs, false, true, max_stack, false, true,
					     cookie), ips);
	rcu_read_unlock();
	local_irq_restore(flags);
	return nr;
}

#if defined(CONFIG_X86_64)
/*
 * The same in the middle of switch_mm_irqs_off() (a tracepoint there, or
 * an NMI in lazy TLB mode): the user memory the walk would read is not
 * the task's.
 */
static unsigned int uw_perf_take_switching(struct pt_regs *regs, u64 *ips)
{
	struct mm_struct *loaded;
	unsigned long flags;
	unsigned int nr;

	local_irq_save(flags);
	loaded = this_cpu_read(cpu_tlbstate.loaded_mm);
	this_cpu_write(cpu_tlbstate.loaded_mm, LOADED_MM_SWITCHING);
	rcu_read_lock();
	nr = uw_perf_copy(get_perf_callchain(regs, false, true, UW_PERF_MAX, false,
					     true, 0), ips);
	rcu_read_unlock();
	this_cpu_write(cpu_tlbstate.loaded_mm, loaded);
	local_irq_restore(flags);
	return nr;
}
#endif

static int uw_perf_child(void *arg)
{
	struct uw_perf_args *a = arg;
	struct pt_regs *regs = task_pt_regs(current);
	struct unwind_stacktrace trace = { .entries = a->faulted };
	struct perf_callchain_entry_ctx pctx = {};
	struct perf_callchain_entry *entry;
	unsigned long flags;

	uw_user_regs(regs, a->ip, a->sp, a->fp);
	/*
	 * A sample finds the pages a running task uses resident; the fork
	 * left this child's to be faulted in, which a faultable walk does.
	 */
	unwind_user(&trace, UW_PERF_MAX);
	a->nr_faulted = trace.nr;
	a->nr_sframe = uw_perf_take(regs, UW_PERF_MAX, 0, a->sframe);
	a->nr_limited = uw_perf_take(regs, 2, 0, a->limited);
	a->nr_deferred = uw_perf_take(regs, UW_PERF_MAX, UW_PERF_COOKIE, a->deferred);
#if defined(CONFIG_X86_64)
	a->nr_switching = uw_perf_take_switching(regs, a->switching);
#endif

	/* No section: the callchain is the arch's, as before SFrame. */
	KUNIT_EXPECT_EQ(a->test, sframe_remove_explicit(current->mm, a->ctx->text), 0);
	a->nr_plain = uw_perf_take(regs, UW_PERF_MAX, 0, a->plain);

	entry = kzalloc(struct_size(entry, ip, UW_PERF_MAX + 1), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	pctx.entry = entry;
	pctx.max_stack = UW_PERF_MAX;
	pctx.contexts_maxed = false;
	perf_callchain_store_context(&pctx, PERF_CONTEXT_USER);
	local_irq_save(flags);
	perf_callchain_user(&pctx, regs);
	local_irq_restore(flags);
	a->nr_arch = uw_perf_copy(entry, a->arch);
	kfree(entry);
	return 0;
}

/*
 * A stack of three frames at @sp, @fp, starting at the returned address:
 * UW_F_FP (frame pointer set up), UW_F_SP, UW_F_END.  Frame pointers
 * alone find the first two.
 */
static unsigned long uw_three_frames(struct kunit *test, unsigned long *sp,
				     unsigned long *fp)
{
	struct uw_ctx *ctx = test->priv;
	unsigned long cfa1, cfa2;

	*sp = ctx->stack + 0x800;
	*fp = *sp + 0x40;
	cfa1 = *fp + 16;
	cfa2 = cfa1 + 16;
	uw_put(test, cfa1 - 16, 0xf00d0);	/* the caller's FP */
	uw_put(test, cfa1 - 8, ctx->text + UW_F_SP + 0x10);
	uw_put(test, cfa2 - 8, ctx->text + UW_F_END + 0x8);
	return ctx->text + UW_F_FP + 0x8;
}

static void uw_perf_callchain_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	struct uw_perf_args *a;
	unsigned int i;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	*a = (struct uw_perf_args){ .test = test, .ctx = ctx };
	a->ip = uw_three_frames(test, &a->sp, &a->fp);

	KUNIT_ASSERT_EQ(test, get_callchain_buffers(UW_PERF_MAX), 0);
	KUNIT_EXPECT_EQ(test, kunit_fork_run(uw_perf_child, a), 0);
	put_callchain_buffers();

	KUNIT_EXPECT_EQ(test, a->nr_faulted, 3);
	KUNIT_ASSERT_EQ(test, a->nr_sframe, 4);
	KUNIT_EXPECT_EQ(test, a->sframe[0], PERF_CONTEXT_USER);
	KUNIT_EXPECT_EQ(test, a->sframe[1], ctx->text + UW_F_FP + 0x8);
	KUNIT_EXPECT_EQ(test, a->sframe[2], ctx->text + UW_F_SP + 0x10);
	KUNIT_EXPECT_EQ(test, a->sframe[3], ctx->text + UW_F_END + 0x8);

	/* The depth limit counts addresses, not the context marker. */
	KUNIT_ASSERT_EQ(test, a->nr_limited, 3);
	KUNIT_EXPECT_EQ(test, a->limited[0], PERF_CONTEXT_USER);
	KUNIT_EXPECT_EQ(test, a->limited[2], ctx->text + UW_F_SP + 0x10);

	/* Another mm loaded: the registers' frame, and no read of memory */
	if (IS_ENABLED(CONFIG_X86_64)) {
		KUNIT_ASSERT_EQ(test, a->nr_switching, 2);
		KUNIT_EXPECT_EQ(test, a->switching[1], ctx->text + UW_F_FP + 0x8);
	}

	/* Deferred: the marker and the cookie, no stack (it comes later). */
	KUNIT_ASSERT_EQ(test, a->nr_deferred, 2);
	KUNIT_EXPECT_EQ(test, a->deferred[0], PERF_CONTEXT_USER_DEFERRED);
	KUNIT_EXPECT_EQ(test, a->deferred[1], UW_PERF_COOKIE);

	KUNIT_ASSERT_EQ(test, a->nr_plain, a->nr_arch);
	for (i = 0; i < a->nr_plain; i++)
		KUNIT_EXPECT_EQ_MSG(test, a->plain[i], a->arch[i], "entry %u", i);
	/* Frame pointers alone miss the last frame: SFrame found it. */
	KUNIT_EXPECT_LT(test, a->nr_plain, a->nr_sframe);
}

struct uw_remote_args {
	struct mm_struct	*mm;		/* the test thread's */
	unsigned long		ip, sp, fp;
	unsigned long		clobber;	/* a return address's slot */
	unsigned long		remote[UW_MAX_FRAMES];
	unsigned long		local[UW_MAX_FRAMES];
	unsigned int		nr_remote, nr_local;
};

static unsigned int uw_collect(struct unwind_user_state *st, unsigned long *ips)
{
	unsigned int n = 0;

	do {
		ips[n++] = st->ip;
	} while (n < UW_MAX_FRAMES && !unwind_user_next(st));
	return n;
}

static int uw_remote_child(void *arg)
{
	struct uw_remote_args *a = arg;
	struct unwind_user_state st;
	unsigned long zero = 0;
	struct pt_regs regs;

	/* This copy of the stack loses a caller; the test thread's keeps it. */
	if (copy_to_user((void __user *)a->clobber, &zero, sizeof(zero)))
		return -EFAULT;
	uw_user_regs(&regs, a->ip, a->sp, a->fp);
	if (unwind_user_start_remote(&st, current, a->mm, &regs))
		return -EINVAL;
	a->nr_remote = uw_collect(&st, a->remote);
	__unwind_user_start(&st, a->ip, a->sp, a->fp, sizeof(long), false);
	a->nr_local = uw_collect(&st, a->local);
	return 0;
}

/*
 * A uprobe's out-of-line step: while one is under way, an IP in the slot
 * or just past its instruction stands for the probed address; any other
 * IP, or a task that is not stepping or not current, is left as it is.
 * The test thread gets a uprobe_task of the test's making for the while,
 * given back before any check could end the test (an exiting task puts
 * its active uprobe).
 */
static void uw_uprobe_xol_test(struct kunit *test)
{
#ifdef CONFIG_UPROBES
	const unsigned long slot = 0x7ff000001080UL, probed = 0x401234UL;
	unsigned long got[7];
	struct uprobe_task *utask;

	KUNIT_ASSERT_NULL(test, current->utask);
	utask = kunit_kzalloc(test, sizeof(*utask), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, utask);
	utask->xol_vaddr = slot;
	utask->vaddr = probed;

	current->utask = utask;
	got[0] = unwind_user_uprobe_ip(current, slot);
	/* Only compared with NULL, never followed */
	utask->active_uprobe = (struct uprobe *)utask;
	got[1] = unwind_user_uprobe_ip(current, slot);
	got[2] = unwind_user_uprobe_ip(current, slot + UPROBE_XOL_SLOT_BYTES);
	got[3] = unwind_user_uprobe_ip(current, slot + UPROBE_XOL_SLOT_BYTES + 1);
	got[4] = unwind_user_uprobe_ip(current, slot - 1);
	got[5] = unwind_user_uprobe_ip(current, probed);
	got[6] = unwind_user_uprobe_ip(&init_task, slot);
	utask->active_uprobe = NULL;
	current->utask = NULL;

	KUNIT_EXPECT_EQ_MSG(test, got[0], slot, "no step under way");
	KUNIT_EXPECT_EQ(test, got[1], probed);
	KUNIT_EXPECT_EQ(test, got[2], probed + UPROBE_XOL_SLOT_BYTES);
	KUNIT_EXPECT_EQ(test, got[3], slot + UPROBE_XOL_SLOT_BYTES + 1);
	KUNIT_EXPECT_EQ(test, got[4], slot - 1);
	KUNIT_EXPECT_EQ(test, got[5], probed);
	KUNIT_EXPECT_EQ_MSG(test, got[6], slot, "another task's step");
#else
	kunit_skip(test, "no uprobes in this kernel");
#endif
}

/*
 * A walk of another address space (/proc/<pid>/ustack of a stopped task)
 * reads that space, stack and section, not the walker's own: a forked
 * child that zeroed a return address in its copy of the stack still finds
 * every frame in the test thread's.  A kernel thread has no user stack.
 */
static void uw_remote_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	struct unwind_user_state st;
	struct uw_remote_args *a;
	struct pt_regs regs;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->mm = current->mm;
	a->ip = uw_three_frames(test, &a->sp, &a->fp);
	a->clobber = a->fp + 24;	/* UW_F_END's return address */

	uw_user_regs(&regs, a->ip, a->sp, a->fp);
	KUNIT_EXPECT_EQ(test,
			unwind_user_start_remote(&st, current, current->mm, &regs),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, st.done);

	KUNIT_ASSERT_EQ(test, kunit_fork_run(uw_remote_child, a), 0);
	KUNIT_ASSERT_EQ(test, a->nr_remote, 3);
	KUNIT_EXPECT_EQ(test, a->remote[0], ctx->text + UW_F_FP + 0x8);
	KUNIT_EXPECT_EQ(test, a->remote[1], ctx->text + UW_F_SP + 0x10);
	KUNIT_EXPECT_EQ(test, a->remote[2], ctx->text + UW_F_END + 0x8);
	KUNIT_ASSERT_EQ_MSG(test, a->nr_local, 2, "the child's own copy ends early");
	KUNIT_EXPECT_EQ(test, a->local[1], ctx->text + UW_F_SP + 0x10);
}

/*
 * A request made after its callback ran in the same stay has it called
 * again, with the same cookie and stack.  exec ends a stay: requests made
 * before it get the old program's stack at once, requests after it a new
 * cookie and, at the return to user space (here: at exit), the new
 * program's stack.
 */
struct uw_exec_args {
	struct kunit	*test;
	struct uw_ctx	*ctx;
	unsigned long	ip, sp, fp;
	unsigned int	calls;
	u64		cookie[3];
	unsigned int	nr[3];
	unsigned long	first_ip[3];
	u64		asked[3];
};

static struct uw_exec_args *uw_exec_now;

static void uw_exec_callback(struct unwind_work *work, struct unwind_stacktrace *trace,
			     u64 cookie)
{
	struct uw_exec_args *a = uw_exec_now;
	unsigned int i = a->calls++;

	if (i >= ARRAY_SIZE(a->cookie))
		return;
	a->cookie[i] = cookie;
	a->nr[i] = trace->nr;
	a->first_ip[i] = trace->nr ? trace->entries[0] : 0;
}

static int uw_exec_child(void *arg)
{
	static struct unwind_work work;
	struct uw_exec_args *a = arg;
	struct kunit *test = a->test;
	struct pt_regs *regs = task_pt_regs(current);
	u64 again;

	uw_user_regs(regs, a->ip, a->sp, a->fp);
	if (unwind_deferred_init(&work, uw_exec_callback))
		return -EBUSY;
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &a->asked[0]), 0);
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &again), 1);
	KUNIT_EXPECT_EQ(test, again, a->asked[0]);

	/* Served (as on the way out), then asked again in the same stay */
	unwind_deferred_task_exit(current);
	KUNIT_EXPECT_EQ(test, a->calls, 1);
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &a->asked[1]), 0);
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &again), 1);

	unwind_deferred_task_exec(current);
	KUNIT_EXPECT_EQ(test, a->calls, 2);

	/* The new program, at its entry point with a stack of its own */
	uw_user_regs(regs, a->ctx->text + UW_F_END + 0x8, a->sp + 0x400, 0);
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &a->asked[2]), 0);
	unwind_deferred_task_exit(current);
	KUNIT_EXPECT_EQ(test, a->calls, 3);
	unwind_deferred_cancel(&work);
	return 0;
}

static void uw_deferred_stays_test(struct kunit *test)
{
	struct uw_ctx *ctx = test->priv;
	struct uw_exec_args *a;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	*a = (struct uw_exec_args){ .test = test, .ctx = ctx };
	a->ip = uw_three_frames(test, &a->sp, &a->fp);
	uw_exec_now = a;
	KUNIT_EXPECT_EQ(test, kunit_fork_run(uw_exec_child, a), 0);

	KUNIT_ASSERT_EQ(test, a->calls, 3);
	KUNIT_EXPECT_NE(test, a->asked[0], 0);
	KUNIT_EXPECT_EQ(test, a->cookie[0], a->asked[0]);
	KUNIT_EXPECT_EQ(test, a->nr[0], 3);
	KUNIT_EXPECT_EQ(test, a->first_ip[0], a->ip);
	/* A request after the callback: called again, same stay, same stack */
	KUNIT_EXPECT_EQ(test, a->asked[1], a->asked[0]);
	KUNIT_EXPECT_EQ(test, a->cookie[1], a->asked[0]);
	KUNIT_EXPECT_EQ(test, a->nr[1], 3);
	KUNIT_EXPECT_EQ(test, a->first_ip[1], a->ip);
	/* After exec: another stay */
	KUNIT_EXPECT_NE(test, a->asked[2], a->asked[0]);
	KUNIT_EXPECT_EQ(test, a->cookie[2], a->asked[2]);
	KUNIT_EXPECT_EQ(test, a->first_ip[2], ctx->text + UW_F_END + 0x8);
}

/*
 * Requests after the callback ran are answered UNWIND_MAX_REPEATS times a
 * stay, then no more (samples faster than a callback would otherwise keep
 * the task from user space); the next stay starts the count again.
 */
static int uw_repeats_child(void *arg)
{
	static struct unwind_work work;
	struct uw_exec_args *a = arg;
	struct kunit *test = a->test;
	unsigned int i;
	u64 cookie;

	uw_user_regs(task_pt_regs(current), a->ip, a->sp, a->fp);
	if (unwind_deferred_init(&work, uw_exec_callback))
		return -EBUSY;
	for (i = 0; i <= UNWIND_MAX_REPEATS; i++) {
		KUNIT_EXPECT_EQ_MSG(test, unwind_deferred_request(&work, &cookie), 0,
				    "request %u", i);
		unwind_deferred_task_exit(current);
		KUNIT_EXPECT_EQ(test, a->calls, i + 1);
	}
	a->asked[0] = cookie;
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &a->asked[1]), 1);
	unwind_deferred_task_exit(current);
	KUNIT_EXPECT_EQ(test, a->calls, UNWIND_MAX_REPEATS + 1);

	/* exec ends the stay: a new one, answered again */
	unwind_deferred_task_exec(current);
	KUNIT_EXPECT_EQ(test, unwind_deferred_request(&work, &a->asked[2]), 0);
	unwind_deferred_task_exit(current);
	KUNIT_EXPECT_EQ(test, a->calls, UNWIND_MAX_REPEATS + 2);
	unwind_deferred_cancel(&work);
	return 0;
}

static void uw_deferred_repeats_test(struct kunit *test)
{
	struct uw_exec_args *a;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	*a = (struct uw_exec_args){ .test = test, .ctx = test->priv };
	a->ip = uw_three_frames(test, &a->sp, &a->fp);
	uw_exec_now = a;
	KUNIT_EXPECT_EQ(test, kunit_fork_run(uw_repeats_child, a), 0);
	/* The unanswered request still names the stay */
	KUNIT_EXPECT_EQ(test, a->asked[1], a->asked[0]);
	KUNIT_EXPECT_NE(test, a->asked[2], a->asked[0]);
	KUNIT_EXPECT_EQ(test, a->cookie[2], a->asked[0]);
}

static struct kunit_case uw_cases[] = {
	KUNIT_CASE(uw_sframe_chain_test),
	KUNIT_CASE(uw_noreturn_call_test),
	KUNIT_CASE(uw_fp_fallback_test),
	KUNIT_CASE(uw_fp_end_test),
	KUNIT_CASE(uw_fp_entry_test),
	KUNIT_CASE(uw_uncovered_test),
#ifdef CONFIG_ARM64
	KUNIT_CASE(uw_plt_bti_test),
#endif
	KUNIT_CASE_PARAM(uw_signal_test, uw_sigframe_gen_params),
	KUNIT_CASE_PARAM(uw_signal_last_test, uw_sigframe_gen_params),
	KUNIT_CASE_PARAM(uw_signal_not_code_test, uw_sigframe_gen_params),
	KUNIT_CASE_PARAM(uw_not_signal_test, uw_sigframe_gen_params),
	KUNIT_CASE(uw_register_rule_test),
	KUNIT_CASE_PARAM(uw_bad_ra_test, uw_bad_ra_gen_params),
	KUNIT_CASE_PARAM(uw_bad_sp_test, uw_bad_sp_gen_params),
	KUNIT_CASE(uw_climb_test),
	KUNIT_CASE(uw_same_cfa_test),
	KUNIT_CASE(uw_fp_cycle_test),
	KUNIT_CASE(uw_nofault_test),
	KUNIT_CASE(uw_nofault_section_test),
	KUNIT_CASE_PARAM(uw_fre_budget_test, uw_budget_gen_params),
	KUNIT_CASE(uw_cache_resize_test),
	KUNIT_CASE(uw_perf_callchain_test),
	KUNIT_CASE(uw_uprobe_xol_test),
	KUNIT_CASE(uw_remote_test),
	KUNIT_CASE(uw_deferred_stays_test),
	KUNIT_CASE(uw_deferred_repeats_test),
	{}
};

static struct kunit_suite uw_suite = {
	.name = "unwind_user",
	.init = uw_init,
	.test_cases = uw_cases,
};

kunit_test_suite(uw_suite);

MODULE_DESCRIPTION("KUnit tests for the user stack walker");
MODULE_LICENSE("GPL");
