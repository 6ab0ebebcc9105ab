// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cache of converted sections.
 *
 * Converting libpython's .eh_frame costs milliseconds, in every process.
 * The result depends only on the file, so it is kept on disk, one file per
 * object, and mapped from there: processes of one library share its pages.
 *
 * Where a cached section must be: SFrame function start addresses are
 * relative to the section (V3 with SFRAME_F_FDE_FUNC_START_PCREL: to each
 * FDE's field; without the flag, V2 or V3: to the section's start; the
 * kernel's reader knows no absolute mode).  Dropping the flag would not
 * help: every form holds the distance from section to text, so bytes made
 * once fit only at one distance from the library's load address.  So the
 * sections are made for, and the file is mapped at, a fixed distance below
 * the load bias, SFA_CACHE_DIST, with MAP_FIXED_NOREPLACE: the file is
 * position independent as a whole, with no relocation and no written page.
 * 64 GiB below is outside what the loader, malloc and thread stacks use in
 * a usual process (they grow down from near the libraries, or sit at the
 * program's brk far below), and within the smallest user address space of
 * the three arches (aarch64 39-bit VA, 512 GiB).  A non-PIE program has
 * bias 0 and fixed addresses: its sections go 64 GiB above instead.  Where
 * that address is taken (a process that reserved tens of GiB) the object
 * is converted as without the cache.
 *
 * A file: a header page (struct sfa_cache_hdr: magic, format version, the
 * object's identity, the layout, a checksum of header and sections), then
 * the sections, page aligned so that the file maps at one address.  It is
 * trusted for nothing: another version, identity or layout, a size that
 * disagrees with the file's, a checksum that does not match, and it is
 * converted again and replaced (atomically: a temporary file in the same
 * directory, renamed over it).  The kernel checks the sections as hostile
 * anyway; the checksum is for what the kernel cannot see, a section for
 * the wrong code.  A miss is stored under the directory's lock, never
 * waited for, so that processes starting together mostly store one entry
 * and share it (see sfa_cache_lock()); the directory is bounded in size.
 *
 * An object's identity: its file's device, inode, size and modification
 * time (the same path with new content is a new entry), and its GNU
 * build-id if it has one, read from the mapped object.  The file is the
 * one mapped, by the device and inode the kernel gives for the mapping:
 * a name opened that leads elsewhere (a library replaced since it was
 * mapped, a link to the program swapped) is neither stored nor attached
 * (sfa_key_of()).  The build-id alone is not enough: a copy patched in
 * place keeps it.  Objects without a file (the vDSO) are converted every
 * time: microseconds.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "sframe-audit.h"

#define SFA_CACHE_MAGIC		"SFRMCACH"
/* Bump when the file layout or sframe-gen's output changes */
#define SFA_CACHE_VERSION	3
#define SFA_CACHE_DIST		((uint64_t)1 << 36)
#define SFA_SYS_CACHE		"/var/cache/sframe"

/* The directories, opened once (sfa_cache_open_dirs()) */
static struct {
	bool		opened;
	unsigned int	n;
	int		fd[2];		/* searched in order; written: the last */
	uid_t		uid[2];		/* their owners */
	dev_t		dev[2];		/* and what they were opened as */
	ino_t		ino[2];
} dirs;

struct sfa_cache_seg {
	uint64_t	vaddr;		/* text, less the load bias */
	uint64_t	vend;
	uint64_t	off;		/* of the section, in the payload */
	uint64_t	size;
	uint32_t	fdes;
	uint32_t	pad;
};

struct sfa_cache_hdr {
	char			magic[8];
	uint32_t		version;
	uint32_t		nsegs;
	struct sfa_key		key;
	int64_t			dist;
	uint64_t		payload_off;
	uint64_t		payload_size;
	uint64_t		file_size;
	uint64_t		checksum;
	struct sfa_cache_seg	seg[SFA_MAX_SEGS];
};

_Static_assert(sizeof(struct sfa_cache_hdr) % 8 == 0, "header of whole words");

/*
 * A checksum fast enough to run over the sections at every start-up (a few
 * MiB for libpython): four independent lanes of 64-bit words.  Each step
 * is a bijection of the lane given the word, so one changed word always
 * changes the result; it does not resist forgery, which the owner and mode
 * checks are for.
 */
static uint64_t sfa_sum(uint64_t seed, const void *p, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h[4] = { seed, seed ^ k, seed ^ (k << 1), seed ^ (k >> 1) }, w, r;
	const uint8_t *b = p;
	size_t i;
	int j;

	for (i = 0; i + 32 <= len; i += 32) {
		for (j = 0; j < 4; j++) {
			memcpy(&w, b + i + 8 * j, 8);
			h[j] = (h[j] ^ w) * k;
			h[j] ^= h[j] >> 29;
		}
	}
	for (; i < len; i++) {
		h[0] = (h[0] ^ b[i]) * k;
		h[0] ^= h[0] >> 29;
	}
	r = len;
	for (j = 0; j < 4; j++) {
		r = (r ^ h[j]) * k;
		r ^= r >> 31;
	}
	return r;
}

static uint64_t sfa_cache_sum(const struct sfa_cache_hdr *h, const void *payload)
{
	struct sfa_cache_hdr copy = *h;

	copy.checksum = 0;
	return sfa_sum(sfa_sum(0, &copy, sizeof(copy)), payload, h->payload_size);
}

/* The GNU build-id note of a loaded object, if it has one in memory */
static void sfa_build_id(const ElfW(Phdr) *phdr, unsigned int phnum, uint64_t bias,
			 struct sfa_key *k)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		uint64_t align = phdr[i].p_align == 8 ? 8 : 4, pos = 0;
		const uint8_t *n = (const uint8_t *)(uintptr_t)(bias + phdr[i].p_vaddr);
		uint64_t len = phdr[i].p_filesz;

		if (phdr[i].p_type != PT_NOTE || !sfa_mapped((uintptr_t)n, len))
			continue;
		while (len - pos >= sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			uint64_t name, desc;

			memcpy(&nh, n + pos, sizeof(nh));
			name = pos + sizeof(nh);
			desc = name + ((nh.n_namesz + align - 1) & ~(align - 1));
			if (desc > len || nh.n_descsz > len - desc)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(n + name, "GNU", 4) && nh.n_descsz &&
			    nh.n_descsz <= SFA_BUILD_ID_MAX) {
				k->build_id_len = nh.n_descsz;
				memcpy(k->build_id, n + desc, nh.n_descsz);
				return;
			}
			pos = desc + ((nh.n_descsz + align - 1) & ~(align - 1));
		}
	}
}

