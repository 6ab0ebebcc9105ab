/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architectures whose assembled test section sframe_real.h has: none
 * here, so sframe_real_test() is skipped.  Assembling it needs binutils
 * 2.47 or later, which building the kernel does not; the project's
 * tools/kernel writes this file anew, naming the sections it assembled.
 */
