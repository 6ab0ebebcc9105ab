// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-cost: what a perf sample's user callchain costs, 32 frames deep,
 * by SFrame and by frame pointers, measured side by side in one process.
 *
 * The program holds the same stack twice (perf-cost-stack.c): built into
 * it with SFrame, and into a library of its own with frame pointers only
 * and no SFrame, which the kernel walks by frame pointers, as it does
 * programs without SFrame.  At the bottom of each, a
 * pass spins through fixed work alone, sampled with the user IP only, or
 * sampled with the IP and the user callchain (task-clock, one sample every
 * COST_PERIOD_NS of its time).  A sample's cost is what it adds to the
 * unsampled pass, over the samples taken; the callchain's is what it adds
 * to a sample.  Each round measures both stacks, and the medians of the
 * rounds count, so that drift in the emulator hits both alike: under
 * QEMU's emulation only their ratio means much.
 *
 *   perf-cost [ROUNDS]          prints the costs of both
 *   perf-cost --spin SECONDS    spins on the SFrame stack, for perf record
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

#include "perf-cost.h"

/* main, cost_main, the descent, the pass and its work: 32 frames */
#define COST_DEPTH	28
#define COST_PERIOD_NS	100000
#define COST_PASS_NS	40e6
#define COST_WARMUP	3
#define COST_MAX_ROUNDS	201
#define RING_PAGES	128

enum { PASS_NONE, PASS_IP, PASS_CALLCHAIN, NR_PASSES };
enum { STACK_SFRAME, STACK_FP, NR_STACKS };

static const char *const stack_names[NR_STACKS] = { "sframe", "fp" };
static double (*const descend[NR_STACKS])(int, const struct cost_ops *, int) = {
	cost_descend_sframe, cost_descend_fp,
};

struct sampler {
	int			fd;
	struct perf_event_mmap_page *meta;
	unsigned char		*data;
	size_t			data_size;
	unsigned long		lost;
};

volatile unsigned long cost_sink;
static struct sampler samplers[NR_PASSES];
static int cur_stack;
static double pass_start;
static unsigned long pass_samples;
static unsigned long frames[NR_STACKS], chains[NR_STACKS];
static double cost[NR_STACKS][COST_MAX_ROUNDS], fixed[NR_STACKS][COST_MAX_ROUNDS];
static double ratio[COST_MAX_ROUNDS];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int sampler_open(struct sampler *s, uint64_t sample_type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = COST_PERIOD_NS,
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

/* Counts the samples the pass left (and their callchains' frames), empties the ring */
static void sampler_drain(struct sampler *s, int kind)
{
	uint64_t head = __atomic_load_n(&s->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = s->meta->data_tail, nr;
	struct perf_event_header h;
	size_t at;

	while (tail < head) {
		memcpy(&h, s->data + tail % s->data_size, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			pass_samples++;
			/* The IP, then the callchain's length */
			at = (tail + sizeof(h) + 8) % s->data_size;
			if (kind == PASS_CALLCHAIN && at + sizeof(nr) <= s->data_size) {
				memcpy(&nr, s->data + at, sizeof(nr));
				frames[cur_stack] += nr;
				chains[cur_stack]++;
			}
		} else if (h.type == PERF_RECORD_LOST) {
			s->lost++;
		}
		tail += h.size;
	}
	__atomic_store_n(&s->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void pass_begin(int kind)
{
	pass_samples = 0;
	if (kind != PASS_NONE)
		ioctl(samplers[kind].fd, PERF_EVENT_IOC_ENABLE, 0);
	pass_start = now_ns();
}

static double pass_end(int kind)
{
	double t = now_ns() - pass_start;

	if (kind != PASS_NONE) {
		ioctl(samplers[kind].fd, PERF_EVENT_IOC_DISABLE, 0);
		sampler_drain(&samplers[kind], kind);
	}
	return t;
}

static struct cost_ops ops = {
	.begin = pass_begin, .end = pass_end, .iterations = 100000,
};

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

/* Sets ops.iterations for passes of about @ns on the SFrame stack */
static void calibrate(double ns)
{
	double t;
	int i;

	/* The first passes include the emulator translating the code */
	for (i = 0; i < 3; i++) {
		t = descend[STACK_SFRAME](COST_DEPTH, &ops, PASS_NONE);
		ops.iterations *= (i < 2 ? COST_PASS_NS : ns) / (t > 1 ? t : 1);
		if (ops.iterations < 1000)
			ops.iterations = 1000;
	}
}

/* One round on stack @st: the callchain's cost and a sample's without it */
static int measure_round(int st, double *chain_ns, double *sample_ns)
{
	double t[NR_PASSES];
	unsigned long n[NR_PASSES];
	int k;

	cur_stack = st;
	for (k = 0; k < NR_PASSES; k++) {
		t[k] = descend[st](COST_DEPTH, &ops, k);
		n[k] = pass_samples;
	}
	if (n[PASS_IP] < 10 || n[PASS_CALLCHAIN] < 10)
		return -1;
	*sample_ns = (t[PASS_IP] - t[PASS_NONE]) / n[PASS_IP];
	*chain_ns = (t[PASS_CALLCHAIN] - t[PASS_NONE]) / n[PASS_CALLCHAIN] - *sample_ns;
	return 0;
}

static int measure(int rounds)
{
	double t, c[NR_STACKS];
	int r, st;

	if (sampler_open(&samplers[PASS_IP], PERF_SAMPLE_IP) ||
	    sampler_open(&samplers[PASS_CALLCHAIN], PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN))
		return 1;
	calibrate(COST_PASS_NS);
	for (r = -COST_WARMUP; r < rounds; r++) {
		for (st = 0; st < NR_STACKS; st++) {
			if (measure_round(st, &c[st], &t)) {
				fprintf(stderr, "perf-cost: too few samples\n");
				return 1;
			}
			if (r >= 0) {
				cost[st][r] = c[st];
				fixed[st][r] = t;
			}
		}
		if (r >= 0)
			ratio[r] = c[STACK_SFRAME] / c[STACK_FP];
	}
	for (st = 0; st < NR_STACKS; st++)
		printf("%s callchain %.0f ns a sample (%.1f frames), sample %.0f ns without it\n",
		       stack_names[st], median(cost[st], rounds),
		       chains[st] ? (double)frames[st] / chains[st] : 0,
		       median(fixed[st], rounds));
	printf("sframe/fp %.2f (median of %d rounds' ratios), %lu samples lost\n",
	       median(ratio, rounds), rounds, samplers[PASS_IP].lost +
	       samplers[PASS_CALLCHAIN].lost);
	return 0;
}

static int spin(double seconds)
{
	calibrate(seconds * 1e9);
	descend[STACK_SFRAME](COST_DEPTH, &ops, PASS_NONE);
	return 0;
}

/* A frame of its own between main and the stacks */
static __attribute__((noinline)) int cost_main(int argc, char **argv)
{
	int rounds = 31;

	if (argc > 2 && !strcmp(argv[1], "--spin"))
		return spin(atof(argv[2]));
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 1 || rounds > COST_MAX_ROUNDS) {
		fprintf(stderr, "usage: perf-cost [ROUNDS (1 to %d)] | --spin SECONDS\n",
			COST_MAX_ROUNDS);
		return 2;
	}
	return measure(rounds);
}

int main(int argc, char **argv)
{
	int ret = cost_main(argc, argv);

	cost_sink += ret;
	return ret;
}
