// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program tools/sframe/test-audit loads libsframe-audit.so into: it
 * calls a linked library, dlopens the library named by argv[1], calls it,
 * dlcloses it, and says so on stderr, so that the test can see that the
 * module let go of the library before the program went on.
 */
#include <dlfcn.h>
#include <stdio.h>

int audit_lib_linked(int x);

int main(int argc, char **argv)
{
	int (*fn)(int x);
	void *h;
	int v = audit_lib_linked(argc);

	if (argc > 1) {
		h = dlopen(argv[1], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		fn = (int (*)(int x))dlsym(h, "audit_lib_dl");
		if (!fn)
			return 1;
		v += fn(v);
		if (dlclose(h))
			return 1;
		fprintf(stderr, "test-audit: dlclose done\n");
	}
	printf("result %d\n", v);
	return 0;
}
