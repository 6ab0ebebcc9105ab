// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-cost: what a perf sample's user callchain costs, 32 frames deep.
 *
 * The program recurses 32 frames, then spins through the same work again
 * and again, each pass alone, sampled with the user IP only, or sampled
 * with the IP and the user callchain (task-clock, one sample every
 * PERIOD_NS of its time).  The time a sample adds is the pass's time less
 * the unsampled pass's, over the samples it took; the callchain's cost is
 * what it adds to a sample.  Passes of the three kinds take turns and each
 * kind's median counts, so that drift in the emulator hits all alike.
 * Built twice by `make bench`, with SFrame and with frame pointers only,
 * both run in one guest: under QEMU's emulation only their ratio means
 * much.
 *
 *   perf-cost [ROUNDS]          prints "<method> ..." (the costs)
 *   perf-cost --spin SECONDS    spins 32 frames deep, for perf record
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef COST_METHOD
#define COST_METHOD	"sframe"
#endif
#define COST_DEPTH	32
#define PERIOD_NS	200000
#define PASS_NS		40000000.0
#define RING_PAGES	64
#define MAX_ROUNDS	101

enum { PASS_NONE, PASS_IP, PASS_CALLCHAIN, NR_PASSES };

struct sampler {
	int			fd;
	struct perf_event_mmap_page *meta;
	unsigned char		*data;
	size_t			data_size;
	unsigned long		samples;
	unsigned long		lost;
	unsigned long		frames;
};

static struct sampler samplers[NR_PASSES];
static double pass_ns[NR_PASSES][MAX_ROUNDS];
static unsigned long pass_samples[NR_PASSES][MAX_ROUNDS];
static volatile unsigned long sink;
static long iterations = 100000;
static int rounds = 15;
static double spin_seconds;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __attribute__((noinline)) void work(long n)
{
	unsigned long x = sink;
	long i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

static int sampler_open(struct sampler *s, uint64_t sample_type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = PERIOD_NS,
		.sample_type = sample_type,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	void *ring;

	s->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (s->fd < 0) {
		perror("perf_event_open");
		return -1;
	}
	s->data_size = RING_PAGES * page;
	ring = mmap(NULL, page + s->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (ring == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	s->meta = ring;
	s->data = (unsigned char *)ring + page;
	return 0;
}

/* Counts the records the last pass left, and empties the ring */
static void sampler_drain(struct sampler *s)
{
	uint64_t head = __atomic_load_n(&s->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = s->meta->data_tail;
	struct perf_event_header h;
	uint64_t nr;

	while (tail < head) {
		memcpy(&h, s->data + tail % s->data_size, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			s->samples++;
			/* IP, then the callchain's length when there is one */
			if (s == &samplers[PASS_CALLCHAIN]) {
				size_t at = (tail + sizeof(h) + 8) % s->data_size;

				if (at + sizeof(nr) <= s->data_size) {
					memcpy(&nr, s->data + at, sizeof(nr));
					s->frames += nr;
				}
			}
		} else if (h.type == PERF_RECORD_LOST) {
			s->lost++;
		}
		tail += h.size;
	}
	__atomic_store_n(&s->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* One pass of @kind: its time in ns, and the samples it took */
static double run_pass(int kind, unsigned long *samples)
{
	struct sampler *s = kind == PASS_NONE ? NULL : &samplers[kind];
	unsigned long before = s ? s->samples : 0;
	double t;

	if (s)
		ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
	t = now_ns();
	work(iterations);
	t = now_ns() - t;
	if (s) {
		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
		sampler_drain(s);
	}
	*samples = s ? s->samples - before : 0;
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static int measure(void)
{
	double t, ns[NR_PASSES], per_sample[NR_PASSES], n[NR_PASSES];
	unsigned long count;
	int r, k;

	if (sampler_open(&samplers[PASS_IP], PERF_SAMPLE_IP) ||
	    sampler_open(&samplers[PASS_CALLCHAIN], PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN))
		return 1;
	/* A pass of about PASS_NS unsampled */
	t = run_pass(PASS_NONE, &count);
	iterations = iterations * (PASS_NS / (t > 1 ? t : 1));
	if (iterations < 1000)
		iterations = 1000;
	for (r = 0; r < rounds; r++)
		for (k = 0; k < NR_PASSES; k++)
			pass_ns[k][r] = run_pass(k, &pass_samples[k][r]);
	for (k = 0; k < NR_PASSES; k++) {
		double c[MAX_ROUNDS];

		for (r = 0; r < rounds; r++)
			c[r] = pass_samples[k][r];
		ns[k] = median(pass_ns[k], rounds);
		n[k] = median(c, rounds);
		per_sample[k] = k && n[k] ? (ns[k] - ns[PASS_NONE]) / n[k] : 0;
	}
	if (!samplers[PASS_CALLCHAIN].samples || n[PASS_CALLCHAIN] < 20) {
		fprintf(stderr, "perf-cost: too few samples (%.0f a pass)\n", n[PASS_CALLCHAIN]);
		return 1;
	}
	printf("%s callchain %.0f ns a sample (%.1f frames), sample %.0f ns without it, "
	       "%.0f samples a pass, %lu lost\n", COST_METHOD,
	       per_sample[PASS_CALLCHAIN] - per_sample[PASS_IP],
	       (double)samplers[PASS_CALLCHAIN].frames / samplers[PASS_CALLCHAIN].samples,
	       per_sample[PASS_IP], n[PASS_CALLCHAIN],
	       samplers[PASS_IP].lost + samplers[PASS_CALLCHAIN].lost);
	return 0;
}

static int spin(void)
{
	double end = now_ns() + spin_seconds * 1e9;

	while (now_ns() < end)
		work(100000);
	return 0;
}

/* @depth more frames, each with a frame of its own, then the measurement */
static __attribute__((noinline)) int descend(int depth)
{
	volatile char frame[24 + (depth & 7) * 8];
	int ret;

	frame[0] = depth;
	if (depth > 1)
		ret = descend(depth - 1);
	else
		ret = spin_seconds > 0 ? spin() : measure();
	return ret + frame[0] - depth;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--spin"))
		spin_seconds = atof(argv[2]);
	else if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: perf-cost [ROUNDS (1 to %d)] | --spin SECONDS\n",
			MAX_ROUNDS);
		return 2;
	}
	/* main, then COST_DEPTH - 1 more: the sample's user stack is COST_DEPTH deep */
	return descend(COST_DEPTH - 1);
}
