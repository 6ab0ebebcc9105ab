/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame reader's test cases, as data: well-formed sections with the
 * rule each lookup must produce, and malformed ones with the error each
 * must produce.  The KUnit suite runs them in the kernel against user
 * memory; tools/testing/sframe runs the same table in user space.
 *
 * Expected rules are written the way sframe-dump --lookup-all prints them.
 */
#ifndef _SFRAME_TEST_CASES_H
#define _SFRAME_TEST_CASES_H

#include "sframe_build.h"

/* Text covers [base - SFB_TEXT_BEFORE, base + SFB_TEXT_SIZE) */
#ifndef SFRAME_UNBOUNDED
/* The context of a lookup of the current task's section with no bound on rows */
#define SFRAME_UNBOUNDED	(&(struct unwind_user_ctx){ .budget = UINT_MAX })
#endif

#define SFB_TEXT_BEFORE		0x100
#define SFB_TEXT_SIZE		0x40000
#define SFB_TEXT_DISTANCE	0x100000UL	/* text base above the section */

/* Rules as text: "cfa=sp+16 ra=*(cfa-8) fp=same", "outermost", "none" */
static inline int sframe_format_rule(char *buf, size_t len,
				     const struct unwind_user_rule *r)
{
	static const char * const bases[] = {
		[UNWIND_USER_BASE_CFA] = "cfa",
		[UNWIND_USER_BASE_SP] = "sp",
		[UNWIND_USER_BASE_FP] = "fp",
	};
	char base[8];

	if (r->base == UNWIND_USER_BASE_SAME)
		return snprintf(buf, len, "same");
	if (r->base == UNWIND_USER_BASE_REG)
		snprintf(base, sizeof(base), "r%u", r->regnum);
	else if (r->base < ARRAY_SIZE(bases) && bases[r->base])
		snprintf(base, sizeof(base), "%s", bases[r->base]);
	else
		snprintf(base, sizeof(base), "?%u", r->base);
	return snprintf(buf, len, r->deref ? "*(%s%+d)" : "%s%+d", base,
			(int)r->offset);
}

static inline void sframe_format_frame(char *buf, size_t len,
				       const struct unwind_user_frame *f)
{
	char cfa[24], ra[24], fp[24];

	if (f->outermost) {
		snprintf(buf, len, "outermost%s", f->signal ? " signal" : "");
		return;
	}
	sframe_format_rule(cfa, sizeof(cfa), &f->cfa);
	sframe_format_rule(ra, sizeof(ra), &f->ra);
	sframe_format_rule(fp, sizeof(fp), &f->fp);
	snprintf(buf, len, "cfa=%s ra=%s fp=%s%s%s", cfa, ra, fp,
		 f->signal ? " signal" : "",
		 f->ra_signed ? (f->pauth_key ? " mangled=b" : " mangled=a") : "");
}

/* What a lookup gives, as text: a rule, "none" for -ENOENT, or the error */
static inline void sframe_describe_lookup(struct sframe_section *sec,
					  unsigned long ip, char *buf, size_t len)
{
	struct unwind_user_frame frame;
	int ret = sframe_find(sec, ip, &frame, SFRAME_UNBOUNDED);

	if (ret == -ENOENT)
		snprintf(buf, len, "none");
	else if (ret)
		snprintf(buf, len, "error %d (%s)", ret, sec->reason);
	else
		sframe_format_frame(buf, len, &frame);
}

/* ---- specs ---- */

static inline void spec_base(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
}

static inline void spec_aux(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->auxhdr_len = 8;
}

static inline void spec_first_fre_late(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[0].fre[0].start = 2;
}

static inline void spec_addr2(struct sfb_spec *s, u8 abi)
{
	struct sfb_fde *f = &s->fde[2];

	sfb_base(s, abi);
	f->size = 0x2000;
	f->info = SFB_FDE_INFO(SFRAME_FRE_TYPE_ADDR2, 0, 0, 0);
	f->nfres = 2;
	f->fre[1] = (struct sfb_fre){ 0x1234, SFB_FRE_INFO(1, 1, 0, 0), { 32 } };
}

static inline void spec_addr4(struct sfb_spec *s, u8 abi)
{
	struct sfb_fde *f = &s->fde[2];

	sfb_base(s, abi);
	f->size = 0x20000;
	f->info = SFB_FDE_INFO(SFRAME_FRE_TYPE_ADDR4, 0, 0, 0);
	f->nfres = 2;
	f->fre[1] = (struct sfb_fre){ 0x12345, SFB_FRE_INFO(1, 1, 0, 0), { 48 } };
}

static inline void spec_words2(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].fre[0] = (struct sfb_fre){ 0, SFB_FRE_INFO(1, 2, 1, 0), { 0x400, -0x300 } };
}

