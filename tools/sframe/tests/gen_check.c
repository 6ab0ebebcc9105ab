// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checks of gen_check.h.  The section is "user memory" region 0 of the
 * reader's shim, at the address it was emitted for.
 */
#include <stdarg.h>

#include "gen_check.h"
#include "../frame-str.h"

static_assert((int)UNWIND_USER_BASE_SAME == (int)SG_BASE_SAME);
static_assert((int)UNWIND_USER_BASE_CFA == (int)SG_BASE_CFA);
static_assert((int)UNWIND_USER_BASE_SP == (int)SG_BASE_SP);
static_assert((int)UNWIND_USER_BASE_FP == (int)SG_BASE_FP);
static_assert((int)UNWIND_USER_BASE_REG == (int)SG_BASE_REG);

static bool rule_eq(const struct unwind_user_rule *k, const struct sg_rule *g)
{
	return k->base == g->base && k->regnum == g->regnum && k->deref == g->deref &&
	       k->offset == g->offset;
}

/**
 * gen_frame_eq() - whether the reader's rules are those sframe-gen meant
 * @k: what sframe_find() returned.
 * @g: what the generator meant.
 *
 * Return: true if they are the same.
 */
bool gen_frame_eq(const struct unwind_user_frame *k, const struct sg_frame *g)
{
	if (k->outermost != g->outermost || k->signal != g->signal ||
	    k->ra_signed != g->ra_signed || k->pauth_key != g->pauth_key)
		return false;
	if (k->outermost)
		return true;
	return rule_eq(&k->cfa, &g->cfa) && rule_eq(&k->ra, &g->ra) && rule_eq(&k->fp, &g->fp);
}

/**
 * gen_frame_str() - a frame as text, for messages
 * @f: the frame.
 * @buf: where.
 * @size: its size.
 */
void gen_frame_str(const struct unwind_user_frame *f, char *buf, size_t size)
{
	char c[UNWIND_USER_RULE_STR_SIZE], r[UNWIND_USER_RULE_STR_SIZE];
	char p[UNWIND_USER_RULE_STR_SIZE];

	if (f->outermost) {
		snprintf(buf, size, "outermost%s%s", f->signal ? " signal" : "",
			 f->ra_signed ? " signed" : "");
		return;
	}
	unwind_user_rule_str(&f->cfa, c, sizeof(c));
	unwind_user_rule_str(&f->ra, r, sizeof(r));
	unwind_user_rule_str(&f->fp, p, sizeof(p));
	snprintf(buf, size, "cfa=%s ra=%s fp=%s%s%s%s", c, r, p, f->signal ? " signal" : "",
		 f->ra_signed ? " signed" : "", f->pauth_key ? " keyb" : "");
}

static void to_kernel(const struct sg_frame *g, struct unwind_user_frame *k)
{
	memset(k, 0, sizeof(*k));
	k->cfa = (struct unwind_user_rule){ g->cfa.base, g->cfa.regnum, g->cfa.deref,
					    g->cfa.offset };
	k->ra = (struct unwind_user_rule){ g->ra.base, g->ra.regnum, g->ra.deref, g->ra.offset };
	k->fp = (struct unwind_user_rule){ g->fp.base, g->fp.regnum, g->fp.deref, g->fp.offset };
	k->outermost = g->outermost;
	k->signal = g->signal;
	k->ra_signed = g->ra_signed;
	k->pauth_key = g->pauth_key;
}

