// SPDX-License-Identifier: GPL-2.0
/*
 * sf-perf [--no-sframe]: samples itself with perf_event_open() (cpu-clock,
 * user mode only, user callchains) while it spins in known call chains,
 * reads the samples from its ring buffer and checks each callchain symbol
 * by symbol, from the sampled function down to main:
 *
 *   linked   main > perf_run > perf_round > perf_a > lib_ustack_mid (a
 *            linked library) > perf_c > perf_spin
 *   dlopen   main > perf_run > perf_round > perf_dl_a > dl_ustack_mid (a
 *            dlopen-ed library) > perf_c > perf_spin
 *
 * A sample may land in any of those functions; its callchain must then be
 * the rest of the chain to main.  At least 1,000 samples per chain, at
 * least 99.9% of them exact.  Built -O2 -fomit-frame-pointer; the kernel
 * takes the callchain in the timer interrupt, with page faults disabled,
 * so the program first touches its SFrame sections.  With --no-sframe
 * (the same sources built without SFrame) it only reports how many
 * samples frame pointers alone followed to main.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sf_syscall.h"
#include "sframe_test.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

#define PERF_SAMPLES		1000
#define PERF_MAX_ROUNDS		400
#define PERF_SPIN		200000
#define PERF_DATA_PAGES		64
#define PERF_CHAIN_MAX		16

typedef long (*perf_cb)(void);
typedef long (*perf_mid)(perf_cb cb);

long lib_ustack_mid(perf_cb cb);

static bool perf_no_sframe;
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

/* The chain's functions do work after each call, so none is a tail call. */
__attribute__((noinline)) long perf_c(void)
{
	long r = perf_spin();

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

__attribute__((noinline)) long perf_a(perf_mid mid)
{
	long r = mid(perf_c);

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

__attribute__((noinline)) long perf_dl_a(perf_mid mid)
{
	long r = mid(perf_c);

	__asm__ volatile("" : : : "memory");
	return r + 1;
}

/* Sampling is on only here, switched by this function's own syscalls. */
__attribute__((noinline)) long perf_round(long (*a)(perf_mid), perf_mid mid)
{
	long r;

	sf_syscall4(SYS_ioctl, perf_fd, PERF_EVENT_IOC_ENABLE, 0, 0);
	r = a(mid);
	sf_syscall4(SYS_ioctl, perf_fd, PERF_EVENT_IOC_DISABLE, 0, 0);
	__asm__ volatile("" : : : "memory");
	return r;
}

/* The function an address lies in: the return address's call before it */
static const char *perf_sym(unsigned long ip, bool ret)
{
	Dl_info info;

	if (!dladdr((void *)(ret ? ip - 1 : ip), &info) || !info.dli_sname)
		return "?";
	return info.dli_sname;
}

/*
 * Samples are taken with page faults disabled: a page of .sframe that was
 * never read would send its frames to frame pointers.
 */
static int perf_touch(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long page = sf_page_size(), a, end;
	int i;

	(void)size;
	(void)data;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_GNU_SFRAME)
			continue;
		a = sf_page_down(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		end = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr +
		      info->dlpi_phdr[i].p_memsz;
		for (; a < end; a += page)
			perf_sink += *(volatile unsigned char *)a;
	}
	return 0;
}

struct perf_tally {
	const char	*name;
	const char	*const *chain;	/* innermost first, ends with main */
	unsigned int	samples;
	unsigned int	exact;
	unsigned int	shown;
};

/* Is @ips (innermost first) the rest of @t's chain from its first frame? */
static bool perf_exact(struct perf_tally *t, const uint64_t *ips, unsigned int nr)
{
	unsigned int k = 0, i;

	while (t->chain[k] && strcmp(t->chain[k], perf_sym(ips[0], false)))
		k++;
	if (!t->chain[k])
		return false;
	for (i = 1; t->chain[k + i]; i++)
		if (i >= nr || strcmp(t->chain[k + i], perf_sym(ips[i], true)))
			return false;
	return true;
}

static void perf_sample(struct perf_tally *t, const uint64_t *chain, uint64_t nr)
{
	const uint64_t *ips = chain;
	unsigned int i;

	/* User mode only: one context, the user one, first. */
	if (!SF_CHECK(nr >= 2 && chain[0] == PERF_CONTEXT_USER,
		      "%s: callchain of %llu without a user context", t->name,
		      (unsigned long long)nr))
		return;
	ips++;
	nr--;
	t->samples++;
	if (perf_exact(t, ips, nr)) {
		t->exact++;
		return;
	}
	if (perf_no_sframe || t->shown++ >= 3)
		return;
	sf_info("%s: inexact callchain:", t->name);
	for (i = 0; i < nr && i < PERF_CHAIN_MAX; i++)
		sf_info("  %#llx %s", (unsigned long long)ips[i], perf_sym(ips[i], i));
}

/* Consumes what the ring buffer holds. */
static void perf_drain(struct perf_event_mmap_page *meta, struct perf_tally *t)
{
	unsigned char *data = (unsigned char *)meta + meta->data_offset;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail, size = meta->data_size;
	struct perf_event_header hdr;
	static uint64_t rec[1024];
	unsigned int i;

	while (tail < head) {
		memcpy(&hdr, data + tail % size, sizeof(hdr));
		if (!SF_CHECK(hdr.size >= sizeof(hdr) && hdr.size <= sizeof(rec),
			      "record of %u bytes", hdr.size))
			break;
		/* A record may wrap around the end of the buffer. */
		for (i = 0; i < hdr.size; i++)
			((unsigned char *)rec)[i] = data[(tail + i) % size];
		if (hdr.type == PERF_RECORD_SAMPLE)	/* header, ip, nr, ips */
			perf_sample(t, &rec[3], rec[2]);
		else
			SF_CHECK(hdr.type != PERF_RECORD_LOST, "%s: samples lost", t->name);
		tail += hdr.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

__attribute__((noinline)) void perf_run(struct perf_tally *t, long (*a)(perf_mid),
					perf_mid mid)
{
	size_t len = (1 + PERF_DATA_PAGES) * sf_page_size();
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000,	/* ns of CPU time: 10 kHz */
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
	};
	struct perf_event_mmap_page *meta;
	unsigned int round;

	perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (!SF_CHECK(perf_fd >= 0, "perf_event_open: %m"))
		return;
	meta = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, perf_fd, 0);
	if (!SF_CHECK(meta != MAP_FAILED, "mmap of the ring buffer: %m"))
		goto out;
	for (round = 0; round < PERF_MAX_ROUNDS && t->samples < PERF_SAMPLES; round++) {
		perf_round(a, mid);
		perf_drain(meta, t);
	}
	munmap(meta, len);
	SF_CHECK(t->samples >= PERF_SAMPLES, "%s: %u samples in %u rounds", t->name,
		 t->samples, round);
	if (perf_no_sframe)
		sf_note("%s: frame pointers alone followed %u of %u samples to main",
			t->name, t->exact, t->samples);
	else if (SF_CHECK(t->exact * 1000ULL >= t->samples * 999ULL,
			  "%s: %u of %u samples exact to main", t->name, t->exact,
			  t->samples))
		sf_note("%s: %u of %u samples exact to main", t->name, t->exact,
			t->samples);
out:
	close(perf_fd);
}

int main(int argc, char **argv)
{
	static const char *const linked[] = {
		"perf_spin", "perf_c", "lib_ustack_mid", "perf_a", "perf_round",
		"perf_run", "main", NULL
	};
	static const char *const dl[] = {
		"perf_spin", "perf_c", "dl_ustack_mid", "perf_dl_a", "perf_round",
		"perf_run", "main", NULL
	};
	struct perf_tally t_linked = { .name = "linked", .chain = linked };
	struct perf_tally t_dl = { .name = "dlopen", .chain = dl };
	const char *lib = "libsf-ustack-dl.so";
	perf_mid dl_mid;
	void *h;

	perf_no_sframe = argc > 1 && !strcmp(argv[1], "--no-sframe");
	if (perf_no_sframe)
		lib = "libsf-ustack-dl-nosf.so";
	h = dlopen(lib, RTLD_NOW);
	if (!SF_CHECK(h, "dlopen %s: %s", lib, dlerror()))
		sf_exit();
	dl_mid = (perf_mid)dlsym(h, "dl_ustack_mid");
	if (!SF_CHECK(dl_mid, "dlsym: %s", dlerror()))
		sf_exit();
	dl_iterate_phdr(perf_touch, NULL);

	perf_run(&t_linked, perf_a, lib_ustack_mid);
	perf_run(&t_dl, perf_dl_a, dl_mid);
	sf_exit();
}
