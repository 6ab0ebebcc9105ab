// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-cost-stack: the stack perf-cost samples, built twice: into the
 * program, with SFrame (-DCOST_STACK=sframe), and into a library, with
 * frame pointers only (-DCOST_STACK=fp), so that one process measures both.
 */
#include "perf-cost.h"

#define COST_GLUE(a, b)		a##b
#define COST_NAME(a, b)		COST_GLUE(a, b)

static __attribute__((noinline)) void cost_work(long n)
{
	unsigned long x = cost_sink;
	long i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	cost_sink = x;
}

/* The sampled pass, with nothing but this object's frames below it */
static __attribute__((noinline)) double cost_bottom(const struct cost_ops *ops, int kind)
{
	ops->begin(kind);
	cost_work(ops->iterations);
	return ops->end(kind);
}

/* @depth frames of this object, each with a frame of its own, then a pass */
__attribute__((noinline)) double COST_NAME(cost_descend_, COST_STACK)(int depth,
						const struct cost_ops *ops, int kind)
{
	volatile char frame[24 + (depth & 7) * 8];
	double t;

	frame[0] = depth;
	if (depth > 1)
		t = COST_NAME(cost_descend_, COST_STACK)(depth - 1, ops, kind);
	else
		t = cost_bottom(ops, kind);
	return t + frame[0] - depth;
}
