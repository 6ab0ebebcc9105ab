// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the SFrame reader: the input is a section, placed at
 * a fixed user address.  Its tail also steers the run:
 *
 *   [size - 24, size - 8)	a script for the second writer (below)
 *   [size - 8, size)		picks the addresses looked up
 *
 * Both stay part of the section, as junk after the data or as data.
 * Everything the reader offers is exercised: init, lookups, and a walk of
 * every FDE and FRE.  Crashes, sanitizer reports, errors outside the
 * reader's documented set, impossible rules, an index that is not sane
 * after init and leaked index memory are findings.
 *
 * The script stores into the section while the reader runs, as another
 * thread of the process could: bytes [0, 2) are the triggers of two
 * 4-byte stores (0: none; bit 7 set: right after the first read that
 * overlaps the stored bytes; else right after that read number), [2, 4)
 * the index allowance in units of 16 bytes (0: none), [4, 8) their section
 * offsets (two little-endian u16, modulo the size) and [8, 16) their
 * values.
 */
#include "sframe_internal.h"

#define FUZZ_ADDR	0x7f0000000000UL
#define FUZZ_LOOKUPS	16
#define FUZZ_MAX_FRES	256
#define FUZZ_SEED_LEN	8
#define FUZZ_SCRIPT_LEN	16

static void check_err(int err)
{
	if (err && err != -ENOENT && err != -EINVAL && err != -EFAULT &&
	    err != -EOPNOTSUPP && err != -E2BIG && err != -ENOMEM && err != -EDQUOT)
		__builtin_trap();
}

static void check_rule(const struct unwind_user_rule *r)
{
	if (r->base > UNWIND_USER_BASE_REG)
		__builtin_trap();
}

static void check_frame(const struct unwind_user_frame *f)
{
	if (f->outermost)
		return;
	if (f->cfa.base == UNWIND_USER_BASE_SAME || f->cfa.base == UNWIND_USER_BASE_CFA)
		__builtin_trap();
	check_rule(&f->ra);
	check_rule(&f->fp);
}

/* Arms the script in @s for a section of @size bytes; returns the allowance. */
static size_t arm_script(const u8 *s, size_t size)
{
	struct sframe_umem_write *w;
	unsigned int i;
	u16 off, units;

	sframe_umem_disarm();
	for (i = 0; i < SFRAME_UMEM_MAX_WRITES && size >= 4; i++) {
		if (!s[i])
			continue;
		w = &sframe_umem_writes[i];
		memcpy(&off, s + 4 + 2 * i, sizeof(off));
		w->addr = FUZZ_ADDR + off % (size - 3);
		w->len = 4;
		memcpy(w->bytes, s + 8 + 4 * i, 4);
		w->after_read = s[i] & 0x80 ? 0 : s[i];
	}
	sframe_umem_arm();
	memcpy(&units, s + 2, sizeof(units));
	return units ? units * 16UL : SIZE_MAX;
}

static void run(size_t size, unsigned long seed, size_t max_bytes)
{
	struct unwind_user_frame frame;
	long live = sframe_kmem_live;
	struct sframe_section sec;
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned long addr;
	unsigned int i, j;
	int ret;

	ret = sframe_section_init(&sec, FUZZ_ADDR, size, FUZZ_ADDR - (1UL << 32),
				  FUZZ_ADDR + (1UL << 32), max_bytes);
	check_err(ret);
	if (ret) {
		if (!sec.reason || sframe_kmem_live != live)
			__builtin_trap();
		return;
	}
	/* What init built is trusted from here on, whatever the section does */
	if (!sframe_shim_index_sane(&sec))
		__builtin_trap();

	for (i = 0; i < FUZZ_LOOKUPS; i++) {
		/* near the section, where PC-relative starts usually land */
		addr = FUZZ_ADDR + (long)(s32)(seed >> (i % 4 * 16)) + i * 7;
		ret = sframe_find(&sec, addr, &frame);
		check_err(ret);
		if (!ret)
			check_frame(&frame);
	}

	for (i = 0; i < sec.num_fdes && i < 64; i++) {
		if (sframe_read_fde(&sec, i, &fde))
			continue;
		ret = sframe_find(&sec, fde.func_start, &frame);
		check_err(ret);
		addr = fde.fres;
		for (j = 0; j < fde.num_fres && j < FUZZ_MAX_FRES; j++) {
			ret = sframe_read_fre(&sec, &fde, addr, &fre);
			check_err(ret);
			if (ret)
				break;
			check_frame(&fre.frame);
			if (fre.next <= addr)
				__builtin_trap();
			addr = fre.next;
		}
	}
	sframe_section_release(&sec);
	if (sframe_kmem_live != live)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const u8 no_script[FUZZ_SCRIPT_LEN];
	const u8 *script = no_script;
	unsigned long seed = 0;
	size_t max_bytes;
	u8 *mem;

	/* The second writer stores into the section: libFuzzer's data is const */
	mem = malloc(size ? size : 1);
	if (!mem)
		return 0;
	memcpy(mem, data, size);
	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0].addr = FUZZ_ADDR;
	sframe_umem[0].len = size;
	sframe_umem[0].data = mem;
	if (size >= FUZZ_SEED_LEN)
		memcpy(&seed, data + size - FUZZ_SEED_LEN, FUZZ_SEED_LEN);
	if (size >= FUZZ_SEED_LEN + FUZZ_SCRIPT_LEN)
		script = data + size - FUZZ_SEED_LEN - FUZZ_SCRIPT_LEN;

	max_bytes = arm_script(script, size);
	run(size, seed, max_bytes);
	sframe_umem_disarm();
	free(mem);
	return 0;
}
