// SPDX-License-Identifier: GPL-2.0
/*
 * sf-perf-dwarf [--audit MODULE] [--tool PKGDIR] DIR sync|defer|bpf PROGRAM
 *	[ARG...]: samples a program this repository does not contain (sqlite3,
 * built from Debian's source with SFrame: tools/toolchain/build-sqlite3)
 * and checks each sample's SFrame user stack against DWARF CFI, the
 * unwinding information compilers have always emitted, read by a tool that
 * knows nothing of SFrame.
 *
 * Each sample carries, besides the stack the kernel walked by SFrame, the
 * user registers and a copy of the user stack (PERF_SAMPLE_REGS_USER,
 * PERF_SAMPLE_STACK_USER), taken in the same interrupt.  The samples go,
 * without the kernel's stacks, into a perf.data file that Debian's own perf
 * (DIR: tools/vm/guest-tool) unwinds by DWARF with `perf script`.  The two
 * stacks of every sample must then agree frame for frame down to main.
 * The kernel's stack comes from
 *
 *   sync   the sample's callchain (taken in the timer interrupt, without
 *          faulting);
 *   defer  a PERF_RECORD_CALLCHAIN_DEFERRED record (Linux 6.19's ABI),
 *          walked on the way back to user space;
 *   bpf    a BPF program on the event calling bpf_get_stack(BPF_F_USER_STACK).
 *
 * Only samples whose DWARF stack down to main lies in objects with SFrame
 * are compared: the Debian C library has none, and a stack through it
 * cannot be exact by SFrame (how many there were is printed).  At least
 * 1,000 samples compared, every one of them exact.  A DWARF stack
 * without main is whole if it ends in the program's entry (_start: the
 * exit path, or a stripped program), and compared down to there.
 *
 * Samples whose DWARF stack is not whole are left out, by what DWARF, time
 * and the sample's PC say, never by the SFrame stack under test: before the
 * first sample whose PC is in the program's text (ld.so's start-up, and
 * the module converting), at a PC in the program's PLT, through ld.so's
 * lazy-binding trampoline where its CFI is wrong (a KNOWN FAILURE: see
 * dw_through_resolver()), at a PC in the program's .plt.got, whose
 * SFrame GNU ld writes wrong (a KNOWN FAILURE, whatever DWARF's stack:
 * see dw_compare()), at a PC no FDE of its file describes (DWARF has
 * no CFI there and libdw guesses by the frame pointer: glibc's _init and
 * _fini have none), and the rest,
 * where DWARF itself stops short.  On arm64, whose PLT has no CFI, a PLT
 * sample is left out whatever DWARF gives: that stack is libdw's
 * frame-record fallback, not CFI's.  Each is printed with its share of the
 * samples, and each has its bound (DW_MAX_*_PERMILLE).
 *
 * --audit MODULE runs PROGRAM under LD_AUDIT=MODULE (libsframe-audit.so,
 * which registers SFrame made from each object's .eh_frame as it is
 * loaded): then every sample is compared, those through glibc too, and
 * /proc/PID/sframe must list the C library's text while PROGRAM runs.
 * --tool PKGDIR runs PROGRAM of a Debian package (tools/vm/guest-tool)
 * through the package's own loader, unmodified: stripped, so its main has
 * no name, and stacks are compared whole, down to its entry point.
 *
 * On arm64, where Debian builds with pointer authentication, perf's DWARF
 * unwinding loses its way at the first signed return address it reads
 * from the stack copy.  The copy (and the link register) perf gets from
 * the file are this program's to write: signed return addresses are
 * stripped there first (sf_perf_sample_unsign()).  A DWARF stack perf still cuts at a
 * signed or unknown address is compared up to there, SFrame's must go on
 * to the program's _start, and at most DW_MAX_CUT_PERMILLE of the
 * samples may be such.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sf_bpf.h"
#include "sf_call.h"
#include "sf_ehframe.h"
#include "sf_harness.h"
#include "sf_perf.h"
#include "sf_perf_data.h"
#include "sf_tool.h"
#include "sframe_test.h"

#define DW_DATA			"/tmp/perf-dwarf.data"
#define DW_MIN_SAMPLES		1000
#define DW_MAX_SAMPLES		16384
#define DW_DEPTH		127	/* perf's own limit on a callchain */
#define DW_STACK_BYTES		16384
#define DW_RING_PAGES		1024
#define DW_LINE			4096
#define DW_DSOS			16
/*
 * The period is set for about 3,000 samples a run from the CPU time of a
 * first run without sampling: emulation is several times slower on some
 * arches than on others.  More runs if too few samples were compared: the
 * guest's timer sometimes falls back to the tick's rate.
 */
#define DW_RUN_SAMPLES		3000
#define DW_MIN_PERIOD_NS	100000
#define DW_ROUNDS		6
#define DW_ARGS			16	/* PROGRAM and its arguments */
#define DW_MAPS			64	/* executable mappings of the child */
/*
 * Bounds on the samples left out, in thousandths of those perf script
 * showed.  Start-up is decided by time alone, so it cannot hide a stack
 * either unwinder got wrong; its share is the CPU time ld.so (and the
 * module, converting every object's .eh_frame: 2-5% of a run in the
 * x86_64 and arm64 guests) takes before the program's first instruction:
 * 15%.  PLT stubs are decided by the PC: on arm64 sqlite3 spends 3-5% of
 * its time in them, elsewhere DWARF unwinds them and none is left out:
 * 10%.  Code no CFI describes is decided by the PC and its file's
 * .eh_frame: glibc's _fini, three instructions run once at exit, is
 * where it was seen (x86_64, one sample in thousands, where libdw's
 * frame-pointer guess left out ld.so's _dl_fini): 1%.  Stacks DWARF
 * stops short of main and _start at any other PC are
 * the reference's own failures, as are those perf still cuts at a signed
 * return address after stripping (arm64): none seen in most runs, 1%
 * each.  Under the module, samples through its own code after the
 * program started (its teardown at exit: one or two a run), 1%.
 */
#define DW_MAX_STARTUP_PERMILLE	150
#define DW_MAX_PLT_PERMILLE	100
#define DW_MAX_SHORT_PERMILLE	10
#define DW_MAX_NO_CFI_PERMILLE	10
#define DW_MAX_CUT_PERMILLE	10
#define DW_MAX_MODULE_PERMILLE	10
#define DW_MAX_RESOLVER_PERMILLE 10

enum dw_mode { DW_SYNC, DW_DEFER, DW_BPF };

/* One sample: its time (the key into perf script's output) and SFrame stack */
struct dw_sample {
	uint64_t	time;
	uint64_t	pc;		/* the sample's own, from its header */
	uint64_t	cookie;		/* defer: the record it waits for */
	bool		have;		/* its stack came */
	unsigned int	nr;
	uint64_t	ips[DW_DEPTH];
};

static struct dw_sample dw_samples[DW_MAX_SAMPLES];
static unsigned int dw_nsamples, dw_lost;
/*
 * Samples past DW_MAX_SAMPLES are left out.  Under emulation a walk in the
 * interrupt can take as long as the period, which task-clock then counts
 * too: the samples come faster than the program runs.
 */
static unsigned int dw_cut;
/*
 * Deferred records whose sample the ring buffer lost (a reader that fell
 * behind on a loaded host): at most one for each record lost.
 */
