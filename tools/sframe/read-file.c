// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a whole file: see read-file.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read-file.h"

/**
 * sframe_read_file() - read a whole file into memory
 * @path: the file.
 * @size: set to its size.
 * @err: set on failure to why: strerror()'s text when it cannot be
 *	opened, "out of memory" or "read error".
 *
 * Reads up to end of file, with no seek, so that what cannot seek reads
 * as well as a regular file.
 *
 * Return: the bytes, in a buffer the caller free()s (never NULL for an
 * empty file); NULL on failure.
 */
unsigned char *sframe_read_file(const char *path, size_t *size, const char **err)
{
	unsigned char *buf = NULL, *nbuf;
	size_t len = 0, cap = 0, got;
	FILE *f = fopen(path, "rb");

	if (!f) {
		*err = strerror(errno);
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				*err = "out of memory";
				goto fail;
			}
			buf = nbuf;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got)
			continue;
		if (ferror(f)) {
			*err = "read error";
			goto fail;
		}
		break;
	}
	fclose(f);
	*size = len;
	return buf;

fail:
	free(buf);
	fclose(f);
	return NULL;
}
