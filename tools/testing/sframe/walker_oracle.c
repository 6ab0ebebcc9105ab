// SPDX-License-Identifier: GPL-2.0-only
/*
 * The walker's oracle.  walk_run() maps an input's user memory, registers
 * its section and walks its stack every way the kernel can: stepped by
 * unwind_user_start() and unwind_user_next(), faultable and with page
 * faults disabled (and with a small FRE budget, if the input has one), and
 * through unwind_user() and unwind_user_walk_nofault().
 *
 * Before each step the oracle works the step out again by itself, from
 * what kernel/unwind/user.c documents: SFrame first (the reader's own
 * lookup, through walk_ref_lookup()), the sigreturn trampoline's signal
 * frame, then frame pointers, each a caller with a higher aligned CFA and
 * a return address that is a user address outside the stack walked so
 * far.  The step must give the same state, including the FRE rows it cost,
 * and may read only where that work read.  Independently of that work:
 * the CFA rises, no kernel address is reported, and a caller's address
 * loaded from memory is a word the walker itself read there.  The entry
 * points must give the stepped walks' frames, cut at their bounds.
 *
 * What the reference shares with the walker are the arch's descriptions
 * (frame-pointer and entry templates, signal frame offsets, PAC
 * stripping) and the reader.
 */
#include <stdarg.h>
#include <linux/unwind_user.h>
#include "walker_oracle.h"

static struct walk_result *res;
static struct pt_regs walk_regs;
static const struct walk_input *cur;
static u8 *walk_bufs[WALK_REGIONS];
static struct mm_struct walk_mm;