static unsigned int dw_orphans;
static enum dw_mode dw_mode;
static struct sf_perf_data dw_data;
static char dw_program[256];
static const char *dw_audit, *dw_tool_dir;
static char dw_loader[512];
/* What /proc/PID/sframe showed of the program's objects (--audit) */
static unsigned int dw_registered;
static bool dw_registered_libc;
/* The run-time address of PROGRAM's entry (_start), 0 until known */
static uint64_t dw_entry;
/* ... and of its .plt, whose stubs have no CFI on arm64 */
static uint64_t dw_plt_lo, dw_plt_hi;
/* ... and of its .plt.got, whose SFrame GNU ld writes wrong (dw_compare()) */
static uint64_t dw_pltgot_lo, dw_pltgot_hi;
/* ... and of its .fini: glibc's _fini, which no CFI describes */
static uint64_t dw_fini_lo, dw_fini_hi;
/*
 * The child's executable mappings, from the run's PERF_RECORD_MMAP2s
 * (mmap_data is off: they are all of them), PROGRAM's text among them.
 */
static struct {
	uint64_t	lo, hi, pgoff;
	char		path[256];
	int		fd;	/* the file, once a PC in it was asked about */
} dw_maps[DW_MAPS];
static unsigned int dw_nmaps;
static uint64_t dw_text_lo, dw_text_hi;
/* The time of the run's first sample at a PC in PROGRAM's text */
static uint64_t dw_started;

#if defined(__aarch64__)
/*
 * perf 7.2's DWARF unwinding keeps the PAC signature of a return address
 * it reads back from the stack copy, then finds no CFI for that address:
 * its frames from the first signed one on are no reference, nor are the
 * ones from an address in no object (a slot misread before that).
 */
#define DW_SIGNED(ip)		((ip) >> 48)
/* GNU ld writes no CFI for arm64's PLT stubs */
#define DW_PLT_HAS_CFI		false
#else
#define DW_SIGNED(ip)		((ip) & 0)
#define DW_PLT_HAS_CFI		true
#endif
/* A return address into _start, after its one call */
#define DW_ENTRY_BYTES		64

/* The user frames of a callchain or deferred record: its context markers dropped */
static void dw_take_ips(struct dw_sample *s, const uint64_t *ips, uint64_t nr)
{
	uint64_t i;

	s->nr = 0;
	for (i = 0; i < nr && s->nr < DW_DEPTH; i++)
		if (ips[i] < PERF_CONTEXT_MAX)
			s->ips[s->nr++] = ips[i];
	s->have = true;
}

/* An executable mapping of the child: PERF_RECORD_MMAP2's addr, len, prot, name */
static void dw_mmap(const uint64_t *rec)
{
	const struct perf_event_header *hdr = (const void *)rec;
	const char *name = (const char *)rec + 72;
	uint32_t prot = ((const uint32_t *)rec)[16];

	if (hdr->size <= 72 || !(prot & 4) || dw_nmaps == DW_MAPS)	/* PROT_EXEC */
		return;
	dw_maps[dw_nmaps].lo = rec[2];
	dw_maps[dw_nmaps].hi = rec[2] + rec[3];
	dw_maps[dw_nmaps].pgoff = rec[4];
	snprintf(dw_maps[dw_nmaps].path, sizeof(dw_maps[0].path), "%.*s",
		 (int)(hdr->size - 72), name);
	dw_maps[dw_nmaps].fd = -1;
	if (!strncmp(name, dw_program, hdr->size - 72) && !dw_text_hi) {
		dw_text_lo = rec[2];
		dw_text_hi = rec[2] + rec[3];
	}
	dw_nmaps++;
}

/* The run's mappings are gone: the next run has its own */
static void dw_forget_maps(void)
{
	while (dw_nmaps)
		if (dw_maps[--dw_nmaps].fd >= 0)
			close(dw_maps[dw_nmaps].fd);
}

/*
 * The mapping at @ip, the newest first: a process's exec maps a file's
 * whole extent and then its segments, an ELF interpreter run as the
 * program at another address than its segments land; the later mapping
 * is what the address holds.  -1 if none.
 */
static int dw_map_at(uint64_t ip)
{
	unsigned int i = dw_nmaps;

	while (i--)
		if (ip >= dw_maps[i].lo && ip < dw_maps[i].hi)
			return i;
	return -1;
}

/* The file mapped at @ip, opened once, and @ip's offset in it; -1 if none */
static int dw_map_file(uint64_t ip, uint64_t *offset)
{
	int i = dw_map_at(ip);

	if (i < 0 || dw_maps[i].path[0] != '/')
		return -1;
	if (dw_maps[i].fd < 0)
		dw_maps[i].fd = open(dw_maps[i].path, O_RDONLY | O_CLOEXEC);
	*offset = ip - dw_maps[i].lo + dw_maps[i].pgoff;
	return dw_maps[i].fd;
}

/*
 * @pc lies in code no FDE of its file's .eh_frame describes: glibc's
 * _init and _fini (crti.o and crtn.o have no CFI), arm64's PLT.  Told
 * from the file alone; false where that cannot be told (the vDSO, a
 * file without .eh_frame_hdr).
 */
static int dw_cfi_at(uint64_t pc)
{
	int fd = dw_map_file(pc, &pc);

	return fd < 0 ? -1 : sf_ehframe_covers(fd, pc);
}

static bool dw_without_cfi(uint64_t pc)
{
	return !dw_cfi_at(pc);
}

/*
 * @ip, a caller's frame as perf gives it (the return address, or the byte
 * before it), is not after a call instruction in its file: no call left
 * it.  False where that cannot be told (no file, a failed read).
 */
static bool dw_not_after_call(uint64_t ip)
{
	uint64_t off;
	int fd = dw_map_file(ip, &off);

	return fd >= 0 && !sf_call_before(fd, off) && !sf_call_before(fd, off + 1);
}

static bool dw_in_code(uint64_t ip)
{
	return dw_map_at(ip) >= 0;
}

/*
 * A sample: ip, pid/tid, time, [callchain], registers, stack.  Kept: its
 * time and SFrame stack; written to the file: the same without the
 * callchain, and with only the part of the stack copy that holds data.
 * On arm64 the return addresses there and in LR are unsigned first.
 */
static void dw_sample(const struct perf_event_attr *attr, const uint64_t *rec)
{
	static uint64_t ureg[64], ustack[DW_STACK_BYTES / 8];
	struct sf_perf_sample ps;
	struct dw_sample *s;

	if (!sf_perf_sample_parse(attr, rec, &ps) ||
	    !SF_CHECK(ps.nregs <= ARRAY_SIZE(ureg) && ps.stack_bytes <= sizeof(ustack),
		      "a sample of %u registers and %llu bytes of stack", ps.nregs,
		      (unsigned long long)ps.stack_bytes))
		return;
	if (dw_nsamples == DW_MAX_SAMPLES) {
		dw_cut++;
		return;
	}
	/* A slot is used again in every run: nothing of the last run's may stay */
	s = &dw_samples[dw_nsamples++];
	*s = (struct dw_sample){ .time = ps.time, .pc = ps.ip };
	if (dw_mode == DW_SYNC)
		dw_take_ips(s, ps.chain, ps.nr);
	else if (dw_mode == DW_DEFER &&
		 SF_CHECK(ps.nr == 2 && ps.chain[0] == PERF_CONTEXT_USER_DEFERRED,
			  "a callchain of %llu, not a deferred one", (unsigned long long)ps.nr))
		s->cookie = ps.chain[1];

	sf_perf_sample_unsign(&ps, ureg, ustack, dw_in_code);
	sf_perf_data_sample(&dw_data, &ps);
}

