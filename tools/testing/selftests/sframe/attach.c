// SPDX-License-Identifier: GPL-2.0
/*
 * sf-attach: SFrame attached to a file that has none (PR_SFRAME_ATTACH).
 * This program is built without SFrame and without frame pointers; the
 * test runner made sf-attach.sframe beside it from its .eh_frame
 * (sframe-gen --raw, made for SF_ATTACH_VADDR, 64 GiB below the load
 * bias).  As root it
 *   - tries what must fail: unknown flags, a short structure, one larger
 *     than a page, a section file others may write, text in no executable
 *     segment, a section past the end of its file or too far from its
 *     text, a file with SFrame of its own, a closed descriptor, a section
 *     open only for writing, unknown non-zero fields, one attachment past
 *     max_attached or max_attached_bytes, a caller without CAP_SYS_ADMIN,
 *     a detach of a file with nothing attached; none may change the
 *     attachment count; and a detach of all, which must leave none;
 *   - checks that /sys/kernel/sframe/ is root's alone (mode 0400);
 *   - attaches the section to each executable segment of this very file,
 *     then empties the section's file and lets anyone write it (the
 *     kernel keeps what it read at the attach), then runs itself again:
 *     the new process must find its text registered before it walks
 *     anything (exec registered it: the driver profiles its tests), have
 *     no mapping of the section's file, and walk main > att_a > att_b >
 *     att_leaf whole, by SFrame, though nothing in it registered anything;
 *   - detaches, and runs itself again: now the same walk must fail (the
 *     control: without the attachment, nothing finds these frames).
 *
 * sf-attach --audit MODULE: libsframe-audit.so attaches what it caches
 * (SFRAME_AUDIT_ATTACH=1): see att_audit(); and, in /etc/ld.so.preload,
 * does nothing a set-user-ID program's caller asks and loads no converter
 * another user could have written: see att_secure().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sframe.h>

#include "sf_syscall.h"
#include "sf_harness.h"

#ifndef PR_SFRAME_ATTACH
#define PR_SFRAME_ATTACH	0x53460003
#define PR_SFRAME_DETACH	0x53460004
#endif
#ifndef PR_SFRAME_ATTACHED
#define PR_SFRAME_ATTACHED	0x53460005
#endif

/* Where the runner made the section for: load bias - 64 GiB */
#define SF_ATTACH_VADDR		(~0UL - (1UL << 36) + 1)
#define SF_ATTACH_FRAMES	4

static const char *const att_chain[SF_ATTACH_FRAMES] = {
	"att_leaf", "att_b", "att_a", "main"
};

/*
 * The function names of the first frames of this thread's stack.  The
 * chain's functions are global, for dladdr() (-rdynamic) to name them.
 */
int att_leaf(char names[][32]);
int att_b(char names[][32]);
int att_a(char names[][32]);

__attribute__((noinline)) int att_leaf(char names[][32])
{
	static char text[16384];
	char *line, *save;
	long n;
	int fd, i = 0;

	fd = open("/proc/thread-self/ustack", O_RDONLY);
	if (!SF_CHECK(fd >= 0, "opening /proc/thread-self/ustack"))
		return 0;
	/* A system call of our own: the first frame is this function's */
	n = sf_syscall4(SYS_pread64, fd, (long)text, sizeof(text) - 1, 0);
	close(fd);
	if (!SF_CHECK(n > 0, "reading /proc/thread-self/ustack"))
		return 0;
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line && i < SF_ATTACH_FRAMES;
	     line = strtok_r(NULL, "\n", &save), i++) {
		unsigned long pc = strtoul(line, NULL, 16);
		Dl_info dli;

		sf_info("frame %d: %s", i, line);
		/* A caller's frame holds a return address: the call is before it */
		if (i)
			pc--;
		snprintf(names[i], 32, "%s",
			 dladdr((void *)pc, &dli) && dli.dli_sname ? dli.dli_sname : "?");
	}
	return i;
}

__attribute__((noinline)) int att_b(char names[][32])
{
	int n = att_leaf(names);

	__asm__ __volatile__("" ::: "memory");
	return n;
}

