/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test programs on kselftest_harness.h.
 *
 * A test is either a body of its own, SF_TEST(name) { ... } (and
 * SF_TEST_TIMEOUT(), SF_TEST_NEEDS() for one that takes longer or needs
 * a file), in a program that ends with SF_HARNESS_MAIN; or the program's
 * own main() run with the test's arguments, SF_TEST_ARGS(), in a program
 * whose main() starts with sf_harness_enter(): one whose modes other
 * tests run too, or whose stacks are judged down to main.
 *
 * The harness forks a process for each test, which runs the test in a
 * process of its own, exec'd afresh from the program's file with
 * SF_BODY_ENV naming the test, and in a process group of its own: the
 * test starts as any process a profiler sees starting (its sections
 * registered from its exec and as its loader maps its libraries).  It is
 * judged once it and everything it left behind are gone: it fails on its
 * exit status (its checks report through sframe_test.h: SF_CHECK(),
 * sf_fail(), sf_exit()), on still running when its time is up (where
 * each of its processes is stuck in the kernel is shown first), and when
 * the registered sections no live process holds are not as before.
 * Exit frees what a process registered; one left that nobody holds is a
 * leak.  (The count of them all is no measure: a test that samples the
 * whole system makes processes it never started register theirs.)
 *
 * A program includes this header once: kselftest_harness.h defines what
 * the harness keeps, once a program.
 */
#ifndef _SF_HARNESS_H
#define _SF_HARNESS_H

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "sf_group.h"
#include "sf_need.h"
#include "sframe_test.h"

/* A body's time, unless its test names another; under TCG, not a measure */
#define SF_TEST_SECONDS		60
/* What the harness adds to a body's time: the kill, the leak check, the report */
#define SF_HARNESS_GRACE	20
#define SF_LEAK_WAIT_MS		2000
#define SF_DIE_WAIT_MS		10000

FIXTURE(sframe) {};
FIXTURE_SETUP(sframe) {}
FIXTURE_TEARDOWN(sframe) {}

/* Waits up to @ms for child @pid to end; false when it has not */
static inline bool sf_harness_wait(pid_t pid, int *status, long ms)
{
	long deadline = sf_now_ms() + ms;

	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);

		if (got == pid || (got < 0 && errno != EINTR))
			return got == pid;
		if (sf_now_ms() > deadline)
			return false;
		usleep(10000);
	}
}

/* Set in a test's process to the test's name: run it, not the harness */
#define SF_BODY_ENV		"SFRAME_TEST_BODY"

struct sf_body {
	const char	*test;
	void		(*fn)(void);
	struct sf_body	*next;
};

static struct sf_body *sf_bodies;

static inline void (*sf_harness_body(const char *name))(void)
{
	struct sf_body *b;

	for (b = sf_bodies; b; b = b->next)
		if (!strcmp(b->test, name))
			return b->fn;
	return NULL;
}

#define SF_NO_ARGS	((const char *const []){ NULL })
#define SF_ARGS(...)	((const char *const []){ __VA_ARGS__, NULL })
#define SF_MAX_ARGS	24

/*
 * Runs test @name, with @args after the program's name, and judges it;
 * a perf event that would take user callchains open meanwhile, unless
 * the test is @idle (see sf_profiler_set())
 */
static inline void sf_harness_run(struct __test_metadata *_metadata, const char *name,
				  const char *const *args, unsigned int seconds, bool idle)
{
	char where[160] = "", self[4096] = "", *argv[SF_MAX_ARGS + 2] = { self };
	long before, after;
	bool in_time, gone;
	int i, status = 0;
	pid_t pid;

	/* By its name, which its comm and perf's samples show */
	ASSERT_LT(0, readlink("/proc/self/exe", self, sizeof(self) - 1))
		TH_LOG("/proc/self/exe: %s", strerror(errno));
	for (i = 0; i < SF_MAX_ARGS && args[i]; i++)
		argv[i + 1] = (char *)args[i];
	ASSERT_TRUE(!args[i]) TH_LOG("more than %d arguments", SF_MAX_ARGS);
	ASSERT_TRUE(sf_profiler_set(!idle)) TH_LOG("perf_event_open: %s", strerror(errno));
	before = sf_sections_unowned();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid) TH_LOG("fork: %s", strerror(errno));
	if (!pid) {
		setpgid(0, 0);
		/* Should the harness kill this process first, the test goes too. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setenv(SF_BODY_ENV, name, 1);
		execv(self, argv);
		printf("FAIL: cannot run %s: %s\n", self, strerror(errno));
		fflush(stdout);
		_exit(127);
	}
	setpgid(pid, pid);	/* also here: no race with the child's own call */
	in_time = sf_harness_wait(pid, &status, seconds * 1000L);
	if (!in_time) {
		printf("# the test's processes after %u s:\n", seconds);
		sf_group_show(pid, where, sizeof(where));
	}
	/* Whatever the body left in its group goes too. */
	gone = sf_group_kill(pid, SF_DIE_WAIT_MS);
	if (!in_time)
		waitpid(pid, &status, 0);
	ASSERT_TRUE(in_time) TH_LOG("no result within %u s; first: %s", seconds,
				    where[0] ? where : "none left");
	ASSERT_TRUE(gone) TH_LOG("the test's processes outlived SIGKILL by %d s",
				 SF_DIE_WAIT_MS / 1000);
	ASSERT_FALSE(WIFSIGNALED(status)) TH_LOG("killed by signal %d (%s)", WTERMSIG(status),
						 strsignal(WTERMSIG(status)));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("the test's checks failed");
	/* Processes outside the test it sampled may have registered theirs meanwhile */
	if (before == LONG_MIN)
		return;
	after = sf_sections_unowned_settle(before, SF_LEAK_WAIT_MS);
	EXPECT_EQ(before, after)
		TH_LOG("leak: %ld registered sections no process held before the test, %ld after",
		       before, after);
}