static bool fail(const char *fmt, ...)
{
	va_list ap;

	if (res->why[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
	return false;
}

/* The registers of @in, where the arch's pt_regs keeps them */
#if defined(WALKER_ARCH_X86)
static void walk_set_regs(const struct walk_input *in)
{
	unsigned long *gpr[16] = {
		&walk_regs.ax, &walk_regs.dx, &walk_regs.cx, &walk_regs.bx,
		&walk_regs.si, &walk_regs.di, &walk_regs.bp, &walk_regs.sp,
		&walk_regs.r8, &walk_regs.r9, &walk_regs.r10, &walk_regs.r11,
		&walk_regs.r12, &walk_regs.r13, &walk_regs.r14, &walk_regs.r15,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gpr); i++)
		*gpr[i] = in->regs[i];
	walk_regs.ip = in->regs[WALK_REG_IP];
	walk_regs.cs = in->flags & WALK_F_KERNEL_MODE ? 0x10 :
		       in->flags & WALK_F_COMPAT_MODE ? __USER32_CS : __USER_CS;
}

#define REF_GPRS	16
#define REF_WS(in)	((in)->flags & WALK_F_COMPAT_MODE ? 4 : 8)
#define REF_RA_REG	false

#elif defined(WALKER_ARCH_ARM64)
static void walk_set_regs(const struct walk_input *in)
{
	memcpy(walk_regs.regs, in->regs, sizeof(walk_regs.regs));
	walk_regs.sp = in->regs[31];
	walk_regs.pc = in->regs[WALK_REG_IP];
	walk_regs.pstate = in->flags & WALK_F_KERNEL_MODE ? 0x5 :
			   in->flags & WALK_F_COMPAT_MODE ? PSR_MODE32_BIT : 0;
}

#define REF_GPRS	31
#define REF_WS(in)	((in)->flags & WALK_F_COMPAT_MODE ? 0 : 8)
#define REF_RA_REG	true

#elif defined(WALKER_ARCH_S390)
static void walk_set_regs(const struct walk_input *in)
{
	/* FPRs by DWARF number: f0 f2 f4 f6 f1 f3 f5 f7 f8 f10 ... */
	static const u8 order[16] = { 0, 2, 4, 6, 1, 3, 5, 7,
				      8, 10, 12, 14, 9, 11, 13, 15 };
	unsigned int i;

	memcpy(walk_regs.gprs, in->regs, sizeof(walk_regs.gprs));
	for (i = 0; i < 16; i++)
		walk_task.thread.ufpu.vxrs[order[i]].high = in->regs[16 + i];
	walk_regs.psw.addr = in->regs[WALK_REG_IP];
	walk_regs.psw.mask = in->flags & WALK_F_KERNEL_MODE ? 0 : PSW_MASK_PSTATE;
}

#define REF_GPRS	32
#define REF_WS(in)	((in)->flags & WALK_F_COMPAT_TASK ? 0 : 8)
#define REF_RA_REG	true
#endif

/*
 * The first address no user code or stack of the task can have: TASK_SIZE,
 * and on s390 also the ASCE limit of its mm (none without one).
 */
static unsigned long ref_addr_end(void)
{
#ifdef WALKER_ARCH_S390
	if (cur->flags & WALK_F_NO_MM)
		return 0;
	return min_t(unsigned long, walk_task_size, cur->asce_limit);
#else
	return walk_task_size;
#endif
}

static void walk_setup(const struct walk_input *in)
{
	struct walk_region *r;
	unsigned int i;

	cur = in;
	memset(&walk_task, 0, sizeof(walk_task));
	memset(&walk_regs, 0, sizeof(walk_regs));
	walk_task.flags = in->flags & WALK_F_KTHREAD ? PF_KTHREAD : 0;
	walk_mm.context.asce_limit = in->asce_limit;
	walk_mm.task_size = WALK_TASK_SIZE(in->flags & WALK_F_COMPAT_TASK);
	walk_task.mm = in->flags & WALK_F_NO_MM ? NULL : &walk_mm;
	walk_have_mm = walk_task.mm;
	walk_task.regs = &walk_regs;
	walk_task.compat = in->flags & WALK_F_COMPAT_TASK;
	walk_task_size = WALK_TASK_SIZE(walk_task.compat);
	walk_set_regs(in);

	/* Each region in a block of its own size: ASan sees any overrun. */
	for (i = 0; i < WALK_REGIONS; i++) {
		r = &walk_map[i];
		*r = in->region[i];
		walk_bufs[i] = malloc(r->len ? r->len : 1);
		if (!walk_bufs[i])
			abort();
		if (r->len)
			memcpy(walk_bufs[i], in->region[i].data, r->len);
		r->data = walk_bufs[i];
	}
	walk_pagefault_disabled = 0;
	walk_atomic = false;
	walk_in_nmi = false;
	walk_nmi_uaccess_okay = true;
	walk_log_on = false;
	res->registered = !walk_register(walk_map[WALK_SECTION].addr,
					 walk_map[WALK_SECTION].len,
					 in->text_start, in->text_end);
}

static void walk_teardown(void)
{
	unsigned int i;

	walk_unregister();
	for (i = 0; i < WALK_REGIONS; i++) {
		free(walk_bufs[i]);
		walk_bufs[i] = NULL;
	}
	memset(walk_map, 0, sizeof(walk_map));
}

/* The reference step */

enum ref_kind { REF_NONE, REF_FRAME, REF_END };

struct ref {
	const struct unwind_user_state	*s;	/* the frame stepped from */
	unsigned int			budget;
	struct walk_read		reads[WALK_LOG_MAX];
	unsigned int			nreads;
	struct unwind_user_state	next;	/* the caller, for REF_FRAME */
	unsigned long			ra_from;
	bool				ra_loaded;
	unsigned long			from;	/* where the last load was */
	bool				loaded;
	/* A section holds the frame's code: frame pointers may not guess */
	bool				covered;
};

static bool ref_load(struct ref *ref, unsigned long addr, unsigned long len,
		     void *out)
{
	if (ref->nreads < ARRAY_SIZE(ref->reads)) {
		ref->reads[ref->nreads].addr = addr;
		ref->reads[ref->nreads].len = len;
		ref->nreads++;
	}
	ref->from = addr;
	ref->loaded = true;
	return walk_peek(out, addr, len);
}

static bool ref_word(struct ref *ref, unsigned long addr, unsigned long *val)
{
	u32 w32;
	u64 w64;

	if (ref->s->ws == 4) {
		if (!ref_load(ref, addr, 4, &w32))
			return false;
		*val = w32;
		return true;
	}
	if (!ref_load(ref, addr, 8, &w64))
		return false;
	*val = w64;
	return true;
}

/* A register the frame knows: SP and FP always, the rest while topmost */
static bool ref_reg(struct ref *ref, unsigned int regnum, unsigned long *val)
{
	const struct unwind_user_state *s = ref->s;

	if (regnum == UNWIND_USER_DWARF_SP)
		*val = s->sp;
	else if (regnum == UNWIND_USER_DWARF_FP)
		*val = s->fp;
	else if (regnum == UNWIND_USER_DWARF_RA && s->ra_known)
		*val = s->ra;
	else if (s->regs && regnum < REF_GPRS)
		*val = cur->regs[regnum];
	else
		return false;
	return true;
}

/* What @rule says, with @cfa the CFA an RA or FP rule may refer to */
static bool ref_value(struct ref *ref, const struct unwind_user_rule *rule,
		      unsigned long cfa, unsigned long *val)
{
	const struct unwind_user_state *s = ref->s;
	unsigned long base;

	ref->loaded = false;
	switch (rule->base) {
	case UNWIND_USER_BASE_CFA:
		base = cfa;
		break;
	case UNWIND_USER_BASE_SP:
		base = s->sp;
		break;
	case UNWIND_USER_BASE_FP:
		if (s->fp < s->sp)
			return false;
		base = s->fp;
		break;
	case UNWIND_USER_BASE_REG:
		if (!ref_reg(ref, rule->regnum, &base))
			return false;
		break;
	default:
		return false;
	}
	base += (long)rule->offset;
	if (!rule->deref) {
		*val = base;
		return true;
	}
	return ref_word(ref, base, val);
}

/* The caller at @cfa by @f's RA and FP rules, if it passes the checks */
static enum ref_kind ref_caller(struct ref *ref,
				const struct unwind_user_frame *f,
				unsigned long cfa)
{
	const struct unwind_user_state *s = ref->s;
	unsigned long ra, fp, ra_from = 0;
	bool ra_loaded = false;

	if (cfa % s->ws)
		return REF_NONE;
	/* Above the last CFA; from the topmost frame, not below its SP */
	if (s->cfa ? cfa <= s->cfa : cfa < s->sp)
		return REF_NONE;
	if (f->ra.base == UNWIND_USER_BASE_SAME) {
		if (!s->ra_known)
			return REF_NONE;
		ra = s->ra;
	} else {
		if (!ref_value(ref, &f->ra, cfa, &ra))
			return REF_NONE;
		ra_loaded = ref->loaded;
		ra_from = ref->from;
	}
	if (f->fp.base == UNWIND_USER_BASE_SAME)
		fp = s->fp;
	else if (!ref_value(ref, &f->fp, cfa, &fp))
		return REF_NONE;

	ra = unwind_user_strip_ra(ra);
	if (!ra)
		return REF_END;
	if (ra >= ref_addr_end() || (ra >= s->stack_low && ra <= cfa))
		return REF_NONE;

	ref->next = *s;
	ref->next.ip = ra;
	ref->next.sp = cfa + UNWIND_USER_CFA_TO_SP;
	ref->next.fp = fp;
	ref->next.cfa = cfa;
	ref->next.regs = NULL;
	ref->next.ra_known = false;
	ref->next.topmost = false;
	ref->ra_loaded = ra_loaded;
	ref->ra_from = ra_from;
	return REF_FRAME;
}

static enum ref_kind ref_sframe(struct ref *ref)
{
	const struct unwind_user_state *s = ref->s;
	struct unwind_user_frame f;
	unsigned long cfa;
	int ret;

	/* A caller's rules are its call's: the byte before the return address */
	ret = walk_ref_lookup(s->ip - !s->topmost, &f, &ref->budget);
	ref->covered = walk_ref_described(s->ip - !s->topmost);
	if (ret == -ENOENT) {
		u8 code[UNWIND_USER_STUB_BYTES ?: 1];

		/*
		 * Topmost in code of a described object no FDE covers: the
		 * rules of a stub the arch knows by its code, if SFrame
		 * describes where it returns.
		 */
		if (!s->topmost || !walk_ref_described(s->ip) || !UNWIND_USER_STUB_BYTES)
			return REF_NONE;
		if (!ref_load(ref, s->ip - UNWIND_USER_STUB_BEFORE, UNWIND_USER_STUB_BYTES,
			      code) ||
		    !unwind_user_stub_frame(code, &f, s->ws))
			return REF_NONE;
		if (!ref_value(ref, &f.cfa, 0, &cfa) ||
		    ref_caller(ref, &f, cfa) != REF_FRAME)
			return REF_NONE;
		if (walk_ref_lookup(ref->next.ip - 1, &f, &ref->budget))
			return REF_NONE;
		return REF_FRAME;
	}
	if (ret)
		return REF_NONE;
	if (f.outermost)
		return REF_END;
	/* Signal frames are the signal method's; a CFA needs a base */
	if (f.signal || f.cfa.base == UNWIND_USER_BASE_SAME ||
	    f.cfa.base == UNWIND_USER_BASE_CFA)
		return REF_NONE;
	if (!ref_value(ref, &f.cfa, 0, &cfa))
		return REF_NONE;
	return ref_caller(ref, &f, cfa);
}

static const struct unwind_user_sigframe ref_sigframes[] = UNWIND_USER_SIGFRAMES;

static enum ref_kind ref_signal(struct ref *ref)
{
	const struct unwind_user_state *s = ref->s;
	const struct unwind_user_sigframe *sf = NULL;
	unsigned long c, ip, sp, fp, ra = 0;
	u8 code[sizeof(sf->code)];
	unsigned int i, len = 0;

	if (s->ws != sizeof(long))
		return REF_NONE;
	for (i = 0; i < ARRAY_SIZE(ref_sigframes); i++)
		if (ref_sigframes[i].len > len)
			len = ref_sigframes[i].len;
	if (ref_load(ref, s->ip, len, code)) {
		for (i = 0; i < ARRAY_SIZE(ref_sigframes); i++) {
			if (!memcmp(code, ref_sigframes[i].code, ref_sigframes[i].len)) {
				sf = &ref_sigframes[i];
				break;
			}
		}
	}
	/* A topmost frame may also stand at the trampoline's system call. */
	for (i = 0; !sf && s->topmost && i < ARRAY_SIZE(ref_sigframes); i++) {
		const struct unwind_user_sigframe *k = &ref_sigframes[i];

		if (k->last && s->ip >= k->last &&
		    ref_load(ref, s->ip - k->last, k->len, code) &&
		    !memcmp(code, k->code, k->len))
			sf = k;
	}
	if (!sf)
		return REF_NONE;

	c = s->sp + sf->context;
	if (!ref_word(ref, c + UNWIND_USER_SIGCONTEXT_IP, &ip) ||
	    !ref_word(ref, c + UNWIND_USER_SIGCONTEXT_SP, &sp) ||
	    !ref_word(ref, c + UNWIND_USER_SIGCONTEXT_FP, &fp))
		return REF_NONE;
	if (UNWIND_USER_SIGCONTEXT_RA >= 0 &&
	    !ref_word(ref, c + UNWIND_USER_SIGCONTEXT_RA, &ra))
		return REF_NONE;
	if (!ip || ip >= ref_addr_end() || sp >= ref_addr_end() || sp % s->ws)
		return REF_NONE;

	/* As good as a topmost frame, on whatever stack it was */
	ref->next = *s;
	ref->next.ip = ip;
	ref->next.sp = sp;
	ref->next.fp = fp;
	ref->next.ra = ra;
	ref->next.ra_known = UNWIND_USER_SIGCONTEXT_RA >= 0;
	ref->next.cfa = 0;
	ref->next.stack_low = sp;
	ref->next.regs = NULL;
	ref->next.topmost = true;
	ref->ra_loaded = true;
	ref->ra_from = c + UNWIND_USER_SIGCONTEXT_IP;
	return REF_FRAME;
}

static enum ref_kind ref_fp(struct ref *ref)
{
	const struct unwind_user_state *s = ref->s;
	u8 code[UNWIND_USER_ENTRY_INSN_BYTES + 1];
	struct unwind_user_frame f;
	bool entry = false;
	unsigned long cfa;

	if (UNWIND_USER_ENTRY_INSN_BYTES && s->topmost &&
	    ref_load(ref, s->ip, UNWIND_USER_ENTRY_INSN_BYTES, code))
		entry = unwind_user_fp_entry_insn(code);
	unwind_user_fp_frame(&f, s->ws, entry);
	if (!entry && !f.cfa.deref && !s->fp)
		return REF_END;
	if (!ref_value(ref, &f.cfa, 0, &cfa))
		return REF_NONE;
	if (f.cfa.deref) {
		/* A zero back chain: the end */
		if (!cfa)
			return REF_END;
		cfa += UNWIND_USER_FP_CFA_ADJUST;
	}
	return ref_caller(ref, &f, cfa);
}

/* The state one unwind_user_next() from @s must leave, and what it returns */
static int ref_next(const struct unwind_user_state *s, struct ref *ref,
		    struct unwind_user_state *exp)
{
	static const struct {
		unsigned int type;
		enum ref_kind (*step)(struct ref *ref);
	} methods[] = {
		{ UNWIND_USER_TYPE_SFRAME, ref_sframe },
		{ UNWIND_USER_TYPE_SIGNAL, ref_signal },
		{ UNWIND_USER_TYPE_FP, ref_fp },
	};
	enum ref_kind kind;
	unsigned int i;

	memset(ref, 0, sizeof(*ref));
	ref->s = s;
	ref->budget = s->ctx.budget;
	*exp = *s;
	if (s->done)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(methods); i++) {
		if (!(s->available_types & methods[i].type))
			continue;
		/* Frame pointers are the method of objects without SFrame */
		if (methods[i].type == UNWIND_USER_TYPE_FP && ref->covered)
			continue;
		kind = methods[i].step(ref);
		if (kind == REF_NONE)
			continue;
		if (kind == REF_FRAME)
			*exp = ref->next;
		exp->ctx.budget = ref->budget;
		exp->current_type = methods[i].type;
		exp->done = kind == REF_END;
		return exp->done ? -EINVAL : 0;
	}
	exp->ctx.budget = ref->budget;
	exp->current_type = UNWIND_USER_TYPE_NONE;
	exp->done = true;
	exp->error = true;
	return -EINVAL;
}

