/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A whole file in memory, for the user space tools and tests: a regular
 * file, a pipe or a file of /proc alike.
 */
#ifndef _SFRAME_READ_FILE_H
#define _SFRAME_READ_FILE_H

#include <stddef.h>

unsigned char *sframe_read_file(const char *path, size_t *size, const char **err);

#endif /* _SFRAME_READ_FILE_H */
