// SPDX-License-Identifier: GPL-2.0
/*
 * Walking a task's user stack: the current task's, or that of a task which
 * is not running, for /proc/<pid>/ustack.  Each frame is stepped by the
 * first method that can: the SFrame rule of its code, the kernel's signal
 * frame when it is a sigreturn trampoline, or frame pointers; so one stack
 * may mix them.  Everything comes from user memory the task controls, so
 * every step must find a higher CFA, aligned, and a return address that is
 * a user address outside the stack walked so far, in an executable mapping
 * where the walk may sleep to look; anything else ends the walk, never the
 * kernel.  A signal frame starts those checks again (its
 * handler may have run on another stack), so signal frames a task forged
 * to point at each other repeat frames: only the caller's bound on frames
 * ends such a walk, as it ends every walk.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/sframe_mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unwind_user.h>
#include <linux/uprobes.h>
#include <kunit/visibility.h>
#include <asm/tlb.h>

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "unwind_user."

/* Depth of /proc/<pid>/ustack and of each task's deferred unwind cache */
unsigned int unwind_user_max_frames = UNWIND_USER_DEFAULT_FRAMES;

static int unwind_user_max_frames_set(const char *val,
				      const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (!n || n > UNWIND_USER_MAX_FRAMES)
		return -EINVAL;
	WRITE_ONCE(unwind_user_max_frames, n);
	return 0;
}

static const struct kernel_param_ops unwind_user_max_frames_ops = {
	.set = unwind_user_max_frames_set,
	.get = param_get_uint,
};
module_param_cb(max_frames, &unwind_user_max_frames_ops,
		&unwind_user_max_frames, 0644);

static const struct unwind_user_sigframe unwind_user_sigframes[] =
	UNWIND_USER_SIGFRAMES;

/*
 * Another task's memory is read as /proc/<pid>/mem reads it: a range a
 * userfaultfd watches fails instead of waiting for its server.
 */
static int unwind_user_copy(struct unwind_user_state *state, void *dst,
			    unsigned long addr, int len)
{
	if (state->ctx.mm)
		return access_remote_vm(state->ctx.mm, addr, dst, len, 0) == len ?
		       0 : -EFAULT;
	return copy_from_user(dst, (void __user *)addr, len) ? -EFAULT : 0;
}

/* A word of another task's memory, read as get_user() of that width would */
static int unwind_user_read_remote(struct unwind_user_state *state,
				   unsigned long addr, unsigned long *word)
{
	u32 w;

	if (state->ws != sizeof(w))
		return unwind_user_copy(state, word, addr, sizeof(*word));
	if (unwind_user_copy(state, &w, addr, sizeof(w)))
		return -EFAULT;
	*word = w;
	return 0;
}

static int unwind_user_read(struct unwind_user_state *state, unsigned long addr,
			    unsigned long *word)
{
	if (state->ctx.mm)
		return unwind_user_read_remote(state, addr, word);
	if (state->ws == sizeof(u32)) {
		u32 w;

		if (get_user(w, (u32 __user *)addr))
			return -EFAULT;
		*word = w;
		return 0;
	}
	return get_user(*word, (unsigned long __user *)addr) ? -EFAULT : 0;
}

/* No return address, SP or signal-frame IP of the task lies at or above */
static unsigned long unwind_user_end(struct unwind_user_state *state)
{
	/* Another task's limit, not the reader's TASK_SIZE */
	if (state->ctx.mm)
		return unwind_user_mm_addr_end(state->ctx.mm);
	return unwind_user_addr_end();
}

/* SP and FP are known in every frame; other registers only in the topmost. */
static int unwind_user_reg(struct unwind_user_state *state, unsigned int regnum,
			   unsigned long *val)
{
	if (regnum == UNWIND_USER_DWARF_SP) {
		*val = state->sp;
		return 0;
	}
	if (regnum == UNWIND_USER_DWARF_FP) {
		*val = state->fp;
		return 0;
	}
	if (regnum == UNWIND_USER_DWARF_RA && state->ra_known) {
		*val = state->ra;
		return 0;
	}
	if (state->regs &&
	    unwind_user_get_reg(state->task, state->regs, regnum, val))
		return 0;
	return -EINVAL;
}

