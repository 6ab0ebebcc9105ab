// SPDX-License-Identifier: GPL-2.0
/*
 * sf-system-dwarf SECONDS DATA STACKS VDSO: the whole system sampled until
 * SIGINT, or for SECONDS at most (cpu-clock on every CPU, user mode, 199
 * times a second), each
 * sample with the user stack the kernel walked by SFrame and, taken in the
 * same interrupt, the user registers and a copy of the user stack: what
 * perf record --call-graph dwarf takes, which asks the kernel for no user
 * stack.  tools/system/workload runs it beside perf and bpftrace.
 *
 * DATA gets the samples without the kernel's stacks, as perf.data, with
 * the kernel's mmap, comm and fork records: Debian's perf script unwinds
 * them by DWARF.  STACKS gets what tools/system/stacks compares that
 * with, a line each:
 *
 *   S TIME PID TID IP...	a sample: its SFrame stack, innermost first
 *   E TIME PID			an exec
 *   F TIME PID PPID		a new process (not a thread)
 *
 * DATA holds the mappings only of the processes that exec'd while it
 * ran, and of their children: the execs and forks say which those are.
 * VDSO gets the vDSO's image (every process maps the same), whose CFI
 * perf script reads from a copy of its own that does not outlive it.
 * On arm64 the signed return addresses of each sample's stack copy and
 * link register are unsigned in DATA (sf_perf_sample_unsign()), where
 * they are code some process mapped while it ran.
 * Prints "sampling" once every CPU's event is on, and last the counts;
 * exits 1 if anything failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sf_perf.h"
#include "sf_perf_data.h"
#include "sframe_test.h"

#define SD_CPUS		8
#define SD_FREQ		199
/*
 * As much of the stack as a sample holds (the kernel trims it to fit):
 * python3's start-up keeps more than 16 KiB between its stack pointer
 * and main's caller, where a shorter copy stops DWARF.
 */
#define SD_STACK_BYTES	65528
#define SD_RING_PAGES	2048	/* 8 MiB a CPU: over half a second of samples */

/* Executable mappings seen, of every process: what a signed address may be */
#define SD_CODE		16384

static struct sd_code {
	uint64_t	lo, hi;
} sd_code[SD_CODE];
static unsigned int sd_ncode;
static unsigned long long sd_code_dropped;	/* past the table: left signed */
static struct sf_perf_ring sd_rings[SD_CPUS];
static struct sf_perf_data sd_data;
static FILE *sd_stacks;
static unsigned long long sd_samples, sd_lost, sd_execs, sd_forks;
static atomic_int sd_stop;

static void sd_on_signal(int sig)
{
	atomic_store(&sd_stop, sig);
}

/* A record's time, from the sample_id_all trailer (TID, TIME: its last word) */
static uint64_t sd_trailer_time(const uint64_t *rec)
{
	const struct perf_event_header *hdr = (const void *)rec;

	return rec[hdr->size / 8 - 1];
}

/*
 * PERF_RECORD_MMAP2: header, pid, tid, addr, len, pgoff, maj, min, ino,
 * ino_generation, prot, flags, name.  The same range mapped again (a
 * library in each find) is kept once.
 */
static void sd_mmap(const uint64_t *rec)
{
	uint64_t lo = rec[2], hi = rec[2] + rec[3];
	const uint32_t *prot = (const void *)&rec[8];
	unsigned int i;

	if (!(*prot & PROT_EXEC))
		return;
	for (i = 0; i < sd_ncode; i++)
		if (sd_code[i].lo == lo && sd_code[i].hi == hi)
			return;
	if (sd_ncode < SD_CODE)
		sd_code[sd_ncode++] = (struct sd_code){ lo, hi };
	else
		sd_code_dropped++;
}

static bool sd_in_code(uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < sd_ncode; i++)
		if (addr >= sd_code[i].lo && addr < sd_code[i].hi)
			return true;
	return false;
}

static void sd_sample(const struct perf_event_attr *attr, const uint64_t *rec)
{
	static uint64_t regs[64], stack[SD_STACK_BYTES / 8 + 1];
	struct sf_perf_sample s;
	uint64_t i;

	if (!sf_perf_sample_parse(attr, rec, &s) ||
	    !SF_CHECK(s.nregs <= ARRAY_SIZE(regs) && s.stack_bytes <= sizeof(stack),
		      "a sample of %u registers and %llu bytes of stack", s.nregs,
		      (unsigned long long)s.stack_bytes))
		return;
	fprintf(sd_stacks, "S %llu %u %u", (unsigned long long)s.time,
		(unsigned int)s.pid_tid, (unsigned int)(s.pid_tid >> 32));
	for (i = 0; i < s.nr; i++)
		if (s.chain[i] < PERF_CONTEXT_MAX)
			fprintf(sd_stacks, " %llx", (unsigned long long)s.chain[i]);
	fputc('\n', sd_stacks);
	sf_perf_sample_unsign(&s, regs, stack, sd_in_code);
	sf_perf_data_sample(&sd_data, &s);
	sd_samples++;
}

