// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe_gen_elf_build() and sframe_gen_elf_write() (sframe-gen --output)
 * on ELF files made here: the layout in either byte order, the section
 * header cases (none, no name table, extended numbering), every refusal,
 * every truncation and random corruption of a good file (built with ASan
 * and UBSan: no read out of bounds).  Ends with "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../sframe-gen.h"
#include "../sframe-gen-elf.h"
#include "gen_harness.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PT_LOAD		1
#define PT_PHDR		6
#define PT_GNU_SFRAME	0x6474e554

/* The file: header, 3 program headers, names, 3 section headers */
#define PHOFF		64
#define NPH		3
#define STROFF		(PHOFF + NPH * 56)
#define STRTAB		"\0.text\0.shstrtab\0"
#define STRSIZE		(sizeof(STRTAB))
#define SHOFF		256
#define NSH		3
#define FILE_SIZE	(SHOFF + NSH * 64)

static bool big;

static void put(uint8_t *p, uint64_t off, unsigned int len, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[off + (big ? len - 1 - i : i)] = v >> (8 * i);
}

static uint64_t get(const uint8_t *p, uint64_t off, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v = (v << 8) | p[off + (big ? i : len - 1 - i)];
	return v;
}

static void phdr(uint8_t *f, unsigned int i, uint32_t type, uint64_t off, uint64_t vaddr,
		 uint64_t filesz, uint64_t memsz)
{
	uint64_t b = PHOFF + i * 56;

	put(f, b, 4, type);
	put(f, b + 4, 4, 4);
	put(f, b + 8, 8, off);
	put(f, b + 16, 8, vaddr);
	put(f, b + 24, 8, vaddr);
	put(f, b + 32, 8, filesz);
	put(f, b + 40, 8, memsz);
	put(f, b + 48, 8, 0x1000);
}

static void shdr(uint8_t *f, unsigned int i, uint32_t name, uint32_t type, uint64_t off,
		 uint64_t size)
{
	uint64_t b = SHOFF + i * 64;

	put(f, b, 4, name);
	put(f, b + 4, 4, type);
	put(f, b + 0x18, 8, off);
	put(f, b + 0x20, 8, size);
}

/* A good ET_DYN file: PT_PHDR, a PT_LOAD of the whole file, a .bss one */
static void make(uint8_t *f, bool big_endian)
{
	big = big_endian;
	memset(f, 0, FILE_SIZE);
	memcpy(f, "\177ELF", 4);
	f[4] = 2;
	f[5] = big ? 2 : 1;
	f[6] = 1;
	put(f, 16, 2, 3);
	put(f, 18, 2, 62);
	put(f, 0x20, 8, PHOFF);
	put(f, 0x28, 8, SHOFF);
	put(f, 0x34, 2, 64);
	put(f, 0x36, 2, 56);
	put(f, 0x38, 2, NPH);
	put(f, 0x3a, 2, 64);
	put(f, 0x3c, 2, NSH);
	put(f, 0x3e, 2, 2);
	phdr(f, 0, PT_PHDR, PHOFF, PHOFF, NPH * 56, NPH * 56);
	phdr(f, 1, PT_LOAD, 0, 0, FILE_SIZE, FILE_SIZE);
	phdr(f, 2, PT_LOAD, 0, 0x21000, 0, 0x2345);
	memcpy(f + STROFF, STRTAB, STRSIZE);
	shdr(f, 1, 1, 1, 0, 16);
	shdr(f, 2, 7, 3, STROFF, STRSIZE);
}

static struct sframe_gen *gen;
static char err[256];

static bool replace;

static int build(const uint8_t *f, size_t size, struct sframe_gen_elf *out)
{
	err[0] = 0;
	return sframe_gen_elf_build(f, size, gen, replace, out, err, sizeof(err));
}

static void refused(const char *name, const uint8_t *f, size_t size, const char *want)
{
	struct sframe_gen_elf out;
	int ret;

	gen_test_start(name);
	ret = build(f, size, &out);
	CHECK(ret == -1 && strstr(err, want) && !strchr(err, '\n'),
	      "got %d '%s', want '%s'", ret, err, want);
	CHECK(!out.buf, "a buffer left");
}

