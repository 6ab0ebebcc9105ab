// SPDX-License-Identifier: GPL-2.0
/*
 * What a test needs (see sf_need.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sf_need.h"
#include "sframe_test.h"

/*
 * Where what a test needs comes from, when it is missing: the programs
 * the Makefile left out are in not-built, with why.
 */
static const struct {
	const char *name, *from;
} sf_sources[] = {
	{ "linux-perf",	"Debian's perf, as run's tools/vm/guest-tool unpacks it" },
	{ "perf-patched", "perf built from the patched tree by run's tools/vm/build-perf" },
	{ "bpftrace",	"Debian's bpftrace, as run's tools/vm/guest-tool unpacks it" },
	{ "debian-sqlite3", "Debian's sqlite3, as run's tools/vm/guest-tool unpacks it" },
	{ "sqlite3",	"sqlite3 built with SFrame (tools/toolchain/build-sqlite3)" },
	{ "libsframe-audit.so", "the audit module (make -C tools/sframe)" },
	{ SF_CONVERTER,	"the audit module's converter (make -C tools/sframe)" },
};

static void sf_why_missing(const char *name, char *why, size_t len)
{
	char line[512];
	size_t n = strlen(name);
	unsigned int i;
	FILE *f;

	f = fopen("not-built", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, n) && line[n] == ' ') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(why, len, "%s not built: %s", name, line + n + 1);
			fclose(f);
			return;
		}
	}
	if (f)
		fclose(f);
	for (i = 0; i < ARRAY_SIZE(sf_sources); i++) {
		if (!strcmp(sf_sources[i].name, name)) {
			snprintf(why, len, "no %s: %s", name, sf_sources[i].from);
			return;
		}
	}
	snprintf(why, len, "no %s beside the test", name);
}

/*
 * True when @name is in the current directory; false, and in @why what
 * it is and where it would have come from, when it is not.
 */
bool sf_need(const char *name, char *why, size_t len)
{
	if (!access(name, F_OK))
		return true;
	sf_why_missing(name, why, len);
	return false;
}
