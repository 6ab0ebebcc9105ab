// SPDX-License-Identifier: GPL-2.0-only
/*
 * steps CMD [ARG...] [-- CMD [ARG...]]...: runs each command in turn in
 * the vm-run guest, which has no shell, printing "$ CMD ARG..." before
 * each and its exit status after it if that is not 0.  A command run
 * through a dynamic loader ("LOADER --library-path DIR PROGRAM ...", as
 * tools/vm/guest-tool's programs are) is shown as "PROGRAM ...".  One
 * built-in: "size FILE" prints FILE's size in bytes.  Exits with the
 * number of commands that failed.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int step(char **argv)
{
	char **shown = argv;
	struct stat st;
	int status;
	pid_t pid;

	if (argv[1] && argv[2] && argv[3] && !strcmp(argv[1], "--library-path")) {
		shown = argv + 4;
		printf("$ %s", strrchr(argv[3], '/') ? strrchr(argv[3], '/') + 1 : argv[3]);
	} else {
		printf("$");
	}
	for (; *shown; shown++)
		printf(" %s", *shown);
	printf("\n");
	fflush(stdout);

	if (!strcmp(argv[0], "size")) {
		if (!argv[1] || stat(argv[1], &st))
			return 1;
		printf("%lld\n", (long long)st.st_size);
		fflush(stdout);
		return 0;
	}
	pid = fork();
	if (!pid) {
		dup2(1, 2);
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	printf("(exit status %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	fflush(stdout);
	return 1;
}

int main(int argc, char **argv)
{
	int failed = 0, i, start = 1;

	for (i = 1; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "--"))
			continue;
		argv[i < argc ? i : argc] = NULL;
		if (i > start)
			failed += step(argv + start);
		start = i + 1;
	}
	return failed;
}