static void test_layout(bool big_endian)
{
	struct sframe_gen_elf out;
	uint8_t f[FILE_SIZE];
	uint64_t b, seg, sh, str;
	int ret;

	gen_test_start(big_endian ? "layout, big endian" : "layout, little endian");
	make(f, big_endian);
	ret = build(f, FILE_SIZE, &out);
	CHECK(!ret, "%s", err);
	if (ret)
		return;
	seg = out.seg_off;
	/* At the first PT_LOAD's address - offset (0) past the memory image */
	CHECK(seg == 0x30000 && out.seg_vaddr == 0x30000, "segment at %#llx, %#llx",
	      (unsigned long long)seg, (unsigned long long)out.seg_vaddr);
	CHECK(get(out.buf, 0x20, 8) == seg && get(out.buf, 0x38, 2) == NPH + 2, "e_phoff, e_phnum");
	/* PT_PHDR, the two PT_LOADs, the new one, PT_GNU_SFRAME */
	CHECK(get(out.buf, seg, 4) == PT_PHDR && get(out.buf, seg + 8, 8) == seg &&
	      get(out.buf, seg + 16, 8) == 0x30000 && get(out.buf, seg + 24, 8) == 0x30000 &&
	      get(out.buf, seg + 32, 8) == 5 * 56 && get(out.buf, seg + 40, 8) == 5 * 56,
	      "PT_PHDR");
	CHECK(!memcmp(out.buf + seg + 56, f + PHOFF + 56, 2 * 56), "old PT_LOADs kept");
	b = seg + 3 * 56;
	CHECK(get(out.buf, b, 4) == PT_LOAD && get(out.buf, b + 4, 4) == 4 &&
	      get(out.buf, b + 8, 8) == seg && get(out.buf, b + 16, 8) == 0x30000 &&
	      get(out.buf, b + 32, 8) == out.sframe_off + out.sframe_size - seg &&
	      get(out.buf, b + 40, 8) == get(out.buf, b + 32, 8) &&
	      get(out.buf, b + 48, 8) == 0x10000, "new PT_LOAD");
	b = seg + 4 * 56;
	CHECK(get(out.buf, b, 4) == PT_GNU_SFRAME && get(out.buf, b + 4, 4) == 4 &&
	      get(out.buf, b + 8, 8) == out.sframe_off && out.sframe_off == seg + 5 * 56 &&
	      get(out.buf, b + 16, 8) == out.sframe_addr && out.sframe_addr == 0x30000 + 5 * 56 &&
	      get(out.buf, b + 32, 8) == out.sframe_size && get(out.buf, b + 48, 8) == 8,
	      "PT_GNU_SFRAME");
	/* An x86_64 section: little endian whatever the file says */
	CHECK(out.sframe_size && out.buf[out.sframe_off] == 0xe2 &&
	      out.buf[out.sframe_off + 1] == 0xde, "SFrame magic");
	CHECK(!memcmp(out.buf + 0x40, f + 0x40, FILE_SIZE - 0x40) &&
	      !memcmp(out.buf, f, 0x20), "input bytes kept");
	CHECK(out.section_added, "no section added");
	sh = get(out.buf, 0x28, 8);
	CHECK(get(out.buf, 0x3c, 2) == NSH + 1 && sh % 8 == 0 &&
	      sh + (NSH + 1) * 64 == out.size, "section headers at %#llx",
	      (unsigned long long)sh);
	str = get(out.buf, sh + 2 * 64 + 0x18, 8);
	CHECK(get(out.buf, sh + 2 * 64 + 0x20, 8) == STRSIZE + 8 &&
	      !memcmp(out.buf + str, STRTAB "\0.sframe", STRSIZE + 8), "name table");
	b = sh + 3 * 64;
	CHECK(get(out.buf, b, 4) == STRSIZE && get(out.buf, b + 4, 4) == 0x6ffffff4 &&
	      get(out.buf, b + 8, 8) == 2 && get(out.buf, b + 0x10, 8) == out.sframe_addr &&
	      get(out.buf, b + 0x18, 8) == out.sframe_off &&
	      get(out.buf, b + 0x20, 8) == out.sframe_size && get(out.buf, b + 0x30, 8) == 8,
	      ".sframe section header");
	CHECK(!memcmp(out.buf + sh, f + SHOFF, 2 * 64), "other section headers kept");
	sframe_gen_elf_free(&out);
}