/* The value a rule describes; SAME rules are the caller's business. */
static int unwind_user_eval(struct unwind_user_state *state,
			    const struct unwind_user_rule *rule,
			    unsigned long cfa, unsigned long *val)
{
	unsigned long base;
	int ret;

	switch (rule->base) {
	case UNWIND_USER_BASE_CFA:
		base = cfa;
		break;
	case UNWIND_USER_BASE_SP:
		base = state->sp;
		break;
	case UNWIND_USER_BASE_FP:
		/* A frame pointer below SP is not one. */
		if (state->fp < state->sp)
			return -EINVAL;
		base = state->fp;
		break;
	case UNWIND_USER_BASE_REG:
		ret = unwind_user_reg(state, rule->regnum, &base);
		if (ret)
			return ret;
		break;
	default:
		return -EINVAL;
	}
	base += rule->offset;
	if (!rule->deref) {
		*val = base;
		return 0;
	}
	return unwind_user_read(state, base, val);
}

/*
 * Is @addr in an executable mapping of the walked task?  Only a walk that
 * may sleep can look, under the mmap lock; an NMI's or IRQ's relies on
 * the bounds unwind_user_caller() checks and on the lookup the next step
 * makes.  Not inlined: nothing of it on the stack of a walk that cannot
 * take it.
 */
static noinline bool unwind_user_in_code(struct unwind_user_state *state,
					 unsigned long addr)
{
	struct mm_struct *mm = state->ctx.mm ?: state->task->mm;
	struct vm_area_struct *vma;
	bool code;

	/* Only kernel threads have none, and their user stacks are not walked */
	if (!mm)
		return true;
	if (mmap_read_lock_killable(mm))
		return false;
	vma = vma_lookup(mm, addr);
	code = vma && (vma->vm_flags & VM_EXEC);
	mmap_read_unlock(mm);
	return code;
}

/*
 * The caller at @cfa by @frame's RA and FP rules, if what they give passes
 * the checks that keep a hostile stack from steering the walk: its return
 * address in @ra, 0 when the frame is the outermost, and its FP in @fp.
 * The walk is not moved: unwind_user_next_uncovered() only tries a caller.
 */
static int unwind_user_caller(struct unwind_user_state *state,
			      const struct unwind_user_frame *frame,
			      unsigned long cfa, unsigned long *ra,
			      unsigned long *fp)
{
	int ret;

	if (cfa & (state->ws - 1))
		return -EINVAL;
	if (state->cfa ? cfa <= state->cfa : cfa < state->sp)
		return -EINVAL;

	if (frame->ra.base == UNWIND_USER_BASE_SAME) {
		if (!state->ra_known)
			return -EINVAL;
		*ra = state->ra;
	} else {
		ret = unwind_user_eval(state, &frame->ra, cfa, ra);
		if (ret)
			return ret;
	}
	if (frame->fp.base == UNWIND_USER_BASE_SAME) {
		*fp = state->fp;
	} else {
		ret = unwind_user_eval(state, &frame->fp, cfa, fp);
		if (ret)
			return ret;
	}

	*ra = unwind_user_strip_ra(*ra);
	/* 0: the outermost frame of code that zeroes its return address */
	if (!*ra)
		return 0;
	if (*ra >= unwind_user_end(state) ||
	    (*ra >= state->stack_low && *ra <= cfa))
		return -EINVAL;
	/* The call is the instruction before: a mapping may end right after it */
	if (!state->ctx.nofault && !unwind_user_in_code(state, *ra - 1))
		return -EINVAL;
	return 0;
}

/* Moves the walk to the caller unwind_user_caller() found at @cfa */
static void unwind_user_move(struct unwind_user_state *state, unsigned long ra,
			     unsigned long fp, unsigned long cfa)
{
	state->ip = ra;
	state->sp = cfa + UNWIND_USER_CFA_TO_SP;
	state->fp = fp;
	state->cfa = cfa;
	state->regs = NULL;
	state->ra_known = false;
	state->topmost = false;
}