static inline void spec_words4(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].fre[0] = (struct sfb_fre){ 0, SFB_FRE_INFO(1, 2, 2, 0), { 0x40000, -0x30000 } };
}

static inline void spec_words1_min(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].fre[0] = (struct sfb_fre){ 0, SFB_FRE_INFO(1, 2, 0, 0), { 120, -128 } };
}

static inline void spec_pcmask(struct sfb_spec *s, u8 abi)
{
	struct sfb_fde *f = &s->fde[2];

	sfb_base(s, abi);
	f->info = SFB_FDE_INFO(0, SFRAME_FDE_PCTYPE_MASK, 0, 0);
	f->rep_size = 16;
	f->nfres = 2;
	f->fre[1] = (struct sfb_fre){ 6, SFB_FRE_INFO(1, 1, 0, 0), { 16 } };
}

static inline void spec_ra_undefined(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].fre[0].info = SFB_FRE_INFO(1, 0, 0, 0);
}

static inline void spec_no_fres(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].nfres = 0;
}

static inline void spec_signal(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].info = SFB_FDE_INFO(0, 0, 0, 1);
}

static inline void spec_mangled_a(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[2].fre[0].info = SFB_FRE_INFO(1, 1, 0, 1);
}

static inline void spec_mangled_b(struct sfb_spec *s, u8 abi)
{
	spec_mangled_a(s, abi);
	s->fde[2].info = SFB_FDE_INFO(0, 0, SFRAME_AARCH64_PAUTH_KEY_B, 0);
}

static inline void spec_tracked_ra(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fixed_ra = 0;
	s->fde[2].fre[0] = (struct sfb_fre){ 0, SFB_FRE_INFO(1, 3, 0, 0), { 16, -8, -16 } };
}

static inline void spec_tracked_ra_only(struct sfb_spec *s, u8 abi)
{
	spec_tracked_ra(s, abi);
	s->fde[2].fre[0].info = SFB_FRE_INFO(1, 2, 0, 0);
}

static inline void spec_tracked_ra_leaf(struct sfb_spec *s, u8 abi)
{
	spec_tracked_ra(s, abi);
	s->fde[2].fre[0].info = SFB_FRE_INFO(1, 1, 0, 0);
}

static inline void spec_fixed_fp(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fixed_fp = -16;
}

static inline void spec_flex(struct sfb_spec *s, u8 abi, u8 info,
			     s32 w0, s32 w1, s32 w2, s32 w3, s32 w4, s32 w5)
{
	struct sfb_fde *f = &s->fde[2];

	sfb_base(s, abi);
	f->info2 = SFRAME_FDE_TYPE_FLEX;
	f->fre[0] = (struct sfb_fre){ 0, info, { w0, w1, w2, w3, w4, w5 } };
}

static inline void spec_flex_drap(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 5, 0, 0), SFB_FLEX_CTL(6, 1, 1), -8, 0,
		  SFB_FLEX_CTL(6, 1, 1), 0, 0);
}

static inline void spec_flex_ra_reg(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 4, 0, 0), SFB_FLEX_CTL(7, 0, 1), 8,
		  SFB_FLEX_CTL(14, 0, 1), 0, 0, 0);
}

static inline void spec_flex_all(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 6, 0, 0), SFB_FLEX_CTL(7, 0, 1), 16,
		  SFB_FLEX_CTL(0, 1, 0), -8, SFB_FLEX_CTL(0, 1, 0), -16);
}

static inline void spec_flex_cfa_value(struct sfb_spec *s, u8 abi)
{
	/* reg_p clear with register bits set: a value relative to the CFA */
	spec_flex(s, abi, SFB_FRE_INFO(0, 5, 0, 0), SFB_FLEX_CTL(7, 0, 1), 16,
		  0, SFB_FLEX_CTL(5, 0, 0), 16, 0);
}

static inline void spec_flex_cfa_only(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 2, 0, 0), SFB_FLEX_CTL(7, 0, 1), 8,
		  0, 0, 0, 0);
}

static inline void spec_flex_words2(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 4, 1, 0), SFB_FLEX_CTL(20, 1, 1), 0x1000,
		  SFB_FLEX_CTL(30, 0, 1), -4, 0, 0);
}

static inline void spec_v2(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->version = SFRAME_VERSION_2;
	s->flags = SFRAME_F_FDE_SORTED;
}

static inline void spec_v2_pcrel(struct sfb_spec *s, u8 abi)
{
	spec_v2(s, abi);
	s->flags |= SFRAME_F_FDE_FUNC_START_PCREL;
}

static inline void spec_v3_section_relative(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->flags = SFRAME_F_FDE_SORTED;
}