/* A deferred record: header, cookie, nr, ips; for every sample waiting for it */
static void dw_deferred(const uint64_t *rec)
{
	unsigned int i, got = 0;

	for (i = 0; i < dw_nsamples; i++) {
		if (dw_samples[i].have || dw_samples[i].cookie != rec[1])
			continue;
		dw_take_ips(&dw_samples[i], &rec[3], rec[2]);
		got++;
	}
	if (!got && !dw_cut && dw_lost)
		dw_orphans++;
	else
		SF_CHECK(got || dw_cut, "a deferred record with cookie %#llx, which no sample has",
			 (unsigned long long)rec[1]);
}

static void dw_drain(const struct perf_event_attr *attr, struct sf_perf_ring *ring)
{
	const struct perf_event_header *hdr;

	while ((hdr = sf_perf_ring_next(ring))) {
		switch (hdr->type) {
		case PERF_RECORD_SAMPLE:
			dw_sample(attr, ring->rec);
			break;
		case PERF_RECORD_CALLCHAIN_DEFERRED:
			dw_deferred(ring->rec);
			break;
		case PERF_RECORD_LOST:
			dw_lost += ring->rec[2];	/* header, id, lost */
			break;
		case PERF_RECORD_MMAP2:
			dw_mmap(ring->rec);
			sf_perf_data_write(&dw_data, hdr, hdr->size);
			break;
		default:	/* comm, mmap, exit: what perf needs to find the objects */
			sf_perf_data_write(&dw_data, hdr, hdr->size);
		}
	}
}

/*
 * The BPF side: an array with the next free slot, and one of slots, each
 * bpf_get_stack()'s result (bytes or an error) and the stack.  The perf
 * event writes its sample after the program ran and returned 1: the n-th
 * sample in the ring buffer is slot n.  Past the last slot the program
 * returns 0 and the sample is dropped with it.
 */
#define DW_BPF_VALUE	(8 + DW_DEPTH * 8)

static int dw_bpf_prog(int next, int slots)
{
	const struct bpf_insn insns[] = {
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),	/* r6 = ctx */
		SF_BPF_INSN(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0),
		/* r0 = bpf_map_lookup_elem(next, r10 - 4), r1 and r2 clobbered */
		SF_BPF_LD_MAP_FD(1, next),
		SF_BPF_LD_IMM64_HI,
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		SF_BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		SF_BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		SF_BPF_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 19, 0),	/* to drop */
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
		SF_BPF_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD | BPF_FETCH),
		SF_BPF_INSN(BPF_JMP | BPF_JGE | BPF_K, 1, 0, 16, DW_MAX_SAMPLES),
		SF_BPF_INSN(BPF_STX | BPF_MEM | BPF_W, 10, 1, -8, 0),
		/* r0 = bpf_map_lookup_elem(slots, r10 - 8) */
		SF_BPF_LD_MAP_FD(1, slots),
		SF_BPF_LD_IMM64_HI,
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		SF_BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -8),
		SF_BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		SF_BPF_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 10, 0),	/* to drop */
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 7, 0, 0, 0),	/* r7 = slot */
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0),
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 7, 0, 0),
		SF_BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, 8),
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, DW_DEPTH * 8),
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, BPF_F_USER_STACK),
		SF_BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stack),
		SF_BPF_INSN(BPF_STX | BPF_MEM | BPF_DW, 7, 0, 0, 0),
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1),
		SF_BPF_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* drop: */
		SF_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		SF_BPF_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return sf_bpf_perf_prog(insns, ARRAY_SIZE(insns));
}

/* The stacks the BPF program took, slot n for the n-th sample */
static void dw_bpf_collect(int next, int slots)
{
	uint64_t value[DW_BPF_VALUE / 8], used = 0;
	unsigned int i;

	sf_bpf_lookup(next, 0, &used);
	if (!SF_CHECK(used == dw_nsamples && !dw_lost,
		      "BPF saw %llu samples, the ring buffer holds %u (%u lost)",
		      (unsigned long long)used, dw_nsamples, dw_lost))
		return;
	for (i = 0; i < dw_nsamples; i++) {
		int64_t got;

		if (!SF_CHECK(!sf_bpf_lookup(slots, i, value), "slot %u: %m", i))
			return;
		got = (int64_t)value[0];
		if (SF_CHECK(got >= 0, "sample %u: bpf_get_stack() returned %lld", i,
			     (long long)got))
			dw_take_ips(&dw_samples[i], &value[1], got / 8);
	}
}

static bool dw_dso_has_sframe(const char *dso)
{
	static struct { char name[256]; bool sframe; } known[DW_DSOS];
	static unsigned int nknown;
	unsigned int i;

	for (i = 0; i < nknown; i++)
		if (!strcmp(known[i].name, dso))
			return known[i].sframe;
	if (nknown == DW_DSOS || strlen(dso) >= sizeof(known[0].name))
		return sf_file_has_sframe(dso);
	snprintf(known[nknown].name, sizeof(known[0].name), "%s", dso);
	known[nknown].sframe = sf_file_has_sframe(dso);
	return known[nknown++].sframe;
}

/* One frame of perf script's DWARF stack */
struct dw_frame {
	uint64_t	ip;
	char		sym[128];
	char		dso[256];
};

/*
 * A rule that compares a sample down to one of DWARF's frames: how many it
 * took, how many were exact that far, and the first that was not, in a
 * line (the check's own message carries it, where a log shows only that).
 */
struct dw_down_to {
	unsigned int	n;
	unsigned int	exact;
	char		first[192];
};

struct dw_tally {
	unsigned int	script, compared, exact, outside, unmatched, shown;
	unsigned int	adjusted;	/* return addresses perf gave as the call's */
	unsigned int	outside_exact;	/* of @outside, exact all the same */
	unsigned int	signed_cut;	/* DWARF stacks cut at a signed frame */
	unsigned int	to_entry;	/* compared down to _start, not main */
	/* Left out, DWARF's stack not whole: */
	unsigned int	startup;	/* before the program's first PC */
	unsigned int	plt;		/* at a PC in the program's PLT */
	unsigned int	no_cfi;		/* at a PC no FDE describes */
	unsigned int	no_cfi_alike;	/* of @no_cfi, the two guesses agree */
	unsigned int	short_;		/* DWARF stopped short all the same */
	unsigned int	module;		/* through the audit module's own code */
	unsigned int	resolver;	/* KNOWN FAILURE: ld.so's lazy binding */
	unsigned int	pltgot;		/* KNOWN FAILURE: GNU ld's .plt.got SFrame */
	unsigned int	pltgot_alike;	/* of @pltgot, exact all the same */
	/* Return addresses of exact stacks looked at for their call, and not found after one */
	unsigned int	calls_checked;
	unsigned int	calls_missed;
	/* DWARF's stack through a frame no call left: compared above it */
	struct dw_down_to not_call;
	/* Compared down to a caller whose call site no FDE describes */
	struct dw_down_to caller_no_cfi;
};