#ifndef PROCMAP_QUERY
/* <linux/fs.h> of 6.11 on: one mapping of /proc/PID/maps, by address */
struct procmap_query {
	uint64_t	size;
	uint64_t	query_flags;
	uint64_t	query_addr;
	uint64_t	vma_start;
	uint64_t	vma_end;
	uint64_t	vma_flags;
	uint64_t	vma_page_size;
	uint64_t	vma_offset;
	uint64_t	inode;
	uint32_t	dev_major;
	uint32_t	dev_minor;
	uint32_t	vma_name_size;
	uint32_t	build_id_size;
	uint64_t	vma_name_addr;
	uint64_t	build_id_addr;
};

#define PROCMAP_QUERY	_IOWR('f', 17, struct procmap_query)
#endif

/*
 * One line of /proc/self/maps ("start-end perms offset major:minor inode
 * path"): 1 if it holds @addr (@dev, @ino set), 0 if it is before it, -1
 * if past it (the lines go up by address: nothing holds it).
 */
static int sfa_maps_line(const char *line, uintptr_t addr, dev_t *dev, ino_t *ino)
{
	unsigned long long start, end, inode;
	unsigned int major, minor;

	if (sscanf(line, "%llx-%llx %*s %*x %x:%x %llu", &start, &end, &major, &minor,
		   &inode) != 5)
		return 0;
	if (addr < start)
		return -1;
	if (addr >= end)
		return 0;
	*dev = makedev(major, minor);
	*ino = inode;
	return 1;
}

