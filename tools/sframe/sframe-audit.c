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
 * For each object without PT_GNU_SFRAME (the kernel registers those by
 * itself): PT_GNU_EH_FRAME -> .eh_frame_hdr -> .eh_frame, converted by
 * sframe-gen with run-time addresses into an anonymous mapping made
 * read-only, one section and one registration per executable PT_LOAD.
 * Unloading unregisters it and unmaps the section.
 *
 * It never breaks the program: whatever fails is skipped.  Environment:
 *   SFRAME_AUDIT_VERBOSE=1   one line per object on stderr: name, FDEs,
 *                            bytes, microseconds of CPU time, result
 *   SFRAME_AUDIT_DRY_RUN=1   convert, but do not register (kernels
 *                            without PR_SFRAME_REGISTER)
 *   SFRAME_AUDIT_DUMP=DIR    (tests) write each section to DIR, listed in
 *                            DIR/index
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <uapi/linux/sframe.h>

#include "sframe-ehframe.h"
#include "sframe-gen.h"

#ifndef PR_SFRAME_REGISTER
#define PR_SFRAME_REGISTER	0x53460001
#define PR_SFRAME_UNREGISTER	0x53460002
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

/**
 * struct sfa_obj - what is kept for one object
 * @next: the list of them.
 * @bias: its load bias; with @phdr and @name, its identity in preload mode.
 * @phdr: its program headers in memory.
 * @name: a copy of its name.
 * @mem: the anonymous mapping holding its sections.
 * @mem_len: its length.
 * @nreg: registrations made.
 * @text: the text start of each (what PR_SFRAME_UNREGISTER takes).
 * @seen: found again by the preload mode's last scan.
 */
struct sfa_obj {
	struct sfa_obj	*next;
	uint64_t	bias;
	const void	*phdr;
	char		*name;
	void		*mem;
	size_t		mem_len;
	unsigned int	nreg;
	uint64_t	text[SFA_MAX_SEGS];
	bool		seen;
};

static struct {
	bool		read;
	bool		verbose;
	bool		dry_run;
	bool		no_kernel;	/* prctl probe said EINVAL */
	const char	*dump;
	unsigned int	dumped;
} cfg;

static pthread_mutex_t sfa_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct sfa_obj *sfa_objs;
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
	cfg.verbose = env_on("SFRAME_AUDIT_VERBOSE");
	cfg.dry_run = env_on("SFRAME_AUDIT_DRY_RUN");
	cfg.dump = getenv("SFRAME_AUDIT_DUMP");
	if (cfg.dump && !*cfg.dump)
		cfg.dump = NULL;
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

static void sfa_dump(const char *name, uint64_t bias, uint64_t text_start,
		     uint64_t text_end, const void *sec, size_t size, unsigned int fdes)
{
	char path[4096], line[4352];
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/%d-%u.sframe", cfg.dump, (int)getpid(),
		     cfg.dumped++);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = write(fd, sec, size) == (ssize_t)size;
	close(fd);
	if (!n)
		return;
	n = snprintf(line, sizeof(line), "%s %#" PRIx64 " %#" PRIx64 " %#" PRIx64
		     " %#" PRIxPTR " %zu %u %s\n", path, bias, text_start, text_end,
		     (uintptr_t)sec, size, fdes, name);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	snprintf(path, sizeof(path), "%s/index", cfg.dump);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, n) < 0)
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
	free(o->name);
	free(o);
}

/* The sections of @n executable segments, converted: laid out, written */
struct sfa_conv {
	struct sframe_gen	*gen[SFA_MAX_SEGS];
	size_t			size[SFA_MAX_SEGS];
	uint64_t		text_start[SFA_MAX_SEGS];
	uint64_t		text_end[SFA_MAX_SEGS];
	unsigned int		fdes[SFA_MAX_SEGS];
	unsigned int		n;
	size_t			total;
	char			err[160];
};