/* When the run's program started: its first sample at a PC in its text */
static void dw_find_start(void)
{
	unsigned int i;

	dw_started = UINT64_MAX;
	for (i = 0; i < dw_nsamples; i++) {
		if (dw_samples[i].pc >= dw_text_lo && dw_samples[i].pc < dw_text_hi) {
			dw_started = dw_samples[i].time;
			return;
		}
	}
}

/* @ip is a return address into PROGRAM's _start */
static bool dw_at_entry(uint64_t ip)
{
	return dw_entry && ip - dw_entry < DW_ENTRY_BYTES;
}

/* The first @n frames of SFrame's stack are DWARF's; counts perf's adjusted ones */
static bool dw_exact(const struct dw_sample *s, const struct dw_frame *d, unsigned int n,
		     unsigned int *adjusted)
{
	unsigned int i;
	bool exact = s->nr >= n && n && s->ips[0] == d[0].ip;

	for (i = 1; exact && i < n; i++) {
		exact = s->ips[i] == d[i].ip || s->ips[i] == d[i].ip + 1;
		*adjusted += s->ips[i] == d[i].ip + 1;
	}
	return exact;
}

static struct dw_sample *dw_find(uint64_t time)
{
	unsigned int lo = 0, hi = dw_nsamples;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (dw_samples[mid].time < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < dw_nsamples && dw_samples[lo].time == time ? &dw_samples[lo] : NULL;
}

static void dw_show(const struct dw_sample *s, const struct dw_frame *d, unsigned int nd)
{
	unsigned int i;

	/* Shown even when the test passes: an inexact stack is worth a look. */
	sf_note("sample at %llu: %u frames by SFrame, %u by DWARF:",
		(unsigned long long)s->time, s->nr, nd);
	for (i = 0; i < 24 && (i < s->nr || i < nd); i++)
		sf_note("  %2u %#18llx %#18llx %s %s", i,
			i < s->nr ? (unsigned long long)s->ips[i] : 0ULL,
			i < nd ? (unsigned long long)d[i].ip : 0ULL,
			i < nd ? d[i].sym : "", i < nd ? d[i].dso : "");
}

/*
 * A sample @rule compares down to DWARF's frame @at: counted, with whether
 * it is @exact there; one that is not is shown, and the first such kept in
 * a line for the rule's check.
 */
static void dw_take_down_to(struct dw_tally *t, struct dw_down_to *rule, bool exact,
			    const struct dw_sample *s, const struct dw_frame *d, unsigned int nd,
			    unsigned int at)
{
	size_t size = sizeof(rule->first);
	unsigned int i;
	int n;

	rule->n++;
	rule->exact += exact;
	if (exact)
		return;
	if (t->shown++ < 3)
		dw_show(s, d, nd);
	if (rule->first[0])
		return;
	n = snprintf(rule->first, size, "at %u of %s, SFrame", at, d[at].dso);
	for (i = 0; i < s->nr && i <= at + 1 && n > 0 && n < (int)size; i++)
		n += snprintf(rule->first + n, size - n, " %#llx", (unsigned long long)s->ips[i]);
	for (i = 0; i < nd && i <= at && n > 0 && n < (int)size; i++)
		n += snprintf(rule->first + n, size - n, "%s%#llx", i ? " " : ", DWARF ",
			      (unsigned long long)d[i].ip);
}

/*
 * Compares a sample's SFrame stack with perf's DWARF one, down to main,
 * or to the program's entry if DWARF reached that without main (a
 * stripped program, or the exit path).  perf gives a return address as
 * the address before it, inside the call instruction (so that it names
 * the call's line): one less than the kernel's.
 */
/*
 * KNOWN FAILURE, told by DWARF's stack alone: a frame of ld.so whose
 * caller comes twice, the same address in a row.  On arm64 glibc's
 * lazy-binding trampoline (_dl_runtime_resolve) leaves the 16 bytes the
 * PLT pushed out of its CFA, so its caller's frame is looked for 16
 * bytes low, where the PLT saved the return address: DWARF, and SFrame
 * made from that CFI, both give the caller twice and then lose their
 * way (seen: getpwuid calling malloc@plt, 1 sample in 3,000).  The CFI is
 * wrong where it is written.  Recursion does not give that shape: a
 * symbol is bound once, at its first call.
 */
static bool dw_through_resolver(const struct dw_frame *d, unsigned int nd)
{
	unsigned int i;

	for (i = 0; i + 2 < nd; i++)
		if (strstr(d[i].dso, "/ld-linux") && d[i + 1].ip == d[i + 2].ip)
			return true;
	return false;
}

/*
 * A sample left out by its PC alone: counted in *@n, and in *@alike when
 * the two stacks agree all the same; the first that does not is shown.
 */
static void dw_leave_by_pc(const struct dw_sample *s, const struct dw_frame *d,
			   unsigned int nd, unsigned int main_at, unsigned int *n,
			   unsigned int *alike)
{
	unsigned int adjusted = 0;
	bool exact = main_at < nd && dw_exact(s, d, main_at + 1, &adjusted);

	(*n)++;
	*alike += exact;
	if (!exact && *n - *alike == 1)
		dw_show(s, d, nd);
}

/* Are DWARF's frames 0 to @last all in objects with SFrame? */
static bool dw_frames_have_sframe(const struct dw_frame *d, unsigned int last)
{
	unsigned int i;

	for (i = 0; i <= last; i++)
		if (!dw_dso_has_sframe(d[i].dso))
			return false;
	return true;
}

static void dw_compare(struct dw_tally *t, uint64_t time, const struct dw_frame *d,
		       unsigned int nd, bool cut)
{
	struct dw_sample *s = dw_find(time);
	unsigned int main_at, adjusted = 0, i;
	bool exact, startup;

	t->script++;
	if (!s || !s->have) {
		t->unmatched++;
		return;
	}
	for (main_at = 0; main_at < nd; main_at++)
		if (!strcmp(d[main_at].sym, "main") && !strcmp(d[main_at].dso, dw_program))
			break;
	if (main_at == nd && nd && !cut && dw_at_entry(d[nd - 1].ip))
		main_at = nd - 1;
	/*
	 * At a PC in the PLT: left out where DWARF's stack is not whole, and
	 * on arm64, whose PLT has no CFI, always: what DWARF gives past the
	 * stub there is libdw's guess from the frame records, whole or not.
	 */
	if ((main_at == nd || !DW_PLT_HAS_CFI) && s->pc >= dw_plt_lo && s->pc < dw_plt_hi) {
		t->plt++;
		return;
	}
	/*
	 * KNOWN FAILURE, told by the PC: in the program's .plt.got (x86_64's
	 * stubs of functions bound at start, `jmp *GOT`, which push nothing)
	 * GNU ld's SFrame says CFA = SP + 16, where the stub's .eh_frame, the
	 * CIE's rule, says SP + 8: the walk takes the word above the return
	 * address for it (seen: __cxa_finalize@plt at exit, 1 sample in
	 * 3,488).  Wrong where ld writes it.
	 */
	if (s->pc >= dw_pltgot_lo && s->pc < dw_pltgot_hi) {
		dw_leave_by_pc(s, d, nd, main_at, &t->pltgot, &t->pltgot_alike);
		return;
	}
	/*
	 * At a PC no CFI describes DWARF has nothing to go by: libdw falls
	 * back on the frame pointer, which at a function's first
	 * instructions skips the caller (glibc's _fini, tail-called from
	 * ld.so's _dl_fini, whose frame pointer leads past it).  SFrame's
	 * walker takes the caller from where the call left it, right until
	 * the stack pointer moves.  Left out by the PC and its file's
	 * .eh_frame, whatever either stack holds; counted with how many
	 * agree, and the first that differs shown.
	 */
	if (dw_without_cfi(s->pc)) {
		dw_leave_by_pc(s, d, nd, main_at, &t->no_cfi, &t->no_cfi_alike);
		return;
	}
	/*
	 * A frame of DWARF's that no call left, the code before it no call
	 * instruction: libdw, finding no CFI for a frame, guessed its caller
	 * from a frame pointer that held something else (seen once in some
	 * thousands of arm64 samples: a "caller" in the program's .init).
	 * DWARF's stack is wrong from there on; decided by DWARF's stack and
	 * the files, SFrame's is compared down to the frame before it.
	 */
	for (i = 1; i < nd && (main_at == nd || i <= main_at); i++) {
		if (!dw_not_after_call(d[i].ip))
			continue;
		exact = dw_exact(s, d, i, &adjusted);
		/*
		 * Frames above it in an object without SFrame (ld.so's, seen on
		 * s390x): counted with every stack through such an object below,
		 * not held to be exact.
		 */
		if (!dw_audit && !dw_frames_have_sframe(d, i - 1)) {
			t->outside++;
			t->outside_exact += exact;
			return;
		}
		dw_take_down_to(t, &t->not_call, exact, s, d, nd, i);
		return;
	}
	/*
	 * A caller whose call site no FDE of its file describes (Debian's
	 * crtstuff gives __do_global_dtors_aux no CFI, in the program and in
	 * every library, and it calls __cxa_finalize at exit): SFrame's walk
	 * ends at that frame, by the rule that frame pointers guess nothing
	 * in an object with SFrame; DWARF went on by libdw's guess.  Decided
	 * by DWARF's stack and the file's .eh_frame: SFrame's must be DWARF's
	 * down to that frame, and end there.  Not when a frame above it is in
	 * an object without SFrame (the C library without the module): those
	 * are compared below, as every stack through such an object is; nor,
	 * outside the program, in the start-up left out below by time
	 * (ld.so's _start has no CFI either, and calls before the module is
	 * ready); nor from the audit module's own frames on, which are the
	 * tool's (left out below).
	 */
	startup = main_at == nd && s->time < dw_started;
	for (i = 1; i < nd && (main_at == nd || i <= main_at); i++) {
		if (dw_audit && (!strcmp(d[i].dso, dw_audit) || !strcmp(d[i - 1].dso, dw_audit)))
			break;
		if ((startup && strcmp(d[i].dso, dw_program)) || !dw_without_cfi(d[i].ip - 1))
			continue;
		if (!dw_audit && !dw_frames_have_sframe(d, i))
			break;
		exact = s->nr == i + 1 && dw_exact(s, d, i + 1, &adjusted);
		dw_take_down_to(t, &t->caller_no_cfi, exact, s, d, nd, i);
		return;
	}
	/*
	 * DWARF's stack is not whole.  Left out by time (before the program
	 * ran: ld.so's start-up, the module converting); a stack perf cut at
	 * a signed address is compared that far, SFrame's going on to the
	 * program's entry; the rest are DWARF's own failures.
	 */
	if (startup) {
		t->startup++;
		return;
	}
	if (dw_through_resolver(d, nd)) {
		t->resolver++;
		return;
	}
	if (main_at == nd && (!cut || !nd)) {
		t->short_++;
		return;
	}
	/*
	 * Under the module, by DWARF's stack: a sample through the module's
	 * own code (its destructors at exit).  LD_AUDIT gives it a link
	 * namespace of its own, with its own copy of the C library, which it
	 * does not register: the tool at work, not the program profiled.
	 */
	for (i = 0; dw_audit && i < nd; i++) {
		if (!strcmp(d[i].dso, dw_audit)) {
			t->module++;
			return;
		}
	}
	if (main_at == nd) {
		t->signed_cut++;
		exact = dw_exact(s, d, nd, &adjusted) && dw_at_entry(s->ips[s->nr - 1]);
		main_at = nd - 1;
	} else {
		exact = dw_exact(s, d, main_at + 1, &adjusted);
		t->to_entry += main_at == nd - 1 && strcmp(d[main_at].sym, "main");
	}
	for (i = 0; i <= main_at; i++) {
		if (!dw_dso_has_sframe(d[i].dso)) {
			t->outside++;
			t->outside_exact += exact;
			/* Their SFrame is the module's: compared all the same */
			if (!dw_audit)
				return;
			break;
		}
	}
	t->compared++;
	if (exact) {
		t->exact++;
		t->adjusted += adjusted;
		/* The rule above on frames both agree on: each after a call */
		for (i = 1; i <= main_at && i < nd; i++) {
			t->calls_checked++;
			t->calls_missed += dw_not_after_call(d[i].ip);
		}
		return;
	}
	if (t->shown++ < 3)
		dw_show(s, d, nd);
}

/* @n of @of samples, with its share of them, which must be at most @max permille */
static void dw_bound(const char *what, unsigned int n, unsigned int of, unsigned int max)
{
	unsigned int permille = of ? n * 1000ULL / of : 0;

	sf_note("  %5u (%u.%u%%) %s", n, permille / 10, permille % 10, what);
	SF_CHECK(n * 1000ULL <= of * (uint64_t)max, "%u of %u samples %s: more than %u.%u%%",
		 n, of, what, max / 10, max % 10);
}

#define DW_CALLER_NO_CFI \
	"compared down to a caller whose call site no FDE describes, where the walk ends"

/* A dw_take_down_to() rule: bounded, and every sample it took exact that far */
static void dw_bound_down_to(const char *what, const struct dw_down_to *rule,
			     unsigned int of)
{
	char line[256];

	snprintf(line, sizeof(line), "%s (%u of them exact)", what, rule->exact);
	dw_bound(line, rule->n, of, DW_MAX_NO_CFI_PERMILLE);
	SF_CHECK(rule->exact == rule->n, "%u of %u samples %s: exact that far (first not: %s)",
		 rule->exact, rule->n, what, rule->first);
}

/*
 * perf script -F time,ip,sym,dso: "TIME:" then one "IP SYM (DSO)" line a
 * frame, then an empty line.
 */
static void dw_script(struct dw_tally *t)
{
	static const char *const args[] = {
		"script", "-i", DW_DATA, "-F", "time,ip,sym,dso", "--ns", NULL
	};
	static const char *const args_audit[] = {
		"script", "-i", DW_DATA, "-F", "time,ip,sym,dso", "--ns", "--no-inline", NULL
	};
	static struct dw_frame frames[DW_DEPTH];
	unsigned long long sec, nsec, ip;
	char line[DW_LINE], *dso;
	unsigned int nd = 0, shown = 0;
	bool in_sample = false, cut = false;
	uint64_t time = 0;
	FILE *f;
	pid_t pid;

	/*
	 * The module's own frames (samples while it converts) have debug info:
	 * perf would name their inlined callees, frames no stack walk has, and
	 * needs addr2line for it, which the guest lacks.
	 */
	f = sf_tool_run(dw_audit ? args_audit : args, &pid);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct dw_frame *fr = &frames[nd];

		if (sscanf(line, " %llu.%llu:", &sec, &nsec) == 2 && line[0] != '\t' &&
		    strchr(line, ':') && !in_sample) {
			time = sec * 1000000000ULL + nsec;
			in_sample = true;
			cut = false;
			nd = 0;
		} else if (in_sample && line[0] == '\n') {
			dw_compare(t, time, frames, nd, cut);
			in_sample = false;
		} else if (in_sample && !cut && nd < DW_DEPTH &&
			   sscanf(line, " %llx %127s", &ip, fr->sym) == 2) {
			fr->ip = ip;
			strtok(fr->sym, "+");
			dso = strrchr(line, '(');
			snprintf(fr->dso, sizeof(fr->dso), "%s", dso ? dso + 1 : "?");
			strtok(fr->dso, ")");
			/*
			 * perf's unwinding is lost from a signed frame on (whose
			 * value is not always the right slot's either), and from
			 * an address in no object: the stack is cut there.
			 */
			cut = DW_SIGNED(ip) ||
			      (DW_SIGNED(~0ULL) && !strcmp(fr->dso, "[unknown]"));
			nd += !cut;
		} else if (!in_sample && shown++ < 5) {
			sf_info("perf script: %s", strtok(line, "\n"));
		}
	}
	if (in_sample)
		dw_compare(t, time, frames, nd, cut);
	fclose(f);
	sf_tool_wait(pid, "perf script");
}