/* False, the test skipped with why, when a file of @needs is not beside the program */
static inline bool sf_harness_needs(struct __test_metadata *_metadata,
				    const char *const *needs)
{
	char why[256];

	for (; *needs; needs++)
		if (!sf_need(*needs, why, sizeof(why)))
			SKIP(return false, "%s", why);
	return true;
}

/*
 * SF_TEST_NEEDS(name, seconds, file...) { body }: a test whose body
 * takes @seconds, skipped unless each file is beside the program
 */
#define SF_TEST_NEEDS(name, seconds, ...)					\
	void sf_test_##name(void);						\
	static struct sf_body sf_body_##name = { .test = #name,		\
						.fn = sf_test_##name };	\
	static void __attribute__((constructor)) sf_register_##name(void)	\
	{									\
		sf_body_##name.next = sf_bodies;				\
		sf_bodies = &sf_body_##name;					\
	}									\
	static const char *const sf_needs_##name[] = { __VA_ARGS__, NULL };	\
	static const unsigned int sf_seconds_##name = (seconds);		\
	TEST_F_TIMEOUT(sframe, name, sf_seconds_##name + SF_HARNESS_GRACE)	\
	{									\
		if (sf_harness_needs(_metadata, sf_needs_##name))		\
			sf_harness_run(_metadata, #name, SF_NO_ARGS,		\
				       sf_seconds_##name, false);		\
	}									\
	void sf_test_##name(void)

#define SF_TEST_TIMEOUT(name, seconds)	SF_TEST_NEEDS(name, seconds, NULL)
#define SF_TEST(name)			SF_TEST_TIMEOUT(name, SF_TEST_SECONDS)

/*
 * SF_TEST_ARGS(name, seconds, needs, args): a test that runs the
 * program's main() with @args (SF_ARGS(...) or SF_NO_ARGS) for up to
 * @seconds, skipped unless each file of @needs (the same) is beside it.
 * SF_TEST_ARGS_IDLE(): the same, run as nobody profiles.
 */
#define __SF_TEST_ARGS(name, seconds, needs, args, idle)			\
	static const char *const *const sf_needs_##name = needs;		\
	static const char *const *const sf_args_##name = args;			\
	static const unsigned int sf_seconds_##name = (seconds);		\
	TEST_F_TIMEOUT(sframe, name, sf_seconds_##name + SF_HARNESS_GRACE)	\
	{									\
		if (sf_harness_needs(_metadata, sf_needs_##name))		\
			sf_harness_run(_metadata, #name, sf_args_##name,	\
				       sf_seconds_##name, idle);		\
	}

#define SF_TEST_ARGS(name, seconds, needs, args)				\
	__SF_TEST_ARGS(name, seconds, needs, args, false)
#define SF_TEST_ARGS_IDLE(name, seconds, needs, args)				\
	__SF_TEST_ARGS(name, seconds, needs, args, true)

/* The harness's own options, as test_harness_run() takes them */
static inline bool sf_harness_option(const char *arg)
{
	return arg[0] == '-' && arg[1] && strchr("hlFfVvTtr", arg[1]) && !arg[2];
}

/*
 * The start of main() in a program of SF_TEST_ARGS() tests: returns in
 * a test's process, and when the program is run with arguments of its
 * own (another test's helper); runs the harness otherwise.
 */
static inline void sf_harness_enter(int argc, char **argv)
{
	if (getenv(SF_BODY_ENV)) {
		unsetenv(SF_BODY_ENV);
		return;
	}
	if (argc > 1 && !sf_harness_option(argv[1]))
		return;
	exit(test_harness_run(argc, argv));
}

/*
 * main() of a program of SF_TEST() bodies: the harness, or in a test's
 * process its body, called from main itself (always inlined) so that
 * the body's stacks end in main as a program's do
 */
static inline __attribute__((always_inline, noreturn)) void
sf_harness_main(int argc, char **argv)
{
	const char *name = getenv(SF_BODY_ENV);
	void (*body)(void);

	if (!name)
		exit(test_harness_run(argc, argv));
	body = sf_harness_body(name);
	if (!body) {
		sf_fail("no test %s in this program", name);
		sf_exit();
	}
	/* What the body runs is no test's body. */
	unsetenv(SF_BODY_ENV);
	body();
	sf_exit();
}

#define SF_HARNESS_MAIN	int main(int argc, char **argv) { sf_harness_main(argc, argv); }

#endif /* _SF_HARNESS_H */
