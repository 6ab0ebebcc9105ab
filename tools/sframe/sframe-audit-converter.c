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
 * It is the file beside the module, found by the path the loader gave
 * the module; a relative one is kept with the directory it was relative
 * to when the module started, as the program may change directory before
 * it dlopen()s a library that needs the converter.  Nothing else is done
 * at start: a process that never needs the converter pays for no path
 * formatted (printf's code is pages of the C library a small program
 * never faults in otherwise).  In
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

static const char *module_path;		/* the loader's name of the module */
static char *module_cwd;		/* what a relative one is relative to */
static const char *converter_missing = "not looked for";
static sfa_converter_load_fn *converter;
static bool converter_tried;

/*
 * At start: @module, the loader's name of the module (its link map's,
 * which lives as long as the module), and for a relative one the
 * current directory.
 */
void sfa_converter_locate(const char *module)
{
	if (!module || !*module) {
		converter_missing = "beside an unnamed module";
		return;
	}
	module_path = module;
	if (*module != '/') {
		module_cwd = getcwd(NULL, 0);
		if (!module_cwd) {
			converter_missing = "beside a module in an unknown directory";
			return;
		}
	}
	converter_missing = NULL;
}

/* The converter's path into @path, or false */
static bool sfa_converter_path(char *path, size_t size)
{
	const char *slash = strrchr(module_path, '/');
	int n;

	/* A name without a directory: the loader found it in its own path */
	if (!slash) {
		converter_missing = "beside a module of no known directory";
		return false;
	}
	n = snprintf(path, size, "%s%s%.*s/%s", module_cwd ? module_cwd : "",
		     module_cwd ? "/" : "", (int)(slash - module_path), module_path,
		     SFA_CONVERTER_NAME);
	if (n < 0 || (size_t)n >= size) {
		converter_missing = "beside a module whose path is too long";
		return false;
	}
	return true;
}

/* Root owns @path, and no one else may write it */
static bool sfa_root_only(const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_uid == 0 && !(st.st_mode & 022);
}

/* @path, the converter's: in secure-execution mode, root's alone */
static bool sfa_converter_trusted(const char *path)
{
	char dir[PATH_MAX];

	if (!cfg.secure)
		return true;
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	return sfa_root_only(path) && sfa_root_only(*dir ? dir : "/");
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
	char path[PATH_MAX];
	void *handle;

	if (converter_tried)
		return;
	converter_tried = true;
	if (converter_missing || !sfa_converter_path(path, sizeof(path)))
		return;
	if (!sfa_converter_trusted(path)) {
		converter_missing = "not root's alone";
		return;
	}
	/* The C library's: the module's own dlopen() would scan for it */
	real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	handle = real_dlopen ? real_dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
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
