// SPDX-License-Identifier: GPL-2.0
/*
 * sf-ustack-remote [--audit|--control MODULE] PKGDIR PROGRAM [ARG...]: the user stack
 * of an unmodified program, read from /proc/<pid>/ustack by another
 * process while the program waits for input.
 *
 * PROGRAM is a Debian package's, in PKGDIR with its libraries and loader
 * (tools/vm/guest-tool); it runs through that loader, under MODULE as
 * LD_AUDIT with --audit, reading its standard input from a pipe that stays
 * empty.  Once /proc/<pid>/syscall shows it blocked in read(), its stack
 * is read twice and checked: both reads agree, the first frame is in the C
 * library, and under the module (SFrame made from .eh_frame as each object
 * loads) every later frame was found by SFrame, some are PROGRAM's own and
 * the last returns into PROGRAM's _start, which no walk reaches unless
 * each frame between was right.  Without the module the frames found are
 * counted: that is what is missing.  --control MODULE then runs PROGRAM a
 * second time, under MODULE, to the same read(), and compares the two
 * stacks as files and offsets: without SFrame the stack must not be the
 * one the module's SFrame gives, or the checks above could not tell a
 * right stack from a wrong one.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_harness.h"
#include "sf_tool.h"
#include "sframe_test.h"

#define RU_ARGS		16
#define RU_FRAMES	256
#define RU_TEXT		16384
#define RU_LINE		4096
#define RU_WAIT_MS	60000
/*
 * A return address into _start lies this close to the entry point (glibc's
 * s390x _start calls __libc_start_main 58 bytes in; elsewhere under 64)
 */
#define RU_ENTRY_BYTES	128

struct ru_stack {
	int		n;
	unsigned long	ip[RU_FRAMES];
	char		method[RU_FRAMES][8];
	char		text[RU_TEXT];
	/* each frame as the file it is in and its offset there, for --control */
	char		file[RU_FRAMES][64];
	unsigned long	off[RU_FRAMES];
};

static char ru_loader[PATH_MAX], ru_program[PATH_MAX], ru_audit[PATH_MAX];
static char ru_control[PATH_MAX];

/* PROGRAM through its loader, reading from @in, its output discarded */
static pid_t ru_spawn(const char *dir, char **argv, const int *in)
{
	char *args[RU_ARGS + 4];
	unsigned int n = 0;
	pid_t child = fork();

	if (child)
		return child;
	close(in[1]);
	if (dup2(in[0], 0) < 0 || !freopen("/dev/null", "w", stdout))
		_exit(126);
	if (*ru_audit && setenv("LD_AUDIT", ru_audit, 1))
		_exit(126);
	args[n++] = ru_loader;
	args[n++] = "--library-path";
	args[n++] = (char *)dir;
	args[n++] = ru_program;
	while (*++argv && n < RU_ARGS + 3)
		args[n++] = *argv;
	args[n] = NULL;
	execv(ru_loader, args);
	_exit(127);
}

static bool ru_read_stack(pid_t pid, struct ru_stack *s)
{
	char path[64], *line, *next;
	ssize_t got, len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ustack", (int)pid);
	fd = open(path, O_RDONLY);
	if (!SF_CHECK(fd >= 0, "%s: %m", path))
		return false;
	while ((got = read(fd, s->text + len, sizeof(s->text) - 1 - len)) > 0)
		len += got;
	close(fd);
	if (!SF_CHECK(!got && len > 0, "reading %s: %s", path,
		      got ? strerror(errno) : "empty"))
		return false;
	s->text[len] = 0;
	s->n = 0;
	for (line = s->text; *line && s->n < RU_FRAMES; line = next) {
		next = strchr(line, '\n');
		if (!SF_CHECK(next, "unterminated line '%s'", line))
			return false;
		*next++ = 0;
		if (!SF_CHECK(sscanf(line, "0x%lx %7s", &s->ip[s->n], s->method[s->n]) == 2,
			      "bad line '%s'", line))
			return false;
		s->n++;
	}
	return true;
}

