// SPDX-License-Identifier: GPL-2.0
/*
 * sf-share: a library's FDE index is built once and shared by every
 * process that maps it.  The program dlopen()s libsf-many.so (over 4,096
 * FDEs), then starts SF_SHARE_N children holding it mapped: forked ones,
 * then ones that exec this program again (--hold) and dlopen() it
 * themselves.  While they live, /sys/kernel/sframe must show no new
 * shared index and no more shared bytes, each child's /proc/<pid>/sframe
 * the parent's shared index for the library and no bytes of its own for
 * it, and the kernel memory held for the children alone (private_bytes)
 * at most SF_SHARE_MAX_EACH a child.  Once they are gone, every figure is
 * what it was.
 *
 * sf-share --audit MODULE: the same for the sections libsframe-audit.so
 * registers by prctl() from its cache files, which it maps read-only at
 * one distance from their text in every process.  Children exec'd under
 * LD_AUDIT=MODULE, its cache warmed by one child before, must use the
 * first child's indexes for all of them, hold no bytes of their own for
 * them, and cost at most SF_SHARE_MAX_EACH each.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_harness.h"

#define SF_SHARE_LIB		"libsf-many.so"
#define SF_SHARE_N		32
/* The goal of issue 23: SFrame adds at most 4 kB to a process */
#define SF_SHARE_MAX_EACH	4096
#define SF_HOLD_READY		3	/* --hold: fd to say it is ready on */
#define SF_HOLD_GO		4	/* --hold: fd whose EOF ends it */

struct sf_stats {
	long	sections;
	long	private_bytes;
	long	shared_indexes;
	long	shared_bytes;
};

static bool sf_stats_read(struct sf_stats *s, const char *step)
{
	s->sections = sf_stat_get("sections");
	s->private_bytes = sf_stat_get("private_bytes");
	s->shared_indexes = sf_stat_get("shared_indexes");
	s->shared_bytes = sf_stat_get("shared_bytes");
	return SF_CHECK(s->sections >= 0 && s->private_bytes >= 0 &&
			s->shared_indexes >= 0 && s->shared_bytes >= 0,
			"%s: cannot read " SF_STATS_DIR, step);
}

/* The library's line in /proc/@pid/sframe; false if not exactly one */
static bool sf_lib_line(const char *pid, struct sf_line *line, const char *step)
{
	const struct sf_line *l;
	struct sf_set got;
	int n = 0;

	if (!SF_CHECK(!sf_actual(pid, &got), "%s: cannot read /proc/%s/sframe", step, pid))
		return false;
	l = sf_set_find_path(&got, "/" SF_SHARE_LIB, &n);
	if (SF_CHECK(n == 1 && l->parsed, "%s: %d lines for %s in /proc/%s/sframe", step, n,
		     SF_SHARE_LIB, pid))
		*line = *l;
	sf_set_free(&got);
	return n == 1 && l->parsed;
}

/* A child: the library mapped, ready said, then wait for EOF on @go */
static void __attribute__((noreturn)) sf_hold(int ready, int go, bool open)
{
	char c;

	if (open && !dlopen(SF_SHARE_LIB, RTLD_NOW))
		_exit(2);
	if (write(ready, "r", 1) != 1)
		_exit(3);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * Start @n children, forked, or exec'd with @hold (--hold, --audit-hold);
 * their pids in @pids
 */
static bool sf_start(pid_t *pids, int n, const char *hold, int *go_out)
{
	int ready[2], go[2], i;
	char c;

	if (!SF_CHECK(!pipe(ready) && !pipe(go), "pipe"))
		return false;
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			close(ready[0]);
			close(go[1]);
			if (!hold)
				sf_hold(ready[1], go[0], false);
			if (dup2(ready[1], SF_HOLD_READY) < 0 || dup2(go[0], SF_HOLD_GO) < 0)
				_exit(4);
			execl("/proc/self/exe", "sf-share", hold, (char *)NULL);
			_exit(5);
		}
		if (!SF_CHECK(pids[i] > 0, "fork"))
			return false;
	}
	close(ready[1]);
	close(go[0]);
	*go_out = go[1];
	for (i = 0; i < n; i++) {
		if (!SF_CHECK(read(ready[0], &c, 1) == 1, "child %d never got ready", i))
			return false;
	}
	close(ready[0]);
	return true;
}

static void sf_stop(pid_t *pids, int n, int go)
{
	int i, status;

	close(go);
	for (i = 0; i < n; i++) {
		SF_CHECK(waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status) &&
			 !WEXITSTATUS(status), "child %d ended badly (%#x)", i, status);
	}
}

