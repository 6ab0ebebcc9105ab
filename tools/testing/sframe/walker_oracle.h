/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs the walker on one input, every way the kernel can, and checks each
 * walk against an independent reference step (walker_oracle.c).  Shared
 * by the host cases (walker_test.c) and the fuzzer (walker_fuzz.c).
 */
#ifndef _WALKER_ORACLE_H
#define _WALKER_ORACLE_H

#include "walker_internal.h"

/*
 * Registers by index: 0-31 as the arch's DWARF numbers name them where
 * they are general registers (x86-64: 0-15; arm64: x0-x30, 31 the SP;
 * s390x: r0-r15, then the FPRs 16-31), 32 the IP.
 */
#define WALK_REGS		33
#define WALK_REG_IP		32

#define WALK_F_KTHREAD		BIT(0)	/* current is a kernel thread */
#define WALK_F_NO_MM		BIT(1)	/* ... or has no mm */
#define WALK_F_KERNEL_MODE	BIT(2)	/* the registers are not user mode */
#define WALK_F_COMPAT_MODE	BIT(3)	/* x86: 32-bit CS; arm64: AArch32 */
#define WALK_F_COMPAT_TASK	BIT(4)	/* TIF_ADDR32, TIF_32BIT, TIF_31BIT */
#define WALK_F_NMI		BIT(5)	/* the nofault walks run in NMI */
#define WALK_F_OTHER_MM		BIT(6)	/* ... with another mm loaded */

/* Frames a stepped walk may report; above any bound the fuzzer gives */
#define WALK_MAX_FRAMES		300

/**
 * struct walk_input - everything a walk may depend on
 * @flags: WALK_F_*.
 * @max_entries: room of the traces the entry points fill.
 * @budget: FRE rows of an extra stepped walk; 0 for none.
 * @region: the user memory; @region[WALK_SECTION] holds the section.
 * @text_start: start of the text the section is registered for.
 * @text_end: its end.
 * @asce_limit: s390: the mm's ASCE limit, nothing mapped at or above it.
 * @regs: the task's user registers, by the WALK_REG* numbering.
 */
struct walk_input {
	unsigned int		flags;
	unsigned int		max_entries;
	unsigned int		budget;
	struct walk_region	region[WALK_REGIONS];
	unsigned long		text_start;
	unsigned long		text_end;
	unsigned long		asce_limit;
	unsigned long		regs[WALK_REGS];
};

/* One stepped walk: what a consumer would have been given */
struct walk_trace {
	unsigned int	nr;
	unsigned long	ip[WALK_MAX_FRAMES];
	u8		type[WALK_MAX_FRAMES];
	bool		error;
};

/**
 * struct walk_result - what walk_run() saw
 * @registered: the section was registered.
 * @faultable: the stepped walk that may fault.
 * @nofault: the stepped walk with page faults disabled.
 * @budgeted: the stepped walk with @budget rows, if any.
 * @steps: steps checked against the reference, all walks.
 * @why: the first finding, empty if none.
 */
struct walk_result {
	bool			registered;
	struct walk_trace	faultable;
	struct walk_trace	nofault;
	struct walk_trace	budgeted;
	unsigned long		steps;
	char			why[256];
};

bool walk_run(const struct walk_input *in, struct walk_result *res);

/* The fuzzer's bytes for an input, and back */
size_t walk_encode(const struct walk_input *in, u8 *buf, size_t size);
bool walk_decode(const u8 *data, size_t size, struct walk_input *in);

#endif /* _WALKER_ORACLE_H */
