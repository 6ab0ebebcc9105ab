/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two halves of the SFrame reader share: sframe_index.c, which
 * checks a section's headers and builds its index when it is registered,
 * and sframe.c, which looks addresses up in it.  The user-space build of
 * the reader (tools/testing/sframe) compiles both as one unit.
 */
#ifndef _KERNEL_UNWIND_SFRAME_READER_H
#define _KERNEL_UNWIND_SFRAME_READER_H

#include "sframe_internal.h"

/*
 * One FDE in the index: where its function starts, from the section's
 * text_start, its size, and where the FDE is, from sframe_start.  Functions
 * that do not start in the first 4 GiB of the text are not indexed: no
 * lookup could reach them.
 */
struct sframe_index_entry {
	u32	start;
	u32	size;
	u32	fde_off;
};

/* The FRE sub-section of one element of a section that has several */
struct sframe_elem_entry {
	u32	start;
	u32	fres_off;
	u32	fres_len;
};

/*
 * The rule cache: rules found before, by address, so that the addresses a
 * profile keeps hitting are not searched for again.  Lookups in NMI read
 * and fill it, so it takes no lock.  Each entry has a sequence count, odd
 * while a writer has it; a reader uses an entry only if the count was even
 * and unchanged across its copy of the entry.  A writer takes an entry by
 * moving the count from even to odd with cmpxchg, and gives up if it
 * cannot: another CPU, or the code it interrupted, is writing there.
 * Sets of two entries, replaced in turn.
 */
#define SFRAME_CACHE_WAYS	2
#define SFRAME_CACHE_MIN	16
#define SFRAME_CACHE_MAX	512
#define SFRAME_RULE_WORDS	(sizeof(struct unwind_user_frame) / sizeof(u32))

struct sframe_cache_entry {
	u32	seq;
	u32	key;		/* ip - text_start + 1; 0 for none */
	u32	rule[SFRAME_RULE_WORDS];
};

static_assert(sizeof(struct unwind_user_frame) % sizeof(u32) == 0);

static __always_inline int sframe_reject(struct sframe_section *sec, int err,
					 const char *reason)
{
	WRITE_ONCE(sec->reason, reason);
	return err;
}

static __always_inline u32 sframe_u32(const struct sframe_section *sec, u32 value)
{
	sframe_fix_order(sec, &value, sizeof(value));
	return value;
}

/* A value of type @type from copied section bytes at @p, in host byte order */
#define sframe_load(sec, type, p)					\
({									\
	type __v;							\
									\
	memcpy(&__v, (p), sizeof(__v));					\
	sframe_fix_order(sec, &__v, sizeof(__v));			\
	__v;								\
})

static __always_inline unsigned int sframe_fde_size(const struct sframe_section *sec)
{
	return sec->version == SFRAME_VERSION_2 ? sizeof(struct sframe_fde_v2) :
						  sizeof(struct sframe_fde_v3);
}

#endif /* _KERNEL_UNWIND_SFRAME_READER_H */
