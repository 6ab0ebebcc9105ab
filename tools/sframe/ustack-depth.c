// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustack-depth: the cost of the kernel's user stack walk against the depth
 * of the stack, from /proc/thread-self/ustack read at the bottom of DEPTH
 * frames.  The frames cycle through the functions of depth-fns.c, which
 * tools/bench-scale generates (256 of them, more than a section's rule
 * cache holds), each calling the next through a pointer, so the walk looks
 * up a different function at each step.  Raises unwind_user.max_frames to
 * its limit first (16384).  Built with SFrame and with frame pointers
 * only, as ustack-bench is.
 *
 *   ustack-depth BUDGET DEPTH...
 *	reads the file max(5, BUDGET / DEPTH) times at each DEPTH; prints
 *	"depth <DEPTH> frames <lines> method <m> <ns> ns a read <ns> ns a frame"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sf_syscall.h"

#define MAX_FRAMES	"16384"
#define MAX_FRAMES_PARAM "/sys/module/unwind_user/parameters/max_frames"

long depth_start(long n, long x);	/* depth-fns.c */

static char stack_text[1 << 20];
static int stack_fd;
static long rounds;
static double read_ns;
static long read_len;

static double depth_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Called by the deepest of depth-fns.c's frames: reads the file @rounds times */
__attribute__((noinline)) long depth_bottom(long x)
{
	double t = depth_now();
	long i;

	for (i = 0; i < rounds; i++) {
		read_len = sf_syscall4(SYS_pread64, stack_fd, (long)stack_text,
				       sizeof(stack_text) - 1, 0);
		if (read_len <= 0)
			return -1;
	}
	read_ns = (depth_now() - t) / rounds;
	return x;
}

static int set_max_frames(void)
{
	char back[32] = "";
	int fd = open(MAX_FRAMES_PARAM, O_RDWR);
	ssize_t n;

	if (fd < 0 || write(fd, MAX_FRAMES, strlen(MAX_FRAMES)) != strlen(MAX_FRAMES)) {
		perror(MAX_FRAMES_PARAM);
		return -1;
	}
	n = pread(fd, back, sizeof(back) - 1, 0);
	close(fd);
	if (n <= 0) {
		perror(MAX_FRAMES_PARAM);
		return -1;
	}
	if (atol(back) != atol(MAX_FRAMES)) {
		fprintf(stderr, "%s reads %s after writing " MAX_FRAMES "\n",
			MAX_FRAMES_PARAM, back);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long budget, depth, lines;
	char method[8];
	char *p;
	int i;

	budget = argc > 2 ? atol(argv[1]) : 0;
	if (budget < 1) {
		fprintf(stderr, "usage: ustack-depth BUDGET DEPTH...\n");
		return 2;
	}
	if (set_max_frames())
		return 1;
	stack_fd = open("/proc/thread-self/ustack", O_RDONLY);
	if (stack_fd < 0) {
		perror("/proc/thread-self/ustack");
		return 1;
	}
	for (i = 2; i < argc; i++) {
		depth = atol(argv[i]);
		rounds = budget / (depth > 0 ? depth : 1);
		if (rounds < 5)
			rounds = 5;
		if (depth < 1 || depth_start(depth, 1) != 1) {
			fprintf(stderr, "reading the stack %ld frames deep failed\n", depth);
			return 1;
		}
		stack_text[read_len] = 0;
		for (lines = 0, p = stack_text; (p = strchr(p, '\n')); p++)
			lines++;
		/* Every generated frame is in the file, and the walk went through them */
		if (lines < depth) {
			fprintf(stderr, "%ld frames deep: the file has %ld\n", depth, lines);
			return 1;
		}
		/* The method of a frame in the middle of the generated ones */
		p = stack_text;
		for (long l = 0; l < depth / 2 + 1 && p; l++)
			p = strchr(p, '\n') + 1;
		method[0] = 0;
		if (!p || sscanf(p, "%*s %7s", method) != 1) {
			fprintf(stderr, "%ld frames deep: no method\n", depth);
			return 1;
		}
		printf("depth %ld frames %ld method %s %.0f ns a read %.1f ns a frame\n",
		       depth, lines, method, read_ns, read_ns / lines);
	}
	return 0;
}
