/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a test needs beside its program (another program, a library, a
 * tool's directory), and when it is missing, where it would have come
 * from: a test without what it needs is skipped with that reason.
 */
#ifndef _SF_NEED_H
#define _SF_NEED_H

#include <stdbool.h>
#include <stddef.h>

/* The audit module's converter, which it loads from beside itself */
#define SF_CONVERTER		"libsframe-audit-converter.so"

bool sf_need(const char *name, char *why, size_t len);

#endif /* _SF_NEED_H */
