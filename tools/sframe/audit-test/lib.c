// SPDX-License-Identifier: GPL-2.0-only
/* The libraries of tools/sframe/test-audit's program (-DAUDIT_FN=name) */
#include <stdlib.h>

static __attribute__((__noinline__)) int audit_leaf(int x)
{
	return abs(x * 7 - 3) + 1;
}

#ifdef AUDIT_GAP
/* In gap.S: CFI in .eh_frame, no SFrame */
int audit_gap(int x);

int audit_gap_leaf(int x);
__attribute__((__noinline__)) int audit_gap_leaf(int x)
{
	return audit_leaf(x);
}
#else
#define audit_gap(x)	audit_leaf(x)
#endif

int AUDIT_FN(int x)
{
	return audit_gap(x) + audit_leaf(x + 1);
}
