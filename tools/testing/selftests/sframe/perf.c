// SPDX-License-Identifier: GPL-2.0
/*
 * sf-perf [--no-sframe] [--bpf | --defer | --work MS] [--nocfi] [--fork]
 * [--first]: samples itself with perf_event_open() (cpu-clock, user mode
 * only, user callchains) while it spins in known
 * call chains, reads the samples from its ring buffer and checks each
 * callchain symbol by symbol, from the sampled function down to main:
 *
 *   linked   main > perf_run > perf_round > perf_a > lib_ustack_mid (a
 *            linked library) > perf_c > perf_spin
 *   dlopen   main > perf_run > perf_round > perf_dl_a > dl_ustack_mid (a
 *            dlopen-ed library) > perf_c > perf_spin
 *
 *   no CFI   main > perf_run > perf_round > perf_nocfi_a > perf_nocfi_spin
 *            (perf-nocfi.S: assembly without CFI, so no SFrame FDE), with
 *            --nocfi, alone; a sample in perf_nocfi_spin holds it alone:
 *            the walk ends in code that no FDE covers and that is no
 *            PLT stub, where neither frame pointers nor the rule of a
 *            function's entry can be known to find the caller
 *
 * A sample may land in any of those functions; its callchain must then be
 * the rest of the chain to main.  At least 1,000 samples per chain, every
 * one of them exact.  Built -O2 -fomit-frame-pointer; the kernel
 * takes the callchain in the timer interrupt, with page faults disabled,
 * from SFrame sections the program never reads itself (the kernel faulted
 * them in when it registered them).  With --no-sframe
 * (the same sources built without SFrame) it only reports how many
 * samples frame pointers alone followed to main.
 *
 * With --bpf the samples go to a BPF program instead, which takes each
 * one's user stack with bpf_get_stackid(BPF_F_USER_STACK) into a stack
 * map and counts it; the stacks are checked the same way, weighted by
 * their counts.
 *
 * With --defer the samples ask for deferred user callchains (Linux 6.19's
 * ABI): each sample's callchain is PERF_CONTEXT_USER_DEFERRED and a
 * cookie, and the stack comes in a PERF_RECORD_CALLCHAIN_DEFERRED record
 * with that cookie, walked on the way back to user space, where the
 * kernel may fault pages in.  Every sample must get exactly one record, and
 * consecutive records (one stay in the kernel each) different cookies.
 *
 * With --work MS it only runs each chain for MS milliseconds, for a perf
 * tool to sample it (sf-perf-tool).
 *
 * With --fork a child forked after the dlopen() does it all, not the
 * process that mapped the program and the libraries: fork() gives it
 * their sections, but maps none of their pages, which interrupt-time
 * walks then need the kernel to have faulted in for it.
 *
 * With --first (run with nobody profiling: no consumer of user stacks
 * existed when it started) the process registers nothing, at exec nor at
 * its dlopen(), until its first sample: that one's stack is the tracer's
 * frame-pointer walk, and the sample has the kernel register every section
 * before the process runs on.  The samples of the round that sample came
 * in are left out (see perf_leave_out()), counted and printed; every
 * sample after them must be exact.  With --defer too,
 * the first sample's stack is walked where the kernel may sleep, which
 * registers the sections before it walks: every sample must be exact,
 * the first included.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sf_bpf.h"
#include "sf_chain.h"
#include "sf_perf.h"
#include "sf_syscall.h"
#include "sf_harness.h"

#define PERF_SAMPLES		1000
/*
 * Under emulation on a busy host the guest's timer often fires late, once
 * for several periods: sample until enough, for a minute at most.
 */
#define PERF_MAX_SECONDS	60
#define PERF_SPIN		200000
#define PERF_DATA_PAGES		64
#define PERF_PENDING_MAX	64

typedef long (*perf_cb)(void);
typedef long (*perf_mid)(perf_cb cb);

long lib_ustack_mid(perf_cb cb);

