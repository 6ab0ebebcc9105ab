// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-gen: make an SFrame V3 section from an ELF file's .eh_frame.
 *
 *   sframe-gen [--stats] [--fill] [--raw FILE [--addr ADDR] | --output FILE] ELF
 *
 * .eh_frame is found by section name, or in a stripped file through
 * PT_GNU_EH_FRAME (.eh_frame_hdr's eh_frame_ptr).  --raw writes the
 * section as it would be loaded at ADDR (default: right after the file's
 * last segment, 8-byte aligned); --output writes a copy of an ELF64
 * executable or shared object with the section in a new read-only PT_LOAD
 * and a PT_GNU_SFRAME program header (sframe-gen-elf.c); --stats says what
 * the conversion did.  --fill takes a file that has SFrame already
 * (PT_GNU_SFRAME, V3) and keeps its FDEs, converting only the code they
 * leave out (statically linked libgcc helpers, assembly without SFrame):
 * one section, gas's rows and the filled ones.
 * ELF32 and ELF64 of either byte order; x86_64, aarch64 and s390x.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ehframe.h"
#include "sframe-elf.h"
#include "sframe-gen.h"
#include "sframe-gen-elf.h"

#define EM_S390			22
#define EM_X86_64		62
#define EM_AARCH64		183
#define ET_REL			1
#define SHT_NOBITS		8
#define SHF_EXECINSTR		4
#define PT_LOAD			1
#define PF_X			1
#define PT_GNU_EH_FRAME		0x6474e550
#define PT_GNU_SFRAME		0x6474e554

static const char *prog = "sframe-gen", *path;

struct elf {
	const uint8_t	*data;
	size_t		size;
	bool		big;
	bool		is64;
	uint16_t	type;
	uint16_t	machine;
	uint64_t	shoff, phoff;
	unsigned int	shentsize, phentsize;
	uint64_t	shnum, phnum, shstrndx;
};

static bool in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static uint64_t rd(const struct elf *e, uint64_t off, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i;

	if (!in_file(e, off, len))
		sframe_elf_fail("truncated ELF file");
	for (i = 0; i < len; i++)
		v = (v << 8) | e->data[off + (e->big ? i : len - 1 - i)];
	return v;
}

/* A field of ELF32 or ELF64 layout: offset and width for each */
static uint64_t fld(const struct elf *e, uint64_t base, unsigned int off32, unsigned int len32,
		    unsigned int off64, unsigned int len64)
{
	return e->is64 ? rd(e, base + off64, len64) : rd(e, base + off32, len32);
}

struct shdr {
	uint32_t	name, type;
	uint64_t	flags, addr, offset, size;
};

struct phdr {
	uint32_t	type, flags;
	uint64_t	offset, vaddr, filesz, memsz;
};

static void read_shdr(const struct elf *e, uint64_t i, struct shdr *s)
{
	uint64_t b = e->shoff + i * e->shentsize;

	s->name = rd(e, b, 4);
	s->type = rd(e, b + 4, 4);
	s->flags = fld(e, b, 8, 4, 8, 8);
	s->addr = fld(e, b, 12, 4, 16, 8);
	s->offset = fld(e, b, 16, 4, 24, 8);
	s->size = fld(e, b, 20, 4, 32, 8);
}

static void read_phdr(const struct elf *e, uint64_t i, struct phdr *p)
{
	uint64_t b = e->phoff + i * e->phentsize;

	p->type = rd(e, b, 4);
	p->flags = e->is64 ? rd(e, b + 4, 4) : rd(e, b + 24, 4);
	p->offset = fld(e, b, 4, 4, 8, 8);
	p->vaddr = fld(e, b, 8, 4, 16, 8);
	p->filesz = fld(e, b, 16, 4, 32, 8);
	p->memsz = fld(e, b, 20, 4, 40, 8);
}

static void elf_open(struct elf *e, struct sframe_gen_input *in)
{
	const uint8_t *d = e->data;

	if (e->size < 16 || memcmp(d, "\177ELF", 4))
		sframe_elf_fail("not an ELF file");
	if (d[4] != 1 && d[4] != 2)
		sframe_elf_fail("unknown ELF class %u", d[4]);
	if (d[5] != 1 && d[5] != 2)
		sframe_elf_fail("unknown ELF data encoding %u", d[5]);
	e->is64 = d[4] == 2;
	e->big = d[5] == 2;
	if (e->size < (e->is64 ? 64u : 52u))
		sframe_elf_fail("truncated ELF header");
	e->type = rd(e, 16, 2);
	e->machine = rd(e, 18, 2);
	e->phoff = fld(e, 0, 28, 4, 32, 8);
	e->shoff = fld(e, 0, 32, 4, 40, 8);
	e->phentsize = fld(e, 0, 42, 2, 54, 2);
	e->phnum = fld(e, 0, 44, 2, 56, 2);
	e->shentsize = fld(e, 0, 46, 2, 58, 2);
	e->shnum = fld(e, 0, 48, 2, 60, 2);
	e->shstrndx = fld(e, 0, 50, 2, 62, 2);
	if (e->type == ET_REL)
		sframe_elf_fail("relocatable objects are not supported (%s)",
				".eh_frame needs relocating");

	memset(in, 0, sizeof(*in));
	in->ptr_size = e->is64 ? 8 : 4;
	switch (e->machine) {
	case EM_X86_64:
		in->arch = SFRAME_GEN_X86_64;
		if (e->big)
			sframe_elf_fail("big-endian x86_64?");
		break;
	case EM_AARCH64:
		in->arch = SFRAME_GEN_AARCH64;
		in->big_endian = e->big;
		break;
	case EM_S390:
		if (!e->is64)
			sframe_elf_fail("31-bit s390 has no SFrame ABI");
		in->arch = SFRAME_GEN_S390X;
		break;
	default:
		sframe_elf_fail("ELF machine %u is not x86_64, aarch64 or s390x", e->machine);
	}
	if (e->shoff) {
		if (e->shentsize < (e->is64 ? 64u : 40u))
			sframe_elf_fail("bad section header size %u", e->shentsize);
		if (!in_file(e, e->shoff, e->shentsize))
			sframe_elf_fail("section headers out of the file");
		/* Large counts live in section 0 (ELF gABI extended numbering). */
		if (!e->shnum)
			e->shnum = fld(e, e->shoff, 20, 4, 32, 8);
		if (e->shstrndx == 0xffff)
			e->shstrndx = fld(e, e->shoff, 24, 4, 40, 4);
		if (e->shnum > e->size / e->shentsize ||
		    !in_file(e, e->shoff, e->shnum * e->shentsize))
			sframe_elf_fail("section headers out of the file");
	} else {
		e->shnum = 0;
	}
	if (e->phnum) {
		if (e->phentsize < (e->is64 ? 56u : 32u) ||
		    e->phnum > e->size / e->phentsize ||
		    !in_file(e, e->phoff, e->phnum * e->phentsize))
			sframe_elf_fail("program headers out of the file");
	}
}

/* Section @name's header; false if there is none (or no section headers) */
static bool find_section(const struct elf *e, const char *name, struct shdr *out)
{
	size_t len = strlen(name) + 1;
	struct shdr str, s;
	uint64_t i;

	if (!e->shnum || e->shstrndx >= e->shnum)
		return false;
	read_shdr(e, e->shstrndx, &str);
	if (!in_file(e, str.offset, str.size))
		sframe_elf_fail("section name table out of the file");
	for (i = 0; i < e->shnum; i++) {
		read_shdr(e, i, &s);
		if (s.name >= str.size || str.size - s.name < len ||
		    memcmp(e->data + str.offset + s.name, name, len))
			continue;
		*out = s;
		return true;
	}
	return false;
}

/* Where the file's bytes of address @addr are, and how many follow in its segment */
static bool vaddr_to_off(const struct elf *e, uint64_t addr, uint64_t *off, uint64_t *avail)
{
	struct phdr p;
	uint64_t i;

	for (i = 0; i < e->phnum; i++) {
		read_phdr(e, i, &p);
		if (p.type != PT_LOAD || addr < p.vaddr || addr - p.vaddr >= p.filesz)
			continue;
		if (!in_file(e, p.offset, p.filesz))
			sframe_elf_fail("PT_LOAD out of the file");
		*off = p.offset + (addr - p.vaddr);
		*avail = p.filesz - (addr - p.vaddr);
		return true;
	}
	return false;
}

/* A stripped file's .eh_frame, through PT_GNU_EH_FRAME */
static bool find_eh_frame_hdr(const struct elf *e, struct sframe_gen_input *in)
{
	struct eh_ctx ctx = { 0 };
	char msg[128];
	uint64_t ptr, off, avail, i;
	struct phdr p;
	size_t pos;

	for (i = 0; i < e->phnum; i++) {
		read_phdr(e, i, &p);
		if (p.type == PT_GNU_EH_FRAME)
			break;
	}
	if (i == e->phnum)
		return false;
	if (!in_file(e, p.offset, p.filesz) || p.filesz < 4)
		sframe_elf_fail("PT_GNU_EH_FRAME out of the file");
	ctx.data = e->data + p.offset;
	ctx.size = p.filesz;
	ctx.addr = p.vaddr;
	ctx.data_base = p.vaddr;	/* datarel in .eh_frame_hdr: from its start */
	ctx.big = e->big;
	ctx.ptr_size = in->ptr_size;
	ctx.err = msg;
	ctx.err_size = sizeof(msg);
	if (ctx.data[0] != 1)
		sframe_elf_fail(".eh_frame_hdr version %u", ctx.data[0]);
	pos = 4;
	if (eh_read_encoded(&ctx, ctx.data[1], &pos, ctx.size, &ptr))
		sframe_elf_fail(".eh_frame_hdr: eh_frame_ptr: %s", msg);
	if (!vaddr_to_off(e, ptr, &off, &avail))
		sframe_elf_fail(".eh_frame_hdr points at %#llx, outside the file's segments",
				(unsigned long long)ptr);
	in->eh_frame = e->data + off;
	in->eh_frame_size = avail;
	in->eh_frame_addr = ptr;
	return true;
}

static void find_eh_frame(const struct elf *e, struct sframe_gen_input *in)
{
	struct shdr s;

	if (find_section(e, ".eh_frame", &s)) {
		if (s.type == SHT_NOBITS)
			sframe_elf_fail(".eh_frame has no contents");
		if (!in_file(e, s.offset, s.size))
			sframe_elf_fail(".eh_frame out of the file");
		in->eh_frame = e->data + s.offset;
		in->eh_frame_size = s.size;
		in->eh_frame_addr = s.addr;
		if (find_section(e, ".got", &s))
			in->data_base = s.addr;
		return;
	}
	if (!find_eh_frame_hdr(e, in))
		sframe_elf_fail("no .eh_frame section or PT_GNU_EH_FRAME segment");
}

/* --fill: the file's own SFrame section, through PT_GNU_SFRAME as the kernel finds it */
static void find_sframe(const struct elf *e, struct sframe_gen_input *in)
{
	uint64_t i, off, avail;
	struct phdr p;

	for (i = 0; i < e->phnum; i++) {
		read_phdr(e, i, &p);
		if (p.type != PT_GNU_SFRAME)
			continue;
		if (!vaddr_to_off(e, p.vaddr, &off, &avail) || p.filesz > avail)
			sframe_elf_fail("PT_GNU_SFRAME is not in a loaded part of the file");
		in->sframe = e->data + off;
		in->sframe_size = p.filesz;
		in->sframe_addr = p.vaddr;
		return;
	}
	sframe_elf_fail("--fill: no PT_GNU_SFRAME segment to fill");
}

/* Code bytes: executable sections, or executable segments when stripped */
static uint64_t text_bytes(const struct elf *e)
{
	uint64_t i, n = 0;
	struct shdr s;
	struct phdr p;

	for (i = 1; i < e->shnum; i++) {
		read_shdr(e, i, &s);
		if ((s.flags & SHF_EXECINSTR) && s.type != SHT_NOBITS)
			n += s.size;
	}
	if (n)
		return n;
	for (i = 0; i < e->phnum; i++) {
		read_phdr(e, i, &p);
		if (p.type == PT_LOAD && (p.flags & PF_X))
			n += p.memsz;
	}
	return n;
}

static uint64_t end_of_segments(const struct elf *e)
{
	uint64_t i, end = 0;
	struct phdr p;

	for (i = 0; i < e->phnum; i++) {
		read_phdr(e, i, &p);
		if (p.type == PT_LOAD && p.vaddr + p.memsz > end)
			end = p.vaddr + p.memsz;
	}
	return (end + 7) & ~(uint64_t)7;
}

static __noreturn void usage(void)
{
	fprintf(stderr,
		"usage: %s [--stats] [--fill] [--raw FILE [--addr ADDR] | --output FILE] ELF\n",
		prog);
	exit(2);
}

static void write_raw(const struct sframe_gen *gen, const char *raw, uint64_t addr)
{
	size_t size = sframe_gen_size(gen);
	uint8_t *buf = calloc(1, size);
	FILE *f;

	if (!buf)
		sframe_elf_fail("out of memory");
	sframe_gen_emit(gen, buf, addr);
	f = fopen(raw, "wb");
	if (!f || fwrite(buf, 1, size, f) != size || fclose(f))
		sframe_elf_fail("%s: %s", raw, strerror(errno));
	free(buf);
}

/* Return: where the copy's section is */
static uint64_t write_output(const struct sframe_gen *gen, const struct elf *e, bool fill,
			     const char *output)
{
	struct sframe_gen_elf copy;
	struct stat sb;
	char err[256];
	uint64_t addr;

	if (stat(path, &sb))
		sframe_elf_fail("%s", strerror(errno));
	if (sframe_gen_elf_build(e->data, e->size, gen, fill, &copy, err, sizeof(err)) ||
	    sframe_gen_elf_write(&copy, output, sb.st_mode, err, sizeof(err)))
		sframe_elf_fail("%s", err);
	addr = copy.sframe_addr;
	sframe_gen_elf_free(&copy);
	return addr;
}

static void print_stats(const struct sframe_gen *gen, const struct sframe_gen_stats *st,
			const struct elf *e, bool fill, uint64_t addr)
{
	uint64_t text = text_bytes(e);

	printf("cies:            %u\n", st->cies);
	printf("fdes read:       %u\n", st->fdes);
	printf("fdes written:    %u\n", st->fdes_out);
	printf("  flex:          %u\n", st->fdes_flex);
	if (fill) {
		printf("  kept:          %u (the file's own)\n", st->fdes_kept);
		printf("fdes covered:    %u (by kept ones)\n", st->fdes_covered);
	}
	printf("fdes skipped:    %u (%llu bytes of code)\n", st->fdes_skipped,
	       (unsigned long long)st->bytes_skipped);
	printf("fdes bad:        %u\n", st->fdes_bad);
	printf("fres:            %u\n", st->fres);
	printf("rows refused:    %u (their code in no FDE)\n", st->rows_refused);
	printf("section:         %zu bytes at %#llx\n", sframe_gen_size(gen),
	       (unsigned long long)addr);
	printf("text described:  %llu of %llu bytes (%.1f%%)\n",
	       (unsigned long long)st->bytes_described, (unsigned long long)text,
	       text ? 100.0 * st->bytes_described / text : 0.0);
	if (st->reason[0])
		printf("first left out:  %s\n", st->reason);
}

int main(int argc, char **argv)
{
	const char *raw = NULL, *addr_arg = NULL, *output = NULL;
	struct sframe_gen_input in;
	struct sframe_gen_stats st;
	struct sframe_gen *gen;
	struct elf e = { 0 };
	bool stats = false, fill = false;
	char err[256], *end;
	uint8_t *data;
	uint64_t addr;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--stats")) {
			stats = true;
		} else if (!strcmp(argv[i], "--fill")) {
			fill = true;
		} else if (!strcmp(argv[i], "--raw") && i + 1 < argc) {
			raw = argv[++i];
		} else if (!strcmp(argv[i], "--addr") && i + 1 < argc) {
			addr_arg = argv[++i];
		} else if (!strcmp(argv[i], "--output") && i + 1 < argc) {
			output = argv[++i];
		} else {
			usage();
		}
	}
	if (i != argc - 1 || (addr_arg && !raw) || (raw && output))
		usage();
	path = argv[i];

	data = sframe_elf_read(prog, path, &e.size);
	e.data = data;
	elf_open(&e, &in);
	find_eh_frame(&e, &in);
	if (fill)
		find_sframe(&e, &in);
	if (addr_arg) {
		errno = 0;
		addr = strtoull(addr_arg, &end, 0);
		if (errno || !*addr_arg || *end)
			sframe_elf_fail("bad address '%s'", addr_arg);
	} else {
		addr = end_of_segments(&e);
	}

	gen = sframe_gen_new(&in, &st, err, sizeof(err));
	if (!gen)
		sframe_elf_fail(".eh_frame at %#llx: %s", (unsigned long long)in.eh_frame_addr,
				err);
	if (raw)
		write_raw(gen, raw, addr);
	if (output)
		addr = write_output(gen, &e, fill, output);
	if (stats)
		print_stats(gen, &st, &e, fill, addr);
	sframe_gen_free(gen);
	free(data);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: write error\n", prog);
		return 1;
	}
	return 0;
}
