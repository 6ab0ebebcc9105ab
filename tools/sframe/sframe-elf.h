/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SFrame data of an ELF file, for the user space tools (sframe-dump,
 * sframe-bench, libsframe-bench): found by section name or by
 * PT_GNU_SFRAME, copied, relocated in a relocatable object.  Also the
 * reading of a whole file and the messages, which sframe-gen shares.
 */
#ifndef _SFRAME_ELF_H
#define _SFRAME_ELF_H

#include <stdbool.h>
#include <linux/types.h>

#define __noreturn		__attribute__((__noreturn__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))

/**
 * struct sframe_loc - an ELF file's SFrame data
 * @addr: the address the section is loaded at.
 * @size: its size.
 * @bytes: a copy of it, exactly @size bytes, relocated if @relocated.
 * @where: "section" or "segment", for messages.
 * @shndx: the section's index, when found by name.
 * @relocated: a relocatable object's section, its relocations applied
 *	with every section placed at its file offset.
 * @code_lo: lowest address of the file's code.
 * @code_hi: end of the file's code.
 */
struct sframe_loc {
	unsigned long	addr;
	unsigned long	size;
	const unsigned char *bytes;
	const char	*where;
	u64		shndx;
	bool		relocated;
	unsigned long	code_lo;
	unsigned long	code_hi;
};

unsigned char *sframe_elf_read(const char *prog, const char *path, size_t *size);
void sframe_elf_load(const char *prog, const char *path, struct sframe_loc *loc);
void sframe_elf_free(struct sframe_loc *loc);
__printf(1, 2) __noreturn void sframe_elf_fail(const char *fmt, ...);

#endif /* _SFRAME_ELF_H */
