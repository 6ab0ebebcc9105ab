/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A section the real GNU assembler and linker produced for this
 * architecture, with the rules GNU objdump (libsframe) reads from it at
 * sampled addresses.  tools/testing/sframe/gen-kunit-real writes the data
 * into the kernel tree before the build; without it the test is skipped.
 */
#ifndef _SFRAME_TEST_REAL_H
#define _SFRAME_TEST_REAL_H

struct sframe_real_row {
	unsigned long	pc;
	const char	*expect;
};

/**
 * struct sframe_real_section - an assembled program's .sframe, and answers
 * @data: the section's bytes.
 * @size: their number.
 * @sframe_vaddr: ELF address of the section.
 * @text_start: ELF start of the executable segment.
 * @text_end: its end.
 * @version: SFrame version of the section.
 * @num_fdes: FDEs GNU objdump counted.
 * @rows: addresses and the rule libsframe gives for each.
 * @num_rows: their number.
 */
struct sframe_real_section {
	const u8			*data;
	u32				size;
	unsigned long			sframe_vaddr;
	unsigned long			text_start;
	unsigned long			text_end;
	u8				version;
	u32				num_fdes;
	const struct sframe_real_row	*rows;
	unsigned int			num_rows;
};

/* tools/kernel writes it, naming this arch's assembler output if any. */
#include "sframe_real_index.h"
#ifndef SFRAME_REAL_PRESENT
static const struct sframe_real_section sframe_real;
#endif

#endif /* _SFRAME_TEST_REAL_H */