/* Moves to the caller at @cfa by @frame's rules, or ends the walk there */
static int unwind_user_step(struct unwind_user_state *state,
			    const struct unwind_user_frame *frame,
			    unsigned long cfa)
{
	unsigned long ra, fp;
	int ret;

	ret = unwind_user_caller(state, frame, cfa, &ra, &fp);
	if (ret)
		return ret;
	if (!ra)
		state->done = true;
	else
		unwind_user_move(state, ra, fp, cfa);
	return 0;
}

/*
 * A caller's rules are those of its call instruction, not of the return
 * address, which is past the call and, after a call that never returns
 * (the last instruction of exit() calls _exit()), in the next function.
 * Only a topmost frame (interrupted, or resumed by sigreturn) is at the
 * very instruction its rules describe.
 */
static int unwind_user_lookup(struct unwind_user_state *state,
			      struct unwind_user_frame *frame)
{
	return sframe_lookup(&state->ctx, state->ip - !state->topmost, frame);
}

/*
 * The rules of a topmost frame at @state's IP when it is in a stub the
 * arch knows by its code (a PLT entry), into @frame.  Not inlined: the
 * code read here is off the stack by the time the caller's lookup runs,
 * on the deepest path of an NMI's walk.
 */
static noinline bool unwind_user_stub(struct unwind_user_state *state,
				      struct unwind_user_frame *frame)
{
	u8 code[UNWIND_USER_STUB_BYTES ?: 1];

	if (!UNWIND_USER_STUB_BYTES ||
	    unwind_user_copy(state, code, state->ip - UNWIND_USER_STUB_BEFORE,
			     UNWIND_USER_STUB_BYTES))
		return false;
	return unwind_user_stub_frame(code, frame, state->ws);
}

/*
 * The interrupted frame is in code of an object with SFrame that no FDE
 * covers, as the lookup's -ENODATA says: a PLT stub (GNU ld describes none
 * on arm64, nor on s390x in a PIE), assembly without CFI (glibc's _init
 * and _fini), gcc's crt code.  Where the code is a stub the arch knows,
 * its rules find the caller: taken only if SFrame describes the code it
 * returns to.  Anywhere else nothing says where the caller is (a prologue
 * may have moved the stack pointer and saved the return address), and
 * the walk ends: frame pointers would skip the caller, whose frame holds
 * none, and the rule of a function's entry would repeat it.  The caller's
 * rules are looked up again by the next step: once for each topmost frame
 * (the interrupted one and each after a signal frame), and cheaper than
 * carrying them in the walk's state through every other step.
 *
 * The walk moves only once the caller's lookup found rules, so that no
 * copy of its state need be put back on the deepest path of an NMI's walk;
 * the rows that lookup read are spent all the same.  @frame is the
 * caller's, that no rules were found for: scratch here, not another frame.
 */
static int unwind_user_next_uncovered(struct unwind_user_state *state,
				      struct unwind_user_frame *frame)
{
	unsigned long cfa, ra, fp;
	int ret;

	if (!state->topmost || !unwind_user_stub(state, frame))
		return -ENOENT;
	ret = unwind_user_eval(state, &frame->cfa, 0, &cfa);
	if (!ret)
		ret = unwind_user_caller(state, frame, cfa, &ra, &fp);
	/* At the caller's call, as unwind_user_lookup() looks it up */
	if (ret || !ra || sframe_lookup(&state->ctx, ra - 1, frame))
		return -ENOENT;
	unwind_user_move(state, ra, fp, cfa);
	return 0;
}

/*
 * -ENOENT only when no section registered for the frame's object holds its
 * IP: anything else, a step or not, and frame pointers must not guess
 * there (see unwind_user_next()).
 */
