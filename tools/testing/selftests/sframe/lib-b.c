// SPDX-License-Identifier: GPL-2.0
/* The other SFrame library of the PIE test; it calls into the first. */
int sf_lib_a(int x);

int sf_lib_b(int x)
{
	return sf_lib_a(x) * 2;
}