/* PROGRAM as a path: perf script names objects by the paths they were mapped from. */
static bool dw_find_program(const char *name)
{
	static const char *const dirs[] = { "./", "/bin/" };
	char path[sizeof(dw_program)], loader[256];
	unsigned int i;
	FILE *f;

	if (dw_tool_dir) {
		snprintf(path, sizeof(path), "%s/.loader", dw_tool_dir);
		f = fopen(path, "r");
		if (!SF_CHECK(f && fgets(loader, sizeof(loader), f), "%s: %m", path)) {
			if (f)
				fclose(f);
			return false;
		}
		fclose(f);
		snprintf(path, sizeof(path), "%s/%s", dw_tool_dir, strtok(loader, "\n"));
		if (!SF_CHECK(realpath(path, dw_loader), "%s: %m", path))
			return false;
		snprintf(path, sizeof(path), "%s/%s", dw_tool_dir, name);
		return SF_CHECK(realpath(path, dw_program), "%s: %m", path);
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", strchr(name, '/') ? "" : dirs[i], name);
		if (!access(path, X_OK) && realpath(path, dw_program))
			return true;
	}
	sf_fail("%s: not found", name);
	return false;
}

/*
 * Starts PROGRAM, its output discarded; with @go, once a byte comes
 * through that pipe.  A package's program runs through the package's
 * loader, and under the audit module with --audit.
 */