static bool perf_no_sframe, perf_bpf, perf_defer, perf_nocfi, perf_first;
/*
 * --first: the process's first sample was seen; samples left out, and
 * how many of those were exact all the same (printed, not judged)
 */
static bool perf_first_seen;
static unsigned int perf_first_left, perf_first_left_exact;
/*
 * A round is one call of the leaf's loop, a few milliseconds: 1 to 62
 * samples seen under emulation.  Only a round that never ends would come
 * near a chain's worth: the samples after it are the test.
 */
#define PERF_FIRST_MAX_LEFT	PERF_SAMPLES
static unsigned int perf_work_ms;
static int perf_fd = -1;
static volatile unsigned long perf_sink;

/* The leaf: arithmetic only, so every sample of it is in this program. */
__attribute__((noinline)) long perf_spin(void)
{
	unsigned long x = perf_sink, i;

	for (i = 0; i < PERF_SPIN; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	perf_sink = x;
	return x & 1;
}

SF_CHAIN_FN(perf_c, (void), perf_spin())

SF_CHAIN_FN(perf_a, (perf_mid mid), mid(perf_c))

SF_CHAIN_FN(perf_dl_a, (perf_mid mid), mid(perf_c))

long perf_nocfi_spin(perf_mid unused);

SF_CHAIN_FN(perf_nocfi_a, (perf_mid mid), perf_nocfi_spin(mid))

static const char *const perf_nocfi_chain[] = {
	"perf_nocfi_spin", "perf_nocfi_a", "perf_round", "perf_run", "main", NULL
};

/* Sampling is on only here, switched by this function's own syscalls. */
__attribute__((noinline)) long perf_round(long (*a)(perf_mid), perf_mid mid)
{
	long r;

	if (perf_fd >= 0)
		sf_syscall4(SYS_ioctl, perf_fd, PERF_EVENT_IOC_ENABLE, 0, 0);
	r = a(mid);
	if (perf_fd >= 0)
		sf_syscall4(SYS_ioctl, perf_fd, PERF_EVENT_IOC_DISABLE, 0, 0);
	__asm__ volatile("" : : : "memory");
	return r;
}

struct perf_tally {
	const char	*name;
	const char	*const *chain;	/* innermost first, ends with main */
	/*
	 * A function of the chain whose samples end there: code of an object
	 * with SFrame that no FDE covers and that is no stub the arch knows,
	 * where nothing says where the caller is.  Its samples are exact
	 * when they hold it alone.
	 */
	const char	*ends_at;
	unsigned int	ended;
	unsigned int	samples;
	unsigned int	exact;
	unsigned int	shown;
	/* --defer: cookies of samples waiting for their stack, last record's */
	uint64_t	pending[PERF_PENDING_MAX];
	unsigned int	npending;
	uint64_t	last_cookie;
};

/* @ips (innermost first) seen @count times */
static void perf_stack(struct perf_tally *t, const uint64_t *ips, uint64_t nr,
		       unsigned int count)
{
	/* --first --defer: a deferred walk may sleep: it registers, then walks */
	if (perf_defer)
		perf_first_seen = true;
	t->samples += count;
	if (t->ends_at && !perf_no_sframe && nr && !strcmp(sf_perf_sym(ips[0], 0), t->ends_at)) {
		if (nr == 1) {
			t->exact += count;
			t->ended += count;
			return;
		}
	} else if (sf_perf_chain_exact(t->chain, ips, nr)) {
		t->exact += count;
		return;
	}
	if (!perf_no_sframe && t->shown++ < 3) {
		sf_info("%s: sample %u of the chain:", t->name, t->samples);
		sf_perf_chain_show(t->name, ips, nr);
	}
}

static void perf_sample(struct perf_tally *t, const uint64_t *chain, uint64_t nr)
{
	if (perf_defer) {
		if (!SF_CHECK(nr == 2 && chain[0] == PERF_CONTEXT_USER_DEFERRED,
			      "%s: callchain of %llu, not a deferred one", t->name,
			      (unsigned long long)nr) ||
		    !SF_CHECK(t->npending < PERF_PENDING_MAX,
			      "%s: %u samples wait for their stacks", t->name,
			      t->npending))
			return;
		t->pending[t->npending++] = chain[1];
		return;
	}
	/* User mode only: one context, the user one, first. */
	if (!SF_CHECK(nr >= 2 && chain[0] == PERF_CONTEXT_USER,
		      "%s: callchain of %llu without a user context", t->name,
		      (unsigned long long)nr))
		return;
	perf_stack(t, chain + 1, nr - 1, 1);
}

/* A deferred stack: the user part of every sample that waits for @cookie */
static void perf_deferred(struct perf_tally *t, uint64_t cookie,
			  const uint64_t *ips, uint64_t nr)
{
	unsigned int i, kept = 0, got = 0;

	SF_CHECK(cookie && cookie != t->last_cookie,
		 "%s: record with cookie %#llx after one with %#llx", t->name,
		 (unsigned long long)cookie, (unsigned long long)t->last_cookie);
	t->last_cookie = cookie;
	for (i = 0; i < t->npending; i++) {
		if (t->pending[i] != cookie) {
			t->pending[kept++] = t->pending[i];
			continue;
		}
		perf_stack(t, ips, nr, 1);
		got++;
	}
	t->npending = kept;
	SF_CHECK(got, "%s: record with cookie %#llx, which no sample has", t->name,
		 (unsigned long long)cookie);
}

/*
 * --first, callchains taken in the interrupt: a sample of the round the
 * process's first sample came in, which may have been walked before its
 * sections were registered.  The first sample asks for them and is walked
 * by frame pointers; the task registers them before it returns to user
 * space.  But a sample may come in the same interrupt as the first: an
 * hrtimer handler that outlasts the sampling period (under emulation, or
 * when the host preempts the guest) runs the timer again before it
 * returns, at the same user registers.  So the whole round, which ends in
 * user space, is left out: decided by when a sample came, not by its
 * stack, counted and bounded.  Whether it was exact is only printed.
 */
static void perf_leave_out(struct perf_tally *t, const uint64_t *chain, uint64_t nr)
{
	perf_first_seen = true;
	perf_first_left++;
	if (nr >= 2 && sf_perf_chain_exact(t->chain, chain + 1, nr - 1))
		perf_first_left_exact++;
}

/* Consumes what the ring buffer holds. */
static void perf_drain(struct sf_perf_ring *ring, struct perf_tally *t)
{
	/* A round's samples, all of them: the first round's are left out */
	bool first_round = perf_first && !perf_defer && !perf_first_seen;
	const struct perf_event_header *hdr;
	const uint64_t *rec = ring->rec;

	while ((hdr = sf_perf_ring_next(ring))) {
		if (hdr->type == PERF_RECORD_SAMPLE && first_round)
			perf_leave_out(t, &rec[3], rec[2]);	/* header, ip, nr, ips */
		else if (hdr->type == PERF_RECORD_SAMPLE)
			perf_sample(t, &rec[3], rec[2]);
		else if (hdr->type == PERF_RECORD_CALLCHAIN_DEFERRED &&
			 SF_CHECK(perf_defer, "%s: a deferred record", t->name))
			perf_deferred(t, rec[1], &rec[3], rec[2]); /* header, cookie, nr */
		else
			SF_CHECK(hdr->type != PERF_RECORD_LOST, "%s: samples lost", t->name);
	}
}

/*
 * The BPF side: a stack map of user stacks, and an array counting each
 * stack id's samples, then failures, then all samples.
 */
#define BPF_DEPTH		32
#define BPF_IDS			4096	/* stack ids are below the map's size */
#define BPF_FAILED		BPF_IDS
#define BPF_TOTAL		(BPF_IDS + 1)
/* Two stacks in one bucket: the map's limit, not the unwinder's failure */
#define BPF_COLLIDED		(BPF_IDS + 2)
#define BPF_COUNTS		(BPF_IDS + 3)

static int bpf_stacks = -1, bpf_counts = -1;

#define BPF_INSN		SF_BPF_INSN

/*
 * Each sample: id = bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK), counted;
 * an error is counted under BPF_COLLIDED when it is -EEXIST (the stack's
 * bucket holds another), under BPF_FAILED otherwise.  The maps must exist:
 * their descriptors are in the instructions.
 */
static int bpf_program(void)
{
	const struct bpf_insn insns[] = {
		SF_BPF_LD_MAP_FD(2, bpf_stacks),	/* r1: the context */
		SF_BPF_LD_IMM64_HI,
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, BPF_F_USER_STACK),
		BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stackid),
		BPF_INSN(BPF_JMP | BPF_JSGE | BPF_K, 0, 0, 4, 0),
		BPF_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, -EEXIST),
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, BPF_FAILED),
		BPF_INSN(BPF_JMP | BPF_JA, 0, 0, 1, 0),
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, BPF_COLLIDED),
		BPF_INSN(BPF_STX | BPF_MEM | BPF_W, 10, 0, -4, 0),
		/* counts[key at r10 - 4]++ */
		SF_BPF_LD_MAP_FD(1, bpf_counts),
		SF_BPF_LD_IMM64_HI,
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		BPF_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
		BPF_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
		BPF_INSN(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, BPF_TOTAL),
		/* counts[key at r10 - 4]++ */
		SF_BPF_LD_MAP_FD(1, bpf_counts),
		SF_BPF_LD_IMM64_HI,
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		BPF_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		BPF_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
		BPF_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
		BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		BPF_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return sf_bpf_perf_prog(insns, ARRAY_SIZE(insns));
}

