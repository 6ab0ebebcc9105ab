// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_compare: the rules of every address an ELF file's own .sframe (made
 * by gas and ld) describes, against those of a section sframe-gen made
 * from its .eh_frame, both decoded by the kernel's reader.
 *
 *   gen_compare ELF RAW ADDR [ALLOW_LO ALLOW_HI]
 *                                RAW: sframe-gen --raw RAW --addr ADDR ELF
 *   gen_compare --validate RAW ADDR
 *
 * --validate reads a generated section alone: sframe_section_init(),
 * sframe_section_validate(), and a lookup of every address of every FDE,
 * and prints "FDEs N PCs N", for files gas did not make (a distro's).
 *
 * Prints the disagreements (the first 20), then one line:
 *   PCs agree N differ N missing N allowed N (N FDEs of gas)
 * "missing": addresses gas describes and the generated section does not;
 * "allowed": differences in [ALLOW_LO, ALLOW_HI), where the caller knows
 * gas's (ld's) rows are wrong, not counted in "differ".
 * Exits 0 whatever they are; 1 if either section cannot be read.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_internal.h"
#include "../read-file.h"
#include "../sframe-elf.h"
#include "gen_check.h"

static unsigned char *slurp(const char *name, size_t *size)
{
	unsigned char *buf;
	const char *err;

	buf = sframe_read_file(name, size, &err);
	if (!buf)
		sframe_elf_fail("%s: %s", name, err);
	return buf;
}

static int validate(const char *name, unsigned long addr)
{
	struct sframe_section sec = { 0 };
	struct unwind_user_frame f;
	unsigned long pc, pcs = 0;
	struct sframe_fde fde;
	unsigned char *raw;
	size_t size;
	unsigned int n;
	int ret;

	raw = slurp(name, &size);
	sframe_umem[0] = (struct sframe_umem_region){ .addr = addr, .len = size, .data = raw };
	if (sframe_section_init(&sec, addr, size, 0, ULONG_MAX, SIZE_MAX) ||
	    sframe_section_validate(&sec))
		sframe_elf_fail("generated section: %s", sec.reason);
	for (n = 0; n < sec.num_fdes; n++) {
		if (sframe_read_fde(&sec, n, &fde))
			sframe_elf_fail("FDE %u: %s", n, sec.reason);
		for (pc = fde.func_start; pc < fde.func_start + fde.func_size; pc++, pcs++) {
			ret = sframe_find(&sec, pc, &f, SFRAME_UNBOUNDED);
			if (ret)
				sframe_elf_fail("lookup of %#lx: %d (%s)", pc, ret, sec.reason);
		}
	}
	printf("FDEs %u PCs %lu\n", sec.num_fdes, pcs);
	sframe_section_release(&sec);
	free(raw);
	return 0;
}

int main(int argc, char **argv)
{
	struct sframe_section gas = { 0 }, gen = { 0 };
	unsigned long agree = 0, differ = 0, allowed = 0, missing = 0, pc, end, addr;
	unsigned long allow_lo = 0, allow_hi = 0;
	struct unwind_user_frame a, b;
	struct sframe_loc loc;
	struct sframe_fde fde;
	unsigned char *raw;
	char sa[128], sb[128];
	size_t raw_size;
	unsigned int n;
	int ra, rb;

	if (argc == 4 && !strcmp(argv[1], "--validate"))
		return validate(argv[2], strtoul(argv[3], NULL, 0));
	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: gen_compare ELF RAW ADDR [ALLOW_LO ALLOW_HI]\n");
		return 2;
	}
	if (argc == 6) {
		allow_lo = strtoul(argv[4], NULL, 0);
		allow_hi = strtoul(argv[5], NULL, 0);
	}
	sframe_elf_load("gen_compare", argv[1], &loc);
	raw = slurp(argv[2], &raw_size);
	addr = strtoul(argv[3], NULL, 0);
	sframe_umem[0] = (struct sframe_umem_region){ .addr = loc.addr, .len = loc.size,
						      .data = (unsigned char *)loc.bytes };
	sframe_umem[1] = (struct sframe_umem_region){ .addr = addr, .len = raw_size,
						      .data = raw };
	if (sframe_section_init(&gas, loc.addr, loc.size, loc.code_lo, loc.code_hi, SIZE_MAX))
		sframe_elf_fail("gas's section: %s", gas.reason);
	if (sframe_section_init(&gen, addr, raw_size, loc.code_lo, loc.code_hi, SIZE_MAX) ||
	    sframe_section_validate(&gen))
		sframe_elf_fail("generated section: %s", gen.reason);
	for (n = 0; n < gas.num_fdes; n++) {
		if (sframe_read_fde(&gas, n, &fde))
			sframe_elf_fail("gas FDE %u: %s", n, gas.reason);
		end = fde.func_start + fde.func_size;
		for (pc = fde.func_start; pc < end; pc++) {
			ra = sframe_find(&gas, pc, &a, SFRAME_UNBOUNDED);
			if (ra)
				continue;
			rb = sframe_find(&gen, pc, &b, SFRAME_UNBOUNDED);
			if (rb == -ENOENT) {
				missing++;
				continue;
			}
			if (rb)
				sframe_elf_fail("generated lookup of %#lx: %s", pc, gen.reason);
			gen_frame_str(&a, sa, sizeof(sa));
			gen_frame_str(&b, sb, sizeof(sb));
			if (!strcmp(sa, sb) && a.outermost == b.outermost) {
				agree++;
				continue;
			}
			/* Where gas's (ld's) rows are known wrong: counted apart */
			if (pc >= allow_lo && pc < allow_hi) {
				allowed++;
				continue;
			}
			if (differ++ < 20)
				printf("%#lx: gas %s, sframe-gen %s\n", pc, sa, sb);
		}
	}
	printf("PCs agree %lu differ %lu missing %lu allowed %lu (%u FDEs of gas)\n", agree,
	       differ, missing, allowed, gas.num_fdes);
	sframe_section_release(&gas);
	sframe_section_release(&gen);
	sframe_elf_free(&loc);
	free(raw);
	return 0;
}