static inline void spec_unsorted(struct sfb_spec *s, u8 abi)
{
	struct sfb_fde f0;

	sfb_base(s, abi);
	s->flags &= ~SFRAME_F_FDE_SORTED;
	f0 = s->fde[0];
	s->fde[0] = s->fde[2];
	s->fde[2] = f0;
}

static inline void spec_reversed_claims_sorted(struct sfb_spec *s, u8 abi)
{
	spec_unsorted(s, abi);
	s->flags |= SFRAME_F_FDE_SORTED;
}

/*
 * A second element describing functions at 0x200 and 0x280, with rows the
 * first element does not have: reading the wrong element's FREs shows.
 */
static inline void spec_second_element(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->nfdes = 2;
	s->fde[0].func = 0x200;
	s->fde[0].fre[1].words[0] = 48;
	s->fde[1].func = 0x280;
}

static inline void spec_second_element_v2(struct sfb_spec *s, u8 abi)
{
	spec_second_element(s, abi);
	s->version = SFRAME_VERSION_2;
}

static inline void spec_s390x_raw(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->raw_words = true;
	s->fixed_ra = 0;
	s->fde[2].nfres = 2;
	s->fde[2].fre[0] = (struct sfb_fre){ 0, SFB_FRE_INFO(1, 1, 0, 0), { 0 } };
	s->fde[2].fre[1] = (struct sfb_fre){ 8, SFB_FRE_INFO(1, 1, 0, 0), { 2 } };
}

static inline void spec_s390x_ra_unsaved(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fixed_ra = 0;
	s->fde[2].fre[0] = (struct sfb_fre){ 0, SFB_FRE_INFO(1, 3, 0, 0), { 160, 0, -72 } };
}

static inline void spec_s390x_v2_regs(struct sfb_spec *s, u8 abi)
{
	spec_s390x_ra_unsaved(s, abi);
	s->version = SFRAME_VERSION_2;
	s->fde[2].fre[0].words[1] = 2 * 17 + 1;
	s->fde[2].fre[0].words[2] = 2 * 16 + 1;
}

static inline void spec_s390x_flex(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 4, 0, 0), SFB_FLEX_CTL(15, 0, 1), 160,
		  SFB_FLEX_CTL(18, 0, 1), 0, 0, 0);
}

/* ---- well-formed sections ---- */

/**
 * struct sframe_decode_case - one lookup in a well-formed section
 * @name: test name.
 * @abi: the SFrame ABI the case needs, 0 for any.
 * @spec: builds the section.
 * @second: builds a second element concatenated after the first, or NULL.
 * @extra: bytes of junk after the data, inside the size given to the reader.
 * @pc: the address looked up, from the text base.
 * @expect: the rule, or "none" when no FRE covers @pc.
 */
struct sframe_decode_case {
	const char	*name;
	u8		abi;
	void		(*spec)(struct sfb_spec *s, u8 abi);
	void		(*second)(struct sfb_spec *s, u8 abi);
	u32		extra;
	s32		pc;
	const char	*expect;
};

#define SP8	"cfa=sp+8 ra=*(cfa-8) fp=same"
#define SP16FP	"cfa=sp+16 ra=*(cfa-8) fp=*(cfa-16)"
#define S390X	SFRAME_ABI_S390X_ENDIAN_BIG

