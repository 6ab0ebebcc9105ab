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

/* sparse cannot evaluate __has_include: it checks the suite without data. */
#if defined(__CHECKER__)
static const struct sframe_real_section sframe_real;
#elif defined(CONFIG_X86_64) && __has_include("sframe_real_x86_64.h")
#include "sframe_real_x86_64.h"
#elif defined(CONFIG_ARM64) && __has_include("sframe_real_arm64.h")
#include "sframe_real_arm64.h"
#elif defined(CONFIG_S390) && __has_include("sframe_real_s390x.h")
#include "sframe_real_s390x.h"
#else
static const struct sframe_real_section sframe_real;
#endif

#endif /* _SFRAME_TEST_REAL_H */