static int unwind_user_next_sframe(struct unwind_user_state *state)
{
	struct unwind_user_frame frame;
	unsigned long cfa;
	int ret;

	ret = unwind_user_lookup(state, &frame);
	if (ret == -ENODATA)
		return unwind_user_next_uncovered(state, &frame) ? -ENODATA : 0;
	if (ret)
		return ret;
	if (frame.outermost) {
		state->done = true;
		return 0;
	}
	/* The signal method reads what the kernel saved; SFrame cannot say it. */
	if (frame.signal)
		return -EAGAIN;
	/* A CFA is always computed from something. */
	if (frame.cfa.base == UNWIND_USER_BASE_SAME)
		return -EINVAL;
	ret = unwind_user_eval(state, &frame.cfa, 0, &cfa);
	if (ret)
		return ret;
	return unwind_user_step(state, &frame, cfa);
}

/*
 * The kind of trampoline @state's IP is in: at its start, as every frame a
 * handler returned into is, or, topmost only, at its system call.  Not
 * inlined: the code read here is off the stack by the time the signal
 * frame is read, on the deepest path of an NMI's walk.
 */
static noinline const struct unwind_user_sigframe *
unwind_user_sigframe_at(struct unwind_user_state *state)
{
	const struct unwind_user_sigframe *sf;
	unsigned int i, len = 0;
	u8 code[sizeof(sf->code)];

	/* One read of the longest trampoline serves every kind. */
	for (i = 0; i < ARRAY_SIZE(unwind_user_sigframes); i++)
		len = max_t(unsigned int, len, unwind_user_sigframes[i].len);
	if (!unwind_user_copy(state, code, state->ip, len)) {
		for (i = 0; i < ARRAY_SIZE(unwind_user_sigframes); i++) {
			sf = &unwind_user_sigframes[i];
			if (!memcmp(code, sf->code, sf->len))
				return sf;
		}
	}
	if (!state->topmost)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(unwind_user_sigframes); i++) {
		sf = &unwind_user_sigframes[i];
		if (sf->last && state->ip >= sf->last &&
		    !unwind_user_copy(state, code, state->ip - sf->last, sf->len) &&
		    !memcmp(code, sf->code, sf->len))
			return sf;
	}
	return NULL;
}

/*
 * A handler returns into a sigreturn trampoline, which the kernel's signal
 * frame sits above: the interrupted IP, SP and FP (and LR or r14, where the
 * return address may still be in it) are read back from it.  The frame
 * that follows is as good as a topmost one, so its CFA may be anywhere
 * (sigaltstack): the walk's monotonic checks start again from it.
 */
static int unwind_user_next_signal(struct unwind_user_state *state)
{
	const struct unwind_user_sigframe *sf;
	unsigned long ctx, ip, sp, fp, end, ra = 0;

	if (state->ws != sizeof(long))
		return -ENOENT;
	sf = unwind_user_sigframe_at(state);
	if (!sf)
		return -ENOENT;

	ctx = state->sp + sf->context;
	if (unwind_user_read(state, ctx + UNWIND_USER_SIGCONTEXT_IP, &ip) ||
	    unwind_user_read(state, ctx + UNWIND_USER_SIGCONTEXT_SP, &sp) ||
	    unwind_user_read(state, ctx + UNWIND_USER_SIGCONTEXT_FP, &fp) ||
	    (UNWIND_USER_SIGCONTEXT_RA >= 0 &&
	     unwind_user_read(state, ctx + UNWIND_USER_SIGCONTEXT_RA, &ra)))
		return -EINVAL;
	end = unwind_user_end(state);
	if (!ip || ip >= end || sp >= end || (sp & (state->ws - 1)))
		return -EINVAL;
	if (!state->ctx.nofault && !unwind_user_in_code(state, ip))
		return -EINVAL;

	state->ip = ip;
	state->sp = sp;
	state->fp = fp;
	state->ra = ra;
	state->ra_known = UNWIND_USER_SIGCONTEXT_RA >= 0;
	state->cfa = 0;
	state->stack_low = sp;
	state->regs = NULL;
	state->topmost = true;
	return 0;
}

/* On a function's first instruction its frame is not set up yet. */
static bool unwind_user_at_function_start(struct unwind_user_state *state)
{
	u8 code[UNWIND_USER_ENTRY_INSN_BYTES + 1];

	if (!UNWIND_USER_ENTRY_INSN_BYTES || !state->topmost)
		return false;
	if (unwind_user_copy(state, code, state->ip,
			     UNWIND_USER_ENTRY_INSN_BYTES))
		return false;
	return unwind_user_fp_entry_insn(code);
}

