/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the user space build of the stack walker (kernel/unwind/user.c) and
 * its harness share across their translation units: the task's user
 * memory, and the one SFrame section standing in for the registry.
 *
 * walker_env.c implements both on top of the reader's own shim
 * (sframe_internal.h), so the walker's SFrame lookups go through the real
 * reader on the same bytes the walker reads.  Nothing here uses the
 * kernel stand-ins of walker_internal.h: both sides can include it.
 */
#ifndef _WALKER_H
#define _WALKER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The regions of user memory a walk may read, one of each kind */
enum walk_region_kind {
	WALK_SECTION,
	WALK_TEXT,
	WALK_STACK,
	WALK_ALT,		/* another stack: sigaltstack, a thread's */
	WALK_REGIONS,
};

/**
 * struct walk_region - bytes that stand in for mapped user memory
 * @addr: the user address they appear at.
 * @len: their length; 0 for a region not mapped at all.
 * @data: the bytes.
 * @hole_start: start of a range inside that cannot be read.
 * @hole_end: its end; equal to @hole_start for none.
 * @hole_cold: the hole is mapped but not resident: it can be read only
 *	while page faults are enabled.
 */
struct walk_region {
	unsigned long	addr;
	unsigned long	len;
	const u8	*data;
	unsigned long	hole_start;
	unsigned long	hole_end;
	bool		hole_cold;
};

extern struct walk_region walk_map[WALK_REGIONS];
/* TASK_SIZE of the current task: no user access reaches it */
extern unsigned long walk_task_size;
/* pagefault_disable() depth */
extern int walk_pagefault_disabled;
/* NMI or IRQ context: sleeping, or taking a faultable path, is a bug. */
extern bool walk_atomic;
/* current->mm is set: without one, no section describes anything. */
extern bool walk_have_mm;

/* One user access of the walker, as the shim saw it */
struct walk_read {
	unsigned long	addr;
	unsigned long	len;
	bool		ok;
	u64		value;		/* the first eight bytes read */
};

/* The accesses of one step of a walk: no step makes more. */
#define WALK_LOG_MAX		32

extern struct walk_read walk_log[WALK_LOG_MAX];
extern unsigned int walk_log_len;
/* Accesses are logged only while this is set, a step at a time. */
extern bool walk_log_on;
/* Accesses refused because they reach TASK_SIZE (access_ok()) */
extern unsigned long walk_kernel_reads;

bool walk_copy(void *dst, unsigned long src, unsigned long len);
bool walk_peek(void *dst, unsigned long src, unsigned long len);
void walk_log_reset(void);

/* Reports a broken rule of the kernel's (WARN, sleeping in NMI), and aborts */
void walk_bug(const char *what);

struct unwind_user_frame;

/*
 * The registry: at most one section, registered for one text range, as
 * sframe_registry.c would hold it.  Lookups count what they cost.
 */
int walk_register(unsigned long sframe_start, unsigned long sframe_size,
		  unsigned long text_start, unsigned long text_end);
void walk_unregister(void);
/* Forget what earlier walks left: a section dropped as malformed, counts */
void walk_registry_reset(void);
bool walk_registered(void);
/* The section was dropped as malformed by a faultable lookup. */
bool walk_section_dropped(void);
/* FRE rows read by lookups since the reset, and the lookups made */
unsigned long walk_rows_read(void);
unsigned long walk_lookups(void);

/* The SFrame ABI of the architecture built for */
extern const u8 walk_sframe_abi;

/* The same lookups for the oracle: nothing recorded, nothing dropped */
int walk_ref_lookup(unsigned long ip, struct unwind_user_frame *frame,
		    unsigned int *budget);
bool walk_ref_described(unsigned long ip);

#endif /* _WALKER_H */