/* The checks of a walk */

struct walk_ctx {
	const char	*name;
	unsigned int	step;
};

static bool cmp_field(const struct walk_ctx *w, const char *field,
		      unsigned long got, unsigned long exp)
{
	if (got == exp)
		return true;
	return fail("%s walk, step %u: %s is %#lx, the rules give %#lx",
		    w->name, w->step, field, got, exp);
}

static bool cmp_state(const struct walk_ctx *w,
		      const struct unwind_user_state *got,
		      const struct unwind_user_state *exp)
{
	return cmp_field(w, "done", got->done, exp->done) &&
	       cmp_field(w, "error", got->error, exp->error) &&
	       cmp_field(w, "current_type", got->current_type, exp->current_type) &&
	       cmp_field(w, "ip", got->ip, exp->ip) &&
	       cmp_field(w, "sp", got->sp, exp->sp) &&
	       cmp_field(w, "fp", got->fp, exp->fp) &&
	       cmp_field(w, "ra", got->ra, exp->ra) &&
	       cmp_field(w, "ra_known", got->ra_known, exp->ra_known) &&
	       cmp_field(w, "cfa", got->cfa, exp->cfa) &&
	       cmp_field(w, "stack_low", got->stack_low, exp->stack_low) &&
	       cmp_field(w, "regs", (unsigned long)got->regs,
			 (unsigned long)exp->regs) &&
	       cmp_field(w, "ws", got->ws, exp->ws) &&
	       cmp_field(w, "ctx.budget", got->ctx.budget, exp->ctx.budget) &&
	       cmp_field(w, "available_types", got->available_types,
			 exp->available_types) &&
	       cmp_field(w, "ctx.nofault", got->ctx.nofault, exp->ctx.nofault) &&
	       cmp_field(w, "topmost", got->topmost, exp->topmost);
}

