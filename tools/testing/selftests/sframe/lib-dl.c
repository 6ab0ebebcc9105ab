// SPDX-License-Identifier: GPL-2.0
/* The SFrame library the dlopen test loads and unloads again and again. */
int sf_lib_dl(int x)
{
	return x + 40;
}