static const struct sframe_decode_case sframe_decode_cases[] = {
	{ "first_fre",			0, spec_base, NULL, 0, 0x0, SP8 },
	{ "second_fre",			0, spec_base, NULL, 0, 0x4, SP16FP },
	{ "last_fre_to_function_end",	0, spec_base, NULL, 0, 0x3f, SP16FP },
	{ "middle_fre",			0, spec_base, NULL, 0, 0x41, SP16FP },
	{ "fp_based_cfa",		0, spec_base, NULL, 0, 0x50,
	  "cfa=fp+16 ra=*(cfa-8) fp=*(cfa-16)" },
	{ "one_fre_function",		0, spec_base, NULL, 0, 0x17f, SP8 },
	{ "gap_between_functions",	0, spec_base, NULL, 0, 0x80, "none" },
	{ "before_first_function",	0, spec_base, NULL, 0, -0x10, "none" },
	{ "after_last_function",	0, spec_base, NULL, 0, 0x180, "none" },
	{ "outside_text",		0, spec_base, NULL, 0, SFB_TEXT_SIZE, "none" },
	{ "below_text",			0, spec_base, NULL, 0, -SFB_TEXT_BEFORE - 1, "none" },
	{ "before_first_fre",		0, spec_first_fre_late, NULL, 0, 0x1, "none" },
	{ "first_fre_late_start",	0, spec_first_fre_late, NULL, 0, 0x2, SP8 },
	{ "aux_header_skipped",		0, spec_aux, NULL, 0, 0x4, SP16FP },
	{ "fre_addr1",			0, spec_base, NULL, 0, 0x3, SP8 },
	{ "fre_addr2_before",		0, spec_addr2, NULL, 0, 0x1333, SP8 },
	{ "fre_addr2",			0, spec_addr2, NULL, 0, 0x1334,
	  "cfa=sp+32 ra=*(cfa-8) fp=same" },
	{ "fre_addr4_before",		0, spec_addr4, NULL, 0, 0x12444, SP8 },
	{ "fre_addr4",			0, spec_addr4, NULL, 0, 0x12445,
	  "cfa=sp+48 ra=*(cfa-8) fp=same" },
	{ "data_words_1_byte",		0, spec_words1_min, NULL, 0, 0x100,
	  "cfa=sp+120 ra=*(cfa-8) fp=*(cfa-128)" },
	{ "data_words_2_bytes",		0, spec_words2, NULL, 0, 0x100,
	  "cfa=sp+1024 ra=*(cfa-8) fp=*(cfa-768)" },
	{ "data_words_4_bytes",		0, spec_words4, NULL, 0, 0x100,
	  "cfa=sp+262144 ra=*(cfa-8) fp=*(cfa-196608)" },
	{ "pcmask_block_start",		0, spec_pcmask, NULL, 0, 0x120, SP8 },
	{ "pcmask_second_row",		0, spec_pcmask, NULL, 0, 0x126,
	  "cfa=sp+16 ra=*(cfa-8) fp=same" },
	{ "pcmask_next_block",		0, spec_pcmask, NULL, 0, 0x135, SP8 },
	{ "pcmask_next_block_row",	0, spec_pcmask, NULL, 0, 0x13f,
	  "cfa=sp+16 ra=*(cfa-8) fp=same" },
	{ "ra_undefined_outermost",	0, spec_ra_undefined, NULL, 0, 0x100, "outermost" },
	{ "v3_fde_without_fres_outermost", 0, spec_no_fres, NULL, 0, 0x140, "outermost" },
	{ "signal_frame",		0, spec_signal, NULL, 0, 0x100, SP8 " signal" },
	{ "mangled_ra_key_a",		0, spec_mangled_a, NULL, 0, 0x100, SP8 " mangled=a" },
	{ "mangled_ra_key_b",		0, spec_mangled_b, NULL, 0, 0x100, SP8 " mangled=b" },
	{ "tracked_ra_and_fp",		0, spec_tracked_ra, NULL, 0, 0x100, SP16FP },
	{ "tracked_ra_only",		0, spec_tracked_ra_only, NULL, 0, 0x100,
	  "cfa=sp+16 ra=*(cfa-8) fp=same" },
	{ "tracked_ra_leaf",		0, spec_tracked_ra_leaf, NULL, 0, 0x100,
	  "cfa=sp+16 ra=same fp=same" },
	{ "fixed_fp_offset",		0, spec_fixed_fp, NULL, 0, 0x100,
	  "cfa=sp+8 ra=*(cfa-8) fp=*(cfa-16)" },
	{ "flex_drap",			0, spec_flex_drap, NULL, 0, 0x100,
	  "cfa=*(r6-8) ra=*(cfa-8) fp=*(r6+0)" },
	{ "flex_ra_in_register",	0, spec_flex_ra_reg, NULL, 0, 0x100,
	  "cfa=r7+8 ra=r14+0 fp=same" },
	{ "flex_all_rules",		0, spec_flex_all, NULL, 0, 0x100,
	  "cfa=r7+16 ra=*(cfa-8) fp=*(cfa-16)" },
	{ "flex_value_from_cfa",	0, spec_flex_cfa_value, NULL, 0, 0x100,
	  "cfa=r7+16 ra=*(cfa-8) fp=cfa+16" },
	{ "flex_cfa_only",		0, spec_flex_cfa_only, NULL, 0, 0x100,
	  "cfa=r7+8 ra=*(cfa-8) fp=same" },
	{ "flex_2_byte_words",		0, spec_flex_words2, NULL, 0, 0x100,
	  "cfa=*(r20+4096) ra=r30-4 fp=same" },
	{ "v2_section_relative",	0, spec_v2, NULL, 0, 0x4, SP16FP },
	{ "v2_section_relative_last",	0, spec_v2, NULL, 0, 0x17f, SP8 },
	{ "v2_pc_relative",		0, spec_v2_pcrel, NULL, 0, 0x50,
	  "cfa=fp+16 ra=*(cfa-8) fp=*(cfa-16)" },
	{ "v3_section_relative",	0, spec_v3_section_relative, NULL, 0, 0x41, SP16FP },
	{ "unsorted_fdes_indexed",	0, spec_unsorted, NULL, 0, 0x41, SP16FP },
	{ "unsorted_fdes_indexed_gap",	0, spec_unsorted, NULL, 0, 0x90, "none" },
	{ "concatenated_first",		0, spec_base, spec_second_element, 0, 0x4, SP16FP },
	{ "concatenated_second",	0, spec_base, spec_second_element, 0, 0x204,
	  "cfa=sp+48 ra=*(cfa-8) fp=*(cfa-16)" },
	{ "concatenated_gap",		0, spec_base, spec_second_element, 0, 0x240, "none" },
	{ "segment_larger_than_data",	0, spec_base, NULL, 64, 0x4, SP16FP },
	{ "s390x_cfa_scaling",		S390X, spec_s390x_raw, NULL, 0, 0x100,
	  "cfa=sp+160 ra=same fp=same" },
	{ "s390x_cfa_scaling_step",	S390X, spec_s390x_raw, NULL, 0, 0x108,
	  "cfa=sp+176 ra=same fp=same" },
	{ "s390x_ra_not_saved",		S390X, spec_s390x_ra_unsaved, NULL, 0, 0x100,
	  "cfa=sp+160 ra=same fp=*(cfa-72)" },
	{ "s390x_v2_registers",		S390X, spec_s390x_v2_regs, NULL, 0, 0x100,
	  "cfa=sp+160 ra=r17+0 fp=r16+0" },
	{ "s390x_flex_cfa_scaled",	S390X, spec_s390x_flex, NULL, 0, 0x100,
	  "cfa=r15+160 ra=r18+0 fp=same" },
};

