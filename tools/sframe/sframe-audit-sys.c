// SPDX-License-Identifier: GPL-2.0-only
/*
 * libsframe-audit.so's settings and what every part of it asks of the
 * system with care: whether memory is mapped before it is read, whether
 * a file may grow before it is written, whether a descriptor kept for the
 * whole process is still the one opened.  See sframe-audit.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sframe-audit.h"

struct sfa_config cfg;

/* One line to stderr in one write(), so lines of threads do not mix */
void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;
}

/*
 * Is [addr, addr + len) mapped?  mincore() fails with ENOMEM on a hole, and
 * asks one call per 4096 pages (msync() would ask one per page).
 */
bool sfa_mapped(uintptr_t addr, size_t len)
{
	uintptr_t page = sysconf(_SC_PAGESIZE), p, end = addr + len, n;
	unsigned char vec[4096];

	if (!len || end < addr)
		return false;
	for (p = addr & ~(page - 1); p < end; p += n * page) {
		n = (end - p + page - 1) / page;
		if (n > sizeof(vec))
			n = sizeof(vec);
		if (mincore((void *)p, n * page, vec) && errno == ENOMEM)
			return false;
	}
	return true;
}

/*
 * May a file grow to @size bytes?  Past RLIMIT_FSIZE, write() raises
 * SIGXFSZ, whose default kills the program: a limit its caller set
 * (ulimit -f) must cost a store, never the process.
 */
bool sfa_fsize_ok(uint64_t size)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	       size <= rl.rlim_cur;
}

/*
 * A directory descriptor this module keeps for the whole process is still
 * the directory it opened: the program may close every descriptor
 * (closefrom(), close_range()) and open others, one of which may take its
 * number.  It is the program's then, to be neither written in nor closed.
 */
bool sfa_dir_still(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_dev == dev &&
	       st.st_ino == ino;
}

/* Are these the program headers of the vDSO, which no file backs? */
bool sfa_is_vdso(const ElfW(Phdr) *phdr)
{
	uintptr_t eh = getauxval(AT_SYSINFO_EHDR);

	return eh && (uintptr_t)phdr == eh + ((const ElfW(Ehdr) *)eh)->e_phoff;
}
