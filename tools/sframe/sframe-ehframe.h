/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-ehframe: where an ELF object's .eh_frame is, found the way an
 * unwinder finds it at run time: PT_GNU_EH_FRAME -> .eh_frame_hdr ->
 * eh_frame_ptr.  Shared by the load-time module (libsframe-audit.so),
 * which reads a loaded object's memory, and its checker, which reads the
 * file on disk.
 */
#ifndef _SFRAME_EHFRAME_H
#define _SFRAME_EHFRAME_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

/**
 * typedef sfe_at_fn - the bytes of an object at an address
 * @ctx: the caller's.
 * @addr: an address in the space the program headers are shifted into.
 * @len: how many bytes are wanted.
 *
 * Return: a pointer to @len readable bytes, or NULL if they are not all
 * there (outside what is mapped, or what the file holds).
 */
typedef const void *(*sfe_at_fn)(void *ctx, uint64_t addr, size_t len);

/**
 * struct sfe_eh_frame - an object's .eh_frame
 * @addr: its address, in the same space as the @bias given.
 * @size: bytes from @addr to the end of the file part of the PT_LOAD that
 *	holds it: a bound, .eh_frame itself ends at its zero terminator.
 * @bytes: what @at gave for those bytes.
 */
struct sfe_eh_frame {
	uint64_t	addr;
	size_t		size;
	const void	*bytes;
};

/**
 * enum sfe_result - what sfe_find_eh_frame() found
 * @SFE_OK: @out is filled in.
 * @SFE_HAS_SFRAME: the object has PT_GNU_SFRAME (checked first).
 * @SFE_NO_HDR: no PT_GNU_EH_FRAME, or it lies outside every PT_LOAD.
 * @SFE_BAD_HDR: .eh_frame_hdr unreadable, of an unknown version, or with
 *	an eh_frame_ptr encoding that cannot be decoded here.
 * @SFE_BAD_PTR: eh_frame_ptr points outside every PT_LOAD.
 */
enum sfe_result {
	SFE_OK,
	SFE_HAS_SFRAME,
	SFE_NO_HDR,
	SFE_BAD_HDR,
	SFE_BAD_PTR,
};

const ElfW(Phdr) *sfe_load_of(const ElfW(Phdr) *phdr, unsigned int phnum,
			      uint64_t vaddr, uint64_t len);
enum sfe_result sfe_find_eh_frame(const ElfW(Phdr) *phdr, unsigned int phnum,
				  uint64_t bias, sfe_at_fn at, void *ctx,
				  struct sfe_eh_frame *out);
enum sfe_result sfe_find_eh_frame_fill(const ElfW(Phdr) *phdr, unsigned int phnum,
				       uint64_t bias, sfe_at_fn at, void *ctx,
				       struct sfe_eh_frame *out);
const char *sfe_result_str(enum sfe_result res);

#endif /* _SFRAME_EHFRAME_H */
