// SPDX-License-Identifier: GPL-2.0-only
/*
 * libsframe-audit.so: SFrame made from .eh_frame, registered with the
 * kernel (PR_SFRAME_REGISTER) as each object is loaded, so that the
 * kernel's SFrame unwinder walks through distribution libraries built
 * without .sframe (glibc, libstdc++, libpython, ...).
 *
 *   LD_AUDIT=libsframe-audit.so PROGRAM     every object, dlmopen too
 *   LD_PRELOAD=libsframe-audit.so PROGRAM   what is loaded at start, and
 *                                           dlopen/dlclose of the program
 *
 * For each object without PT_GNU_SFRAME: PT_GNU_EH_FRAME -> .eh_frame_hdr
 * -> .eh_frame, converted by sframe-gen, one section and one registration
 * per executable PT_LOAD.  An object with PT_GNU_SFRAME the kernel
 * registers by itself, but its .sframe may leave code out (libgcc's
 * helpers, the C runtime's start files, assembly gas made no SFrame for):
 * its own section and .eh_frame are merged as `sframe-gen --fill` merges
 * them, and where that filled a gap the merged section is registered with
 * SFRAME_REGISTER_REPLACE, in the place of the kernel's registration of
 * that segment.  A segment without gaps keeps the kernel's; so does every
 * segment when the kernel refuses the flag (older kernels: EINVAL).
 * Each object is converted once: its sections are stored in a cache file
 * and mapped read-only from it by every process that loads the object
 * (see "The cache of converted sections" below); where that cannot be,
 * converted into an anonymous mapping made read-only.  Unloading
 * unregisters it and unmaps the section.
 *
 * The cache: /var/cache/sframe for root (entries readable by all), else
 * $XDG_CACHE_HOME/sframe (~/.cache/sframe), made 0700, looked up after
 * the system's.  Directories and entries are used only if they are ours
 * (or root's), no symbolic link, and writable by no one else.
 *
 * Attaching (opt-in: the file /etc/sframe/attach exists, or
 * SFRAME_AUDIT_ATTACH=1): a root process, while something may walk stacks,
 * attaches each entry of the system cache it uses to its object
 * (PR_SFRAME_ATTACH), so that the kernel registers it in every process
 * that maps the object from then on, from exec on, before this module
 * runs there.  In every process, root's or not, an object whose text is
 * attached (PR_SFRAME_ATTACHED) is left to the kernel: not looked up,
 * mapped or registered here.  Attachments last until reboot or
 * PR_SFRAME_DETACH; the next root process to use an entry attaches it
 * again.
 *
 * It never breaks the program: whatever fails is skipped.  Environment
 * (none of it read in secure-execution mode, see below):
 *   SFRAME_AUDIT_CACHE=DIR   the cache in DIR (and nowhere else), made 0700
 *                            if missing; =0 or =off: no cache
 *   SFRAME_AUDIT_ATTACH=1    attach root's cache entries to their objects
 *                            (see above)
 *   SFRAME_AUDIT_VERBOSE=1   one line per object on stderr: name, FDEs,
 *                            bytes, microseconds of CPU time, what the
 *                            cache did (", cache hit", ", cache miss,
 *                            stored", ", cache bad entry, stored", ...),
 *                            result
 *   SFRAME_AUDIT_DRY_RUN=1   convert, but do not register (kernels
 *                            without PR_SFRAME_REGISTER)
 *   SFRAME_AUDIT_DUMP=DIR    (tests) write each section to DIR, listed in
 *                            DIR/index; DIR must be the real user's own,
 *                            writable by no one else
 *
 * Secure-execution mode (AT_SECURE: set-user-ID, set-group-ID, file
 * capabilities; /etc/ld.so.preload loads the module there too): the
 * environment is the caller's and the privileges are not, so none of the
 * above is read, /etc/sframe/attach neither, nothing is converted,
 * written, locked, attached or said.  The one thing done is to register
 * the sections of root's system cache, read-only, where it holds an entry
 * for an object (root's own runs of a program store them).  Every object
 * is named by its mapping (device and inode), never by its name alone.
 * docs/audit-threat-model.md says what the module trusts and why.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <uapi/linux/sframe.h>

#include "sframe-ehframe.h"
#include "sframe-gen.h"

#ifndef PR_SFRAME_REGISTER
#define PR_SFRAME_REGISTER	0x53460001
#define PR_SFRAME_UNREGISTER	0x53460002
#endif
#ifndef PR_SFRAME_ATTACH
#define PR_SFRAME_ATTACH	0x53460003
#endif
#ifndef PR_SFRAME_ATTACHED
#define PR_SFRAME_ATTACHED	0x53460005
#endif

#if defined(__x86_64__)
#define SFA_ARCH	SFRAME_GEN_X86_64
#elif defined(__aarch64__)
#define SFA_ARCH	SFRAME_GEN_AARCH64
#elif defined(__s390x__)
#define SFA_ARCH	SFRAME_GEN_S390X
#else
#error "sframe-audit: no SFrame ABI for this architecture"
#endif

/* Executable segments of one object: ld.so's own layouts have one or two */
#define SFA_MAX_SEGS	8
#define SFA_ALIGN	8

#define SFA_EXPORT	__attribute__((__visibility__("default")))

/* Its presence turns attaching on for every process (sfa_attach()) */
#define SFA_ATTACH_FILE		"/etc/sframe/attach"

/**
 * struct sfa_obj - what is kept for one object
 * @next: the list of them.
 * @hnext: the next in its bucket of sfa_by_phdr.
 * @bias: its load bias; with @phdr and @name, its identity in preload mode.
 * @phdr: its program headers in memory.
 * @name: a copy of its name.
 * @mem: the anonymous mapping holding its sections.
 * @mem_len: its length.
 * @nreg: registrations made.
 * @text: the text start of each (what PR_SFRAME_UNREGISTER takes).
 * @seen: found again by the preload mode's last scan.
 * @exe: the program, named by AT_EXECFN (its file: /proc/self/exe).
 */
