/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every test program shares: reporting to the harness and the
 * driver, checks of /proc/self/sframe against the oracle or against
 * explicit lines, the sframe module parameters, and whether a profiler
 * is there (sf_profiler_set()).
 *
 * A test program prints "FAIL: ..." for each failed check and "NOTE: ..."
 * for what the driver should always show; other lines ("# ...") are
 * details the driver shows only when the test fails.  It exits 0 when no
 * check failed, 1 otherwise.
 */
#ifndef _SFRAME_TEST_H
#define _SFRAME_TEST_H

#include <stdbool.h>

#include "sframe_oracle.h"

#define SF_PARAM_DIR	"/sys/module/sframe/parameters/"
#define SF_STATS_DIR	"/sys/kernel/sframe/"

#ifndef ARRAY_SIZE	/* kselftest.h has it too */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

extern int sf_failed;

void sf_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sf_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sf_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records a failure naming the line and condition; evaluates to @cond. */
#define SF_CHECK(cond, fmt, ...)					\
	((cond) ? true :						\
	 (sf_fail("line %d: %s: " fmt, __LINE__, #cond, ##__VA_ARGS__), false))

__attribute__((noreturn)) void sf_exit(void);

/* Most a no-SFrame control may get exact, in percent */
#define SF_CONTROL_MAX_PERCENT	1
bool sf_check_control(const char *what, unsigned int exact, unsigned int total);

unsigned long sf_page_size(void);
unsigned long sf_page_down(unsigned long addr);
unsigned long sf_page_up(unsigned long addr);

bool sf_read_self(struct sf_set *got, const char *step);
bool sf_check_want(const struct sf_set *want, const char *step);
bool sf_check_oracle(const char *step);
bool sf_oracle_self(struct sf_set *want, const char *step);
const struct sf_line *sf_only_line(const struct sf_set *s, const char *suffix,
				   const char *step);

const struct sf_line *sf_line_in(const struct sf_set *s, unsigned long start,
				 unsigned long end, const char *step);
void sf_add_piece(struct sf_set *s, const struct sf_line *l, unsigned long start,
		  unsigned long end);
unsigned long sf_middle_page(const struct sf_line *l);
bool sf_check_range(const struct sf_set *want, unsigned long start, unsigned long end,
		    const char *step);
bool sf_check_sections(long want, const char *step);
long sf_sections_settle(long want, long ms);
long sf_sections_unowned(void);
long sf_sections_unowned_settle(long want, long ms);

long sf_param_get_path(const char *path);
int sf_param_set_path(const char *path, long value);
bool sf_write_file(const char *path, const char *text);
long sf_param_get(const char *name);
long sf_stat_get(const char *name);
int sf_param_set(const char *name, long value);

long sf_now_ms(void);
long sf_thread_cpu_ms(void);
bool sf_task_stat(int tid, char *state, long *pgrp, long *utime);
bool sf_kstack_has(int tid, const char *fn, char *line, size_t size);
bool sf_wait_syscall(int pid, int tid, long nr, long ms);
bool sf_profiler_set(bool on);

#endif /* _SFRAME_TEST_H */