/* What unwind_user_start() must leave for @in */
static int ref_start(const struct walk_input *in, bool nofault,
		     struct unwind_user_state *exp)
{
	unsigned int ws = REF_WS(in);

	memset(exp, 0, sizeof(*exp));
	if ((in->flags & (WALK_F_KTHREAD | WALK_F_KERNEL_MODE))) {
		exp->done = true;
		return -EINVAL;
	}
	exp->ip = in->regs[WALK_REG_IP];
	exp->sp = in->regs[UNWIND_USER_DWARF_SP];
	exp->fp = in->regs[UNWIND_USER_DWARF_FP];
	exp->stack_low = exp->sp;
	exp->ws = ws;
	exp->ctx.nofault = nofault;
	exp->ctx.budget = nofault ? UNWIND_USER_NOFAULT_FRES :
				    UNWIND_USER_FAULTABLE_FRES;
	exp->topmost = true;
	exp->available_types = UNWIND_USER_TYPE_FP;
	if (ws == sizeof(long))
		exp->available_types |= UNWIND_USER_TYPE_SIGNAL |
					UNWIND_USER_TYPE_SFRAME;
	exp->regs = &walk_regs;
	exp->ra_known = REF_RA_REG;
	if (REF_RA_REG)
		exp->ra = in->regs[UNWIND_USER_DWARF_RA];
	exp->done = !ws;
	return exp->done ? -EINVAL : 0;
}