struct sfa_obj {
	struct sfa_obj	*next;
	struct sfa_obj	*hnext;
	uint64_t	bias;
	const void	*phdr;
	void		*mem;
	size_t		mem_len;
	unsigned int	nreg;
	uint64_t	text[SFA_MAX_SEGS];
	bool		seen;
	bool		exe;
	char		name[];		/* one allocation an object, not two */
};

static struct {
	bool		read;
	bool		secure;		/* AT_SECURE: no environment, no writes */
	bool		verbose;
	bool		dry_run;
	bool		no_kernel;	/* prctl probe said EINVAL */
	const char	*dump;
	bool		dump_opened;
	int		dump_fd;
	struct stat	dump_st;	/* what dump_fd was opened as */
	unsigned int	dumped;
	bool		cache_on;
	const char	*cache_env;	/* SFRAME_AUDIT_CACHE's directory */
	bool		cache_opened;
	unsigned int	ncache;
	int		cache_fd[2];	/* searched in order; written: the last */
	uid_t		cache_uid[2];	/* their owners */
	dev_t		cache_dev[2];	/* and what they were opened as */
	ino_t		cache_ino[2];
	bool		attach;		/* attach root's entries to their objects */
	bool		no_attach;	/* PR_SFRAME_ATTACH refused for good */
	bool		no_attached_query; /* PR_SFRAME_ATTACHED unknown */
} cfg;

static pthread_mutex_t sfa_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct sfa_obj *sfa_objs;

/*
 * The objects by their program headers, for the preload mode's scans:
 * at each dlopen() every loaded object is looked up, and a process that
 * loads hundreds of libraries one by one would otherwise pay the list's
 * length for each of them, at each.
 */
#define SFA_HASH_SIZE	256
static struct sfa_obj *sfa_by_phdr[SFA_HASH_SIZE];

static unsigned int sfa_hash(const void *phdr)
{
	uintptr_t p = (uintptr_t)phdr;

	/* Program headers lie near the start of a page-aligned mapping */
	return (p >> 12 ^ p >> 20 ^ p >> 28) & (SFA_HASH_SIZE - 1);
}

static void sfa_hash_add(struct sfa_obj *o)
{
	unsigned int h = sfa_hash(o->phdr);

	o->hnext = sfa_by_phdr[h];
	sfa_by_phdr[h] = o;
}

static void sfa_hash_del(struct sfa_obj *o)
{
	struct sfa_obj **pp;

	for (pp = &sfa_by_phdr[sfa_hash(o->phdr)]; *pp; pp = &(*pp)->hnext) {
		if (*pp == o) {
			*pp = o->hnext;
			return;
		}
	}
}
static bool sfa_preload;
/* The program's record: ld.so closes it only at exit, before all others */
static struct sfa_obj *sfa_main;
static bool sfa_exiting;

static bool env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

static void sfa_config(void)
{
	if (cfg.read)
		return;
	cfg.read = true;
	cfg.cache_on = true;
	/*
	 * A set-user-ID root program started by a user: glibc leaves these
	 * variables in its environment (it strips only its own list), and
	 * each would let the caller steer what root writes, where, or what
	 * it tells about the process.  None is read; the rest of the module
	 * keys off cfg.secure for what it does not do.
	 */
	cfg.secure = getauxval(AT_SECURE) != 0;
	if (!cfg.secure) {
		cfg.verbose = env_on("SFRAME_AUDIT_VERBOSE");
		cfg.dry_run = env_on("SFRAME_AUDIT_DRY_RUN");
		cfg.dump = getenv("SFRAME_AUDIT_DUMP");
		if (cfg.dump && !*cfg.dump)
			cfg.dump = NULL;
		cfg.attach = !access(SFA_ATTACH_FILE, F_OK) || env_on("SFRAME_AUDIT_ATTACH");
		cfg.cache_env = getenv("SFRAME_AUDIT_CACHE");
		cfg.cache_on = !cfg.cache_env || (strcmp(cfg.cache_env, "0") &&
						  strcmp(cfg.cache_env, "off"));
		if (cfg.cache_env && (!cfg.cache_on || !*cfg.cache_env))
			cfg.cache_env = NULL;
	}
	/*
	 * A kernel with the feature answers ENOENT (nothing registered at 0);
	 * one without, EINVAL: then nothing is converted at all, and the
	 * module costs the program nothing but this call.
	 */
	if (!cfg.dry_run && prctl(PR_SFRAME_UNREGISTER, 0, 0, 0, 0) &&
	    errno == EINVAL)
		cfg.no_kernel = true;
}

/* One line to stderr in one write(), so lines of threads do not mix */
__attribute__((__format__(printf, 1, 2)))
static void say(const char *fmt, ...)
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

/* CPU time: what the program pays, however busy the machine is */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Is [addr, addr + len) mapped?  mincore() fails with ENOMEM on a hole, and
 * asks one call per 4096 pages (msync() would ask one per page).
 */
static bool sfa_mapped(uintptr_t addr, size_t len)
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

struct sfa_mem {
	const ElfW(Phdr)	*phdr;
	unsigned int		phnum;
	uint64_t		bias;
};

/* A loaded object's bytes: only what a readable PT_LOAD's file part holds */
static const void *sfa_at(void *ctx, uint64_t addr, size_t len)
{
	const struct sfa_mem *m = ctx;
	const ElfW(Phdr) *load;

	if (addr < m->bias)
		return NULL;
	load = sfe_load_of(m->phdr, m->phnum, addr - m->bias, len);
	if (!load || !(load->p_flags & PF_R) || !sfa_mapped(addr, len))
		return NULL;
	return (const void *)(uintptr_t)addr;
}

/*
 * May a file grow to @size bytes?  Past RLIMIT_FSIZE, write() raises
 * SIGXFSZ, whose default kills the program: a limit its caller set
 * (ulimit -f) must cost a store, never the process.
 */