/* ---- malformed sections ---- */

enum sfb_anchor { SFB_NONE, SFB_HDR, SFB_FDE, SFB_ATTR, SFB_FRE };

/* Values computed when the case runs */
#define SFB_OTHER_ABI		0x100000000ULL	/* an ABI of another arch */
#define SFB_FRE_LEN(delta)	(0x200000000ULL + 0x80 + (delta))

/**
 * struct sfb_poke - one field overwritten after the section is built
 * @at: which part the offset counts from.
 * @i: FDE number, for SFB_FDE, SFB_ATTR and SFB_FRE.
 * @j: FRE number within the FDE, for SFB_FRE.
 * @off: byte offset inside that part.
 * @width: bytes written, in the section's byte order.
 * @value: what is written (or SFB_OTHER_ABI, SFB_FRE_LEN()).
 */
struct sfb_poke {
	u8	at;
	u8	i;
	u8	j;
	u8	off;
	u8	width;
	u64	value;
};

/**
 * struct sframe_bad_case - one malformed section and the error it must give
 * @name: test name.
 * @abi: the SFrame ABI the case needs, 0 for any.
 * @spec: builds the section before the pokes (NULL: the base section).
 * @second: builds a concatenated second element, or NULL.
 * @poke: fields to overwrite.
 * @size: size given to the reader if not 0, else the built size + @size_delta.
 * @size_delta: see @size.
 * @hole_page: 1 + the page of the section made unreadable, 0 for none.
 * @at_init: sframe_section_init() must fail, not the lookup.
 * @pc: address looked up, from the text base.
 * @err: the error.
 */
struct sframe_bad_case {
	const char	*name;
	u8		abi;
	void		(*spec)(struct sfb_spec *s, u8 abi);
	void		(*second)(struct sfb_spec *s, u8 abi);
	struct sfb_poke	poke[2];
	u32		size;
	s32		size_delta;
	u8		hole_page;
	bool		at_init;
	s32		pc;
	int		err;
};

static inline void spec_bad_overlap_unsorted(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->flags &= ~SFRAME_F_FDE_SORTED;
	s->fde[0].size = 0x48;
}

static inline void spec_bad_padded(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fre_pad = 32;
}

static inline void spec_bad_padded_ra_tracked(struct sfb_spec *s, u8 abi)
{
	spec_bad_padded(s, abi);
	s->fixed_ra = 0;
}

static inline void spec_bad_flex(struct sfb_spec *s, u8 abi)
{
	spec_flex_cfa_only(s, abi);
	s->fre_pad = 32;
}

static inline void spec_bad_flex_no_offset(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 3, 0, 0), SFB_FLEX_CTL(7, 0, 1), 8,
		  SFB_FLEX_CTL(14, 0, 1), 0, 0, 0);
}

static inline void spec_bad_flex_trailing(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 6, 0, 0), SFB_FLEX_CTL(7, 0, 1), 8,
		  0, SFB_FLEX_CTL(6, 1, 1), 0, SFB_FLEX_CTL(6, 1, 1));
}

static inline void spec_bad_flex_cfa_no_reg(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 2, 0, 0), SFB_FLEX_CTL(7, 1, 0), 8,
		  0, 0, 0, 0);
}

