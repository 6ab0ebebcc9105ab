// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-dump: print the .sframe section of an ELF file as the kernel's
 * SFrame reader (kernel/unwind/sframe.c, built through the user space
 * shims) understands it.
 *
 *   sframe-dump FILE                 header, FDEs and FREs
 *   sframe-dump --lookup-all FILE    the rules of every covered address
 *
 * The section bytes are the only "user memory" the reader can see, so what
 * this prints is exactly what an unwinder in the kernel would use.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_internal.h"

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
#define __noreturn		__attribute__((__noreturn__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))

static const char *prog = "sframe-dump";
static const char *path;

struct elf_file {
	const unsigned char	*data;
	size_t			size;
	bool			big;
	u16			machine;
	u16			type;
};

struct sframe_loc {
	unsigned long	addr;
	unsigned long	size;
	const unsigned char *bytes;
	const char	*where;
	u64		shndx;
	bool		relocated;
};

static __printf(1, 2) __noreturn void fail(const char *fmt, ...)
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

static u64 rd(const struct elf_file *elf, u64 off, unsigned int len)
{
	u64 v = 0;
	unsigned int i;

	/* Callers check bounds first; this is a last line of defence. */
	if (off > elf->size || elf->size - off < len)
		fail("truncated ELF file");
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
		fail("not an ELF file");
	if (d[EI_CLASS] == ELFCLASS32)
		fail("ELF32 files are not supported (SFrame is for 64-bit ABIs)");
	if (d[EI_CLASS] != ELFCLASS64)
		fail("unknown ELF class %u", d[EI_CLASS]);
	if (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB)
		fail("unknown ELF data encoding %u", d[EI_DATA]);
	elf->big = d[EI_DATA] == ELFDATA2MSB;
	if (elf->size < ELF64_EHDR_SIZE)
		fail("truncated ELF header");
	elf->type = rd(elf, 16, 2);
	elf->machine = rd(elf, 18, 2);
	if (!machine_name(elf->machine))
		fail("ELF machine %u is not x86_64, aarch64 or s390x", elf->machine);
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
		fail("bad section header size %llu", (unsigned long long)shentsize);
	if (!in_file(elf, shoff, ELF64_SHDR_SIZE))
		fail("section headers out of the file");
	/* Large counts live in section 0 (ELF gABI extended numbering). */
	if (!shnum)
		shnum = rd(elf, shoff + 0x20, 8);
	if (shstrndx == SHN_XINDEX)
		shstrndx = rd(elf, shoff + 0x28, 4);
	if (shnum > elf->size / shentsize || !in_file(elf, shoff, shnum * shentsize))
		fail("section headers out of the file");
	if (shstrndx >= shnum)
		fail("no section name table");
	off = shoff + shstrndx * shentsize;
	stroff = rd(elf, off + 0x18, 8);
	strsize = rd(elf, off + 0x20, 8);
	if (!in_file(elf, stroff, strsize))
		fail("section name table out of the file");

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
			fail(".sframe has no contents (SHT_NOBITS)");
		if (type != SHT_GNU_SFRAME && type != SHT_PROGBITS)
			fail(".sframe has unexpected section type %#llx",
			     (unsigned long long)type);
		loc->addr = rd(elf, off + 0x10, 8);
		off = rd(elf, off + 0x18, 8);
		loc->size = rd(elf, shoff + i * shentsize + 0x20, 8);
		if (!in_file(elf, off, loc->size))
			fail(".sframe contents out of the file");
		loc->bytes = elf->data + off;
		loc->where = ".sframe section";
		loc->shndx = i;
		return true;
	}
	fail("no .sframe section");
}