__attribute__((noinline)) int att_a(char names[][32])
{
	int n = att_b(names);

	__asm__ __volatile__("" ::: "memory");
	return n;
}

/*
 * Is the walk main > att_a > att_b > att_leaf, whole?  Inlined, as are
 * its callers, so that att_a's caller is main.
 */
static inline __attribute__((always_inline)) bool att_walk_whole(void)
{
	char names[SF_ATTACH_FRAMES][32] = {};
	int i, n = att_a(names);

	for (i = 0; i < SF_ATTACH_FRAMES; i++)
		if (i >= n || strcmp(names[i], att_chain[i]))
			return false;
	return true;
}

/* The line of /proc/self/sframe whose text holds @addr, or NULL */
static const struct sf_line *att_line_of(const struct sf_set *got, unsigned long addr)
{
	int i;

	for (i = 0; i < got->n; i++)
		if (got->line[i].parsed && got->line[i].text_start <= addr &&
		    addr < got->line[i].text_end)
			return &got->line[i];
	return NULL;
}

/* Is a file whose name ends in @name mapped into this process? */
static bool att_maps_has(const char *name)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	size_t len = strlen(name);
	char line[4352];
	bool found = false;

	if (!SF_CHECK(maps, "/proc/self/maps: %s", strerror(errno)))
		return false;
	while (!found && fgets(line, sizeof(line), maps)) {
		size_t n = strcspn(line, "\n");

		line[n] = '\0';
		found = n >= len && !strcmp(line + n - len, name);
	}
	fclose(maps);
	return found;
}

/* PR_SFRAME_ATTACHED's answer about @addr: 1, 0, or minus the errno */
static int att_query(unsigned long addr)
{
	int r = prctl(PR_SFRAME_ATTACHED, addr, 0, 0, 0);

	return r < 0 ? -errno : r;
}

/* The new image: does its text have a registration, and does it walk? */
static inline __attribute__((always_inline)) int att_child(bool attached, bool libc)
{
	unsigned long text = (unsigned long)att_leaf;
	unsigned long in_libc = (unsigned long)dlsym(RTLD_DEFAULT, "getpid");
	const struct sf_line *l;
	struct sf_set got;
	bool whole;

	/*
	 * Before any walk: the driver profiles its tests, so exec registered
	 * what the new image mapped, the attached section with the rest.
	 */
	if (sf_read_self(&got, "child")) {
		l = att_line_of(&got, text);
		if (libc)
			SF_CHECK(att_line_of(&got, in_libc),
				 "the C library's text not registered at exec");
		if (attached)
			SF_CHECK(l, "attached: no registration of this program's text");
		else
			SF_CHECK(!l, "detached: '%s'", l ? l->text : "");
		if (l) {
			sf_info("registered: %s", l->text);
			SF_CHECK(!strcmp(l->path, "[attached]"), "named '%s', not [attached]",
				 l->path);
		}
		sf_set_free(&got);
	}
	SF_CHECK(!att_maps_has("sf-attach.sframe"),
		 "the section's file is mapped into the process");
	SF_CHECK(att_query(text) == attached, "PR_SFRAME_ATTACHED of this program's text: %d",
		 att_query(text));
	whole = att_walk_whole();
	if (attached)
		SF_CHECK(whole, "attached: main > att_a > att_b > att_leaf not found");
	else
		SF_CHECK(!whole, "detached: the walk found the chain without SFrame");
	return sf_failed ? 1 : 0;
}

/*
 * This process mapped its text, and was wanted, before the attach: the
 * hooks apply an attachment only to mappings made after it, so nothing
 * covers the text yet.  PR_SFRAME_ATTACHED's 1 tells the audit module to
 * leave the text to the kernel: asking must register it.
 */
static inline __attribute__((always_inline)) void att_mapped_before(unsigned long text)
{
	const struct sf_line *l;
	struct sf_set got;

	if (sf_read_self(&got, "before asking")) {
		l = att_line_of(&got, text);
		SF_CHECK(!l, "attached since: '%s' before asking", l ? l->text : "");
		sf_set_free(&got);
	}
	SF_CHECK(att_query(text) == 1, "PR_SFRAME_ATTACHED of the text attached: %d",
		 att_query(text));
	if (sf_read_self(&got, "asked")) {
		l = att_line_of(&got, text);
		SF_CHECK(l && !strcmp(l->path, "[attached]"),
			 "told attached, the text has no [attached] registration: '%s'",
			 l ? l->text : "");
		sf_set_free(&got);
	}
	SF_CHECK(att_walk_whole(), "told attached: main > att_a > att_b > att_leaf not found");
}

