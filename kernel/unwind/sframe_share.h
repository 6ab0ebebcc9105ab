/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FDE indexes shared by every process that maps the same file: see
 * sframe_share.c.
 */
#ifndef _KERNEL_UNWIND_SFRAME_SHARE_H
#define _KERNEL_UNWIND_SFRAME_SHARE_H

#include <linux/refcount.h>
#include <linux/sframe.h>
#include <linux/types.h>

#include "sframe_elf.h"

/**
 * struct sframe_share_key - what makes two sections' indexes the same
 * @version: the file's version.
 * @sframe_off: file offset of the section.
 * @sframe_size: its size.
 * @text_off: the code it describes, as an offset from the file mapping's
 *	offset 0 (as the section's PC-relative addresses see it); the code
 *	may lie outside the file (an explicit registration's), even below it.
 * @text_len: length of that code.
 */
struct sframe_share_key {
	struct sframe_file_version	version;
	u64				sframe_off;
	u64				sframe_size;
	u64				text_off;
	u64				text_len;
};

/**
 * struct sframe_shared - one index, shared by the sections of one file
 * @node: in the table of shared indexes.
 * @key: what it was built from.
 * @file: the file it was read from, kept open so that @key's inode stays
 *	the same inode; NULL for a held section's.
 * @sec: the index, built where the first process had the section;
 *	sframe_section_view() places it for others.
 * @held: for a section the kernel keeps (sframe_shared_hold()): its bytes,
 *	which lookups read; else empty.
 * @bytes: kernel memory the index holds (@held's bytes not included).
 * @ref: one per registration using it.
 */
struct sframe_shared {
	struct hlist_node	node;
	struct sframe_share_key	key;
	struct file		*file;
	struct sframe_section	sec;
	struct sframe_image	held;
	size_t			bytes;
	refcount_t		ref;
};

struct sframe_shared *sframe_shared_get(struct file *file,
					const struct sframe_share_key *key,
					unsigned long sframe_start,
					unsigned long text_start,
					size_t max_bytes, const char **reason);
struct sframe_shared *sframe_shared_hold(void *data, size_t len,
					 unsigned long sframe_start,
					 unsigned long text_start,
					 unsigned long text_len,
					 const char **reason);
struct sframe_shared *sframe_shared_get_ref(struct sframe_shared *sh);
void sframe_shared_put(struct sframe_shared *sh);
long sframe_shared_indexes(void);
int sframe_copy_room_get(size_t bytes);
void sframe_copy_room_put(size_t bytes);
long sframe_shared_total_bytes(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* Bytes of the copies being read for indexes right now, for tests to fill */
extern atomic_long_t sframe_share_copying;
#endif

#endif /* _KERNEL_UNWIND_SFRAME_SHARE_H */
