/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The binary search the SFrame reader and the section registry share: a
 * private header of kernel/unwind/, since nothing outside searches their
 * tables.
 */
#ifndef _KERNEL_UNWIND_SFRAME_SEARCH_H
#define _KERNEL_UNWIND_SFRAME_SEARCH_H

/**
 * sframe_search() - the last of @n sorted start addresses at or below @key
 * @n: number of entries.
 * @key: the address looked for.
 * @start: stores the start of entry @i where its third argument points;
 *	returns 0 or an error.
 * @data: passed to @start.
 * @found: set to the index of the entry found.
 *
 * One binary search for every table of the unwinder: the kernel's own
 * sorted arrays, and FDE tables in user memory, which may say anything.
 * The starts read on the way must agree with a sorted table, or the entry
 * found could be the wrong one: then the search fails instead.
 *
 * Context: Any; always inline, so @start is too, in user access windows.
 * Return: 0; -ENOENT when every start is above @key; -EINVAL for starts
 *	out of order; or the error @start gave.
 */
static __always_inline int sframe_search(unsigned int n, unsigned long key,
					 int (*start)(void *data, unsigned int i,
						      unsigned long *value),
					 void *data, unsigned int *found)
{
	unsigned long value, low = 0, high = ULONG_MAX;
	unsigned int lo = 0, hi = n, mid;
	int ret;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		ret = start(data, mid, &value);
		if (ret)
			return ret;
		if (value < low || value > high)
			return -EINVAL;
		if (value <= key) {
			low = value;
			lo = mid + 1;
		} else {
			high = value;
			hi = mid;
		}
	}
	if (!lo)
		return -ENOENT;
	*found = lo - 1;
	return 0;
}

#endif /* _KERNEL_UNWIND_SFRAME_SEARCH_H */
