/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether an address can be a return address: the code before it, read
 * from the file mapped there, ends in a call instruction.  A test that
 * takes a DWARF unwinder's stack as its reference uses it to tell a frame
 * some call left from a guess (an unwinder that found no CFI reads a frame
 * pointer that may hold anything).
 */
#ifndef _SF_CALL_H
#define _SF_CALL_H

#include <stdbool.h>
#include <stdint.h>

#define SF_CALL_MAX_BYTES	8	/* the longest call instruction looked for */

bool sf_call_ends_at(const uint8_t *code, unsigned int len);
int sf_call_before(int fd, uint64_t file_offset);

#endif /* _SF_CALL_H */