static pid_t dw_spawn(char **argv, const int *go)
{
	char *args[DW_ARGS + 4];
	pid_t child = fork();
	unsigned int n = 0;
	char c;

	if (child)
		return child;
	if (go) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
	}
	if (!freopen("/dev/null", "w", stdout))
		_exit(126);
	if (dw_audit && setenv("LD_AUDIT", dw_audit, 1))
		_exit(126);
	if (!dw_tool_dir)
		execv(dw_program, argv);
	args[n++] = dw_loader;
	args[n++] = "--library-path";
	args[n++] = (char *)dw_tool_dir;
	args[n++] = dw_program;
	while (*++argv && n < DW_ARGS + 3)
		args[n++] = *argv;
	args[n] = NULL;
	execv(dw_loader, args);
	_exit(127);
}

/*
 * --audit: the sections /proc/PID/sframe lists, each named by the file
 * /proc/PID/maps shows at its text (the module's registrations are
 * explicit, [jit] to the kernel).  Read until it lists the C library.
 */
static void dw_proc_sframe(pid_t pid)
{
	char path[64], line[DW_LINE], maps[DW_LINE], name[DW_LINE];
	unsigned long start, m_start, m_end;
	unsigned int n = 0;
	bool libc = false;
	FILE *f, *m;

	if (!dw_audit || dw_registered_libc)
		return;
	snprintf(path, sizeof(path), "/proc/%d/sframe", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-", &start) != 1 || !strstr(line, "[jit]"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		m = fopen(path, "r");
		name[0] = '\0';
		while (m && fgets(maps, sizeof(maps), m)) {
			if (sscanf(maps, "%lx-%lx %*s %*s %*s %*s %4095s", &m_start, &m_end,
				   name) == 3 && start >= m_start && start < m_end)
				break;
			name[0] = '\0';
		}
		if (m)
			fclose(m);
		n++;
		libc |= !!strstr(name, "/libc.so.6");
		if (libc && !dw_registered_libc)
			sf_info("/proc/%d/sframe: %.*s", (int)pid, (int)strcspn(line, "\n"), line);
		if (libc && !dw_registered_libc)
			sf_info("  text of %s", name);
		dw_registered_libc |= libc;
	}
	fclose(f);
	if (n > dw_registered)
		dw_registered = n;
}

/* Where @file's section @want is, shifted by @bias; *@lo and *@hi stay if it has none */
static void dw_section_of(FILE *f, const Elf64_Ehdr *eh, uint64_t bias, const char *want,
			  uint64_t *lo, uint64_t *hi)
{
	Elf64_Shdr sh, str;
	unsigned int i;
	char name[8];

	if (eh->e_shentsize != sizeof(sh) || eh->e_shstrndx >= eh->e_shnum ||
	    fseek(f, eh->e_shoff + (uint64_t)eh->e_shstrndx * sizeof(sh), SEEK_SET) ||
	    fread(&str, sizeof(str), 1, f) != 1)
		return;
	for (i = 0; i < eh->e_shnum; i++) {
		if (fseek(f, eh->e_shoff + (uint64_t)i * sizeof(sh), SEEK_SET) ||
		    fread(&sh, sizeof(sh), 1, f) != 1 ||
		    fseek(f, str.sh_offset + sh.sh_name, SEEK_SET) ||
		    fread(name, strlen(want) + 1, 1, f) != 1)
			return;
		if (!memcmp(name, want, strlen(want) + 1)) {
			*lo = sh.sh_addr + bias;
			*hi = *lo + sh.sh_size;
			return;
		}
	}
}

/*
 * Where PROGRAM's entry, .plt and .fini are in the running child, from
 * its ELF headers and the mapping of the file's first page
 */
