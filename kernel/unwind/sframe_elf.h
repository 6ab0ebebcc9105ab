/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KERNEL_UNWIND_SFRAME_ELF_H
#define _KERNEL_UNWIND_SFRAME_ELF_H

#include <linux/types.h>

struct elf64_hdr;
struct elf64_phdr;
struct file;
struct inode;

/* GNU ld writes about a dozen; binfmt_elf would take up to 64 KiB worth. */
#define SFRAME_ELF_MAX_PHDRS	128

/* Executable segments remembered per file; GNU ld makes one. */
#define SFRAME_ELF_MAX_TEXT	4

/**
 * struct sframe_file_version - one version of a file's contents
 * @inode: the inode, only compared, never followed: a freed inode's memory
 *	reused for another file would still differ in number, generation or
 *	version.
 * @ino: its number.
 * @generation: its generation.
 * @size: the file's size.
 * @version: the inode's change counter (i_version), which every write
 *	moves; time stamps are not enough, as two writes may share one.
 */
struct sframe_file_version {
	const struct inode	*inode;
	unsigned long		ino;
	u32			generation;
	loff_t			size;
	u64			version;
};

/**
 * struct sframe_elf_segment - an executable PT_LOAD
 * @vaddr: p_vaddr.
 * @offset: p_offset.
 * @memsz: p_memsz.
 */
struct sframe_elf_segment {
	u64	vaddr;
	u64	offset;
	u64	memsz;
};

/**
 * struct sframe_elf_info - what the kernel needs of an ELF file's headers
 * @has_sframe: it has PT_GNU_SFRAME and executable code for it.
 * @sframe_vaddr: PT_GNU_SFRAME's p_vaddr.
 * @sframe_memsz: its p_memsz.
 * @nr_text: entries of @text.
 * @text: the executable PT_LOADs.
 */
struct sframe_elf_info {
	bool				has_sframe;
	u64				sframe_vaddr;
	u64				sframe_memsz;
	unsigned int			nr_text;
	struct sframe_elf_segment	text[SFRAME_ELF_MAX_TEXT];
};

bool sframe_file_version(struct file *file, struct sframe_file_version *v);
bool sframe_file_version_eq(const struct sframe_file_version *a,
			    const struct sframe_file_version *b);
bool sframe_elf_header_ok(const struct elf64_hdr *eh);
void sframe_elf_parse_phdrs(struct sframe_elf_info *info,
			    const struct elf64_phdr *phdrs, unsigned int nr);
int sframe_elf_info(struct file *file, struct sframe_elf_info *info);
bool sframe_elf_known_without(struct file *file);
#if IS_ENABLED(CONFIG_SFRAME_KUNIT_TEST)
void sframe_elf_cache_stats(unsigned long *hits, unsigned long *misses);
#endif

#endif /* _KERNEL_UNWIND_SFRAME_ELF_H */