/* Kernels before 6.11: the text of /proc/self/maps, line by line */
static bool sfa_maps_find(int fd, uintptr_t addr, dev_t *dev, ino_t *ino)
{
	char buf[4096], *p, *nl;
	bool head = true;	/* buf starts at the start of a line */
	size_t have = 0;
	ssize_t n;
	int r = 0;

	while (r == 0 && (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have += n;
		buf[have] = 0;
		for (p = buf; r == 0 && (nl = memchr(p, '\n', buf + have - p)); p = nl + 1) {
			*nl = 0;
			if (head)
				r = sfa_maps_line(p, addr, dev, ino);
			head = true;
		}
		have -= p - buf;
		memmove(buf, p, have);
		/* A line longer than buf (its path): the fields are in its head */
		if (r == 0 && have == sizeof(buf) - 1) {
			if (head)
				r = sfa_maps_line(buf, addr, dev, ino);
			head = false;
			have = 0;
		}
	}
	return r == 1;
}

/*
 * The device and inode of the file mapped at @addr, as the kernel has it:
 * what a name no longer says once someone renames or relinks it.  False
 * if nothing, or nothing from a file, is mapped there.
 */
static bool sfa_mapped_file(uintptr_t addr, dev_t *dev, ino_t *ino)
{
	struct procmap_query q = { .size = sizeof(q), .query_addr = addr };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	if (!ioctl(fd, PROCMAP_QUERY, &q)) {
		*dev = makedev(q.dev_major, q.dev_minor);
		*ino = q.inode;
		ok = true;
	} else {
		ok = errno == ENOTTY && sfa_maps_find(fd, addr, dev, ino);
	}
	close(fd);
	return ok && *ino;
}

/* "libc.so.6-<hash of the key>.sframe": readable, and one per identity */
static void sfa_cache_name(const char *name, const struct sfa_key *k, char *buf, size_t size)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	snprintf(buf, size, "%.64s-%016" PRIx64 ".sframe", *base == '.' ? "_" : base,
		 sfa_sum(SFA_CACHE_VERSION, k, sizeof(*k)));
}

/*
 * The object's file and its identity, and the name of its entry: the
 * file its name leads to if, and only if, it is the very file mapped at
 * the object's text.  A library's name is the loader's; the program's is
 * AT_EXECFN, the path its caller gave execve(), which its caller may have
 * pointed at another file since (a link swapped, to make a root process
 * store or attach one file's sections for another), and which names the
 * script, not the interpreter mapped, for #!: the program is opened as
 * /proc/self/exe instead.  Opened O_PATH and compared before anything
 * else: no device's open() runs, nothing is read.  Returns that
 * descriptor, or -1: no file (the vDSO, a file since deleted) or, with
 * *@moved, a name that leads to another file; then nothing is cached or
 * attached for the object.
 */
int sfa_key_of(const struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
	       struct sfa_key *k, char *fname, size_t fname_size, bool *moved)
{
	const char *path = o->exe ? "/proc/self/exe" : o->name, *base = o->name;
	const ElfW(Phdr) *text = NULL;
	char exe[4096];
	struct stat st;
	unsigned int i;
	ssize_t n;
	dev_t dev;
	ino_t ino;
	int fd;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < phnum && !text; i++)
		if (phdr[i].p_type == PT_LOAD && (phdr[i].p_flags & PF_X) && phdr[i].p_memsz)
			text = &phdr[i];
	if (!*path || !text || !sfa_mapped_file(o->bias + text->p_vaddr, &dev, &ino))
		return -1;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	if (st.st_dev != dev || st.st_ino != ino || !S_ISREG(st.st_mode) || !st.st_nlink) {
		*moved = st.st_dev != dev || st.st_ino != ino;
		close(fd);
		return -1;
	}
	k->version = SFA_CACHE_VERSION;
	k->arch = SFA_ARCH;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->size = st.st_size;
	k->mtime_sec = st.st_mtim.tv_sec;
	k->mtime_nsec = st.st_mtim.tv_nsec;
	sfa_build_id(phdr, phnum, o->bias, k);
	/* Only a name for people to read: the key is in the hash and header */
	if (o->exe) {
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = 0;
			base = exe;
		}
	}
	sfa_cache_name(base, k, fname, fname_size);
	return fd;
}

/*
 * A cache directory we may trust, @fd (closed if not): owned by us or by
 * root (the system cache), writable by no one else.  @made: just made,
 * with @mode (0700 per user, 0755 for the system's).  Added to the list
 * if it is.
 */
