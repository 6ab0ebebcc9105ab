// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loads and unloads libraries in the order its arguments say, for
 * tools/sframe/test-audit's check that the preloaded module records each
 * object a dlopen() brings exactly once, however the loader's list grew
 * meanwhile:
 *   +PATH  dlopen(PATH)
 *   -PATH  dlclose() of the handle +PATH got
 *   =PATH  dlmopen(LM_ID_NEWLM, PATH): another namespace, which the
 *          module does not see, but whose loads move the loader's count
 * Each step is said on stderr, between the module's own lines.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define DLSEQ_MAX	16

int main(int argc, char **argv)
{
	const char *path[DLSEQ_MAX];
	void *handle[DLSEQ_MAX];
	int i, j, n = 0;

	for (i = 1; i < argc; i++) {
		const char *p = argv[i] + 1;
		void *h = NULL;

		switch (argv[i][0]) {
		case '+':
			h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
			break;
		case '=':
			h = dlmopen(LM_ID_NEWLM, p, RTLD_NOW | RTLD_LOCAL);
			break;
		case '-':
			for (j = n - 1; j >= 0 && strcmp(path[j], p); j--)
				;
			if (j < 0 || dlclose(handle[j]))
				return 1;
			path[j] = "";
			fprintf(stderr, "test-audit: step %d done\n", i);
			continue;
		default:
			return 2;
		}
		if (!h || n == DLSEQ_MAX) {
			fprintf(stderr, "step %d: %s\n", i, h ? "too many" : dlerror());
			return 1;
		}
		path[n] = p;
		handle[n++] = h;
		fprintf(stderr, "test-audit: step %d done\n", i);
	}
	printf("%d loaded\n", n);
	return 0;
}