static uint64_t bpf_count(uint32_t key)
{
	uint64_t value = 0;

	sf_bpf_lookup(bpf_counts, key, &value);
	return value;
}

/* Every stack the program saw, with its count */
static void bpf_drain(struct perf_tally *t)
{
	uint64_t ips[BPF_DEPTH], count;
	unsigned int nr;
	uint32_t id;

	for (id = 0; id < BPF_IDS; id++) {
		count = bpf_count(id);
		if (!count)
			continue;
		memset(ips, 0, sizeof(ips));
		if (!SF_CHECK(!sf_bpf_lookup(bpf_stacks, id, ips), "stack %u: %m", id))
			continue;
		for (nr = 0; nr < BPF_DEPTH && ips[nr]; nr++)
			;
		perf_stack(t, ips, nr, count);
	}
	count = bpf_count(BPF_FAILED);
	if (!SF_CHECK(!count, "%s: bpf_get_stackid() failed %llu times", t->name,
		      (unsigned long long)count))
		perf_stack(t, ips, 0, count);
	/* Collisions hide stacks from the check: only a few may. */
	count = bpf_count(BPF_COLLIDED);
	SF_CHECK(count * 100 <= bpf_count(BPF_TOTAL),
		 "%s: %llu of %llu stacks collided in the stack map", t->name,
		 (unsigned long long)count, (unsigned long long)bpf_count(BPF_TOTAL));
	if (count)
		sf_note("%s: %llu stacks collided in the stack map, not counted", t->name,
			(unsigned long long)count);
}