static void dw_program_layout(pid_t pid)
{
	char path[64], maps[DW_LINE], name[DW_LINE];
	unsigned long start, off;
	Elf64_Ehdr eh;
	FILE *f, *m;

	f = fopen(dw_program, "r");
	if (!f)
		return;
	if (fread(&eh, sizeof(eh), 1, f) != 1)
		eh.e_type = ET_NONE;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	m = eh.e_type == ET_DYN || eh.e_type == ET_EXEC ? fopen(path, "r") : NULL;
	while (m && fgets(maps, sizeof(maps), m)) {
		if (sscanf(maps, "%lx-%*x %*s %lx %*s %*s %4095s", &start, &off, name) == 3 &&
		    !off && !strcmp(name, dw_program)) {
			start = eh.e_type == ET_DYN ? start : 0;
			dw_entry = eh.e_entry + start;
			dw_section_of(f, &eh, start, ".plt", &dw_plt_lo, &dw_plt_hi);
			dw_section_of(f, &eh, start, ".plt.got", &dw_pltgot_lo, &dw_pltgot_hi);
			dw_section_of(f, &eh, start, ".fini", &dw_fini_lo, &dw_fini_hi);
			break;
		}
	}
	if (m)
		fclose(m);
	fclose(f);
}

/* The CPU time PROGRAM takes, unsampled, in ns; 0 if it failed */
static uint64_t dw_cpu_time(char **argv)
{
	pid_t child = dw_spawn(argv, NULL);
	struct rusage ru;
	int status = 0;

	if (!SF_CHECK(child > 0 && wait4(child, &status, 0, &ru) == child &&
		      WIFEXITED(status) && !WEXITSTATUS(status),
		      "%s: status %#x", dw_program, status))
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/* Runs PROGRAM with the event on it; false if it did not get to run to the end */
static bool dw_record(char **argv, struct perf_event_attr *attr)
{
	int go[2], fd, next = -1, slots = -1, prog = -1, status = 0;
	static struct sf_perf_ring ring;
	bool ok = false;
	pid_t child;

	if (!SF_CHECK(!pipe(go), "pipe: %m"))
		return false;
	child = dw_spawn(argv, go);
	close(go[0]);
	if (!SF_CHECK(child > 0, "fork: %m")) {
		close(go[1]);
		return false;
	}
	fd = sf_perf_open(attr, child, -1);
	if (!SF_CHECK(fd >= 0, "perf_event_open: %m") ||
	    !sf_perf_ring_map(&ring, fd, DW_RING_PAGES))
		goto out;
	if (dw_mode == DW_BPF) {
		next = sf_bpf_map(BPF_MAP_TYPE_ARRAY, 8, 1);
		slots = sf_bpf_map(BPF_MAP_TYPE_ARRAY, DW_BPF_VALUE, DW_MAX_SAMPLES);
		if (!SF_CHECK(next >= 0 && slots >= 0, "BPF maps: %m"))
			goto out;
		prog = dw_bpf_prog(next, slots);
		if (prog < 0 || !SF_CHECK(!ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog),
					  "PERF_EVENT_IOC_SET_BPF: %m"))
			goto out;
	}
	if (!SF_CHECK(write(go[1], "g", 1) == 1, "cannot start %s", dw_program))
		goto out;
	while (waitpid(child, &status, WNOHANG) == 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 100);
		dw_proc_sframe(child);
		if (!dw_entry)
			dw_program_layout(child);
		dw_drain(attr, &ring);
		if (dw_nsamples == DW_MAX_SAMPLES)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	dw_drain(attr, &ring);
	child = 0;
	ok = SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "%s: status %#x",
		      dw_program, status);
	if (dw_mode == DW_BPF)
		dw_bpf_collect(next, slots);
out:
	close(go[1]);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	sf_perf_ring_unmap(&ring);
	if (prog >= 0)
		close(prog);
	if (next >= 0)
		close(next);
	if (slots >= 0)
		close(slots);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* main()'s messages too long for a line of code, each kept whole */
#define DW_RUN_NOTE	"%s%s: %u runs, a sample every %llu us of CPU time, %u samples (%u lost, %u past the buffer), %u compared, %u through objects without SFrame (%u of them exact%s), %u to _start without main; %u left out:"
#define DW_RESOLVER	"KNOWN FAILURE: through ld.so's lazy binding, the caller twice by DWARF and SFrame alike (glibc's arm64 _dl_runtime_resolve CFI leaves the PLT's 16 bytes out)"
#define DW_REGISTERED_NOTE	"/proc/PID/sframe: %u sections by the module, the C library's among them"
#define DW_EXACT_NOTE	"%s: %u of %u samples' SFrame stacks are DWARF's, frame for frame down to main (%u return addresses given by perf as the call's)"

/*
 * The tests: sqlite3 (tools/toolchain/build-sqlite3) sampled while it
 * fills a table, indexes, searches, sorts, aggregates into JSON and
 * indexes for full-text search; Debian's perf (linux-perf) unwinds.
 */
#define DW_SQL									\
	"CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);"		\
	"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"	\
	" WHERE i < 100000) INSERT INTO t SELECT i, hex(randomblob(8)),"	\
	" random() % 1000 FROM n;"						\
	"CREATE INDEX tb ON t(b);"						\
	"SELECT count(*), sum(c) FROM t WHERE b LIKE '%AB%';"			\
	"SELECT b FROM t ORDER BY c, b LIMIT 1 OFFSET 1000;"			\
	"SELECT length(json_group_array(a)) FROM t WHERE a % 7 = 0;"		\
	"CREATE VIRTUAL TABLE f USING fts5(x);"					\
	"INSERT INTO f SELECT b || ' ' || a FROM t LIMIT 20000;"		\
	"SELECT count(*) FROM f WHERE f MATCH 'A*';"
/* Under emulation, perf script alone takes a while. */
#define DW_SECONDS	300
#define DW_TEST(name, needs, ...)						\
	SF_TEST_ARGS(name, DW_SECONDS, needs, SF_ARGS(__VA_ARGS__, "sqlite3", ":memory:", DW_SQL))

DW_TEST(sqlite3_perf_sync, SF_ARGS("linux-perf", "sqlite3"), "linux-perf", "sync")
DW_TEST(sqlite3_perf_defer, SF_ARGS("linux-perf", "sqlite3"), "linux-perf", "defer")
DW_TEST(sqlite3_bpf, SF_ARGS("linux-perf", "sqlite3"), "linux-perf", "bpf")
/* Samples through glibc exact too, under the module */
DW_TEST(sqlite3_audit_perf_sync,
	SF_ARGS("libsframe-audit.so", SF_CONVERTER, "linux-perf", "sqlite3"),
	"--audit", "libsframe-audit.so", "linux-perf", "sync")
/*
 * Debian's own sqlite3 (tools/vm/guest-tool, directory debian-sqlite3),
 * unmodified, its libraries Debian's: all of its stacks from the
 * module's sections, compared whole down to the program's _start
 */