static bool find_segment(const struct elf_file *elf, struct sframe_loc *loc)
{
	u64 phoff = rd(elf, 0x20, 8), phentsize = rd(elf, 0x36, 2);
	u64 phnum = rd(elf, 0x38, 2), off, i;

	if (!phoff || !phnum)
		return false;
	if (phentsize < ELF64_PHDR_SIZE || !in_file(elf, phoff, phnum * phentsize))
		fail("program headers out of the file");
	for (i = 0; i < phnum; i++) {
		off = phoff + i * phentsize;
		if (rd(elf, off, 4) != PT_GNU_SFRAME)
			continue;
		loc->addr = rd(elf, off + 0x10, 8);
		loc->size = rd(elf, off + 0x20, 8);
		off = rd(elf, off + 0x08, 8);
		if (!in_file(elf, off, loc->size))
			fail("PT_GNU_SFRAME contents out of the file");
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
			fail("bad relocation section for .sframe");
		read_shdr(elf, rela.link, &symtab);
		if (symtab.entsize < 24 || !in_file(elf, symtab.offset, symtab.size))
			fail("bad symbol table");
		for (j = 0; j + rela.entsize <= rela.size; j += rela.entsize) {
			r_off = rd(elf, rela.offset + j, 8);
			r_info = rd(elf, rela.offset + j + 8, 8);
			addend = rd(elf, rela.offset + j + 16, 8);
			if (!reloc_kind(elf->machine, r_info & 0xffffffff, &len, &pcrel))
				fail(".sframe relocation type %llu not understood",
				     (unsigned long long)(r_info & 0xffffffff));
			sym = r_info >> 32;
			if ((sym + 1) * symtab.entsize > symtab.size)
				fail("relocation symbol out of the symbol table");
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
				fail(".sframe relocation out of the section");
			for (b = 0; b < len; b++)
				copy[r_off + (elf->big ? len - 1 - b : b)] = v >> (8 * b);
		}
	}
}

static void print_rule(const struct unwind_user_rule *r)
{
	char base[8];

	switch (r->base) {
	case UNWIND_USER_BASE_SAME:
		fputs("same", stdout);
		return;
	case UNWIND_USER_BASE_CFA:
		snprintf(base, sizeof(base), "cfa");
		break;
	case UNWIND_USER_BASE_SP:
		snprintf(base, sizeof(base), "sp");
		break;
	case UNWIND_USER_BASE_FP:
		snprintf(base, sizeof(base), "fp");
		break;
	case UNWIND_USER_BASE_REG:
		snprintf(base, sizeof(base), "r%u", r->regnum);
		break;
	default:
		snprintf(base, sizeof(base), "?%u", r->base);
		break;
	}
	printf(r->deref ? "*(%s%+d)" : "%s%+d", base, r->offset);
}

static void print_frame(const struct unwind_user_frame *f)
{
	if (f->outermost) {
		fputs("outermost", stdout);
	} else {
		fputs("cfa=", stdout);
		print_rule(&f->cfa);
		fputs(" ra=", stdout);
		print_rule(&f->ra);
		fputs(" fp=", stdout);
		print_rule(&f->fp);
	}
	if (f->signal)
		fputs(" signal", stdout);
	if (f->ra_signed)
		printf(" mangled=%c", f->pauth_key ? 'b' : 'a');
	putchar('\n');
}

static void read_fde(struct sframe_section *sec, unsigned int n,
		     struct sframe_fde *fde)
{
	if (sframe_read_fde(sec, n, fde))
		fail("FDE %u: %s", n, sec->reason);
}

static int lookup_all(struct sframe_section *sec, unsigned long code_lo,
		      unsigned long code_hi)
{
	struct unwind_user_frame frame;
	struct sframe_fde fde;
	unsigned long pc, end, done = 0;
	unsigned int n;
	bool any = false;
	int ret;

	for (n = 0; n < sec->num_fdes; n++) {
		read_fde(sec, n, &fde);
		end = fde.func_start + fde.func_size;
		if (fde.func_size && (fde.func_start < code_lo || end > code_hi))
			fail("FDE %u (%#lx-%#lx) lies outside the file's code", n,
			     fde.func_start, end);
		if (any && fde.func_start < done)
			fail("FDE %u at %#lx overlaps addresses already printed (up to %#lx)",
			     n, fde.func_start, done);
		for (pc = fde.func_start; pc < end; pc++) {
			ret = sframe_find(sec, pc, &frame);
			printf("%#lx ", pc);
			if (ret == -ENOENT) {
				puts("none");
				continue;
			}
			if (ret)
				fail("lookup of %#lx: %s", pc, sec->reason);
			print_frame(&frame);
		}
		if (fde.func_size) {
			done = end;
			any = true;
		}
	}
	return 0;
}