/* A run's note when its walks end where there is no CFI */
#define PERF_ENDS_AT_NOTE	"%s: %u of %u samples exact: %u to main, %u %s alone (no CFI: the walk ends there)"

__attribute__((noinline)) void perf_run(struct perf_tally *t, long (*a)(perf_mid),
					perf_mid mid)
{
	static struct sf_perf_ring ring;
	time_t end = time(NULL) + PERF_MAX_SECONDS;
	unsigned int round, flags = 0;
	int prog = -1;

	if (perf_work_ms) {	/* sampled by a perf tool instead */
		struct timespec now, stop;

		clock_gettime(CLOCK_MONOTONIC, &stop);
		stop.tv_sec += perf_work_ms / 1000;
		stop.tv_nsec += (perf_work_ms % 1000) * 1000000L;
		do {
			perf_round(a, mid);
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (now.tv_sec * 1000000000LL + now.tv_nsec <
			 stop.tv_sec * 1000000000LL + stop.tv_nsec);
		return;
	}

	/* The program takes the stack itself: bpf_get_stackid()'s own path */
	if (perf_bpf)
		flags |= SF_PERF_NO_CALLCHAIN;
	if (perf_defer)
		flags |= SF_PERF_DEFER;
	/* 10 kHz; with --bpf the program gets the samples: no ring buffer */
	perf_fd = sf_perf_self_cpu(100000, flags, perf_bpf ? NULL : &ring, PERF_DATA_PAGES);
	if (perf_fd < 0)
		return;
	if (perf_bpf) {
		bpf_stacks = sf_bpf_map(BPF_MAP_TYPE_STACK_TRACE, BPF_DEPTH * 8, BPF_IDS);
		bpf_counts = sf_bpf_map(BPF_MAP_TYPE_ARRAY, 8, BPF_COUNTS);
		if (!SF_CHECK(bpf_stacks >= 0 && bpf_counts >= 0, "BPF maps: %m"))
			goto out;
		prog = bpf_program();
		if (prog < 0 || !SF_CHECK(!ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog),
					  "PERF_EVENT_IOC_SET_BPF: %m"))
			goto out;
	}
	for (round = 0; time(NULL) < end; round++) {
		perf_round(a, mid);
		if (perf_bpf && bpf_count(BPF_TOTAL) >= PERF_SAMPLES)
			break;
		if (!perf_bpf) {
			perf_drain(&ring, t);
			if (t->samples >= PERF_SAMPLES)
				break;
		}
	}
	if (perf_bpf)
		bpf_drain(t);
	else
		sf_perf_ring_unmap(&ring);
	SF_CHECK(!t->npending, "%s: %u samples never got their stacks", t->name,
		 t->npending);
	SF_CHECK(t->samples >= PERF_SAMPLES, "%s: %u samples in %u rounds", t->name,
		 t->samples, round);
	if (perf_no_sframe) {
		sf_check_control(t->name, t->exact, t->samples);
	} else if (SF_CHECK(t->exact == t->samples, "%s: %u of %u samples exact",
			    t->name, t->exact, t->samples)) {
		if (t->ends_at)
			sf_note(PERF_ENDS_AT_NOTE, t->name, t->exact, t->samples,
				t->exact - t->ended, t->ended, t->ends_at);
		else
			sf_note("%s: %u of %u samples exact to main", t->name, t->exact,
				t->samples);
	}
	/* Most samples land in the spinning leaf: they must show there */
	if (t->ends_at && !perf_no_sframe)
		SF_CHECK(t->ended * 2 >= t->samples, "%s: %u of %u samples ended at %s",
			 t->name, t->ended, t->samples, t->ends_at);
out:
	if (prog >= 0)
		close(prog);
	if (perf_bpf) {
		close(bpf_stacks);
		close(bpf_counts);
	}
	close(perf_fd);
}

