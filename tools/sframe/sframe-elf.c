// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding, copying and relocating the SFrame data of an ELF file: see
 * sframe-elf.h.  Any ELF byte order, on any host.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read-file.h"
#include "sframe-elf.h"

#define EI_CLASS		4
#define EI_DATA			5
#define ELFCLASS32		1
#define ELFCLASS64		2
#define ELFDATA2LSB		1
#define ELFDATA2MSB		2
#define EM_S390			22
#define EM_X86_64		62
#define EM_AARCH64		183
#define ET_REL			1
#define SHT_PROGBITS		1
#define SHT_NOBITS		8
#define SHT_GNU_SFRAME		0x6ffffff4
#define PT_LOAD			1
#define PF_X			1
#define PT_GNU_SFRAME		0x6474e554
#define SHN_XINDEX		0xffff
#define ELF64_EHDR_SIZE		64
#define ELF64_SHDR_SIZE		64
#define ELF64_PHDR_SIZE		56

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

static const char *prog, *path;

__printf(1, 2) __noreturn void sframe_elf_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: %s: ", prog, path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

struct elf_file {
	const unsigned char	*data;
	size_t			size;
	bool			big;
	u16			machine;
	u16			type;
};

static u64 rd(const struct elf_file *elf, u64 off, unsigned int len)
{
	u64 v = 0;
	unsigned int i;

	/* Callers check bounds first; this is a last line of defence. */
	if (off > elf->size || elf->size - off < len)
		sframe_elf_fail("truncated ELF file");
	for (i = 0; i < len; i++) {
		unsigned int b = elf->big ? i : len - 1 - i;

		v = (v << 8) | elf->data[off + b];
	}
	return v;
}

static bool in_file(const struct elf_file *elf, u64 off, u64 len)
{
	return off <= elf->size && len <= elf->size - off;
}

static const char *machine_name(u16 machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "aarch64";
	case EM_S390:
		return "s390x";
	}
	return NULL;
}

static void elf_open(struct elf_file *elf)
{
	const unsigned char *d = elf->data;

	if (elf->size < 16 || memcmp(d, "\177ELF", 4))
		sframe_elf_fail("not an ELF file");
	if (d[EI_CLASS] == ELFCLASS32)
		sframe_elf_fail("ELF32 files are not supported (SFrame is for 64-bit ABIs)");
	if (d[EI_CLASS] != ELFCLASS64)
		sframe_elf_fail("unknown ELF class %u", d[EI_CLASS]);
	if (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB)
		sframe_elf_fail("unknown ELF data encoding %u", d[EI_DATA]);
	elf->big = d[EI_DATA] == ELFDATA2MSB;
	if (elf->size < ELF64_EHDR_SIZE)
		sframe_elf_fail("truncated ELF header");
	elf->type = rd(elf, 16, 2);
	elf->machine = rd(elf, 18, 2);
	if (!machine_name(elf->machine))
		sframe_elf_fail("ELF machine %u is not x86_64, aarch64 or s390x", elf->machine);
}

