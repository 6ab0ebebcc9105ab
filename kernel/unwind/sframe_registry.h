/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-mm registry of SFrame sections, as the rest of kernel/unwind/ and
 * its KUnit suites see it.
 */
#ifndef _KERNEL_UNWIND_SFRAME_REGISTRY_H
#define _KERNEL_UNWIND_SFRAME_REGISTRY_H

#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sframe.h>
#include <linux/sframe_mm.h>
#include <linux/types.h>

struct sframe_shared;

/* Bits of sframe_entry.flags */
#define SFRAME_ENTRY_BAD	0	/* found corrupt: no longer used */
#define SFRAME_ENTRY_EXPLICIT	1	/* registered by prctl() */
#define SFRAME_ENTRY_CACHE_ASKED 2	/* its rule cache is on its way */
#define SFRAME_ENTRY_NO_CACHE	3	/* no room for a rule cache */
#define SFRAME_ENTRY_VDSO	4	/* the vDSO's, registered at exec */
#define SFRAME_ENTRY_GONE	5	/* lost its last range: put at the swap */
#define SFRAME_ENTRY_REPLACED	6	/* being replaced: the writer's alone */
#define SFRAME_ENTRY_ATTACHED	7	/* explicit, for a file's attachment */

/* Bits of mm_struct.sframe_flags */
#define SFRAME_MM_WANTED	0	/* registers its files' sections as mapped */

/**
 * struct sframe_entry - one registered section of one address space
 * @sec: the section as the reader prepared it; a view of @shared's index
 *	when there is one.
 * @shared: the index this entry shares with every other mapping of the
 *	same file version, or NULL for one of its own.
 * @file: the mapped file it came from; NULL for explicit registrations
 *	and the vDSO.
 * @file_base: for @file: the address of its offset 0 in the mapping.
 * @sframe_start: start of the section as registered.
 * @sframe_end: end of the section as registered.
 * @flags: SFRAME_ENTRY_* bits.
 * @nr_ranges: ranges of the owning table pointing here (mmap lock held
 *	for writing to change it).
 * @bytes: memory it holds, charged against the process's limit.
 * @copy: scratch for sframe_dup_mm(), under the old mm's mmap lock.
 * @cache_work: gives @sec its rule cache after the first lookup.
 * @ref: one for the owning table, one per lookup in progress, one while
 *	@cache_work is queued.
 * @rcu: frees it after lockless readers are done.
 *
 * Entries are never shared between address spaces: a forked child gets
 * copies, so a section found corrupt in one process stays usable in others.
 * What is derived from a file's bytes alone, its index, is (@shared).
 */
struct sframe_entry {
	struct sframe_section	sec;
	struct sframe_shared	*shared;
	struct file		*file;
	unsigned long		file_base;
	unsigned long		sframe_start;
	unsigned long		sframe_end;
	unsigned long		flags;
	unsigned int		nr_ranges;
	size_t			bytes;
	struct sframe_entry	*copy;
	struct callback_head	cache_work;
	refcount_t		ref;
	struct rcu_head		rcu;
};

/**
 * struct sframe_range - code an entry describes in this address space
 * @start: first address.
 * @end: end; a range with @end == @start was dropped in place and
 *	matches nothing until the next table rebuild removes it.
 * @entry: the section.
 */
struct sframe_range {
	unsigned long		start;
	unsigned long		end;
	struct sframe_entry	*entry;
};

/**
 * struct sframe_table - the registry of one mm, replaced on every change
 * @rcu: frees a replaced table after lockless readers are done.
 * @nr_sections: distinct entries.
 * @bytes: sum of their @bytes.
 * @alloc_ranges: entries @ranges was allocated for.
 * @nr_ranges: entries of @ranges, sorted by start, not overlapping.
 * @ranges: the ranges.
 */
struct sframe_table {
	struct rcu_head		rcu;
	unsigned int		nr_sections;
	size_t			bytes;
	unsigned int		alloc_ranges;
	unsigned int		nr_ranges;
	struct sframe_range	ranges[] __counted_by(nr_ranges);
};