static int att_run_child(const char *self, const char *mode)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, self, "--child", mode, (char *)NULL);
		_exit(127);
	}
	if (!SF_CHECK(pid > 0, "fork: %s", strerror(errno)))
		return -1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Detach every object this process has loaded; how many had attachments */
static int att_detach_one(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name;
	int *n = data, fd;

	(void)size;
	fd = open(*name ? name : "/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return 0;
	if (!prctl(PR_SFRAME_DETACH, fd, 0, 0, 0))
		(*n)++;
	close(fd);
	return 0;
}

/*
 * Runs itself under libsframe-audit.so, attaching enabled, with stderr
 * (its verbose lines) in @out; returns the exit status.
 */
static int att_run_audit(const char *self, const char *module, const char *out)
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0 || setenv("LD_PRELOAD", module, 1) ||
		    setenv("SFRAME_AUDIT_ATTACH", "1", 1) ||
		    setenv("SFRAME_AUDIT_VERBOSE", "1", 1) || unsetenv("SFRAME_AUDIT_CACHE"))
			_exit(126);
		execl(self, self, "--child", "audit", (char *)NULL);
		_exit(127);
	}
	if (!SF_CHECK(pid > 0, "fork: %s", strerror(errno)))
		return -1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* How many lines of @path contain @what */
static int att_count_lines(const char *path, const char *what)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sf_info("module: %s", strtok(line, "\n"));
		n += !!strstr(line, what);
	}
	fclose(f);
	return n;
}

static const char *const att_cache_dirs[] = { "/var", "/var/cache", "/var/cache/sframe" };

/* Empty and remove the directories of att_cache_dirs this test made */
static void att_cache_remove(const bool *made)
{
	struct dirent *d;
	DIR *dir;
	int i;

	dir = made[2] ? opendir(att_cache_dirs[2]) : NULL;
	if (dir) {
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.')
				unlinkat(dirfd(dir), d->d_name, 0);
		closedir(dir);
	}
	for (i = ARRAY_SIZE(att_cache_dirs) - 1; i >= 0; i--)
		if (made[i])
			rmdir(att_cache_dirs[i]);
}

