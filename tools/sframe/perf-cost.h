/* SPDX-License-Identifier: GPL-2.0-only */
/* What perf-cost.c and its two stacks (perf-cost-stack.c) share */
#ifndef _PERF_COST_H
#define _PERF_COST_H

/* The pass a stack runs at its bottom: begin(kind), the work, end(kind) */
struct cost_ops {
	void	(*begin)(int kind);
	double	(*end)(int kind);
	long	iterations;
};

extern volatile unsigned long cost_sink;

double cost_descend_sframe(int depth, const struct cost_ops *ops, int kind);
double cost_descend_fp(int depth, const struct cost_ops *ops, int kind);

#endif /* _PERF_COST_H */