static int unwind_user_next_fp(struct unwind_user_state *state)
{
	bool entry = unwind_user_at_function_start(state);
	struct unwind_user_frame frame;
	unsigned long cfa;
	int ret;

	unwind_user_fp_frame(&frame, state->ws, entry);
	/* The chain's end: a zero frame pointer, or a zero back chain */
	if (!entry && !frame.cfa.deref && !state->fp) {
		state->done = true;
		return 0;
	}
	ret = unwind_user_eval(state, &frame.cfa, 0, &cfa);
	if (ret)
		return ret;
	if (frame.cfa.deref) {
		if (!cfa) {
			state->done = true;
			return 0;
		}
		cfa += UNWIND_USER_FP_CFA_ADJUST;
	}
	return unwind_user_step(state, &frame, cfa);
}

/**
 * unwind_user_next() - step to the caller of the current frame
 * @state: a walk begun by unwind_user_start().
 *
 * Tries each available method in the order of enum unwind_user_type_bits.
 * When none finds a caller, or one finds the stack's end, the walk is done.
 * Frame pointers are the method of objects without SFrame: in code of an
 * object that has a section, where SFrame's rules could not be followed
 * (a CFA in a register only the topmost frame knows, a page that cannot
 * be read without faulting, a PC no FDE covers), they would walk frames
 * that compilers built without them, and a wrong frame is worse than a
 * walk that ends.
 *
 * Context: As for the unwind_user_start() that began the walk.
 * Return: 0 if @state now describes the caller; -EINVAL once done.
 */
