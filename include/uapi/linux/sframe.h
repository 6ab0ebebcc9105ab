/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SFrame stack trace format, versions 2 and 3.
 *
 * One definition of the on-disk layout, shared by the kernel's reader, its
 * user space test harness and the sframe-dump tool.  Every structure is
 * packed: SFrame records are stored unaligned.  Values are in the byte
 * order of the target, which the magic number tells.
 */
#ifndef _UAPI_LINUX_SFRAME_H
#define _UAPI_LINUX_SFRAME_H

#include <linux/types.h>

#define SFRAME_MAGIC			0xdee2

/* ELF program header type of the segment holding .sframe */
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME			0x6474e554
#endif

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
} __attribute__((packed));

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
} __attribute__((packed));

/* V2: one fixed-size FDE holds everything about a function */
struct sframe_fde_v2 {
	__s32	func_start;	/* PC-relative if SFRAME_F_FDE_FUNC_START_PCREL */
	__u32	func_size;
	__u32	fres_off;	/* first FRE, from the FRE sub-section start */
	__u32	num_fres;
	__u8	info;
	__u8	rep_size;	/* block size of SFRAME_FDE_PCTYPE_MASK FDEs */
	__u16	padding;
} __attribute__((packed));

/* V3: a searchable index entry ... */
struct sframe_fde_v3 {
	__s64	func_start;	/* PC-relative if SFRAME_F_FDE_FUNC_START_PCREL */
	__u32	func_size;
	__u32	fres_off;	/* attribute block, from the FRE sub-section start */
} __attribute__((packed));

/* ... and an attribute block stored right before the function's FREs */
struct sframe_fda_v3 {
	__u16	num_fres;
	__u8	info;
	__u8	info2;
	__u8	rep_size;
} __attribute__((packed));

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

/*
 * Explicit registration, for JITs and runtimes that put code in memory
 * without mapping an ELF file:
 *
 *	struct sframe_registration reg = {
 *		.size = sizeof(reg),
 *		.sframe_start = ..., .sframe_size = ...,
 *		.text_start = ..., .text_size = ...,
 *	};
 *	prctl(PR_SFRAME_REGISTER, &reg, 0, 0, 0);	(<linux/prctl.h>)
 *	...
 *	prctl(PR_SFRAME_UNREGISTER, reg.text_start, 0, 0, 0);
 *
 * @size is the size of the structure the caller knows; fields it does not
 * know read as zero, and a larger structure is accepted only when every byte
 * the kernel does not know is zero (E2BIG otherwise).  Both ranges must be
 * mapped in the caller's address space, the text executable.  The
 * registration lasts until PR_SFRAME_UNREGISTER, or until part of either
 * range is unmapped (munmap, mremap, a MAP_FIXED mapping over it), which
 * removes the part of the text unmapped, or the whole registration when
 * its SFrame data goes; a fork copies it with the memory the child gets.
 * Permission changes leave it alone: a JIT may make its code writable to
 * patch it (and the section with it) and executable again.
 *
 * The kernel indexes the section when it is registered and keeps the rules
 * it has looked up since, so a JIT that changes code or section in place
 * must register again: PR_SFRAME_REGISTER with the same text_start (the
 * sizes and the section's address may change) replaces the registration
 * that starts there, in one step (a stack walk finds the old or the new
 * section, never neither), and drops what the kernel kept of the old one.
 * Walks may use the old rules until that call returns; if it fails, the
 * old registration stays.  PR_SFRAME_UNREGISTER then PR_SFRAME_REGISTER
 * does the same, with a moment when the code is described by nothing.
 *
 * With SFRAME_REGISTER_REPLACE in @flags the new section also takes the
 * place of every registration its text overlaps, a mapped file's or the
 * vDSO's included, in the same single step, provided all of that one's
 * text lies within [text_start, text_start + text_size); otherwise the
 * call fails with EEXIST and nothing changes.  This is how a section that
 * completes a file's own .sframe (code it leaves out, described from
 * .eh_frame) is put in its place.  The registration is an explicit one
 * from then on: PR_SFRAME_UNREGISTER at text_start removes it, and the
 * file's section comes back only if the file's text is mapped again.
 *
 * Errors: EINVAL (unknown flags, size below SFRAME_REGISTRATION_SIZE_VER0,
 * an empty or wrapping range), E2BIG (a structure larger than a page, or
 * unknown non-zero fields), EFBIG (a section too large to index), EFAULT (a
 * range not mapped or the data unreadable), EACCES (text not executable),
 * EEXIST (text overlaps a registration other than the explicit one it
 * replaces, which an attached one is only with SFRAME_REGISTER_REPLACE,
 * or, with SFRAME_REGISTER_REPLACE, one with text outside the new text),
 * ENOSPC (the process has as many sections as allowed), EDQUOT (their
 * memory would pass the process's limit), ENOMEM, and the reader's own:
 * EINVAL (malformed section), EOPNOTSUPP (version or ABI not supported).
 * PR_SFRAME_UNREGISTER: ENOENT when no explicit registration starts at the
 * given address, EINVAL when the unused arguments are not zero.
 */
