// SPDX-License-Identifier: GPL-2.0-only
/* Shared library for the vm-run self-test, passed with --file. */
const char *vm_greet(void)
{
	return "hello from libvmgreet.so";
}