static bool sfa_fsize_ok(uint64_t size)
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
static bool sfa_dir_still(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_dev == dev &&
	       st.st_ino == ino;
}

/*
 * SFRAME_AUDIT_DUMP's directory, opened once: no link, owned by the real
 * user and writable by no one else, or nothing is dumped.  Whoever else
 * could write in it could make this process write where they like (a
 * link named index), as its user.
 */
static int sfa_dump_dir(void)
{
	struct stat st;
	int fd;

	if (cfg.dump_opened) {
		if (cfg.dump_fd >= 0 &&
		    !sfa_dir_still(cfg.dump_fd, cfg.dump_st.st_dev, cfg.dump_st.st_ino))
			cfg.dump_fd = -1;	/* forgotten, not closed: not ours */
		return cfg.dump_fd;
	}
	cfg.dump_opened = true;
	cfg.dump_fd = -1;
	fd = open(cfg.dump, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || st.st_uid != getuid() || (st.st_mode & 022))) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		cfg.dump_st = st;
	if (fd < 0 && cfg.verbose)
		say("sframe-audit dump: %s: not used (not a directory of the user's own)",
		    cfg.dump);
	cfg.dump_fd = fd;
	return fd;
}

static void sfa_dump(const char *name, uint64_t bias, uint64_t text_start,
		     uint64_t text_end, const void *sec, size_t size, unsigned int fdes)
{
	char fname[64], line[4352];
	int dir = sfa_dump_dir(), fd, n;
	struct stat st;

	if (dir < 0 || !sfa_fsize_ok(size))
		return;
	/*
	 * A new name, not an old one overwritten: a program that execs keeps
	 * its pid, and the next one's count starts at 0 again.
	 */
	do {
		snprintf(fname, sizeof(fname), "%d-%u.sframe", (int)getpid(), cfg.dumped++);
		fd = openat(dir, fname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
	} while (fd < 0 && errno == EEXIST && cfg.dumped < 100000);
	if (fd < 0)
		return;
	n = write(fd, sec, size) == (ssize_t)size;
	close(fd);
	if (!n)
		return;
	n = snprintf(line, sizeof(line), "%s/%s %#" PRIx64 " %#" PRIx64 " %#" PRIx64
		     " %#" PRIxPTR " %zu %u %s\n", cfg.dump, fname, bias, text_start, text_end,
		     (uintptr_t)sec, size, fdes, name);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	/* Appended to by every process of a run: only the user's own file */
	fd = openat(dir, "index", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    st.st_nlink == 1 && sfa_fsize_ok((uint64_t)st.st_size + n) && write(fd, line, n) < 0)
		n = 0;
	close(fd);
}

static void sfa_release(struct sfa_obj *o)
{
	unsigned int i;

	for (i = 0; i < o->nreg; i++)
		prctl(PR_SFRAME_UNREGISTER, (unsigned long)o->text[i], 0, 0, 0);
	if (o->mem)
		munmap(o->mem, o->mem_len);
	free(o);
}

/*
 * The sections of @n executable segments: converted (@gen), or found in the
 * cache at @base (@gen NULL); laid out @off[i] bytes into one block.
 */
struct sfa_conv {
	struct sframe_gen	*gen[SFA_MAX_SEGS];
	size_t			size[SFA_MAX_SEGS];
	size_t			off[SFA_MAX_SEGS];
	uint64_t		text_start[SFA_MAX_SEGS];
	uint64_t		text_end[SFA_MAX_SEGS];
	unsigned int		fdes[SFA_MAX_SEGS];
	unsigned int		n;
	size_t			total;
	uint8_t			*base;		/* mapped from the cache */
	char			err[160];
};

/*
 * @own: the object's own SFrame section as mapped (NULL if none), whose
 * FDEs the conversion keeps; a segment where it fills nothing is left out.
 */
static int sfa_convert(const ElfW(Phdr) *phdr, unsigned int phnum, uint64_t bias,
		       const struct sfe_eh_frame *eh, const ElfW(Phdr) *own,
		       struct sfa_conv *c)
{
	struct sframe_gen_input in = {
		.arch = SFA_ARCH,
		.eh_frame = eh->bytes,
		.eh_frame_size = eh->size,
		.eh_frame_addr = eh->addr,
		.ptr_size = sizeof(void *),
		.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
	};
	struct sframe_gen_stats st;
	unsigned int i;

	if (own) {
		/* Mapped: sfa_load() checked; at its run-time address, as the kernel reads it */
		in.sframe_addr = bias + own->p_vaddr;
		in.sframe = (const void *)(uintptr_t)in.sframe_addr;
		in.sframe_size = own->p_filesz;
	}

	for (i = 0; i < phnum; i++) {
		if (phdr[i].p_type != PT_LOAD || !(phdr[i].p_flags & PF_X) ||
		    !phdr[i].p_memsz)
			continue;
		if (c->n == SFA_MAX_SEGS) {
			snprintf(c->err, sizeof(c->err), "more than %d executable segments",
				 SFA_MAX_SEGS);
			return -1;
		}
		in.text_start = bias + phdr[i].p_vaddr;
		in.text_end = in.text_start + phdr[i].p_memsz;
		memset(&st, 0, sizeof(st));
		c->gen[c->n] = sframe_gen_new(&in, &st, c->err, sizeof(c->err));
		if (!c->gen[c->n])
			return -1;
		/* Nothing to say about this segment, or nothing the kernel lacks */
		if (!st.fdes_out || st.fdes_out == st.fdes_kept) {
			sframe_gen_free(c->gen[c->n]);
			c->gen[c->n] = NULL;
			continue;
		}
		c->size[c->n] = sframe_gen_size(c->gen[c->n]);
		c->off[c->n] = c->total;
		c->text_start[c->n] = in.text_start;
		c->text_end[c->n] = in.text_end;
		c->fdes[c->n] = st.fdes_out;
		c->total += (c->size[c->n] + SFA_ALIGN - 1) & ~(size_t)(SFA_ALIGN - 1);
		c->n++;
	}
	if (!c->n) {
		snprintf(c->err, sizeof(c->err), "%s", own ?
			 "no gaps: its own section stays" : "no FDE for executable code");
		return -1;
	}
	return 0;
}

/* Writes the converted sections into @buf, which will be at @addr */
static void sfa_emit(const struct sfa_conv *c, uint8_t *buf, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		sframe_gen_emit(c->gen[i], buf + c->off[i], addr + c->off[i]);
}

/*
 * ---- The cache of converted sections ----
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
#define SFA_CACHE_MAGIC		"SFRMCACH"
/* Bump when the file layout or sframe-gen's output changes */
#define SFA_CACHE_VERSION	3
#define SFA_CACHE_DIST		((uint64_t)1 << 36)
#define SFA_BUILD_ID_MAX	64
#define SFA_SYS_CACHE		"/var/cache/sframe"
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

/* All fields sized and padded by hand: headers are compared with memcmp() */
struct sfa_key {
	uint32_t	version;
	uint32_t	arch;
	uint32_t	build_id_len;
	uint32_t	pad;
	uint8_t		build_id[SFA_BUILD_ID_MAX];
	uint64_t	dev;
	uint64_t	ino;
	uint64_t	size;
	int64_t		mtime_sec;
	int64_t		mtime_nsec;
};

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
static int sfa_key_of(const struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
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
	cfg.cache_fd[cfg.ncache] = fd;
	cfg.cache_dev[cfg.ncache] = st.st_dev;
	cfg.cache_ino[cfg.ncache] = st.st_ino;
	cfg.cache_uid[cfg.ncache++] = st.st_uid;
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

	cfg.cache_opened = true;
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
static uint64_t sfa_payload_off(void)
{
	uint64_t page = sysconf(_SC_PAGESIZE);

	return (sizeof(struct sfa_cache_hdr) + page - 1) & ~(page - 1);
}

/* How far from the load bias a file whose sections start @off into it goes */
static int64_t sfa_cache_dist(uint64_t bias, uint64_t off)
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

enum sfa_cache_res {
	SFA_CACHE_HIT,
	SFA_CACHE_MISS,		/* no entry, or another identity's */
	SFA_CACHE_BAD,		/* an entry that fails its checks */
	SFA_CACHE_UNTRUSTED,	/* a link, someone else's, writable by others */
	SFA_CACHE_NO_ROOM,	/* its address is taken */
};

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

/* What a lookup found, for the store that follows a miss */
struct sfa_lookup {
	struct sfa_key		k;
	int			obj;	/* the object's file (O_PATH), or -1 */
	char			fname[128];
	enum sfa_cache_res	res;
	int			fd;	/* the directory to store in, or -1 */
	uid_t			uid;
};

/*
 * The object's sections from the cache, mapped from their file: true with
 * @c, *@mem and *@len set if they are there.  @how says what happened.
 * @lk->k and @lk->fname are the object's (sfa_key_of()).
 */
static bool sfa_cache_get(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
			  struct sfa_lookup *lk, struct sfa_conv *c, void **mem, size_t *len,
			  char *how, size_t how_size)
{
	enum sfa_cache_res r;
	unsigned int i;

	lk->res = SFA_CACHE_MISS;
	lk->fd = -1;
	if (!cfg.cache_opened)
		sfa_cache_open_dirs();
	snprintf(how, how_size, ", cache off");
	for (i = 0; i < cfg.ncache; i++) {
		/* Taken by the program's own since: this one is off */
		if (!sfa_dir_still(cfg.cache_fd[i], cfg.cache_dev[i], cfg.cache_ino[i])) {
			lk->fd = -1;
			continue;
		}
		lk->fd = cfg.cache_fd[i];
		lk->uid = cfg.cache_uid[i];
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
static bool sfa_cache_put(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
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

/* The kernel registers the section of these itself */
static const ElfW(Phdr) *sfa_own_sframe(const ElfW(Phdr) *phdr, unsigned int phnum)
{
	unsigned int i;

	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_GNU_SFRAME)
			return &phdr[i];
	return NULL;
}

/*
 * Root's cache entries are root's files, readable by all: attached to
 * their object (PR_SFRAME_ATTACH), they are registered by the kernel in
 * every process that maps that version of it from then on, from its
 * first instruction, this module or not.  Each entry is attached where it
 * is mapped, made for that distance from the load bias, as the kernel
 * maps it; an object already attached answers EEXIST.  The object's file
 * is the one its mapping is (sfa_key_of()'s descriptor, reopened to be
 * read: no name again), and still the version the entry was made from.
 */
static void sfa_attach(const struct sfa_obj *o, const struct sfa_lookup *lk,
		       const struct sfa_conv *c, uint64_t payload_off, int64_t dist)
{
	struct sframe_attachment att = { .size = sizeof(att) };
	char path[64];
	struct stat st;
	unsigned int i;
	int elf, sec;

	if (!cfg.attach || cfg.no_attach || cfg.secure || geteuid() != 0 || lk->uid != 0 ||
	    lk->obj < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", lk->obj);
	elf = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	sec = openat(lk->fd, lk->fname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (elf < 0 || sec < 0 || fstat(elf, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_dev != lk->k.dev ||
	    (uint64_t)st.st_ino != lk->k.ino || (uint64_t)st.st_size != lk->k.size ||
	    st.st_mtim.tv_sec != lk->k.mtime_sec || st.st_mtim.tv_nsec != lk->k.mtime_nsec)
		goto out;
	att.elf_fd = elf;
	att.sframe_fd = sec;
	for (i = 0; i < c->n; i++) {
		att.sframe_off = payload_off + c->off[i];
		att.sframe_size = c->size[i];
		att.sframe_vaddr = (uint64_t)dist + c->off[i];
		att.text_vaddr = c->text_start[i] - o->bias;
		att.text_size = c->text_end[i] - c->text_start[i];
		if (!prctl(PR_SFRAME_ATTACH, &att, 0, 0, 0) || errno == EEXIST)
			continue;
		/*
		 * A kernel without it (EINVAL), a root without CAP_SYS_ADMIN
		 * (EPERM), the limit (ENOSPC): not tried again in this process.
		 */
		cfg.no_attach = true;
		break;
	}
out:
	if (elf >= 0)
		close(elf);
	if (sec >= 0)
		close(sec);
}

/* Are these the program headers of the vDSO, which no file backs? */
static bool sfa_is_vdso(const ElfW(Phdr) *phdr)
{
	uintptr_t eh = getauxval(AT_SYSINFO_EHDR);

	return eh && (uintptr_t)phdr == eh + ((const ElfW(Ehdr) *)eh)->e_phoff;
}

/*
 * Is every executable segment of the object covered by an attachment?
 * The kernel registers those by itself whenever the process's stacks may
 * be walked (PR_SFRAME_ATTACHED), so that looking the object up in the
 * cache, mapping its entry and registering it would be work and memory
 * spent for nothing, in every process, whether anything profiles it or
 * not.  An object with SFrame of its own has no attachment.
 */
static bool sfa_attached(const struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum)
{
	unsigned int i, segs = 0;
	int r;

	if (cfg.no_attached_query || cfg.dry_run)
		return false;
	for (i = 0; i < phnum; i++) {
		if (phdr[i].p_type != PT_LOAD || !(phdr[i].p_flags & PF_X) || !phdr[i].p_memsz)
			continue;
		r = prctl(PR_SFRAME_ATTACHED, (unsigned long)(o->bias + phdr[i].p_vaddr), 0, 0, 0);
		if (r < 0 && errno == EINVAL)
			cfg.no_attached_query = true;	/* a kernel without it */
		if (r != 1)
			return false;
		segs++;
	}
	return segs;
}

/*
 * Converts and registers one object's sections into @o.  Returns what to
 * say about it; @o->mem stays NULL when nothing is kept.
 */
static const char *sfa_load(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
			    unsigned int *fdes, size_t *bytes, char *how, size_t how_size,
			    char *why, size_t why_size)
{
	struct sfa_mem m = { .phdr = phdr, .phnum = phnum, .bias = o->bias };
	struct sfa_conv c = { .n = 0 };
	const char *result = "registered";
	uint8_t *base = NULL;
	struct sfe_eh_frame eh;
	enum sfe_result res;
	unsigned int i;
	size_t len = 0;
	void *mem;
	struct sfa_lookup lk = { .fd = -1, .obj = -1, .res = SFA_CACHE_MISS };
	const ElfW(Phdr) *own = sfa_own_sframe(phdr, phnum);
	bool stored, moved = false, vdso = sfa_is_vdso(phdr);
	int err = 0;

	if (cfg.no_kernel)
		return "skipped: kernel without PR_SFRAME_REGISTER";
	if (!own && sfa_attached(o, phdr, phnum))
		return "attached: left to the kernel";
	/*
	 * A hit needs no .eh_frame: its entry was made from this very file.
	 * Looking for it first saves what finding .eh_frame costs.  An object
	 * with its own section has an entry only if .eh_frame filled a gap in
	 * it: the key covers the file's bytes, its .sframe too, so the entry
	 * holds what converting again would give (one without gaps converts
	 * again each time, to find that out: it stores nothing).
	 */
	if (cfg.cache_on && !vdso)
		lk.obj = sfa_key_of(o, phdr, phnum, &lk.k, lk.fname, sizeof(lk.fname), &moved);
	if (moved)
		snprintf(how, how_size, ", not cached: its name is not the mapped file");
	/*
	 * The vDSO with SFrame of its own (the kernel built it from the same
	 * CFI, without gaps on any of the three arches): no file backs it, so
	 * its fill could be kept nowhere and would be made again, for
	 * nothing, in every process.
	 */
	if (own && vdso) {
		*how = 0;
		result = "skipped: the vDSO's own section stays";
		goto out;
	}
	if (lk.obj >= 0 && sfa_cache_get(o, phdr, phnum, &lk, &c, &mem, &len, how, how_size)) {
		base = c.base;
		goto cached;
	}
	/*
	 * A set-user-ID program takes what root's cache holds and no more:
	 * converting would run the parser with its privileges at every start,
	 * on whatever objects its caller got it to load.
	 */
	if (cfg.secure) {
		result = "skipped: not in the system cache";
		goto out;
	}
	/* What is skipped has nothing to do with the cache: not said */
	res = own ? sfe_find_eh_frame_fill(phdr, phnum, o->bias, sfa_at, &m, &eh) :
		    sfe_find_eh_frame(phdr, phnum, o->bias, sfa_at, &m, &eh);
	if (res != SFE_OK) {
		*how = 0;
		snprintf(why, why_size, "skipped: %s", sfe_result_str(res));
		result = why;
		goto out;
	}
	if (own && !sfa_at(&m, o->bias + own->p_vaddr, own->p_filesz)) {
		*how = 0;
		result = "skipped: its own section is not mapped";
		goto out;
	}
	if (sfa_convert(phdr, phnum, o->bias, &eh, own, &c)) {
		*how = 0;
		snprintf(why, why_size, "skipped: %s", c.err);
		result = why;
		goto out;
	}
	stored = sfa_cache_put(o, phdr, phnum, &lk, &c, &mem, &len, how, how_size);
	if (stored) {
		base = c.base;
		goto cached;
	}
	len = c.total;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		result = "failed: mmap";
		goto out;
	}
	base = mem;
	sfa_emit(&c, base, (uintptr_t)base);
	/* Nothing in the process has any business writing it from now on */
	mprotect(mem, len, PROT_READ);
	goto reg;

cached:
	if (!own)
		sfa_attach(o, &lk, &c, sfa_payload_off(),
			   sfa_cache_dist(o->bias, sfa_payload_off()));
reg:
	for (i = 0; i < c.n; i++) {
		struct sframe_registration reg = {
			.size = sizeof(reg),
			.sframe_start = (uintptr_t)(base + c.off[i]),
			.sframe_size = c.size[i],
			.text_start = c.text_start[i],
			.text_size = c.text_end[i] - c.text_start[i],
			/* The kernel's registration of the segment: ours replaces it */
			.flags = own ? SFRAME_REGISTER_REPLACE : 0,
		};

		*fdes += c.fdes[i];
		*bytes += c.size[i];
		if (cfg.dump)
			sfa_dump(o->name, o->bias, c.text_start[i], c.text_end[i],
				 base + c.off[i], c.size[i], c.fdes[i]);
		if (!cfg.dry_run) {
			if (prctl(PR_SFRAME_REGISTER, &reg, 0, 0, 0) == 0)
				o->text[o->nreg++] = c.text_start[i];
			else if (!err)
				err = errno;
		}
	}
	if (cfg.dry_run) {
		result = own ? "dry run, filled" : "dry run";
	} else if (err == EEXIST && !own && !o->nreg) {
		/*
		 * The kernel registered the object's attachment (PR_SFRAME_ATTACH)
		 * when it was mapped, and refuses ours over it: nothing to do.
		 */
		result = "registered by the kernel";
	} else if (err) {
		snprintf(why, why_size, "%s: %s%s", o->nreg ? "partly registered" :
			 "not registered", strerror(err), !own ? "" : err == EINVAL ?
			 " (perhaps a kernel without SFRAME_REGISTER_REPLACE): its own section stays" :
			 ": its own section stays");
		result = why;
	} else if (own) {
		result = "registered, filled, in place of its own section";
	}
	if (cfg.dry_run || o->nreg) {
		o->mem = mem;
		o->mem_len = len;
	} else {
		munmap(mem, len);
	}
out:
	if (lk.obj >= 0)
		close(lk.obj);
	for (i = 0; i < c.n; i++)
		sframe_gen_free(c.gen[i]);
	return result;
}

/*
 * One object loaded: its record, kept even when it has no section, so
 * that a preload scan does not try it again.  NULL only when out of
 * memory.  Caller holds sfa_lock.
 */
static struct sfa_obj *sfa_add(const char *name, bool exe, uint64_t bias,
			       const ElfW(Phdr) *phdr, unsigned int phnum)
{
	/* Two system calls an object: only for whoever reads the time */
	uint64_t t0 = cfg.verbose ? now_ns() : 0;
	const char *result;
	struct sfa_obj *o;
	unsigned int fdes = 0;
	size_t bytes = 0, name_len;
	char why[200], how[80] = "";

	if (!*name)
		name = "(main)";
	name_len = strlen(name);
	o = calloc(1, sizeof(*o) + name_len + 1);
	if (!o) {
		result = "failed: out of memory";
	} else {
		memcpy(o->name, name, name_len);
		o->bias = bias;
		o->phdr = phdr;
		o->exe = exe;
		result = sfa_load(o, phdr, phnum, &fdes, &bytes, how, sizeof(how),
				  why, sizeof(why));
		o->next = sfa_objs;
		sfa_objs = o;
		sfa_hash_add(o);
	}
	if (cfg.verbose)
		say("sframe-audit: %s: %u FDEs, %zu bytes, %" PRIu64 " us%s: %s", name, fdes,
		    bytes, (now_ns() - t0) / 1000, how, result);
	return o;
}

/* Takes @o off the list, if it is there; false if it is not ours */
static bool sfa_unlink(struct sfa_obj *o)
{
	struct sfa_obj **pp;

	for (pp = &sfa_objs; *pp; pp = &(*pp)->next) {
		if (*pp == o) {
			*pp = o->next;
			sfa_hash_del(o);
			return true;
		}
	}
	return false;
}

/* ---- LD_AUDIT ---- */

/**
 * la_version() - rtld-audit(7): the interface version
 * @version: the dynamic linker's.
 *
 * Return: the version this module speaks.
 */
SFA_EXPORT unsigned int la_version(unsigned int version)
{
	sfa_config();
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/*
 * The program headers of an object the loader tells us of.  ld.so keeps
 * them (l_phdr) but not in the public struct link_map: the main program's
 * come from the auxiliary vector, any other object's from its ELF header,
 * which its first PT_LOAD maps at l_addr (glibc loads no ET_EXEC but the
 * program).
 */
static const ElfW(Phdr) *sfa_phdrs(struct link_map *map, Lmid_t lmid, unsigned int *phnum)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map->l_addr;
	uintptr_t page = sysconf(_SC_PAGESIZE), room;
	const ElfW(Phdr) *ph;
	unsigned int i, n;
	size_t len;

	/*
	 * The program's, if they say they are where they are (ld.so run as a
	 * command sets them to the program it loads, as the kernel would).
	 */
	if (lmid == LM_ID_BASE && !map->l_prev) {
		ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
		n = getauxval(AT_PHNUM);
		for (i = 0; ph && i < n; i++) {
			if (ph[i].p_type != PT_PHDR)
				continue;
			if (map->l_addr + ph[i].p_vaddr != (uintptr_t)ph)
				break;
			*phnum = n;
			return ph;
		}
		if (!eh)
			return NULL;
	}
	if (!sfa_mapped(map->l_addr, sizeof(*eh)) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_type != ET_DYN ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || !eh->e_phnum)
		return NULL;
	/*
	 * Linkers put the headers right after the ELF header, in the page
	 * just found mapped: asking again would be one more system call for
	 * each of the hundreds of objects a process may load.
	 */
	len = (size_t)eh->e_phnum * sizeof(ElfW(Phdr));
	room = page - (map->l_addr & (page - 1));
	if ((eh->e_phoff > room || len > room - eh->e_phoff) &&
	    !sfa_mapped(map->l_addr + eh->e_phoff, len))
		return NULL;
	*phnum = eh->e_phnum;
	return (const ElfW(Phdr) *)(map->l_addr + eh->e_phoff);
}

/**
 * la_objopen() - rtld-audit(7): an object was loaded
 * @map: its link map.
 * @lmid: its namespace.
 * @cookie: ours to set; it comes back to la_objclose().
 *
 * Called for the program, ld.so, the vDSO, each DT_NEEDED library and each
 * dlopen/dlmopen, after the object is mapped and before it is relocated.
 *
 * Return: 0: no symbol binding is audited, so PLT calls stay as fast.
 */
SFA_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	const ElfW(Phdr) *phdr;
	const char *name = map->l_name ? map->l_name : "";
	unsigned int phnum = 0;
	struct sfa_obj *o;
	bool exe = false;

	sfa_config();
	if (!*name && lmid == LM_ID_BASE && !map->l_prev) {
		const char *fn = (const char *)getauxval(AT_EXECFN);

		name = fn ? fn : "";
		exe = true;
	}
	phdr = sfa_phdrs(map, lmid, &phnum);
	pthread_mutex_lock(&sfa_lock);
	if (!phdr) {
		if (cfg.verbose)
			say("sframe-audit: %s: 0 FDEs, 0 bytes, 0 us: skipped: no ELF header",
			    *name ? name : "(main)");
		o = NULL;
	} else {
		o = sfa_add(name, exe, map->l_addr, phdr, phnum);
	}
	if (o)
		*cookie = (uintptr_t)o;
	if (o && lmid == LM_ID_BASE && !map->l_prev)
		sfa_main = o;
	pthread_mutex_unlock(&sfa_lock);
	return 0;
}

/**
 * la_objclose() - rtld-audit(7): an object is about to be unloaded
 * @cookie: what la_objopen() set (the link map, if it kept nothing).
 *
 * Return: 0 (ignored).
 */
SFA_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	struct sfa_obj *o = (struct sfa_obj *)*cookie;

	pthread_mutex_lock(&sfa_lock);
	/*
	 * At exit ld.so closes every object, the program first, while exit
	 * handlers in them still run and may be sampled: the sections stay,
	 * exit takes them with the process.
	 */
	if (o == sfa_main)
		sfa_exiting = true;
	/* Only a cookie found on our list is ours */
	if (!sfa_exiting && sfa_unlink(o)) {
		if (cfg.verbose && o->mem)
			say("sframe-audit: %s: unloaded", o->name);
		sfa_release(o);
	}
	pthread_mutex_unlock(&sfa_lock);
	return 0;
}

/* ---- LD_PRELOAD ---- */

/*
 * In preload mode, loads and unloads are seen by interposing dlopen() and
 * dlclose() and then comparing what dl_iterate_phdr() lists with what was
 * registered; dlpi_adds and dlpi_subs make that comparison free when
 * nothing changed.  The counters alone need something to look at them at
 * the right time, and interposition alone misses what libc dlopens itself
 * (NSS modules, gconv) or a library's dependencies, which the scan finds at
 * the next dlopen.  The price of interposing: dlopen() searches the
 * DT_RUNPATH of its caller, which is now this module, so a library that
 * dlopens a bare name through its own RUNPATH would not find it; and
 * dlmopen() namespaces are not seen.  LD_AUDIT has neither limit.
 */
static unsigned long long sfa_adds, sfa_subs;
static void *sfa_self_base;
static void sfa_init(void);

struct sfa_scan {
	bool	add;		/* second pass: register what is new */
	bool	first;
	bool	audit_ns;	/* we are an LD_AUDIT module's copy */
	const void *only;	/* add only the object that holds this */
};

static bool sfa_holds(const struct dl_phdr_info *info, const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= start && a - start < ph->p_memsz)
			return true;
	}
	return false;
}

static struct sfa_obj *sfa_find_at(uint64_t bias, const ElfW(Phdr) *phdr)
{
	struct sfa_obj *o;

	for (o = sfa_by_phdr[sfa_hash(phdr)]; o; o = o->hnext)
		if (o->bias == bias && o->phdr == phdr)
			return o;
	return NULL;
}

static struct sfa_obj *sfa_find(const struct dl_phdr_info *info)
{
	return sfa_find_at(info->dlpi_addr, info->dlpi_phdr);
}

static int sfa_scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sfa_scan *s = data;
	struct sfa_obj *o;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	bool exe = !*name;

	(void)size;
	if (s->first) {
		s->first = false;
		sfa_adds = info->dlpi_adds;
		sfa_subs = info->dlpi_subs;
		/*
		 * The base namespace lists the program first; an LD_AUDIT
		 * module's own namespace lists the module first.
		 */
		if ((void *)info->dlpi_addr == sfa_self_base) {
			s->audit_ns = true;
			return 1;
		}
	}
	/* The program itself has no name here */
	if (!*name) {
		const char *fn = (const char *)getauxval(AT_EXECFN);

		name = fn ? fn : "";
	}
	o = sfa_find(info);
	if (!s->add) {
		if (o)
			o->seen = true;
		return 0;
	}
	if (!o && (!s->only || sfa_holds(info, s->only)))
		sfa_add(name, exe, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
	return 0;
}

/* Registers the object that holds @addr (none for NULL), if it is new */
static void sfa_add_holding(struct sfa_scan *s, const void *addr)
{
	if (!addr)
		return;
	s->only = addr;
	s->first = true;
	dl_iterate_phdr(sfa_scan_one, s);
	s->only = NULL;
}

/*
 * Caller holds sfa_lock.  @unloaded: objects may have gone since the last
 * scan (the loader's count of removals moved), which costs a pass that
 * marks what is still there.
 */
static void sfa_rescan(bool init, bool unloaded)
{
	struct sfa_scan s = { .first = true };
	struct sfa_obj **pp, *o;

	if (unloaded) {
		for (o = sfa_objs; o; o = o->next)
			o->seen = false;
		dl_iterate_phdr(sfa_scan_one, &s);
		if (s.audit_ns)
			return;
	}
	if (init)
		sfa_preload = true;
	/* Unloaded ones first: a new object may reuse their addresses */
	for (pp = &sfa_objs; unloaded && (o = *pp);) {
		if (o->seen) {
			pp = &o->next;
			continue;
		}
		*pp = o->next;
		sfa_hash_del(o);
		if (cfg.verbose && o->mem)
			say("sframe-audit: %s: unloaded", o->name);
		sfa_release(o);
	}
	s.add = true;
	/*
	 * At start-up, the objects on the stack of this very work first:
	 * this module (small), the dynamic loader that called it, the C
	 * library.  A profiler's sample while the rest are converted then
	 * walks through them to the loader's entry.
	 */
	if (init) {
		sfa_add_holding(&s, (const void *)sfa_init);
		sfa_add_holding(&s, (const void *)getauxval(AT_BASE));
		sfa_add_holding(&s, (const void *)dl_iterate_phdr);
	}
	s.first = true;
	dl_iterate_phdr(sfa_scan_one, &s);
}

static int sfa_counts(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *c = data;

	(void)size;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1;
}

/*
 * What one dlopen() added, found from the end of the list: ld.so appends
 * each object it loads to its namespace's list, so when nothing was
 * unloaded since the last scan, the objects loaded since are the last
 * ones of the list @map (what dlopen() returned) is on, as many as the
 * loader's count of loads moved.  A scan of the whole list at every
 * dlopen() made loading n libraries cost n^2/2 visits (libs of make
 * bench-system, 280 objects: 0.8% of its CPU).  Run as
 * dl_iterate_phdr()'s callback for the loader's lock it holds, so that
 * no object leaves the list meanwhile; done stays false where the list
 * does not look so (another namespace's loads, an object already known,
 * headers not where sfa_phdrs() looks), and the caller scans it all.
 */
struct sfa_tail {
	struct link_map *map;
	bool done;
};

static int sfa_tail_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sfa_tail *t = data;
	struct link_map *first = t->map, *m;
	const ElfW(Phdr) *phdr;
	unsigned long long i, added;
	unsigned int phnum;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs) ||
	    info->dlpi_subs != sfa_subs || info->dlpi_adds <= sfa_adds)
		return 1;
	added = info->dlpi_adds - sfa_adds;
	while (first->l_next)
		first = first->l_next;
	for (i = 1; i < added; i++) {
		first = first->l_prev;
		if (!first)
			return 1;
	}
	/* Those added before a surprise are found known by the whole scan */
	for (m = first; m; m = m->l_next) {
		if (!m->l_prev || !m->l_name || !*m->l_name)
			return 1;
		phdr = sfa_phdrs(m, LM_ID_BASE, &phnum);
		if (!phdr || sfa_find_at(m->l_addr, phdr))
			return 1;
		sfa_add(m->l_name, false, m->l_addr, phdr, phnum);
	}
	sfa_adds = info->dlpi_adds;
	t->done = true;
	return 1;
}

