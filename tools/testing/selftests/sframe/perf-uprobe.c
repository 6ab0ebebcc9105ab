// SPDX-License-Identifier: GPL-2.0
/*
 * sf-perf-uprobe: the user callchains of a uprobe's samples, as perf
 * record -e <uprobe> -g takes them: at once, and deferred (Linux 6.19's
 * ABI).  The uprobe (the uprobe PMU, no tracefs) is on uprobe_site, an
 * instruction inside the leaf of
 *
 *   main > uprobe_run > uprobe_a > lib_ustack_mid (a linked library) >
 *   uprobe_leaf
 *
 * which the kernel single-steps out of line, in a slot of the [uprobes]
 * page, after the probe's handlers ran.  A deferred callchain is walked
 * on the way to that slot, with the IP in it.  Each of UPROBE_HITS calls
 * must give one sample of each event; every sample at once and every
 * deferred record must be that chain exact to main, and the record's
 * first address the probed one.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_perf.h"
#include "sf_harness.h"

#define UPROBE_HITS		100
#define UPROBE_PAGES		64
#define UPROBE_PMU_TYPE		"/sys/bus/event_source/devices/uprobe/type"

typedef long (*uprobe_cb)(void);

long lib_ustack_mid(uprobe_cb cb);
long uprobe_leaf(void);
extern const char uprobe_site[];

static const char *const uprobe_chain[] = {
	"uprobe_leaf", "lib_ustack_mid", "uprobe_a", "uprobe_run", "sf_test_perf_uprobe",
	"main", NULL
};

SF_CHAIN_FN(uprobe_a, (void), lib_ustack_mid(uprobe_leaf))

__attribute__((noinline)) long uprobe_run(unsigned int n)
{
	long r = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		r += uprobe_a();
	__asm__ volatile("" : : : "memory");
	return r;
}

/* The file and offset of this program's @addr, from /proc/self/maps */
static bool uprobe_where(const void *addr, char *path, size_t size, uint64_t *off)
{
	unsigned long lo, hi, pgoff, a = (unsigned long)addr;
	char line[512], file[256];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!SF_CHECK(f, "/proc/self/maps: %m"))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &lo, &hi, &pgoff, file) == 4 &&
		    lo <= a && a < hi) {
			snprintf(path, size, "%s", file);
			*off = a - lo + pgoff;
			found = true;
		}
	fclose(f);
	return SF_CHECK(found, "no file maps %p", addr);
}

static int uprobe_open(int type, const char *path, uint64_t off, bool defer,
		       struct sf_perf_ring *ring)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config1 = (uintptr_t)path,
		.config2 = off,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_callchain_kernel = 1,
	};
	int fd;

	if (defer)
		sf_perf_defer(&attr, true, true);
	fd = sf_perf_open(&attr, 0, -1);
	if (!SF_CHECK(fd >= 0, "perf_event_open of a uprobe at %s+%#" PRIx64 ": %m",
		      path, off))
		return -1;
	if (!sf_perf_ring_map(ring, fd, UPROBE_PAGES)) {
		close(fd);
		return -1;
	}
	return fd;
}

struct uprobe_tally {
	unsigned int	samples, exact, records, at_site;
	unsigned int	shown;
};

static void uprobe_judge(struct uprobe_tally *t, const char *what, const uint64_t *ips,
			 uint64_t nr, bool exact_site)
{
	bool exact = sf_perf_chain_exact(uprobe_chain, ips, nr);

	t->exact += exact;
	t->at_site += nr && ips[0] == (uintptr_t)uprobe_site;
	if ((!exact || (exact_site && ips[0] != (uintptr_t)uprobe_site)) && t->shown++ < 3)
		sf_perf_chain_show(what, ips, nr);
}

/* header, ip, pid/tid, nr, ips: the user part after PERF_CONTEXT_USER */
static void uprobe_drain_sync(struct sf_perf_ring *ring, struct uprobe_tally *t)
{
	const struct perf_event_header *hdr;

	while ((hdr = sf_perf_ring_next(ring))) {
		const uint64_t *rec = ring->rec;

		if (hdr->type != PERF_RECORD_SAMPLE)
			continue;
		t->samples++;
		if (SF_CHECK(rec[3] >= 2 && rec[4] == PERF_CONTEXT_USER,
			     "a sample's callchain is not a user one"))
			uprobe_judge(t, "at once", &rec[5], rec[3] - 1, false);
	}
}

/*
 * Samples: header, ip, pid/tid, nr = 2, PERF_CONTEXT_USER_DEFERRED,
 * cookie; each hit is its own return to user mode, so its own record:
 * header, cookie, nr, ips.
 */
static void uprobe_drain_deferred(struct sf_perf_ring *ring, struct uprobe_tally *t)
{
	const struct perf_event_header *hdr;

	while ((hdr = sf_perf_ring_next(ring))) {
		const uint64_t *rec = ring->rec;

		if (hdr->type == PERF_RECORD_SAMPLE) {
			t->samples++;
			SF_CHECK(rec[3] == 2 && rec[4] == PERF_CONTEXT_USER_DEFERRED,
				 "a sample's callchain is not a deferred one");
		} else if (hdr->type == PERF_RECORD_CALLCHAIN_DEFERRED) {
			t->records++;
			uprobe_judge(t, "deferred", &rec[3], rec[2], true);
		}
	}
}

SF_TEST_TIMEOUT(perf_uprobe, 300)
{
	struct uprobe_tally now = {}, later = {};
	static struct sf_perf_ring ring[2];
	char path[256];
	uint64_t off;
	int fd[2], type;
	FILE *f;

	f = fopen(UPROBE_PMU_TYPE, "r");
	if (!SF_CHECK(f && fscanf(f, "%d", &type) == 1, UPROBE_PMU_TYPE ": %m"))
		sf_exit();
	fclose(f);
	if (!uprobe_where(uprobe_site, path, sizeof(path), &off))
		sf_exit();
	fd[0] = uprobe_open(type, path, off, false, &ring[0]);
	fd[1] = uprobe_open(type, path, off, true, &ring[1]);
	if (fd[0] < 0 || fd[1] < 0)
		sf_exit();
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fd[1], PERF_EVENT_IOC_ENABLE, 0);
	SF_CHECK(uprobe_run(UPROBE_HITS) == 3L * UPROBE_HITS, "uprobe_leaf's result");
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fd[1], PERF_EVENT_IOC_DISABLE, 0);
	uprobe_drain_sync(&ring[0], &now);
	uprobe_drain_deferred(&ring[1], &later);

	SF_CHECK(now.samples == UPROBE_HITS && now.exact == UPROBE_HITS,
		 "at once: %u samples for %u hits, %u exact to main",
		 now.samples, UPROBE_HITS, now.exact);
	SF_CHECK(later.samples == UPROBE_HITS && later.records == UPROBE_HITS,
		 "deferred: %u samples and %u records for %u hits",
		 later.samples, later.records, UPROBE_HITS);
	SF_CHECK(later.exact == later.records && later.at_site == later.records,
		 "deferred: of %u records %u exact to main, %u starting at the probed address",
		 later.records, later.exact, later.at_site);
	sf_note("%u hits of a uprobe in a leaf: at once %u exact, deferred %u exact %s (%p)",
		UPROBE_HITS, now.exact, later.exact, "from the probed address", uprobe_site);
	sf_exit();
}

SF_HARNESS_MAIN