static const char *abi_name(u8 abi)
{
	switch (abi) {
	case SFRAME_ABI_AARCH64_ENDIAN_BIG:
		return "aarch64 big-endian";
	case SFRAME_ABI_AARCH64_ENDIAN_LITTLE:
		return "aarch64 little-endian";
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		return "amd64 little-endian";
	case SFRAME_ABI_S390X_ENDIAN_BIG:
		return "s390x big-endian";
	}
	return "unknown";
}

static void dump_header(const struct sframe_loc *loc,
			const struct sframe_section *sec)
{
	struct sframe_header h;

	/* sframe_section_init() checked the first header is there. */
	memcpy(&h, loc->bytes, sizeof(h));
	if (sec->foreign_endian) {
		h.num_fdes = swab32(h.num_fdes);
		h.num_fres = swab32(h.num_fres);
		h.fre_len = swab32(h.fre_len);
		h.fdes_off = swab32(h.fdes_off);
		h.fres_off = swab32(h.fres_off);
	}
	printf("%s at %#lx, %lu bytes\n", loc->where, loc->addr, loc->size);
	if (loc->relocated)
		printf("  relocatable object: sections placed at their file offsets\n");
	printf("  version: %u\n", sec->version);
	printf("  flags: %#x%s%s%s\n", h.preamble.flags,
	       h.preamble.flags & SFRAME_F_FDE_SORTED ? " FDE_SORTED" : "",
	       h.preamble.flags & SFRAME_F_FRAME_POINTER ? " FRAME_POINTER" : "",
	       h.preamble.flags & SFRAME_F_FDE_FUNC_START_PCREL ?
	       " FDE_FUNC_START_PCREL" : "");
	printf("  abi: %u (%s)%s\n", sec->abi, abi_name(sec->abi),
	       sec->foreign_endian ? ", foreign byte order" : "");
	printf("  cfa_fixed_fp_offset: %d\n", sec->fixed_fp_off);
	printf("  cfa_fixed_ra_offset: %d\n", sec->fixed_ra_off);
	printf("  auxhdr_len: %u\n", h.auxhdr_len);
	printf("  num_fdes: %u (whole section: %u)\n", h.num_fdes, sec->num_fdes);
	printf("  num_fres: %u\n", h.num_fres);
	printf("  fre_len: %u\n", h.fre_len);
	printf("  fdes_off: %u\n", h.fdes_off);
	printf("  fres_off: %u\n", h.fres_off);
	printf("  elements: %s\n", sec->index ? "indexed (unsorted or several)" :
	       "one, sorted");
}

static const char *const fre_types[] = { "addr1", "addr2", "addr4" };

