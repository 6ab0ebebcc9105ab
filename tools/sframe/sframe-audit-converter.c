// SPDX-License-Identifier: GPL-2.0-only
/*
 * The converter, libsframe-audit-converter.so, loaded by the module the
 * first time an object needs its sections made or looked up in the cache.
 * On a system that attaches, a process's objects are attached, or need
 * nothing (sframe-audit.c decides), and most processes never map it: the
 * module is linked -z now (full RELRO, set-user-ID programs included),
 * and the converter's imports, bound at every start while the two were
 * one library, were half of what the module cost a short process.
 *
 * It is the file beside the module, found by the path the module was
 * loaded from, made absolute when the module starts: the program may
 * change directory before it dlopen()s a library that needs it.  In
 * secure-execution mode the module came from /etc/ld.so.preload or a
 * system directory, and the converter is taken only where root alone
 * could have put it: root owns it and its directory, and no one else may
 * write either.  Whatever fails leaves the objects without sections, the
 * program as it was.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe-audit.h"

static char converter_path[PATH_MAX];
static const char *converter_missing = "not looked for";
static sfa_converter_load_fn *converter;
static bool converter_tried;

/* Where the converter is, from the path the module was loaded from */
void sfa_converter_locate(void)
{
	char cwd[PATH_MAX] = "";
	const char *slash;
	Dl_info dli;
	int n;

	if (!dladdr((void *)sfa_converter_locate, &dli) || !dli.dli_fname ||
	    !(slash = strrchr(dli.dli_fname, '/'))) {
		converter_missing = "the module's own path is unknown";
		return;
	}
	if (*dli.dli_fname != '/' && !getcwd(cwd, sizeof(cwd))) {
		converter_missing = "the module's own path is unknown";
		return;
	}
	n = snprintf(converter_path, sizeof(converter_path), "%s%s%.*s/%s", cwd,
		     *cwd ? "/" : "", (int)(slash - dli.dli_fname), dli.dli_fname,
		     SFA_CONVERTER_NAME);
	if (n < 0 || (size_t)n >= sizeof(converter_path)) {
		*converter_path = 0;
		converter_missing = "its path is too long";
		return;
	}
	converter_missing = NULL;
}

/* Root owns @path, and no one else may write it */
static bool sfa_root_only(const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_uid == 0 && !(st.st_mode & 022);
}

static bool sfa_converter_trusted(void)
{
	char dir[PATH_MAX];

	if (!cfg.secure)
		return true;
	snprintf(dir, sizeof(dir), "%s", converter_path);
	*strrchr(dir, '/') = 0;
	return sfa_root_only(converter_path) && sfa_root_only(*dir ? dir : "/");
}

/* Has the module tried to load the converter (which may have failed)? */
bool sfa_converter_tried(void)
{
	return converter_tried;
}

/*
 * Loads the converter, once.  Not from a dl_iterate_phdr() callback: it
 * holds the loader's list lock, which dlopen() takes after its own, and
 * another thread's dlopen() meanwhile would wait for it in turn.
 */
void sfa_converter_open(void)
{
	void *(*real_dlopen)(const char *, int);
	void *handle;

	if (converter_tried)
		return;
	converter_tried = true;
	if (converter_missing)
		return;
	if (!sfa_converter_trusted()) {
		converter_missing = "not root's alone";
		return;
	}
	/* The C library's: the module's own dlopen() would scan for it */
	real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	handle = real_dlopen ? real_dlopen(converter_path, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!handle) {
		converter_missing = "cannot be loaded";
		return;
	}
	converter = (sfa_converter_load_fn *)dlsym(handle, SFA_CONVERTER_ENTRY);
	if (!converter)
		converter_missing = "has no entry point";
}

/*
 * @o's sections, by the converter (loaded now if it was not, see
 * sfa_converter_open()): what to say about @o, as
 * sframe_audit_converter_load() returns it.
 */
const char *sfa_converter_load(struct sfa_obj *o, const ElfW(Phdr) *phdr, unsigned int phnum,
			       unsigned int *fdes, size_t *bytes, char *how, size_t how_size,
			       char *why, size_t why_size)
{
	sfa_converter_open();
	if (!converter) {
		snprintf(why, why_size, "failed: %s %s", SFA_CONVERTER_NAME, converter_missing);
		return why;
	}
	return converter(SFA_CONVERTER_ABI, &cfg, sizeof(cfg), o, phdr, phnum, fdes, bytes,
			 how, how_size, why, why_size);
}
