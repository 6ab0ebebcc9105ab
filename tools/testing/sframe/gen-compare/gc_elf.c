// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading an ELF64 file's section headers for gen-compare.  See gc_elf.h.
 * Every offset and size is checked against the file before use.
 */
#include <stdlib.h>
#include <string.h>

#include "gc_elf.h"
#include "../../../sframe/read-file.h"

#define EM_S390		22
#define EM_X86_64	62
#define EM_AARCH64	183
#define ET_REL		1
#define SHT_NOBITS	8
#define SHF_ALLOC	0x2
#define SHF_EXECINSTR	0x4
#define SHDR_SIZE	64

static const char *path;

static u64 rd(const struct gc_elf *elf, bool big, u64 off, unsigned int len)
{
	u64 v = 0;
	unsigned int i;

	if (off > elf->size || elf->size - off < len)
		gc_fail("%s: truncated ELF file", path);
	for (i = 0; i < len; i++)
		v = (v << 8) | elf->data[off + (big ? i : len - 1 - i)];
	return v;
}

static bool in_file(const struct gc_elf *elf, u64 off, u64 len)
{
	return off <= elf->size && len <= elf->size - off;
}

/**
 * gc_elf_load() - read a linked ELF64 file and its section headers
 * @file: its path.
 * @elf: filled in; gc_elf_free() it.
 *
 * Ends the program with a message for anything but a linked ELF64 file of
 * x86_64, aarch64 or s390x with sane section headers.
 */
void gc_elf_load(const char *file, struct gc_elf *elf)
{
	u64 shoff, shentsize, shnum, shstrndx, stroff, strsize, i, off;
	const char *err;
	bool big;

	path = file;
	memset(elf, 0, sizeof(*elf));
	elf->data = sframe_read_file(path, &elf->size, &err);
	if (!elf->data)
		gc_fail("%s: %s", path, err);
	if (elf->size < 64 || memcmp(elf->data, "\177ELF", 4))
		gc_fail("%s: not an ELF file", path);
	if (elf->data[4] != 2)
		gc_fail("%s: not ELF64", path);
	if (elf->data[5] != 1 && elf->data[5] != 2)
		gc_fail("%s: unknown byte order", path);
	big = elf->data[5] == 2;
	if (rd(elf, big, 16, 2) == ET_REL)
		gc_fail("%s: a relocatable object; link it first", path);
	switch (rd(elf, big, 18, 2)) {
	case EM_X86_64:
		elf->arch = GC_X86_64;
		break;
	case EM_AARCH64:
		elf->arch = GC_AARCH64;
		break;
	case EM_S390:
		elf->arch = GC_S390X;
		break;
	default:
		gc_fail("%s: not x86_64, aarch64 or s390x", path);
	}
	if (big != (elf->arch == GC_S390X))
		gc_fail("%s: byte order foreign to its ABI", path);
	shoff = rd(elf, big, 0x28, 8);
	shentsize = rd(elf, big, 0x3a, 2);
	shnum = rd(elf, big, 0x3c, 2);
	shstrndx = rd(elf, big, 0x3e, 2);
	if (!shoff)
		gc_fail("%s: no section headers", path);
	if (shentsize < SHDR_SIZE || !in_file(elf, shoff, SHDR_SIZE))
		gc_fail("%s: bad section headers", path);
	if (!shnum)
		shnum = rd(elf, big, shoff + 0x20, 8);
	if (shstrndx == 0xffff)
		shstrndx = rd(elf, big, shoff + 0x28, 4);
	if (shnum > elf->size / shentsize || !in_file(elf, shoff, shnum * shentsize) ||
	    shstrndx >= shnum)
		gc_fail("%s: bad section headers", path);
	off = shoff + shstrndx * shentsize;
	stroff = rd(elf, big, off + 0x18, 8);
	strsize = rd(elf, big, off + 0x20, 8);
	if (!in_file(elf, stroff, strsize) || !strsize || elf->data[stroff + strsize - 1])
		gc_fail("%s: bad section name table", path);

	elf->secs = calloc(shnum ? shnum : 1, sizeof(*elf->secs));
	if (!elf->secs)
		gc_fail("%s: out of memory", path);
	for (i = 0; i < shnum; i++) {
		struct gc_section *s = &elf->secs[elf->nsecs];
		u64 name, type, flags, foff;

		off = shoff + i * shentsize;
		name = rd(elf, big, off, 4);
		type = rd(elf, big, off + 4, 4);
		flags = rd(elf, big, off + 8, 8);
		s->addr = rd(elf, big, off + 0x10, 8);
		foff = rd(elf, big, off + 0x18, 8);
		s->size = rd(elf, big, off + 0x20, 8);
		if (name >= strsize)
			gc_fail("%s: section %llu: bad name", path, (unsigned long long)i);
		s->name = (const char *)elf->data + stroff + name;
		if (type != SHT_NOBITS) {
			if (!in_file(elf, foff, s->size))
				gc_fail("%s: section %s lies outside the file", path, s->name);
			s->bytes = elf->data + foff;
		}
		if (s->addr + s->size < s->addr)
			gc_fail("%s: section %s wraps around", path, s->name);
		s->exec = (flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR);
		if ((flags & SHF_ALLOC) && s->addr + s->size > elf->alloc_end)
			elf->alloc_end = s->addr + s->size;
		elf->nsecs++;
	}
}

/**
 * gc_elf_section() - a section by name
 * @elf: the file.
 * @name: the name.
 *
 * Return: the first section of that name with contents, or NULL.
 */
const struct gc_section *gc_elf_section(const struct gc_elf *elf, const char *name)
{
	size_t i;

	for (i = 0; i < elf->nsecs; i++)
		if (elf->secs[i].bytes && !strcmp(elf->secs[i].name, name))
			return &elf->secs[i];
	return NULL;
}

void gc_elf_free(struct gc_elf *elf)
{
	free(elf->data);
	free(elf->secs);
	memset(elf, 0, sizeof(*elf));
}