/* The file @pid maps at @ip, into @name; false if none */
static bool ru_file_at(pid_t pid, unsigned long ip, char *name, size_t size)
{
	char path[64], line[RU_LINE], file[RU_LINE];
	unsigned long start, end;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &start, &end, file) == 3 &&
		    ip >= start && ip < end) {
			snprintf(name, size, "%s", file);
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

/* PROGRAM's entry point in @pid */
static unsigned long ru_entry(pid_t pid)
{
	char path[64], line[RU_LINE], file[RU_LINE];
	unsigned long start, off, entry = 0;
	Elf64_Ehdr eh;
	FILE *f, *m;

	f = fopen(ru_program, "r");
	if (!f || fread(&eh, sizeof(eh), 1, f) != 1) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	m = fopen(path, "r");
	while (m && !entry && fgets(line, sizeof(line), m))
		if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &start, &off, file) == 3 &&
		    !off && !strcmp(file, ru_program))
			entry = eh.e_entry + (eh.e_type == ET_DYN ? start : 0);
	if (m)
		fclose(m);
	return entry;
}

/* Each frame of @s as a file name and an offset in it, while @pid lives */
static void ru_locate(pid_t pid, struct ru_stack *s)
{
	char path[64], line[RU_LINE], file[RU_LINE];
	unsigned long start, end, off;
	int i;
	FILE *f;

	for (i = 0; i < s->n; i++) {
		s->file[i][0] = 0;
		s->off[i] = 0;
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &off,
				   file) == 4 && s->ip[i] >= start && s->ip[i] < end) {
				snprintf(s->file[i], sizeof(s->file[i]), "%.63s",
					 strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
				s->off[i] = s->ip[i] - start + off;
				break;
			}
		}
		if (f)
			fclose(f);
	}
}

/* How many frames, from the first, two runs' stacks share as files and offsets */
static int ru_common(const struct ru_stack *a, const struct ru_stack *b)
{
	int i;

	for (i = 0; i < a->n && i < b->n; i++)
		if (!a->file[i][0] || strcmp(a->file[i], b->file[i]) || a->off[i] != b->off[i])
			break;
	return i;
}

static bool ru_same(const struct ru_stack *a, const struct ru_stack *b)
{
	int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->ip[i] != b->ip[i] || strcmp(a->method[i], b->method[i]))
			return false;
	return true;
}

static void ru_show(pid_t pid, const struct ru_stack *s)
{
	char file[RU_LINE];
	int i;

	for (i = 0; i < s->n; i++)
		sf_info("  %#lx %-6s %s", s->ip[i], s->method[i],
			ru_file_at(pid, s->ip[i], file, sizeof(file)) ? file : "?");
}

/* A stack read whole under the module */
#define RU_NOTE	"under the module: %d frames, from the C library's read() through %d of the program's to _start, all by SFrame"

static void ru_check(pid_t pid, const struct ru_stack *s)
{
	unsigned long entry = ru_entry(pid);
	char file[RU_LINE];
	int i, own = 0, sframe = 0;
	bool at_start;

	if (!SF_CHECK(s->n >= 1, "no frames"))
		return;
	for (i = 1; i < s->n; i++) {
		sframe += !strcmp(s->method[i], "sframe");
		own += ru_file_at(pid, s->ip[i], file, sizeof(file)) &&
		       !strcmp(file, ru_program);
	}
	at_start = entry && s->ip[s->n - 1] - entry < RU_ENTRY_BYTES;
	SF_CHECK(ru_file_at(pid, s->ip[0], file, sizeof(file)) &&
		 strstr(file, "/libc.so"),
		 "first frame %#lx is not in the C library", s->ip[0]);
	if (!*ru_audit) {
		sf_note("without the module: %d frames, %d by SFrame, %d of the program's; %s",
			s->n, sframe, own,
			at_start ? "to _start" : "_start not reached");
		return;
	}
	if (SF_CHECK(entry, "%s's entry point not found", ru_program) &&
	    SF_CHECK(sframe == s->n - 1, "%d of %d frames by SFrame", sframe, s->n - 1) &&
	    SF_CHECK(own >= 2, "%d frames in %s", own, ru_program) &&
	    SF_CHECK(at_start, "last frame %#lx is not in _start (entry %#lx)",
		     s->ip[s->n - 1], entry))
		sf_note(RU_NOTE, s->n, own);
	else
		ru_show(pid, s);
}

