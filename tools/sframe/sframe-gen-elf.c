// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-gen --output: a copy of an ELF64 executable or shared object with
 * its SFrame section loadable and found through PT_GNU_SFRAME.
 *
 * Every byte of the input stays where it was; only the ELF header's
 * e_phoff, e_phnum, e_shoff and e_shnum change.  Appended to it:
 *
 *	zeros up to a multiple of 64 KiB (the largest page size of the
 *	    three ABIs, so that the copy loads on every kernel config): at
 *	    least to the end of the file, and to the end of the memory
 *	    image when the first PT_LOAD's address - offset allows (below)
 *	the new PT_LOAD (R), at an address 64 KiB aligned and above every
 *	    segment's end:
 *		the program header table, the old entries plus a PT_LOAD
 *		    (after the last one, keeping them sorted by address) and
 *		    PT_GNU_SFRAME (last): the loader reads PT_PHDR's table in
 *		    memory, so it must be mapped, and there is no room for two
 *		    more entries where it was
 *		the SFrame section, 8-byte aligned, made for its address
 *	a copy of the section name table with ".sframe" appended, and a copy
 *	    of the section header table with a .sframe entry appended (last,
 *	    so no index held by a symbol or sh_link moves)
 *
 * The old program header, name and section header tables stay behind,
 * unreferenced.  PT_PHDR, if any, is pointed at the new table.
 *
 * Replacing a file's own section (sframe-gen --fill): its PT_GNU_SFRAME
 * entry and .sframe section header, where they were, are pointed at the
 * new section; the table gets only the PT_LOAD, and no section is added.
 * The old section stays behind, unreferenced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe-gen-elf.h"

#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#endif

#define ELF64_EHDR_SIZE		64
#define ELF64_PHDR_SIZE		56
#define ELF64_SHDR_SIZE		64
#define ET_EXEC			2
#define ET_DYN			3
#define PT_LOAD			1
#define PT_PHDR			6
#define PT_GNU_SFRAME		0x6474e554
#define PF_R			4
#define SHT_NOBITS		8
#define SHT_GNU_SFRAME		0x6ffffff4
#define SHF_ALLOC		2
#define SHN_LORESERVE		0xff00
#define SHN_XINDEX		0xffff

/* The kernel ignores a file with more (SFRAME_ELF_MAX_PHDRS, sframe_elf.h) */
#define MAX_PHDRS		128
#define MAX_PAGE		0x10000ULL
#define MAX_GAP			(256ULL << 20)
#define SFRAME_ALIGN		8

static const char sframe_name[] = ".sframe";

struct img {
	const uint8_t	*in;
	size_t		size;
	bool		big;
	char		*err;
	size_t		err_size;
};

