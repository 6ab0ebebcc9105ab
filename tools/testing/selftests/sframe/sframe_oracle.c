// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle: the lines /proc/<pid>/sframe should hold right now, derived
 * from /proc/<pid>/maps and the program headers of the mapped files only.
 *
 * For every executable mapping of a regular ELF file with PT_GNU_SFRAME:
 * the load bias follows from the mapping's start and file offset and the
 * executable PT_LOAD whose file pages it maps (ELF keeps p_vaddr and
 * p_offset congruent, so address - offset is constant within a segment);
 * the text is that PT_LOAD's [p_vaddr, p_vaddr + p_memsz) plus the bias,
 * cut to the mapping; the SFrame range is PT_GNU_SFRAME's plus the same
 * bias.  Pieces of one section that touch (a mapping split by an mprotect
 * that kept PROT_EXEC) make one line: a registration is a range of
 * addresses, not a count of VMAs.
 *
 * A section whose SFrame data is no longer mapped from its file at the
 * place the bias says is not expected at all: the contract removes the
 * whole section when any part of that data is unmapped or moved.  What the
 * oracle cannot see from the current maps (a mapping moved by mremap stays
 * unregistered, explicit registrations) the tests add or remove themselves.
 *
 * The vDSO is read the same way, from the process's memory (/proc/<pid>/mem
 * at its "[vdso]" mapping, where its ELF image starts, as if a file mapped
 * at offset 0): a vDSO with PT_GNU_SFRAME is registered at exec and shows
 * as "[vdso]".  It is the one place it can be, so the oracle expects it
 * only while the mapping exec made is where it was: a vDSO moved by
 * mremap() (a checkpoint/restore tool does that) is no longer registered,
 * and the test that moves it says so itself.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sframe_oracle.h"

#define SF_MAX_PHDRS	64

bool sf_oracle_verbose;

/* What one mapped file contributes, read once per file */
struct sf_elf {
	unsigned int	dev_major;
	unsigned int	dev_minor;
	unsigned long	inode;
	bool		has_sframe;
	int		nphdr;
	Elf64_Phdr	phdr[SF_MAX_PHDRS];
	Elf64_Phdr	sframe;
	unsigned int	version;
	unsigned long	fdes;
	const char	*state;
};

struct sf_elf_cache {
	struct sf_elf	*elf;
	int		n;
};

static void *sf_xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		perror("realloc");
		exit(2);
	}
	return p;
}

void sf_set_init(struct sf_set *s)
{
	memset(s, 0, sizeof(*s));
}

void sf_set_free(struct sf_set *s)
{
	free(s->line);
	sf_set_init(s);
}

void sf_set_add(struct sf_set *s, const struct sf_line *l)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->line = sf_xrealloc(s->line, s->cap * sizeof(*s->line));
	}
	s->line[s->n++] = *l;
}

/* The format the contract gives: %lx addresses, no 0x, no padding */
void sf_line_format(struct sf_line *l)
{
	snprintf(l->text, sizeof(l->text), "%lx-%lx %lx-%lx v%u fdes=%lu %s %s",
		 l->text_start, l->text_end, l->sframe_start, l->sframe_end,
		 l->version, l->fdes, l->state, l->path);
	l->parsed = true;
}

/* Sections, not lines: one section shows as several lines once cut. */
int sf_set_sections(const struct sf_set *s)
{
	int i, j, n = 0;

	for (i = 0; i < s->n; i++) {
		for (j = 0; j < i; j++)
			if (s->line[j].sframe_start == s->line[i].sframe_start &&
			    s->line[j].sframe_end == s->line[i].sframe_end &&
			    !strcmp(s->line[j].path, s->line[i].path))
				break;
		if (j == i)
			n++;
	}
	return n;
}

static bool sf_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* First line whose path ends in @suffix; @count gets how many do. */
const struct sf_line *sf_set_find_path(const struct sf_set *s, const char *suffix,
				       int *count)
{
	const struct sf_line *first = NULL;
	int i, n = 0;

	for (i = 0; i < s->n; i++) {
		if (!s->line[i].parsed || !sf_ends_with(s->line[i].path, suffix))
			continue;
		if (!first)
			first = &s->line[i];
		n++;
	}
	if (count)
		*count = n;
	return first;
}

static void sf_set_remove(struct sf_set *s, int i)
{
	memmove(&s->line[i], &s->line[i + 1], (s->n - i - 1) * sizeof(*s->line));
	s->n--;
}

