/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A second oracle, from memory: the objects ld.so (or the static startup
 * code) reports through dl_iterate_phdr(), with their program headers and
 * SFrame headers as mapped.  It knows nothing of mappings: it holds only
 * for a process that has not cut any loaded object up.
 */
#ifndef _SFRAME_PHDR_H
#define _SFRAME_PHDR_H

#include "sframe_oracle.h"

int sf_phdr_expected(struct sf_set *want);

#endif /* _SFRAME_PHDR_H */
