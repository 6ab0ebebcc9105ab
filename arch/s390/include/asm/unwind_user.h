/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_S390_UNWIND_USER_H
#define _ASM_S390_UNWIND_USER_H

#include <linux/sched.h>
#include <linux/fpu.h>
#include <linux/minmax.h>
#include <linux/array_size.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>
#include <asm/ptrace.h>
#include <asm/ucontext.h>

/* DWARF register numbers of the s390x ELF ABI */
#define UNWIND_USER_DWARF_SP	15
#define UNWIND_USER_DWARF_FP	11
#define UNWIND_USER_DWARF_RA	14

/*
 * A caller allocates a 160-byte register save area below its own frame;
 * the CFA is the SP at the call plus those 160 bytes.
 */
#define UNWIND_USER_CFA_TO_SP	(-160)

/*
 * No frame pointer convention, but code built with -mbackchain stores the
 * caller's SP at 0(%r15), and every function saves %r11 and %r14 into its
 * caller's save area.  The CFA rule yields the back chain, the caller's SP,
 * which UNWIND_USER_FP_CFA_ADJUST turns into the CFA.
 */
static inline void unwind_user_fp_frame(struct unwind_user_frame *frame,
					int ws, bool entry)
{
	*frame = (struct unwind_user_frame){
		.cfa = { .base = UNWIND_USER_BASE_SP, .deref = true },
		.ra = { .base = UNWIND_USER_BASE_CFA, .deref = true,
			.offset = -160 + 14 * 8 },
		.fp = { .base = UNWIND_USER_BASE_CFA, .deref = true,
			.offset = -160 + 11 * 8 },
	};
}

#define UNWIND_USER_FP_CFA_ADJUST	160

/* A function's first instruction: the return address in %r14, nothing saved. */
static inline void unwind_user_entry_frame(struct unwind_user_frame *frame,
					   int ws)
{
	*frame = (struct unwind_user_frame){
		.cfa = { .base = UNWIND_USER_BASE_SP, .offset = 160 },
		.ra = { .base = UNWIND_USER_BASE_SAME },
		.fp = { .base = UNWIND_USER_BASE_SAME },
	};
}

/*
 * GNU ld's 64-bit PLT entries, which it gives no SFrame in a PIE: neither
 * PLT0 nor a PLTn entry moves %r15 or %r14.  Each is 32 bytes, not
 * aligned to its size; told by its code around the IP.  0 in the mask:
 * an address or index the linker filled in.
 */
#define UNWIND_USER_STUB_BEFORE	30
#define UNWIND_USER_STUB_BYTES	62

static inline bool unwind_user_s390_match(const u8 *p, const u8 *pattern,
					  const u8 *mask)
{
	int i;

	for (i = 0; i < 32; i++)
		if ((p[i] & mask[i]) != pattern[i])
			return false;
	return true;
}

/*
 * @code: UNWIND_USER_STUB_BYTES of code, the IP UNWIND_USER_STUB_BEFORE
 * bytes in.  True, with the rules of the IP's frame in @frame, if the IP
 * is in a PLT entry's instructions.
 */
static inline bool unwind_user_stub_frame(const u8 *code,
					  struct unwind_user_frame *frame, int ws)
{
	static const u8 unwind_user_s390_plt0[32] = {
		0xe3, 0x10, 0xf0, 0x38, 0x00, 0x24,	/* stg %r1,56(%r15) */
		0xc0, 0x10, 0, 0, 0, 0,			/* larl %r1,GOT */
		0xd2, 0x07, 0xf0, 0x30, 0x10, 0x08,	/* mvc 48(8,%r15),8(%r1) */
		0xe3, 0x10, 0x10, 0x10, 0x00, 0x04,	/* lg %r1,16(%r1) */
		0x07, 0xf1,				/* br %r1 */
		0x07, 0x00, 0x07, 0x00, 0x07, 0x00,	/* nopr */
	};

	static const u8 unwind_user_s390_pltn[32] = {
		0xc0, 0x10, 0, 0, 0, 0,			/* larl %r1,GOT slot */
		0xe3, 0x10, 0x10, 0x00, 0x00, 0x04,	/* lg %r1,0(%r1) */
		0x07, 0xf1,				/* br %r1 */
		0x0d, 0x10,				/* basr %r1,%r0 */
		0xe3, 0x10, 0x10, 0x0c, 0x00, 0x14,	/* lgf %r1,12(%r1) */
		0xc0, 0xf4, 0, 0, 0, 0,			/* jg PLT0 */
		0, 0, 0, 0,				/* .long relocation offset */
	};

