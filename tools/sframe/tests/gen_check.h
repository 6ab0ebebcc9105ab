/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What sframe-gen's tests and fuzzer check of every section it makes:
 * the kernel's reader (built in user space) takes it, and finds at each
 * FRE's first and last address exactly the rules the FRE stands for.
 */
#ifndef _SFRAME_GEN_CHECK_H
#define _SFRAME_GEN_CHECK_H

#include "sframe_internal.h"
#include "../sframe-build.h"

bool gen_frame_eq(const struct unwind_user_frame *k, const struct sg_frame *g);
void gen_frame_str(const struct unwind_user_frame *f, char *buf, size_t size);
int gen_check_section(const struct sframe_gen *gen, unsigned long addr,
		      struct sframe_section *sec, unsigned char **bytes,
		      char *why, size_t why_size);
void gen_section_release(struct sframe_section *sec, unsigned char *bytes);

#endif /* _SFRAME_GEN_CHECK_H */
