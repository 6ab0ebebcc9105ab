/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builds small SFrame sections for tests, in either byte order.
 *
 * Shared by the KUnit suite (laid into the kernel under kernel/unwind/tests/)
 * and the user space harness in tools/testing/sframe/, so both judge the
 * reader on the same bytes.
 *
 * Offsets in a spec are the real byte offsets the reader must report: the
 * builder applies the s390x CFA scaling itself unless raw_words is set.
 */
#ifndef _SFRAME_TEST_BUILD_H
#define _SFRAME_TEST_BUILD_H

/* Room for any section the builder writes, with the gaps tests ask for */
#define SFB_BUF_SIZE		(3 * 4096)
#define SFB_MAX_FDES		8
#define SFB_MAX_FRES		4
#define SFB_MAX_WORDS		8

#define SFB_FDE_INFO(fre_type, pctype, key, signal) \
	((fre_type) | (pctype) << 4 | (key) << 5 | (signal) << 7)
#define SFB_FRE_INFO(base_sp, count, size, mangled) \
	((base_sp) | (count) << 1 | (size) << 5 | (mangled) << 7)
#define SFB_FLEX_CTL(reg, deref, reg_p)	((reg) << 3 | (deref) << 1 | (reg_p))

struct sfb_fre {
	u32	start;
	u8	info;
	s32	words[SFB_MAX_WORDS];
};

struct sfb_fde {
	u32	func;		/* offset from the text base */
	u32	size;
	u8	info;
	u8	info2;
	u8	rep_size;
	u8	nfres;
	struct sfb_fre fre[SFB_MAX_FRES];
};

struct sfb_spec {
	u8	version;
	u8	flags;
	u8	abi;
	s8	fixed_fp;
	s8	fixed_ra;
	u8	auxhdr_len;
	bool	raw_words;	/* store words as given, even on s390x */
	u16	fde_gap;	/* bytes between the header and the FDE table */
	u16	fre_gap;	/* bytes between the FDE and FRE sub-sections */
	u8	fre_pad;	/* bytes after the last FRE, inside the sub-section */
	u8	nfdes;
	struct sfb_fde fde[SFB_MAX_FDES];
};

/* Where the builder put each part, as offsets into the buffer */
struct sfb_layout {
	u32	size;
	u32	fdes;
	u32	fres;
	u32	fde[SFB_MAX_FDES];
	u32	attr[SFB_MAX_FDES];	/* V3 attribute; V2: first FRE */
	u32	fre[SFB_MAX_FDES][SFB_MAX_FRES];
	bool	big_endian;
};

static inline bool sfb_big_endian(u8 abi)
{
	return abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	       abi == SFRAME_ABI_S390X_ENDIAN_BIG;
}

static inline void sfb_put(u8 *p, u64 v, unsigned int width, bool big)
{
	unsigned int i;

	for (i = 0; i < width; i++)
		p[big ? width - 1 - i : i] = v >> (8 * i);
}

static inline s32 sfb_stored_cfa(const struct sfb_spec *s, s32 off)
{
	if (s->abi != SFRAME_ABI_S390X_ENDIAN_BIG || s->raw_words)
		return off;
	return (off + SFRAME_S390X_CFA_OFFSET_ADJUSTMENT) /
	       SFRAME_S390X_CFA_OFFSET_ALIGNMENT;
}

/*
 * Writes @s into @buf, which will be at user address @addr, for functions
 * placed relative to @text.  Returns the section's size.
 */
static inline u32 sfb_build(const struct sfb_spec *s, u8 *buf,
			    unsigned long addr, unsigned long text,
			    struct sfb_layout *l)
{
	bool big = sfb_big_endian(s->abi), v2 = s->version == SFRAME_VERSION_2;
	unsigned int fde_size = v2 ? 20 : 16, hdr_end = 28 + s->auxhdr_len;
	unsigned int i, j, k, pos, nwords, num_fres = 0;

	memset(l, 0, sizeof(*l));
	l->big_endian = big;
	l->fdes = hdr_end + s->fde_gap;
	l->fres = l->fdes + s->nfdes * fde_size + s->fre_gap;
	memset(buf, 0, l->fres);