/* Lines whose text meets [@start, @end) are not to be registered. */
void sf_drop_text(struct sf_set *s, unsigned long start, unsigned long end)
{
	int i;

	for (i = s->n - 1; i >= 0; i--)
		if (s->line[i].text_start < end && s->line[i].text_end > start)
			sf_set_remove(s, i);
}

/* All lines of the section whose data starts at @sframe_start. */
void sf_drop_section(struct sf_set *s, unsigned long sframe_start)
{
	int i;

	for (i = s->n - 1; i >= 0; i--)
		if (s->line[i].sframe_start == sframe_start)
			sf_set_remove(s, i);
}

static FILE *sf_proc_open(const char *pid, const char *file)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, file);
	return fopen(path, "r");
}

int sf_maps_read(const char *pid, struct sf_maps *m)
{
	char *buf = NULL;
	size_t len = 0;
	int cap = 0;
	FILE *f;

	memset(m, 0, sizeof(*m));
	f = sf_proc_open(pid, "maps");
	if (!f)
		return -1;
	while (getline(&buf, &len, f) > 0) {
		struct sf_map *p;
		int pos = 0;
		char *path;

		if (m->n == cap) {
			cap = cap ? 2 * cap : 64;
			m->map = sf_xrealloc(m->map, cap * sizeof(*m->map));
		}
		p = &m->map[m->n];
		memset(p, 0, sizeof(*p));
		if (sscanf(buf, "%lx-%lx %4s %lx %x:%x %lu %n", &p->start, &p->end,
			   p->perms, &p->offset, &p->dev_major, &p->dev_minor,
			   &p->inode, &pos) < 7 || !pos) {
			fprintf(stderr, "/proc/%s/maps: cannot parse: %s", pid, buf);
			continue;
		}
		path = buf + pos;
		path[strcspn(path, "\n")] = '\0';
		snprintf(p->path, sizeof(p->path), "%s", path);
		m->n++;
	}
	free(buf);
	fclose(f);
	return 0;
}

void sf_maps_free(struct sf_maps *m)
{
	free(m->map);
	memset(m, 0, sizeof(*m));
}

const struct sf_map *sf_maps_find(const struct sf_maps *m, unsigned long addr)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (addr >= m->map[i].start && addr < m->map[i].end)
			return &m->map[i];
	return NULL;
}

static bool sf_same_file(const struct sf_map *m, unsigned int major,
			 unsigned int minor, unsigned long inode)
{
	return m->inode == inode && m->dev_major == major && m->dev_minor == minor;
}

/*
 * Judges the section header the way the spec defines it, with nothing of
 * the kernel's reader: the magic, a version and flags that exist, our ABI,
 * and sub-sections inside the segment.
 */
static const char *sf_header_state(const struct sframe_header *h, unsigned long size)
{
	unsigned long hdr_end = sizeof(*h) + h->auxhdr_len;
	unsigned long fde_size, fdes_end, fres_end;
	unsigned int flags_ok;

	if (h->preamble.magic != SFRAME_MAGIC)
		return "bad";
	if (h->preamble.version == SFRAME_VERSION_2) {
		fde_size = sizeof(struct sframe_fde_v2);
		flags_ok = SFRAME_V2_F_ALL;
	} else if (h->preamble.version == SFRAME_VERSION_3) {
		fde_size = sizeof(struct sframe_fde_v3);
		flags_ok = SFRAME_V3_F_ALL;
	} else {
		return "bad";
	}
	if (h->preamble.flags & ~flags_ok || h->abi_arch != SF_ABI_NATIVE)
		return "bad";
	fdes_end = hdr_end + h->fdes_off + (unsigned long)h->num_fdes * fde_size;
	fres_end = hdr_end + h->fres_off + (unsigned long)h->fre_len;
	if (fdes_end > size || fres_end > size || fdes_end > hdr_end + h->fres_off)
		return "bad";
	return "ok";
}