static int dump(const struct sframe_loc *loc, struct sframe_section *sec)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned long addr;
	unsigned int n, i;
	bool mask;

	dump_header(loc, sec);
	for (n = 0; n < sec->num_fdes; n++) {
		read_fde(sec, n, &fde);
		mask = SFRAME_FDE_INFO_PCTYPE(fde.info) == SFRAME_FDE_PCTYPE_MASK;
		printf("\nFDE %u: [%#lx, %#lx) size %u\n", n, fde.func_start,
		       fde.func_start + fde.func_size, fde.func_size);
		printf("  type %s, pc type %s", SFRAME_FDE_INFO2_TYPE(fde.info2) ==
		       SFRAME_FDE_TYPE_FLEX ? "flex" : "default",
		       mask ? "mask" : "inc");
		if (mask)
			printf(" (rep_size %u)", fde.rep_size);
		printf(", fre type %s, pauth key %c, signal %u, %u FREs\n",
		       fre_types[SFRAME_FDE_INFO_FRE_TYPE(fde.info)],
		       SFRAME_FDE_INFO_PAUTH_KEY(fde.info) ? 'b' : 'a',
		       sec->version == SFRAME_VERSION_3 ?
		       SFRAME_FDE_INFO_SIGNAL(fde.info) : 0, fde.num_fres);
		if (!fde.num_fres && sec->version == SFRAME_VERSION_3 &&
		    SFRAME_FDE_INFO2_TYPE(fde.info2) == SFRAME_FDE_TYPE_DEFAULT)
			printf("    (whole function outermost)\n");
		for (i = 0, addr = fde.fres; i < fde.num_fres; i++, addr = fre.next) {
			if (sframe_read_fre(sec, &fde, addr, &fre))
				fail("FDE %u FRE %u: %s", n, i, sec->reason);
			if (mask)
				printf("    +0x%04x ", fre.start);
			else
				printf("    %#lx ", fde.func_start + fre.start);
			print_frame(&fre.frame);
		}
	}
	return 0;
}

static unsigned char *read_file(const char *name, size_t *size)
{
	unsigned char *buf = NULL, *nbuf;
	size_t len = 0, cap = 0, got;
	FILE *f = fopen(name, "rb");

	if (!f)
		fail("%s", strerror(errno));
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			nbuf = realloc(buf, cap);
			if (!nbuf)
				fail("out of memory");
			buf = nbuf;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got)
			continue;
		if (ferror(f))
			fail("read error");
		break;
	}
	fclose(f);
	*size = len;
	return buf;
}

static __noreturn void bad_args(void)
{
	fprintf(stderr, "usage: %s [--lookup-all | --validate] FILE\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sframe_section sec = { 0 };
	struct elf_file elf = { 0 };
	struct sframe_loc loc = { 0 };
	unsigned char *copy, *file;
	unsigned long code_lo, code_hi;
	bool lookup = false, validate = false;
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--lookup-all"))
			lookup = true;
		else if (!strcmp(argv[i], "--validate"))
			validate = true;
		else
			bad_args();
	}
	if (i != argc - 1 || (lookup && validate))
		bad_args();
	path = argv[i];

	file = read_file(path, &elf.size);
	elf.data = file;
	elf_open(&elf);
	if (!find_section(&elf, &loc) && !find_segment(&elf, &loc))
		fail("no .sframe section or PT_GNU_SFRAME segment");
	if (!loc.size)
		fail("%s is empty", loc.where);
	if (loc.addr + loc.size < loc.addr)
		fail("%s wraps around the address space", loc.where);

	/* An exact-size copy, so a reader overrun shows under ASan. */
	copy = malloc(loc.size);
	if (!copy)
		fail("out of memory");
	memcpy(copy, loc.bytes, loc.size);
	loc.bytes = copy;
	if (elf.type == ET_REL && loc.where[0] == '.')
		relocate(&elf, &loc, copy);
	sframe_umem[0] = (struct sframe_umem_region) {
		.addr = loc.addr, .len = loc.size, .data = copy,
	};

	ret = sframe_section_init(&sec, loc.addr, loc.size, 0, ULONG_MAX, SIZE_MAX);
	if (ret)
		fail("%s: %s (%s)", loc.where, sec.reason ? sec.reason : "rejected",
		     strerror(-ret));

	code_span(&elf, &code_lo, &code_hi);
	if (validate) {
		/* What CONFIG_UNWIND_USER_SFRAME_VALIDATE does at registration */
		ret = sframe_section_validate(&sec);
		printf("%s: %u FDEs: %s\n", loc.where, sec.num_fdes,
		       ret ? (sec.reason ? sec.reason : strerror(-ret)) : "valid");
		ret = !!ret;
	} else {
		ret = lookup ? lookup_all(&sec, code_lo, code_hi) : dump(&loc, &sec);
	}
	sframe_section_release(&sec);
	free(copy);
	free(file);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: write error\n", prog);
		return 1;
	}
	return ret;
}