static int sfa_convert(const ElfW(Phdr) *phdr, unsigned int phnum, uint64_t bias,
		       const struct sfe_eh_frame *eh, struct sfa_conv *c)
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
		if (!st.fdes_out) {	/* nothing to say about this segment */
			sframe_gen_free(c->gen[c->n]);
			continue;
		}
		c->size[c->n] = sframe_gen_size(c->gen[c->n]);
		c->text_start[c->n] = in.text_start;
		c->text_end[c->n] = in.text_end;
		c->fdes[c->n] = st.fdes_out;
		c->total += (c->size[c->n] + SFA_ALIGN - 1) & ~(size_t)(SFA_ALIGN - 1);
		c->n++;
	}
	if (!c->n) {
		snprintf(c->err, sizeof(c->err), "no FDE for executable code");
		return -1;
	}
	return 0;
}

/*
 * Converts and registers one object's sections into @o.  Returns what to
 * say about it; @o->mem stays NULL when nothing is kept.
 */
static const char *sfa_load(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
			    unsigned int *fdes, size_t *bytes, char *why, size_t why_size)
{
	struct sfa_mem m = { .phdr = phdr, .phnum = phnum, .bias = o->bias };
	struct sfa_conv c = { .n = 0 };
	const char *result = "registered";
	struct sfe_eh_frame eh;
	enum sfe_result res;
	unsigned int i;
	uint8_t *p;
	void *mem;
	int err = 0;

	if (cfg.no_kernel)
		return "skipped: kernel without PR_SFRAME_REGISTER";
	res = sfe_find_eh_frame(phdr, phnum, o->bias, sfa_at, &m, &eh);
	if (res != SFE_OK) {
		snprintf(why, why_size, "skipped: %s", sfe_result_str(res));
		return why;
	}
	if (sfa_convert(phdr, phnum, o->bias, &eh, &c)) {
		snprintf(why, why_size, "skipped: %s", c.err);
		result = why;
		goto out;
	}
	mem = mmap(NULL, c.total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		result = "failed: mmap";
		goto out;
	}
	for (i = 0, p = mem; i < c.n; i++) {
		sframe_gen_emit(c.gen[i], p, (uintptr_t)p);
		p += (c.size[i] + SFA_ALIGN - 1) & ~(size_t)(SFA_ALIGN - 1);
		*fdes += c.fdes[i];
		*bytes += c.size[i];
	}
	/* Nothing in the process has any business writing it from now on */
	mprotect(mem, c.total, PROT_READ);

	for (i = 0, p = mem; i < c.n; i++) {
		struct sframe_registration reg = {
			.size = sizeof(reg),
			.sframe_start = (uintptr_t)p,
			.sframe_size = c.size[i],
			.text_start = c.text_start[i],
			.text_size = c.text_end[i] - c.text_start[i],
		};

		if (cfg.dump)
			sfa_dump(o->name, o->bias, c.text_start[i], c.text_end[i], p,
				 c.size[i], c.fdes[i]);
		if (!cfg.dry_run) {
			if (prctl(PR_SFRAME_REGISTER, &reg, 0, 0, 0) == 0)
				o->text[o->nreg++] = c.text_start[i];
			else if (!err)
				err = errno;
		}
		p += (c.size[i] + SFA_ALIGN - 1) & ~(size_t)(SFA_ALIGN - 1);
	}
	if (cfg.dry_run) {
		result = "dry run";
	} else if (err) {
		snprintf(why, why_size, "%s: %s", o->nreg ? "partly registered" :
			 "not registered", strerror(err));
		result = why;
	}
	if (cfg.dry_run || o->nreg) {
		o->mem = mem;
		o->mem_len = c.total;
	} else {
		munmap(mem, c.total);
	}
out:
	for (i = 0; i < c.n; i++)
		sframe_gen_free(c.gen[i]);
	return result;
}

/*
 * One object loaded: its record, kept even when it has no section, so
 * that a preload scan does not try it again.  NULL only when out of
 * memory.  Caller holds sfa_lock.
 */
