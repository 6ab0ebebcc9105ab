/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-made SFrame sections and the prctl() calls that register them, as
 * a JIT would use them.
 */
#ifndef _SFRAME_JIT_H
#define _SFRAME_JIT_H

#include <stddef.h>
#include <sys/prctl.h>

#include "sframe_oracle.h"

/* The kernel under test's <linux/prctl.h> has them; libc's may predate it. */
#ifndef PR_SFRAME_REGISTER
#define PR_SFRAME_REGISTER	0x53460001
#define PR_SFRAME_UNREGISTER	0x53460002
#endif

/* Room for the largest section sf_jit_build() writes */
#define SF_JIT_SECTION_MAX	64

/* The code of a leaf that spins a while and returns, for JIT text pages */
extern const unsigned char sf_jit_loop_code[];
extern const size_t sf_jit_loop_size;

size_t sf_jit_build(void *buf, unsigned int version, unsigned long text,
		    unsigned long size);
size_t sf_jit_many_size(unsigned int n);
size_t sf_jit_build_many(void *buf, unsigned long text, unsigned int n);
void sf_jit_reg(struct sframe_registration *reg, const void *sframe, size_t sframe_size,
		unsigned long text, unsigned long text_size);
int sf_jit_register(const void *reg);
int sf_jit_unregister(unsigned long text);
void sf_jit_line(struct sf_line *l, const struct sframe_registration *reg,
		 unsigned int version, unsigned long fdes);

#endif /* _SFRAME_JIT_H */