/*
 * Whether the input lets [@addr, @addr + @len) be read now: worked out
 * from the input, not from the shim's map, so that a shim that let the
 * walker read a hole, or past a region, is caught too.
 */
static bool readable(unsigned long addr, unsigned long len)
{
	const struct walk_region *r;
	unsigned int i;

	if (len > walk_task_size || addr > walk_task_size - len)
		return false;
	for (i = 0; i < WALK_REGIONS; i++) {
		r = &cur->region[i];
		if (!r->len || addr < r->addr || addr - r->addr >= r->len)
			continue;
		if (addr - r->addr + len > r->len)
			return false;
		if (r->hole_end > r->hole_start &&
		    (!r->hole_cold || walk_pagefault_disabled) &&
		    addr < r->hole_end && addr + len > r->hole_start)
			return false;
		return true;
	}
	return false;
}

/* The step's own promises, whatever the reference says */
static bool check_step(const struct walk_ctx *w, const struct ref *ref,
		       const struct unwind_user_state *before,
		       const struct unwind_user_state *st, int ret)
{
	unsigned int i, j;

	if (ret && !st->done)
		return fail("%s walk, step %u: %d but not done", w->name, w->step, ret);
	if (!ret && st->done)
		return fail("%s walk, step %u: 0 but done", w->name, w->step);
	if (st->ctx.budget > before->ctx.budget)
		return fail("%s walk, step %u: the FRE budget grew from %u to %u",
			    w->name, w->step, before->ctx.budget, st->ctx.budget);

	/* Every access is one the rules name, and reads only what it may. */
	for (i = 0; i < walk_log_len; i++) {
		if (walk_log[i].ok != readable(walk_log[i].addr, walk_log[i].len))
			return fail("%s walk, step %u: read %lu bytes at %#lx: %s",
				    w->name, w->step, walk_log[i].len, walk_log[i].addr,
				    walk_log[i].ok ? "not mapped, yet read" :
				    "mapped, yet faulted");
		for (j = 0; j < ref->nreads; j++)
			if (ref->reads[j].addr == walk_log[i].addr &&
			    ref->reads[j].len == walk_log[i].len)
				break;
		if (j == ref->nreads)
			return fail("%s walk, step %u: read %lu bytes at %#lx, which no rule names",
				    w->name, w->step, walk_log[i].len, walk_log[i].addr);
	}
	if (ret)
		return true;

	if (!st->ip || st->ip >= ref_addr_end())
		return fail("%s walk, step %u: reported %#lx, not a user address",
			    w->name, w->step, st->ip);
	if (st->current_type != UNWIND_USER_TYPE_SIGNAL) {
		if (st->cfa % st->ws)
			return fail("%s walk, step %u: CFA %#lx not aligned",
				    w->name, w->step, st->cfa);
		if (before->cfa ? st->cfa <= before->cfa : st->cfa < before->sp)
			return fail("%s walk, step %u: CFA %#lx after %#lx (SP %#lx)",
				    w->name, w->step, st->cfa, before->cfa, before->sp);
		if (st->ip >= before->stack_low && st->ip <= st->cfa)
			return fail("%s walk, step %u: return address %#lx on the stack walked",
				    w->name, w->step, st->ip);
	}

	/* A caller's address loaded from memory is a word the walker read there. */
	if (!ref->ra_loaded)
		return true;
	for (i = 0; i < walk_log_len; i++) {
		const struct walk_read *e = &walk_log[i];
		unsigned long v = e->value;

		if (st->current_type != UNWIND_USER_TYPE_SIGNAL)
			v = unwind_user_strip_ra(v);
		if (e->ok && e->addr == ref->ra_from && e->len == st->ws &&
		    v == st->ip)
			return true;
	}
	return fail("%s walk, step %u: %#lx was not read at %#lx, where the rules have it",
		    w->name, w->step, st->ip, ref->ra_from);
}