/* Once the children are gone, every figure must come back to @s0's. */
static void sf_settle(const struct sf_stats *s0, const char *kind)
{
	struct sf_stats s;
	int i;

	SF_CHECK(sf_sections_settle(s0->sections, 5000) == s0->sections,
		 "%s: sections not back at %ld", kind, s0->sections);
	/* Memory goes after an RCU grace period, once the sections are gone. */
	for (i = 0; i < 250 && sf_stats_read(&s, kind); i++) {
		if (s.shared_indexes == s0->shared_indexes &&
		    s.private_bytes == s0->private_bytes)
			break;
		usleep(20000);
	}
	if (sf_stats_read(&s, kind))
		SF_CHECK(s.shared_indexes == s0->shared_indexes &&
			 s.private_bytes == s0->private_bytes,
			 "%s: after the children: %ld indexes, %ld private bytes; were %ld, %ld",
			 kind, s.shared_indexes, s.private_bytes, s0->shared_indexes,
			 s0->private_bytes);
}

/* Children of one kind: what they share, and what each costs */
static void sf_round(const char *kind, bool exec, const struct sf_line *parent)
{
	struct sf_stats s0, s1;
	pid_t pids[SF_SHARE_N];
	struct sf_line l;
	char pid[32];
	long each;
	int go, i;

	if (!sf_stats_read(&s0, kind) ||
	    !sf_start(pids, SF_SHARE_N, exec ? "--hold" : NULL, &go))
		return;
	if (sf_stats_read(&s1, kind)) {
		each = (s1.private_bytes - s0.private_bytes) / SF_SHARE_N;
		SF_CHECK(s1.shared_indexes == s0.shared_indexes,
			 "%s: %ld shared indexes, %ld before the children", kind,
			 s1.shared_indexes, s0.shared_indexes);
		SF_CHECK(s1.shared_bytes == s0.shared_bytes, "%s: shared bytes %ld, were %ld",
			 kind, s1.shared_bytes, s0.shared_bytes);
		SF_CHECK(s1.sections > s0.sections, "%s: no sections for the children", kind);
		SF_CHECK(each <= SF_SHARE_MAX_EACH, "%s: %ld bytes a child", kind, each);
		sf_note("%s: %d children, %ld bytes of kernel memory each, %ld sections each; "
			"the library's index (%lu bytes, %lu FDEs) shared", kind, SF_SHARE_N,
			each, (s1.sections - s0.sections) / SF_SHARE_N, parent->shared,
			parent->fdes);
	}
	for (i = 0; i < SF_SHARE_N; i++) {
		snprintf(pid, sizeof(pid), "%d", (int)pids[i]);
		if (sf_lib_line(pid, &l, kind))
			SF_CHECK(l.shared == parent->shared && !l.bytes,
				 "%s: child %d: shared=%lu bytes=%lu, the parent's shared=%lu",
				 kind, i, l.shared, l.bytes, parent->shared);
	}
	sf_stop(pids, SF_SHARE_N, go);
	sf_settle(&s0, kind);
}

/* @pid's explicit registrations ("[jit]"); -1 if /proc cannot be read */
static int sf_explicit(pid_t pid, struct sf_set *got, const char *step)
{
	char p[32];
	int i, n = 0;

	snprintf(p, sizeof(p), "%d", (int)pid);
	if (!SF_CHECK(!sf_actual(p, got), "%s: cannot read /proc/%s/sframe", step, p))
		return -1;
	for (i = 0; i < got->n; i++) {
		const struct sf_line *l = &got->line[i];

		if (l->parsed && !strcmp(l->path, "[jit]")) {
			got->line[n++] = *l;
			SF_CHECK(l->shared && !l->bytes,
				 "%s: not shared, or bytes of its own: %s", step, l->text);
		}
	}
	got->n = n;
	return n;
}

/* Is every one of @child's registrations one of @first's indexes? */
static void sf_same_indexes(const struct sf_set *first, const struct sf_set *child,
			    const char *step)
{
	int i, j;

	SF_CHECK(child->n == first->n, "%s: %d explicit sections, the first child %d",
		 step, child->n, first->n);
	for (i = 0; i < child->n; i++) {
		const struct sf_line *l = &child->line[i];

		for (j = 0; j < first->n; j++) {
			if (first->line[j].shared == l->shared &&
			    first->line[j].fdes == l->fdes)
				break;
		}
		SF_CHECK(j < first->n, "%s: an index the first child has not: %s", step,
			 l->text);
	}
}

/* Runs this program with @arg to its end; true if it exited 0 */
static bool sf_run(const char *arg)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		execl("/proc/self/exe", "sf-share", arg, (char *)NULL);
		_exit(5);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

static void sf_rm_cache(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp)))
		unlinkat(dirfd(dp), d->d_name, 0);
	if (dp)
		closedir(dp);
	rmdir(dir);
}