static struct sfa_obj *sfa_add(const char *name, uint64_t bias,
			       const ElfW(Phdr) *phdr, unsigned int phnum)
{
	uint64_t t0 = now_ns(), ns;
	const char *result;
	struct sfa_obj *o;
	unsigned int fdes = 0;
	size_t bytes = 0;
	char why[200];

	if (!*name)
		name = "(main)";
	o = calloc(1, sizeof(*o));
	if (o)
		o->name = strdup(name);
	if (!o || !o->name) {
		free(o);
		o = NULL;
		result = "failed: out of memory";
	} else {
		o->bias = bias;
		o->phdr = phdr;
		result = sfa_load(o, phdr, phnum, &fdes, &bytes, why, sizeof(why));
		o->next = sfa_objs;
		sfa_objs = o;
	}
	ns = now_ns() - t0;
	if (cfg.verbose)
		say("sframe-audit: %s: %u FDEs, %zu bytes, %" PRIu64 " us: %s", name, fdes,
		    bytes, ns / 1000, result);
	return o;
}

/* Takes @o off the list, if it is there; false if it is not ours */
static bool sfa_unlink(struct sfa_obj *o)
{
	struct sfa_obj **pp;

	for (pp = &sfa_objs; *pp; pp = &(*pp)->next) {
		if (*pp == o) {
			*pp = o->next;
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
	const ElfW(Phdr) *ph;
	unsigned int i, n;

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
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || !eh->e_phnum ||
	    !sfa_mapped(map->l_addr + eh->e_phoff, (size_t)eh->e_phnum * sizeof(ElfW(Phdr))))
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

	sfa_config();
	if (!*name && lmid == LM_ID_BASE && !map->l_prev) {
		const char *fn = (const char *)getauxval(AT_EXECFN);

		name = fn ? fn : "";
	}
	phdr = sfa_phdrs(map, lmid, &phnum);
	pthread_mutex_lock(&sfa_lock);
	if (!phdr) {
		if (cfg.verbose)
			say("sframe-audit: %s: 0 FDEs, 0 bytes, 0 us: skipped: no ELF header",
			    *name ? name : "(main)");
		o = NULL;
	} else {
		o = sfa_add(name, map->l_addr, phdr, phnum);
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

struct sfa_scan {
	bool	add;		/* second pass: register what is new */
	bool	first;
	bool	audit_ns;	/* we are an LD_AUDIT module's copy */
};

static struct sfa_obj *sfa_find(const struct dl_phdr_info *info)
{
	struct sfa_obj *o;

	for (o = sfa_objs; o; o = o->next)
		if (o->bias == info->dlpi_addr && o->phdr == info->dlpi_phdr)
			return o;
	return NULL;
}

static int sfa_scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sfa_scan *s = data;
	struct sfa_obj *o;
	const char *name = info->dlpi_name ? info->dlpi_name : "";

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
	if (!o)
		sfa_add(name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
	return 0;
}

/* Caller holds sfa_lock */
static void sfa_rescan(bool init)
{
	struct sfa_scan s = { .first = true };
	struct sfa_obj **pp, *o;

	for (o = sfa_objs; o; o = o->next)
		o->seen = false;
	dl_iterate_phdr(sfa_scan_one, &s);
	if (s.audit_ns)
		return;
	if (init)
		sfa_preload = true;
	/* Unloaded ones first: a new object may reuse their addresses */
	for (pp = &sfa_objs; (o = *pp);) {
		if (o->seen) {
			pp = &o->next;
			continue;
		}
		*pp = o->next;
		if (cfg.verbose && o->mem)
			say("sframe-audit: %s: unloaded", o->name);
		sfa_release(o);
	}
	s.add = true;
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

static void sfa_rescan_if_changed(void)
{
	unsigned long long c[2] = { 0, 0 };

	dl_iterate_phdr(sfa_counts, c);
	if (c[0] == sfa_adds && c[1] == sfa_subs)
		return;
	sfa_rescan(false);
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
	sfa_rescan(true);
	pthread_mutex_unlock(&sfa_lock);
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
		sfa_rescan_if_changed();
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
		sfa_rescan_if_changed();
		pthread_mutex_unlock(&sfa_lock);
	}
	return ret;
}