/* A stepped walk of the current task, each step checked */
static bool walk_stepped(const char *name, bool nofault, unsigned int budget,
			 struct walk_trace *t)
{
	struct walk_ctx w = { .name = name };
	struct unwind_user_state st, before, exp;
	unsigned int initial;
	unsigned long lookups;
	struct ref ref;
	int ret, want;

	memset(t, 0, sizeof(*t));
	walk_registry_reset();
	if (nofault)
		pagefault_disable();
	walk_log_reset();
	walk_log_on = true;
	ret = unwind_user_start(&st, nofault);
	want = ref_start(cur, nofault, &exp);
	if (ret != want)
		return fail("%s walk: start gave %d, not %d", name, ret, want);
	if (!cmp_state(&w, &st, &exp))
		return false;
	if (walk_log_len)
		return fail("%s walk: start read user memory", name);

	if (budget && !st.done)
		st.ctx.budget = budget;
	initial = st.ctx.budget;
	if (!st.done) {
		t->ip[0] = st.ip;
		t->nr = 1;
	}
	while (!st.done && t->nr < WALK_MAX_FRAMES) {
		w.step = t->nr;
		before = st;
		want = ref_next(&before, &ref, &exp);
		walk_log_reset();
		lookups = walk_lookups();
		ret = unwind_user_next(&st);
		res->steps++;
		if (ret != want)
			return fail("%s walk, step %u: returned %d, the rules give %d",
				    name, w.step, ret, want);
		if (!cmp_state(&w, &st, &exp) ||
		    !check_step(&w, &ref, &before, &st, ret))
			return false;
		if (walk_lookups() - lookups > 2)
			return fail("%s walk, step %u: %lu lookups", name, w.step,
				    walk_lookups() - lookups);
		/* Every row the lookups read is paid for by the walk. */
		if (walk_rows_read() != initial - st.ctx.budget)
			return fail("%s walk, step %u: %lu FRE rows read, %u charged",
				    name, w.step, walk_rows_read(),
				    initial - st.ctx.budget);
		if (!ret) {
			t->ip[t->nr] = st.ip;
			t->type[t->nr] = st.current_type;
			t->nr++;
		}
	}
	t->error = st.error;

