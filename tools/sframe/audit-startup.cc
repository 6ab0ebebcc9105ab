// SPDX-License-Identifier: GPL-2.0-only
/*
 * audit-startup: a program that loads what a typical C++ program with an
 * embedded Python does (libc, libm, libstdc++, libgcc_s, libpython3),
 * for bench-audit to time libsframe-audit.so's start-up cost.  It does
 * just enough with each library that none is dropped by --as-needed, and
 * returns: what is timed is loading.
 */
#include <Python.h>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv, argv + argc);

	/* Py_GetVersion() needs no interpreter: libpython is loaded, not run */
	return args.empty() || !Py_GetVersion();
}