#if IS_ENABLED(CONFIG_SFRAME_KUNIT_TEST)
/**
 * struct sframe_range_info - a registered range, for tests
 * @start: text start.
 * @end: text end.
 * @sframe_start: section start as registered.
 * @sframe_end: section end as registered.
 * @num_fdes: FDEs of the section.
 * @bad: the section was found corrupt.
 * @explicit: registered by prctl().
 * @vdso: the vDSO's section.
 * @shared: its index is shared with other mappings of the file.
 */
struct sframe_range_info {
	unsigned long	start;
	unsigned long	end;
	unsigned long	sframe_start;
	unsigned long	sframe_end;
	unsigned int	num_fdes;
	bool		bad;
	bool		explicit;
	bool		vdso;
	bool		shared;
};

unsigned int sframe_mm_ranges(struct mm_struct *mm,
			      struct sframe_range_info *info,
			      unsigned int max);
#endif

/**
 * struct sframe_new_section - a section to register
 * @file: the ELF file whose mapping holds the text; NULL for prctl() and
 *	the vDSO.
 * @file_base: for @file: the address of its offset 0 in the mapping.
 * @sframe_start: user address of the section.
 * @sframe_size: bytes there.
 * @seg_start: start of the code the section may describe.
 * @seg_end: end of that code.
 * @start: start of the part of that code to register.
 * @end: end of that part.
 * @vdso: the section is the vDSO's (@file is NULL).
 * @replace: take the place of the registrations the text overlaps
 *	(SFRAME_REGISTER_REPLACE; explicit only).
 * @held: an explicit registration the kernel makes for a file's
 *	attachment (PR_SFRAME_ATTACH), shown "[attached]": the section is this
 *	index's kernel copy, and @sframe_start only where it would lie (nothing
 *	needs to be mapped there).
 */
struct sframe_new_section {
	struct file	*file;
	unsigned long	file_base;
	unsigned long	sframe_start;
	unsigned long	sframe_size;
	unsigned long	seg_start;
	unsigned long	seg_end;
	unsigned long	start;
	unsigned long	end;
	bool		vdso;
	bool		replace;
	struct sframe_shared *held;
};

int sframe_add_section(struct mm_struct *mm, const struct sframe_new_section *add);
bool sframe_has_file(struct mm_struct *mm, const struct file *file);
bool sframe_has_addr(struct mm_struct *mm, unsigned long addr);
void sframe_fault_in_range(struct mm_struct *mm, unsigned long start,
			   unsigned long end);
int sframe_remove_explicit(struct mm_struct *mm, unsigned long text_start);
void sframe_remove_range(struct mm_struct *mm, unsigned long start,
			 unsigned long end, bool data_gone);
long sframe_live_sections(void);
long sframe_private_bytes(void);
int sframe_registry_dup(struct mm_struct *oldmm, struct mm_struct *mm);
void sframe_registry_free(struct mm_struct *mm);
void sframe_register_mm(struct mm_struct *mm);
void sframe_register_task_mm(struct task_struct *task, struct mm_struct *mm);

#ifdef CONFIG_UNWIND_USER_SFRAME_VDSO
void sframe_vdso_register_mm(struct mm_struct *mm);
#else
static inline void sframe_vdso_register_mm(struct mm_struct *mm) {}
#endif

/*
 * Per-process limits (module parameters): checked before a section is
 * read (sframe_registry.c) and again as it goes in (sframe_table.c); tests
 * lower them
 */
extern unsigned int sframe_max_sections;
extern unsigned long sframe_max_bytes;

#if IS_ENABLED(CONFIG_KUNIT)
bool sframe_vdso_find(struct mm_struct *mm, unsigned long *start,
		      unsigned long *end);
int sframe_vdso_add(struct mm_struct *mm, unsigned long start,
		    unsigned long end);
#endif

#endif /* _KERNEL_UNWIND_SFRAME_REGISTRY_H */
