// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stands in for the sframe-gen library where it is not built yet, so that
 * gen-compare can still compare GNU as's SFrame with the DWARF CFI.
 */
#include <stdio.h>

#include "../../../sframe/sframe-gen.h"

struct sframe_gen *sframe_gen_new(const struct sframe_gen_input *in,
				  struct sframe_gen_stats *stats,
				  char *err, size_t err_size)
{
	(void)in;
	(void)stats;
	snprintf(err, err_size, "the sframe-gen library is not built");
	return NULL;
}

size_t sframe_gen_size(const struct sframe_gen *gen)
{
	(void)gen;
	return 0;
}

void sframe_gen_emit(const struct sframe_gen *gen, void *buf, uint64_t buf_addr)
{
	(void)gen;
	(void)buf;
	(void)buf_addr;
}

void sframe_gen_free(struct sframe_gen *gen)
{
	(void)gen;
}