/* Finds .sframe by section name; false if the file has no section headers. */
static bool find_section(const struct elf_file *elf, struct sframe_loc *loc)
{
	u64 shoff = rd(elf, 0x28, 8), stroff, strsize, off, name, type, i;
	u64 shentsize = rd(elf, 0x3a, 2), shnum = rd(elf, 0x3c, 2);
	u64 shstrndx = rd(elf, 0x3e, 2);

	if (!shoff)
		return false;
	if (shentsize < ELF64_SHDR_SIZE)
		sframe_elf_fail("bad section header size %llu", (unsigned long long)shentsize);
	if (!in_file(elf, shoff, ELF64_SHDR_SIZE))
		sframe_elf_fail("section headers out of the file");
	/* Large counts live in section 0 (ELF gABI extended numbering). */
	if (!shnum)
		shnum = rd(elf, shoff + 0x20, 8);
	if (shstrndx == SHN_XINDEX)
		shstrndx = rd(elf, shoff + 0x28, 4);
	if (shnum > elf->size / shentsize || !in_file(elf, shoff, shnum * shentsize))
		sframe_elf_fail("section headers out of the file");
	if (shstrndx >= shnum)
		sframe_elf_fail("no section name table");
	off = shoff + shstrndx * shentsize;
	stroff = rd(elf, off + 0x18, 8);
	strsize = rd(elf, off + 0x20, 8);
	if (!in_file(elf, stroff, strsize))
		sframe_elf_fail("section name table out of the file");

	for (i = 0; i < shnum; i++) {
		off = shoff + i * shentsize;
		name = rd(elf, off, 4);
		type = rd(elf, off + 4, 4);
		if (name >= strsize ||
		    strnlen((const char *)elf->data + stroff + name, strsize - name) !=
		    sizeof(".sframe") - 1 ||
		    memcmp(elf->data + stroff + name, ".sframe", sizeof(".sframe") - 1))
			continue;
		if (type == SHT_NOBITS)
			sframe_elf_fail(".sframe has no contents (SHT_NOBITS)");
		if (type != SHT_GNU_SFRAME && type != SHT_PROGBITS)
			sframe_elf_fail(".sframe has unexpected section type %#llx",
					(unsigned long long)type);
		loc->addr = rd(elf, off + 0x10, 8);
		off = rd(elf, off + 0x18, 8);
		loc->size = rd(elf, shoff + i * shentsize + 0x20, 8);
		if (!in_file(elf, off, loc->size))
			sframe_elf_fail(".sframe contents out of the file");
		loc->bytes = elf->data + off;
		loc->where = ".sframe section";
		loc->shndx = i;
		return true;
	}
	sframe_elf_fail("no .sframe section");
}

static bool find_segment(const struct elf_file *elf, struct sframe_loc *loc)
{
	u64 phoff = rd(elf, 0x20, 8), phentsize = rd(elf, 0x36, 2);
	u64 phnum = rd(elf, 0x38, 2), off, i;

	if (!phoff || !phnum)
		return false;
	if (phentsize < ELF64_PHDR_SIZE || !in_file(elf, phoff, phnum * phentsize))
		sframe_elf_fail("program headers out of the file");
	for (i = 0; i < phnum; i++) {
		off = phoff + i * phentsize;
		if (rd(elf, off, 4) != PT_GNU_SFRAME)
			continue;
		loc->addr = rd(elf, off + 0x10, 8);
		loc->size = rd(elf, off + 0x20, 8);
		off = rd(elf, off + 0x08, 8);
		if (!in_file(elf, off, loc->size))
			sframe_elf_fail("PT_GNU_SFRAME contents out of the file");
		loc->bytes = elf->data + off;
		loc->where = "PT_GNU_SFRAME segment";
		return true;
	}
	return false;
}

/*
 * Where the file's code is.  An FDE outside it is corrupt, and walking it
 * byte by byte could mean billions of lines.  A relocatable object's
 * sections are placed at their file offsets (see relocate()).
 */
static void code_span(const struct elf_file *elf, unsigned long *lo,
		      unsigned long *hi)
{
	u64 phoff = rd(elf, 0x20, 8), phentsize = rd(elf, 0x36, 2);
	u64 phnum = rd(elf, 0x38, 2), off, i, vaddr, memsz;

	*lo = ULONG_MAX;
	*hi = 0;
	if (elf->type == ET_REL) {
		*lo = 0;
		*hi = elf->size;
		return;
	}
	if (phentsize < ELF64_PHDR_SIZE || !in_file(elf, phoff, phnum * phentsize))
		return;
	for (i = 0; i < phnum; i++) {
		off = phoff + i * phentsize;
		if (rd(elf, off, 4) != PT_LOAD || !(rd(elf, off + 4, 4) & PF_X))
			continue;
		vaddr = rd(elf, off + 0x10, 8);
		memsz = rd(elf, off + 0x28, 8);
		if (vaddr + memsz < vaddr)
			continue;
		if (vaddr < *lo)
			*lo = vaddr;
		if (vaddr + memsz > *hi)
			*hi = vaddr + memsz;
	}
}