int unwind_user_next(struct unwind_user_state *state)
{
	unsigned long types = state->available_types;
	bool covered = false;
	unsigned int bit;
	int ret;

	if (state->done)
		return -EINVAL;
	/* Thousands of frames, each faulting pages in: let others run. */
	if (!state->ctx.nofault)
		cond_resched();

	for_each_set_bit(bit, &types, NR_UNWIND_USER_TYPE_BITS) {
		switch (BIT(bit)) {
		case UNWIND_USER_TYPE_SFRAME:
			ret = unwind_user_next_sframe(state);
			covered = ret != -ENOENT;
			break;
		case UNWIND_USER_TYPE_SIGNAL:
			ret = unwind_user_next_signal(state);
			break;
		case UNWIND_USER_TYPE_FP:
			ret = covered ? -ENOENT : unwind_user_next_fp(state);
			break;
		default:
			WARN_ONCE(1, "undefined unwind method bit %u\n", bit);
			ret = -EINVAL;
			break;
		}
		if (!ret) {
			state->current_type = BIT(bit);
			return state->done ? -EINVAL : 0;
		}
	}

	state->current_type = UNWIND_USER_TYPE_NONE;
	state->done = true;
	state->error = true;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(unwind_user_next);

/**
 * __unwind_user_start() - begin a walk at a given frame
 * @state: the walk.
 * @ip: address of the frame's code.
 * @sp: its stack pointer.
 * @fp: its frame pointer.
 * @ws: word size of the task, 8 or 4.
 * @nofault: read user memory with page faults disabled.
 *
 * For unwind_user_start() and for KUnit, which then sets @state->regs or
 * @state->ra where it knows them.
 */
VISIBLE_IF_KUNIT void
__unwind_user_start(struct unwind_user_state *state, unsigned long ip,
		    unsigned long sp, unsigned long fp, unsigned int ws,
		    bool nofault)
{
	memset(state, 0, sizeof(*state));
	state->ip = ip;
	state->sp = sp;
	state->fp = fp;
	state->stack_low = sp;
	state->task = current;
	state->ws = ws;
	state->ctx.nofault = nofault;
	state->ctx.budget = nofault ? UNWIND_USER_NOFAULT_FRES :
				      UNWIND_USER_FAULTABLE_FRES;
	state->topmost = true;
	state->available_types = UNWIND_USER_TYPE_FP;
	/* Compat tasks have no SFrame ABI and another signal frame. */
	if (ws == sizeof(long))
		state->available_types |= UNWIND_USER_TYPE_SIGNAL;
	if (ws == sizeof(long) && IS_ENABLED(CONFIG_UNWIND_USER_SFRAME))
		state->available_types |= UNWIND_USER_TYPE_SFRAME;
	if (!ws)
		state->done = true;
}
EXPORT_SYMBOL_IF_KUNIT(__unwind_user_start);

/**
 * unwind_user_uprobe_ip() - where a walk from a uprobe's out-of-line step starts
 * @task: the task walked; only the current one can be stepping.
 * @ip: its user IP.
 *
 * A uprobe runs the instruction it replaced out of line: single-stepped in
 * a slot of the task's [uprobes] page, which no object maps and no SFrame
 * covers, with every register but the IP as it was at the probed address.
 * A walk from there starts at that address, which signals report too
 * (uprobe_get_trap_addr()).  A deferred walk asked for by a uprobe's
 * handler always starts there: its task work runs on the way to the slot.
 * The IP is at the slot or, the instruction done, just past it (the
 * slot's size bounds both).
 *
 * Context: any, NMI included: the task's own uprobe_task, which only the
 * task itself frees (clearing the pointer first).
 * Return: the address the walk starts at.
 */
VISIBLE_IF_KUNIT unsigned long unwind_user_uprobe_ip(struct task_struct *task,
						     unsigned long ip)
{
#ifdef CONFIG_UPROBES
	struct uprobe_task *utask = task == current ? task->utask : NULL;

	if (utask && utask->active_uprobe &&
	    ip - utask->xol_vaddr <= UPROBE_XOL_SLOT_BYTES)
		return utask->vaddr + (ip - utask->xol_vaddr);
#endif
	return ip;
}
EXPORT_SYMBOL_IF_KUNIT(unwind_user_uprobe_ip);

/*
 * Begins a walk at the user registers @regs of @task; -EINVAL (and a walk
 * that is done) when it has no user stack there.
 */
static int unwind_user_start_regs(struct unwind_user_state *state,
				  struct task_struct *task,
				  struct pt_regs *regs, bool nofault)
{
	if ((task->flags & PF_KTHREAD) || !user_mode(regs)) {
		memset(state, 0, sizeof(*state));
		state->done = true;
		return -EINVAL;
	}
	__unwind_user_start(state,
			    unwind_user_uprobe_ip(task, instruction_pointer(regs)),
			    user_stack_pointer(regs),
			    unwind_user_frame_pointer(regs),
			    unwind_user_word_size(task, regs), nofault);
	state->task = task;
	state->regs = regs;
	state->ra_known = unwind_user_ra_reg(regs, &state->ra);
	return state->done ? -EINVAL : 0;
}

/**
 * unwind_user_start() - begin a walk of the current task's user stack
 * @state: the walk, at the frame the task entered the kernel from.
 * @nofault: read user memory with page faults disabled (IRQ, NMI); the
 *	caller disables them around the walk.
 *
 * It registers nothing: a caller that wants a process's files' sections
 * registered before its first walk asks first (sframe_want_current(),
 * sframe_want_current_nofault()).
 *
 * Context: Task context of a user task.  With @nofault false, a context
 *	that may fault and sleep.
 * Return: 0, or -EINVAL if the task has no user stack to walk (a kernel
 *	thread, or a task not stopped in user mode); then @state is done.
 */
int unwind_user_start(struct unwind_user_state *state, bool nofault)
{
	return unwind_user_start_regs(state, current, task_pt_regs(current),
				      nofault);
}

/**
 * unwind_user_start_remote() - begin a walk of another task's user stack
 * @state: the walk, at the frame the task entered the kernel from.
 * @task: the task, which must not run until the walk is over: stopped,
 *	traced, or asleep in the kernel.
 * @mm: its address space; the caller holds a reference (mmget()).
 * @regs: a copy of its user registers, taken while it was not running;
 *	it must outlive the walk.
 *
 * User memory is read through access_remote_vm(), so the walk may fault
 * pages in but never waits on a userfaultfd; each step is checked as in a
 * walk of the current task's stack, which is all that keeps a task that
 * runs after all from misleading it.
 *
 * Context: Process context that may fault and sleep.
 * Return: 0, or -EINVAL if the task has no user stack to walk; then
 *	@state is done.
 */
int unwind_user_start_remote(struct unwind_user_state *state,
			     struct task_struct *task, struct mm_struct *mm,
			     struct pt_regs *regs)
{
	int ret;

	might_fault();
	ret = unwind_user_start_regs(state, task, regs, false);
	state->ctx.mm = mm;
	return ret;
}

/*
 * Hands each frame's address to @consume until it or the walk says stop.
 * Inlined, so that no frame of its own sits between an NMI's walk and
 * the lookups below it.
 */
static __always_inline void
unwind_user_consume(struct unwind_user_state *state,
		    unwind_user_consume_fn consume, void *cookie)
{
	/* The first address comes from the registers: no user access. */
	if (state->done || !consume(cookie, state->ip))
		return;
	/*
	 * Another mm may be loaded: an NMI in x86's lazy TLB mode, or a
	 * tracepoint in the middle of switch_mm_irqs_off().  Only a walk that
	 * may fault runs where current->mm is surely the one loaded.
	 */
	if (state->ctx.nofault && !nmi_uaccess_okay())
		return;
	while (!unwind_user_next(state) && consume(cookie, state->ip))
		;
}

struct unwind_user_store {
	struct unwind_stacktrace	*trace;
	unsigned int			max_entries;
};

static bool unwind_user_trace_store(void *cookie, unsigned long ip)
{
	struct unwind_user_store *store = cookie;

	store->trace->entries[store->trace->nr++] = ip;
	return store->trace->nr < store->max_entries;
}

/**
 * unwind_user() - the current task's user stack, faulting pages in
 * @trace: filled with up to @max_entries addresses, innermost first.
 * @max_entries: room in @trace->entries.
 *
 * Context: Task context that may fault and sleep (syscall, task_work).
 * Return: 0 (an empty trace for kernel threads); -EINVAL if @max_entries
 *	is 0.
 */
int unwind_user(struct unwind_stacktrace *trace, unsigned int max_entries)
{
	struct unwind_user_store store = { trace, max_entries };
	struct unwind_user_state state;

	might_fault();
	trace->nr = 0;
	if (!max_entries)
		return -EINVAL;
	if (current->flags & PF_KTHREAD)
		return 0;
	unwind_user_start(&state, false);
	unwind_user_consume(&state, unwind_user_trace_store, &store);
	return 0;
}

/**
 * unwind_user_walk_nofault() - the current task's user stack by SFrame,
 *	for the kernel's own user stack tracers
 * @regs: the task's user registers, as the tracer was given them.
 * @consume: called with each frame's address, innermost first (the IP of
 *	@regs first); returns false to stop the walk.
 * @cookie: passed to @consume.
 *
 * perf's and BPF's user callchains and ftrace's user stack traces ask here
 * first.  The stack of a task with no SFrame section, or of a compat task,
 * is left to the tracer's own frame-pointer walker: it costs them one
 * pointer test and they see exactly what they saw before.  So is the
 * first stack of a process never walked before: the tracer asks first
 * (sframe_want_current_nofault()) for its sections to be registered
 * before it returns to user space.
 *
 * Context: Any, NMI included.
 * Return: true if the stack was walked here; false if the caller should
 *	walk it.
 */
bool unwind_user_walk_nofault(struct pt_regs *regs,
			      unwind_user_consume_fn consume, void *cookie)
{
	struct unwind_user_state state;

	if ((current->flags & PF_KTHREAD) || !current->mm || !user_mode(regs) ||
	    unwind_user_word_size(current, regs) != sizeof(long))
		return false;
	if (!sframe_mm_has_sections(current->mm))
		return false;
	pagefault_disable();
	unwind_user_start_regs(&state, current, regs, true);
	unwind_user_consume(&state, consume, cookie);
	pagefault_enable();
	return true;
}
