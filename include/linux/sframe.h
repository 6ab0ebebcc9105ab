/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SFRAME_H
#define _LINUX_SFRAME_H

#include <linux/types.h>
#include <linux/unwind_user_types.h>
#include <linux/sframe_format.h>

struct sframe_index_entry;
struct sframe_elem_entry;
struct sframe_cache_entry;
struct sframe_image;
struct mm_struct;

/**
 * struct sframe_section - one .sframe section of a user address space
 * @sframe_start: user address of the first SFrame element.
 * @sframe_end: end of the SFrame data, as the headers describe it.
 * @text_start: start of the code this section may describe.
 * @text_end: end of that code.
 * @fres: FRE sub-section of the indexed FDEs, when @elems is NULL.
 * @fres_end: end of that FRE sub-section.
 * @num_fdes: FDEs indexed: those whose functions start in the text.
 * @num_elems: entries of @elems.
 * @index: those FDEs sorted by start address; NULL when there are none.
 * @elems: FRE sub-sections of the elements holding indexed FDEs, when
 *	there are several; NULL otherwise.
 * @fast: the fast lookup table of @index: one entry a block of text, and
 *	one past the end.
 * @fast_shift: log2 of the bytes of text one entry of @fast covers.
 * @cache: rules found before, by address: @cache_sets sets of two; NULL
 *	until sframe_section_cache_alloc().
 * @cache_sets: sets in @cache.
 * @version: SFRAME_VERSION_2 or SFRAME_VERSION_3.
 * @abi: SFRAME_ABI_*.
 * @flags: SFRAME_F_* of the section.
 * @fixed_fp_off: header's fixed FP offset from the CFA, 0 if none.
 * @fixed_ra_off: header's fixed RA offset from the CFA, 0 if none.
 * @borrowed: @index, @elems and @fast belong to the section this one is a
 *	view of (sframe_section_view()).
 * @reason: why the last call failed, for a one-line diagnostic.
 * @image: the kernel copy being indexed, during sframe_section_init_image()
 *	only.
 * @held: the section's bytes in kernel memory, which lookups read instead
 *	of the address space (sframe_section_init_held(): an attached
 *	section, mapped nowhere); NULL for a section in user memory.
 */
struct sframe_section {
	unsigned long			sframe_start;
	unsigned long			sframe_end;
	unsigned long			text_start;
	unsigned long			text_end;
	unsigned long			fres;
	unsigned long			fres_end;
	unsigned int			num_fdes;
	unsigned int			num_elems;
	struct sframe_index_entry	*index;
	struct sframe_elem_entry	*elems;
	u32				*fast;
	unsigned int			fast_shift;
	struct sframe_cache_entry	*cache;
	unsigned int			cache_sets;
	u8				version;
	u8				abi;
	u8				flags;
	s8				fixed_fp_off;
	s8				fixed_ra_off;
	bool				borrowed;
	const char			*reason;
	const struct sframe_image	*image;
	const struct sframe_image	*held;
};

/**
 * struct sframe_image - a section's bytes, copied into kernel memory
 * @data: the bytes.
 * @len: how many.
 */
struct sframe_image {
	const u8	*data;
	unsigned long	len;
};

/**
 * struct sframe_fde - a function descriptor, decoded
 * @func_start: user address of the function.
 * @func_size: its size in bytes.
 * @fres: user address of its first FRE.
 * @fres_end: end of the FRE sub-section holding its FREs.
 * @num_fres: number of FREs.
 * @info: FDE info byte.
 * @info2: FDE info2 byte (V3), 0 for V2.
 * @rep_size: repeat block size of SFRAME_FDE_PCTYPE_MASK functions.
 */
struct sframe_fde {
	unsigned long	func_start;
	u32		func_size;
	unsigned long	fres;
	unsigned long	fres_end;
	u32		num_fres;
	u8		info;
	u8		info2;
	u8		rep_size;
};

/**
 * struct sframe_fre - a frame row entry, decoded
 * @start: offset of the first address it covers, from the function start.
 * @info: FRE info byte.
 * @next: user address of the record that follows it.
 * @frame: the recovery rules it describes.
 */
struct sframe_fre {
	u32				start;
	u8				info;
	unsigned long			next;
	struct unwind_user_frame	frame;
};

/* Bounds on what one section may ask of the kernel */
#define SFRAME_MAX_FRES_PER_FDE		U16_MAX
#define SFRAME_MAX_ELEMENTS		65536
/* 3 MiB of index at most, charged to the process */
#define SFRAME_MAX_INDEX_FDES		(256 * 1024)

/*
 * What a process makes the kernel allocate for its sections: charged to
 * its memory cgroup, and at the cgroup's limit a failure (-ENOMEM to the
 * process), never an OOM kill in the cgroup or a warning, since the
 * process picks the sizes.
 */
#define SFRAME_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

int sframe_section_init(struct sframe_section *sec, unsigned long sframe_start,
			unsigned long sframe_size, unsigned long text_start,
			unsigned long text_end, size_t max_bytes);
int sframe_section_init_image(struct sframe_section *sec,
			      const struct sframe_image *image,
			      unsigned long sframe_start,
			      unsigned long text_start, unsigned long text_end,
			      size_t max_bytes);
int sframe_section_init_held(struct sframe_section *sec,
			     const struct sframe_image *image,
			     unsigned long sframe_start,
			     unsigned long text_start, unsigned long text_end,
			     size_t max_bytes);
void sframe_section_view(struct sframe_section *dst,
			 const struct sframe_section *src,
			 unsigned long sframe_start, unsigned long text_start);
void sframe_section_release(struct sframe_section *sec);
int sframe_section_copy(struct sframe_section *dst,
			const struct sframe_section *src);
size_t sframe_section_bytes(const struct sframe_section *sec);
size_t sframe_section_cache_bytes(const struct sframe_section *sec);
int sframe_section_cache_alloc(struct sframe_section *sec);
int sframe_section_validate(struct sframe_section *sec);
int sframe_find(struct sframe_section *sec, unsigned long ip,
		struct unwind_user_frame *frame, struct unwind_user_ctx *ctx);
int sframe_read_fde(struct sframe_section *sec, unsigned int n,
		    struct sframe_fde *fde);
int sframe_read_fre(struct sframe_section *sec, const struct sframe_fde *fde,
		    unsigned long fre_addr, struct sframe_fre *fre);

#endif /* _LINUX_SFRAME_H */
