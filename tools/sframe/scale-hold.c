// SPDX-License-Identifier: GPL-2.0-only
/*
 * scale-hold: one of the processes tools/bench-scale counts, in its guest.
 * Built without SFrame, so that the only section its processes differ by
 * is the library's.
 *
 *   scale-hold LIB exit	dlopen() LIB, call it, exit (start-up time)
 *   scale-hold LIB hold	dlopen() LIB, call it, write our pid to fd 3,
 *				sleep until killed (an exec'd process)
 *   scale-hold LIB fork N	dlopen() LIB, call it, write our pid to fd 3,
 *				wait for a byte on fd 4, then fork N children
 *				that each write their pid to fd 3 and sleep;
 *				sleep until killed (N forked processes)
 *
 * A pid is 4 bytes, less than PIPE_BUF: writes from many processes to one
 * pipe don't mix.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void hold_ready(void)
{
	int pid = getpid();

	if (write(3, &pid, sizeof(pid)) != sizeof(pid)) {
		perror("scale-hold: fd 3");
		exit(1);
	}
}

static void __attribute__((noreturn)) hold_sleep(void)
{
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long (*fn)(long x);
	void *lib;
	char go;
	long i, n;

	if (argc < 3) {
		fprintf(stderr, "usage: scale-hold LIB exit|hold|fork N\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	fn = lib ? (long (*)(long))dlsym(lib, "scale_0") : NULL;
	if (!fn) {
		fprintf(stderr, "scale-hold: %s: %s\n", argv[1], dlerror());
		return 1;
	}
	/* scale_0(0) is scale_end(0) + 0, through a pointer: 1 */
	if (fn(0) != 1) {
		fprintf(stderr, "scale-hold: %s: scale_0(0) = %ld\n", argv[1], fn(0));
		return 1;
	}
	if (!strcmp(argv[2], "exit"))
		return 0;
	if (!strcmp(argv[2], "hold")) {
		hold_ready();
		hold_sleep();
	}
	n = argc > 3 ? atol(argv[3]) : 0;
	if (strcmp(argv[2], "fork") || n < 1) {
		fprintf(stderr, "scale-hold: bad arguments\n");
		return 2;
	}
	hold_ready();
	if (read(4, &go, 1) != 1) {
		perror("scale-hold: fd 4");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("scale-hold: fork");
			return 1;
		}
		if (!pid) {
			hold_ready();
			hold_sleep();
		}
	}
	hold_sleep();
}
