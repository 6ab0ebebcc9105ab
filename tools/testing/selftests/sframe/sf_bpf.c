// SPDX-License-Identifier: GPL-2.0
/*
 * Raw bpf() for the selftests: see sf_bpf.h.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>

#include "sf_bpf.h"
#include "sframe_test.h"

long sf_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* An array or stack map with u32 keys */
int sf_bpf_map(unsigned int type, unsigned int value_size, unsigned int entries)
{
	union bpf_attr attr = {
		.map_type = type, .key_size = 4, .value_size = value_size,
		.max_entries = entries,
	};

	return sf_bpf(BPF_MAP_CREATE, &attr);
}

/* A BPF_PROG_TYPE_PERF_EVENT program; the verifier's log shown if refused */
int sf_bpf_perf_prog(const struct bpf_insn *insns, unsigned int count)
{
	static char log[16384];
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_PERF_EVENT,
		.insn_cnt = count,
		.insns = (uintptr_t)insns,
		.license = (uintptr_t)"GPL",
		.log_buf = (uintptr_t)log,
		.log_size = sizeof(log),
		.log_level = 1,
	};
	int fd = sf_bpf(BPF_PROG_LOAD, &attr);

	if (!SF_CHECK(fd >= 0, "BPF_PROG_LOAD: %m"))
		sf_info("%s", log);
	return fd;
}

int sf_bpf_lookup(int map, uint32_t key, void *value)
{
	union bpf_attr attr = {
		.map_fd = map, .key = (uintptr_t)&key, .value = (uintptr_t)value,
	};

	return sf_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}