static void test_sections(void)
{
	struct sframe_gen_elf out;
	uint8_t f[FILE_SIZE];
	uint64_t sh;

	gen_test_start("no section headers");
	make(f, false);
	put(f, 0x28, 8, 0);
	CHECK(!build(f, FILE_SIZE, &out) && !out.section_added && get(out.buf, 0x28, 8) == 0 &&
	      out.size == out.sframe_off + out.sframe_size, "%s", err);
	sframe_gen_elf_free(&out);

	gen_test_start("no section name table");
	make(f, false);
	put(f, 0x3e, 2, 0);
	CHECK(!build(f, FILE_SIZE, &out) && !out.section_added &&
	      get(out.buf, 0x28, 8) == SHOFF, "%s", err);
	sframe_gen_elf_free(&out);

	gen_test_start("name table SHT_NOBITS");
	make(f, false);
	shdr(f, 2, 7, 8, STROFF, STRSIZE);
	CHECK(!build(f, FILE_SIZE, &out) && !out.section_added, "%s", err);
	sframe_gen_elf_free(&out);

	gen_test_start("extended numbering");
	make(f, false);
	put(f, 0x3c, 2, 0);
	put(f, 0x3e, 2, 0xffff);
	put(f, SHOFF + 0x20, 8, NSH);
	put(f, SHOFF + 0x28, 4, 2);
	CHECK(!build(f, FILE_SIZE, &out) && out.section_added, "%s", err);
	if (out.buf) {
		sh = get(out.buf, 0x28, 8);
		CHECK(get(out.buf, 0x3c, 2) == 0 && get(out.buf, sh + 0x20, 8) == NSH + 1,
		      "count in section 0");
	}
	sframe_gen_elf_free(&out);

	gen_test_start("an ET_EXEC at a high address");
	make(f, true);
	put(f, 16, 2, 2);
	phdr(f, 1, PT_LOAD, 0, 0x400000, FILE_SIZE, FILE_SIZE);
	phdr(f, 2, PT_LOAD, 0, 0x410000, 0, 1);
	CHECK(!build(f, FILE_SIZE, &out) && out.seg_vaddr == 0x420000 && out.seg_off == 0x20000,
	      "%s %#llx %#llx", err, (unsigned long long)out.seg_vaddr,
	      (unsigned long long)out.seg_off);
	sframe_gen_elf_free(&out);
}

/* Where the new segment goes when address - offset cannot be kept */
static void test_placement(void)
{
	struct sframe_gen_elf out;
	uint8_t f[FILE_SIZE], *big_file;
	size_t n = 0x30001;

	gen_test_start("address - offset not 64 KiB aligned: right after the file");
	make(f, false);
	phdr(f, 1, PT_LOAD, 0, 0x1000, FILE_SIZE, FILE_SIZE);
	CHECK(!build(f, FILE_SIZE, &out) && out.seg_off == 0x10000 && out.seg_vaddr == 0x30000,
	      "%s %#llx %#llx", err, (unsigned long long)out.seg_off,
	      (unsigned long long)out.seg_vaddr);
	sframe_gen_elf_free(&out);

	gen_test_start("a huge .bss: right after the file");
	make(f, false);
	phdr(f, 2, PT_LOAD, 0, 0x21000, 0, 1ULL << 30);
	CHECK(!build(f, FILE_SIZE, &out) && out.seg_off == 0x10000 &&
	      out.seg_vaddr == (1ULL << 30) + 0x30000, "%s %#llx %#llx", err,
	      (unsigned long long)out.seg_off, (unsigned long long)out.seg_vaddr);
	sframe_gen_elf_free(&out);

	gen_test_start("a file longer than its memory image: the address follows");
	big_file = calloc(1, n);
	if (!big_file)
		abort();
	make(big_file, false);
	CHECK(!build(big_file, n, &out) && out.seg_off == 0x40000 && out.seg_vaddr == 0x40000,
	      "%s %#llx %#llx", err, (unsigned long long)out.seg_off,
	      (unsigned long long)out.seg_vaddr);
	sframe_gen_elf_free(&out);
	free(big_file);
}

