// SPDX-License-Identifier: GPL-2.0
/*
 * Ring buffers, symbols and callchain checks for the programs that sample
 * themselves with perf: see sf_perf.h.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sf_perf.h"
#include "sframe_test.h"

/*
 * perf_event_attr's flags word as Linux 6.19 declares it.  Both are u64
 * bit-fields, so the compiler places the two bits as it would in the new
 * header, on either byte order.
 */
struct sf_perf_flags {
	__u64	before:38,
		defer_callchain:1,
		defer_output:1,
		after:24;
};

void sf_perf_defer(struct perf_event_attr *attr, bool callchain, bool output)
{
	size_t at = offsetof(struct perf_event_attr, read_format) + sizeof(__u64);
	struct sf_perf_flags flags;

	memcpy(&flags, (char *)attr + at, sizeof(flags));
	flags.defer_callchain = callchain;
	flags.defer_output = output;
	memcpy((char *)attr + at, &flags, sizeof(flags));
}

int sf_perf_open(struct perf_event_attr *attr, int pid, int group)
{
	return syscall(SYS_perf_event_open, attr, pid, -1, group, 0);
}

/*
 * The calling thread sampled in user mode every @period_ns of its CPU
 * time (task-clock), with user callchains, deferred with @defer: header,
 * ip, pid/tid, nr, ips; with its ring of @pages mapped into @ring.
 * Returns the event's descriptor, or -1 with errno set.
 */
int sf_perf_self(uint64_t period_ns, bool defer, struct sf_perf_ring *ring,
		 unsigned int pages)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = period_ns,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
	};
	int fd;

	if (defer)
		sf_perf_defer(&attr, true, true);
	fd = sf_perf_open(&attr, 0, -1);
	if (fd >= 0 && !sf_perf_ring_map(ring, fd, pages)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The calling thread sampled every @period_ns of CPU time (cpu-clock),
 * disabled: the caller enables it around the code it means, so that its
 * own bookkeeping is never sampled.  Header, ip, nr, ips of user
 * callchains, with @flags' changes; with @ring, its ring of @pages mapped
 * there.  Returns the event's descriptor, or -1, failed already.
 */
int sf_perf_self_cpu(uint64_t period_ns, unsigned int flags,
		     struct sf_perf_ring *ring, unsigned int pages)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period_ns,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_kernel = !(flags & SF_PERF_KERNEL),
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
	};
	int fd;

	if (flags & SF_PERF_NO_CALLCHAIN)
		attr.sample_type = PERF_SAMPLE_IP;
	if (flags & SF_PERF_DEFER)
		sf_perf_defer(&attr, true, true);
	if (flags & SF_PERF_USTACK) {
		attr.sample_type |= PERF_SAMPLE_STACK_USER;
		attr.sample_stack_user = SF_PERF_USTACK_BYTES;
	}
	fd = sf_perf_open(&attr, 0, -1);
	if (!SF_CHECK(fd >= 0, "perf_event_open: %m"))
		return -1;
	if (ring && !sf_perf_ring_map(ring, fd, pages)) {
		close(fd);
		return -1;
	}
	return fd;
}

bool sf_perf_ring_map(struct sf_perf_ring *ring, int fd, unsigned int pages)
{
	ring->len = (1 + pages) * sf_page_size();
	ring->meta = mmap(NULL, ring->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (SF_CHECK(ring->meta != MAP_FAILED, "mmap of a ring buffer: %m"))
		return true;
	ring->meta = NULL;
	return false;
}

void sf_perf_ring_unmap(struct sf_perf_ring *ring)
{
	if (ring->meta)
		munmap(ring->meta, ring->len);
	ring->meta = NULL;
}

/*
 * The next record, copied whole into ring->rec (a record may wrap around
 * the end of the buffer), and consumed; NULL when there is none.
 */
const struct perf_event_header *sf_perf_ring_next(struct sf_perf_ring *ring)
{
	struct perf_event_mmap_page *meta = ring->meta;
	unsigned char *data = (unsigned char *)meta + meta->data_offset;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail, size = meta->data_size;
	struct perf_event_header hdr;
	uint64_t first;

	if (tail >= head)
		return NULL;
	memcpy(&hdr, data + tail % size, sizeof(hdr));
	if (!SF_CHECK(hdr.size >= sizeof(hdr) && hdr.size <= sizeof(ring->rec),
		      "record of %u bytes", hdr.size)) {
		__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
		return NULL;
	}
	first = size - tail % size;
	if (first > hdr.size)
		first = hdr.size;
	memcpy(ring->rec, data + tail % size, first);
	memcpy((unsigned char *)ring->rec + first, data, hdr.size - first);
	__atomic_store_n(&meta->data_tail, tail + hdr.size, __ATOMIC_RELEASE);
	return (const struct perf_event_header *)ring->rec;
}

const char *const sf_perf_linked_chain[] = {
	"perf_spin", "perf_c", "lib_ustack_mid", "perf_a", "perf_round",
	"perf_run", "main", NULL
};

const char *const sf_perf_dl_chain[] = {
	"perf_spin", "perf_c", "dl_ustack_mid", "perf_dl_a", "perf_round",
	"perf_run", "main", NULL
};

/* The function an address lies in: for a return address, its call's. */
const char *sf_perf_sym(uint64_t ip, bool ret)
{
	Dl_info info;

	if (!dladdr((void *)(uintptr_t)(ret ? ip - 1 : ip), &info) || !info.dli_sname)
		return "?";
	return info.dli_sname;
}

bool sf_perf_in_chain(const char *const *chain, const char *name)
{
	for (; *chain; chain++)
		if (!strcmp(*chain, name))
			return true;
	return false;
}

/* @names follow @chain from where the first sits in it: to its end if @whole */
static bool sf_perf_names_follow(const char *const *chain, const char *const *names,
				 unsigned int nr, bool whole)
{
	unsigned int k = 0, i;

	if (!nr || !sf_perf_in_chain(chain, names[0]))
		return false;
	while (strcmp(chain[k], names[0]))
		k++;
	for (i = 1; chain[k + i] && (whole || i < nr); i++)
		if (i >= nr || strcmp(chain[k + i], names[i]))
			return false;
	return true;
}

/*
 * Are the functions @names (innermost first) the rest of @chain (innermost
 * first, ending with main) from the first of them?
 */
bool sf_perf_names_exact(const char *const *chain, const char *const *names,
			 unsigned int nr)
{
	return sf_perf_names_follow(chain, names, nr, true);
}

bool sf_perf_names_cut(const char *const *chain, const char *const *names,
		       unsigned int nr)
{
	return sf_perf_names_follow(chain, names, nr, false);
}

/* The same for addresses of this process: the first one sampled, return addresses after */
bool sf_perf_chain_exact(const char *const *chain, const uint64_t *ips,
			 uint64_t nr)
{
	const char *names[SF_PERF_CHAIN_NAMES];
	unsigned int i;

	for (i = 0; i < nr && i < SF_PERF_CHAIN_NAMES; i++)
		names[i] = sf_perf_sym(ips[i], i);
	return sf_perf_names_exact(chain, names, i);
}

void sf_perf_chain_show(const char *what, const uint64_t *ips, uint64_t nr)
{
	unsigned int i;

	sf_info("%s: %llu frames:", what, (unsigned long long)nr);
	for (i = 0; i < nr && i < 16; i++)
		sf_info("  %#llx %s", (unsigned long long)ips[i], sf_perf_sym(ips[i], i));
}
