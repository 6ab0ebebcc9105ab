/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /proc/<pid>/sframe should say, worked out from /proc/<pid>/maps and
 * the ELF program headers of each mapped file, without asking the kernel's
 * SFrame code anything; and what it does say.
 */
#ifndef _SFRAME_ORACLE_H
#define _SFRAME_ORACLE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/sframe.h>
#include <linux/sframe_format.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554	/* glibc 2.36's elf.h predates it */
#endif

/* The SFrame ABI id of the machine we run on: sections we write use it. */
#if defined(__x86_64__)
#define SF_ABI_NATIVE	SFRAME_ABI_AMD64_ENDIAN_LITTLE
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SF_ABI_NATIVE	SFRAME_ABI_AARCH64_ENDIAN_BIG
#elif defined(__aarch64__)
#define SF_ABI_NATIVE	SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#elif defined(__s390x__)
#define SF_ABI_NATIVE	SFRAME_ABI_S390X_ENDIAN_BIG
#else
#error "no SFrame ABI for this architecture"
#endif

#define SF_PATH_MAX	512
#define SF_LINE_MAX	(SF_PATH_MAX + 128)

/* One line of /proc/<pid>/sframe */
struct sf_line {
	unsigned long	text_start;
	unsigned long	text_end;
	unsigned long	sframe_start;
	unsigned long	sframe_end;
	unsigned int	version;
	unsigned long	fdes;
	unsigned long	bytes;			/* what /proc said; no oracle predicts it */
	unsigned long	shared;			/* bytes of a shared index, the same */
	char		state[8];
	char		path[SF_PATH_MAX];
	char		text[SF_LINE_MAX];	/* the line as printed, no newline */
	bool		parsed;			/* false: only @text is meaningful */
};

struct sf_set {
	struct sf_line	*line;
	int		n;
	int		cap;
};

/* One line of /proc/<pid>/maps */
struct sf_map {
	unsigned long	start;
	unsigned long	end;
	char		perms[5];
	unsigned long	offset;
	unsigned int	dev_major;
	unsigned int	dev_minor;
	unsigned long	inode;
	char		path[SF_PATH_MAX];
};

struct sf_maps {
	struct sf_map	*map;
	int		n;
};

/* Set by sframe-check -v: explain each expected line on stdout */
extern bool sf_oracle_verbose;

void sf_set_init(struct sf_set *s);
void sf_set_free(struct sf_set *s);
void sf_set_add(struct sf_set *s, const struct sf_line *l);
void sf_set_sort(struct sf_set *s);
void sf_line_format(struct sf_line *l);
int sf_set_sections(const struct sf_set *s);
const struct sf_line *sf_set_find_path(const struct sf_set *s, const char *suffix,
				       int *count);

void sf_drop_text(struct sf_set *s, unsigned long start, unsigned long end);
void sf_drop_section(struct sf_set *s, unsigned long sframe_start);

int sf_maps_read(const char *pid, struct sf_maps *m);
void sf_maps_free(struct sf_maps *m);
const struct sf_map *sf_maps_find(const struct sf_maps *m, unsigned long addr);

bool sf_file_has_sframe(const char *path);
int sf_expected(const char *pid, struct sf_set *want);
/* Bytes of one rule cache entry in the kernel */
#define SF_CACHE_ENTRY	36
/* At most this much of a shared index is the kernel's bookkeeping of it */
#define SF_SHARED_OVERHEAD	512
unsigned long sf_cache_entries(unsigned long fdes);
bool sf_bytes_plausible(const struct sf_line *l);
int sf_actual(const char *pid, struct sf_set *got);
int sf_compare(const struct sf_set *want, const struct sf_set *got, FILE *out,
	       const char *prefix);

#endif /* _SFRAME_ORACLE_H */