static inline void spec_bad_flex_big_reg(struct sfb_spec *s, u8 abi)
{
	spec_flex(s, abi, SFB_FRE_INFO(0, 2, 1, 0), SFB_FLEX_CTL(300, 0, 1), 8,
		  0, 0, 0, 0);
}

static inline void spec_bad_fres_on_page_1(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fre_gap = 4096;
}

static inline void spec_bad_fdes_on_page_1(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde_gap = 4096;
}

static inline void spec_bad_unsorted_fdes_on_page_1(struct sfb_spec *s, u8 abi)
{
	spec_bad_fdes_on_page_1(s, abi);
	s->flags &= ~SFRAME_F_FDE_SORTED;
}

static inline void spec_bad_v2_fres_on_page_1(struct sfb_spec *s, u8 abi)
{
	spec_v2(s, abi);
	s->fre_gap = 4096;
}

/* Claims sorted, but the FDE table reads 0x140, 0x40, 0x100 */
static inline void spec_bad_first_fde_last(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->fde[0].func = 0x140;
	s->fde[0].size = 0x10;
}

static inline void spec_bad_s390x_cfa_range(struct sfb_spec *s, u8 abi)
{
	sfb_base(s, abi);
	s->raw_words = true;
	s->fde[2].fre[0] = (struct sfb_fre){ 0, SFB_FRE_INFO(1, 1, 2, 0), { 0x7fffffff } };
}

static inline void spec_bad_s390x_v2_negative_reg(struct sfb_spec *s, u8 abi)
{
	spec_s390x_v2_regs(s, abi);
	s->fde[2].fre[0].words[1] = -3;
}

#define HDR(off, width, value)		{ SFB_HDR, 0, 0, off, width, value }
#define FDE(i, off, width, value)	{ SFB_FDE, i, 0, off, width, value }
#define ATTR(i, off, width, value)	{ SFB_ATTR, i, 0, off, width, value }
#define FRE(i, j, off, width, value)	{ SFB_FRE, i, j, off, width, value }
#define AT_INIT				.at_init = true