DW_TEST(debian_sqlite3_audit_perf_sync,
	SF_ARGS("libsframe-audit.so", SF_CONVERTER, "debian-sqlite3", "linux-perf"),
	"--audit", "libsframe-audit.so", "--tool", "debian-sqlite3", "linux-perf", "sync")

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.enable_on_exec = 1,
	};
	static char dw_audit_path[256];
	char what[256];
	struct dw_tally t = { 0 };
	const char *mode;
	unsigned int i, round, script, samples = 0, waiting = 0, left;
	uint64_t cpu;

	sf_harness_enter(argc, argv);
	while (argc > 2 && !strncmp(argv[1], "--", 2)) {
		if (!strcmp(argv[1], "--audit") && realpath(argv[2], dw_audit_path))
			dw_audit = dw_audit_path;
		else if (!strcmp(argv[1], "--tool"))
			dw_tool_dir = argv[2];
		else
			sf_fail("%s %s: unknown option, or no such file", argv[1], argv[2]);
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	if (!SF_CHECK(argc >= 4 && argc - 3 <= DW_ARGS,
		      "usage: sf-perf-dwarf [--audit MODULE] [--tool PKGDIR] DIR %s",
		      "sync|defer|bpf PROGRAM [ARG...]"))
		sf_exit();
	mode = argv[2];
	if (!strcmp(mode, "defer"))
		dw_mode = DW_DEFER;
	else if (!strcmp(mode, "bpf"))
		dw_mode = DW_BPF;
	else if (!SF_CHECK(!strcmp(mode, "sync"), "mode %s: sync, defer or bpf", mode))
		sf_exit();
	if (!sf_tool_init(argv[1], "perf") || !dw_find_program(argv[3]))
		sf_exit();
	sf_perf_dwarf_attr(&attr, DW_STACK_BYTES, DW_RING_PAGES);
	if (dw_mode == DW_DEFER)
		sf_perf_defer(&attr, true, true);
	if (dw_mode == DW_BPF)	/* bpf_get_stack()'s own walk, not the sample's */
		attr.sample_type &= ~PERF_SAMPLE_CALLCHAIN;

	cpu = dw_cpu_time(argv + 3);
	if (!cpu)
		sf_exit();
	attr.sample_period = cpu / DW_RUN_SAMPLES;
	if (attr.sample_period < DW_MIN_PERIOD_NS)
		attr.sample_period = DW_MIN_PERIOD_NS;
	for (round = 0; round < DW_ROUNDS && t.compared < DW_MIN_SAMPLES; round++) {
		/* Each run has its own addresses */
		dw_nsamples = 0;
		dw_forget_maps();
		dw_text_hi = 0;
		dw_entry = 0;
		dw_plt_hi = 0;
		dw_pltgot_hi = 0;
		dw_fini_hi = 0;
		if (!sf_perf_data_open(&dw_data, DW_DATA, &attr) || !dw_record(argv + 3, &attr) ||
		    !sf_perf_data_close(&dw_data, &attr))
			sf_exit();
		/*
		 * The rule's reader of .eh_frame, on two known answers: _start
		 * has CFI; glibc's _fini, the code the rule is for, has none.
		 */
		if (!round) {
			SF_CHECK(dw_cfi_at(dw_entry) == 1,
				 "no FDE found for %s's entry %#llx", dw_program,
				 (unsigned long long)dw_entry);
			SF_CHECK(dw_fini_hi && dw_cfi_at(dw_fini_lo) == 0,
				 "%s: no .fini, or an FDE describes it (%#llx)", dw_program,
				 (unsigned long long)dw_fini_lo);
		}
		for (i = 0; i < dw_nsamples; i++)
			waiting += !dw_samples[i].have;
		samples += dw_nsamples;
		dw_find_start();
		script = t.script;
		dw_script(&t);
		unlink(DW_DATA);
		SF_CHECK(t.script - script == dw_nsamples,
			 "perf script showed %u samples of %u", t.script - script, dw_nsamples);
		/*
		 * The first, unsampled run's CPU time set the period; an
		 * emulated guest on a busy host runs at another speed from
		 * one run to the next: aim the next run from this one's count.
		 */
		if (dw_nsamples && dw_nsamples < DW_RUN_SAMPLES / 2) {
			attr.sample_period = attr.sample_period * dw_nsamples / DW_RUN_SAMPLES;
			if (attr.sample_period < DW_MIN_PERIOD_NS)
				attr.sample_period = DW_MIN_PERIOD_NS;
		}
	}
	if (dw_orphans)
		sf_note("%s: %u deferred records whose sample was lost", mode, dw_orphans);
	SF_CHECK(dw_orphans <= dw_lost, "%u deferred records without a sample, %u records lost",
		 dw_orphans, dw_lost);
	left = t.startup + t.plt + t.no_cfi + t.short_ + t.module + t.resolver + t.pltgot +
	       t.caller_no_cfi.n + t.not_call.n;
	sf_note(DW_RUN_NOTE, mode, dw_audit ? " under the audit module" : "", round,
		(unsigned long long)attr.sample_period / 1000, samples, dw_lost,
		dw_cut, t.compared, t.outside, t.outside_exact,
		dw_audit ? ", compared: the module's" : "", t.to_entry, left);
	dw_bound("before the program's first sample in its text (start-up)", t.startup,
		 t.script, DW_MAX_STARTUP_PERMILLE);
	dw_bound(DW_PLT_HAS_CFI ? "at a PC in the program's PLT, DWARF short of main" :
		 "at a PC in the program's PLT (no CFI)", t.plt, t.script, DW_MAX_PLT_PERMILLE);
	snprintf(what, sizeof(what),
		 "at a PC no FDE of its file describes (%u of them alike)", t.no_cfi_alike);
	dw_bound(what, t.no_cfi, t.script, DW_MAX_NO_CFI_PERMILLE);
	dw_bound("where DWARF's stack ends at neither main nor _start", t.short_, t.script,
		 DW_MAX_SHORT_PERMILLE);
	dw_bound(DW_RESOLVER, t.resolver, t.script, DW_MAX_RESOLVER_PERMILLE);
	snprintf(what, sizeof(what),
		 "KNOWN FAILURE: at a PC in the program's .plt.got, whose SFrame GNU ld writes with CFA = SP + 16 (%u of them exact all the same)",
		 t.pltgot_alike);
	dw_bound(what, t.pltgot, t.script, DW_MAX_RESOLVER_PERMILLE);
	if (dw_audit)
		dw_bound("through the audit module's own code (its namespace, not registered)",
			 t.module, t.script, DW_MAX_MODULE_PERMILLE);
	dw_bound_down_to(DW_CALLER_NO_CFI, &t.caller_no_cfi, t.script);
	dw_bound_down_to("with a frame of DWARF's no call instruction left, compared above it",
			 &t.not_call, t.script);
	/* The call decoder knows every call the program and its libraries make */
	if (SF_CHECK(t.calls_checked && !t.calls_missed,
		     "%u of %u return addresses of exact stacks not after a call instruction",
		     t.calls_missed, t.calls_checked))
		sf_note("%u return addresses of exact stacks, each after a call instruction",
			t.calls_checked);
	if (dw_audit) {
		if (SF_CHECK(dw_registered_libc,
			     "/proc/PID/sframe never listed the C library (%u sections seen)",
			     dw_registered))
			sf_note(DW_REGISTERED_NOTE, dw_registered);
		SF_CHECK(t.outside >= 10, "only %u samples through objects without .sframe",
			 t.outside);
	}
	if (DW_SIGNED(~0ULL))
		dw_bound("with DWARF's stack cut at a signed or unknown address",
			 t.signed_cut, t.script, DW_MAX_CUT_PERMILLE);
	SF_CHECK(!waiting, "%u of %u samples never got their stack", waiting, samples);
	SF_CHECK(!t.unmatched, "perf script showed %u samples unknown here", t.unmatched);
	SF_CHECK(t.compared >= DW_MIN_SAMPLES, "%u samples compared", t.compared);
	if (SF_CHECK(t.exact == t.compared,
		     "%u of %u samples exact to main", t.exact, t.compared))
		sf_note(DW_EXACT_NOTE, mode, t.exact, t.compared, t.adjusted);
	sf_exit();
}