/* The tests; sf-perf-nosf, the same built without SFrame, the controls */
#ifndef SF_CONTROL
SF_TEST_ARGS(perf, SF_TEST_SECONDS, SF_NO_ARGS, SF_NO_ARGS)
SF_TEST_ARGS(perf_defer, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--defer"))
/* A forked child's sections, which fork() leaves unmapped */
SF_TEST_ARGS(perf_fork, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--fork"))
SF_TEST_ARGS(perf_nocfi, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--nocfi"))
/* Nobody profiles it until its first sample */
SF_TEST_ARGS_IDLE(perf_first, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--first"))
SF_TEST_ARGS_IDLE(perf_defer_first, SF_TEST_SECONDS, SF_NO_ARGS,
		  SF_ARGS("--defer", "--first"))
SF_TEST_ARGS(perf_defer_nocfi, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--defer", "--nocfi"))
SF_TEST_ARGS(bpf, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--bpf"))
#else
SF_TEST_ARGS(perf_no_sframe, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--no-sframe"))
SF_TEST_ARGS(bpf_no_sframe, SF_TEST_SECONDS, SF_NO_ARGS, SF_ARGS("--no-sframe", "--bpf"))
#endif

int main(int argc, char **argv)
{
	struct perf_tally t_linked = { .name = "linked", .chain = sf_perf_linked_chain };
	struct perf_tally t_dl = { .name = "dlopen", .chain = sf_perf_dl_chain };
	struct perf_tally t_nocfi = { .name = "no CFI", .chain = perf_nocfi_chain,
				      .ends_at = "perf_nocfi_spin" };
	const char *lib = "libsf-ustack-dl.so";
	bool fork_first = false;
	long sections;
	perf_mid dl_mid;
	int status;
	pid_t pid;
	void *h;

	sf_harness_enter(argc, argv);

	for (; argc > 1; argc--, argv++) {
		perf_no_sframe |= !strcmp(argv[1], "--no-sframe");
		perf_bpf |= !strcmp(argv[1], "--bpf");
		perf_defer |= !strcmp(argv[1], "--defer");
		perf_nocfi |= !strcmp(argv[1], "--nocfi");
		fork_first |= !strcmp(argv[1], "--fork");
		perf_first |= !strcmp(argv[1], "--first");
		if (!strcmp(argv[1], "--work") && argc > 2) {
			perf_work_ms = atoi(argv[2]);
			argc--, argv++;
		}
	}
	if (perf_nocfi) {
		perf_run(&t_nocfi, perf_nocfi_a, NULL);
		sf_exit();
	}
	if (perf_no_sframe)
		lib = "libsf-ustack-dl-nosf.so";
	sections = sf_stat_get("sections");
	h = dlopen(lib, RTLD_NOW);
	if (!SF_CHECK(h, "dlopen %s: %s", lib, dlerror()))
		sf_exit();
	/* Nobody profiles: the library, like the program, is not registered */
	if (perf_first)
		SF_CHECK(sf_stat_get("sections") == sections,
			 "first: %ld sections before dlopen(), %ld after", sections,
			 sf_stat_get("sections"));
	dl_mid = (perf_mid)dlsym(h, "dl_ustack_mid");
	if (!SF_CHECK(dl_mid, "dlsym: %s", dlerror()))
		sf_exit();
	if (fork_first) {
		fflush(stdout);
		pid = fork();
		if (!SF_CHECK(pid >= 0, "fork: %s", strerror(errno)))
			sf_exit();
		if (pid) {
			SF_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
				 !WEXITSTATUS(status), "the child failed (%#x)", status);
			sf_exit();
		}
	}
	perf_run(&t_linked, perf_a, lib_ustack_mid);
	if (perf_first) {
		SF_CHECK(perf_first_seen, "first: no sample");
		if (!perf_defer)
			sf_note("first: %u samples of its round left out (%u exact all the same)",
				perf_first_left, perf_first_left_exact);
		SF_CHECK(perf_first_left <= PERF_FIRST_MAX_LEFT,
			 "first: %u samples before the sections were registered",
			 perf_first_left);
		SF_CHECK(perf_first_left >= 1 || perf_defer,
			 "first: the first sample was not left out");
		/* The program and both libraries (Debian's libc has no SFrame) */
		SF_CHECK(sf_stat_get("sections") >= sections + 3,
			 "first: %ld sections before the first sample, %ld after",
			 sections, sf_stat_get("sections"));
	}
	perf_run(&t_dl, perf_dl_a, dl_mid);
	sf_exit();
}
