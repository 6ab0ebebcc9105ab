// SPDX-License-Identifier: GPL-2.0-only
/* tests/gen-fill: the part of the program built with SFrame */
#include <stdio.h>

long fill_helper(long x);

int main(int argc, char **argv)
{
	(void)argv;
	printf("%ld\n", fill_helper(argc + 40));
	return 0;
}