/* A copy of @src that root owns, with @mode */
static int att_copy(const char *src, const char *dst, mode_t mode)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	unlink(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (in < 0 || out < 0)
		goto fail;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto fail;
	if (n < 0 || fchmod(out, mode))
		goto fail;
	close(in);
	close(out);
	return open(dst, O_RDONLY);
fail:
	sf_fail("copying %s to %s: %s", src, dst, strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return -1;
}

/* Entries of directory @path, -1 if it cannot be read */
static int att_dir_entries(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *d;
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

/*
 * The set-user-ID copy, run by nobody: in secure-execution mode, and its
 * text registered (from root's cache: the module, reading nothing of the
 * caller's, mapped the entry root's run stored) and walked whole.  Quiet:
 * its stderr must stay empty.
 */
static inline __attribute__((always_inline)) int att_secure_child(void)
{
	unsigned long text = (unsigned long)att_leaf, lo, hi;
	char line[512];
	bool found = false;
	FILE *f;

	if (getauxval(AT_SECURE) != 1 || geteuid() != 0 || getuid() != 65534)
		return 10;
	f = fopen("/proc/self/sframe", "r");
	if (!f)
		return 11;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= text && text < hi;
	fclose(f);
	if (!found)
		return 12;
	return att_walk_whole() ? 0 : 13;
}

#define ATT_SUID	"/tmp/sf-attach-suid"
#define ATT_SUID_ERR	"/tmp/sf-attach-suid.err"
#define ATT_USER_DIR	"/tmp/sf-attach-user"

/*
 * nobody runs @prog, a set-user-ID root program, with every variable of
 * the module's set at what would make it write (a dump directory whose
 * index is a link to a file of root's, nobody's own cache, a dry run,
 * attaching), and its stderr in ATT_SUID_ERR; the exit status.
 */
static int att_run_as_nobody(const char *prog)
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		fd = open(ATT_SUID_ERR, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0 ||
		    setenv("SFRAME_AUDIT_VERBOSE", "1", 1) ||
		    setenv("SFRAME_AUDIT_DRY_RUN", "1", 1) ||
		    setenv("SFRAME_AUDIT_ATTACH", "1", 1) ||
		    setenv("SFRAME_AUDIT_DUMP", ATT_USER_DIR "/dump", 1) ||
		    setenv("SFRAME_AUDIT_CACHE", ATT_USER_DIR "/cache", 1) ||
		    setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(126);
		execl(prog, prog, "--child", "secure", (char *)NULL);
		_exit(127);
	}
	if (!SF_CHECK(pid > 0, "fork: %s", strerror(errno)))
		return -1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The module's converter, which it loads from beside itself, into @path */
static bool att_converter_path(const char *module, char *path, size_t size)
{
	const char *slash = strrchr(module, '/');

	return slash && snprintf(path, size, "%.*s/libsframe-audit-converter.so",
				 (int)(slash - module), module) < (int)size;
}

/* Detaches whatever is attached to the file at @path: 1 if something was */
static int att_detach_path(const char *path)
{
	int fd = open(path, O_RDONLY);
	int detached = fd >= 0 && !prctl(PR_SFRAME_DETACH, fd, 0, 0, 0);

	if (fd >= 0)
		close(fd);
	return detached;
}

/*
 * The same set-user-ID run with the converter beside @module writable by
 * its group: in secure-execution mode the module takes no code from a file
 * another user could have written, so the program's text goes without
 * its section (status 12), and the module says nothing about it.
 */
static void att_secure_untrusted(const char *module)
{
	char converter[4096];
	struct stat st = {};
	int status;

	if (!SF_CHECK(att_converter_path(module, converter, sizeof(converter)) &&
		      !stat(converter, &st), "the converter beside %s", module))
		return;
	if (!SF_CHECK(!chmod(converter, (st.st_mode & 07777) | 0020),
		      "chmod g+w %s: %s", converter, strerror(errno)))
		return;
	status = att_run_as_nobody(ATT_SUID);
	SF_CHECK(!chmod(converter, st.st_mode & 07777), "restoring %s's mode", converter);
	SF_CHECK(status == 12,
		 "the set-user-ID run with a converter its group may write: status %d, not 12 (its text without a section)",
		 status);
	st.st_size = -1;
	SF_CHECK(!stat(ATT_SUID_ERR, &st) && st.st_size == 0,
		 "the set-user-ID run with a converter its group may write wrote %lld bytes to stderr",
		 (long long)st.st_size);
}

/*
 * The module in /etc/ld.so.preload, as deployed, in a set-user-ID root
 * program nobody starts: it honours none of its variables, creates,
 * changes and says nothing, attaches nothing, and registers the program's
 * section from root's cache alone (root ran the copy once, not attaching,
 * to store it); with the converter its group may write, not even that.
 */
static void att_secure(const char *module)
{
	struct stat st = {};
	long attached, entries;
	int fd, status, victim;
	char self[4096];

	if (!SF_CHECK(readlink("/proc/self/exe", self, sizeof(self) - 1) > 0, "readlink"))
		return;
	self[sizeof(self) - 1] = '\0';
	fd = att_copy(self, ATT_SUID, 04755);
	victim = open("/tmp/sf-attach-victim", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!SF_CHECK(fd >= 0 && victim >= 0, "the set-user-ID copy and the victim"))
		return;
	close(fd);
	SF_CHECK(write(victim, "root's\n", 7) == 7, "writing the victim");
	close(victim);
	mkdir("/etc", 0755);
	mkdir(ATT_USER_DIR, 0755);
	mkdir(ATT_USER_DIR "/dump", 0755);
	mkdir(ATT_USER_DIR "/cache", 0700);
	SF_CHECK(!symlink("/tmp/sf-attach-victim", ATT_USER_DIR "/dump/index") &&
		 !chown(ATT_USER_DIR "/dump", 65534, 65534) &&
		 !chown(ATT_USER_DIR "/cache", 65534, 65534), "nobody's directories");

	/* Root's own run stores the copy's entry; AT_SECURE is 0 for it */
	fd = fork();
	if (fd == 0) {
		if (setenv("LD_PRELOAD", module, 1) || setenv("SFRAME_AUDIT_ATTACH", "0", 1))
			_exit(126);
		execl(ATT_SUID, ATT_SUID, "--child", "audit", (char *)NULL);
		_exit(127);
	}
	SF_CHECK(fd > 0 && waitpid(fd, &status, 0) == fd && WIFEXITED(status) &&
		 !WEXITSTATUS(status), "root's run of the copy failed");

	attached = sf_stat_get("attached");
	entries = att_dir_entries(att_cache_dirs[2]);
	fd = open("/etc/ld.so.preload", O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (!SF_CHECK(fd >= 0, "/etc/ld.so.preload: %s", strerror(errno)))
		return;
	SF_CHECK(dprintf(fd, "%s\n", module) > 0, "writing /etc/ld.so.preload");
	close(fd);
	status = att_run_as_nobody(ATT_SUID);

	SF_CHECK(status == 0,
		 "the set-user-ID run: status %d (10 not secure, 11 no /proc/self/sframe, 12 its text not registered, 13 not walked whole)",
		 status);
	SF_CHECK(!stat(ATT_SUID_ERR, &st) && st.st_size == 0,
		 "the set-user-ID run wrote %lld bytes to stderr", (long long)st.st_size);
	if (st.st_size)
		att_count_lines(ATT_SUID_ERR, "");
	SF_CHECK(!stat("/tmp/sf-attach-victim", &st) && st.st_size == 7,
		 "the victim changed: %lld bytes", (long long)st.st_size);
	SF_CHECK(att_dir_entries(ATT_USER_DIR "/dump") == 1, "files made in the dump directory");
	SF_CHECK(att_dir_entries(ATT_USER_DIR "/cache") == 0, "files made in nobody's cache");
	SF_CHECK(att_dir_entries(att_cache_dirs[2]) == entries,
		 "the system cache went from %ld entries to %d", entries,
		 att_dir_entries(att_cache_dirs[2]));
	SF_CHECK(sf_stat_get("attached") == attached,
		 "the set-user-ID run attached: %ld, %ld before",
		 sf_stat_get("attached"), attached);
	att_secure_untrusted(module);
	unlink("/etc/ld.so.preload");

	unlink(ATT_USER_DIR "/dump/index");
	rmdir(ATT_USER_DIR "/dump");
	rmdir(ATT_USER_DIR "/cache");
	rmdir(ATT_USER_DIR);
	unlink(ATT_SUID_ERR);
	unlink("/tmp/sf-attach-victim");
	/* Its cache entry stays for att_cache_remove(); its attachment, if any, goes */
	att_detach_path(ATT_SUID);
	unlink(ATT_SUID);
}

/*
 * The module attaches what it caches as root: a first run under it stores
 * and attaches this program's section, the C library's and the loader's;
 * a process without the module then has them from exec on; a second run
 * under the module leaves them to the kernel.  Then all is detached.
 */
static int att_audit(const char *module)
{
	char self[4096], path[4096], converter[4096], log[] = "/tmp/sf-attach-audit.log";
	long before = sf_stat_get("attached"), now;
	bool made[ARRAY_SIZE(att_cache_dirs)];
	int detached = 0;
	unsigned int i;

	if (!SF_CHECK(readlink("/proc/self/exe", self, sizeof(self) - 1) > 0, "readlink") ||
	    !SF_CHECK(realpath(module, path), "%s: %s", module, strerror(errno)))
		sf_exit();
	self[sizeof(self) - 1] = '\0';
	/*
	 * The system cache, root's: its entries are readable by all.  What
	 * this test makes of it goes at its end: the tests after it run
	 * without a system cache, as before.
	 */
	for (i = 0; i < ARRAY_SIZE(att_cache_dirs); i++)
		made[i] = !mkdir(att_cache_dirs[i], 0755);

	SF_CHECK(att_run_audit(self, path, log) == 0, "the run under the module failed");
	SF_CHECK(att_count_lines(log, "attached: left to the kernel") == 0,
		 "the first run under the module left objects to the kernel, none attached");
	now = sf_stat_get("attached");
	SF_CHECK(now >= before + 2, "%ld attachments after the module ran, %ld before",
		 now, before);
	SF_CHECK(att_run_child(self, "all") == 0, "the run after the module failed");
	SF_CHECK(att_run_audit(self, path, log) == 0, "the second run under the module failed");
	SF_CHECK(att_count_lines(log, "attached: left to the kernel") >= 2,
		 "the second run under the module did not leave its objects to the kernel");
	att_secure(path);

	dl_iterate_phdr(att_detach_one, &detached);
	/*
	 * The module attached its own file too, if it has no SFrame of its
	 * own, and its converter's, which root's first run loaded
	 */
	detached += att_detach_path(path);
	if (att_converter_path(path, converter, sizeof(converter)))
		detached += att_detach_path(converter);
	SF_CHECK(sf_stat_get("attached") == before,
		 "%ld attachments after detaching %d, %ld before",
		 sf_stat_get("attached"), detached, before);
	SF_CHECK(att_run_child(self, "none") == 0, "the detached run failed");
	unlink(log);
	att_cache_remove(made);
	return sf_failed ? 1 : 0;
}

static int att_prctl(const struct sframe_attachment *att)
{
	return prctl(PR_SFRAME_ATTACH, att, 0, 0, 0) ? errno : 0;
}

/* @want from PR_SFRAME_ATTACH of @att, and no attachment made */
static void att_refused(const char *what, const struct sframe_attachment *att, int want)
{
	long before = sf_stat_get("attached");
	int err = att_prctl(att);

	SF_CHECK(err == want, "%s: %s, expected %s", what, strerror(err), strerror(want));
	SF_CHECK(sf_stat_get("attached") == before, "%s: the attachment count moved", what);
}

/* PR_SFRAME_ATTACHED's answer about @addr to a child that is nobody */
static int att_query_as_nobody(unsigned long addr)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(126);
		_exit(att_query(addr) == 1 ? 0 : 1);
	}
	if (pid < 0)
		return -1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* PR_SFRAME_ATTACH of @att in a child that is nobody, without capabilities */
static int att_as_nobody(const struct sframe_attachment *att)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(126);
		_exit(att_prctl(att));
	}
	if (pid < 0)
		return -1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* /sys/kernel/sframe/'s figures: root's alone, as nobody cannot read them */
static void att_sysfs_modes(void)
{
	static const char *const names[] = {
		"sections", "private_bytes", "shared_indexes", "shared_bytes", "attached",
	};
	char path[128];
	struct stat st;
	unsigned int i;
	int status;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/sframe/%s", names[i]);
		if (!SF_CHECK(!stat(path, &st), "%s: %s", path, strerror(errno)))
			continue;
		SF_CHECK((st.st_mode & 07777) == 0400, "%s: mode %o, not 0400", path,
			 st.st_mode & 07777);
		pid = fork();
		if (pid == 0) {
			if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
				_exit(2);
			_exit(open(path, O_RDONLY) < 0 && errno == EACCES ? 0 : 1);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		SF_CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "%s: nobody could read it", path);
	}
}

