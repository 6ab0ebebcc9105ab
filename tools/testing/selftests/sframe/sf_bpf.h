/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw bpf(): maps, and programs written as instructions, for the programs
 * that hand their perf samples to BPF without libbpf.
 */
#ifndef _SF_BPF_H
#define _SF_BPF_H

#include <linux/bpf.h>
#include <stdint.h>

#define SF_BPF_INSN(c, d, s, o, i)	\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
/*
 * Register d = the map of descriptor fd takes two instructions, a 64-bit
 * immediate load: SF_BPF_LD_MAP_FD(d, fd), then SF_BPF_LD_IMM64_HI.
 */
#define SF_BPF_LD_MAP_FD(d, fd)	\
	SF_BPF_INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define SF_BPF_LD_IMM64_HI	SF_BPF_INSN(0, 0, 0, 0, 0)

long sf_bpf(int cmd, union bpf_attr *attr);
int sf_bpf_map(unsigned int type, unsigned int value_size, unsigned int entries);
int sf_bpf_perf_prog(const struct bpf_insn *insns, unsigned int count);
int sf_bpf_lookup(int map, uint32_t key, void *value);

#endif /* _SF_BPF_H */