static int why(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_pc(struct sframe_section *sec, unsigned long pc, const struct sg_frame *g,
		    char *buf, size_t size)
{
	struct unwind_user_frame k, e;
	char a[128], b[128];
	int ret;

	/* Lookups, as the kernel's, reach the first 4 GiB of the text only. */
	if (pc - sec->text_start >= U32_MAX)
		return 0;
	ret = sframe_find(sec, pc, &k, SFRAME_UNBOUNDED);

	if (ret)
		return why(buf, size, "sframe_find(%#lx): %d (%s)", pc, ret,
			   sec->reason ? sec->reason : "?");
	if (gen_frame_eq(&k, g))
		return 0;
	to_kernel(g, &e);
	gen_frame_str(&k, a, sizeof(a));
	gen_frame_str(&e, b, sizeof(b));
	return why(buf, size, "at %#lx the reader finds %s, the generator meant %s", pc, a, b);
}

/**
 * gen_check_section() - emit @gen at @addr and check it with the reader
 * @gen: the conversion.
 * @addr: where the section is placed.
 * @sec: the reader's section, kept for more lookups (gen_section_release()).
 * @bytes: the section's bytes, kept with it.
 * @buf: why the check failed.
 * @size: its size.
 *
 * Return: 0 if sframe_section_init() and sframe_section_validate() accept
 *	the section, it has every FDE, and each FRE's first and last address
 *	(in the first and last block of a MASK FDE) find the FRE's rules (of
 *	FDEs with more than 512 FREs: the first and last 128 and every 97th).
 */
int gen_check_section(const struct sframe_gen *gen, unsigned long addr,
		      struct sframe_section *sec, unsigned char **bytes, char *buf, size_t size)
{
	size_t len = sframe_gen_size(gen);
	unsigned int i, j, n = sframe_gen_num_fdes(gen), indexable;
	unsigned long text_start, text_end, last;
	struct sg_fde_info fi;
	struct sg_frame g;
	uint32_t start, next;
	unsigned long base;
	int ret;

	memset(sec, 0, sizeof(*sec));
	*bytes = malloc(len);
	if (!*bytes)
		return why(buf, size, "out of memory");
	sframe_gen_emit(gen, *bytes, addr);
	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0] = (struct sframe_umem_region){ .addr = addr, .len = len, .data = *bytes };
	/*
	 * The text the section is registered for: from the first function
	 * on.  The reader indexes only functions that start in its first
	 * 4 GiB, as the kernel does.
	 */
	text_start = 0;
	text_end = 0;
	indexable = 0;
	for (i = 0; i < n; i++) {
		sframe_gen_fde_info(gen, i, &fi);
		if (!i)
			text_start = fi.start;
		if (fi.start - text_start < (1UL << 32))
			indexable++;
		if (fi.start + fi.size > text_end)
			text_end = fi.start + fi.size;
	}
	ret = sframe_section_init(sec, addr, len, text_start, n ? text_end : ULONG_MAX,
				  SIZE_MAX);
	if (ret)
		return why(buf, size, "sframe_section_init: %d (%s)", ret, sec->reason);
	ret = sframe_section_validate(sec);
	if (ret)
		return why(buf, size, "sframe_section_validate: %d (%s)", ret, sec->reason);
	if (sec->num_fdes != indexable)
		return why(buf, size, "reader indexed %u FDEs of %u", sec->num_fdes, indexable);
	for (i = 0; i < indexable; i++) {
		sframe_gen_fde_info(gen, i, &fi);
		/* A kept FDE's rows are the object's: compared where they came from */
		for (j = 0; !fi.kept && j < fi.num_fres; j++) {
			/*
			 * A lookup reads the FREs before its own: of a long
			 * FDE check the ends and a sample, not all (quadratic).
			 */
			if (fi.num_fres > 512 && j >= 128 && j < fi.num_fres - 128 && j % 97)
				continue;
			sframe_gen_fre_info(gen, i, j, &start, &g);
			if (j + 1 < fi.num_fres)
				sframe_gen_fre_info(gen, i, j + 1, &next, &(struct sg_frame){ 0 });
			else
				next = fi.mask ? fi.rep_size : fi.size;
			if (next > fi.size)
				next = fi.size;
			if (start >= next)
				continue;
			for (base = fi.start; base < fi.start + fi.size;
			     base += fi.mask ? fi.rep_size : fi.size) {
				if (base + start >= fi.start + fi.size)
					break;
				if (check_pc(sec, base + start, &g, buf, size))
					return -1;
				if (base + next - 1 < fi.start + fi.size &&
				    check_pc(sec, base + next - 1, &g, buf, size))
					return -1;
				/* The first block and the last are enough. */
				if (!fi.mask)
					continue;
				last = fi.start + (fi.size - 1) / fi.rep_size * fi.rep_size;
				if (base + fi.rep_size < last)
					base = last - fi.rep_size;
			}
		}
	}
	return 0;
}

/**
 * gen_section_release() - free what gen_check_section() kept
 * @sec: the reader's section.
 * @bytes: its bytes.
 */
void gen_section_release(struct sframe_section *sec, unsigned char *bytes)
{
	sframe_section_release(sec);
	free(bytes);
	memset(sframe_umem, 0, sizeof(sframe_umem));
}
