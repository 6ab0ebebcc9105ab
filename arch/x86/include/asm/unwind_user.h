/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_UNWIND_USER_H
#define _ASM_X86_UNWIND_USER_H

#include <linux/array_size.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>
#include <asm/ptrace.h>
#include <asm/sigframe.h>

/* DWARF register numbers of the x86-64 psABI */
#define UNWIND_USER_DWARF_SP	7
#define UNWIND_USER_DWARF_FP	6
#define UNWIND_USER_DWARF_RA	16	/* a column, not a register */

/* push %rbp; mov %rsp,%rbp: the caller's RBP and RA sit just below the CFA. */
static inline void unwind_user_fp_frame(struct unwind_user_frame *frame,
					int ws, bool entry)
{
	*frame = (struct unwind_user_frame){
		.cfa = { .base = UNWIND_USER_BASE_FP, .offset = 2 * ws },
		.ra = { .base = UNWIND_USER_BASE_CFA, .deref = true, .offset = -ws },
		.fp = { .base = UNWIND_USER_BASE_CFA, .deref = true, .offset = -2 * ws },
	};
	/* On a function's first instruction only the return address is pushed. */
	if (entry) {
		frame->cfa = (struct unwind_user_rule){ .base = UNWIND_USER_BASE_SP,
							.offset = ws };
		frame->fp.base = UNWIND_USER_BASE_SAME;
	}
}

/* A function's first instruction: the call pushed the return address, nothing else. */
static inline void unwind_user_entry_frame(struct unwind_user_frame *frame,
					   int ws)
{
	unwind_user_fp_frame(frame, ws, true);
}

/*
 * No stub of x86-64 code lacks SFrame: GNU ld describes its PLTs.  Code
 * no FDE covers (assembly without CFI, crti's _init) says nothing of
 * where its caller is.
 */
#define UNWIND_USER_STUB_BEFORE	0
#define UNWIND_USER_STUB_BYTES	0

static inline bool unwind_user_stub_frame(const u8 *code,
					  struct unwind_user_frame *frame, int ws)
{
	return false;
}

/*
 * The first bytes of a frame-pointer function: push %rbp, or endbr64
 * before it.  Code bytes are compared as read, lowest address first.
 */
static inline bool unwind_user_fp_entry_insn(const u8 *code)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	return code[0] == 0x55 || !memcmp(code, endbr64, sizeof(endbr64));
}

#define UNWIND_USER_ENTRY_INSN_BYTES	4

static inline unsigned int unwind_user_word_size(struct task_struct *task,
						 struct pt_regs *regs)
{
	return user_64bit_mode(regs) ? 8 : 4;
}

static inline unsigned long unwind_user_frame_pointer(struct pt_regs *regs)
{
	return regs->bp;
}

/* No register holds the return address on x86. */
static inline bool unwind_user_ra_reg(struct pt_regs *regs, unsigned long *ra)
{
	return false;
}

static inline bool unwind_user_get_reg(struct task_struct *task,
				       struct pt_regs *regs, unsigned int regnum,
				       unsigned long *val)
{
	static const u8 offsets[] = {
		offsetof(struct pt_regs, ax), offsetof(struct pt_regs, dx),
		offsetof(struct pt_regs, cx), offsetof(struct pt_regs, bx),
		offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
		offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
		offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
	};

	if (regnum >= ARRAY_SIZE(offsets))
		return false;
	*val = *(unsigned long *)((u8 *)regs + offsets[regnum]);
	return true;
}

#define unwind_user_strip_ra(ra)	(ra)

/*
 * Signal trampolines, each with where the interrupted registers are
 * relative to SP there.  glibc's __restore_rt: mov $__NR_rt_sigreturn,%rax;
 * syscall.  The handler's ret popped pretcode, so SP is at rt_sigframe.uc.
 */
#define UNWIND_USER_SIGFRAMES {						\
	{ .code = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 },\
	  .len = 9, .last = 7,						\
	  .context = offsetof(struct rt_sigframe, uc.uc_mcontext) -	\
		     offsetof(struct rt_sigframe, uc) },		\
}

#define UNWIND_USER_SIGCONTEXT_IP	offsetof(struct sigcontext, ip)
#define UNWIND_USER_SIGCONTEXT_SP	offsetof(struct sigcontext, sp)
#define UNWIND_USER_SIGCONTEXT_FP	offsetof(struct sigcontext, bp)

#endif /* _ASM_X86_UNWIND_USER_H */
