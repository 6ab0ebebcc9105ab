/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether an ELF file's .eh_frame describes an address: read from the
 * file alone, through its PT_GNU_EH_FRAME search table, without any of the
 * project's own SFrame or CFI code.  A test that compares stacks with a
 * DWARF unwinder uses it to tell the PCs where DWARF has CFI to go by
 * from those where it, like any unwinder, can only guess.
 */
#ifndef _SF_EHFRAME_H
#define _SF_EHFRAME_H

#include <stdint.h>

int sf_ehframe_covers(int fd, uint64_t file_offset);

#endif /* _SF_EHFRAME_H */