struct shdr {
	u64	type, offset, size, link, info, entsize;
};

static void read_shdr(const struct elf_file *elf, u64 i, struct shdr *sh)
{
	u64 shoff = rd(elf, 0x28, 8), shentsize = rd(elf, 0x3a, 2), off;

	off = shoff + i * shentsize;
	sh->type = rd(elf, off + 4, 4);
	sh->offset = rd(elf, off + 0x18, 8);
	sh->size = rd(elf, off + 0x20, 8);
	sh->link = rd(elf, off + 0x28, 4);
	sh->info = rd(elf, off + 0x2c, 4);
	sh->entsize = rd(elf, off + 0x38, 8);
}

/* Relocation types that can appear in .rela.sframe: width, PC-relative */
static bool reloc_kind(u16 machine, u32 type, unsigned int *len, bool *pcrel)
{
	static const struct {
		u16	machine;
		u32	type;
		u8	len;
		bool	pcrel;
	} kinds[] = {
		{ EM_X86_64, 1, 8, false },	/* R_X86_64_64 */
		{ EM_X86_64, 2, 4, true },	/* R_X86_64_PC32 */
		{ EM_X86_64, 10, 4, false },	/* R_X86_64_32 */
		{ EM_X86_64, 11, 4, false },	/* R_X86_64_32S */
		{ EM_X86_64, 24, 8, true },	/* R_X86_64_PC64 */
		{ EM_AARCH64, 257, 8, false },	/* R_AARCH64_ABS64 */
		{ EM_AARCH64, 258, 4, false },	/* R_AARCH64_ABS32 */
		{ EM_AARCH64, 260, 8, true },	/* R_AARCH64_PREL64 */
		{ EM_AARCH64, 261, 4, true },	/* R_AARCH64_PREL32 */
		{ EM_S390, 4, 4, false },	/* R_390_32 */
		{ EM_S390, 5, 4, true },	/* R_390_PC32 */
		{ EM_S390, 22, 8, false },	/* R_390_64 */
		{ EM_S390, 23, 8, true },	/* R_390_PC64 */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (kinds[i].machine == machine && kinds[i].type == type) {
			*len = kinds[i].len;
			*pcrel = kinds[i].pcrel;
			return true;
		}
	}
	return false;
}

/*
 * A relocatable object's FDE starts are relocations against sections that
 * all sit at address 0, which the reader would see as overlapping FDEs.
 * Place every section at its file offset instead (distinct, non-
 * overlapping) and apply .rela.sframe to the copy, so the FDEs point at
 * their functions' bytes in the file.
 */