static void sfa_cache_use(int fd, const char *path, mode_t mode, bool made)
{
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) || (st.st_mode & 022) ||
	    (st.st_uid != geteuid() && st.st_uid != 0)) {
		if (cfg.verbose)
			say("sframe-audit cache: %s: not trusted (its owner or mode)", path);
		close(fd);
		return;
	}
	/* The mode whatever the umask: the system's is for everyone to read */
	if (made && st.st_uid == geteuid())
		fchmod(fd, mode);
	dirs.fd[dirs.n] = fd;
	dirs.dev[dirs.n] = st.st_dev;
	dirs.ino[dirs.n] = st.st_ino;
	dirs.uid[dirs.n++] = st.st_uid;
}

/* A directory by its path, not a symbolic link; made if missing and @create */
static void sfa_cache_dir(const char *path, mode_t mode, bool create)
{
	bool made = create && mkdir(path, mode) == 0;

	sfa_cache_use(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), path, mode,
		      made);
}

/*
 * The system cache, walked to from / a directory at a time: each root's,
 * writable by no one else, none a link.  Whoever could rename or replace
 * one of them could choose what root's processes, set-user-ID ones
 * included, map, register and attach.  Made if missing and @create (root).
 */
static void sfa_sys_cache_dir(bool create)
{
	static const char *const part[] = { "var", "cache", "sframe" };
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next;
	bool made = false;
	struct stat st;
	unsigned int i;

	for (i = 0; fd >= 0 && i < sizeof(part) / sizeof(part[0]); i++) {
		bool last = i == sizeof(part) / sizeof(part[0]) - 1;

		if (fstat(fd, &st) || st.st_uid || (st.st_mode & 022)) {
			close(fd);
			return;
		}
		if (last && create)
			made = !mkdirat(fd, part[i], 0755);
		next = openat(fd, part[i], (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		close(fd);
		fd = next;
	}
	if (fd >= 0 && (fstat(fd, &st) || st.st_uid)) {
		close(fd);
		return;
	}
	sfa_cache_use(fd, SFA_SYS_CACHE, 0755, made);
}

/*
 * The directories, opened once: the system's (root writes it, everyone
 * reads it), then, for anyone but root, the user's; or the one
 * SFRAME_AUDIT_CACHE names.  In secure-execution mode the system's alone,
 * only read.  Entries are written to the last one.
 */
static void sfa_cache_open_dirs(void)
{
	const char *xdg = secure_getenv("XDG_CACHE_HOME");
	const char *home = secure_getenv("HOME");
	char path[4096];

	dirs.opened = true;
	if (cfg.secure) {
		sfa_sys_cache_dir(false);
		return;
	}
	if (cfg.cache_env) {
		sfa_cache_dir(cfg.cache_env, 0700, true);
		return;
	}
	if (geteuid() == 0) {
		sfa_sys_cache_dir(true);
		return;
	}
	sfa_sys_cache_dir(false);
	if (xdg && *xdg == '/')
		snprintf(path, sizeof(path), "%s", xdg);
	else if (home && *home == '/')
		snprintf(path, sizeof(path), "%s/.cache", home);
	else
		return;
	mkdir(path, 0700);
	strncat(path, "/sframe", sizeof(path) - strlen(path) - 1);
	sfa_cache_dir(path, 0700, true);
}

/* Where the sections start in a file: after the header, page aligned */
uint64_t sfa_payload_off(void)
{
	uint64_t page = sysconf(_SC_PAGESIZE);

	return (sizeof(struct sfa_cache_hdr) + page - 1) & ~(page - 1);
}

/* How far from the load bias a file whose sections start @off into it goes */
int64_t sfa_cache_dist(uint64_t bias, uint64_t off)
{
	if (bias >= SFA_CACHE_DIST + off)
		return -(int64_t)SFA_CACHE_DIST;
	return SFA_CACHE_DIST;
}

/*
 * Is @h a header for @k, consistent with a file of @st and with the
 * object's executable segments?  On success, @c holds the segments.
 */
static bool sfa_cache_hdr_ok(const struct sfa_cache_hdr *h, const struct stat *st,
			     const struct sfa_key *k, const ElfW(Phdr) *phdr,
			     unsigned int phnum, uint64_t bias, struct sfa_conv *c)
{
	unsigned int i, j, n = 0;

	if (memcmp(h->magic, SFA_CACHE_MAGIC, sizeof(h->magic)) ||
	    h->version != SFA_CACHE_VERSION || memcmp(&h->key, k, sizeof(*k)) ||
	    h->dist != sfa_cache_dist(bias, h->payload_off) ||
	    h->file_size != (uint64_t)st->st_size ||
	    h->payload_off != sfa_payload_off() ||
	    h->payload_size > h->file_size ||
	    h->payload_off != h->file_size - h->payload_size ||
	    !h->nsegs || h->nsegs > SFA_MAX_SEGS)
		return false;
	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_LOAD && (phdr[i].p_flags & PF_X) && phdr[i].p_memsz)
			n++;
	for (i = 0; i < h->nsegs; i++) {
		const struct sfa_cache_seg *s = &h->seg[i];

		if (!s->size || s->off % SFA_ALIGN || s->off > h->payload_size ||
		    s->size > h->payload_size - s->off)
			return false;
		/* Each one the object's own executable segment, as converted */
		for (j = 0; j < phnum; j++)
			if (phdr[j].p_type == PT_LOAD && (phdr[j].p_flags & PF_X) &&
			    phdr[j].p_vaddr == s->vaddr &&
			    phdr[j].p_vaddr + phdr[j].p_memsz == s->vend)
				break;
		if (j == phnum || h->nsegs > n)
			return false;
		c->size[i] = s->size;
		c->off[i] = s->off;
		c->text_start[i] = bias + s->vaddr;
		c->text_end[i] = bias + s->vend;
		c->fdes[i] = s->fdes;
	}
	c->n = h->nsegs;
	return true;
}

/*
 * Maps @fname of @dirfd at the address its sections were made for, if it
 * is @k's and whole.  On a hit, @c and *@mem, *@len describe it.
 */
static enum sfa_cache_res sfa_cache_map(int dirfd, uid_t dir_uid, const char *fname,
					const struct sfa_key *k, const ElfW(Phdr) *phdr,
					unsigned int phnum, uint64_t bias, struct sfa_conv *c,
					void **mem, size_t *len)
{
	uint64_t payload_off = sfa_payload_off(), want;
	struct sfa_cache_hdr h;
	struct stat st;
	size_t maplen;
	uint8_t *m;
	int fd;

	/* O_NONBLOCK: a FIFO put there does not hang the program */
	fd = openat(dirfd, fname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? SFA_CACHE_UNTRUSTED : SFA_CACHE_MISS;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != dir_uid ||
	    (st.st_mode & 022)) {
		close(fd);
		return SFA_CACHE_UNTRUSTED;
	}
	/*
	 * Mapped before its header is read, one system call less per object:
	 * where the sections start is no choice of the file's (page size),
	 * which sfa_cache_hdr_ok() checks with the rest.
	 */
	if ((uint64_t)st.st_size < payload_off) {
		close(fd);
		return SFA_CACHE_BAD;
	}
	maplen = st.st_size;
	want = bias + sfa_cache_dist(bias, payload_off) - payload_off;
	m = mmap((void *)(uintptr_t)want, maplen, PROT_READ,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return SFA_CACHE_NO_ROOM;
	}
	close(fd);
	if ((uintptr_t)m != want) {	/* a kernel before 4.17 takes it as a hint */
		munmap(m, maplen);
		return SFA_CACHE_NO_ROOM;
	}
	/*
	 * Only the entry's owner, or root, could still cut the file short
	 * under the mapping, and a read past its end would be SIGBUS: the
	 * program's own user doing so to a file of the cache.
	 */
	memcpy(&h, m, sizeof(h));
	if (!sfa_cache_hdr_ok(&h, &st, k, phdr, phnum, bias, c) ||
	    h.checksum != sfa_cache_sum(&h, m + h.payload_off)) {
		munmap(m, maplen);
		/* Another identity's (a hash collision) is replaced as well */
		return memcmp(&h.key, k, sizeof(*k)) ? SFA_CACHE_MISS : SFA_CACHE_BAD;
	}
	*mem = m;
	*len = maplen;
	c->base = m + h.payload_off;
	return SFA_CACHE_HIT;
}

/*
 * Writes @c's sections as @dirfd's @fname, made for SFA_CACHE_DIST from
 * @bias.  Returns 0 or a negative errno (a read-only directory: -EACCES;
 * a file larger than RLIMIT_FSIZE allows: -EFBIG, before anything is
 * written).
 */
static int sfa_cache_store(int dirfd, const char *fname, const struct sfa_key *k,
			   uint64_t bias, const struct sfa_conv *c)
{
	struct sfa_cache_hdr h = { .nsegs = c->n };
	mode_t mode = geteuid() == 0 && !cfg.cache_env ? 0644 : 0600;
	static unsigned int seq;
	char tmp[64];
	uint8_t *buf;
	unsigned int i;
	int fd, err = 0;

	memcpy(h.magic, SFA_CACHE_MAGIC, sizeof(h.magic));
	h.version = SFA_CACHE_VERSION;
	h.key = *k;
	h.payload_off = sfa_payload_off();
	h.dist = sfa_cache_dist(bias, h.payload_off);
	h.payload_size = c->total;
	h.file_size = h.payload_off + h.payload_size;
	for (i = 0; i < c->n; i++) {
		h.seg[i].vaddr = c->text_start[i] - bias;
		h.seg[i].vend = c->text_end[i] - bias;
		h.seg[i].off = c->off[i];
		h.seg[i].size = c->size[i];
		h.seg[i].fdes = c->fdes[i];
	}
	if (!sfa_fsize_ok(h.file_size))
		return -EFBIG;
	buf = calloc(1, c->total);
	if (!buf)
		return -ENOMEM;
	sfa_emit(c, buf, bias + h.dist);
	h.checksum = sfa_cache_sum(&h, buf);

	snprintf(tmp, sizeof(tmp), ".tmp-%d-%u", (int)getpid(), seq++);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	/* The system cache is for everyone; only there the umask has no say */
	if (fchmod(fd, mode) ||
	    pwrite(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    pwrite(fd, buf, c->total, h.payload_off) != (ssize_t)c->total)
		err = errno ? -errno : -EIO;
	/*
	 * No fsync(): a file cut short by a crash fails its size or checksum
	 * and is made again, which costs less than a sync in every process.
	 */
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, fname))
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	free(buf);
	return err;
}

