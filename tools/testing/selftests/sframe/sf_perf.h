/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the programs that sample themselves with perf share: reading a
 * ring buffer, naming the function an address lies in, comparing a
 * callchain with the chain of calls it must be, and the deferred
 * callchain ABI of Linux 6.19, which the C library's headers of Debian 12
 * do not know.
 */
#ifndef _SF_PERF_H
#define _SF_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#ifndef PERF_RECORD_CALLCHAIN_DEFERRED
#define PERF_RECORD_CALLCHAIN_DEFERRED	22
#define PERF_CONTEXT_USER_DEFERRED	((__u64)-640)
#endif

/* Longest record the programs read, in u64 words */
#define SF_PERF_REC_WORDS	8192	/* 64 KiB: a perf record's u16 size */

struct sf_perf_ring {
	struct perf_event_mmap_page	*meta;
	size_t				len;
	uint64_t			rec[SF_PERF_REC_WORDS];
};

void sf_perf_defer(struct perf_event_attr *attr, bool callchain, bool output);
int sf_perf_open(struct perf_event_attr *attr, int pid, int group);
int sf_perf_self(uint64_t period_ns, bool defer, struct sf_perf_ring *ring,
		 unsigned int pages);

/* What sf_perf_self_cpu() samples, beyond user mode's user callchains */
#define SF_PERF_KERNEL		0x1	/* in the kernel too */
#define SF_PERF_NO_CALLCHAIN	0x2	/* the ip alone: BPF takes the stack */
#define SF_PERF_DEFER		0x4	/* callchains deferred */
#define SF_PERF_USTACK		0x8	/* and SF_PERF_USTACK_BYTES of the user stack */

/* perf's own copy of the stack at the user SP: can user memory be read? */
#define SF_PERF_USTACK_BYTES	64

int sf_perf_self_cpu(uint64_t period_ns, unsigned int flags,
		     struct sf_perf_ring *ring, unsigned int pages);
bool sf_perf_ring_map(struct sf_perf_ring *ring, int fd, unsigned int pages);
void sf_perf_ring_unmap(struct sf_perf_ring *ring);
const struct perf_event_header *sf_perf_ring_next(struct sf_perf_ring *ring);

/* sf-perf's two chains of calls, innermost first, ending with main */
extern const char *const sf_perf_linked_chain[];
extern const char *const sf_perf_dl_chain[];

const char *sf_perf_sym(uint64_t ip, bool ret);
/* More frames than any chain the programs check */
#define SF_PERF_CHAIN_NAMES	32

bool sf_perf_in_chain(const char *const *chain, const char *name);
bool sf_perf_names_exact(const char *const *chain, const char *const *names,
			 unsigned int nr);
/* The same as far as @names go: a true stack cut short */
bool sf_perf_names_cut(const char *const *chain, const char *const *names,
		       unsigned int nr);
bool sf_perf_chain_exact(const char *const *chain, const uint64_t *ips,
			 uint64_t nr);
void sf_perf_chain_show(const char *what, const uint64_t *ips, uint64_t nr);

#endif /* _SF_PERF_H */
