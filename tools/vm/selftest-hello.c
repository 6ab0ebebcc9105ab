// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm-run self-test program: dynamically linked; writes known lines to
 * stdout and stderr, checks its argument, reads the file named by it
 * (copied in with --file), calls into libvmgreet.so (another --file, found
 * through RUNPATH $ORIGIN) and exits 3.  "crash" kills itself with SIGSEGV;
 * "warn" logs a fake kernel warning through /dev/kmsg.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *vm_greet(void);

int main(int argc, char **argv)
{
	char buf[256];
	FILE *f;
	int fd;

	if (argc == 2 && !strcmp(argv[1], "crash")) {
		raise(SIGSEGV);
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "warn")) {
		/* What the console shows for a WARN(); /dev/kmsg takes it from user space. */
		fd = open("/dev/kmsg", O_WRONLY);
		if (fd < 0)
			return 1;
		static const char msg[] =
			"<4>WARNING: CPU: 0 PID: 1 at selftest.c:1 vm_run_selftest\n";

		if (write(fd, msg, sizeof(msg) - 1) != sizeof(msg) - 1)
			return 1;
		close(fd);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "alpha beta")) {
		fprintf(stderr, "bad arguments (argc %d)\n", argc);
		return 1;
	}
	printf("stdout line 1\n");
	fflush(stdout);
	fprintf(stderr, "stderr line 1\n");
	printf("stdout line 2: %s\n", vm_greet());
	f = fopen(argv[2], "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		fprintf(stderr, "cannot read %s\n", argv[2]);
		return 1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("file says: %s\n", buf);
	fprintf(stderr, "stderr line 2\n");
	return 3;
}