/* Reads the ELF header, program headers and SFrame header of @fd, from @base. */
static int sf_elf_read(int fd, struct sf_elf *e, off_t base)
{
	struct sframe_header h;
	Elf64_Ehdr eh;
	int i;

	if (pread(fd, &eh, sizeof(eh), base) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	    eh.e_ident[EI_DATA] != ELFDATA2MSB ||
#else
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
#endif
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > SF_MAX_PHDRS)
		return 0;	/* not an ELF file of ours: no SFrame */
	e->nphdr = eh.e_phnum;
	if (pread(fd, e->phdr, e->nphdr * sizeof(Elf64_Phdr), base + eh.e_phoff) !=
	    (ssize_t)(e->nphdr * sizeof(Elf64_Phdr)))
		return -1;
	for (i = 0; i < e->nphdr; i++) {
		if (e->phdr[i].p_type != PT_GNU_SFRAME)
			continue;
		e->has_sframe = true;
		e->sframe = e->phdr[i];
	}
	if (!e->has_sframe)
		return 0;
	memset(&h, 0, sizeof(h));
	if (e->sframe.p_filesz < sizeof(h) ||
	    pread(fd, &h, sizeof(h), base + e->sframe.p_offset) != sizeof(h)) {
		e->state = "bad";
		return 0;
	}
	e->version = h.preamble.version;
	e->fdes = h.num_fdes;
	e->state = sf_header_state(&h, e->sframe.p_filesz);
	return 0;
}

/* Does the ELF file at @path carry a PT_GNU_SFRAME segment? */
bool sf_file_has_sframe(const char *path)
{
	struct sf_elf e = { .has_sframe = false };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ret;

	if (fd < 0)
		return false;
	ret = !sf_elf_read(fd, &e, 0) && e.has_sframe;
	close(fd);
	return ret;
}

/*
 * The file behind @m: by its path, checked to be the very inode mapped;
 * else through map_files (root only), as a file replaced after mapping
 * or renamed keeps its old path in maps.
 */
static const struct sf_elf *sf_elf_get(struct sf_elf_cache *c, const char *pid,
				       const struct sf_map *m)
{
	char alt[96];
	struct sf_elf *e;
	struct stat st;
	int i, fd;

	for (i = 0; i < c->n; i++)
		if (sf_same_file(m, c->elf[i].dev_major, c->elf[i].dev_minor,
				 c->elf[i].inode))
			return &c->elf[i];

	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || major(st.st_dev) != m->dev_major ||
			minor(st.st_dev) != m->dev_minor || st.st_ino != m->inode)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		snprintf(alt, sizeof(alt), "/proc/%s/map_files/%lx-%lx", pid,
			 m->start, m->end);
		fd = open(alt, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		fprintf(stderr, "oracle: cannot open the file mapped at %lx (%s): %s\n",
			m->start, m->path, strerror(errno));
		return NULL;
	}

	c->elf = sf_xrealloc(c->elf, (c->n + 1) * sizeof(*c->elf));
	e = &c->elf[c->n];
	memset(e, 0, sizeof(*e));
	e->dev_major = m->dev_major;
	e->dev_minor = m->dev_minor;
	e->inode = m->inode;
	if (sf_elf_read(fd, e, 0)) {
		fprintf(stderr, "oracle: %s: cannot read program headers\n", m->path);
		close(fd);
		return NULL;
	}
	close(fd);
	c->n++;
	return e;
}

/*
 * True when [@start, @end) is mapped throughout by mappings of the file of
 * @m whose address - offset is @delta, i.e. holds that file's bytes where
 * the bias puts them.
 */
static bool sf_data_mapped(const struct sf_maps *maps, const struct sf_map *m,
			   unsigned long start, unsigned long end, unsigned long delta)
{
	unsigned long at = start;
	int i;

	for (i = 0; i < maps->n && at < end; i++) {
		const struct sf_map *p = &maps->map[i];

		if (at < p->start || at >= p->end)
			continue;
		if (!sf_same_file(p, m->dev_major, m->dev_minor, m->inode) ||
		    p->start - p->offset != delta)
			return false;
		at = p->end;
	}
	return at >= end;
}

/* sf_expect_piece()'s verbose lines, too long for a line of code */
#define SF_NOT_MAPPED_FMT	"# oracle: %lx-%lx %s: SFrame data %lx-%lx not mapped from the file: %s\n"
#define SF_PIECE_FMT	"# oracle: %lx-%lx off %lx %s: PT_LOAD vaddr %lx memsz %lx, bias %lx, %s %lx memsz %lx\n"