static void sd_drain(const struct perf_event_attr *attr, struct sf_perf_ring *ring)
{
	const struct perf_event_header *hdr;

	while ((hdr = sf_perf_ring_next(ring))) {
		const uint64_t *rec = ring->rec;
		const uint32_t *w = (const void *)(rec + 1);

		switch (hdr->type) {
		case PERF_RECORD_SAMPLE:
			sd_sample(attr, rec);
			continue;
		case PERF_RECORD_LOST:
			sd_lost += rec[2];	/* header, id, lost */
			continue;
		case PERF_RECORD_COMM:		/* header, pid, tid, comm */
			if (hdr->misc & PERF_RECORD_MISC_COMM_EXEC) {
				fprintf(sd_stacks, "E %llu %u\n",
					(unsigned long long)sd_trailer_time(rec), w[0]);
				sd_execs++;
			}
			break;
		case PERF_RECORD_MMAP2:
			sd_mmap(rec);
			break;
		case PERF_RECORD_FORK:		/* header, pid, ppid, tid, ptid, time */
			if (w[0] != w[1]) {
				fprintf(sd_stacks, "F %llu %u %u\n", (unsigned long long)rec[3],
					w[0], w[1]);
				sd_forks++;
			}
			break;
		}
		sf_perf_data_write(&sd_data, hdr, hdr->size);
	}
}

static void sd_save_vdso(const char *path)
{
	unsigned long lo, hi;
	char line[256];
	bool ok = false;
	FILE *m, *f;

	m = fopen("/proc/self/maps", "r");
	while (m && fgets(line, sizeof(line), m)) {
		if (!strstr(line, "[vdso]") || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		f = fopen(path, "w");
		ok = f && fwrite((const void *)lo, 1, hi - lo, f) == hi - lo;
		if (f && fclose(f))
			ok = false;
		break;
	}
	if (m)
		fclose(m);
	SF_CHECK(ok, "%s: the vDSO not written: %m", path);
}

/* The run's summary: how long, what was recorded, what was lost */
#define SD_NOTE	"%ld CPUs, %ld s%s: %llu samples, %llu records lost, %llu execs, %llu forks, %u code ranges (%llu past the table)"

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000000 / SD_FREQ,
		.mmap_data = 1,	/* libunwind reads .eh_frame_hdr where it is mapped */
	};
	struct pollfd pfd[SD_CPUS];
	struct timespec now, end;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu, secs;

	sf_perf_dwarf_attr(&attr, SD_STACK_BYTES, SD_RING_PAGES);
	secs = argc == 5 ? atoi(argv[1]) : 0;
	if (!SF_CHECK(secs > 0, "usage: sf-system-dwarf SECONDS DATA STACKS VDSO") ||
	    !SF_CHECK(ncpu > 0 && ncpu <= SD_CPUS, "%ld CPUs: at most %d", ncpu, SD_CPUS))
		sf_exit();
	sd_save_vdso(argv[4]);
	sd_stacks = fopen(argv[3], "w");
	if (!SF_CHECK(sd_stacks, "%s: %m", argv[3]) ||
	    !sf_perf_data_open(&sd_data, argv[2], &attr))
		sf_exit();
	for (cpu = 0; cpu < ncpu; cpu++) {
		pfd[cpu].fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
		pfd[cpu].events = POLLIN;
		if (!SF_CHECK(pfd[cpu].fd >= 0, "perf_event_open on CPU %d: %m", cpu) ||
		    !sf_perf_ring_map(&sd_rings[cpu], pfd[cpu].fd, SD_RING_PAGES))
			sf_exit();
	}
	signal(SIGINT, sd_on_signal);
	signal(SIGTERM, sd_on_signal);
	for (cpu = 0; cpu < ncpu; cpu++)
		ioctl(pfd[cpu].fd, PERF_EVENT_IOC_ENABLE, 0);
	printf("sampling\n");
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	do {
		poll(pfd, ncpu, 100);
		for (cpu = 0; cpu < ncpu; cpu++)
			sd_drain(&attr, &sd_rings[cpu]);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!atomic_load(&sd_stop) && (now.tv_sec < end.tv_sec ||
			      (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec)));
	for (cpu = 0; cpu < ncpu; cpu++)
		ioctl(pfd[cpu].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (cpu = 0; cpu < ncpu; cpu++) {
		sd_drain(&attr, &sd_rings[cpu]);
		sf_perf_ring_unmap(&sd_rings[cpu]);
		close(pfd[cpu].fd);
	}
	sf_perf_data_close(&sd_data, &attr);
	SF_CHECK(!fclose(sd_stacks), "%s: %m", argv[3]);
	clock_gettime(CLOCK_MONOTONIC, &now);
	sf_note(SD_NOTE, ncpu, secs - (end.tv_sec - now.tv_sec),
		atomic_load(&sd_stop) ? " (until stopped)" : "", sd_samples, sd_lost, sd_execs,
		sd_forks, sd_ncode, sd_code_dropped);
	sf_exit();
}
