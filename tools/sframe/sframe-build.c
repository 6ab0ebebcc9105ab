// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-gen's SFrame V3 emitter: the rows of each .eh_frame FDE become
 * one SFrame FDE, default if the ABI's fixed layout expresses every row,
 * flexible if V3's per-rule encoding does, skipped otherwise.  GNU ld's
 * x86_64 PLT expression becomes an SFRAME_FDE_PCTYPE_MASK FDE, as ld makes
 * for PLTs.  The layout follows gas 2.47: FDEs sorted by address, start
 * addresses relative to the FDE field (SORTED | FUNC_START_PCREL), and the
 * attribute block and FREs of each function in the FDE order.  The kernel
 * reader (kernel/unwind/sframe.c) is the reference for decoding.
 *
 * Given the object's own V3 section, its FDEs are kept byte for byte (a V3
 * function's attribute and FREs are one block, relative to its start) and
 * only code none of them covers is converted: gas's rows stay gas's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/sframe_format.h>

#include "cfi.h"
#include "ehframe.h"
#include "sframe-build.h"

#define SG_HDR_SIZE	28
#define SG_FDE_SIZE	16
#define SG_FDA_SIZE	5
#define SG_MAX_WORDS	6

/* One FRE, encoded but for byte order, with the rules it stands for */
struct sg_fre {
	uint32_t	start;
	uint8_t		info;
	uint8_t		nwords;
	uint8_t		ctl_words;	/* bit i: word i is a flex control word */
	int32_t		words[SG_MAX_WORDS];
	struct sg_frame	frame;
};

struct sg_fde {
	uint64_t	start;
	uint32_t	size;
	uint8_t		info;
	uint8_t		info2;
	uint8_t		rep_size;
	unsigned int	first_fre;
	unsigned int	num_fres;
	uint32_t	fres_off;
	unsigned int	origin;		/* the .eh_frame FDE it came from, by order */
	bool		kept;		/* the object's own: its bytes in kept_fres */
	uint32_t	kept_off;
	uint32_t	kept_len;
};

struct sg_cie_entry {
	size_t			off;
	bool			used;
	bool			parsed;
	int			err;
	struct eh_cie		cie;
	struct cfi_state	init;
	char			msg[96];
};

struct sframe_gen {
	enum sframe_gen_arch	arch;
	bool			big;
	uint8_t			abi;
	int8_t			fixed_ra;
	unsigned int		sp_reg;
	unsigned int		fp_reg;
	struct sg_fde		*fdes;
	unsigned int		num_fdes;
	unsigned int		cap_fdes;
	struct sg_fre		*fres;
	unsigned int		num_fres;
	unsigned int		cap_fres;
	size_t			fre_len;
	uint8_t			*kept_fres;	/* the kept section's FRE sub-section */
	unsigned int		origin;		/* of the FDEs being built */
	/* the CIE cache, open addressing by offset */
	struct sg_cie_entry	*cies;
	size_t			cap_cies;
	size_t			num_cies;
};