/* The module's own share, after the children's */
#define SF_SHARE_AUDIT_NOTE	"audit: the module's %d sections, the first child's %ld indexes (%ld bytes)"

static void sf_audit(const char *module)
{
	char path[PATH_MAX], dir[] = "/tmp/sf-share-cache.XXXXXX";
	struct sf_set want, got;
	struct sf_stats s0, s1, s2;
	pid_t first, pids[SF_SHARE_N];
	int go_first, go, i, n;
	char step[64];
	long each;

	if (!SF_CHECK(realpath(module, path), "%s: %m", module) ||
	    !SF_CHECK(mkdtemp(dir), "mkdtemp: %m"))
		return;
	if (!SF_CHECK(!setenv("LD_AUDIT", path, 1) &&
		      !setenv("SFRAME_AUDIT_CACHE", dir, 1), "setenv: %m"))
		goto out;
	if (!sf_stats_read(&s0, "audit") ||
	    !SF_CHECK(sf_run("--exit"), "the run that fills the cache failed"))
		goto out;
	/* Its sections go a grace period after it: from nothing, the first child */
	sf_settle(&s0, "the run that fills the cache");
	if (!sf_stats_read(&s0, "audit") ||
	    !sf_start(&first, 1, "--audit-hold", &go_first))
		goto out;
	n = sf_explicit(first, &want, "first child");
	SF_CHECK(n >= 2, "first child: %d explicit sections, not ld.so's and libc's", n);
	if (!sf_stats_read(&s1, "audit") ||
	    !sf_start(pids, SF_SHARE_N, "--audit-hold", &go))
		goto stop_first;
	if (sf_stats_read(&s2, "audit")) {
		each = (s2.private_bytes - s1.private_bytes) / SF_SHARE_N;
		SF_CHECK(s2.shared_indexes == s1.shared_indexes &&
			 s2.shared_bytes == s1.shared_bytes,
			 "audit: %ld shared indexes, %ld bytes; %ld and %ld before the children",
			 s2.shared_indexes, s2.shared_bytes, s1.shared_indexes, s1.shared_bytes);
		SF_CHECK(each <= SF_SHARE_MAX_EACH, "audit: %ld bytes a child", each);
		sf_note("audit: %d children, %ld bytes of kernel memory each, %ld sections each",
			SF_SHARE_N, each, (s2.sections - s1.sections) / SF_SHARE_N);
		sf_note(SF_SHARE_AUDIT_NOTE, n, s1.shared_indexes - s0.shared_indexes,
			s1.shared_bytes - s0.shared_bytes);
	}
	for (i = 0; i < SF_SHARE_N; i++) {
		snprintf(step, sizeof(step), "child %d", i);
		if (sf_explicit(pids[i], &got, step) >= 0)
			sf_same_indexes(&want, &got, step);
		sf_set_free(&got);
	}
	sf_stop(pids, SF_SHARE_N, go);
stop_first:
	sf_set_free(&want);
	sf_stop(&first, 1, go_first);
	sf_settle(&s0, "audit");
out:
	sf_rm_cache(dir);
}

SF_TEST_ARGS(share, SF_TEST_SECONDS, SF_NO_ARGS, SF_NO_ARGS)
/* The audit module's cache files: their indexes shared the same way */
SF_TEST_ARGS(audit_share, SF_TEST_SECONDS, SF_ARGS("libsframe-audit.so", SF_CONVERTER),
	     SF_ARGS("--audit", "libsframe-audit.so"))

int main(int argc, char **argv)
{
	struct sf_line parent;

	sf_harness_enter(argc, argv);

	if (argc > 1 && !strcmp(argv[1], "--hold"))
		sf_hold(SF_HOLD_READY, SF_HOLD_GO, true);
	if (argc > 1 && !strcmp(argv[1], "--audit-hold"))
		sf_hold(SF_HOLD_READY, SF_HOLD_GO, false);
	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	if (argc > 2 && !strcmp(argv[1], "--audit")) {
		sf_audit(argv[2]);
		sf_exit();
	}
	if (!SF_CHECK(dlopen(SF_SHARE_LIB, RTLD_NOW), "dlopen: %s", dlerror()) ||
	    !sf_lib_line("self", &parent, "parent"))
		sf_exit();
	SF_CHECK(parent.fdes > 4096 && parent.shared >= 12 * parent.fdes && !parent.bytes,
		 "parent: %s: fdes=%lu bytes=%lu shared=%lu", SF_SHARE_LIB, parent.fdes,
		 parent.bytes, parent.shared);
	sf_round("forked", false, &parent);
	sf_round("exec'd", true, &parent);
	sf_exit();
}
