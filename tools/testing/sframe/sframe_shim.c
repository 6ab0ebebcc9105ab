// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's SFrame reader, built in user space: the shim header first,
 * then kernel/unwind/sframe.c exactly as the kernel compiles it.
 */
#include "sframe_internal.h"
#include "../../../kernel/unwind/sframe.c"

struct sframe_umem_region sframe_umem[SFRAME_UMEM_MAX_REGIONS];
unsigned long sframe_umem_reads;
bool sframe_fail_alloc;

bool sframe_umem_copy(void *dst, unsigned long src, unsigned long len)
{
	const struct sframe_umem_region *r;
	int i;

	sframe_umem_reads++;
	if (src + len < src)
		return false;
	for (i = 0; i < SFRAME_UMEM_MAX_REGIONS; i++) {
		r = &sframe_umem[i];
		if (!r->data || src < r->addr || src + len > r->addr + r->len)
			continue;
		if (src < r->hole_end && src + len > r->hole_start)
			return false;
		memcpy(dst, r->data + (src - r->addr), len);
		return true;
	}
	return false;
}
