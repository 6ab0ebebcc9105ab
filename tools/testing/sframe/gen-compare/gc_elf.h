/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sections of a linked ELF64 file that gen-compare needs: its code,
 * .eh_frame, .sframe and .got.  Either byte order, any host.
 */
#ifndef _GC_ELF_H
#define _GC_ELF_H

#include "gc.h"

/**
 * struct gc_section - one section
 * @name: its name, NUL-terminated, inside the file's bytes.
 * @addr: its address.
 * @size: its size.
 * @bytes: its contents, @size bytes; NULL for SHT_NOBITS.
 * @exec: SHF_EXECINSTR and SHF_ALLOC: code.
 */
struct gc_section {
	const char		*name;
	u64			addr;
	u64			size;
	const unsigned char	*bytes;
	bool			exec;
};

/**
 * struct gc_elf - a mapped ELF file
 * @data: the whole file.
 * @size: its size.
 * @arch: its ABI.
 * @secs: its sections.
 * @nsecs: how many.
 * @alloc_end: end of the highest SHF_ALLOC section.
 */
struct gc_elf {
	unsigned char		*data;
	size_t			size;
	enum gc_arch		arch;
	struct gc_section	*secs;
	size_t			nsecs;
	u64			alloc_end;
};

void gc_elf_load(const char *path, struct gc_elf *elf);
const struct gc_section *gc_elf_section(const struct gc_elf *elf, const char *name);
void gc_elf_free(struct gc_elf *elf);

#endif /* _GC_ELF_H */
