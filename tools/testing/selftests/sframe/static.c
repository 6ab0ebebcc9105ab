// SPDX-License-Identifier: GPL-2.0
/*
 * (a) A static executable: the kernel maps it at exec and no ld.so runs,
 * so its one line comes from the exec path alone (with the vDSO's, when
 * the kernel built the vDSO with SFrame).  The line must agree with the
 * oracle (maps + the file's headers) and with the program headers as
 * mapped (dl_iterate_phdr), and name /proc/self/exe.
 */
#include <string.h>
#include <unistd.h>

#include "sframe_phdr.h"
#include "sf_harness.h"

SF_TEST(static_executable)
{
	struct sf_set got, mem;
	char exe[SF_PATH_MAX];
	ssize_t n;
	int vdso;

	sf_check_oracle("static: oracle");
	if (!sf_read_self(&got, "static"))
		sf_exit();
	sf_set_find_path(&got, "[vdso]", &vdso);
	SF_CHECK(got.n - vdso == 1, "%d lines, expected 1 (the executable)", got.n - vdso);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (got.n >= 1)
		SF_CHECK(got.line[0].parsed && !strcmp(got.line[0].path, exe) &&
			 got.line[0].version == SFRAME_VERSION_3 && got.line[0].fdes > 0 &&
			 !strcmp(got.line[0].state, "ok"),
			 "line '%s': want path %s, v3, fdes > 0, ok", got.line[0].text, exe);
	sf_phdr_expected(&mem);
	SF_CHECK(mem.n == 1 + vdso, "dl_iterate_phdr shows %d objects with SFrame", mem.n);
	sf_check_want(&mem, "static: program headers in memory");
	sf_exit();
}

SF_HARNESS_MAIN
