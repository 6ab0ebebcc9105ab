// SPDX-License-Identifier: GPL-2.0
/*
 * (d) fork() without exec.  The child starts with exactly the parent's
 * lines, explicit registrations included, and the system-wide count grows
 * by its sections.  The parent then unmaps a library's text and drops its
 * JIT registration: its own lines change, the child's do not, and the
 * child sees the parent's new lines in /proc/<ppid>/sframe.  When the
 * child is gone the count is back.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sframe_jit.h"
#include "sframe_loader.h"
#include "sf_harness.h"

/* The oracle's lines plus @jit, the way the kernel should show them */
static bool sf_want_with(struct sf_set *want, const char *pid, const struct sf_line *jit)
{
	if (sf_expected(pid, want))
		return false;
	if (jit) {
		sf_set_add(want, jit);
		sf_set_sort(want);
	}
	return true;
}

static void sf_child(struct sf_set *parent_lines, int ready, int go)
{
	char ppid[32], c;
	struct sf_set want, got;

	snprintf(ppid, sizeof(ppid), "%d", (int)getppid());
	sf_check_want(parent_lines, "child: right after fork");
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1) {
		sf_fail("child: lost the parent");
		sf_exit();
	}
	sf_check_want(parent_lines, "child: after the parent's changes");

	/* The parent's file, read from here, shows its changes. */
	if (SF_CHECK(sf_want_with(&want, ppid, NULL), "child: no oracle for the parent") &&
	    SF_CHECK(!sf_actual(ppid, &got), "child: cannot read /proc/%s/sframe", ppid)) {
		if (sf_compare(&want, &got, stdout, "#   "))
			sf_fail("child: /proc/%s/sframe is not as expected", ppid);
	}
	sf_exit();
}

SF_TEST(fork)
{
	unsigned long page = sf_page_size(), region;
	struct sf_set want, parent_lines;
	struct sframe_registration reg;
	int ready[2], go[2], status, k;
	char c;
	struct sf_line l, jit;
	struct sf_image img;
	long sections0;
	size_t len;
	pid_t pid;

	if (!sf_instance(SF_BIG_LIB, &img, &l, "library mapped"))
		sf_exit();

	/* A JIT block: two pages of code, one page with its SFrame section. */
	region = (unsigned long)mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(region != (unsigned long)MAP_FAILED, "mmap") ||
	    !SF_CHECK(!mprotect((void *)region, 2 * page, PROT_READ | PROT_EXEC), "mprotect"))
		sf_exit();
	len = sf_jit_build((void *)(region + 2 * page), SFRAME_VERSION_3, region, 2 * page);
	sf_jit_reg(&reg, (void *)(region + 2 * page), len, region, 2 * page);
	if (!SF_CHECK(!sf_jit_register(&reg), "PR_SFRAME_REGISTER failed"))
		sf_exit();
	sf_jit_line(&jit, &reg, SFRAME_VERSION_3, 1);

	if (!SF_CHECK(sf_want_with(&want, "self", &jit), "no oracle") ||
	    !sf_check_want(&want, "parent before fork") ||
	    !sf_read_self(&parent_lines, "parent before fork"))
		sf_exit();
	sf_set_free(&want);
	k = sf_set_sections(&parent_lines);
	sections0 = sf_stat_get("sections");

	if (pipe(ready) || pipe(go)) {
		sf_fail("pipe");
		sf_exit();
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		sf_fail("fork");
		sf_exit();
	}
	if (!pid) {
		close(ready[0]);
		close(go[1]);
		sf_child(&parent_lines, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	if (!SF_CHECK(read(ready[0], &c, 1) == 1, "the child did not get ready")) {
		waitpid(pid, &status, 0);
		sf_exit();
	}
	sf_check_sections(sections0 + k, "child running");

	munmap((void *)sf_page_down(l.text_start),
	       sf_page_up(l.text_end) - sf_page_down(l.text_start));
	SF_CHECK(!sf_jit_unregister(reg.text_start), "PR_SFRAME_UNREGISTER failed");
	sf_check_oracle("parent after unmapping and unregistering");
	sf_check_sections(sections0 + k - 2, "parent after unmapping and unregistering");

	SF_CHECK(write(go[1], "g", 1) == 1, "the child is gone");
	waitpid(pid, &status, 0);
	SF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	sf_check_oracle("parent after the child exited");
	sf_check_sections(sections0 - 2, "after the child exited");
	sf_exit();
}

SF_HARNESS_MAIN
