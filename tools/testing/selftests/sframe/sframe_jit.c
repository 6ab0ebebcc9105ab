// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest valid SFrame section for one block of JIT code: a header,
 * one FDE covering the whole block and one FRE for its first byte that
 * says "CFA = SP + what a call left there", in the machine's byte order
 * and ABI, laid out by the structures of include/linux/sframe_format.h and
 * the format manual (V3: FDE index, then the attribute block before the
 * FREs; V2: one 20-byte FDE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "sframe_jit.h"

#if defined(__x86_64__)
#define SF_JIT_FIXED_RA		(-8)	/* the call pushed the RA just below the CFA */
#define SF_JIT_CFA_WORD		8	/* CFA = SP + 8 at function entry */
#elif defined(__s390x__)
#define SF_JIT_FIXED_RA		0	/* RA tracked per FRE; absent: still in r14 */
#define SF_JIT_CFA_WORD		0	/* CFA = SP + 160, stored as (160 - 160) / 8 */
#else
#define SF_JIT_FIXED_RA		0	/* RA tracked per FRE; absent: still in LR */
#define SF_JIT_CFA_WORD		0	/* CFA = SP at function entry */
#endif

/* A leaf that counts down a register and returns: no stack use */
const unsigned char sf_jit_loop_code[] = {
#if defined(__x86_64__)
	0xb9, 0x00, 0x00, 0x01, 0x00,	/* mov $0x10000, %ecx */
	0xff, 0xc9,			/* 1: dec %ecx */
	0x75, 0xfc,			/* jnz 1b */
	0xc3,				/* ret */
#elif defined(__aarch64__)
	0xe1, 0xff, 0x9f, 0x52,		/* mov w1, #0xffff */
	0x21, 0x04, 0x00, 0x71,		/* 1: subs w1, w1, #1 */
	0xe1, 0xff, 0xff, 0x54,		/* b.ne 1b */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
#elif defined(__s390x__)
	0xa7, 0x18, 0x7f, 0xff,		/* lhi %r1, 0x7fff */
	0xa7, 0x16, 0x00, 0x00,		/* 1: brct %r1, 1b */
	0x07, 0xfe,			/* br %r14 */
#endif
};

const size_t sf_jit_loop_size = sizeof(sf_jit_loop_code);

/* FRE info: CFA from SP, one data word of one byte */
#define SF_JIT_FRE_INFO		(1 | 1 << 1 | SFRAME_FRE_DATAWORD_1B << 5)

/* The header of a section of @n FDEs with one FRE each */
static struct sframe_header sf_jit_header(unsigned int version, unsigned int n)
{
	return (struct sframe_header){
		.preamble = {
			.magic = SFRAME_MAGIC,
			.version = version,
			.flags = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
		},
		.abi_arch = SF_ABI_NATIVE,
		.cfa_fixed_ra_offset = SF_JIT_FIXED_RA,
		.num_fdes = n,
		.num_fres = n,
		.fdes_off = 0,
	};
}

/*
 * Writes at @buf (which is where the section will be read from: start
 * addresses are relative to their field) a section of @version whose FDE
 * covers [@text, @text + @size).  Returns its size.
 */
size_t sf_jit_build(void *buf, unsigned int version, unsigned long text,
		    unsigned long size)
{
	unsigned char fre[3] = { 0, SF_JIT_FRE_INFO, SF_JIT_CFA_WORD };
	unsigned char *p = buf, *fdes = p + sizeof(struct sframe_header);
	struct sframe_header h = sf_jit_header(version, 1);
	size_t len;

	memset(buf, 0, SF_JIT_SECTION_MAX);
	if (version == SFRAME_VERSION_2) {
		struct sframe_fde_v2 fde = {
			.func_start = (long)(text - (unsigned long)fdes),
			.func_size = size,
			.fres_off = 0,
			.num_fres = 1,
			.info = SFRAME_FRE_TYPE_ADDR1,
		};

		h.fres_off = sizeof(fde);
		h.fre_len = sizeof(fre);
		memcpy(fdes, &fde, sizeof(fde));
		memcpy(fdes + sizeof(fde), fre, sizeof(fre));
		len = sizeof(h) + sizeof(fde) + sizeof(fre);
	} else {
		struct sframe_fde_v3 fde = {
			.func_start = (long)(text - (unsigned long)fdes),
			.func_size = size,
			.fres_off = 0,
		};
		struct sframe_fda_v3 attr = {
			.num_fres = 1,
			.info = SFRAME_FRE_TYPE_ADDR1,
			.info2 = SFRAME_FDE_TYPE_DEFAULT,
		};

		h.fres_off = sizeof(fde);
		h.fre_len = sizeof(attr) + sizeof(fre);
		memcpy(fdes, &fde, sizeof(fde));
		memcpy(fdes + sizeof(fde), &attr, sizeof(attr));
		memcpy(fdes + sizeof(fde) + sizeof(attr), fre, sizeof(fre));
		len = sizeof(h) + sizeof(fde) + sizeof(attr) + sizeof(fre);
	}
	memcpy(p, &h, sizeof(h));
	return len;
}

/*
 * A V3 section of @n FDEs, FDE i covering byte i of @text, each with an
 * FRE of its own: a section whose index is as large as its FDE table.
 * sf_jit_many_size(@n) is its size, the room it needs at @buf.
 */
size_t sf_jit_many_size(unsigned int n)
{
	return sizeof(struct sframe_header) +
	       n * (sizeof(struct sframe_fde_v3) + sizeof(struct sframe_fda_v3) + 3);
}

size_t sf_jit_build_many(void *buf, unsigned long text, unsigned int n)
{
	unsigned char fre[3] = { 0, SF_JIT_FRE_INFO, SF_JIT_CFA_WORD };
	const size_t fre_block = sizeof(struct sframe_fda_v3) + sizeof(fre);
	unsigned char *p = buf, *fdes = p + sizeof(struct sframe_header);
	unsigned char *fres = fdes + n * sizeof(struct sframe_fde_v3);
	struct sframe_header h = sf_jit_header(SFRAME_VERSION_3, n);
	struct sframe_fda_v3 attr = {
		.num_fres = 1,
		.info = SFRAME_FRE_TYPE_ADDR1,
		.info2 = SFRAME_FDE_TYPE_DEFAULT,
	};
	unsigned int i;

	h.fres_off = n * sizeof(struct sframe_fde_v3);
	h.fre_len = n * fre_block;
	memcpy(p, &h, sizeof(h));
	for (i = 0; i < n; i++) {
		unsigned char *at = fdes + i * sizeof(struct sframe_fde_v3);
		struct sframe_fde_v3 fde = {
			.func_start = (long)(text + i - (unsigned long)at),
			.func_size = 1,
			.fres_off = i * fre_block,
		};

		memcpy(at, &fde, sizeof(fde));
		memcpy(fres + i * fre_block, &attr, sizeof(attr));
		memcpy(fres + i * fre_block + sizeof(attr), fre, sizeof(fre));
	}
	return sf_jit_many_size(n);
}

void sf_jit_reg(struct sframe_registration *reg, const void *sframe, size_t sframe_size,
		unsigned long text, unsigned long text_size)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->sframe_start = (unsigned long)sframe;
	reg->sframe_size = sframe_size;
	reg->text_start = text;
	reg->text_size = text_size;
}

/* 0, or the errno PR_SFRAME_REGISTER failed with */
int sf_jit_register(const void *reg)
{
	return prctl(PR_SFRAME_REGISTER, reg, 0, 0, 0) ? errno : 0;
}

int sf_jit_unregister(unsigned long text)
{
	return prctl(PR_SFRAME_UNREGISTER, text, 0, 0, 0) ? errno : 0;
}

/* The line /proc/self/sframe shows for @reg */
void sf_jit_line(struct sf_line *l, const struct sframe_registration *reg,
		 unsigned int version, unsigned long fdes)
{
	memset(l, 0, sizeof(*l));
	l->text_start = reg->text_start;
	l->text_end = reg->text_start + reg->text_size;
	l->sframe_start = reg->sframe_start;
	l->sframe_end = reg->sframe_start + reg->sframe_size;
	l->version = version;
	l->fdes = fdes;
	snprintf(l->state, sizeof(l->state), "ok");
	snprintf(l->path, sizeof(l->path), "[jit]");
	sf_line_format(l);
}