struct sframe_registration {
	__u32	size;
	__u32	flags;		/* SFRAME_REGISTER_*; others must be 0 */
	__u64	sframe_start;
	__u64	sframe_size;
	__u64	text_start;
	__u64	text_size;
};

#define SFRAME_REGISTRATION_SIZE_VER0	40

/* Flags of struct sframe_registration */
#define SFRAME_REGISTER_REPLACE	(1U << 0)	/* replace what the text overlaps */

/*
 * Attached sections: SFrame for an ELF file that has none, given once for
 * the whole system by its administrator (CAP_SYS_ADMIN), so that every
 * process that maps the file has it from its first instruction on, the
 * dynamic loader's work before any library code runs included:
 *
 *	struct sframe_attachment att = {
 *		.size = sizeof(att),
 *		.elf_fd = ..., .sframe_fd = ...,
 *		.sframe_off = ..., .sframe_size = ..., .sframe_vaddr = ...,
 *		.text_vaddr = ..., .text_size = ...,
 *	};
 *	prctl(PR_SFRAME_ATTACH, &att, 0, 0, 0);
 *	...
 *	prctl(PR_SFRAME_DETACH, elf_fd, 0, 0, 0);
 *
 * The section is sframe_size bytes at sframe_off of the file sframe_fd,
 * made for the address sframe_vaddr of the ELF file's virtual addresses
 * (its PC-relative fields count from there), and describes the code at
 * [text_vaddr, text_vaddr + text_size), which must lie within one
 * executable PT_LOAD.  sframe_vaddr may lie anywhere, outside the file's
 * segments and below them too (it wraps as an unsigned sum with the load
 * bias), within 2^48 bytes of the text.  The kernel reads the section once,
 * during the call, and keeps that copy and its index for the whole system:
 * whatever happens to sframe_fd's file afterwards changes nothing.
 * Whenever that version of the ELF file is mapped executable, with no
 * PT_GNU_SFRAME of its own, in a process whose stacks may be walked, the
 * kernel registers the section for it as PR_SFRAME_REGISTER would, as
 * lying at load bias + sframe_vaddr, before the process runs an
 * instruction of the new mapping.  Nothing is mapped into the process:
 * it sees an explicit registration ("[attached]" in /proc/<pid>/sframe,
 * at an address where it has no mapping), which it may remove.
 *
 * The attachment is to that version of the file: a file rewritten or
 * replaced (a package upgrade) has none.  The section's file must be a
 * regular file that everyone may read and only its owner write, owned by
 * root, when the call reads it; the kernel holds the ELF file open until
 * PR_SFRAME_DETACH, which removes every attachment of the ELF file, or
 * with (unsigned long)-1 for the descriptor every attachment (processes
 * keep what they registered).  Several attachments of one file may be
 * made, for different text.
 *
 * Errors: EPERM (no CAP_SYS_ADMIN), EBADF (a descriptor not open, or the
 * section's not open for reading), EINVAL (unknown flags, size below
 * SFRAME_ATTACHMENT_SIZE_VER0, an empty or wrapping range, a section past
 * the end of its file or too far from its text, not regular files, an ELF
 * file whose version cannot be told apart from the next, or the reader's
 * refusal of the section), EOPNOTSUPP (the section's version or ABI not
 * supported), EACCES (the section's file writable by others than root, or
 * not readable by all), E2BIG (a structure larger than a page, or unknown
 * non-zero fields), EEXIST (text overlapping an attachment of the same
 * file), ENOSPC (as many attachments, or as many bytes of them, as
 * allowed), ENOMEM.
 * PR_SFRAME_DETACH: EPERM, EBADF, ENOENT when there is none to remove.
 */
struct sframe_attachment {
	__u32	size;
	__u32	flags;		/* must be 0 */
	__s32	elf_fd;
	__s32	sframe_fd;
	__u64	sframe_off;
	__u64	sframe_size;
	__u64	sframe_vaddr;
	__u64	text_vaddr;
	__u64	text_size;
};

#define SFRAME_ATTACHMENT_SIZE_VER0	56

#endif /* _UAPI_LINUX_SFRAME_H */