/* Adds the expected piece of @m for its executable PT_LOAD @ph, if any. */
static void sf_expect_piece(struct sf_set *want, const struct sf_maps *maps,
			    const struct sf_map *m, const struct sf_elf *e,
			    const Elf64_Phdr *ph)
{
	unsigned long page = sysconf(_SC_PAGESIZE);
	unsigned long file_lo = ph->p_offset & ~(page - 1);
	unsigned long file_hi = ph->p_offset + ph->p_filesz;
	unsigned long map_hi = m->offset + (m->end - m->start);
	unsigned long bias, delta;
	struct sf_line l;

	/* Does this mapping hold any of the segment's file pages? */
	if (m->offset >= file_hi || map_hi <= file_lo)
		return;
	bias = m->start - m->offset - (ph->p_vaddr - ph->p_offset);

	memset(&l, 0, sizeof(l));
	l.text_start = ph->p_vaddr + bias;
	l.text_end = ph->p_vaddr + ph->p_memsz + bias;
	if (l.text_start < m->start)
		l.text_start = m->start;
	if (l.text_end > m->end)
		l.text_end = m->end;
	if (l.text_start >= l.text_end)
		return;
	l.sframe_start = e->sframe.p_vaddr + bias;
	l.sframe_end = l.sframe_start + e->sframe.p_memsz;
	l.version = e->version;
	l.fdes = e->fdes;
	snprintf(l.state, sizeof(l.state), "%s", e->state);
	snprintf(l.path, sizeof(l.path), "%s", m->path);
	sf_line_format(&l);

	delta = bias + e->sframe.p_vaddr - e->sframe.p_offset;
	if (!sf_data_mapped(maps, m, l.sframe_start, l.sframe_end, delta)) {
		if (sf_oracle_verbose)
			printf(SF_NOT_MAPPED_FMT, m->start, m->end, m->path, l.sframe_start,
			       l.sframe_end, "no line");
		return;
	}
	if (sf_oracle_verbose)
		printf(SF_PIECE_FMT, m->start, m->end, m->offset, m->path,
		       (unsigned long)ph->p_vaddr, (unsigned long)ph->p_memsz, bias,
		       "PT_GNU_SFRAME vaddr", (unsigned long)e->sframe.p_vaddr,
		       (unsigned long)e->sframe.p_memsz);
	sf_set_add(want, &l);
}

static int sf_line_cmp(const void *a, const void *b)
{
	const struct sf_line *x = a, *y = b;

	if (x->text_start != y->text_start)
		return x->text_start < y->text_start ? -1 : 1;
	return 0;
}

/* In the order the kernel prints: by text start. */
void sf_set_sort(struct sf_set *s)
{
	qsort(s->line, s->n, sizeof(*s->line), sf_line_cmp);
}

/* Joins pieces of one section that touch: they are one registered range. */
static void sf_merge(struct sf_set *s)
{
	int i;

	sf_set_sort(s);
	for (i = s->n - 1; i > 0; i--) {
		struct sf_line *a = &s->line[i - 1], *b = &s->line[i];

		if (a->text_end != b->text_start || a->sframe_start != b->sframe_start ||
		    a->sframe_end != b->sframe_end || strcmp(a->path, b->path))
			continue;
		a->text_end = b->text_end;
		sf_line_format(a);
		sf_set_remove(s, i);
	}
}

/*
 * The vDSO's image, read from the memory of @pid at @m, where the kernel
 * mapped it: 0 with @e filled (no SFrame if it has none), -1 if unreadable.
 */
static int sf_vdso_read(const char *pid, const struct sf_map *m, struct sf_elf *e)
{
	char path[64];
	int fd, ret;

	memset(e, 0, sizeof(*e));
	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "oracle: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = sf_elf_read(fd, e, m->start);
	close(fd);
	if (ret)
		fprintf(stderr, "oracle: %s: cannot read the vDSO at %lx\n", path, m->start);
	return ret;
}

/* Does /proc/@pid/maps show the vDSO at @m? */
static bool sf_is_vdso(const struct sf_map *m)
{
	return m->perms[2] == 'x' && !m->inode && !strcmp(m->path, "[vdso]");
}

/* The lines /proc/@pid/sframe should hold; -1 when the oracle cannot tell. */
int sf_expected(const char *pid, struct sf_set *want)
{
	struct sf_elf_cache cache = { 0 };
	struct sf_maps maps;
	int i, j, ret = 0;

	sf_set_init(want);
	if (sf_maps_read(pid, &maps)) {
		fprintf(stderr, "oracle: /proc/%s/maps: %s\n", pid, strerror(errno));
		return -1;
	}
	for (i = 0; i < maps.n && !ret; i++) {
		const struct sf_map *m = &maps.map[i];
		const struct sf_elf *e;
		struct sf_elf vdso;

		if (sf_is_vdso(m)) {
			if (sf_vdso_read(pid, m, &vdso)) {
				ret = -1;
				break;
			}
			e = &vdso;
		} else if (m->perms[2] != 'x' || !m->inode || m->path[0] != '/') {
			continue;
		} else {
			e = sf_elf_get(&cache, pid, m);
		}
		if (!e) {
			ret = -1;
			break;
		}
		if (!e->has_sframe)
			continue;
		for (j = 0; j < e->nphdr; j++)
			if (e->phdr[j].p_type == PT_LOAD && e->phdr[j].p_flags & PF_X)
				sf_expect_piece(want, &maps, m, e, &e->phdr[j]);
	}
	sf_merge(want);
	free(cache.elf);
	sf_maps_free(&maps);
	return ret;
}