	/* The bytes of both that the linker does not fill in */
	static const u8 unwind_user_s390_plt_mask[2][32] = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0 },
	};
	int off;

	/* The IP is at most 28 bytes into an entry: the rest is data. */
	for (off = 0; off <= 28; off += 2) {
		const u8 *p = code + UNWIND_USER_STUB_BEFORE - off;

		if (unwind_user_s390_match(p, unwind_user_s390_pltn,
					   unwind_user_s390_plt_mask[1]) ||
		    (off < 26 && unwind_user_s390_match(p, unwind_user_s390_plt0,
							 unwind_user_s390_plt_mask[0]))) {
			unwind_user_entry_frame(frame, ws);
			return true;
		}
	}
	return false;
}

static inline unsigned int unwind_user_word_size(struct task_struct *task,
						 struct pt_regs *regs)
{
	return test_tsk_thread_flag(task, TIF_31BIT) ? 0 : 8;
}

static inline unsigned long unwind_user_frame_pointer(struct pt_regs *regs)
{
	return regs->gprs[11];
}

static inline bool unwind_user_ra_reg(struct pt_regs *regs, unsigned long *ra)
{
	*ra = regs->gprs[14];
	return true;
}

/*
 * GPRs 0-15, and FPRs, DWARF 16-31 in the ABI's order (f0 f2 f4 f6 f1 ...):
 * leaf functions park %r14 and %r11 in call-clobbered FPRs.  An FPR is
 * the high half of its vector register, saved to the thread on demand.
 */
static inline bool unwind_user_get_reg(struct task_struct *task,
				       struct pt_regs *regs, unsigned int regnum,
				       unsigned long *val)
{
	static const u8 fpr[] = { 0, 2, 4, 6, 1, 3, 5, 7,
				  8, 10, 12, 14, 9, 11, 13, 15 };

	if (regnum < 16) {
		*val = regs->gprs[regnum];
		return true;
	}
	if (regnum >= 16 + ARRAY_SIZE(fpr))
		return false;
	/* Another task is not running: its registers are saved already. */
	if (task == current)
		save_user_fpu_regs();
	*val = task->thread.ufpu.vxrs[fpr[regnum - 16]].high;
	return true;
}

#define unwind_user_strip_ra(ra)	(ra)

/*
 * TASK_SIZE is all of the 64-bit space (the kernel has a space of its
 * own), but a task maps nothing at or above its ASCE's limit, which
 * grows only when it maps higher: a word beyond it is no return address.
 */
#define unwind_user_addr_end()						\
	min_t(unsigned long, TASK_SIZE,					\
	      current->mm ? READ_ONCE(current->mm->context.asce_limit) : 0)
#define unwind_user_mm_addr_end(mm)					\
({									\
	struct mm_struct *__mm = (mm);					\
									\
	min_t(unsigned long, __mm->task_size,				\
	      READ_ONCE(__mm->context.asce_limit));			\
})

/*
 * The signal frames of arch/s390/kernel/signal.c: a handler without
 * SA_SIGINFO gets a sigframe and returns to __kernel_sigreturn (svc 119),
 * one with it an rt_sigframe and __kernel_rt_sigreturn (svc 173), in the
 * vDSO or an SA_RESTORER copy.  R15 is back at the frame's start.
 */
struct unwind_user_s390_sigframe {
	__u8				callee_used_stack[160];
	struct sigcontext		sc;
	_sigregs			sregs;
};

struct unwind_user_s390_rt_sigframe {
	__u8				callee_used_stack[160];
	__u16				svc_insn;
	struct siginfo			info;
	struct ucontext_extended	uc;
};

#define UNWIND_USER_SIGFRAMES {						\
	{ .code = { 0x0a, 0x77 }, .len = 2,				\
	  .context = offsetof(struct unwind_user_s390_sigframe, sregs) },	\
	{ .code = { 0x0a, 0xad }, .len = 2,				\
	  .context = offsetof(struct unwind_user_s390_rt_sigframe,	\
			      uc.uc_mcontext) },			\
}

#define UNWIND_USER_SIGCONTEXT_IP	offsetof(_sigregs, regs.psw.addr)
#define UNWIND_USER_SIGCONTEXT_SP	offsetof(_sigregs, regs.gprs[15])
#define UNWIND_USER_SIGCONTEXT_FP	offsetof(_sigregs, regs.gprs[11])
#define UNWIND_USER_SIGCONTEXT_RA	offsetof(_sigregs, regs.gprs[14])

#endif /* _ASM_S390_UNWIND_USER_H */
