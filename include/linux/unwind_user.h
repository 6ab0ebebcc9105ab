/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walking the user stack of the current task: SFrame where a section
 * describes the code, the kernel's signal frames, frame pointers otherwise,
 * chosen again for every frame.
 */
#ifndef _LINUX_UNWIND_USER_H
#define _LINUX_UNWIND_USER_H

#include <linux/errno.h>
#include <linux/unwind_user_types.h>

struct mm_struct;
struct pt_regs;
struct task_struct;

/*
 * mainline's deferred unwinder keeps a trace in one 4 KiB page; /proc and
 * the deferred cache default to the same depth.
 */
#define UNWIND_USER_DEFAULT_FRAMES	510
/* 128 KiB of cache for each task that is sampled: enough for any stack */
#define UNWIND_USER_MAX_FRAMES		16384
/*
 * SFrame rows a walk with page faults disabled (NMI) may read.  A hostile
 * function can make one lookup read 65,535; real stacks need a few per
 * frame (the median function has 186 bytes and 17 rows on average).
 */
#define UNWIND_USER_NOFAULT_FRES	4096
/*
 * And a walk that may fault (a read of /proc/<pid>/ustack, a deferred
 * unwind): 128 rows for each of the default frames, so real stacks never
 * meet it, while a stack of hostile functions costs no more than this.
 */
#define UNWIND_USER_FAULTABLE_FRES	(128 * UNWIND_USER_DEFAULT_FRAMES)

/**
 * struct unwind_user_state - where a walk is
 *
 * A walk is unwind_user_start(), then unwind_user_next() until @done.
 * @ip: address of the current frame's code.
 * @sp: its stack pointer.
 * @fp: its frame pointer.
 * @ra: value of the return address register (arm64 LR, s390 r14) while
 *	that register is known, in the topmost frame and in a frame a signal
 *	interrupted; 0 where the architecture has none.
 * @cfa: CFA of the frame just left, 0 in the topmost frame: each step
 *	must find a higher one, so no walk goes round in circles.
 * @stack_low: lowest stack address seen: no return address may lie
 *	between it and @cfa.
 * @regs: the task's registers while the current frame is the one they
 *	describe (topmost); NULL after.
 * @task: the task whose stack is walked, for registers an arch keeps
 *	outside @regs.
 * @ctx: whose memory the walk reads and how, and the SFrame rows it may
 *	still read (past them, frames are stepped by the other methods).
 * @ws: word size of the task (4 for compat tasks, which have no SFrame).
 * @current_type: how the current frame was found; UNWIND_USER_TYPE_NONE
 *	for the topmost frame.
 * @available_types: the methods this walk may use.
 * @ra_known: @ra holds the current frame's return address register.
 * @topmost: the current frame is the one the registers describe.
 * @done: the walk is over (@error says whether it ended cleanly).
 * @error: the walk ended because no method could find a caller.
 */
struct unwind_user_state {
	unsigned long		ip;
	unsigned long		sp;
	unsigned long		fp;
	unsigned long		ra;
	unsigned long		cfa;
	unsigned long		stack_low;
	struct pt_regs		*regs;
	struct task_struct	*task;
	struct unwind_user_ctx	ctx;
	unsigned int		ws;
	enum unwind_user_type	current_type;
	unsigned int		available_types;
	bool			ra_known;
	bool			topmost;
	bool			done;
	bool			error;
};

/* As stack_trace_consume_fn: false stops the walk. */
typedef bool (*unwind_user_consume_fn)(void *cookie, unsigned long addr);

#ifdef CONFIG_UNWIND_USER

#include <asm/unwind_user.h>

/* Defaults for what <asm/unwind_user.h> need not say */
#ifndef UNWIND_USER_CFA_TO_SP
#define UNWIND_USER_CFA_TO_SP		0
#endif
#ifndef UNWIND_USER_FP_CFA_ADJUST
#define UNWIND_USER_FP_CFA_ADJUST	0
#endif
#ifndef unwind_user_addr_end
/* No return address, SP or signal-frame IP of the task lies at or above */
#define unwind_user_addr_end()		TASK_SIZE
#endif
#ifndef unwind_user_mm_addr_end
/* The same for a task of address space @mm, which may not be current's */
#define unwind_user_mm_addr_end(mm)	((mm)->task_size)
#endif
#ifndef UNWIND_USER_ENTRY_INSN_BYTES
/* No way to tell a function's first instruction */
#define UNWIND_USER_ENTRY_INSN_BYTES	0

static inline bool unwind_user_fp_entry_insn(const u8 *code)
{
	return false;
}
#endif

/**
 * struct unwind_user_sigframe - a kind of signal frame the kernel sets up
 * @code: the instructions of the trampoline a handler returns into.
 * @len: their length.
 * @last: offset of their last instruction, the system call, when there is
 *	one before it: an interrupt or a single step may stop a task there,
 *	SP where it was at the first.  0 for a one-instruction trampoline.
 * @context: offset from SP at the trampoline to the saved registers,
 *	where the UNWIND_USER_SIGCONTEXT_* offsets apply.
 */
struct unwind_user_sigframe {
	u8	code[12];
	u8	len;
	u8	last;
	u16	context;
};

#ifndef UNWIND_USER_SIGCONTEXT_RA
#define UNWIND_USER_SIGCONTEXT_RA	-1
#endif

extern unsigned int unwind_user_max_frames;

int unwind_user(struct unwind_stacktrace *trace, unsigned int max_entries);
bool unwind_user_walk_nofault(struct pt_regs *regs,
			      unwind_user_consume_fn consume, void *cookie);

int unwind_user_start(struct unwind_user_state *state, bool nofault);
#if IS_ENABLED(CONFIG_KUNIT)
/* KUnit's way in: a walk from a frame of its making */
void __unwind_user_start(struct unwind_user_state *state, unsigned long ip,
			 unsigned long sp, unsigned long fp, unsigned int ws,
			 bool nofault);
unsigned long unwind_user_uprobe_ip(struct task_struct *task,
				    unsigned long ip);
#endif
int unwind_user_start_remote(struct unwind_user_state *state,
			     struct task_struct *task, struct mm_struct *mm,
			     struct pt_regs *regs);
int unwind_user_next(struct unwind_user_state *state);

extern const struct file_operations proc_pid_ustack_operations;

#else /* !CONFIG_UNWIND_USER */

static inline int unwind_user(struct unwind_stacktrace *trace,
			      unsigned int max_entries)
{
	trace->nr = 0;
	return -ENOSYS;
}

static inline bool unwind_user_walk_nofault(struct pt_regs *regs,
					    unwind_user_consume_fn consume,
					    void *cookie)
{
	return false;
}

#endif /* CONFIG_UNWIND_USER */

#endif /* _LINUX_UNWIND_USER_H */