	/* A walk that is done stays done, and reads nothing more. */
	if (st.done) {
		before = st;
		walk_log_reset();
		if (unwind_user_next(&st) != -EINVAL || walk_log_len ||
		    memcmp(&st, &before, sizeof(st)))
			return fail("%s walk: went on after it was done", name);
	}
	walk_log_on = false;
	if (nofault)
		pagefault_enable();
	return true;
}

static bool cmp_ips(const char *name, const unsigned long *got, unsigned int n,
		    const struct walk_trace *t, unsigned int want)
{
	unsigned int i;

	if (n != want)
		return fail("%s: %u frames, not %u", name, n, want);
	for (i = 0; i < n; i++)
		if (got[i] != t->ip[i])
			return fail("%s: frame %u is %#lx, not %#lx", name, i,
				    got[i], t->ip[i]);
	return true;
}

struct walk_consumer {
	unsigned long	ip[WALK_MAX_FRAMES];
	unsigned int	n;
	unsigned int	max;
};

static bool walk_consume(void *cookie, unsigned long ip)
{
	struct walk_consumer *c = cookie;

	if (c->n == WALK_MAX_FRAMES)
		walk_bug("a walk went on after its consumer said stop");
	c->ip[c->n++] = ip;
	return c->n < c->max;
}

/* In NMI, or not, and with another mm loaded (x86 lazy TLB), or not */
static void walk_nmi(bool nmi, bool other_mm)
{
	walk_atomic = nmi;
	walk_in_nmi = nmi;
	walk_nmi_uaccess_okay = !other_mm;
}

/* The entry points give the stepped walks' frames, cut at their bounds. */
static bool walk_entry_points(const struct walk_input *in, bool nmi)
{
	unsigned int max = in->max_entries, want, n;
	bool other_mm = nmi && (in->flags & WALK_F_OTHER_MM);
	struct unwind_stacktrace trace;
	static struct walk_consumer c;
	const struct walk_trace *t;
	bool kthread = in->flags & WALK_F_KTHREAD;
	bool walked;
	int ret;

	/* Room for exactly @max: ASan sees a walk that writes past it. */
	trace.entries = malloc((max ? max : 1) * sizeof(long));
	if (!trace.entries)
		abort();

	t = &res->faultable;
	walk_registry_reset();
	trace.nr = ~0U;
	ret = unwind_user(&trace, max);
	want = !max || kthread ? 0 : min_t(unsigned int, max, t->nr);
	if (ret != (max ? 0 : -EINVAL) || walk_pagefault_disabled) {
		free(trace.entries);
		return fail("unwind_user(): returned %d", ret);
	}
	ret = cmp_ips("unwind_user()", trace.entries, trace.nr, t, want);
	free(trace.entries);
	if (!ret)
		return false;

	t = &res->nofault;
	n = other_mm ? min_t(unsigned int, t->nr, 1) : t->nr;
	memset(&c, 0, sizeof(c));
	c.max = max;
	walk_registry_reset();
	walk_nmi(nmi, other_mm);
	walked = unwind_user_walk_nofault(&walk_regs, walk_consume, &c);
	walk_nmi(false, false);
	if (walked != (!kthread && !(in->flags & (WALK_F_NO_MM | WALK_F_KERNEL_MODE)) &&
		       res->registered && REF_WS(in) == sizeof(long)))
		return fail("unwind_user_walk_nofault(): returned %d", walked);
	if (walk_pagefault_disabled)
		return fail("unwind_user_walk_nofault(): page faults left disabled");
	want = walked ? min_t(unsigned int, n, max ? max : 1) : 0;
	return cmp_ips("unwind_user_walk_nofault()", c.ip, c.n, t, want);
}

/*
 * A walk through unwind_user_start_remote() reads the same memory through
 * access_remote_vm() and must find the faultable walk's frames, each by
 * the same method: unless that walk dropped the section, which a reader
 * of another task's stack never does, or the task had no mm to read.
 */
