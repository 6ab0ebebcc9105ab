/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-gen --output: a copy of an ELF64 executable or shared object with
 * a loadable SFrame section and a PT_GNU_SFRAME program header added, so
 * that the kernel registers it at mmap like a linker-made one.
 */
#ifndef _SFRAME_GEN_ELF_H
#define _SFRAME_GEN_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sframe-gen.h"

/**
 * struct sframe_gen_elf - the copy sframe_gen_elf_build() made
 * @buf: its bytes (malloc'd; sframe_gen_elf_free() frees them).
 * @size: how many.
 * @seg_off: file offset of the new PT_LOAD (the program headers, then
 *	the SFrame section).
 * @seg_vaddr: its address.
 * @sframe_off: file offset of the SFrame section.
 * @sframe_addr: its address (what PT_GNU_SFRAME says).
 * @sframe_size: its size.
 * @section_added: a .sframe section header was added (false when the
 *	file has no section headers or no section name table, or when the
 *	file's own was pointed at the new section).
 */
struct sframe_gen_elf {
	uint8_t		*buf;
	size_t		size;
	uint64_t	seg_off;
	uint64_t	seg_vaddr;
	uint64_t	sframe_off;
	uint64_t	sframe_addr;
	size_t		sframe_size;
	bool		section_added;
};

int sframe_gen_elf_build(const void *data, size_t size, const struct sframe_gen *gen,
			 bool replace, struct sframe_gen_elf *out, char *err, size_t err_size);
int sframe_gen_elf_write(const struct sframe_gen_elf *out, const char *path, mode_t mode,
			 char *err, size_t err_size);
void sframe_gen_elf_free(struct sframe_gen_elf *out);

#endif /* _SFRAME_GEN_ELF_H */