/*
 * Caller holds sfa_lock.  @handle: what dlopen() just returned, or NULL
 * (dlclose()).
 */
static void sfa_rescan_if_changed(void *handle)
{
	unsigned long long c[2] = { 0, 0 };
	struct sfa_tail t = { .map = NULL };

	dl_iterate_phdr(sfa_counts, c);
	if (c[0] == sfa_adds && c[1] == sfa_subs)
		return;
	if (handle && c[1] == sfa_subs && !dlinfo(handle, RTLD_DI_LINKMAP, &t.map) && t.map) {
		dl_iterate_phdr(sfa_tail_one, &t);
		if (t.done)
			return;
	}
	sfa_rescan(false, c[1] != sfa_subs);
}

/**
 * sframe_audit_ready() - a probe point: start-up's objects are registered
 *
 * Called once, by the preload mode's constructor, when every object loaded
 * before it has had its sections registered (or was skipped).  It does
 * nothing itself: a profiler's uprobe on it (perf probe -x
 * libsframe-audit.so sframe_audit_ready, or bpftrace's
 * uprobe:...:sframe_audit_ready) tells a process's samples taken before
 * the module could help from those taken after.
 */
SFA_EXPORT __attribute__((__noinline__)) void sframe_audit_ready(void)
{
	__asm__ __volatile__("" ::: "memory");
}

