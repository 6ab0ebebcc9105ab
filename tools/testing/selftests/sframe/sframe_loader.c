// SPDX-License-Identifier: GPL-2.0
/*
 * An ELF mapper in the image of glibc's _dl_map_segments(): one mapping of
 * the whole extent from the first segment's file pages with its
 * protection, PROT_NONE over the holes, then each later segment mapped
 * MAP_FIXED over its part, and the bss zeroed.  The kernel sees the same
 * sequence of mmap() calls it sees from ld.so, so what it registers for
 * these instances is what it registers for a dlopen().
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sframe_loader.h"
#include "sframe_test.h"

#define SF_MAX_LOADS	16

static int sf_prot(const Elf64_Phdr *ph)
{
	return (ph->p_flags & PF_R ? PROT_READ : 0) |
	       (ph->p_flags & PF_W ? PROT_WRITE : 0) |
	       (ph->p_flags & PF_X ? PROT_EXEC : 0);
}

/* Zeroes the bss of @ph: the tail of its last file page, then anonymous pages. */
static int sf_map_bss(const Elf64_Phdr *ph, unsigned long bias, unsigned long page)
{
	unsigned long zero = bias + ph->p_vaddr + ph->p_filesz;
	unsigned long zeroend = bias + ph->p_vaddr + ph->p_memsz;
	unsigned long zeropage = (zero + page - 1) & ~(page - 1);
	void *p;

	if (zeroend <= zero)
		return 0;
	if (zeropage > zeroend)
		zeropage = zeroend;
	if (zeropage > zero) {
		if (!(ph->p_flags & PF_W))
			return -1;	/* ld.so would mprotect; our files never need it */
		memset((void *)zero, 0, zeropage - zero);
	}
	if (zeroend > zeropage) {
		p = mmap((void *)zeropage, zeroend - zeropage, sf_prot(ph),
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			return -1;
	}
	return 0;
}

/*
 * Maps @path at @at (an address for the lowest segment's first page; 0 lets
 * the kernel choose).  Returns 0, or -1 with a message on stderr.
 */
int sf_map_elf(const char *path, unsigned long at, struct sf_image *img)
{
	unsigned long page = sysconf(_SC_PAGESIZE), mapstart, maplen, bias;
	Elf64_Phdr ph[64], load[SF_MAX_LOADS];
	int fd, i, n = 0, flags;
	Elf64_Ehdr eh;
	void *p;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "loader: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64 ||
	    pread(fd, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(*ph)))
		goto bad;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (n == SF_MAX_LOADS)
			goto bad;
		load[n++] = ph[i];
	}
	if (!n)
		goto bad;

	mapstart = load[0].p_vaddr & ~(page - 1);
	maplen = ((load[n - 1].p_vaddr + load[n - 1].p_memsz + page - 1) & ~(page - 1)) -
		 mapstart;
	flags = MAP_PRIVATE | (at ? MAP_FIXED : 0);
	p = mmap(at ? (void *)(at + mapstart) : NULL, maplen, sf_prot(&load[0]), flags, fd,
		 load[0].p_offset & ~(page - 1));
	if (p == MAP_FAILED)
		goto fail;
	bias = (unsigned long)p - mapstart;
	img->bias = bias;
	img->start = (unsigned long)p;
	img->end = (unsigned long)p + maplen;

	/*
	 * Holes between segments (as ld.so judges them: a segment's file pages
	 * do not end where the next one's start) get no access, from the end
	 * of the first segment's file pages to the last segment.
	 */
	for (i = 1; i < n; i++) {
		unsigned long prev_end = (load[i - 1].p_vaddr + load[i - 1].p_filesz + page - 1) &
					 ~(page - 1);

		if ((load[i].p_vaddr & ~(page - 1)) != prev_end)
			break;
	}
	if (i < n) {
		unsigned long end0 = (load[0].p_vaddr + load[0].p_filesz + page - 1) & ~(page - 1);

		if (mprotect((void *)(bias + end0), (load[n - 1].p_vaddr & ~(page - 1)) - end0,
			     PROT_NONE))
			goto fail;
	}

	for (i = 0; i < n; i++) {
		unsigned long start = load[i].p_vaddr & ~(page - 1);
		unsigned long end = (load[i].p_vaddr + load[i].p_filesz + page - 1) & ~(page - 1);

		if (i && end > start &&
		    mmap((void *)(bias + start), end - start, sf_prot(&load[i]),
			 MAP_PRIVATE | MAP_FIXED, fd, load[i].p_offset & ~(page - 1)) == MAP_FAILED)
			goto fail;
		if (sf_map_bss(&load[i], bias, page))
			goto fail;
	}
	close(fd);
	return 0;
bad:
	errno = ENOEXEC;
fail:
	fprintf(stderr, "loader: %s: %s\n", path, strerror(errno));
	close(fd);
	return -1;
}

/*
 * Maps an instance of @path and checks the lines; its one line, as the
 * oracle has it, goes to @l.
 */
bool sf_instance(const char *path, struct sf_image *img, struct sf_line *l,
		 const char *step)
{
	const struct sf_line *found;
	struct sf_set want;

	if (!SF_CHECK(!sf_map_elf(path, 0, img), "%s: cannot map %s", step, path) ||
	    !sf_check_oracle(step) || !sf_oracle_self(&want, step))
		return false;
	found = sf_line_in(&want, img->start, img->end, step);
	if (found)
		*l = *found;
	sf_set_free(&want);
	return found;
}