/* A good file with one field of its ELF header changed, refused */
static const struct {
	const char	*name;
	unsigned int	off;
	unsigned int	len;
	uint64_t	val;
	const char	*want;
} bad_fields[] = {
	{ "bad magic", 1, 1, 'e', "not an ELF file" },
	{ "ELF32", 4, 1, 1, "ELF64 files only" },
	{ "data encoding", 5, 1, 3, "unknown ELF data encoding 3" },
	{ "ET_REL", 16, 2, 1, "executables and shared objects only (ELF type 1)" },
	{ "ET_CORE", 16, 2, 4, "executables and shared objects only (ELF type 4)" },
	{ "no program headers", 0x38, 2, 0, "no program headers" },
	{ "too many program headers", 0x38, 2, 0xfffd, "too many program headers" },
	{ "127 program headers", 0x38, 2, 127, "too many program headers (129)" },
	{ "126 program headers", 0x38, 2, 126, "program headers out of the file" },
	{ "phentsize", 0x36, 2, 32, "program headers out of the file" },
	{ "phoff", 0x20, 8, FILE_SIZE - 56, "program headers out of the file" },
	{ "phoff wraps", 0x20, 8, ~0ULL - 8, "program headers out of the file" },
	{ "shentsize", 0x3a, 2, 40, "section headers out of the file" },
	{ "shoff", 0x28, 8, FILE_SIZE, "section headers out of the file" },
	{ "shnum", 0x3c, 2, NSH + 1, "section headers out of the file" },
};

static void test_refusals(void)
{
	uint8_t f[FILE_SIZE], *many;
	size_t n = 0xfeff;
	unsigned int i;

	make(f, false);
	refused("short", f, 63, "not an ELF file");
	for (i = 0; i < ARRAY_SIZE(bad_fields); i++) {
		make(f, false);
		put(f, bad_fields[i].off, bad_fields[i].len, bad_fields[i].val);
		refused(bad_fields[i].name, f, FILE_SIZE, bad_fields[i].want);
	}
	make(f, false);
	phdr(f, 2, PT_GNU_SFRAME, 0, 0, 8, 8);
	refused("PT_GNU_SFRAME", f, FILE_SIZE, "already has a PT_GNU_SFRAME segment");
	make(f, false);
	phdr(f, 2, PT_LOAD, 0, ~0ULL - 4, 0, 8);
	refused("segment wraps", f, FILE_SIZE, "program header 2 wraps around");
	make(f, false);
	phdr(f, 1, 4, 0, 0, 8, 8);
	phdr(f, 2, 4, 0, 0, 8, 8);
	refused("no PT_LOAD", f, FILE_SIZE, "no PT_LOAD segment");
	make(f, false);
	phdr(f, 2, PT_LOAD, 0, ~0ULL - 0x20000, 0, 0x10000);
	refused("no room", f, FILE_SIZE, "no address space left");
	make(f, false);
	put(f, 0x3c, 2, 0);
	put(f, SHOFF + 0x20, 8, ~0ULL / 2);
	refused("extended shnum", f, FILE_SIZE, "section headers out of the file");
	make(f, false);
	shdr(f, 2, 7, 3, STROFF, FILE_SIZE);
	refused("name table", f, FILE_SIZE, "section name table out of the file");
	make(f, false);
	shdr(f, 1, 7, 3, 0, 0);
	memcpy(f + STROFF + 7, ".sframe", 8);
	refused(".sframe", f, FILE_SIZE, "already has a .sframe section");

	/* 0xfeff sections and one more would need extended numbering */
	many = calloc(1, SHOFF + n * 64);
	if (!many)
		abort();
	make(many, false);
	put(many, 0x3c, 2, n);
	for (i = 2; i < n; i++)
		shdr(many, i, 7, 3, STROFF, STRSIZE);
	put(many, 0x3e, 2, 2);
	refused("too many sections", many, SHOFF + n * 64, "too many sections to add one");
	free(many);
}