/* One run of PROGRAM: its stack in @first, checked; false if none was read */
static bool ru_run(const char *dir, char **argv, struct ru_stack *first)
{
	static struct ru_stack again;
	bool read = false;
	int in[2], status;
	pid_t pid;

	if (!SF_CHECK(!pipe(in), "pipe: %m"))
		return false;
	pid = ru_spawn(dir, argv, in);
	close(in[0]);
	if (!SF_CHECK(pid > 0, "fork: %m")) {
		close(in[1]);
		return false;
	}
	if (SF_CHECK(sf_wait_syscall(pid, pid, SYS_read, RU_WAIT_MS),
		     "%s not blocked in read() after %d ms", ru_program, RU_WAIT_MS) &&
	    ru_read_stack(pid, first) &&
	    ru_read_stack(pid, &again)) {
		if (!SF_CHECK(ru_same(first, &again),
			      "two reads of a blocked task differ"))
			ru_show(pid, &again);
		ru_check(pid, first);
		ru_locate(pid, first);
		read = true;
	}
	/* End of input: PROGRAM finishes as it would at the end of a script. */
	close(in[1]);
	if (SF_CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %m"))
		SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
			 "%s: status %#x", ru_program, status);
	return read;
}

/*
 * Debian's sqlite3 waiting for input, its stack read by another process
 * from /proc/<pid>/ustack: under the module to _start; then without it,
 * what is missing, which must not be the module's stack
 */
SF_TEST_ARGS(debian_sqlite3_audit_ustack, SF_TEST_SECONDS,
	     SF_ARGS("libsframe-audit.so", SF_CONVERTER, "debian-sqlite3"),
	     SF_ARGS("--audit", "libsframe-audit.so", "debian-sqlite3", "sqlite3", ":memory:"))
SF_TEST_ARGS(debian_sqlite3_ustack, SF_TEST_SECONDS,
	     SF_ARGS("libsframe-audit.so", SF_CONVERTER, "debian-sqlite3"),
	     SF_ARGS("--control", "libsframe-audit.so", "debian-sqlite3", "sqlite3", ":memory:"))

int main(int argc, char **argv)
{
	static struct ru_stack plain, module;
	const char *dir;
	int common;

	sf_harness_enter(argc, argv);
	if (argc > 2 && (!strcmp(argv[1], "--audit") || !strcmp(argv[1], "--control"))) {
		if (!SF_CHECK(realpath(argv[2], argv[1][2] == 'a' ? ru_audit : ru_control),
			      "%s: %m", argv[2]))
			sf_exit();
		argv += 2;
		argc -= 2;
	}
	if (!SF_CHECK(argc >= 3 && argc - 2 <= RU_ARGS,
		      "usage: sf-ustack-remote [--audit|--control MODULE] PKGDIR PROGRAM [ARG...]"))
		sf_exit();
	dir = argv[1];
	if (!sf_tool_init(dir, argv[2]) ||
	    !sf_tool_realpaths(ru_loader, ru_program))
		sf_exit();
	if (!ru_run(dir, argv + 2, &plain) || !*ru_control)
		sf_exit();
	/* The control: the same read() under the module, whose stack is checked whole */
	memcpy(ru_audit, ru_control, sizeof(ru_audit));
	if (!ru_run(dir, argv + 2, &module))
		sf_exit();
	common = ru_common(&plain, &module);
	if (SF_CHECK(common < plain.n || plain.n != module.n,
		     "without SFrame the stack is the module's, all %d frames: the check cannot tell",
		     module.n))
		sf_note("control: without SFrame %d frames of the module's %d, first %d the same",
			plain.n, module.n, common);
	sf_exit();
}
