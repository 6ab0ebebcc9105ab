/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-gen internals shared with its tests and fuzzer: the rules each
 * generated FRE stands for, in the shape the kernel's reader decodes an
 * FRE to (struct unwind_user_frame of include/linux/unwind_user_types.h,
 * with the same base values), so that a test can compare the two directly.
 */
#ifndef _SFRAME_GEN_BUILD_H
#define _SFRAME_GEN_BUILD_H

#include "sframe-gen.h"

/* As enum unwind_user_base */
enum sg_base {
	SG_BASE_SAME,
	SG_BASE_CFA,
	SG_BASE_SP,
	SG_BASE_FP,
	SG_BASE_REG,
};

struct sg_rule {
	uint8_t		base;
	uint8_t		regnum;
	bool		deref;
	int32_t		offset;
};

struct sg_frame {
	struct sg_rule	cfa;
	struct sg_rule	ra;
	struct sg_rule	fp;
	bool		outermost;
	bool		signal;
	bool		ra_signed;
	uint8_t		pauth_key;
};

/**
 * struct sg_fde_info - one SFrame FDE a conversion made
 * @start: the function's address.
 * @size: its size.
 * @num_fres: its FREs.
 * @flex: SFRAME_FDE_TYPE_FLEX.
 * @mask: SFRAME_FDE_PCTYPE_MASK, repeating every @rep_size bytes.
 * @rep_size: see @mask.
 * @kept: the object's own FDE (sframe_gen_input.sframe), copied as it was.
 */
struct sg_fde_info {
	uint64_t	start;
	uint32_t	size;
	unsigned int	num_fres;
	bool		flex;
	bool		mask;
	unsigned int	rep_size;
	bool		kept;
};

unsigned int sframe_gen_num_fdes(const struct sframe_gen *gen);
void sframe_gen_fde_info(const struct sframe_gen *gen, unsigned int i,
			 struct sg_fde_info *info);
void sframe_gen_fre_info(const struct sframe_gen *gen, unsigned int i, unsigned int j,
			 uint32_t *start, struct sg_frame *frame);

#endif /* _SFRAME_GEN_BUILD_H */
