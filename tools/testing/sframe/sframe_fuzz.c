// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the SFrame reader: the input is a section, placed at
 * a fixed user address; its last eight bytes also pick the addresses looked
 * up.  Everything the reader offers is exercised: init, lookups, and a walk
 * of every FDE and FRE.  Crashes, sanitizer reports, errors outside the
 * reader's documented set and impossible rules are findings.
 */
#include "sframe_internal.h"

#define FUZZ_ADDR	0x7f0000000000UL
#define FUZZ_LOOKUPS	16
#define FUZZ_MAX_FRES	256

static void check_err(int err)
{
	if (err && err != -ENOENT && err != -EINVAL && err != -EFAULT &&
	    err != -EOPNOTSUPP && err != -E2BIG && err != -ENOMEM)
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

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct unwind_user_frame frame;
	struct sframe_section sec;
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned long addr, seed = 0;
	unsigned int i, j;
	int ret;

	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0].addr = FUZZ_ADDR;
	sframe_umem[0].len = size;
	sframe_umem[0].data = data;
	if (size >= 8)
		memcpy(&seed, data + size - 8, 8);

	ret = sframe_section_init(&sec, FUZZ_ADDR, size, FUZZ_ADDR - (1UL << 32),
				  FUZZ_ADDR + (1UL << 32));
	check_err(ret);
	if (ret)
		return 0;

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
	return 0;
}
