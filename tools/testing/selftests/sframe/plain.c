// SPDX-License-Identifier: GPL-2.0
/*
 * sf-plain SECTIONS: built with the distribution's compiler, no SFrame
 * anywhere in this image.  Run by sf-exec: /proc/self/sframe must be
 * readable and empty, and the system must have SECTIONS sections, the
 * count before the exec less what the old image had.
 */
#include <stdlib.h>

#include "sframe_test.h"

int main(int argc, char **argv)
{
	struct sf_set want, got;

	if (!SF_CHECK(argc == 2, "usage: sf-plain SECTIONS"))
		sf_exit();
	/* Else the test proves nothing: this image must really have no SFrame. */
	if (sf_oracle_self(&want, "after exec"))
		SF_CHECK(want.n == 0, "%d lines expected: this program was built with SFrame",
			 want.n);
	if (sf_read_self(&got, "after exec"))
		SF_CHECK(got.n == 0, "%d lines after exec, expected none: '%s'", got.n,
			 got.n ? got.line[0].text : "");
	sf_check_sections(atol(argv[1]), "after exec");
	sf_exit();
}
