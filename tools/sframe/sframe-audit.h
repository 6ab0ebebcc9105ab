/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The interfaces between the load-time module's files, each a layer over
 * the next.  libsframe-audit.so, the module every process loads:
 *
 *   sframe-audit.c            the loader's hooks (LD_AUDIT, LD_PRELOAD)
 *                             and the objects loaded; what the kernel
 *                             already has, or needs nothing
 *   sframe-audit-converter.c  the converter, loaded the first time an
 *                             object needs its sections made
 *
 * libsframe-audit-converter.so, the converter, beside it:
 *
 *   sframe-audit-load.c       one object's sections: from the cache or
 *                             converted, registered, attached
 *   sframe-audit-cache.c      the cache of converted sections on disk
 *   sframe-audit-conv.c       an object's .eh_frame converted by sframe-gen
 *
 * and in both, sframe-audit-sys.c: the settings, and what every layer
 * asks of the system with care (is memory mapped, may a file grow, is a
 * descriptor still ours).  Each library exports its entry points alone
 * (-fvisibility=hidden, SFA_EXPORT).
 */
#ifndef SFRAME_AUDIT_H
#define SFRAME_AUDIT_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

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
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

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

/**
 * struct sfa_config - what this process's module does, read once
 * @read: sfa_config() ran.
 * @secure: AT_SECURE: no environment read, nothing written or said.
 * @verbose: one line per object on stderr.
 * @dry_run: converted, not registered.
 * @no_kernel: the kernel has no PR_SFRAME_REGISTER (EINVAL).
 * @dump: SFRAME_AUDIT_DUMP's directory, or NULL.
 * @cache_on: the cache is used.
 * @cache_env: SFRAME_AUDIT_CACHE's directory, or NULL.
 * @attach: root's cache entries are attached to their objects.
 */
struct sfa_config {
	bool		read;
	bool		secure;
	bool		verbose;
	bool		dry_run;
	bool		no_kernel;
	const char	*dump;
	bool		cache_on;
	const char	*cache_env;
	bool		attach;
};

extern struct sfa_config cfg;

#define SFA_EXPORT	__attribute__((__visibility__("default")))

/*
 * The converter's entry point, found by name with dlsym(), and the
 * version of the records it shares with the module: bumped whenever
 * struct sfa_obj, struct sfa_config or the entry's arguments change
 * (test-audit builds a converter of another to see it refused).
 */
#define SFA_CONVERTER_NAME	"libsframe-audit-converter.so"
#define SFA_CONVERTER_ENTRY	"sframe_audit_converter_load"
#ifndef SFA_CONVERTER_ABI
#define SFA_CONVERTER_ABI	1
#endif

typedef const char *sfa_converter_load_fn(unsigned int abi, const struct sfa_config *settings,
					  size_t settings_size, struct sfa_obj *o,
					  const ElfW(Phdr) *phdr, unsigned int phnum,
					  unsigned int *fdes, size_t *bytes, char *how,
					  size_t how_size, char *why, size_t why_size);

/* sframe-audit-sys.c */
__attribute__((__format__(printf, 1, 2)))
void say(const char *fmt, ...);
bool sfa_mapped(uintptr_t addr, size_t len);
bool sfa_fsize_ok(uint64_t size);
bool sfa_dir_still(int fd, dev_t dev, ino_t ino);
bool sfa_is_vdso(const ElfW(Phdr) *phdr);

/* The kernel registers the section of these itself */
static inline const ElfW(Phdr) *sfa_own_sframe(const ElfW(Phdr) *phdr, unsigned int phnum)
{
	unsigned int i;

	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_GNU_SFRAME)
			return &phdr[i];
	return NULL;
}

/* sframe-audit-conv.c */
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

int sfa_convert(const ElfW(Phdr) *phdr, unsigned int phnum, uint64_t bias,
		const struct sfe_eh_frame *eh, const ElfW(Phdr) *own, struct sfa_conv *c);
void sfa_emit(const struct sfa_conv *c, uint8_t *buf, uint64_t addr);

/* sframe-audit-cache.c */
#define SFA_BUILD_ID_MAX	64

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

enum sfa_cache_res {
	SFA_CACHE_HIT,
	SFA_CACHE_MISS,		/* no entry, or another identity's */
	SFA_CACHE_BAD,		/* an entry that fails its checks */
	SFA_CACHE_UNTRUSTED,	/* a link, someone else's, writable by others */
	SFA_CACHE_NO_ROOM,	/* its address is taken */
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

int sfa_key_of(const struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
	       struct sfa_key *k, char *fname, size_t fname_size, bool *moved);
bool sfa_cache_get(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
		   struct sfa_lookup *lk, struct sfa_conv *c, void **mem, size_t *len,
		   char *how, size_t how_size);
bool sfa_cache_put(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
		   struct sfa_lookup *lk, struct sfa_conv *c, void **mem, size_t *len,
		   char *how, size_t how_size);
uint64_t sfa_payload_off(void);
int64_t sfa_cache_dist(uint64_t bias, uint64_t off);

/* sframe-audit-load.c */
sfa_converter_load_fn sframe_audit_converter_load;

/* sframe-audit-converter.c */
void sfa_converter_locate(const char *module);
bool sfa_converter_tried(void);
void sfa_converter_open(void);
const char *sfa_converter_load(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
			       unsigned int *fdes, size_t *bytes, char *how, size_t how_size,
			       char *why, size_t why_size);

#endif /* SFRAME_AUDIT_H */