	pos = l->fres;
	for (i = 0; i < s->nfdes; i++) {
		const struct sfb_fde *f = &s->fde[i];
		unsigned int at = 1U << SFRAME_FDE_INFO_FRE_TYPE(f->info);
		bool flex = SFRAME_FDE_INFO2_TYPE(f->info2) == SFRAME_FDE_TYPE_FLEX;
		u8 *fde = buf + l->fdes + i * fde_size;
		unsigned long field = addr + l->fdes + i * fde_size;
		bool pcrel = s->flags & SFRAME_F_FDE_FUNC_START_PCREL;
		s64 start = text + f->func - (pcrel ? field : addr);

		l->fde[i] = l->fdes + i * fde_size;
		l->attr[i] = pos;
		sfb_put(fde, start, v2 ? 4 : 8, big);
		sfb_put(fde + (v2 ? 4 : 8), f->size, 4, big);
		sfb_put(fde + (v2 ? 8 : 12), pos - l->fres, 4, big);
		if (v2) {
			sfb_put(fde + 12, f->nfres, 4, big);
			fde[16] = f->info;
			fde[17] = f->rep_size;
		} else {
			sfb_put(buf + pos, f->nfres, 2, big);
			buf[pos + 2] = f->info;
			buf[pos + 3] = f->info2;
			buf[pos + 4] = f->rep_size;
			pos += 5;
		}
		for (j = 0; j < f->nfres; j++) {
			const struct sfb_fre *r = &f->fre[j];
			unsigned int ws = 1U << SFRAME_FRE_INFO_DW_SIZE(r->info);

			l->fre[i][j] = pos;
			sfb_put(buf + pos, r->start, at, big);
			buf[pos + at] = r->info;
			pos += at + 1;
			nwords = min_t(unsigned int, SFRAME_FRE_INFO_DW_COUNT(r->info),
				       SFB_MAX_WORDS);
			for (k = 0; k < nwords; k++) {
				s32 w = r->words[k];

				if (k == (flex ? 1 : 0))
					w = sfb_stored_cfa(s, w);
				sfb_put(buf + pos, (u32)w, ws, big);
				pos += ws;
			}
			num_fres++;
		}
	}
	memset(buf + pos, 0, s->fre_pad);
	pos += s->fre_pad;

	sfb_put(buf, SFRAME_MAGIC, 2, big);
	buf[2] = s->version;
	buf[3] = s->flags;
	buf[4] = s->abi;
	buf[5] = s->fixed_fp;
	buf[6] = s->fixed_ra;
	buf[7] = s->auxhdr_len;
	sfb_put(buf + 8, s->nfdes, 4, big);
	sfb_put(buf + 12, num_fres, 4, big);
	sfb_put(buf + 16, pos - l->fres, 4, big);
	sfb_put(buf + 20, l->fdes - hdr_end, 4, big);
	sfb_put(buf + 24, l->fres - hdr_end, 4, big);
	for (i = 28; i < hdr_end; i++)
		buf[i] = 0xa5;	/* aux header contents the reader must skip */
	l->size = pos;
	return pos;
}

/*
 * The base section most cases start from: V3, sorted, PC-relative, x86-like
 * fixed RA slot (any ABI may carry one), three functions:
 *   0x000-0x040  two FREs, 1-byte words
 *   0x040-0x080  three FREs, CFA from FP after the prologue
 *   0x100-0x180  one FRE
 */
static inline void sfb_base(struct sfb_spec *s, u8 abi)
{
	static const struct sfb_fde fdes[] = {
		{ .func = 0x000, .size = 0x40, .nfres = 2, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 8 } },
			{ 0x4, SFB_FRE_INFO(1, 2, 0, 0), { 16, -16 } } } },
		{ .func = 0x040, .size = 0x40, .nfres = 3, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 8 } },
			{ 0x1, SFB_FRE_INFO(1, 2, 0, 0), { 16, -16 } },
			{ 0x4, SFB_FRE_INFO(0, 2, 0, 0), { 16, -16 } } } },
		{ .func = 0x100, .size = 0x80, .nfres = 1, .fre = {
			{ 0x0, SFB_FRE_INFO(1, 1, 0, 0), { 8 } } } },
	};

	memset(s, 0, sizeof(*s));
	s->version = SFRAME_VERSION_3;
	s->flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL;
	s->abi = abi;
	s->fixed_ra = -8;
	s->nfdes = 3;
	memcpy(s->fde, fdes, sizeof(fdes));
}

#endif /* _SFRAME_TEST_BUILD_H */