/* SFrame attached to a file without any, made by the runner */
SF_TEST_ARGS(attach, SF_TEST_SECONDS, SF_ARGS("sf-attach.sframe", "sf-pie"), SF_NO_ARGS)
SF_TEST_ARGS(audit_attach, SF_TEST_SECONDS, SF_ARGS("libsframe-audit.so", SF_CONVERTER),
	     SF_ARGS("--audit", "libsframe-audit.so"))

int main(int argc, char **argv)
{
	const Elf64_Phdr *phdr = (const Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned int i, phnum = getauxval(AT_PHNUM), segs = 0, first;
	struct sframe_attachment att = { .size = sizeof(att) }, bad;
	char self[4096], dir[4096], path[4200], section[4200];
	struct {
		struct sframe_attachment att;
		__u64 more;
	} big = {};
	static union {
		struct sframe_attachment att;
		char page[65536 + 8];
	} huge;
	unsigned long text = (unsigned long)att_leaf;
	int elf, sec, loose, other, wronly;
	long before, max_attached, max_bytes;
	struct stat st;

	sf_harness_enter(argc, argv);

	if (argc == 3 && !strcmp(argv[1], "--child")) {
		/* Under the module: its constructor did the work */
		if (!strcmp(argv[2], "audit"))
			return 0;
		if (!strcmp(argv[2], "secure"))
			return att_secure_child();
		return att_child(strcmp(argv[2], "none"), !strcmp(argv[2], "all"));
	}
	if (argc == 3 && !strcmp(argv[1], "--audit"))
		return att_audit(argv[2]);

	if (!SF_CHECK(readlink("/proc/self/exe", self, sizeof(self) - 1) > 0, "readlink"))
		sf_exit();
	self[sizeof(self) - 1] = '\0';
	snprintf(dir, sizeof(dir), "%s", self);
	*strrchr(dir, '/') = '\0';
	snprintf(section, sizeof(section), "%s/sf-attach.sframe", dir);
	elf = open(self, O_RDONLY);
	sec = att_copy(section, "/tmp/sf-attach.sframe", 0644);
	loose = att_copy(section, "/tmp/sf-attach-loose.sframe", 0666);
	snprintf(path, sizeof(path), "%s/sf-pie", dir);
	other = open(path, O_RDONLY);
	wronly = open("/tmp/sf-attach.sframe", O_WRONLY);
	if (!SF_CHECK(elf >= 0 && sec >= 0 && loose >= 0 && other >= 0 && wronly >= 0 &&
		      !fstat(sec, &st), "opening the files"))
		sf_exit();
	before = sf_stat_get("attached");
	max_attached = sf_param_get("max_attached");

	att.elf_fd = elf;
	att.sframe_fd = sec;
	att.sframe_size = st.st_size;
	att.sframe_vaddr = SF_ATTACH_VADDR;

	/* The first executable segment, for the refusals */
	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_LOAD && (phdr[i].p_flags & PF_X))
			break;
	if (!SF_CHECK(i < phnum, "no executable PT_LOAD"))
		sf_exit();
	first = i;
	att.text_vaddr = phdr[i].p_vaddr;
	att.text_size = phdr[i].p_memsz;

	bad = att;
	bad.flags = 1;
	att_refused("unknown flags", &bad, EINVAL);
	bad = att;
	bad.size = 8;
	att_refused("short structure", &bad, EINVAL);
	bad = att;
	bad.sframe_fd = loose;
	att_refused("section file writable by all", &bad, EACCES);
	bad = att;
	bad.text_vaddr = phdr[i].p_vaddr + phdr[i].p_memsz;
	bad.text_size = 16;
	att_refused("text past the segment", &bad, EINVAL);
	bad = att;
	bad.sframe_size = st.st_size + 1;
	att_refused("a section past the end of its file", &bad, EINVAL);
	bad = att;
	bad.sframe_vaddr = att.text_vaddr + (1UL << 48);
	att_refused("a section 2^48 bytes from its text", &bad, EINVAL);
	huge.att = att;
	huge.att.size = sysconf(_SC_PAGESIZE) + 8;
	att_refused("a structure larger than a page", &huge.att, E2BIG);
	bad = att;
	bad.elf_fd = other;
	att_refused("a file with its own SFrame", &bad, EEXIST);
	bad = att;
	bad.elf_fd = 1000;
	att_refused("a closed descriptor", &bad, EBADF);
	bad = att;
	bad.sframe_fd = wronly;
	att_refused("a section open only for writing", &bad, EBADF);
	big.att = att;
	big.att.size = sizeof(big);
	big.more = 1;
	att_refused("unknown non-zero fields", &big.att, E2BIG);
	if (SF_CHECK(!sf_param_set("max_attached", before), "setting max_attached")) {
		att_refused("past max_attached", &att, ENOSPC);
		sf_param_set("max_attached", max_attached);
	}
	max_bytes = sf_param_get("max_attached_bytes");
	if (SF_CHECK(max_bytes > 0 && !sf_param_set("max_attached_bytes", st.st_size),
		     "setting max_attached_bytes")) {
		/* Its index comes on top of the copy */
		att_refused("past max_attached_bytes", &att, ENOSPC);
		sf_param_set("max_attached_bytes", max_bytes);
	}
	SF_CHECK(att_as_nobody(&att) == EPERM, "nobody attached, or failed otherwise");
	att_sysfs_modes();
	SF_CHECK(prctl(PR_SFRAME_DETACH, elf, 0, 0, 0) && errno == ENOENT,
		 "detach of nothing: %s", strerror(errno));
	SF_CHECK(att_query(text) == 0, "PR_SFRAME_ATTACHED before attaching: %d",
		 att_query(text));
	/* A walk now makes this process wanted, its text mapped before the attach */
	SF_CHECK(!att_walk_whole(), "before attaching: the walk found the chain without SFrame");

	for (i = 0; i < phnum; i++) {
		if (phdr[i].p_type != PT_LOAD || !(phdr[i].p_flags & PF_X))
			continue;
		att.text_vaddr = phdr[i].p_vaddr;
		att.text_size = phdr[i].p_memsz;
		SF_CHECK(!att_prctl(&att), "attach: %s", strerror(errno));
		att_refused("the same text again", &att, EEXIST);
		segs++;
	}
	SF_CHECK(sf_stat_get("attached") == before + segs, "attached: %ld, expected %ld",
		 sf_stat_get("attached"), before + segs);
	att_mapped_before(text);
	SF_CHECK(att_query_as_nobody(text) == 0, "PR_SFRAME_ATTACHED asked by nobody");
	SF_CHECK(att_query((unsigned long)dlsym(RTLD_DEFAULT, "getpid")) == 0,
		 "PR_SFRAME_ATTACHED of the C library's text, not attached");
	SF_CHECK(att_query((unsigned long)&st) == 0, "PR_SFRAME_ATTACHED of the stack");
	SF_CHECK(att_query(0) == 0, "PR_SFRAME_ATTACHED of an address where nothing is mapped");
	SF_CHECK(prctl(PR_SFRAME_ATTACHED, text, 1, 0, 0) == -1 && errno == EINVAL,
		 "PR_SFRAME_ATTACHED with a non-zero third argument");
	/* What becomes of the section's file now is no matter: the kernel has it. */
	SF_CHECK(!ftruncate(wronly, 0) && !fchmod(wronly, 0666),
		 "emptying the section's file: %s", strerror(errno));
	SF_CHECK(att_run_child(self, "attached") == 0, "the attached run failed");

	SF_CHECK(!prctl(PR_SFRAME_DETACH, elf, 0, 0, 0), "detach: %s", strerror(errno));
	SF_CHECK(sf_stat_get("attached") == before, "detached: %ld attachments, expected %ld",
		 sf_stat_get("attached"), before);
	SF_CHECK(att_query(text) == 0, "PR_SFRAME_ATTACHED after detaching: %d",
		 att_query(text));
	/* Again, and all of them at once: one left, then none */
	close(sec);
	sec = att_copy(section, "/tmp/sf-attach.sframe", 0644);
	att.sframe_fd = sec;
	att.text_vaddr = phdr[first].p_vaddr;
	att.text_size = phdr[first].p_memsz;
	SF_CHECK(!att_prctl(&att), "attach again: %s", strerror(errno));
	SF_CHECK(!prctl(PR_SFRAME_DETACH, -1UL, 0, 0, 0), "detach all: %s", strerror(errno));
	SF_CHECK(sf_stat_get("attached") == 0, "detached all: %ld attachments",
		 sf_stat_get("attached"));
	SF_CHECK(prctl(PR_SFRAME_DETACH, -1UL, 0, 0, 0) && errno == ENOENT,
		 "detach all of nothing: %s", strerror(errno));
	SF_CHECK(att_run_child(self, "none") == 0, "the detached run failed");
	close(wronly);
	unlink("/tmp/sf-attach.sframe");
	unlink("/tmp/sf-attach-loose.sframe");
	return sf_failed ? 1 : 0;
}
