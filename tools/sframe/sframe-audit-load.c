// SPDX-License-Identifier: GPL-2.0-only
/*
 * One object's sections: mapped from the cache, or converted from its
 * .eh_frame (and stored), then registered with the kernel
 * (PR_SFRAME_REGISTER), and root's cache entries attached to their
 * objects (PR_SFRAME_ATTACH).  SFRAME_AUDIT_DUMP's copies are written
 * here too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <uapi/linux/sframe.h>

#include "sframe-audit.h"

/* SFRAME_AUDIT_DUMP's directory, opened once (sfa_dump_dir()) */
static struct {
	bool		opened;
	int		fd;
	struct stat	st;	/* what fd was opened as */
	unsigned int	count;
} dump;

/* PR_SFRAME_ATTACH refused for good: not asked again */
static bool no_attach;

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
 * SFRAME_AUDIT_DUMP's directory, opened once: no link, owned by the real
 * user and writable by no one else, or nothing is dumped.  Whoever else
 * could write in it could make this process write where they like (a
 * link named index), as its user.
 */
static int sfa_dump_dir(void)
{
	struct stat st;
	int fd;

	if (dump.opened) {
		if (dump.fd >= 0 &&
		    !sfa_dir_still(dump.fd, dump.st.st_dev, dump.st.st_ino))
			dump.fd = -1;	/* forgotten, not closed: not ours */
		return dump.fd;
	}
	dump.opened = true;
	dump.fd = -1;
	fd = open(cfg.dump, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || st.st_uid != getuid() || (st.st_mode & 022))) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		dump.st = st;
	if (fd < 0 && cfg.verbose)
		say("sframe-audit dump: %s: not used (not a directory of the user's own)",
		    cfg.dump);
	dump.fd = fd;
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
		snprintf(fname, sizeof(fname), "%d-%u.sframe", (int)getpid(), dump.count++);
		fd = openat(dir, fname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
	} while (fd < 0 && errno == EEXIST && dump.count < 100000);
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

	if (!cfg.attach || no_attach || cfg.secure || geteuid() != 0 || lk->uid != 0 ||
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
		no_attach = true;
		break;
	}
out:
	if (elf >= 0)
		close(elf);
	if (sec >= 0)
		close(sec);
}

/*
 * Converts and registers one object's sections into @o, one the kernel
 * has none of (sfa_add() asked).  Returns what to say about it; @o->mem
 * stays NULL when nothing is kept.
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

/**
 * sframe_audit_converter_load() - libsframe-audit-converter.so's entry
 * @abi: SFA_CONVERTER_ABI of the module calling.
 * @settings: the module's settings, which this copy of them takes.
 * @settings_size: their size.
 * @o: the object's record.
 * @phdr: its program headers.
 * @phnum: their number.
 * @fdes: FDEs registered, added to.
 * @bytes: bytes of sections registered, added to.
 * @how: what the cache did, for the module's verbose line.
 * @how_size: its size.
 * @why: room for the result when it is made up.
 * @why_size: its size.
 *
 * The module (sframe-audit-converter.c) loads this library the first time
 * an object needs its sections made, and calls this for each such object.
 *
 * Return: what to say about the object.
 */
SFA_EXPORT const char *
sframe_audit_converter_load(unsigned int abi, const struct sfa_config *settings,
			    size_t settings_size, struct sfa_obj *o, const ElfW(Phdr) *phdr,
			    unsigned int phnum, unsigned int *fdes, size_t *bytes, char *how,
			    size_t how_size, char *why, size_t why_size)
{
	/* A module and a converter of two builds: their records may differ */
	if (abi != SFA_CONVERTER_ABI || settings_size != sizeof(cfg))
		return "failed: " SFA_CONVERTER_NAME " is of another build";
	cfg = *settings;
	return sfa_load(o, phdr, phnum, fdes, bytes, how, how_size, why, why_size);
}