static int sg_grow(void **array, unsigned int *cap, unsigned int n, size_t size)
{
	unsigned int ncap;
	void *p;

	if (n < *cap)
		return 0;
	if (*cap >= 1U << 30)
		return -ENOMEM;
	ncap = *cap ? *cap * 2 : 64;
	p = realloc(*array, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*array = p;
	*cap = ncap;
	return 0;
}

/* Explains why an FDE was left out, once: the first reason is kept. */
static void sg_reason(struct sframe_gen_stats *stats, const char *fmt, ...)
{
	va_list ap;

	if (stats->reason[0])
		return;
	va_start(ap, fmt);
	vsnprintf(stats->reason, sizeof(stats->reason), fmt, ap);
	va_end(ap);
}

static __printf(3, 4) int sg_err(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Encoding one row */

static void sg_rule(struct sg_rule *r, uint8_t base, uint8_t regnum, bool deref, int32_t off)
{
	r->base = base;
	r->regnum = regnum;
	r->deref = deref;
	r->offset = off;
}

static bool sg_fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The CFA offset as stored: s390x keeps (offset - 160) / 8. */
static bool sg_cfa_word(const struct sframe_gen *gen, int64_t off, int32_t *word)
{
	/* The offset the reader decodes must fit too, not only the word. */
	if (!sg_fits32(off))
		return false;
	if (gen->arch == SFRAME_GEN_S390X) {
		off += SFRAME_S390X_CFA_OFFSET_ADJUSTMENT;
		if (off % SFRAME_S390X_CFA_OFFSET_ALIGNMENT)
			return false;
		off /= SFRAME_S390X_CFA_OFFSET_ALIGNMENT;
	}
	if (!sg_fits32(off))
		return false;
	*word = off;
	return true;
}

/* The flex (control, offset) pair of a saved or moved RA or FP */
static bool sg_flex_pair(const struct cfi_reg_rule *r, int32_t *ctl, int32_t *off,
			 struct sg_rule *rule)
{
	switch (r->kind) {
	case CFI_OFFSET:
		if (!sg_fits32(r->off))
			return false;
		*ctl = 2;	/* base CFA, deref */
		*off = r->off;
		sg_rule(rule, SG_BASE_CFA, 0, true, r->off);
		return true;
	case CFI_REG:
	case CFI_AT_REG:
		if (r->reg > 255 || !sg_fits32(r->off))
			return false;
		*ctl = (r->reg << 3) | (r->kind == CFI_AT_REG ? 2 : 0) | 1;
		*off = r->off;
		sg_rule(rule, SG_BASE_REG, r->reg, r->kind == CFI_AT_REG, r->off);
		return true;
	}
	/* CFA + n by value needs a control word of 0, which is padding. */
	return false;
}

static void sg_fre_words(struct sg_fre *fre, unsigned int n, const int32_t *w,
			 unsigned int ctl_words)
{
	fre->nwords = n;
	fre->ctl_words = ctl_words;
	memcpy(fre->words, w, n * sizeof(*w));
}

/*
 * The CFA is the caller's stack pointer, so no function saves its return
 * address at or above it: a rule that says so leaves out of the CFA what
 * was pushed before the function was entered.  glibc's aarch64
 * _dl_runtime_resolve is entered from a PLT0 that pushed {x16, x30}, and
 * its CFI has CFA = SP and the RA at CFA + 8 all along: a caller walked
 * from that CFA gets an SP 16 bytes low and shows twice.  The push was
 * made before the first instruction, so every row of such a function is
 * moved by the same amount, to the CFA the call made, with the RA just
 * below it as in every aarch64 frame record.  A rule of the code and its
 * CFI, whatever the function's name: the bytes to add, 0 for none.  With
 * a CFA in another register the rows describe no caller's frame at all
 * (glibc's __longjmp names its jmp_buf the CFA, and the mangled return
 * address in it the RA): sg_encode() refuses them.
 */
static int64_t sg_pushed_before_entry(const struct sframe_gen *gen, const struct cfi_row *rows,
				      unsigned int from, unsigned int to)
{
	unsigned int i;

	if (gen->arch != SFRAME_GEN_AARCH64)
		return 0;
	for (i = from; i < to; i++) {
		const struct cfi_state *st = &rows[i].st;

		if (st->cfa.kind == CFI_CFA_REG && st->cfa.reg == gen->sp_reg &&
		    st->ra.kind == CFI_OFFSET && st->ra.off >= 0)
			return st->ra.off + 8;
	}
	return 0;
}

static void sg_shift_cfa(struct cfi_state *st, int64_t shift)
{
	if (!shift || st->cfa.kind != CFI_CFA_REG)
		return;
	st->cfa.off += shift;
	if (st->ra.kind == CFI_OFFSET)
		st->ra.off -= shift;
	if (st->fp.kind == CFI_OFFSET)
		st->fp.off -= shift;
}

/*
 * Encodes @st for an FDE of the type @flex says; false if that type cannot
 * express it.  @fre->info gets the base and mangled bits; the word size is
 * chosen later.
 */
static bool sg_encode(const struct sframe_gen *gen, const struct cfi_state *rules, bool flex,
		      int64_t shift, struct sg_fre *fre)
{
	struct cfi_state fixed = *rules, *st = &fixed;
	struct sg_frame *f = &fre->frame;
	bool x86 = gen->arch == SFRAME_GEN_X86_64, ra_word, fp_word;
	int32_t w[SG_MAX_WORDS], cfa;
	unsigned int n = 0, ctl = 1;

	memset(f, 0, sizeof(*f));
	fre->info = 0;
	fre->nwords = 0;
	fre->ctl_words = 0;
	sg_shift_cfa(st, shift);
	/*
	 * The caller's SP kept in a register while the CFA is computed from
	 * yet another (glibc's x86_64 __longjmp: CFA = %rdi, its jmp_buf, the
	 * SP in %r8): the CFA is no caller's SP, and a row would give a wrong
	 * SP to every frame after it.  With a CFA from the SP or the FP, a
	 * rule of the SP only says where a copy of it is (s390x saves r15 in
	 * the register save area, or a leaf in a floating-point register),
	 * and so does one that saves it in memory (a signal frame's).
	 */
	if (st->sp.kind == CFI_REG &&
	    (st->cfa.kind != CFI_CFA_REG ||
	     (st->cfa.reg != gen->sp_reg && st->cfa.reg != gen->fp_reg)))
		return false;
	/* A return address at or above the CFA that no shift explains */
	if (gen->arch == SFRAME_GEN_AARCH64 && st->ra.kind == CFI_OFFSET && st->ra.off >= 0)
		return false;
	f->ra_signed = st->ra_signed;
	if (st->ra_signed)
		fre->info |= 0x80;
	if (st->ra.kind == CFI_UNDEF) {
		f->outermost = true;
		return true;
	}
	if (st->fp.kind == CFI_UNDEF || st->fp.kind == CFI_VAL_OFFSET || st->fp.kind == CFI_EXPR)
		return false;

	if (!flex) {
		if (st->cfa.kind != CFI_CFA_REG ||
		    (st->cfa.reg != gen->sp_reg && st->cfa.reg != gen->fp_reg) ||
		    !sg_cfa_word(gen, st->cfa.off, &cfa))
			return false;
		w[n++] = cfa;
		if (st->cfa.reg == gen->sp_reg) {
			fre->info |= 1;
			sg_rule(&f->cfa, SG_BASE_SP, 0, false, st->cfa.off);
		} else {
			sg_rule(&f->cfa, SG_BASE_FP, 0, false, st->cfa.off);
		}
		fp_word = st->fp.kind == CFI_OFFSET;
		if ((st->fp.kind != CFI_SAME && !fp_word) || (fp_word && !sg_fits32(st->fp.off)))
			return false;
		if (x86) {
			/* The RA is at the header's fixed slot, CFA - 8. */
			if (st->ra.kind != CFI_OFFSET || st->ra.off != -8)
				return false;
			sg_rule(&f->ra, SG_BASE_CFA, 0, true, -8);
		} else {
			ra_word = st->ra.kind == CFI_OFFSET;
			if (st->ra.kind != CFI_SAME && !ra_word)
				return false;
			if (ra_word && !sg_fits32(st->ra.off))
				return false;
			/* s390x reads an RA offset of 0 as "not saved". */
			if (ra_word && gen->arch == SFRAME_GEN_S390X &&
			    st->ra.off == SFRAME_FRE_RA_OFFSET_INVALID)
				return false;
			if (ra_word) {
				w[n++] = st->ra.off;
				sg_rule(&f->ra, SG_BASE_CFA, 0, true, st->ra.off);
			} else if (fp_word) {
				/* aarch64 has no "not saved" RA word: flex does it. */
				if (gen->arch != SFRAME_GEN_S390X)
					return false;
				w[n++] = SFRAME_FRE_RA_OFFSET_INVALID;
			}
		}
		if (fp_word) {
			w[n++] = st->fp.off;
			sg_rule(&f->fp, SG_BASE_CFA, 0, true, st->fp.off);
		}
		sg_fre_words(fre, n, w, 0);
		return true;
	}

	/* Flexible FDE: (control, offset) pairs for the CFA, RA, FP */
	if ((st->cfa.kind != CFI_CFA_REG && st->cfa.kind != CFI_CFA_DEREF) ||
	    st->cfa.reg > 255 || !sg_cfa_word(gen, st->cfa.off, &cfa))
		return false;
	w[n++] = (st->cfa.reg << 3) | (st->cfa.kind == CFI_CFA_DEREF ? 2 : 0) | 1;
	w[n++] = cfa;
	sg_rule(&f->cfa, SG_BASE_REG, st->cfa.reg, st->cfa.kind == CFI_CFA_DEREF,
		st->cfa.off);
	if (x86 ? st->ra.kind == CFI_OFFSET && st->ra.off == -8 : st->ra.kind == CFI_SAME) {
		ra_word = false;
		if (x86)
			sg_rule(&f->ra, SG_BASE_CFA, 0, true, -8);
	} else {
		if (!sg_flex_pair(&st->ra, &w[n], &w[n + 1], &f->ra))
			return false;
		ctl |= 1U << n;
		n += 2;
		ra_word = true;
	}
	if (st->fp.kind != CFI_SAME) {
		if (!ra_word) {
			ctl |= 1U << n;
			w[n++] = SFRAME_FLEX_CTL_NONE;
		}
		if (!sg_flex_pair(&st->fp, &w[n], &w[n + 1], &f->fp))
			return false;
		ctl |= 1U << n;
		n += 2;
	}
	sg_fre_words(fre, n, w, ctl);
	return true;
}

/* The smallest data word size that holds @fre's words; control words unsigned */
static void sg_word_size(struct sg_fre *fre)
{
	unsigned int i, size = SFRAME_FRE_DATAWORD_1B;
	int64_t v;

	for (i = 0; i < fre->nwords; i++) {
		v = fre->words[i];
		if (fre->ctl_words & (1U << i)) {
			if ((uint32_t)v > 0xffff)
				size = SFRAME_FRE_DATAWORD_4B;
			else if ((uint32_t)v > 0xff && size < SFRAME_FRE_DATAWORD_2B)
				size = SFRAME_FRE_DATAWORD_2B;
		} else if (v < INT16_MIN || v > INT16_MAX) {
			size = SFRAME_FRE_DATAWORD_4B;
		} else if ((v < INT8_MIN || v > INT8_MAX) && size < SFRAME_FRE_DATAWORD_2B) {
			size = SFRAME_FRE_DATAWORD_2B;
		}
	}
	fre->info = (fre->info & 0x81) | (fre->nwords << 1) | (size << 5);
}

static unsigned int sg_fre_bytes(const struct sg_fre *fre, unsigned int addr_size)
{
	return addr_size + 1 + fre->nwords * (1U << SFRAME_FRE_INFO_DW_SIZE(fre->info));
}

static bool sg_fre_same(const struct sg_fre *a, const struct sg_fre *b)
{
	return a->info == b->info && a->nwords == b->nwords &&
	       !memcmp(a->words, b->words, a->nwords * sizeof(a->words[0]));
}

/* Appends an FRE to the FDE being built, merging it into an equal one before. */
static int sg_add_fre(struct sframe_gen *gen, struct sg_fde *fde, struct sg_fre *fre)
{
	int ret;

	sg_word_size(fre);
	if (fde->num_fres && sg_fre_same(&gen->fres[gen->num_fres - 1], fre))
		return 0;
	ret = sg_grow((void **)&gen->fres, &gen->cap_fres, gen->num_fres, sizeof(*fre));
	if (ret)
		return ret;
	gen->fres[gen->num_fres++] = *fre;
	fde->num_fres++;
	return 0;
}

static int sg_add_fde(struct sframe_gen *gen, const struct sg_fde *fde)
{
	int ret = sg_grow((void **)&gen->fdes, &gen->cap_fdes, gen->num_fdes, sizeof(*fde));

	if (ret)
		return ret;
	gen->fdes[gen->num_fdes] = *fde;
	gen->fdes[gen->num_fdes++].origin = gen->origin;
	return 0;
}

/* The FRE start address size: the smallest that holds the last start */
static void sg_fde_finish(struct sframe_gen *gen, struct sg_fde *fde)
{
	uint32_t last = fde->num_fres ? gen->fres[gen->num_fres - 1].start : 0;

	if (last <= 0xff)
		fde->info |= SFRAME_FRE_TYPE_ADDR1;
	else if (last <= 0xffff)
		fde->info |= SFRAME_FRE_TYPE_ADDR2;
	else
		fde->info |= SFRAME_FRE_TYPE_ADDR4;
}

/*
 * Rows [@from, @to) of an FDE, covering [@start, @start + @size), as one
 * SFrame FDE: default if every row fits it, else flexible.  0 if done,
 * -EOPNOTSUPP if neither type can express them (nothing added).
 */
static int sg_build_inc(struct sframe_gen *gen, const struct cfi_row *rows, unsigned int from,
			unsigned int to, uint64_t start, uint64_t size, uint8_t fde_info,
			struct sframe_gen_stats *stats)
{
	int64_t shift = sg_pushed_before_entry(gen, rows, from, to);
	unsigned int mark = gen->num_fres, i, pass;
	struct sg_fde fde;
	struct sg_fre fre;
	int ret;

	for (pass = 0; pass < 2; pass++) {
		bool flex = pass;

		memset(&fde, 0, sizeof(fde));
		fde.start = start;
		fde.size = size;
		fde.info = fde_info;
		fde.info2 = flex ? SFRAME_FDE_TYPE_FLEX : SFRAME_FDE_TYPE_DEFAULT;
		fde.first_fre = mark;
		gen->num_fres = mark;
		for (i = from; i < to; i++) {
			if (!sg_encode(gen, &rows[i].st, flex, shift, &fre))
				break;
			fre.start = rows[i].start - rows[from].start;
			fre.frame.signal = SFRAME_FDE_INFO_SIGNAL(fde_info);
			fre.frame.pauth_key = SFRAME_FDE_INFO_PAUTH_KEY(fde_info);
			ret = sg_add_fre(gen, &fde, &fre);
			if (ret)
				return ret;
		}
		if (i < to)
			continue;
		sg_fde_finish(gen, &fde);
		if (flex)
			stats->fdes_flex++;
		return sg_add_fde(gen, &fde);
	}
	gen->num_fres = mark;
	return -EOPNOTSUPP;
}

/*
 * GNU ld's x86_64 PLT: CFA = rsp + off, 8 more from byte K of each entry
 * on, as the PC's low bits tell.  ld describes it with a MASK FDE whose
 * FREs are offsets in one entry; the phase of @start is folded in.
 */
static int sg_build_plt(struct sframe_gen *gen, const struct cfi_state *st, uint64_t start,
			uint64_t size, uint8_t fde_info)
{
	unsigned int rep = st->cfa.plt_mask + 1, q, mark = gen->num_fres;
	struct cfi_state row = *st;
	struct sg_fde fde;
	struct sg_fre fre;
	int ret;

	if (gen->arch != SFRAME_GEN_X86_64 || st->ra.kind == CFI_UNDEF)
		return -EOPNOTSUPP;
	memset(&fde, 0, sizeof(fde));
	fde.start = start;
	fde.size = size;
	fde.info = fde_info | (SFRAME_FDE_PCTYPE_MASK << 4);
	fde.info2 = SFRAME_FDE_TYPE_DEFAULT;
	fde.rep_size = rep;
	fde.first_fre = mark;
	row.cfa.kind = CFI_CFA_REG;
	for (q = 0; q < rep; q++) {
		row.cfa.off = st->cfa.off +
			(((start + q) & st->cfa.plt_mask) >= st->cfa.plt_thresh ? 8 : 0);
		if (!sg_encode(gen, &row, false, 0, &fre)) {
			gen->num_fres = mark;
			return -EOPNOTSUPP;
		}
		fre.start = q;
		fre.frame.signal = SFRAME_FDE_INFO_SIGNAL(fde_info);
		ret = sg_add_fre(gen, &fde, &fre);
		if (ret)
			return ret;
	}
	sg_fde_finish(gen, &fde);
	return sg_add_fde(gen, &fde);
}

/*
 * s390x: GCC keeps a leaf-like function's caller's r15 in a floating-point
 * register (ldgr %f0,%r15) and may, in an epilogue, put the CFA back at
 * r15 + 160 some instructions before the lgdr %r15,%f0 that restores r15
 * (Debian's sqlite3, GCC 14): in those rows the CFA is off by the frame's
 * size, and a walk from them reads a stale slot for its caller.  Told by
 * the rules alone: once a row has moved the CFA above the entry's while
 * r15 is kept in a register, a later row that puts it back at the entry's
 * with r15 still kept there contradicts itself.  Such rows are refused
 * one by one (sg_build_rows() leaves a gap, and a walk ends there).
 * @raised carries from row to row: the register r15 is kept in since the
 * CFA was moved up, or 0.
 */
static bool sg_row_refused(const struct sframe_gen *gen, const struct cfi_row *rows,
			   unsigned int i, unsigned int *raised)
{
	const struct cfi_state *st = &rows[i].st;
	bool from_sp = st->cfa.kind == CFI_CFA_REG && st->cfa.reg == gen->sp_reg;
	int64_t entry = rows[0].st.cfa.off;

	if (gen->arch != SFRAME_GEN_S390X || st->sp.kind != CFI_REG || !from_sp ||
	    rows[0].st.cfa.kind != CFI_CFA_REG || rows[0].st.cfa.reg != gen->sp_reg) {
		*raised = 0;
		return false;
	}
	if (*raised && *raised != st->sp.reg + 1U)
		*raised = 0;
	if (st->cfa.off > entry)
		*raised = st->sp.reg + 1U;
	return *raised && st->cfa.off == entry;
}

/*
 * Rows [0, @n) of an FDE starting at @start, [@start, @start + @size), as
 * SFrame FDEs: one, or one per run of rows between those refused, the
 * code of a refused row in none.
 */
static int sg_build_rows(struct sframe_gen *gen, const struct cfi_row *rows, unsigned int n,
			 uint64_t start, uint64_t size, uint8_t fde_info,
			 struct sframe_gen_stats *stats)
{
	unsigned int from = 0, raised = 0, i;
	int ret;

	for (i = 0; i <= n; i++) {
		uint64_t end;

		if (i < n && !sg_row_refused(gen, rows, i, &raised))
			continue;
		end = i < n ? rows[i].start : size;
		if (i < n)
			stats->rows_refused++;
		if (from < i && end > rows[from].start) {
			ret = sg_build_inc(gen, rows, from, i, start + rows[from].start,
					   end - rows[from].start, fde_info, stats);
			if (ret)
				return ret;
		}
		from = i + 1;
	}
	return 0;
}

/*
 * A thread's first function (a program's _start) says so with
 * DW_CFA_undefined of the RA column, but only after its landing pad (BTI
 * on arm64, ENDBR64 on x86_64): at that first instruction the CIE's rule
 * would take the caller from the link register, which holds what the
 * loader left there, or from the stack, where argc lies.  An FDE whose
 * second row makes the RA undefined at most one instruction in is the
 * outermost frame from its first byte.
 */
#define SG_LANDING_PAD_BYTES	4

static bool sg_outermost_from_entry(const struct cfi_rows *rows)
{
	return rows->n >= 2 && rows->rows[0].st.ra.kind != CFI_UNDEF &&
	       rows->rows[1].st.ra.kind == CFI_UNDEF &&
	       rows->rows[1].start - rows->rows[0].start <= SG_LANDING_PAD_BYTES;
}

/* One .eh_frame FDE's rows, into SFrame FDEs: their own, and a PLT's */
static int sg_build_fde(struct sframe_gen *gen, const struct eh_cie *cie,
			const struct eh_fde *efde, const struct cfi_rows *in,
			struct sframe_gen_stats *stats)
{
	unsigned int n = in->n, plt = n, i, fdes = gen->num_fdes, fres = gen->num_fres;
	unsigned int flex = stats->fdes_flex, refused = stats->rows_refused;
	struct cfi_rows entry = *in;
	const struct cfi_rows *rows = in;
	uint8_t info = 0;
	uint64_t split;
	int ret;

	/* The landing pad's row dropped: the undefined one from the entry on */
	if (sg_outermost_from_entry(in)) {
		entry.rows = malloc((n - 1) * sizeof(*entry.rows));
		if (!entry.rows)
			return -ENOMEM;
		memcpy(entry.rows, in->rows + 1, (n - 1) * sizeof(*entry.rows));
		entry.rows[0].start = in->rows[0].start;
		entry.n = n - 1;
		rows = &entry;
		n--;
		plt = n;
	}

	if (cie->signal)
		info |= 0x80;
	if (cie->key_b && gen->arch == SFRAME_GEN_AARCH64)
		info |= SFRAME_AARCH64_PAUTH_KEY_B << 5;
	for (i = 0; i < n; i++) {
		if (rows->rows[i].st.cfa.kind == CFI_CFA_PLT) {
			plt = i;
			break;
		}
	}
	if (plt < n && plt != n - 1) {
		sg_reason(stats, "FDE at %#zx: rows after a PLT CFA expression", efde->off);
		ret = -EOPNOTSUPP;
		goto out;
	}
	split = plt < n ? rows->rows[plt].start : efde->pc_range;
	ret = 0;
	if (plt > 0)
		ret = sg_build_rows(gen, rows->rows, plt, efde->pc_begin, split, info, stats);
	if (!ret && plt < n)
		ret = sg_build_plt(gen, &rows->rows[plt].st, efde->pc_begin + split,
				   efde->pc_range - split, info);
	if (ret) {
		/* All or nothing: drop what a first part added. */
		gen->num_fdes = fdes;
		gen->num_fres = fres;
		stats->fdes_flex = flex;
		stats->rows_refused = refused;
		if (ret == -EOPNOTSUPP)
			sg_reason(stats, "FDE at %#zx: a rule SFrame cannot express", efde->off);
	}
out:
	if (rows != in)
		free(entry.rows);
	return ret;
}

/* The CIE cache */

static uint64_t sg_hash(size_t off)
{
	return (uint64_t)off * 0x9e3779b97f4a7c15ULL;
}

static struct sg_cie_entry *sg_cie_slot(struct sg_cie_entry *t, size_t cap, size_t off)
{
	size_t i = sg_hash(off) & (cap - 1);

	while (t[i].used && t[i].off != off)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static int sg_cie_grow(struct sframe_gen *gen)
{
	size_t cap = gen->cap_cies ? gen->cap_cies * 2 : 64, i;
	struct sg_cie_entry *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < gen->cap_cies; i++)
		if (gen->cies[i].used)
			*sg_cie_slot(t, cap, gen->cies[i].off) = gen->cies[i];
	free(gen->cies);
	gen->cies = t;
	gen->cap_cies = cap;
	return 0;
}

/* Records a CIE the walk of the records met, to be parsed when an FDE uses it */
static int sg_cie_add(struct sframe_gen *gen, size_t off)
{
	struct sg_cie_entry *e;

	if ((gen->num_cies + 1) * 2 > gen->cap_cies && sg_cie_grow(gen))
		return -ENOMEM;
	e = sg_cie_slot(gen->cies, gen->cap_cies, off);
	if (!e->used) {
		e->used = true;
		e->off = off;
		gen->num_cies++;
	}
	return 0;
}

/*
 * The CIE at @off, parsed and run once; e->err says if it is usable.  Only
 * records the walk met are CIEs: a pointer elsewhere (into a record, at an
 * FDE) is refused, so that no byte is taken for CIE instructions twice and
 * the work stays linear in the section's size whatever the pointers say.
 */
static int sg_cie(struct sframe_gen *gen, struct eh_ctx *ctx, size_t off,
		  struct sg_cie_entry **out)
{
	struct cfi_params p = { 0 };
	struct sg_cie_entry *e;
	char *saved = ctx->err;
	size_t saved_size = ctx->err_size;

	if (!gen->cap_cies)
		return -ENOENT;
	e = sg_cie_slot(gen->cies, gen->cap_cies, off);
	if (!e->used)
		return -ENOENT;
	if (!e->parsed) {
		e->parsed = true;
		ctx->err = e->msg;
		ctx->err_size = sizeof(e->msg);
		e->err = eh_parse_cie(ctx, off, &e->cie);
		if (!e->err) {
			p.ctx = ctx;
			p.cie = &e->cie;
			p.fp_reg = gen->fp_reg;
			p.sp_reg = gen->sp_reg;
			p.aarch64 = gen->arch == SFRAME_GEN_AARCH64;
			e->err = cfi_run_cie(&p, &e->init);
		}
		ctx->err = saved;
		ctx->err_size = saved_size;
	}
	*out = e;
	return 0;
}

/* Sorting and overlaps */

static int sg_fde_cmp(const void *a, const void *b)
{
	const struct sg_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->first_fre < y->first_fre ? -1 : x->first_fre > y->first_fre;
}

static bool sg_dropped(const uint8_t *dropped, const struct sg_fde *f)
{
	return !f->kept && (dropped[f->origin / 8] & (1U << (f->origin % 8)));
}

static void sg_drop(uint8_t *dropped, const struct sg_fde *f)
{
	dropped[f->origin / 8] |= 1U << (f->origin % 8);
}

/*
 * Marks the converted FDEs that overlap a kept one: that code has rows
 * already.  Kept FDEs are sorted and apart: @gen->fdes is sorted by start,
 * so a converted FDE overlaps a kept one only if it starts before the end
 * of the last kept one before it, or ends after the start of the next.
 */
static void sg_cover(struct sframe_gen *gen, struct sframe_gen_stats *stats, uint8_t *dropped)
{
	uint64_t end = 0, next = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < gen->num_fdes; i++) {
		struct sg_fde *f = &gen->fdes[i];

		if (f->kept)
			end = f->start + f->size;
		else if (f->start < end)
			sg_drop(dropped, f);
	}
	for (i = gen->num_fdes; i--;) {
		struct sg_fde *f = &gen->fdes[i];

		if (f->kept)
			next = f->start;
		else if (f->start + f->size > next)
			sg_drop(dropped, f);
	}
	for (i = 0; i < stats->fdes; i++)
		stats->fdes_covered += !!(dropped[i / 8] & (1U << (i % 8)));
}

/*
 * Sorts the FDEs and drops the converted ones that overlap a kept one or
 * one before them, which the kernel refuses, with the other part of a PLT
 * FDE split in two: an .eh_frame FDE is converted whole or not at all,
 * and counted once.
 */
static int sg_sort(struct sframe_gen *gen, struct sframe_gen_stats *stats)
{
	unsigned int i, n = 0, origins = stats->fdes;
	uint8_t *dropped, *covered;
	uint64_t end = 0;

	if (!gen->num_fdes)
		return 0;
	qsort(gen->fdes, gen->num_fdes, sizeof(*gen->fdes), sg_fde_cmp);
	dropped = calloc(origins / 8 + 1, 2);
	if (!dropped)
		return -ENOMEM;
	covered = dropped + origins / 8 + 1;
	if (stats->fdes_kept)
		sg_cover(gen, stats, covered);
	for (i = 0; i < gen->num_fdes; i++) {
		struct sg_fde *f = &gen->fdes[i];

		if (sg_dropped(covered, f))
			continue;
		if (i && f->start < end && !f->kept) {
			if (!sg_dropped(dropped, f))
				stats->fdes_skipped++;
			sg_drop(dropped, f);
			sg_reason(stats, "FDE for %#llx overlaps another",
				  (unsigned long long)f->start);
			continue;
		}
		end = f->start + f->size;
	}
	for (i = 0; i < gen->num_fdes; i++) {
		struct sg_fde *f = &gen->fdes[i];

		if (sg_dropped(dropped, f) || sg_dropped(covered, f)) {
			if (sg_dropped(dropped, f))
				stats->bytes_skipped += f->size;
			if (SFRAME_FDE_INFO2_TYPE(f->info2) == SFRAME_FDE_TYPE_FLEX)
				stats->fdes_flex--;
			continue;
		}
		gen->fdes[n++] = *f;
	}
	gen->num_fdes = n;
	free(dropped);
	return 0;
}

static void sg_layout(struct sframe_gen *gen, struct sframe_gen_stats *stats)
{
	unsigned int i, j;
	size_t off = 0;

	stats->fdes_out = gen->num_fdes;
	stats->fres = 0;
	stats->bytes_described = 0;
	for (i = 0; i < gen->num_fdes; i++) {
		struct sg_fde *f = &gen->fdes[i];
		unsigned int asz = 1U << SFRAME_FDE_INFO_FRE_TYPE(f->info);

		f->fres_off = off;
		stats->fres += f->num_fres;
		stats->bytes_described += f->size;
		if (f->kept) {
			off += f->kept_len;
			continue;
		}
		off += SG_FDA_SIZE;
		for (j = 0; j < f->num_fres; j++)
			off += sg_fre_bytes(&gen->fres[f->first_fre + j], asz);
	}
	gen->fre_len = off;
}

static int sg_setup(struct sframe_gen *gen, const struct sframe_gen_input *in)
{
	gen->arch = in->arch;
	switch (in->arch) {
	case SFRAME_GEN_X86_64:
		gen->abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
		gen->fixed_ra = -8;
		gen->sp_reg = 7;
		gen->fp_reg = 6;
		return 0;
	case SFRAME_GEN_AARCH64:
		gen->big = in->big_endian;
		gen->abi = in->big_endian ? SFRAME_ABI_AARCH64_ENDIAN_BIG :
			   SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
		gen->sp_reg = 31;
		gen->fp_reg = 29;
		return 0;
	case SFRAME_GEN_S390X:
		gen->big = true;
		gen->abi = SFRAME_ABI_S390X_ENDIAN_BIG;
		gen->sp_reg = 15;
		gen->fp_reg = 11;
		return 0;
	}
	return -EINVAL;
}

/* The RA column the ABI's unwinder follows: other CIEs are not ours. */
static unsigned int sg_ra_reg(const struct sframe_gen *gen)
{
	return gen->arch == SFRAME_GEN_X86_64 ? 16 : gen->arch == SFRAME_GEN_AARCH64 ? 30 : 14;
}

/*
 * A CIE may name another RA column than the ABI's (glibc's s390x
 * __fentry__ takes its caller's address in r0): "unchanged" then means the
 * RA is in that register, which only a flex rule can say.
 */
static void sg_foreign_ra(struct cfi_rows *rows, uint64_t ra_reg)
{
	unsigned int i;

	for (i = 0; i < rows->n; i++) {
		struct cfi_reg_rule *ra = &rows->rows[i].st.ra;

		if (ra->kind == CFI_SAME) {
			ra->kind = CFI_REG;
			ra->reg = ra_reg;
			ra->off = 0;
		}
	}
}

/* One FDE record: converted, skipped or found bad */
static int sg_one(struct sframe_gen *gen, const struct sframe_gen_input *in, struct eh_ctx *ctx,
		  const struct eh_record *rec, struct cfi_rows *rows,
		  struct sframe_gen_stats *stats)
{
	char msg[96] = "";
	struct cfi_params p = { 0 };
	struct sg_cie_entry *ce;
	struct eh_fde fde;
	int ret;

	ret = sg_cie(gen, ctx, rec->cie_off, &ce);
	if (ret) {
		stats->fdes_bad++;
		if (rec->cie_off >= ctx->size)
			sg_reason(stats, "FDE at %#zx: CIE pointer out of the section", rec->off);
		else
			sg_reason(stats, "FDE at %#zx: CIE pointer to %#zx, not a CIE", rec->off,
				  rec->cie_off);
		return 0;
	}
	if (ce->err) {
		ret = ce->err;
		snprintf(msg, sizeof(msg), "%s", ce->msg);
		goto out;
	}
	ctx->err = msg;
	ctx->err_size = sizeof(msg);
	ret = eh_parse_fde(ctx, rec, &ce->cie, &fde);
	if (ret)
		goto out;
	if (in->text_start || in->text_end) {
		if (fde.pc_begin < in->text_start || fde.pc_begin >= in->text_end ||
		    fde.pc_range > in->text_end - fde.pc_begin)
			return 0;
	}
	if (!fde.pc_range)
		return 0;
	if (fde.pc_range > UINT32_MAX) {
		ret = eh_err(ctx, -EOPNOTSUPP, "FDE at %#zx: code over 4 GiB", rec->off);
		goto out;
	}
	if (ce->cie.ra_reg > 255 || ce->cie.ra_reg == gen->sp_reg ||
	    ce->cie.ra_reg == gen->fp_reg) {
		ret = eh_err(ctx, -EOPNOTSUPP, "FDE at %#zx: RA column %llu", rec->off,
			     (unsigned long long)ce->cie.ra_reg);
		goto out;
	}
	p.ctx = ctx;
	p.cie = &ce->cie;
	p.fp_reg = gen->fp_reg;
	p.sp_reg = gen->sp_reg;
	p.aarch64 = gen->arch == SFRAME_GEN_AARCH64;
	ret = cfi_run_fde(&p, &ce->init, fde.insns, fde.insns_len, fde.pc_range, rows);
	if (!ret && ce->cie.ra_reg != sg_ra_reg(gen))
		sg_foreign_ra(rows, ce->cie.ra_reg);
	if (!ret)
		ret = sg_build_fde(gen, &ce->cie, &fde, rows, stats);
out:
	ctx->err = NULL;
	ctx->err_size = 0;
	if (!ret || ret == -ENOMEM)
		return ret;
	if (ret == -EINVAL) {
		stats->fdes_bad++;
	} else {
		stats->fdes_skipped++;
		if (!ce->err && fde.pc_range <= UINT32_MAX)
			stats->bytes_skipped += fde.pc_range;
	}
	if (msg[0])
		sg_reason(stats, "%s", msg);
	return 0;
}

static uint64_t sg_get(const struct sframe_gen *gen, const uint8_t *p, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v |= (uint64_t)p[gen->big ? len - 1 - i : i] << (8 * i);
	return v;
}

/* The length of the attribute and FREs of a kept FDE at @off of @fres; 0 if malformed */
static size_t sg_kept_len(const struct sframe_gen *gen, const uint8_t *fres, size_t fre_len,
			  size_t off, struct sg_fde *f)
{
	unsigned int i, asz, info;
	size_t pos = off + SG_FDA_SIZE;

	if (off > fre_len || fre_len - off < SG_FDA_SIZE)
		return 0;
	f->num_fres = sg_get(gen, fres + off, 2);
	f->info = fres[off + 2];
	f->info2 = fres[off + 3];
	f->rep_size = fres[off + 4];
	if (SFRAME_FDE_INFO_FRE_TYPE(f->info) > SFRAME_FRE_TYPE_ADDR4)
		return 0;
	asz = 1U << SFRAME_FDE_INFO_FRE_TYPE(f->info);
	for (i = 0; i < f->num_fres; i++) {
		if (fre_len - pos < asz + 1)
			return 0;
		info = fres[pos + asz];
		if (SFRAME_FRE_INFO_DW_SIZE(info) > SFRAME_FRE_DATAWORD_4B)
			return 0;
		pos += asz + 1;
		if (fre_len - pos < SFRAME_FRE_INFO_DW_COUNT(info) *
				    (1U << SFRAME_FRE_INFO_DW_SIZE(info)))
			return 0;
		pos += SFRAME_FRE_INFO_DW_COUNT(info) * (1U << SFRAME_FRE_INFO_DW_SIZE(info));
	}
	return pos - off;
}

/*
 * The FDEs of the object's own section, kept as they are: its header must
 * be one this conversion's header can stand for (same ABI and fixed
 * offsets), and its FDEs sorted, apart and well formed, as the kernel
 * will check them anyway.
 */
static int sg_keep(struct sframe_gen *gen, const struct sframe_gen_input *in,
		   struct sframe_gen_stats *stats, char *err, size_t err_size)
{
	const uint8_t *s = in->sframe;
	uint64_t num_fdes, fre_len, fde_at, fre_at, field, end = 0;
	struct sg_fde f;
	unsigned int i;
	size_t len;

	if (!s)
		return 0;
	if (in->sframe_size < SG_HDR_SIZE || sg_get(gen, s, 2) != SFRAME_MAGIC)
		return sg_err(err, err_size, "the object's SFrame section has no SFrame header");
	if (s[2] != SFRAME_VERSION_3)
		return sg_err(err, err_size, "the object's SFrame section is version %u, not 3",
				s[2]);
	if (s[4] != gen->abi || s[5] || (int8_t)s[6] != gen->fixed_ra)
		return snprintf(err, err_size,
				"the object's SFrame section: ABI %u, fixed offsets %d %d",
				s[4], (int8_t)s[5], (int8_t)s[6]), -1;
	num_fdes = sg_get(gen, s + 8, 4);
	fre_len = sg_get(gen, s + 16, 4);
	fde_at = SG_HDR_SIZE + s[7] + sg_get(gen, s + 20, 4);
	fre_at = SG_HDR_SIZE + s[7] + sg_get(gen, s + 24, 4);
	if (fde_at > in->sframe_size || (in->sframe_size - fde_at) / SG_FDE_SIZE < num_fdes ||
	    fre_at > in->sframe_size || in->sframe_size - fre_at < fre_len)
		return sg_err(err, err_size, "the object's SFrame section: %s",
				"FDEs or FREs past its end");
	gen->kept_fres = malloc(fre_len + 1);
	if (!gen->kept_fres)
		return sg_err(err, err_size, "out of memory");
	memcpy(gen->kept_fres, s + fre_at, fre_len);
	for (i = 0; i < num_fdes; i++) {
		const uint8_t *d = s + fde_at + (size_t)i * SG_FDE_SIZE;

		memset(&f, 0, sizeof(f));
		field = in->sframe_addr + fde_at + (size_t)i * SG_FDE_SIZE;
		f.start = ((s[3] & SFRAME_F_FDE_FUNC_START_PCREL) ? field : in->sframe_addr) +
			  sg_get(gen, d, 8);
		f.size = sg_get(gen, d + 8, 4);
		f.kept_off = sg_get(gen, d + 12, 4);
		len = sg_kept_len(gen, gen->kept_fres, fre_len, f.kept_off, &f);
		if (!len)
			return sg_err(err, err_size, "the object's SFrame section: FDE %u: %s",
					i, "bad FREs");
		if ((i && f.start < end) || f.start + f.size < f.start)
			return sg_err(err, err_size, "the object's SFrame section: FDE %u: %s",
					i, "not sorted, or overlapping");
		end = f.start + f.size;
		f.kept = true;
		f.kept_len = len;
		if (sg_add_fde(gen, &f))
			return sg_err(err, err_size, "out of memory");
	}
	stats->fdes_kept = num_fdes;
	return 0;
}

/**
 * sframe_gen_new() - convert an object's .eh_frame into SFrame V3
 * @in: where the CFI is and what the section is for.
 * @stats: filled with what the conversion did.
 * @err: a message when it fails.
 * @err_size: its size.
 *
 * FDEs that SFrame cannot express, or that are malformed, are left out and
 * counted in @stats; the conversion fails only when the records' framing
 * is broken (a length past the end), the arch is unknown, or memory runs out.
 *
 * Return: the conversion, for sframe_gen_size() and sframe_gen_emit(); NULL
 *	on failure, with @err set.
 */
struct sframe_gen *sframe_gen_new(const struct sframe_gen_input *in,
				  struct sframe_gen_stats *stats,
				  char *err, size_t err_size)
{
	struct cfi_rows rows = { 0 };
	struct eh_record rec;
	struct sframe_gen *gen;
	struct eh_ctx ctx = { 0 };
	size_t pos = 0;
	int ret;

	memset(stats, 0, sizeof(*stats));
	gen = calloc(1, sizeof(*gen));
	if (!gen) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	if (sg_setup(gen, in)) {
		snprintf(err, err_size, "unknown arch %d", (int)in->arch);
		goto fail;
	}
	if (in->ptr_size && in->ptr_size != 4 && in->ptr_size != 8) {
		snprintf(err, err_size, "pointer size %u", in->ptr_size);
		goto fail;
	}
	if (sg_keep(gen, in, stats, err, err_size))
		goto fail;
	ctx.data = in->eh_frame;
	ctx.size = in->eh_frame ? in->eh_frame_size : 0;
	ctx.addr = in->eh_frame_addr;
	ctx.data_base = in->data_base;
	ctx.big = gen->big;
	ctx.ptr_size = in->ptr_size ? in->ptr_size : 8;
	ctx.err = err;
	ctx.err_size = err_size;
	/* First the CIEs: FDEs may only point at records met here. */
	for (;;) {
		ret = eh_next_record(&ctx, &pos, &rec);
		if (ret < 0)
			goto fail;
		if (!ret)
			break;
		if (rec.is_cie && sg_cie_add(gen, rec.off)) {
			snprintf(err, err_size, "out of memory");
			goto fail;
		}
	}
	pos = 0;
	for (;;) {
		ctx.err = err;
		ctx.err_size = err_size;
		ret = eh_next_record(&ctx, &pos, &rec);
		if (ret < 0)
			goto fail;
		if (!ret)
			break;
		if (rec.is_cie) {
			stats->cies++;
			continue;
		}
		gen->origin = stats->fdes++;
		ret = sg_one(gen, in, &ctx, &rec, &rows, stats);
		if (ret) {
			snprintf(err, err_size, "out of memory");
			goto fail;
		}
	}
	cfi_rows_free(&rows);
	free(gen->cies);
	gen->cies = NULL;
	if (sg_sort(gen, stats)) {
		snprintf(err, err_size, "out of memory");
		goto fail;
	}
	sg_layout(gen, stats);
	/* The header's offsets and lengths are 32 bits. */
	if (gen->fre_len > UINT32_MAX - (size_t)gen->num_fdes * SG_FDE_SIZE) {
		snprintf(err, err_size, "SFrame section over 4 GiB");
		goto fail;
	}
	return gen;
fail:
	cfi_rows_free(&rows);
	sframe_gen_free(gen);
	return NULL;
}

/**
 * sframe_gen_size() - bytes of the section sframe_gen_emit() writes
 * @gen: the conversion.
 *
 * Return: the size.
 */
size_t sframe_gen_size(const struct sframe_gen *gen)
{
	return SG_HDR_SIZE + (size_t)gen->num_fdes * SG_FDE_SIZE + gen->fre_len;
}

static uint8_t *sg_put(const struct sframe_gen *gen, uint8_t *p, uint64_t v, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[gen->big ? len - 1 - i : i] = v >> (8 * i);
	return p + len;
}

/**
 * sframe_gen_emit() - write the section
 * @gen: the conversion.
 * @buf: sframe_gen_size() bytes.
 * @buf_addr: the address @buf has in the address space the section
 *	describes: function starts are stored relative to it.
 */
void sframe_gen_emit(const struct sframe_gen *gen, void *buf, uint64_t buf_addr)
{
	size_t fres_base = SG_HDR_SIZE + (size_t)gen->num_fdes * SG_FDE_SIZE;
	uint8_t *p = buf, *q;
	unsigned int i, j, k, asz, wsz;

	p = sg_put(gen, p, SFRAME_MAGIC, 2);
	*p++ = SFRAME_VERSION_3;
	*p++ = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	*p++ = gen->abi;
	*p++ = 0;
	*p++ = (uint8_t)gen->fixed_ra;
	*p++ = 0;
	p = sg_put(gen, p, gen->num_fdes, 4);
	/* gen->fres may still hold the FREs of FDEs dropped as overlapping. */
	for (i = 0, k = 0; i < gen->num_fdes; i++)
		k += gen->fdes[i].num_fres;
	p = sg_put(gen, p, k, 4);
	p = sg_put(gen, p, gen->fre_len, 4);
	p = sg_put(gen, p, 0, 4);
	p = sg_put(gen, p, (uint64_t)gen->num_fdes * SG_FDE_SIZE, 4);
	for (i = 0; i < gen->num_fdes; i++) {
		const struct sg_fde *f = &gen->fdes[i];
		uint64_t field = buf_addr + (uint64_t)(p - (uint8_t *)buf);

		p = sg_put(gen, p, f->start - field, 8);
		p = sg_put(gen, p, f->size, 4);
		p = sg_put(gen, p, f->fres_off, 4);
	}
	for (i = 0; i < gen->num_fdes; i++) {
		const struct sg_fde *f = &gen->fdes[i];

		q = (uint8_t *)buf + fres_base + f->fres_off;
		if (f->kept) {
			memcpy(q, gen->kept_fres + f->kept_off, f->kept_len);
			continue;
		}
		q = sg_put(gen, q, f->num_fres, 2);
		*q++ = f->info;
		*q++ = f->info2;
		*q++ = f->rep_size;
		asz = 1U << SFRAME_FDE_INFO_FRE_TYPE(f->info);
		for (j = 0; j < f->num_fres; j++) {
			const struct sg_fre *r = &gen->fres[f->first_fre + j];

			q = sg_put(gen, q, r->start, asz);
			*q++ = r->info;
			wsz = 1U << SFRAME_FRE_INFO_DW_SIZE(r->info);
			for (k = 0; k < r->nwords; k++)
				q = sg_put(gen, q, (uint32_t)r->words[k], wsz);
		}
	}
}

/**
 * sframe_gen_free() - free a conversion
 * @gen: the conversion, or NULL.
 */
void sframe_gen_free(struct sframe_gen *gen)
{
	if (!gen)
		return;
	free(gen->fdes);
	free(gen->fres);
	free(gen->cies);
	free(gen->kept_fres);
	free(gen);
}

/**
 * sframe_gen_num_fdes() - SFrame FDEs of a conversion, in section order
 * @gen: the conversion.
 *
 * Return: how many.
 */
unsigned int sframe_gen_num_fdes(const struct sframe_gen *gen)
{
	return gen->num_fdes;
}

/**
 * sframe_gen_fde_info() - what FDE @i of a conversion is
 * @gen: the conversion.
 * @i: below sframe_gen_num_fdes().
 * @info: filled in.
 */
void sframe_gen_fde_info(const struct sframe_gen *gen, unsigned int i,
			 struct sg_fde_info *info)
{
	const struct sg_fde *f = &gen->fdes[i];

	info->start = f->start;
	info->size = f->size;
	info->num_fres = f->num_fres;
	info->flex = SFRAME_FDE_INFO2_TYPE(f->info2) == SFRAME_FDE_TYPE_FLEX;
	info->mask = SFRAME_FDE_INFO_PCTYPE(f->info) == SFRAME_FDE_PCTYPE_MASK;
	info->rep_size = f->rep_size;
	info->kept = f->kept;
}

/**
 * sframe_gen_fre_info() - FRE @j of FDE @i: its start and the rules it means
 * @gen: the conversion.
 * @i: the FDE.
 * @j: the FRE, below its num_fres.
 * @start: its start offset in the function (or in the repeat block).
 * @frame: the rules, as the kernel's reader should decode them.
 *
 * Not for kept FDEs (sg_fde_info.kept): their FREs are the object's bytes,
 * not rules this conversion made.
 */
void sframe_gen_fre_info(const struct sframe_gen *gen, unsigned int i, unsigned int j,
			 uint32_t *start, struct sg_frame *frame)
{
	const struct sg_fre *r = &gen->fres[gen->fdes[i].first_fre + j];

	*start = r->start;
	*frame = r->frame;
}