/* A file with its own PT_GNU_SFRAME (in place of PT_PHDR) and .sframe (section 1) */
static void make_with_sframe(uint8_t *f)
{
	make(f, false);
	phdr(f, 0, PT_GNU_SFRAME, 0x100, 0x100, 0x40, 0x40);
	memcpy(f + STROFF + 7, ".sframe", 8);
	shdr(f, 1, 7, 0x6ffffff4, 0x100, 0x40);
	shdr(f, 2, 1, 3, STROFF, STRSIZE);
}

/*
 * --fill: the file's own PT_GNU_SFRAME and .sframe header are pointed at
 * the new section, where they are; one PT_LOAD added, nothing else.
 */
static void test_replace(void)
{
	struct sframe_gen_elf out;
	uint8_t f[FILE_SIZE];
	uint64_t seg, b;

	replace = true;
	gen_test_start("replacing the file's own section");
	make_with_sframe(f);
	if (build(f, FILE_SIZE, &out)) {
		CHECK(0, "%s", err);
		replace = false;
		return;
	}
	seg = out.seg_off;
	CHECK(get(out.buf, 0x20, 8) == seg && get(out.buf, 0x38, 2) == NPH + 1, "e_phoff, e_phnum");
	CHECK(get(out.buf, seg, 4) == PT_GNU_SFRAME && get(out.buf, seg + 8, 8) == out.sframe_off &&
	      out.sframe_off == seg + 8 * ((4 * 56 + 7) / 8) &&
	      get(out.buf, seg + 16, 8) == out.sframe_addr &&
	      get(out.buf, seg + 32, 8) == out.sframe_size, "PT_GNU_SFRAME rewritten in place");
	CHECK(!memcmp(out.buf + seg + 56, f + PHOFF + 56, 2 * 56) &&
	      get(out.buf, seg + 3 * 56, 4) == PT_LOAD, "old PT_LOADs, then the new one");
	CHECK(!out.section_added && get(out.buf, 0x28, 8) == SHOFF &&
	      get(out.buf, 0x3c, 2) == NSH && out.size == out.sframe_off + out.sframe_size,
	      "no section added");
	b = SHOFF + 64;
	CHECK(get(out.buf, b + 4, 4) == 0x6ffffff4 &&
	      get(out.buf, b + 0x10, 8) == out.sframe_addr &&
	      get(out.buf, b + 0x18, 8) == out.sframe_off &&
	      get(out.buf, b + 0x20, 8) == out.sframe_size, ".sframe header points at the new one");
	CHECK(!memcmp(out.buf + 0x100, f + 0x100, 0x40), "old section bytes left as they were");
	sframe_gen_elf_free(&out);

	gen_test_start("replacing: no section headers");
	make_with_sframe(f);
	put(f, 0x28, 8, 0);
	CHECK(!build(f, FILE_SIZE, &out) && !out.section_added && get(out.buf, 0x28, 8) == 0,
	      "%s", err);
	sframe_gen_elf_free(&out);

	make(f, false);
	refused("replacing: no PT_GNU_SFRAME", f, FILE_SIZE, "no PT_GNU_SFRAME segment to replace");
	make_with_sframe(f);
	phdr(f, 2, PT_GNU_SFRAME, 0x100, 0x100, 0x40, 0x40);
	refused("replacing: two PT_GNU_SFRAME", f, FILE_SIZE, "two PT_GNU_SFRAME segments");
	replace = false;
	make_with_sframe(f);
	refused("own section, not replacing", f, FILE_SIZE, "already has a PT_GNU_SFRAME segment");
}

