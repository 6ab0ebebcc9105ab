// SPDX-License-Identifier: GPL-2.0
/* One of the two SFrame libraries the PIE test links with. */
int sf_lib_a(int x)
{
	return 3 * x + 1;
}
