// SPDX-License-Identifier: GPL-2.0
/*
 * sf-step-prog: the program sf-step single-steps from its first
 * instruction to its exit.  Built with SFrame and without frame pointers;
 * it does what real programs do to a stack: calls through a library and
 * its PLT, a callback from libc (qsort), a variable-length array,
 * recursion, setjmp and longjmp, a tail call, printf and the string
 * functions, the vDSO, and a signal handler that runs in the middle of a
 * call chain.  Each part is small: every instruction of the run is
 * stepped under TCG.
 *
 * Nothing here may read the time: the vDSO's time reads retry while the
 * kernel updates the time under them, and single-stepped under emulation
 * each try outlasts a tick, so a read can retry for minutes (one took
 * 1.1 million instructions).  glibc's malloc reads it to seed its thread
 * cache when getrandom() has no entropy yet, as in a fresh guest: stdout
 * gets a buffer of its own, and nothing else allocates.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

long lib_ustack_mid(long (*cb)(void));

static jmp_buf step_jmp;
static volatile sig_atomic_t step_signalled;
static volatile int step_sink;

static void __attribute__((noinline)) step_handler(int sig)
{
	step_signalled = sig;
}

static int __attribute__((noinline)) step_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* A frame whose size is known only at run time: its CFA needs the FP. */
static int __attribute__((noinline)) step_vla(int n)
{
	volatile int v[n];
	int i, s = 0;

	for (i = 0; i < n; i++)
		v[i] = i;
	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

static int __attribute__((noinline)) step_recurse(int n)
{
	if (!n)
		return step_vla(5);
	return step_recurse(n - 1) + 1;
}

static void __attribute__((noinline)) step_jump(int v)
{
	step_sink = v;
	longjmp(step_jmp, v);
}

static int __attribute__((noinline)) step_leaf(int v)
{
	return v * 3 + step_sink;
}

/* Calls step_leaf() as its last act: the compiler makes it a jump. */
static int __attribute__((noinline)) step_tail(int v)
{
	step_sink = v;
	return step_leaf(v + 1);
}

/* Called back from the library, into the vDSO: not a time read (see above) */
static long step_callback(void)
{
	struct timespec ts;
	long sum = 0;
	int i;

	for (i = 0; i < 3; i++) {
		clock_getres(CLOCK_MONOTONIC, &ts);
		sum += ts.tv_nsec & 1;
	}
	return sum;
}

static void __attribute__((noinline)) step_signal(void)
{
	struct sigaction sa = { .sa_handler = step_handler };

	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
}

int main(int argc, char **argv)
{
	static char out[BUFSIZ];
	int a[8] = { 5, 3, 7, 1, 8, 2, 6, 4 };
	char buf[64];

	setvbuf(stdout, out, _IOFBF, sizeof(out));
	qsort(a, 8, sizeof(a[0]), step_cmp);
	step_sink = step_recurse(3);
	if (!setjmp(step_jmp))
		step_jump(2);
	step_sink += step_tail(argc);
	step_sink += lib_ustack_mid(step_callback);
	snprintf(buf, sizeof(buf), "%d %s", a[0], argv[0]);
	step_sink += strlen(buf);
	step_signal();
	printf("sf-step-prog: %d %d\n", step_sink, (int)step_signalled);
	return step_signalled == SIGUSR1 ? 0 : 1;
}