/* Every prefix and random corruption: refused or made, never a bad read */
static void test_hostile(void)
{
	struct sframe_gen_elf out;
	uint8_t f[FILE_SIZE], g[FILE_SIZE];
	unsigned int i, j, made = 0, bad = 0;

	gen_test_start("truncated");
	make(f, false);
	for (i = 0; i < FILE_SIZE; i++) {
		if (build(f, i, &out))
			bad += !err[0] || !!out.buf;
		else
			made++;
		sframe_gen_elf_free(&out);
	}
	/* Whole section headers are needed, whole program headers suffice */
	CHECK(!bad && made == 0, "%u prefixes refused without a message, %u made", bad, made);

	gen_test_start("corrupt");
	srand(1);
	for (i = 0; i < 20000; i++) {
		memcpy(g, f, FILE_SIZE);
		for (j = 0; j < 4; j++)
			g[64 + rand() % (FILE_SIZE - 64)] = rand();
		if (!build(g, FILE_SIZE, &out))
			made++;
		else if (!err[0])
			bad++;
		sframe_gen_elf_free(&out);
	}
	CHECK(!bad && made, "%u refused without a message, %u made", bad, made);
}

static void test_write(void)
{
	char dir[] = "/tmp/gen-output-test.XXXXXX", path[64];
	struct sframe_gen_elf out;
	uint8_t f[FILE_SIZE], back[FILE_SIZE];
	struct stat sb;
	FILE *in;

	gen_test_start("write");
	make(f, false);
	if (!mkdtemp(dir) || build(f, FILE_SIZE, &out)) {
		CHECK(0, "setup: %s", err);
		return;
	}
	snprintf(path, sizeof(path), "%s/copy", dir);
	CHECK(!sframe_gen_elf_write(&out, path, 0100751, err, sizeof(err)), "%s", err);
	CHECK(!stat(path, &sb) && (sb.st_mode & 07777) == 0751 && sb.st_size == (off_t)out.size,
	      "mode %o size %lld", sb.st_mode, (long long)sb.st_size);
	/* The 0x30000 - 0x1c0 bytes of padding are holes (where holes exist) */
	CHECK(sb.st_blocks * 512 < (off_t)out.size, "%lld blocks for %zu bytes",
	      (long long)sb.st_blocks, out.size);
	in = fopen(path, "rb");
	CHECK(in && fread(back, 1, FILE_SIZE, in) == FILE_SIZE && !memcmp(back, out.buf, FILE_SIZE),
	      "contents");
	if (in)
		fclose(in);
	/* A read-only mode is set after the writing, and a rewrite works */
	CHECK(!sframe_gen_elf_write(&out, path, 0444, err, sizeof(err)), "%s", err);
	CHECK(sframe_gen_elf_write(&out, dir, 0644, err, sizeof(err)) &&
	      strstr(err, "Is a directory"), "a directory: %s", err);
	snprintf(path, sizeof(path), "%s/no/copy", dir);
	CHECK(sframe_gen_elf_write(&out, path, 0644, err, sizeof(err)) &&
	      strstr(err, "No such file or directory"), "a missing directory: %s", err);
	snprintf(path, sizeof(path), "%s/copy", dir);
	unlink(path);
	rmdir(dir);
	sframe_gen_elf_free(&out);
}

int main(void)
{
	struct sframe_gen_input in = { .arch = SFRAME_GEN_X86_64 };
	struct sframe_gen_stats st;

	gen = sframe_gen_new(&in, &st, err, sizeof(err));
	if (!gen) {
		printf("sframe_gen_new: %s\n0 passed, 1 failed\n", err);
		return 1;
	}
	test_layout(false);
	test_layout(true);
	test_sections();
	test_placement();
	test_refusals();
	test_replace();
	test_hostile();
	test_write();
	sframe_gen_free(gen);
	return gen_report();
}
