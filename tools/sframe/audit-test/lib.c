// SPDX-License-Identifier: GPL-2.0-only
/* The libraries of tools/sframe/test-audit's program (-DAUDIT_FN=name) */
#include <stdlib.h>

static __attribute__((__noinline__)) int audit_leaf(int x)
{
	return abs(x * 7 - 3) + 1;
}

int AUDIT_FN(int x)
{
	return audit_leaf(x) + audit_leaf(x + 1);
}