static const struct sframe_bad_case sframe_bad_cases[] = {
	/* header and sub-section bounds: refused by sframe_section_init() */
	{ "truncated_header", .size = 20, AT_INIT, .err = -EINVAL },
	{ "bad_magic", .poke = { HDR(0, 2, 0x1234) }, AT_INIT, .err = -EINVAL },
	{ "foreign_byte_order", .poke = { HDR(0, 2, 0xe2de) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "version_0", .poke = { HDR(2, 1, 0) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "version_1_obsolete", .poke = { HDR(2, 1, 1) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "version_4_unknown", .poke = { HDR(2, 1, 4) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "v3_frame_pointer_flag", .poke = { HDR(3, 1, 0x7) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "undefined_flag", .poke = { HDR(3, 1, 0x15) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "v2_undefined_flag", .spec = spec_v2, .poke = { HDR(3, 1, 0x9) }, AT_INIT,
	  .err = -EOPNOTSUPP },
	{ "abi_0", .poke = { HDR(4, 1, 0) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "abi_5", .poke = { HDR(4, 1, 5) }, AT_INIT, .err = -EOPNOTSUPP },
	{ "abi_of_other_arch", .poke = { HDR(4, 1, SFB_OTHER_ABI) }, AT_INIT,
	  .err = -EOPNOTSUPP },
	{ "aux_header_past_end", .poke = { HDR(7, 1, 255) }, AT_INIT, .err = -EINVAL },
	{ "num_fdes_huge", .poke = { HDR(8, 4, 0xffffffff) }, AT_INIT, .err = -EINVAL },
	{ "fde_table_into_fres", .poke = { HDR(8, 4, 4) }, AT_INIT, .err = -EINVAL },
	{ "fdes_off_past_end", .poke = { HDR(20, 4, 0x10000) }, AT_INIT, .err = -EINVAL },
	{ "fdes_off_wraps", .poke = { HDR(20, 4, 0xfffffff0) }, AT_INIT, .err = -EINVAL },
	{ "fres_off_past_end", .poke = { HDR(24, 4, 0x10000) }, AT_INIT, .err = -EINVAL },
	{ "fres_before_fdes", .poke = { HDR(24, 4, 0) }, AT_INIT, .err = -EINVAL },
	{ "fre_len_past_end", .poke = { HDR(16, 4, 0x10000) }, AT_INIT, .err = -EINVAL },
	{ "section_shorter_than_data", .size_delta = -1, AT_INIT, .err = -EINVAL },
	{ "unsorted_overlapping_fdes", .spec = spec_bad_overlap_unsorted, AT_INIT,
	  .err = -EINVAL },
	{ "elements_disagree", .second = spec_second_element_v2, AT_INIT, .err = -EINVAL },
	{ "header_unreadable", .hole_page = 1, AT_INIT, .err = -EFAULT },
	{ "fdes_unreadable_when_indexing", .spec = spec_bad_unsorted_fdes_on_page_1,
	  .hole_page = 2, AT_INIT, .err = -EFAULT },

	/* FDE tables, read whole into the index */
	{ "fdes_unsorted_but_claimed", .spec = spec_reversed_claims_sorted, AT_INIT,
	  .err = -EINVAL },
	{ "fdes_unsorted_seen_going_left", .spec = spec_bad_first_fde_last, AT_INIT,
	  .err = -EINVAL },
	{ "fde_overlaps_next", .poke = { FDE(0, 8, 4, 0x48) }, AT_INIT, .err = -EINVAL },
	{ "fdes_unreadable", .spec = spec_bad_fdes_on_page_1, .hole_page = 2, AT_INIT,
	  .err = -EFAULT },

	/* FDEs and their attributes: found at lookup */
	{ "fde_fres_off_past_end", .poke = { FDE(1, 12, 4, 0x10000) }, .pc = 0x41,
	  .err = -EINVAL },
	{ "fde_attr_truncated", .poke = { FDE(2, 12, 4, SFB_FRE_LEN(-2)) }, .pc = 0x100,
	  .err = -EINVAL },
	{ "v2_fde_fres_off_past_end", .spec = spec_v2, .poke = { FDE(1, 8, 4, 0x10000) },
	  .pc = 0x41, .err = -EINVAL },
	{ "v2_too_many_fres", .spec = spec_v2, .poke = { FDE(1, 12, 4, 0x10000) },
	  .pc = 0x41, .err = -EINVAL },
	{ "fre_count_past_end", .poke = { ATTR(2, 0, 2, 0xffff) }, .pc = 0x110,
	  .err = -EINVAL },
	{ "fre_type_3", .poke = { ATTR(1, 2, 1, 3) }, .pc = 0x41, .err = -EOPNOTSUPP },
	{ "fde_type_2", .poke = { ATTR(1, 3, 1, 2) }, .pc = 0x41, .err = -EOPNOTSUPP },
	{ "pcmask_rep_size_0", .poke = { ATTR(1, 2, 1, 0x10) }, .pc = 0x41, .err = -EINVAL },

	/* FREs */
	{ "fre_start_repeated", .poke = { FRE(1, 2, 0, 1, 1) }, .pc = 0x45, .err = -EINVAL },
	{ "fre_start_decreasing", .poke = { FRE(1, 2, 0, 1, 0) }, .pc = 0x45,
	  .err = -EINVAL },
	{ "data_word_size_3", .poke = { FRE(2, 0, 1, 1, SFB_FRE_INFO(1, 1, 3, 0)) },
	  .pc = 0x100, .err = -EINVAL },
	{ "data_word_count_7", .spec = spec_bad_padded,
	  .poke = { FRE(2, 0, 1, 1, SFB_FRE_INFO(1, 7, 0, 0)) }, .pc = 0x100, .err = -EINVAL },
	{ "default_3_words_with_fixed_ra", .spec = spec_bad_padded,
	  .poke = { FRE(2, 0, 1, 1, SFB_FRE_INFO(1, 3, 0, 0)) }, .pc = 0x100, .err = -EINVAL },
	{ "default_4_words", .spec = spec_bad_padded_ra_tracked,
	  .poke = { FRE(2, 0, 1, 1, SFB_FRE_INFO(1, 4, 0, 0)) }, .pc = 0x100, .err = -EINVAL },
	{ "flex_1_word", .spec = spec_bad_flex,
	  .poke = { FRE(2, 0, 1, 1, SFB_FRE_INFO(0, 1, 0, 0)) }, .pc = 0x100, .err = -EINVAL },
	{ "flex_cfa_without_register", .spec = spec_bad_flex_cfa_no_reg, .pc = 0x100,
	  .err = -EINVAL },
	{ "flex_rule_without_offset", .spec = spec_bad_flex_no_offset, .pc = 0x100,
	  .err = -EINVAL },
	{ "flex_trailing_word", .spec = spec_bad_flex_trailing, .pc = 0x100, .err = -EINVAL },
	{ "flex_register_out_of_range", .spec = spec_bad_flex_big_reg, .pc = 0x100,
	  .err = -EINVAL },
	{ "fre_past_subsection_end", .poke = { HDR(16, 4, SFB_FRE_LEN(-1)) }, .pc = 0x100,
	  .err = -EINVAL },
	{ "fres_unreadable", .spec = spec_bad_fres_on_page_1, .hole_page = 2, .pc = 0x4,
	  .err = -EFAULT },
	{ "v2_fres_unreadable", .spec = spec_bad_v2_fres_on_page_1, .hole_page = 2,
	  .pc = 0x4, .err = -EFAULT },
	{ "s390x_cfa_offset_out_of_range", S390X, .spec = spec_bad_s390x_cfa_range,
	  .pc = 0x100, .err = -EINVAL },
	{ "s390x_v2_negative_register", S390X, .spec = spec_bad_s390x_v2_negative_reg,
	  .pc = 0x100, .err = -EINVAL },
};

/*
 * Builds the section of @spec, followed by the one of @second (if any) as a
 * second element aligned to 8 bytes.  @l describes the first element.
 */
static inline u32 sframe_case_build(void (*spec)(struct sfb_spec *s, u8 abi),
				    void (*second)(struct sfb_spec *s, u8 abi),
				    u8 abi, u8 *buf, unsigned long addr,
				    unsigned long text, struct sfb_layout *l)
{
	struct sfb_layout l2;
	struct sfb_spec s;
	u32 size, off;

	spec(&s, abi);
	size = sfb_build(&s, buf, addr, text, l);
	if (!second)
		return size;
	off = (size + 7) & ~7U;
	memset(buf + size, 0, off - size);
	second(&s, abi);
	return off + sfb_build(&s, buf + off, addr + off, text, &l2);
}

/*
 * Builds the bytes of a malformed case into @buf (at user address @addr,
 * text at @text) and returns the size to give the reader.
 */
static inline u32 sframe_bad_case_bytes(const struct sframe_bad_case *c, u8 abi,
					u8 *buf, unsigned long addr,
					unsigned long text)
{
	struct sfb_layout l;
	unsigned int k;
	u32 size;

	size = sframe_case_build(c->spec ? c->spec : spec_base, c->second, abi,
				 buf, addr, text, &l);
	for (k = 0; k < ARRAY_SIZE(c->poke); k++) {
		const struct sfb_poke *p = &c->poke[k];
		u64 value = p->value;
		u32 at = 0;

		if (!p->width)
			continue;
		if (value == SFB_OTHER_ABI)
			value = l.big_endian ? SFRAME_ABI_AMD64_ENDIAN_LITTLE :
					       SFRAME_ABI_S390X_ENDIAN_BIG;
		else if (value >= SFB_FRE_LEN(-0x80))
			value = l.size - l.fres + (s64)(value - SFB_FRE_LEN(0));
		switch (p->at) {
		case SFB_FDE:
			at = l.fde[p->i];
			break;
		case SFB_ATTR:
			at = l.attr[p->i];
			break;
		case SFB_FRE:
			at = l.fre[p->i][p->j];
			break;
		}
		sfb_put(buf + at + p->off, value, p->width, l.big_endian);
	}
	return c->size ? c->size : size + c->size_delta;
}

/* Builds a well-formed case; returns the size to give the reader. */
static inline u32 sframe_decode_case_bytes(const struct sframe_decode_case *c,
					   u8 abi, u8 *buf, unsigned long addr,
					   unsigned long text)
{
	struct sfb_layout l;
	u32 size;

	size = sframe_case_build(c->spec, c->second, abi, buf, addr, text, &l);
	memset(buf + size, 0xee, c->extra);
	return size + c->extra;
}

/*
 * Limits: a section of @n empty elements back to back (each a bare header),
 * or one unsorted element whose FDE table (zeros, left to the caller) is too
 * long to index.  Return the bytes to give the reader.
 */
static inline u32 sframe_many_elements(u8 *buf, unsigned int n, u8 abi)
{
	struct sfb_spec spec;
	struct sfb_layout l;
	unsigned int i;

	memset(&spec, 0, sizeof(spec));
	spec.version = SFRAME_VERSION_3;
	spec.flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	spec.abi = abi;
	for (i = 0; i < n; i++)
		sfb_build(&spec, buf + i * 28, 0, 0, &l);
	return n * 28;
}

static inline u32 sframe_big_index_header(u8 *buf, u32 num_fdes, u8 abi)
{
	struct sfb_spec spec;
	struct sfb_layout l;

	memset(&spec, 0, sizeof(spec));
	spec.version = SFRAME_VERSION_3;
	spec.flags = SFRAME_F_FDE_FUNC_START_PCREL;
	spec.abi = abi;
	sfb_build(&spec, buf, 0, 0, &l);
	sfb_put(buf + 8, num_fdes, 4, l.big_endian);
	sfb_put(buf + 24, num_fdes * 16, 4, l.big_endian);
	return 28 + num_fdes * 16;
}

#undef HDR
#undef FDE
#undef ATTR
#undef FRE
#undef AT_INIT

#endif /* _SFRAME_TEST_CASES_H */
