// SPDX-License-Identifier: GPL-2.0
/*
 * A library whose .sframe is corrupt: the kernel still registers its text,
 * listed `bad` (so the user can see why its stacks stop there), counts it
 * while it is mapped, and forgets it with the library.  The corruption is
 * a flipped magic number in a copy of an SFrame library, so nothing but
 * the section differs.  The kernel says so once, naming the file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sf_harness.h"

/* Beside the program, wherever it was installed; matched by name in maps */
#define SF_GOOD_LIB	"./libsf-dl.so"
#define SF_BAD_LIB	"./libsf-bad.so"
#define SF_BAD_NAME	(SF_BAD_LIB + 1)

/* A copy of @from with the first byte of its SFrame magic flipped. */
static bool sf_write_corrupt_copy(const char *from, const char *to)
{
	static unsigned char buf[1 << 20];
	const Elf64_Ehdr *eh = (const void *)buf;
	const Elf64_Phdr *ph;
	ssize_t len;
	bool done = false;
	int fd, i;

	fd = open(from, O_RDONLY);
	if (!SF_CHECK(fd >= 0, "cannot open %s", from))
		return false;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (!SF_CHECK(len > (ssize_t)sizeof(*eh) && len < (ssize_t)sizeof(buf),
		      "cannot read %s", from))
		return false;
	ph = (const void *)(buf + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_GNU_SFRAME || ph[i].p_offset >= (size_t)len)
			continue;
		buf[ph[i].p_offset] ^= 0xff;
		done = true;
	}
	if (!SF_CHECK(done, "%s has no PT_GNU_SFRAME", from))
		return false;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (!SF_CHECK(fd >= 0, "cannot create %s", to))
		return false;
	done = write(fd, buf, len) == len;
	close(fd);
	return SF_CHECK(done, "cannot write %s", to);
}

/* The kernel said why, once, naming the file. */
static void sf_check_message(const char *name)
{
	char rec[1024];
	int fd, found = 0;
	ssize_t n;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (!SF_CHECK(fd >= 0, "cannot open /dev/kmsg"))
		return;
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0) {
		rec[n] = 0;
		if (strstr(rec, "sframe: ") && strstr(rec, name))
			found++;
	}
	close(fd);
	SF_CHECK(found == 1, "%d kernel messages name %s, expected 1", found, name);
}

SF_TEST(bad_library)
{
	long sections0 = sf_stat_get("sections");
	const struct sf_line *l;
	struct sf_set got;
	void *h;
	int n;

	SF_CHECK(sections0 >= 0, "cannot read " SF_STATS_DIR "sections");
	if (!sf_write_corrupt_copy(SF_GOOD_LIB, SF_BAD_LIB))
		sf_exit();

	h = dlopen(SF_BAD_LIB, RTLD_NOW);
	if (!SF_CHECK(h, "dlopen: %s", dlerror()))
		sf_exit();
	if (!sf_actual("self", &got)) {
		l = sf_set_find_path(&got, SF_BAD_NAME, &n);
		if (SF_CHECK(l && n == 1, "%d lines for %s", n, SF_BAD_LIB))
			SF_CHECK(!strcmp(l->state, "bad"), "line '%s': want bad", l->text);
		sf_set_free(&got);
	}
	sf_check_sections(sections0 + 1, "corrupt library mapped");
	sf_check_message(strrchr(SF_BAD_LIB, '/') + 1);

	/* The program's own sections are not affected. */
	SF_CHECK(!sf_actual("self", &got), "cannot read /proc/self/sframe");
	l = sf_set_find_path(&got, "/sf-badlib", &n);
	SF_CHECK(l && !strcmp(l->state, "ok"), "the program's own line is not ok");
	sf_set_free(&got);

	dlclose(h);
	SF_CHECK(!sf_actual("self", &got), "cannot read /proc/self/sframe");
	sf_set_find_path(&got, SF_BAD_NAME, &n);
	SF_CHECK(n == 0, "%d lines for %s after dlclose", n, SF_BAD_LIB);
	sf_set_free(&got);
	sf_check_sections(sections0, "corrupt library closed");
	unlink(SF_BAD_LIB);
	sf_exit();
}

SF_HARNESS_MAIN