static const char *const sfa_cache_str[] = {
	[SFA_CACHE_HIT] = "hit",
	[SFA_CACHE_MISS] = "miss",
	[SFA_CACHE_BAD] = "bad entry",
	[SFA_CACHE_UNTRUSTED] = "entry not trusted",
	[SFA_CACHE_NO_ROOM] = "address taken",
};

/*
 * The object's sections from the cache, mapped from their file: true with
 * @c, *@mem and *@len set if they are there.  @how says what happened.
 * @lk->k and @lk->fname are the object's (sfa_key_of()).
 */
bool sfa_cache_get(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
		   struct sfa_lookup *lk, struct sfa_conv *c, void **mem, size_t *len,
		   char *how, size_t how_size)
{
	enum sfa_cache_res r;
	unsigned int i;

	lk->res = SFA_CACHE_MISS;
	lk->fd = -1;
	if (!dirs.opened)
		sfa_cache_open_dirs();
	snprintf(how, how_size, ", cache off");
	for (i = 0; i < dirs.n; i++) {
		/* Taken by the program's own since: this one is off */
		if (!sfa_dir_still(dirs.fd[i], dirs.dev[i], dirs.ino[i])) {
			lk->fd = -1;
			continue;
		}
		lk->fd = dirs.fd[i];
		lk->uid = dirs.uid[i];
		r = sfa_cache_map(lk->fd, lk->uid, lk->fname, &lk->k, phdr, phnum, o->bias, c,
				  mem, len);
		if (r == SFA_CACHE_HIT) {
			snprintf(how, how_size, ", cache hit");
			return true;
		}
		if (r > lk->res)
			lk->res = r;
		snprintf(how, how_size, ", cache %s", sfa_cache_str[lk->res]);
	}
	memset(c, 0, sizeof(*c));
	return false;
}

