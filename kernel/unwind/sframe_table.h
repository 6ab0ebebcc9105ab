/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-mm table of registered sections and its entries
 * (sframe_table.c), as the registry (sframe_registry.c) changes it and
 * lookups (sframe_lookup.c) read it.
 */
#ifndef _KERNEL_UNWIND_SFRAME_TABLE_H
#define _KERNEL_UNWIND_SFRAME_TABLE_H

#include "sframe_registry.h"

static inline bool sframe_range_live(const struct sframe_range *r)
{
	return r->start != READ_ONCE(r->end);
}

static inline bool sframe_range_overlaps(const struct sframe_range *r,
					 unsigned long start, unsigned long end)
{
	return sframe_range_live(r) && r->start < end && start < r->end;
}

/**
 * struct sframe_removal - what a change takes out of a table
 * @start: start of the address range that goes away.
 * @end: its end.
 * @data_gone: the range was unmapped, so sections whose data lay in it go
 *	too; otherwise (exec permission dropped) only their text is trimmed.
 * @drop: an entry to remove whole, or NULL.
 */
struct sframe_removal {
	unsigned long		start;
	unsigned long		end;
	bool			data_gone;
	struct sframe_entry	*drop;
};

void sframe_charge(long bytes);
struct sframe_entry *sframe_entry_alloc(void);
void sframe_entry_put(struct sframe_entry *e);
void sframe_report(const struct sframe_entry *e, int err);
size_t sframe_table_bytes(unsigned int nr_ranges);
struct sframe_table *sframe_table_alloc(unsigned int nr_ranges);
void sframe_table_free(struct sframe_table *t, bool published);
struct sframe_table *sframe_table_locked(struct mm_struct *mm);
struct sframe_table *sframe_table_read_locked(struct mm_struct *mm);
struct sframe_range *sframe_range_find(struct sframe_table *t,
				       unsigned long ip);
int sframe_check_vmas(struct mm_struct *mm, unsigned long start,
		      unsigned long end, vm_flags_t flags,
		      struct file *file, unsigned long file_base);
void sframe_apply_removal(struct mm_struct *mm, const struct sframe_removal *cut);
struct sframe_entry *sframe_explicit_at(struct sframe_table *t,
					unsigned long text_start);
int sframe_table_insert(struct mm_struct *mm, struct sframe_entry *e,
			unsigned long start, unsigned long end,
			struct sframe_entry *replace, bool overlap);

#endif /* _KERNEL_UNWIND_SFRAME_TABLE_H */
