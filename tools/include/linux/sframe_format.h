/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame stack trace format, versions 2 and 3: the on-disk layout the
 * kernel's reader decodes.  The format is binutils'; the kernel reads it
 * and keeps it out of its user ABI.  The tools that write and dump
 * sections have a copy in tools/include/, which must stay the same
 * (tools/sframe/sync-check).  Every structure is packed: SFrame
 * records are stored unaligned.  Values are in the byte order of the
 * target, which the magic number tells.
 */
#ifndef _LINUX_SFRAME_FORMAT_H
#define _LINUX_SFRAME_FORMAT_H

#include <linux/compiler.h>
#include <linux/types.h>

#define SFRAME_MAGIC			0xdee2

#define SFRAME_VERSION_1		1	/* obsolete, never accepted */
#define SFRAME_VERSION_2		2
#define SFRAME_VERSION_3		3

/* Section-wide flags (preamble) */
#define SFRAME_F_FDE_SORTED		0x1
#define SFRAME_F_FRAME_POINTER		0x2	/* V2 only */
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4
#define SFRAME_V2_F_ALL			0x7
#define SFRAME_V3_F_ALL			0x5

/* ABI/arch identifiers */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG		1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE		3
#define SFRAME_ABI_S390X_ENDIAN_BIG		4

/* A fixed FP or RA offset of zero in the header means "none" */
#define SFRAME_CFA_FIXED_OFFSET_NONE	0

struct sframe_preamble {
	__u16	magic;
	__u8	version;
	__u8	flags;
} __packed;

struct sframe_header {
	struct sframe_preamble preamble;
	__u8	abi_arch;
	__s8	cfa_fixed_fp_offset;
	__s8	cfa_fixed_ra_offset;
	__u8	auxhdr_len;	/* aux header follows; sub-sections start after it */
	__u32	num_fdes;
	__u32	num_fres;
	__u32	fre_len;	/* bytes in the FRE sub-section */
	__u32	fdes_off;	/* from the end of the (aux) header */
	__u32	fres_off;	/* from the end of the (aux) header */
} __packed;

/* V2: one fixed-size FDE holds everything about a function */
struct sframe_fde_v2 {
	__s32	func_start;	/* PC-relative if SFRAME_F_FDE_FUNC_START_PCREL */
	__u32	func_size;
	__u32	fres_off;	/* first FRE, from the FRE sub-section start */
	__u32	num_fres;
	__u8	info;
	__u8	rep_size;	/* block size of SFRAME_FDE_PCTYPE_MASK FDEs */
	__u16	padding;
} __packed;

/* V3: a searchable index entry ... */
struct sframe_fde_v3 {
	__s64	func_start;	/* PC-relative if SFRAME_F_FDE_FUNC_START_PCREL */
	__u32	func_size;
	__u32	fres_off;	/* attribute block, from the FRE sub-section start */
} __packed;

/* ... and an attribute block stored right before the function's FREs */
struct sframe_fda_v3 {
	__u16	num_fres;
	__u8	info;
	__u8	info2;
	__u8	rep_size;
} __packed;

/* FDE info byte (V2 and V3) */
#define SFRAME_FDE_INFO_FRE_TYPE(info)	((info) & 0xf)
#define SFRAME_FDE_INFO_PCTYPE(info)	(((info) >> 4) & 0x1)
#define SFRAME_FDE_INFO_PAUTH_KEY(info)	(((info) >> 5) & 0x1)
#define SFRAME_FDE_INFO_SIGNAL(info)	(((info) >> 7) & 0x1)	/* V3 only */
/* FDE info2 byte (V3) */
#define SFRAME_FDE_INFO2_TYPE(info2)	((info2) & 0x1f)

#define SFRAME_FRE_TYPE_ADDR1		0
#define SFRAME_FRE_TYPE_ADDR2		1
#define SFRAME_FRE_TYPE_ADDR4		2

#define SFRAME_FDE_PCTYPE_INC		0
#define SFRAME_FDE_PCTYPE_MASK		1

#define SFRAME_AARCH64_PAUTH_KEY_A	0
#define SFRAME_AARCH64_PAUTH_KEY_B	1

#define SFRAME_FDE_TYPE_DEFAULT		0
#define SFRAME_FDE_TYPE_FLEX		1

/* FRE info byte */
#define SFRAME_FRE_INFO_CFA_BASE_SP(info)	((info) & 0x1)
#define SFRAME_FRE_INFO_DW_COUNT(info)		(((info) >> 1) & 0xf)
#define SFRAME_FRE_INFO_DW_SIZE(info)		(((info) >> 5) & 0x3)
#define SFRAME_FRE_INFO_MANGLED_RA(info)	(((info) >> 7) & 0x1)

#define SFRAME_FRE_DATAWORD_1B		0
#define SFRAME_FRE_DATAWORD_2B		1
#define SFRAME_FRE_DATAWORD_4B		2

/* Flex FDE control data word: (regnum << 3) | (deref << 1) | reg_p */
#define SFRAME_FLEX_CTL_REG_P(ctl)	((ctl) & 0x1)
#define SFRAME_FLEX_CTL_DEREF(ctl)	(((ctl) >> 1) & 0x1)
#define SFRAME_FLEX_CTL_REGNUM(ctl)	((ctl) >> 3)
#define SFRAME_FLEX_CTL_NONE		0	/* padding: no rule */

/* s390x: CFA offsets are stored as (offset - 160) / 8, SP = CFA - 160 */
#define SFRAME_S390X_CFA_OFFSET_ADJUSTMENT	(-160)
#define SFRAME_S390X_CFA_OFFSET_ALIGNMENT	8
#define SFRAME_S390X_SP_VAL_OFFSET		(-160)
/* s390x: an RA offset of 0 means the RA was not saved */
#define SFRAME_FRE_RA_OFFSET_INVALID		0

#endif /* _LINUX_SFRAME_FORMAT_H */
