/* Shared-library test input for the SFrame oracle. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int lib_leaf(int x) { return x * 7; }

int lib_entry(int n)
{
	int *p = malloc(sizeof(int) * (n + 1));
	int r;
	if (!p)
		return -1;
	p[n] = lib_leaf(n);
	r = p[n];
	printf("lib %d\n", r);
	free(p);
	return r;
}