__attribute__((__constructor__))
static void sfa_init(void)
{
	Dl_info dli;

	if (!dladdr((void *)sfa_init, &dli))
		return;
	sfa_self_base = dli.dli_fbase;
	sfa_config();
	pthread_mutex_lock(&sfa_lock);
	sfa_rescan(true, true);
	pthread_mutex_unlock(&sfa_lock);
	if (sfa_preload)
		sframe_audit_ready();
}

static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);

/**
 * dlopen() - the C library's, then what it loaded is registered
 * @file: as dlopen(3).
 * @flags: as dlopen(3).
 *
 * Return: as dlopen(3).
 */
SFA_EXPORT void *dlopen(const char *file, int flags)
{
	void *h;

	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (!real_dlopen)
		return NULL;
	h = real_dlopen(file, flags);
	if (h && sfa_preload) {
		pthread_mutex_lock(&sfa_lock);
		sfa_rescan_if_changed(h);
		pthread_mutex_unlock(&sfa_lock);
	}
	return h;
}

/**
 * dlclose() - the C library's, then what it unloaded is unregistered
 * @handle: as dlclose(3).
 *
 * The kernel has already dropped the text's registrations when its
 * mappings went; this unmaps the sections.
 *
 * Return: as dlclose(3).
 */
SFA_EXPORT int dlclose(void *handle)
{
	int ret;

	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real_dlclose)
		return -1;
	ret = real_dlclose(handle);
	if (sfa_preload) {
		pthread_mutex_lock(&sfa_lock);
		sfa_rescan_if_changed(NULL);
		pthread_mutex_unlock(&sfa_lock);
	}
	return ret;
}
