// SPDX-License-Identifier: GPL-2.0
/*
 * (b) A PIE linked with two SFrame libraries, on a C library and ld.so
 * without SFrame: exactly three sections (the executable, libsf-a,
 * libsf-b) besides the vDSO's, each as the oracle and the in-memory program headers say,
 * of the version the toolchain emitted (SF_EXPECT_VERSION: 3, or 2 for
 * the binutils 2.44 build), and nothing for libc or ld.so.
 */
#include <string.h>

#include "sframe_phdr.h"
#include "sf_harness.h"

#ifndef SF_EXPECT_VERSION
#define SF_EXPECT_VERSION	SFRAME_VERSION_3
#endif
#ifndef SF_LIB_SUFFIX
#define SF_LIB_SUFFIX	""
#endif

int sf_lib_b(int x);

SF_TEST(pie)
{
	static const char * const libs[] = {
		"/libsf-a" SF_LIB_SUFFIX ".so", "/libsf-b" SF_LIB_SUFFIX ".so",
	};
	struct sf_set got, mem;
	unsigned int i;
	int n, vdso;

	/* Use the libraries: they must be loaded and work. */
	SF_CHECK(sf_lib_b(2) == 14, "libsf-b answered %d", sf_lib_b(2));

	sf_check_oracle("pie: oracle");
	if (!sf_read_self(&got, "pie"))
		sf_exit();
	sf_set_find_path(&got, "[vdso]", &vdso);
	SF_CHECK(got.n - vdso == 3 && sf_set_sections(&got) - vdso == 3,
		 "%d lines in %d sections besides the vDSO, expected 3 of each", got.n - vdso,
		 sf_set_sections(&got) - vdso);
	for (i = 0; i < ARRAY_SIZE(libs); i++)
		sf_only_line(&got, libs[i], "pie");
	for (i = 0; i < (unsigned int)got.n; i++) {
		const struct sf_line *l = &got.line[i];

		/* The kernel's vDSO is v3 whatever built this program */
		if (!strcmp(l->path, "[vdso]"))
			continue;
		SF_CHECK(l->parsed && l->version == SF_EXPECT_VERSION && l->fdes > 0 &&
			 !strcmp(l->state, "ok"),
			 "line '%s': want v%d, fdes > 0, ok", l->text, SF_EXPECT_VERSION);
		SF_CHECK(!strstr(l->path, "/libc.so") && !strstr(l->path, "/ld-"),
			 "line '%s': the C library has no SFrame", l->text);
	}
	sf_set_find_path(&got, "/ld64.so.1", &n);
	SF_CHECK(n == 0, "ld.so has no SFrame but has %d lines", n);

	sf_phdr_expected(&mem);
	SF_CHECK(mem.n == 3 + vdso, "dl_iterate_phdr shows %d objects with SFrame, expected %d",
		 mem.n, 3 + vdso);
	sf_check_want(&mem, "pie: program headers in memory");
	sf_exit();
}

SF_HARNESS_MAIN
