// SPDX-License-Identifier: GPL-2.0-only
/*
 * Preloaded by tools/sframe/test-audit with libsframe-audit.so, its
 * constructor running before the module's: points the symbolic link
 * AUDIT_RELINK names ("LINK=TARGET") at TARGET.  The program was exec'd
 * through LINK, so its AT_EXECFN names another file than the one mapped
 * when the module looks, every time, as a link someone swaps would at
 * the wrong moment.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((__constructor__)) static void audit_relink(void)
{
	const char *v = getenv("AUDIT_RELINK"), *eq = v ? strchr(v, '=') : NULL;
	char link[PATH_MAX], tmp[PATH_MAX + 8];

	if (!eq || (size_t)(eq - v) >= sizeof(link))
		return;
	memcpy(link, v, eq - v);
	link[eq - v] = 0;
	snprintf(tmp, sizeof(tmp), "%s.new", link);
	unlink(tmp);
	if (symlink(eq + 1, tmp) || rename(tmp, link))
		perror("audit_relink");
}
