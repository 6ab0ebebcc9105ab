/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maps an ELF file's PT_LOAD segments the way glibc's ld.so does, without
 * relocating or running anything: fresh instances of one library, at an
 * address of our choice, that tests may cut up freely.
 */
#ifndef _SFRAME_LOADER_H
#define _SFRAME_LOADER_H

#include <stdbool.h>

#include "sframe_oracle.h"

/* The library with many pages of text the mapping tests cut up */
#define SF_BIG_LIB	"libsf-big.so"

struct sf_image {
	unsigned long	bias;	/* load bias: address = p_vaddr + bias */
	unsigned long	start;	/* the whole reservation */
	unsigned long	end;
};

int sf_map_elf(const char *path, unsigned long at, struct sf_image *img);
bool sf_instance(const char *path, struct sf_image *img, struct sf_line *l,
		 const char *step);

#endif /* _SFRAME_LOADER_H */