static void relocate(const struct elf_file *elf, struct sframe_loc *loc,
		     unsigned char *copy)
{
	u64 shnum = rd(elf, 0x3c, 2), i, j, shoff = rd(elf, 0x28, 8);
	struct shdr rela, symtab, target;
	u64 r_off, r_info, sym, shndx, val, v;
	s64 addend;
	unsigned int len, b;
	bool pcrel;

	if (!shnum)
		shnum = rd(elf, shoff + 0x20, 8);
	loc->addr = rd(elf, shoff + loc->shndx * rd(elf, 0x3a, 2) + 0x18, 8);
	loc->relocated = true;
	for (i = 0; i < shnum; i++) {
		read_shdr(elf, i, &rela);
		if (rela.type != 4 /* SHT_RELA */ || rela.info != loc->shndx)
			continue;
		if (rela.entsize < 24 || !in_file(elf, rela.offset, rela.size) ||
		    rela.link >= shnum)
			sframe_elf_fail("bad relocation section for .sframe");
		read_shdr(elf, rela.link, &symtab);
		if (symtab.entsize < 24 || !in_file(elf, symtab.offset, symtab.size))
			sframe_elf_fail("bad symbol table");
		for (j = 0; j + rela.entsize <= rela.size; j += rela.entsize) {
			r_off = rd(elf, rela.offset + j, 8);
			r_info = rd(elf, rela.offset + j + 8, 8);
			addend = rd(elf, rela.offset + j + 16, 8);
			if (!reloc_kind(elf->machine, r_info & 0xffffffff, &len, &pcrel))
				sframe_elf_fail(".sframe relocation type %llu not understood",
						(unsigned long long)(r_info & 0xffffffff));
			sym = r_info >> 32;
			if ((sym + 1) * symtab.entsize > symtab.size)
				sframe_elf_fail("relocation symbol out of the symbol table");
			val = rd(elf, symtab.offset + sym * symtab.entsize + 8, 8);
			shndx = rd(elf, symtab.offset + sym * symtab.entsize + 6, 2);
			if (shndx && shndx < 0xff00 && shndx < shnum) {
				read_shdr(elf, shndx, &target);
				val += target.offset;
			}
			v = val + addend;
			if (pcrel)
				v -= loc->addr + r_off;
			if (r_off > loc->size || loc->size - r_off < len)
				sframe_elf_fail(".sframe relocation out of the section");
			for (b = 0; b < len; b++)
				copy[r_off + (elf->big ? len - 1 - b : b)] = v >> (8 * b);
		}
	}
}

/**
 * sframe_elf_read() - the whole of the file at @file
 * @name: the program's name, for messages.
 * @file: the file.
 * @size: its size.
 *
 * Exits with a message naming @name and @file if the file cannot be read;
 * sframe_elf_fail() names them from then on.
 *
 * Return: the bytes, for free().
 */
unsigned char *sframe_elf_read(const char *name, const char *file, size_t *size)
{
	const char *err;
	unsigned char *buf;

	prog = name;
	path = file;
	buf = sframe_read_file(path, size, &err);
	if (!buf)
		sframe_elf_fail("%s", err);
	return buf;
}

/**
 * sframe_elf_load() - the SFrame data of the ELF file at @path
 * @prog: the program's name, for messages.
 * @path: the file.
 * @loc: filled in; sframe_elf_free() frees its copy.
 *
 * Exits with a message naming @prog and @path if the file cannot be read,
 * is not a 64-bit ELF file of a known machine, or has no usable SFrame
 * data.
 */
void sframe_elf_load(const char *name, const char *file, struct sframe_loc *loc)
{
	struct elf_file elf = { 0 };
	unsigned char *data, *copy;

	memset(loc, 0, sizeof(*loc));
	data = sframe_elf_read(name, file, &elf.size);
	elf.data = data;
	elf_open(&elf);
	if (!find_section(&elf, loc) && !find_segment(&elf, loc))
		sframe_elf_fail("no .sframe section or PT_GNU_SFRAME segment");
	if (!loc->size)
		sframe_elf_fail("%s is empty", loc->where);
	if (loc->addr + loc->size < loc->addr)
		sframe_elf_fail("%s wraps around the address space", loc->where);

	/* An exact-size copy, so a reader overrun shows under ASan. */
	copy = malloc(loc->size);
	if (!copy)
		sframe_elf_fail("out of memory");
	memcpy(copy, loc->bytes, loc->size);
	if (elf.type == ET_REL && loc->where[0] == '.')
		relocate(&elf, loc, copy);
	loc->bytes = copy;
	code_span(&elf, &loc->code_lo, &loc->code_hi);
	free(data);
}

void sframe_elf_free(struct sframe_loc *loc)
{
	free((void *)loc->bytes);
	loc->bytes = NULL;
}
