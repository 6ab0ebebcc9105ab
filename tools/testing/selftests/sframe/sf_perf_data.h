/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf.data file of samples taken by a program of ours, for Debian's
 * perf to unwind by DWARF with perf script: each sample as perf record
 * --call-graph dwarf writes it (the user registers and a copy of the user
 * stack, no user callchain), without the stack the kernel walked by
 * SFrame, which the program keeps to compare.
 */
#ifndef _SF_PERF_DATA_H
#define _SF_PERF_DATA_H

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* All of the user registers perf's DWARF unwinder may ask for */
#if defined(__x86_64__)
#define SF_PERF_DWARF_REGS	(((1ULL << PERF_REG_X86_64_MAX) - 1) &				\
				 ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) |	\
				   (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)))
#elif defined(__aarch64__)
#define SF_PERF_DWARF_REGS	((1ULL << PERF_REG_ARM64_MAX) - 1)
#elif defined(__s390x__)
#define SF_PERF_DWARF_REGS	((1ULL << PERF_REG_S390_MAX) - 1)
#endif

struct sf_perf_data {
	FILE		*f;
	const char	*path;
	uint64_t	bytes;	/* of records, after the header */
};

/*
 * A sample of IP | TID | TIME | [CALLCHAIN] | REGS_USER | STACK_USER,
 * pointing into its record; @stack_bytes is the part of the copy that
 * holds data, rounded up to whole words.
 */
struct sf_perf_sample {
	uint16_t	misc;
	uint64_t	ip, pid_tid, time;
	uint64_t	nr;
	const uint64_t	*chain;
	uint64_t	abi;
	unsigned int	nregs;
	const uint64_t	*regs;
	uint64_t	stack_bytes;
	const uint64_t	*stack;
};

void sf_perf_dwarf_attr(struct perf_event_attr *attr, unsigned int stack_bytes,
			unsigned int ring_pages);
bool sf_perf_sample_parse(const struct perf_event_attr *attr, const uint64_t *rec,
			  struct sf_perf_sample *s);
bool sf_perf_data_open(struct sf_perf_data *d, const char *path,
		       const struct perf_event_attr *sampled);
void sf_perf_data_write(struct sf_perf_data *d, const void *p, size_t len);
void sf_perf_data_sample(struct sf_perf_data *d, const struct sf_perf_sample *s);
void sf_perf_sample_unsign(struct sf_perf_sample *s, uint64_t *regs, uint64_t *stack,
			   bool (*in_code)(uint64_t addr));
bool sf_perf_data_close(struct sf_perf_data *d, const struct perf_event_attr *sampled);

#endif /* _SF_PERF_DATA_H */