/*
 * Rule cache entries of a section of @fdes FDEs: one for about four, a
 * power of two from 16 to 512 (sframe_section_cache_bytes()).
 */
unsigned long sf_cache_entries(unsigned long fdes)
{
	unsigned long n = 16;

	if (!fdes)
		return 0;
	while (n < 512 && 4 * n < fdes)
		n *= 2;
	return n;
}

/*
 * What the kernel holds for a section of @l->fdes FDEs: its index (12
 * bytes an FDE), the fast lookup table (2 to fdes + 2 entries of 4), the
 * elements' table when there are several (12 bytes each, at most one an
 * FDE) and, once the process was unwound, the rule cache.  A line outside
 * those bounds is not parsed, so it matches nothing.
 */
bool sf_bytes_plausible(const struct sf_line *l)
{
	unsigned long f = l->fdes, least = 12 * f + 8;
	unsigned long cache = SF_CACHE_ENTRY * sf_cache_entries(f);

	if (strcmp(l->state, "ok"))
		return true;
	if (!f)
		return !l->bytes && !l->shared;
	/* A shared index: its own bytes, with the kernel's bookkeeping of it */
	if (l->shared)
		return l->bytes <= cache && l->shared >= least &&
		       l->shared <= least + 4 * f + 12 * f + SF_SHARED_OVERHEAD;
	return l->bytes >= least && l->bytes <= least + 4 * f + 12 * f + cache;
}

/* What /proc/@pid/sframe holds; -1 with errno when it cannot be read. */
int sf_actual(const char *pid, struct sf_set *got)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	sf_set_init(got);
	f = sf_proc_open(pid, "sframe");
	if (!f)
		return -1;
	errno = 0;
	while (getline(&buf, &len, f) > 0) {
		struct sf_line l;
		int pos = 0;

		memset(&l, 0, sizeof(l));
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(l.text, sizeof(l.text), "%s", buf);
		if (sscanf(buf, "%lx-%lx %lx-%lx v%u fdes=%lu bytes=%lu shared=%lu %7s %n",
			   &l.text_start, &l.text_end, &l.sframe_start, &l.sframe_end,
			   &l.version, &l.fdes, &l.bytes, &l.shared, l.state, &pos) == 9 && pos &&
		    buf[pos] && sf_bytes_plausible(&l)) {
			snprintf(l.path, sizeof(l.path), "%s", buf + pos);
			/* Compared without the bytes, which the oracle cannot know */
			sf_line_format(&l);
		}
		sf_set_add(got, &l);
	}
	err = ferror(f) ? errno : 0;
	free(buf);
	fclose(f);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * Prints, each line led by @prefix, what @got lacks and what it has too
 * many of, or that the order is wrong; returns how many lines differ.
 */
int sf_compare(const struct sf_set *want, const struct sf_set *got, FILE *out,
	       const char *prefix)
{
	bool *used = calloc(got->n + 1, sizeof(*used));
	int i, j, diff = 0;

	if (!used) {
		perror("calloc");
		exit(2);
	}
	for (i = 0; i < want->n; i++) {
		for (j = 0; j < got->n; j++)
			if (!used[j] && !strcmp(want->line[i].text, got->line[j].text))
				break;
		if (j < got->n) {
			used[j] = true;
			continue;
		}
		fprintf(out, "%smissing:    %s\n", prefix, want->line[i].text);
		diff++;
	}
	for (j = 0; j < got->n; j++) {
		if (used[j])
			continue;
		fprintf(out, "%sunexpected: %s\n", prefix, got->line[j].text);
		diff++;
	}
	/* Same lines: then they must come in the order of the text start. */
	for (i = 0; !diff && i < got->n; i++) {
		if (strcmp(want->line[i].text, got->line[i].text)) {
			fprintf(out, "%snot sorted by text start: line %d is %s\n", prefix,
				i + 1, got->line[i].text);
			diff++;
		}
	}
	free(used);
	return diff;
}