static __printf(2, 3) int bad(struct img *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, m->err_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Callers have checked that [@off, @off + @len) is in @p's buffer. */
static uint64_t get(const struct img *m, const uint8_t *p, uint64_t off, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v = (v << 8) | p[off + (m->big ? i : len - 1 - i)];
	return v;
}

static void put(const struct img *m, uint8_t *p, uint64_t off, unsigned int len, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[off + (m->big ? len - 1 - i : i)] = v >> (8 * i);
}

static bool in_file(const struct img *m, uint64_t off, uint64_t len)
{
	return off <= m->size && len <= m->size - off;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The section headers: how many, the name table's index; none is fine */
struct sections {
	uint64_t	off, num, entsize, strndx, str_off, str_size;
	bool		extended_num;	/* the count lives in section 0 */
	bool		usable;		/* a name table to extend */
	uint64_t	sframe;		/* the .sframe section's index, 0 if none */
};

static int read_sections(struct img *m, struct sections *s, bool replace)
{
	uint64_t i, b, name;

	memset(s, 0, sizeof(*s));
	s->off = get(m, m->in, 0x28, 8);
	if (!s->off)
		return 0;
	s->entsize = get(m, m->in, 0x3a, 2);
	s->num = get(m, m->in, 0x3c, 2);
	s->strndx = get(m, m->in, 0x3e, 2);
	if (s->entsize < ELF64_SHDR_SIZE || !in_file(m, s->off, s->entsize))
		return bad(m, "section headers out of the file");
	if (!s->num) {
		s->extended_num = true;
		s->num = get(m, m->in, s->off + 0x20, 8);
	}
	if (s->strndx == SHN_XINDEX)
		s->strndx = get(m, m->in, s->off + 0x28, 4);
	if (s->num > m->size / s->entsize || !in_file(m, s->off, s->num * s->entsize))
		return bad(m, "section headers out of the file");
	if (!s->strndx || s->strndx >= s->num)
		return 0;
	b = s->off + s->strndx * s->entsize;
	if (get(m, m->in, b + 4, 4) == SHT_NOBITS)
		return 0;
	s->str_off = get(m, m->in, b + 0x18, 8);
	s->str_size = get(m, m->in, b + 0x20, 8);
	if (!in_file(m, s->str_off, s->str_size))
		return bad(m, "section name table out of the file");
	for (i = 0; i < s->num; i++) {
		name = get(m, m->in, s->off + i * s->entsize, 4);
		if (name < s->str_size && s->str_size - name >= sizeof(sframe_name) &&
		    !memcmp(m->in + s->str_off + name, sframe_name, sizeof(sframe_name))) {
			if (!replace)
				return bad(m, "already has a .sframe section");
			s->sframe = i;
		}
	}
	if (replace)
		return 0;
	if (!s->extended_num && s->num + 1 >= SHN_LORESERVE)
		return bad(m, "too many sections to add one");
	s->usable = true;
	return 0;
}

static void write_phdr(const struct img *m, uint8_t *p, uint32_t type, uint32_t flags,
		       uint64_t off, uint64_t vaddr, uint64_t size, uint64_t align)
{
	put(m, p, 0, 4, type);
	put(m, p, 4, 4, flags);
	put(m, p, 8, 8, off);
	put(m, p, 16, 8, vaddr);
	put(m, p, 24, 8, vaddr);
	put(m, p, 32, 8, size);
	put(m, p, 40, 8, size);
	put(m, p, 48, 8, align);
}

/**
 * sframe_gen_elf_build() - the copy of an ELF file with its SFrame section
 * @data: the file's bytes (hostile: every read is checked).
 * @size: how many.
 * @gen: the section, made from the file's .eh_frame.
 * @replace: @gen replaces the file's own section, which it keeps the FDEs
 *	of (sframe_gen_input.sframe): the file must have PT_GNU_SFRAME.
 * @out: filled in; sframe_gen_elf_free() frees its buffer.
 * @err: a one-line message when it fails.
 * @err_size: its size.
 *
 * Takes ELF64 ET_EXEC and ET_DYN files without PT_GNU_SFRAME or .sframe
 * (with both, if @replace), with at most 126 program headers (the kernel
 * reads 128); the layout is
 * described at the top of this file.
 *
 * Return: 0, or -1 with @err set.
 */
int sframe_gen_elf_build(const void *data, size_t size, const struct sframe_gen *gen,
			 bool replace, struct sframe_gen_elf *out, char *err, size_t err_size)
{
	struct img m = { .in = data, .size = size, .err = err, .err_size = err_size };
	uint64_t phoff, phentsize, phnum, type, i, b, end = 0, vaddr, memsz, last_load = 0;
	uint64_t ph_size, seg_off, seg_vaddr, seg_size, str_off = 0, sh_off = 0, total, base = 0;
	uint64_t sframe_ph = 0, new_phnum;
	bool has_load = false, has_sframe = false;
	struct sections s;
	uint8_t *buf, *ph;

	memset(out, 0, sizeof(*out));
	if (size < ELF64_EHDR_SIZE || memcmp(data, "\177ELF", 4))
		return bad(&m, "not an ELF file");
	if (m.in[4] != 2)
		return bad(&m, "--output takes ELF64 files only");
	if (m.in[5] != 1 && m.in[5] != 2)
		return bad(&m, "unknown ELF data encoding %u", m.in[5]);
	m.big = m.in[5] == 2;
	type = get(&m, m.in, 16, 2);
	if (type != ET_EXEC && type != ET_DYN)
		return bad(&m, "--output takes executables and shared objects only (ELF type %llu)",
			   (unsigned long long)type);

	phoff = get(&m, m.in, 0x20, 8);
	phentsize = get(&m, m.in, 0x36, 2);
	phnum = get(&m, m.in, 0x38, 2);
	if (!phnum)
		return bad(&m, "no program headers");
	if (phnum + 2 > MAX_PHDRS)
		return bad(&m, "too many program headers (%llu): the kernel reads at most %u",
			   (unsigned long long)phnum + 2, MAX_PHDRS);
	if (phentsize < ELF64_PHDR_SIZE || !in_file(&m, phoff, phnum * phentsize))
		return bad(&m, "program headers out of the file");
	for (i = 0; i < phnum; i++) {
		b = phoff + i * phentsize;
		type = get(&m, m.in, b, 4);
		if (type == PT_GNU_SFRAME && (!replace || has_sframe))
			return bad(&m, replace ? "two PT_GNU_SFRAME segments" :
				   "already has a PT_GNU_SFRAME segment");
		if (type == PT_GNU_SFRAME) {
			sframe_ph = i;
			has_sframe = true;
		}
		vaddr = get(&m, m.in, b + 16, 8);
		memsz = get(&m, m.in, b + 40, 8);
		if (vaddr + memsz < vaddr)
			return bad(&m, "program header %llu wraps around the address space",
				   (unsigned long long)i);
		/* Above every segment, not only the loaded ones: no overlap of any kind */
		if (vaddr + memsz > end)
			end = vaddr + memsz;
		if (type == PT_LOAD) {
			if (!has_load)
				base = vaddr - get(&m, m.in, b + 8, 8);
			last_load = i;
			has_load = true;
		}
	}
	if (!has_load)
		return bad(&m, "no PT_LOAD segment");
	if (replace && !has_sframe)
		return bad(&m, "no PT_GNU_SFRAME segment to replace");
	if (read_sections(&m, &s, replace))
		return -1;

	out->sframe_size = sframe_gen_size(gen);
	new_phnum = phnum + (replace ? 1 : 2);
	ph_size = new_phnum * phentsize;
	seg_size = align_up(ph_size, SFRAME_ALIGN) + out->sframe_size;
	if (end > UINT64_MAX - MAX_PAGE - seg_size)
		return bad(&m, "no address space left after the last segment");
	seg_vaddr = align_up(end, MAX_PAGE);
	seg_off = align_up(size, MAX_PAGE);
	/*
	 * The new table must also be where the ELF header's own mapping puts
	 * it: static glibc programs on aarch64 and s390x die at start-up
	 * otherwise (seen under QEMU; x86_64's do not), and kernels before
	 * 5.18 gave AT_PHDR as the first PT_LOAD's address - offset +
	 * e_phoff.  So the segment keeps the first PT_LOAD's distance
	 * between address and offset, the file padded (sparse, see
	 * sframe_gen_elf_write()) to past the memory image, unless that
	 * distance is not 64 KiB aligned or the padding would be huge (a
	 * large .bss): then it goes right after the file, which kernels
	 * since 5.18 and dynamic programs accept.
	 */
	if (!(base % MAX_PAGE) && seg_vaddr - base >= seg_off &&
	    seg_vaddr - base - seg_off <= MAX_GAP)
		seg_off = seg_vaddr - base;
	else if (!(base % MAX_PAGE) && seg_vaddr - base < seg_off &&
		 base + seg_off <= UINT64_MAX - seg_size)
		seg_vaddr = base + seg_off;
	total = seg_off + seg_size;
	if (s.usable) {
		str_off = total;
		sh_off = align_up(str_off + s.str_size + sizeof(sframe_name), SFRAME_ALIGN);
		total = sh_off + (s.num + 1) * s.entsize;
	}

	buf = calloc(1, total);
	if (!buf)
		return bad(&m, "out of memory");
	memcpy(buf, data, size);

	/* The program header table, the new PT_LOAD after the last old one */
	out->sframe_off = seg_off + align_up(ph_size, SFRAME_ALIGN);
	out->sframe_addr = seg_vaddr + align_up(ph_size, SFRAME_ALIGN);
	ph = buf + seg_off;
	for (i = 0; i < phnum; i++) {
		memcpy(ph, m.in + phoff + i * phentsize, phentsize);
		if (get(&m, ph, 0, 4) == PT_PHDR) {
			put(&m, ph, 8, 8, seg_off);
			put(&m, ph, 16, 8, seg_vaddr);
			put(&m, ph, 24, 8, seg_vaddr);
			put(&m, ph, 32, 8, ph_size);
			put(&m, ph, 40, 8, ph_size);
		}
		if (replace && i == sframe_ph)
			write_phdr(&m, ph, PT_GNU_SFRAME, PF_R, out->sframe_off, out->sframe_addr,
				   out->sframe_size, SFRAME_ALIGN);
		ph += phentsize;
		if (i == last_load) {
			write_phdr(&m, ph, PT_LOAD, PF_R, seg_off, seg_vaddr, seg_size, MAX_PAGE);
			ph += phentsize;
		}
	}
	if (!replace)
		write_phdr(&m, ph, PT_GNU_SFRAME, PF_R, out->sframe_off, out->sframe_addr,
			   out->sframe_size, SFRAME_ALIGN);
	sframe_gen_emit(gen, buf + out->sframe_off, out->sframe_addr);
	put(&m, buf, 0x20, 8, seg_off);
	put(&m, buf, 0x38, 2, new_phnum);
	if (s.sframe) {
		b = s.off + s.sframe * s.entsize;
		put(&m, buf, b + 0x10, 8, out->sframe_addr);
		put(&m, buf, b + 0x18, 8, out->sframe_off);
		put(&m, buf, b + 0x20, 8, out->sframe_size);
	}

	if (s.usable) {
		memcpy(buf + str_off, m.in + s.str_off, s.str_size);
		memcpy(buf + str_off + s.str_size, sframe_name, sizeof(sframe_name));
		memcpy(buf + sh_off, m.in + s.off, s.num * s.entsize);
		b = sh_off + s.strndx * s.entsize;
		put(&m, buf, b + 0x18, 8, str_off);
		put(&m, buf, b + 0x20, 8, s.str_size + sizeof(sframe_name));
		b = sh_off + s.num * s.entsize;
		put(&m, buf, b, 4, s.str_size);
		put(&m, buf, b + 4, 4, SHT_GNU_SFRAME);
		put(&m, buf, b + 8, 8, SHF_ALLOC);
		put(&m, buf, b + 0x10, 8, out->sframe_addr);
		put(&m, buf, b + 0x18, 8, out->sframe_off);
		put(&m, buf, b + 0x20, 8, out->sframe_size);
		put(&m, buf, b + 0x30, 8, SFRAME_ALIGN);
		put(&m, buf, 0x28, 8, sh_off);
		if (s.extended_num)
			put(&m, buf, sh_off + 0x20, 8, s.num + 1);
		else
			put(&m, buf, 0x3c, 2, s.num + 1);
		out->section_added = true;
	}

	out->buf = buf;
	out->size = total;
	out->seg_off = seg_off;
	out->seg_vaddr = seg_vaddr;
	return 0;
}

#define SPARSE		0x10000

static bool all_zero(const uint8_t *p, size_t len)
{
	return !p[0] && !memcmp(p, p + 1, len - 1);
}

/**
 * sframe_gen_elf_write() - write the copy to a file
 * @out: what sframe_gen_elf_build() made.
 * @path: the file, created or truncated; removed again if writing it fails
 *	(when it is a regular file).
 * @mode: its permission bits (the input's).
 * @err: a one-line message when it fails.
 * @err_size: its size.
 *
 * Return: 0, or -1 with @err set.
 */
int sframe_gen_elf_write(const struct sframe_gen_elf *out, const char *path, mode_t mode,
			 char *err, size_t err_size)
{
	bool regular = false;
	size_t done = 0, len;
	struct stat sb;
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		goto fail;
	/* Only a file of ours is removed on failure, never a device */
	if (fstat(fd, &sb))
		goto fail_close;
	regular = S_ISREG(sb.st_mode);
	while (done < out->size) {
		len = out->size - done < SPARSE ? out->size - done : SPARSE;
		/* The padding before the new segment: a hole, not zeros on disk */
		if (regular && done + len < out->size && !(done % SPARSE) &&
		    all_zero(out->buf + done, len)) {
			if (lseek(fd, len, SEEK_CUR) < 0)
				goto fail_close;
			done += len;
			continue;
		}
		n = write(fd, out->buf + done, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			goto fail_close;
		done += n;
	}
	/* After the writing: a read-only mode must not stop it */
	if (regular && fchmod(fd, mode & 07777))
		goto fail_close;
	if (close(fd)) {
		fd = -1;
		goto fail_close;
	}
	return 0;

fail_close:
	snprintf(err, err_size, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (regular)
		unlink(path);
	return -1;
fail:
	snprintf(err, err_size, "%s: %s", path, strerror(errno));
	return -1;
}

/**
 * sframe_gen_elf_free() - free what sframe_gen_elf_build() allocated
 * @out: the copy.
 */
void sframe_gen_elf_free(struct sframe_gen_elf *out)
{
	free(out->buf);
	out->buf = NULL;
}