/*
 * A miss is stored under its directory's lock: a file in it, "lock",
 * its owner's, mode 0600, not the directory itself, which everyone may
 * open and hold a lock on (the system cache is 0755).  With it, of the
 * processes that converted an object together one stores it and the next
 * maps that entry (sfa_cache_put() looks again), and one at a time looks
 * for stale temporaries and counts the directory.  Never waited for: a
 * process start does not queue behind another's store, it keeps what it
 * converted in memory.  Named without a dot, so that emptying the
 * directory by a shell glob takes it too.
 *
 * Returns the descriptor holding the lock, or -1 and @why.
 */
#define SFA_LOCK_NAME		"lock"

static int sfa_cache_lock(int dirfd, const char **why)
{
	struct stat st;
	int fd = -1, i;

	/* Made by its owner alone (the directory is writable by no one else) */
	for (i = 0; fd < 0 && i < 2; i++) {
		fd = openat(dirfd, SFA_LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			break;
		fd = openat(dirfd, SFA_LOCK_NAME, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_NONBLOCK | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*why = strerrorname_np(errno);
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_nlink != 1) {
		*why = "lock not trusted";
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		*why = errno == EWOULDBLOCK ? "lock busy" : strerrorname_np(errno);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Stores are made under the lock and take milliseconds: a temporary older
 * than this, seen by the lock's holder, was left by a process that died
 * storing it (killed, out of disk, SIGXFSZ before the limit was checked).
 */
#define SFA_TMP_STALE_S		120
/*
 * Nothing removes an entry (a library upgraded leaves its old version's),
 * so nothing more is stored past these.  A system's libraries need tens
 * of MiB (libpython's sections a few MiB, libc's a few hundred KiB, most
 * a few KiB): room for several upgrades' worth before an administrator
 * empties it.
 */
#define SFA_CACHE_MAX_BYTES	((uint64_t)256 << 20)
#define SFA_CACHE_MAX_ENTRIES	4096

/*
 * Under the lock, before a store of @adding bytes: stale temporaries
 * removed, the entries counted.  False if the directory is full.
 */
static bool sfa_cache_tidy(int dirfd, uint64_t adding)
{
	uint64_t bytes = adding;
	unsigned int n = 0;
	struct timespec now;
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int fd;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return false;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);

		if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (!strncmp(d->d_name, ".tmp-", 5)) {
			if (now.tv_sec - st.st_mtim.tv_sec > SFA_TMP_STALE_S)
				unlinkat(fd, d->d_name, 0);
		} else if (len > 7 && !strcmp(d->d_name + len - 7, ".sframe")) {
			n++;
			bytes += st.st_size;
		}
	}
	closedir(dir);
	return n < SFA_CACHE_MAX_ENTRIES && bytes <= SFA_CACHE_MAX_BYTES;
}

/*
 * After a miss, the sections converted into @c are stored and mapped from
 * their new file: true with @c->base, *@mem and *@len set if so, or if
 * another process stored them meanwhile (then @c is that entry's).
 */
bool sfa_cache_put(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
		   struct sfa_lookup *lk, struct sfa_conv *c, void **mem, size_t *len,
		   char *how, size_t how_size)
{
	struct sfa_conv hit = { .n = 0 };
	const char *why = NULL;
	enum sfa_cache_res r;
	unsigned int i;
	int lock, err;

	if (lk->fd < 0 || lk->res == SFA_CACHE_NO_ROOM)
		return false;
	/* The directory's owner alone writes there: the system's is root's */
	if (lk->uid != geteuid()) {
		why = "EACCES";
		goto fail;
	}
	lock = sfa_cache_lock(lk->fd, &why);
	if (lock < 0)
		goto fail;
	if (sfa_cache_map(lk->fd, lk->uid, lk->fname, &lk->k, phdr, phnum, o->bias, &hit, mem,
			  len) == SFA_CACHE_HIT) {
		close(lock);
		for (i = 0; i < c->n; i++)
			sframe_gen_free(c->gen[i]);
		*c = hit;
		snprintf(how, how_size, ", cache hit");
		return true;
	}
	if (!sfa_cache_tidy(lk->fd, sfa_payload_off() + c->total)) {
		close(lock);
		why = "cache full";
		goto fail;
	}
	err = sfa_cache_store(lk->fd, lk->fname, &lk->k, o->bias, c);
	if (err) {
		close(lock);
		why = strerrorname_np(-err);
		goto fail;
	}
	r = sfa_cache_map(lk->fd, lk->uid, lk->fname, &lk->k, phdr, phnum, o->bias, c, mem,
			  len);
	close(lock);
	snprintf(how, how_size, ", cache %s, stored%s", sfa_cache_str[lk->res],
		 r == SFA_CACHE_HIT ? "" : ", not mapped");
	return r == SFA_CACHE_HIT;
fail:
	snprintf(how, how_size, ", cache %s, not stored (%s)", sfa_cache_str[lk->res],
		 why ? why : "?");
	return false;
}
