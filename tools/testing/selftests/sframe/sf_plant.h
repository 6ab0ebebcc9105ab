/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Planted stacks: hostile words where a thread's stack and frame pointers
 * point while it spins, for samplers to walk (sf_plant.c).
 */
#ifndef _SF_PLANT_H
#define _SF_PLANT_H

#include <stdbool.h>

struct sf_plant {
	unsigned long	lo, hi;		/* the writable stack area */
	unsigned long	hole;		/* a page above it, never mapped */
	unsigned long	page;
};

/* Maps the area: 0, or -1 with errno */
int sf_plant_init(struct sf_plant *p);
/* Fills it afresh and spins on it @count times */
void sf_plant_run(struct sf_plant *p, unsigned int *seed, unsigned long count);
/*
 * A user address has no bit at or above this one set: the kernel's half
 * starts at bit 63 on x86_64 and arm64; s390's kernel has an address space
 * of its own, but a task's ends at its ASCE's limit, 4 TiB (bit 42) for
 * one that maps nothing higher, as these tests do.
 */
#if defined(__s390x__)
#define SF_PLANT_USER_BITS	42
#else
#define SF_PLANT_USER_BITS	63
#endif

/* Is @ip, reported as a user address, beyond the task's address space? */
static inline bool sf_plant_beyond_user(unsigned long ip)
{
	return ip >> SF_PLANT_USER_BITS;
}

#endif /* _SF_PLANT_H */
