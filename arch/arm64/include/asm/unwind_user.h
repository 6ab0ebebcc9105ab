/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_ARM64_UNWIND_USER_H
#define _ASM_ARM64_UNWIND_USER_H

#include <linux/array_size.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include <linux/unwind_user_types.h>
#include <asm/compiler.h>
#include <asm/ptrace.h>
#include <asm/ucontext.h>

/* DWARF register numbers of the AArch64 ABI */
#define UNWIND_USER_DWARF_SP	31
#define UNWIND_USER_DWARF_FP	29
#define UNWIND_USER_DWARF_RA	30	/* LR */

/* A frame record {x29, x30} at FP; the CFA is just above it. */
static inline void unwind_user_fp_frame(struct unwind_user_frame *frame,
					int ws, bool entry)
{
	*frame = (struct unwind_user_frame){
		.cfa = { .base = UNWIND_USER_BASE_FP, .offset = 2 * ws },
		.ra = { .base = UNWIND_USER_BASE_CFA, .deref = true, .offset = -ws },
		.fp = { .base = UNWIND_USER_BASE_CFA, .deref = true, .offset = -2 * ws },
	};
}

/* A function's first instruction: the return address in LR, nothing pushed. */
static inline void unwind_user_entry_frame(struct unwind_user_frame *frame,
					   int ws)
{
	*frame = (struct unwind_user_frame){
		.cfa = { .base = UNWIND_USER_BASE_SP },
		.ra = { .base = UNWIND_USER_BASE_SAME },
		.fp = { .base = UNWIND_USER_BASE_SAME },
	};
}

/*
 * GNU ld's PLT stubs, which it gives no SFrame: a PLTn entry (adrp x16;
 * ldr x17, [x16, #n]; add x16, x16, #n; br x17) moves neither SP nor LR,
 * and PLT0 pushes {x16, x30} before the same three loads and its br x17.
 * In an object built for BTI each starts with a BTI C.  The stub is told
 * by its code, read from UNWIND_USER_STUB_BEFORE bytes before the IP:
 * nowhere else does code no FDE covers say where its caller is.
 */
#define UNWIND_USER_STUB_BEFORE	16
#define UNWIND_USER_STUB_BYTES	40

static inline bool unwind_user_a64_insn(const u8 *p, u32 mask, u32 insn)
{
	return (get_unaligned_le32(p) & mask) == insn;
}

/* adrp x16; ldr x17, [x16, #n]; add x16, x16, #n */
static inline bool unwind_user_a64_plt_loads(const u8 *p)
{
	return unwind_user_a64_insn(p, 0x9f00001f, 0x90000010) &&
	       unwind_user_a64_insn(p + 4, 0xffc003ff, 0xf9400211) &&
	       unwind_user_a64_insn(p + 8, 0xff8003ff, 0x91000210);
}

static inline bool unwind_user_a64_br_x17(const u8 *p)
{
	return unwind_user_a64_insn(p, 0xffffffff, 0xd61f0220);
}

static inline bool unwind_user_a64_bti_c(const u8 *p)
{
	return unwind_user_a64_insn(p, 0xffffffff, 0xd503245f);
}

/* stp x16, x30, [sp, #-16]! and the loads */
static inline bool unwind_user_a64_plt0_head(const u8 *p)
{
	return unwind_user_a64_insn(p, 0xffffffff, 0xa9bf7bf0) &&
	       unwind_user_a64_plt_loads(p + 4);
}

/*
 * @code: UNWIND_USER_STUB_BYTES of code, the IP UNWIND_USER_STUB_BEFORE
 * bytes in.  True, with the rules of the IP's frame in @frame, if the IP
 * is in a PLT stub.
 */
static inline bool unwind_user_stub_frame(const u8 *code,
					  struct unwind_user_frame *frame, int ws)
{
	const u8 *ip = code + UNWIND_USER_STUB_BEFORE;
	int off;

	/* At a BTI stub's first instruction: nothing pushed yet */
	if (unwind_user_a64_bti_c(ip) &&
	    (unwind_user_a64_plt0_head(ip + 4) ||
	     (unwind_user_a64_plt_loads(ip + 4) && unwind_user_a64_br_x17(ip + 16)))) {
		unwind_user_entry_frame(frame, ws);
		return true;
	}
	/* PLT0 first: its last four instructions are those of a PLTn entry */
	for (off = 0; off <= 16; off += 4) {
		if (!unwind_user_a64_plt0_head(ip - off) ||
		    (off == 16 && !unwind_user_a64_br_x17(ip)))
			continue;
		unwind_user_entry_frame(frame, ws);
		/* Past the push, the caller's SP is 16 bytes up */
		if (off)
			frame->cfa.offset = 2 * ws;
		return true;
	}
	for (off = 0; off <= 12; off += 4) {
		if (unwind_user_a64_plt_loads(ip - off) &&
		    unwind_user_a64_br_x17(ip - off + 12)) {
			unwind_user_entry_frame(frame, ws);
			return true;
		}
	}
	return false;
}

/* AArch32 tasks have another frame layout and no SFrame. */
static inline unsigned int unwind_user_word_size(struct task_struct *task,
						 struct pt_regs *regs)
{
	return compat_user_mode(regs) ? 0 : 8;
}

static inline unsigned long unwind_user_frame_pointer(struct pt_regs *regs)
{
	return regs->regs[29];
}

static inline bool unwind_user_ra_reg(struct pt_regs *regs, unsigned long *ra)
{
	*ra = regs->regs[30];
	return true;
}

static inline bool unwind_user_get_reg(struct task_struct *task,
				       struct pt_regs *regs, unsigned int regnum,
				       unsigned long *val)
{
	if (regnum > 30)
		return false;
	*val = regs->regs[regnum];
	return true;
}

/*
 * Strip a pointer authentication code: saved LRs of pac-ret code carry
 * one whether or not the unwind data says so (frame records do not).
 */
#define unwind_user_strip_ra(ra)	ptrauth_strip_user_insn_pac(ra)

/*
 * Signal trampolines, each with where the interrupted registers are
 * relative to SP there.  The vDSO's __kernel_rt_sigreturn (and SA_RESTORER
 * copies): mov x8, #__NR_rt_sigreturn; svc #0.  SP is back at the
 * rt_sigframe, { struct siginfo; struct ucontext; } (arch/arm64/kernel/signal.c).
 */
#define UNWIND_USER_SIGFRAMES {						\
	{ .code = { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 },	\
	  .len = 8, .last = 4,						\
	  .context = sizeof(struct siginfo) +				\
		     offsetof(struct ucontext, uc_mcontext) },		\
}

#define UNWIND_USER_SIGCONTEXT_IP	offsetof(struct sigcontext, pc)
#define UNWIND_USER_SIGCONTEXT_SP	offsetof(struct sigcontext, sp)
#define UNWIND_USER_SIGCONTEXT_FP	offsetof(struct sigcontext, regs[29])
#define UNWIND_USER_SIGCONTEXT_RA	offsetof(struct sigcontext, regs[30])

#endif /* _ASM_ARM64_UNWIND_USER_H */
