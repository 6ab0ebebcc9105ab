// SPDX-License-Identifier: GPL-2.0-only
/*
 * /init of the tools/vm-run guest: runs one user program and hands its
 * stdout, stderr and exit status back to the host on the console.
 *
 * The per-run archive tools/vm-run appends to the initramfs holds the
 * program's files in /work and its argument vector, NUL separated, in
 * /vm/argv (no /vm/argv: run nothing, report exit 0; the KVM probe does
 * that).  The program runs in /work with stdin from /dev/null and its
 * stdout and stderr captured to files in the RAM root file system, while
 * the kernel keeps printing to the console, so a panic or an oops shows up
 * live.  Once the program has exited, kernel printing to the console is
 * switched off so that nothing interleaves with the frames
 *
 *	@@SFVM O <hex>		a chunk of stdout
 *	@@SFVM E <hex>		a chunk of stderr
 *	@@SFVM X exit <n>	or  @@SFVM X signal <n>
 *	@@SFVM END
 *
 * and the kernel messages logged since the program started are replayed
 * from /dev/kmsg after the frames, so the host still scans them.  Then the guest reboots,
 * which ends QEMU (-no-reboot).
 *
 * Built static with the target's cross gcc; uses nothing but libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define WORK_DIR	"/work"
#define ARGV_FILE	"/vm/argv"
#define OUT_FILE	"/vm/stdout"
#define ERR_FILE	"/vm/stderr"
#define FRAME		"@@SFVM "
#define CHUNK		32	/* payload bytes per frame: lines stay under 80 columns */

#define SYSLOG_ACTION_CONSOLE_OFF	6
#define SYSLOG_ACTION_CONSOLE_ON	7

static int console = -1;

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= n;
	}
}

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (console >= 0 && n > 0)
		write_all(console, buf, n);
}

static void power_off(void)
{
	if (console >= 0)
		tcdrain(console);
	sync();
	/*
	 * Reboot rather than power off: QEMU runs with -no-reboot, so this ends
	 * it on every arch, while RB_POWER_OFF only halts a kernel without a
	 * power-off driver (the x86_64 KUnit kernel has no ACPI).
	 */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		say("vm-init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* Reads /vm/argv; returns NULL if it does not exist. */
static char **read_argv(void)
{
	static char buf[1 << 16];
	char **argv;
	ssize_t len = 0, n;
	int fd, argc = 0, i;
	char *p;

	fd = open(ARGV_FILE, O_RDONLY);
	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	if (len == 0)
		return NULL;
	if (buf[len - 1] != '\0')
		buf[len++] = '\0';
	for (p = buf; p < buf + len; p += strlen(p) + 1)
		argc++;
	argv = calloc(argc + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	for (p = buf, i = 0; i < argc; p += strlen(p) + 1)
		argv[i++] = p;
	return argv;
}

static void exec_command(char **argv)
{
	static char *envp[] = {
		"PATH=" WORK_DIR ":/bin",
		"HOME=" WORK_DIR,
		"LD_LIBRARY_PATH=" WORK_DIR,
		"TERM=dumb",
		NULL,
	};
	char path[4096];
	const char *cmd = argv[0];
	int fd;

	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		_exit(125);
	fd = open(OUT_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 1) < 0)
		_exit(125);
	fd = open(ERR_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 2) < 0)
		_exit(125);
	for (fd = 3; fd < 64; fd++)
		close(fd);
	setsid();

	if (!strchr(cmd, '/')) {
		snprintf(path, sizeof(path), WORK_DIR "/%s", cmd);
		if (access(path, F_OK))
			snprintf(path, sizeof(path), "/bin/%s", cmd);
		cmd = path;
	}
	execve(cmd, argv, envp);
	dprintf(2, "vm-init: cannot run %s: %s\n", cmd, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static void send_file(const char *file, char tag)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char in[CHUNK];
	char out[sizeof(FRAME) + 4 + 2 * CHUNK];
	ssize_t n, i;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return;
	while ((n = read(fd, in, sizeof(in))) > 0) {
		char *p = out;

		memcpy(p, FRAME, sizeof(FRAME) - 1);
		p += sizeof(FRAME) - 1;
		*p++ = tag;
		*p++ = ' ';
		for (i = 0; i < n; i++) {
			*p++ = hex[in[i] >> 4];
			*p++ = hex[in[i] & 15];
		}
		*p++ = '\n';
		write_all(console, out, p - out);
	}
	close(fd);
}

/* Copies kernel messages logged since @kmsg was positioned to the console. */
static void replay_kmsg(int kmsg)
{
	char rec[8192];
	ssize_t n;

	if (kmsg < 0)
		return;
	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		say("[kmsg] %.*s", (int)n, rec);
	}
	close(kmsg);
}

int main(void)
{
	char **argv;
	int status = 0, kmsg;
	pid_t pid;

	mount_fs("devtmpfs", "/dev", "devtmpfs");
	console = open("/dev/console", O_WRONLY | O_NOCTTY);
	mount_fs("proc", "/proc", "proc");
	/* What udev would add, and tools (bpftrace's clang) use */
	symlink("/proc/self/fd", "/dev/fd");
	mount_fs("sysfs", "/sys", "sysfs");
	/* Where tracers (bpftrace, perf trace) look for events */
	mount_fs("tracefs", "/sys/kernel/tracing", "tracefs");
	/*
	 * The initramfs's root comes world-writable (rootfs's default); a
	 * real system's is root's alone, and tests of code that trusts root's
	 * directories (the audit module's system cache) need it so.
	 */
	if (chmod("/", 0755))
		say("vm-init: chmod /: %s\n", strerror(errno));
	mkdir("/tmp", 01777);
	chmod("/tmp", 01777);
	mkdir(WORK_DIR, 0755);
	if (chdir(WORK_DIR))
		say("vm-init: chdir %s: %s\n", WORK_DIR, strerror(errno));

	/*
	 * Everything the kernel logs from here on is replayed after the frames:
	 * a record logged just before the console goes off may not have been
	 * printed yet.  Records printed live show up twice; that is harmless.
	 */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);

	argv = read_argv();
	if (argv) {
		pid = fork();
		if (pid < 0) {
			say("vm-init: fork: %s\n", strerror(errno));
			power_off();
		}
		if (pid == 0)
			exec_command(argv);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}

	if (console >= 0)
		tcdrain(console);
	klogctl(SYSLOG_ACTION_CONSOLE_OFF, NULL, 0);
	say("\n");
	send_file(OUT_FILE, 'O');
	send_file(ERR_FILE, 'E');
	if (WIFSIGNALED(status))
		say(FRAME "X signal %d\n", WTERMSIG(status));
	else
		say(FRAME "X exit %d\n", WEXITSTATUS(status));
	klogctl(SYSLOG_ACTION_CONSOLE_ON, NULL, 0);
	replay_kmsg(kmsg);
	say(FRAME "END\n");
	power_off();
	return 0;
}