static bool walk_remote(const struct walk_input *in, bool dropped)
{
	const struct walk_trace *t = &res->faultable;
	struct unwind_user_state st;
	unsigned int n = 0;

	if (dropped || (in->flags & WALK_F_NO_MM))
		return true;
	walk_registry_reset();
	walk_log_on = false;
	unwind_user_start_remote(&st, current, &walk_mm, &walk_regs);
	if (!st.done && t->nr)
		n = 1;
	while (!st.done && n < WALK_MAX_FRAMES) {
		if (unwind_user_next(&st))
			break;
		if (n >= t->nr || st.ip != t->ip[n] || st.current_type != t->type[n])
			return fail("remote walk: frame %u is %#lx (type %u), not %#lx (type %u)",
				    n, st.ip, st.current_type,
				    n < t->nr ? t->ip[n] : 0, n < t->nr ? t->type[n] : 0);
		n++;
	}
	if (n != t->nr || st.error != t->error)
		return fail("remote walk: %u frames (error %d), not %u (error %d)",
			    n, st.error, t->nr, t->error);
	if (walk_pagefault_disabled)
		return fail("remote walk: page faults disabled");
	return true;
}

/**
 * walk_run() - every walk of one input, each checked
 * @in: the input.
 * @result: what the walks found.
 *
 * Return: true if no check failed; else @result->why says what did.
 */
bool walk_run(const struct walk_input *in, struct walk_result *result)
{
	bool ok, dropped;

	res = result;
	memset(res, 0, sizeof(*res));
	walk_setup(in);
	ok = walk_stepped("faultable", false, 0, &res->faultable);
	dropped = walk_section_dropped();
	ok = ok && walk_remote(in, dropped) &&
	     walk_stepped("nofault", true, 0, &res->nofault) &&
	     (!in->budget ||
	      walk_stepped("budgeted", true, in->budget, &res->budgeted)) &&
	     walk_entry_points(in, in->flags & WALK_F_NMI);
	walk_log_on = false;
	walk_pagefault_disabled = 0;
	walk_nmi(false, false);
	walk_teardown();
	return ok;
}

/*
 * The fuzzer's bytes: this header, then the bytes of each region in the
 * order of enum walk_region_kind, as many as its length says and the
 * input has.  Little-endian, as the host reads it.
 */
struct walk_blob {
	u8	flags;
	u8	max_entries;
	u16	budget;
	u8	cold;		/* bit n: region n's hole is only not resident */
	u8	pad[3];
	u16	len[WALK_REGIONS];
	u16	hole_off[WALK_REGIONS];
	u16	hole_len[WALK_REGIONS];
	u64	base[WALK_REGIONS];
	u64	text_start;
	u64	text_end;
	u64	asce_limit;
	u64	regs[WALK_REGS];
};

bool walk_decode(const u8 *data, size_t size, struct walk_input *in)
{
	struct walk_region *r;
	struct walk_blob b;
	unsigned int i;

	if (size < sizeof(b))
		return false;
	memcpy(&b, data, sizeof(b));
	data += sizeof(b);
	size -= sizeof(b);
	memset(in, 0, sizeof(*in));
	in->flags = b.flags;
	in->max_entries = b.max_entries;
	in->budget = b.budget;
	in->text_start = b.text_start;
	in->text_end = b.text_end;
	in->asce_limit = b.asce_limit;
	memcpy(in->regs, b.regs, sizeof(in->regs));
	for (i = 0; i < WALK_REGIONS; i++) {
		r = &in->region[i];
		r->addr = b.base[i];
		r->len = min_t(size_t, b.len[i], size);
		/* Regions end below the top of the address space. */
		if (r->addr + r->len < r->addr)
			r->len = 0;
		r->data = data;
		r->hole_start = r->addr + b.hole_off[i];
		r->hole_end = r->hole_start + b.hole_len[i];
		r->hole_cold = b.cold & BIT(i);
		data += r->len;
		size -= r->len;
	}
	return true;
}

size_t walk_encode(const struct walk_input *in, u8 *buf, size_t size)
{
	const struct walk_region *r;
	size_t need = sizeof(struct walk_blob);
	struct walk_blob b = { };
	unsigned int i;

	for (i = 0; i < WALK_REGIONS; i++)
		need += in->region[i].len;
	if (need > size)
		return 0;
	b.flags = in->flags;
	b.max_entries = in->max_entries;
	b.budget = in->budget;
	b.text_start = in->text_start;
	b.text_end = in->text_end;
	b.asce_limit = in->asce_limit;
	memcpy(b.regs, in->regs, sizeof(b.regs));
	for (i = 0; i < WALK_REGIONS; i++) {
		r = &in->region[i];
		b.base[i] = r->addr;
		b.len[i] = r->len;
		b.hole_off[i] = r->hole_start - r->addr;
		b.hole_len[i] = r->hole_end - r->hole_start;
		if (r->hole_cold)
			b.cold |= BIT(i);
	}
	memcpy(buf, &b, sizeof(b));
	need = sizeof(b);
	for (i = 0; i < WALK_REGIONS; i++) {
		memcpy(buf + need, in->region[i].data, in->region[i].len);
		need += in->region[i].len;
	}
	return need;
}
