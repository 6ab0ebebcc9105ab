// SPDX-License-Identifier: GPL-2.0
/*
 * sf-deferred: deferred unwinding asked for from a hard interrupt, as a
 * PMU sample would, through /proc/unwind_deferred_test.  While the test
 * spins in main > spin_a > spin_b > spin_leaf, a timer interrupt asks two
 * works for its stack; on the way back to user space their callbacks must
 * both get the stack of the interrupted spin, walked once, with the cookie
 * the requests were given.  A second round must get another cookie.
 *
 * Then exec, through /proc/unwind_deferred_exec_test: a request, exec's
 * end of the stay with a second request made by the callback (a sample
 * taken while it runs), and a request after it.  The callback must be
 * called twice before exec goes on, both times with the first cookie,
 * and the request after exec must be queued with another cookie.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sf_harness.h"

#define DEFERRED_FILE	"/proc/unwind_deferred_test"
#define DEFERRED_EXEC_FILE	"/proc/unwind_deferred_exec_test"
#define DEFERRED_SPINS	4000000000UL

static volatile int deferred_done;

__attribute__((noinline)) unsigned long spin_leaf(void)
{
	unsigned long i;

	for (i = 0; i < DEFERRED_SPINS && !deferred_done; i++)
		__asm__ volatile("" : : : "memory");
	return i;
}

__attribute__((noinline)) unsigned long spin_b(void)
{
	unsigned long r = spin_leaf();

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

__attribute__((noinline)) unsigned long spin_a(void)
{
	unsigned long r = spin_b();

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

static const char *deferred_sym(unsigned long ip, bool exact)
{
	Dl_info info;

	if (!dladdr((void *)(exact ? ip : ip - 1), &info) || !info.dli_sname)
		return "?";
	return info.dli_sname;
}

/* The note of a round that found the whole stack: the round, its cookie */
#define DEFERRED_ROUND_NOTE	"round %d: cookie %llx, spin_leaf to main from a hard interrupt, one walk for two works"

/* One round; returns the cookie, 0 on failure. */
__attribute__((noinline)) unsigned long long deferred_round(int fd, int round)
{
	static const char *const want[] = { "spin_leaf", "spin_b", "spin_a",
					    "deferred_round", "sf_test_deferred", "main" };
	unsigned long long c1, c2, cb1, cb2;
	int r1, r2, again, same, n, i;
	static char buf[4096];
	unsigned long ip;
	long walks, len;
	char *line;

	deferred_done = 0;
	len = snprintf(buf, sizeof(buf), "%lx", (unsigned long)&deferred_done);
	if (!SF_CHECK(write(fd, buf, len) == len, "arming the timer"))
		return 0;
	spin_a();
	if (!SF_CHECK(deferred_done, "round %d: no callback while spinning", round))
		return 0;

	len = pread(fd, buf, sizeof(buf) - 1, 0);
	if (!SF_CHECK(len > 0, "reading " DEFERRED_FILE))
		return 0;
	buf[len] = 0;
	sf_info("round %d: %s", round, buf);
	n = sscanf(buf, "requests %d %d %d cookies %llx %llx callbacks %llx %llx walks %ld same %d",
		   &r1, &r2, &again, &c1, &c2, &cb1, &cb2, &walks, &same);
	if (!SF_CHECK(n == 9, "round %d: bad first line", round))
		return 0;
	SF_CHECK(r1 == 0 && r2 == 0, "round %d: requests gave %d %d", round, r1, r2);
	SF_CHECK(again == 1, "round %d: a second request gave %d, not 1", round, again);
	SF_CHECK(c1 && c1 == c2, "round %d: cookies %llx %llx", round, c1, c2);
	SF_CHECK(cb1 == c1 && cb2 == c1, "round %d: callbacks got %llx %llx for %llx",
		 round, cb1, cb2, c1);
	SF_CHECK(walks == 1, "round %d: %ld walks for two works", round, walks);
	SF_CHECK(same, "round %d: the works got different stacks", round);

	line = strchr(buf, '\n');
	for (i = 0; line && i < (int)ARRAY_SIZE(want); i++) {
		if (sscanf(line + 1, "0x%lx", &ip) != 1)
			break;
		/* The first address is where the interrupt hit, not a return */
		if (!SF_CHECK(!strcmp(deferred_sym(ip, !i), want[i]),
			      "round %d: frame %d is %s, want %s", round, i,
			      deferred_sym(ip, !i), want[i]))
			break;
		line = strchr(line + 1, '\n');
	}
	if (SF_CHECK(i == (int)ARRAY_SIZE(want),
		     "round %d: %d frames of the spin found", round, i))
		sf_note(DEFERRED_ROUND_NOTE, round, c1);
	return c1;
}

static void deferred_exec(void)
{
	unsigned long long c1, c2, cb1, cb2;
	int fd, r1, r_again, r2, n;
	unsigned int calls;
	char buf[512];
	long len;

	fd = open(DEFERRED_EXEC_FILE, O_RDWR);
	if (!SF_CHECK(fd >= 0, "cannot open " DEFERRED_EXEC_FILE))
		return;
	if (!SF_CHECK(write(fd, "1", 1) == 1, "writing " DEFERRED_EXEC_FILE)) {
		close(fd);
		return;
	}
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (!SF_CHECK(len > 0, "reading " DEFERRED_EXEC_FILE))
		return;
	buf[len] = 0;
	sf_info("exec: %s", buf);
	n = sscanf(buf, "requests %d %d %d cookies %llx %llx callbacks %u %llx %llx",
		   &r1, &r_again, &r2, &c1, &c2, &calls, &cb1, &cb2);
	if (!SF_CHECK(n == 8, "exec: bad line: %s", buf))
		return;
	SF_CHECK(r1 == 0 && r_again == 0, "exec: requests gave %d, %d in the callback",
		 r1, r_again);
	SF_CHECK(calls == 2 && cb1 == c1 && cb2 == c1,
		 "exec: %u callbacks (cookies %llx %llx) for %llx before exec went on",
		 calls, cb1, cb2, c1);
	if (SF_CHECK(r2 == 0 && c2 && c2 != c1,
		     "exec: the request after exec gave %d with cookie %llx (before: %llx)",
		     r2, c2, c1))
		sf_note("exec: the callback's request served before exec, then a new cookie");
}

SF_TEST(deferred)
{
	unsigned long long c1, c2;
	int fd;

	fd = open(DEFERRED_FILE, O_RDWR);
	if (!SF_CHECK(fd >= 0, "cannot open " DEFERRED_FILE))
		sf_exit();
	c1 = deferred_round(fd, 1);
	c2 = deferred_round(fd, 2);
	if (c1 && c2)
		SF_CHECK(c1 != c2, "two stays in the kernel got the same cookie %llx", c1);
	close(fd);
	deferred_exec();
	sf_exit();
}

SF_HARNESS_MAIN
