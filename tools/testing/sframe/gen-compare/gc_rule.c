// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rule type of gen-compare: normal form and equality (its text is
 * frame-str.c's, as sframe-dump prints it).  See gc.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc.h"

static const struct gc_abi abis[] = {
	[GC_X86_64] = { "x86_64", 7, 6, 16, true, 1 },
	[GC_AARCH64] = { "aarch64", 31, 29, 30, false, 1 },
	[GC_S390X] = { "s390x", 15, 11, 14, false, 8 },
};

const struct gc_abi *gc_abi(enum gc_arch arch)
{
	return &abis[arch];
}

void gc_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("gen-compare: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void clean_rule(struct unwind_user_rule *r)
{
	if (r->base != UNWIND_USER_BASE_REG)
		r->regnum = 0;
	if (r->base == UNWIND_USER_BASE_SAME) {
		r->deref = false;
		r->offset = 0;
	}
}

/* A value "in its own register, as is" is a value left unchanged. */
static void same_if_own(struct unwind_user_rule *r, u8 own)
{
	if (r->base == UNWIND_USER_BASE_REG && r->regnum == own && !r->deref && !r->offset)
		r->base = UNWIND_USER_BASE_SAME;
}

/**
 * gc_normalize() - bring a rule to the one form gen-compare compares
 * @abi: the ABI it is for.
 * @f: the rule, changed in place.
 *
 * An outermost frame has no other rule worth comparing; a CFA on the SP or
 * FP register by number is the same as one on SP or FP by role; the key
 * of an unsigned RA does not matter.
 */
void gc_normalize(const struct gc_abi *abi, struct unwind_user_frame *f)
{
	if (f->outermost) {
		bool signal = f->signal;

		memset(f, 0, sizeof(*f));
		f->outermost = true;
		f->signal = signal;
		return;
	}
	if (f->cfa.base == UNWIND_USER_BASE_REG && f->cfa.regnum == abi->sp)
		f->cfa.base = UNWIND_USER_BASE_SP;
	else if (f->cfa.base == UNWIND_USER_BASE_REG && f->cfa.regnum == abi->fp)
		f->cfa.base = UNWIND_USER_BASE_FP;
	same_if_own(&f->ra, abi->ra);
	same_if_own(&f->fp, abi->fp);
	clean_rule(&f->cfa);
	clean_rule(&f->ra);
	clean_rule(&f->fp);
	if (!f->ra_signed)
		f->pauth_key = 0;
}

static bool rule_eq(const struct unwind_user_rule *a, const struct unwind_user_rule *b)
{
	return a->base == b->base && a->regnum == b->regnum && a->deref == b->deref &&
	       a->offset == b->offset;
}

/**
 * gc_frame_eq() - two normalized rules say the same
 * @a: one.
 * @b: the other.
 *
 * Return: true if they recover the caller's frame the same way.
 */
bool gc_frame_eq(const struct unwind_user_frame *a, const struct unwind_user_frame *b)
{
	if (a->outermost != b->outermost || a->signal != b->signal)
		return false;
	if (a->outermost)
		return true;
	return rule_eq(&a->cfa, &b->cfa) && rule_eq(&a->ra, &b->ra) &&
	       rule_eq(&a->fp, &b->fp) && a->ra_signed == b->ra_signed &&
	       a->pauth_key == b->pauth_key;
}
