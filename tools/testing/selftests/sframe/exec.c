// SPDX-License-Identifier: GPL-2.0
/*
 * (h) sf-exec PROGRAM: from an SFrame program, execs PROGRAM, one built
 * without SFrame (sf-plain), telling it how many sections the system
 * should have once this image is gone: ours must go with it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sf_harness.h"

SF_TEST_ARGS(exec_plain, SF_TEST_SECONDS, SF_ARGS("sf-plain"), SF_ARGS("sf-plain"))

int main(int argc, char **argv)
{
	long sections0 = sf_stat_get("sections");
	char path[256], arg[32];
	struct sf_set got;
	int k;

	sf_harness_enter(argc, argv);

	if (!SF_CHECK(argc == 2, "usage: sf-exec PROGRAM") ||
	    !SF_CHECK(sections0 >= 0, "cannot read " SF_PARAM_DIR "sections") ||
	    !sf_check_oracle("before exec") || !sf_read_self(&got, "before exec"))
		sf_exit();
	k = sf_set_sections(&got);
	if (!SF_CHECK(k >= 1, "no line for this SFrame program itself"))
		sf_exit();
	snprintf(arg, sizeof(arg), "%ld", sections0 - k);
	snprintf(path, sizeof(path), "./%s", argv[1]);
	fflush(stdout);
	execl(path, argv[1], arg, (char *)NULL);
	sf_fail("exec %s: %s", path, strerror(errno));
	sf_exit();
}
