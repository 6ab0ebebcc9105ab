/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SFrame sections registered and attached through prctl(): the calls'
 * structures, flags and errors.  The section format itself is not part of
 * this ABI (it is binutils'); see Documentation/userspace-api/sframe.rst.
 */
#ifndef _UAPI_LINUX_SFRAME_H
#define _UAPI_LINUX_SFRAME_H

#include <linux/types.h>

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
 *
 * Anyone may ask whether code of theirs is covered by an attachment:
 *
 *	prctl(PR_SFRAME_ATTACHED, addr, 0, 0, 0);
 *
 * returns 1 if the file mapped executable at addr has, in its current
 * version, an attached section whose text holds addr, and 0 if not
 * (nothing mapped there included): a library that would make SFrame for
 * that code itself can leave it to the kernel.  Errors: EINVAL (non-zero
 * arguments 3 to 5), EINTR (a fatal signal).
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
