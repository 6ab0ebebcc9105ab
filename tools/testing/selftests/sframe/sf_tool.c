// SPDX-License-Identifier: GPL-2.0
/*
 * A Debian tool in the guest, run through its own loader: see sf_tool.h.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_tool.h"
#include "sframe_test.h"

#define SF_TOOL_NAME	256
#define SF_TOOL_ARGS	32

static char sf_tool_dir[SF_TOOL_NAME], sf_tool_loader[2 * SF_TOOL_NAME + 2];
static char sf_tool_path[2 * SF_TOOL_NAME + 2];

bool sf_tool_init(const char *dir, const char *tool)
{
	char path[SF_TOOL_NAME + 16], loader[SF_TOOL_NAME];
	FILE *f;
	bool ok;

	if (!SF_CHECK(strlen(dir) < SF_TOOL_NAME && strlen(tool) < SF_TOOL_NAME,
		      "%s/%s: name too long", dir, tool))
		return false;
	snprintf(sf_tool_dir, sizeof(sf_tool_dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/.loader", dir);
	f = fopen(path, "r");
	ok = SF_CHECK(f && fgets(loader, sizeof(loader), f), "%s: %m", path);
	if (f)
		fclose(f);
	if (!ok)
		return false;
	snprintf(sf_tool_loader, sizeof(sf_tool_loader), "%s/%s", dir, strtok(loader, "\n"));
	snprintf(sf_tool_path, sizeof(sf_tool_path), "%s/%s", dir, tool);
	return true;
}

/*
 * The loader's and the tool's paths with every link resolved, as
 * /proc/<pid>/maps names them: into @loader and @tool, PATH_MAX each.
 */
bool sf_tool_realpaths(char *loader, char *tool)
{
	return SF_CHECK(realpath(sf_tool_loader, loader), "%s: %m", sf_tool_loader) &&
	       SF_CHECK(realpath(sf_tool_path, tool), "%s: %m", sf_tool_path);
}

/* Runs the tool with @args (NULL-terminated); its output comes through the pipe returned. */
FILE *sf_tool_run(const char *const *args, pid_t *pid)
{
	const char *argv[SF_TOOL_ARGS] = {
		sf_tool_loader, "--library-path", sf_tool_dir, sf_tool_path
	};
	unsigned int n = 4;
	int p[2];

	while (*args && n < SF_TOOL_ARGS - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (!SF_CHECK(!pipe(p), "pipe: %m"))
		return NULL;
	*pid = fork();
	if (!*pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execv(argv[0], (char *const *)argv);
		printf("exec %s: %m\n", argv[0]);
		_exit(127);
	}
	close(p[1]);
	return fdopen(p[0], "r");
}

bool sf_tool_wait(pid_t pid, const char *what)
{
	int status;

	return SF_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			!WEXITSTATUS(status), "%s: status %#x", what, status);
}
