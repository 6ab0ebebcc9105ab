// SPDX-License-Identifier: GPL-2.0
/*
 * sf-plain SECTIONS: built with the distribution's compiler, no SFrame
 * anywhere in this image.  Run by sf-exec: /proc/self/sframe must be
 * readable and hold nothing but the vDSO's line (when the kernel built
 * the vDSO with SFrame, exec registered it), and the system must have
 * SECTIONS sections, the count before the exec less what the old image
 * had, plus the new vDSO's.
 */
#include <stdlib.h>

#include "sframe_test.h"

int main(int argc, char **argv)
{
	struct sf_set want, got;
	int vdso = 0, lines;

	if (!SF_CHECK(argc == 2, "usage: sf-plain SECTIONS"))
		sf_exit();
	/* Else the test proves nothing: this image must really have no SFrame. */
	if (sf_oracle_self(&want, "after exec")) {
		sf_set_find_path(&want, "[vdso]", &vdso);
		SF_CHECK(want.n == vdso,
			 "%d lines expected: this program was built with SFrame", want.n - vdso);
	}
	if (sf_read_self(&got, "after exec")) {
		sf_set_find_path(&got, "[vdso]", &lines);
		SF_CHECK(lines == vdso, "%d lines for the vDSO, expected %d", lines, vdso);
		SF_CHECK(got.n == lines, "%d lines after exec, expected only the vDSO's: '%s'",
			 got.n, got.n ? got.line[0].text : "");
	}
	sf_check_sections(atol(argv[1]) + vdso, "after exec");
	sf_exit();
}
