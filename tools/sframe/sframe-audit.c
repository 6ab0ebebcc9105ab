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
 * (see sframe-audit-cache.c); where that cannot be, converted into an
 * anonymous mapping made read-only.  Unloading unregisters it and unmaps
 * the section.
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
 *
 * This file: the loader's hooks and the objects loaded (sframe-audit.h
 * draws the module's layers).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "sframe-audit.h"

/* Its presence turns attaching on for every process (sfa_attach()) */
#define SFA_ATTACH_FILE		"/etc/sframe/attach"

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

/* CPU time: what the program pays, however busy the machine is */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

/* PR_SFRAME_ATTACHED unknown to the kernel: not asked again */
static bool no_attached_query;

/*
 * Is every executable segment of the object covered by an attachment?
 * The kernel registers those by itself whenever the process's stacks may
 * be walked (PR_SFRAME_ATTACHED), so that looking the object up in the
 * cache, mapping its entry and registering it would be work and memory
 * spent for nothing, in every process, whether anything profiles it or
 * not.  An object with SFrame of its own has no attachment.
 */
static bool sfa_attached(uint64_t bias, const ElfW(Phdr) *phdr, unsigned int phnum)
{
	unsigned int i, segs = 0;
	int r;

	if (no_attached_query || cfg.dry_run)
		return false;
	for (i = 0; i < phnum; i++) {
		if (phdr[i].p_type != PT_LOAD || !(phdr[i].p_flags & PF_X) || !phdr[i].p_memsz)
			continue;
		r = prctl(PR_SFRAME_ATTACHED, (unsigned long)(bias + phdr[i].p_vaddr), 0, 0, 0);
		if (r < 0 && errno == EINVAL)
			no_attached_query = true;	/* a kernel without it */
		if (r != 1)
			return false;
		segs++;
	}
	return segs;
}

static bool sfa_has_segment(const ElfW(Phdr) *phdr, unsigned int phnum, uint32_t type)
{
	unsigned int i;

	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == type)
			return true;
	return false;
}

/*
 * What the converter is not needed for: the kernel has the object's
 * sections already, or there is nothing to make them from (nor a cache
 * entry made from it).  NULL: the converter's work.
 */
static const char *sfa_needs_nothing(uint64_t bias, const ElfW(Phdr) *phdr, unsigned int phnum)
{
	const ElfW(Phdr) *own = sfa_own_sframe(phdr, phnum);

	if (cfg.no_kernel)
		return "skipped: kernel without PR_SFRAME_REGISTER";
	if (!own && sfa_attached(bias, phdr, phnum))
		return "attached: left to the kernel";
	/*
	 * The vDSO with SFrame of its own (the kernel built it from the same
	 * CFI, without gaps on any of the three arches): no file backs it, so
	 * its fill could be kept nowhere and would be made again, for
	 * nothing, in every process.
	 */
	if (own && sfa_is_vdso(phdr))
		return "skipped: the vDSO's own section stays";
	if (!sfa_has_segment(phdr, phnum, PT_GNU_EH_FRAME))
		return "skipped: no PT_GNU_EH_FRAME";
	return NULL;
}

/*
 * An object a scan met needed the converter while it could not be loaded
 * (from a dl_iterate_phdr() callback): sfa_scan_adding() loads it and
 * makes its pass again.
 */
static bool sfa_converter_wanted;

/*
 * One object loaded: its record, kept even when it has no section, so
 * that a preload scan does not try it again.  NULL when out of memory,
 * or when the object needs the converter and @may_load is false (the
 * object is left for the scan after it is loaded).  Caller holds
 * sfa_lock.
 */
static struct sfa_obj *sfa_add(const char *name, bool exe, uint64_t bias,
			       const ElfW(Phdr) *phdr, unsigned int phnum, bool may_load)
{
	/* Two system calls an object: only for whoever reads the time */
	uint64_t t0 = cfg.verbose ? now_ns() : 0;
	const char *result = sfa_needs_nothing(bias, phdr, phnum);
	struct sfa_obj *o;
	unsigned int fdes = 0;
	size_t bytes = 0, name_len;
	char why[200], how[80] = "";

	if (!result && !sfa_converter_tried()) {
		if (!may_load) {
			sfa_converter_wanted = true;
			return NULL;
		}
		sfa_converter_open();
	}
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
		if (!result)
			result = sfa_converter_load(o, phdr, phnum, &fdes, &bytes, how,
						    sizeof(how), why, sizeof(why));
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
		o = sfa_add(name, exe, map->l_addr, phdr, phnum, true);
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
		sfa_add(name, exe, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, false);
	return 0;
}

/*
 * A pass that adds what is new; made again once the converter is loaded
 * if an object wanted it (sfa_add()), for what was left out.  Caller
 * holds sfa_lock, outside any dl_iterate_phdr().
 */
static void sfa_scan_adding(struct sfa_scan *s)
{
	s->first = true;
	dl_iterate_phdr(sfa_scan_one, s);
	if (!sfa_converter_wanted)
		return;
	sfa_converter_wanted = false;
	sfa_converter_open();
	s->first = true;
	dl_iterate_phdr(sfa_scan_one, s);
}

/* Registers the object that holds @addr (none for NULL), if it is new */
static void sfa_add_holding(struct sfa_scan *s, const void *addr)
{
	if (!addr)
		return;
	s->only = addr;
	sfa_scan_adding(s);
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
	sfa_scan_adding(&s);
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
		sfa_add(m->l_name, false, m->l_addr, phdr, phnum, false);
	}
	/* One wanted the converter: the whole scan, which loads it, adds it */
	if (sfa_converter_wanted)
		return 1;
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
	if (handle && c[1] == sfa_subs && !dlinfo(handle, RTLD_DI_LINKMAP, &t.map) && t.map)
		dl_iterate_phdr(sfa_tail_one, &t);
	if (!t.done)
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
	/* Before la_objopen(): an LD_AUDIT module's constructor runs first */
	sfa_converter_locate(dli.dli_fname);
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

