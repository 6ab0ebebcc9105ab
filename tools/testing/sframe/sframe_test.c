// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs the SFrame reader's case tables (tests/kunit/sframe_cases.h) against
 * the kernel reader built in user space, for every ABI, under ASan and UBSan.
 * The KUnit suite runs the same tables inside the kernel for the native ABI.
 */
#include "sframe_internal.h"
#include "../../../tests/kunit/sframe_cases.h"

#define USER_ADDR	0x7f1234560000UL
#define PAGE		4096UL

static unsigned char buf[SFB_BUF_SIZE];
static unsigned int passed, failed;

static void report(bool ok, const char *abi, const char *name, const char *fmt,
		   const char *got, const char *want)
{
	if (ok) {
		passed++;
		printf("ok %s/%s\n", abi, name);
		return;
	}
	failed++;
	printf("not ok %s/%s: ", abi, name);
	printf(fmt, got, want);
	printf("\n");
}

static void map(u32 size, u8 hole_page)
{
	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0].addr = USER_ADDR;
	sframe_umem[0].len = size > SFB_BUF_SIZE ? SFB_BUF_SIZE : size;
	sframe_umem[0].data = buf;
	if (hole_page) {
		sframe_umem[0].hole_start = USER_ADDR + (hole_page - 1) * PAGE;
		sframe_umem[0].hole_end = sframe_umem[0].hole_start + PAGE;
	}
}

static const char *errname(int err)
{
	static char other[16];

	switch (err) {
	case 0: return "0";
	case -ENOENT: return "-ENOENT";
	case -EINVAL: return "-EINVAL";
	case -EFAULT: return "-EFAULT";
	case -EOPNOTSUPP: return "-EOPNOTSUPP";
	case -E2BIG: return "-E2BIG";
	case -ENOMEM: return "-ENOMEM";
	}
	snprintf(other, sizeof(other), "%d", err);
	return other;
}

static void run_decode(const struct sframe_decode_case *c, u8 abi, const char *abiname)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct sframe_section sec;
	char got[128];
	u32 size;
	int ret;

	size = sframe_decode_case_bytes(c, abi, buf, USER_ADDR, text);
	map(size, 0);
	ret = sframe_section_init(&sec, USER_ADDR, size, text - SFB_TEXT_BEFORE,
				  text + SFB_TEXT_SIZE);
	if (ret) {
		report(false, abiname, c->name, "init failed: %s (%s)", errname(ret),
		       sec.reason);
		return;
	}
	sframe_describe_lookup(&sec, text + c->pc, got, sizeof(got));
	report(!strcmp(got, c->expect), abiname, c->name, "got \"%s\", want \"%s\"",
	       got, c->expect);
	sframe_section_release(&sec);
}

static void run_bad(const struct sframe_bad_case *c, u8 abi, const char *abiname)
{
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	char got[96];
	u32 size;
	int ret;

	size = sframe_bad_case_bytes(c, abi, buf, USER_ADDR, text);
	map(size, c->hole_page);
	ret = sframe_section_init(&sec, USER_ADDR, size, text - SFB_TEXT_BEFORE,
				  text + SFB_TEXT_SIZE);
	if (!ret && c->at_init) {
		report(false, abiname, c->name, "%sinit succeeded, want %s", "",
		       errname(c->err));
		sframe_section_release(&sec);
		return;
	}
	if (!ret) {
		ret = sframe_find(&sec, text + c->pc, &frame);
		sframe_section_release(&sec);
	} else if (!c->at_init) {
		report(false, abiname, c->name, "init failed: %s (%s)", errname(ret),
		       sec.reason);
		return;
	}
	snprintf(got, sizeof(got), "%s", errname(ret));
	report(ret == c->err && sec.reason, abiname, c->name,
	       "got %s, want %s", got, errname(c->err));
}

static int init_at(struct sframe_section *sec, const u8 *bytes, u32 size,
		   unsigned long text_start, unsigned long text_end)
{
	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem[0].addr = USER_ADDR;
	sframe_umem[0].len = size;
	sframe_umem[0].data = bytes;
	return sframe_section_init(sec, USER_ADDR, size, text_start, text_end);
}

static void check(bool ok, const char *name)
{
	report(ok, "api", name, "%s%s", "failed", "");
}

/* The same bounds the KUnit limits test checks, plus -ENOMEM. */
static void run_limits(void)
{
	u8 *big = calloc(1, (SFRAME_MAX_INDEX_FDES + 1) * 16 + 28);
	u8 abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	struct sframe_section sec;
	u32 size;
	int ret;

	if (!big)
		abort();
	check(sframe_section_init(&sec, USER_ADDR, 1UL << 32, 0, 1) == -EINVAL,
	      "section_over_4g");
	check(sframe_section_init(&sec, USER_ADDR, 64, 5, 5) == -EINVAL, "empty_text");
	check(sframe_section_init(&sec, ~0UL - 0x1000, 64, 0, 1) == -EINVAL,
	      "section_above_user_addresses");

	size = sframe_many_elements(big, SFRAME_MAX_ELEMENTS, abi);
	ret = init_at(&sec, big, size, 0, 1);
	check(ret == 0, "max_elements");
	if (!ret)
		sframe_section_release(&sec);
	size = sframe_many_elements(big, SFRAME_MAX_ELEMENTS + 1, abi);
	check(init_at(&sec, big, size, 0, 1) == -E2BIG, "too_many_elements");

	/* The FDE table of zeros: starts 16 bytes apart, sizes 0 */
	memset(big, 0, (SFRAME_MAX_INDEX_FDES + 1) * 16 + 28);
	size = sframe_big_index_header(big, SFRAME_MAX_INDEX_FDES + 1, abi);
	check(init_at(&sec, big, size, 0, 1) == -E2BIG, "index_too_big");
	size = sframe_big_index_header(big, SFRAME_MAX_INDEX_FDES, abi);
	ret = init_at(&sec, big, size, 0, 1);
	check(ret == 0 && sec.index, "index_at_limit");
	if (!ret)
		sframe_section_release(&sec);

	sframe_fail_alloc = true;
	check(init_at(&sec, big, size, 0, 1) == -ENOMEM && sec.reason, "index_no_memory");
	sframe_fail_alloc = false;
	free(big);
}

/* Only user space can place text at the top of the address space. */
static void run_wrap(void)
{
	unsigned long text = ~0UL - 0x120;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec spec;
	u32 size;

	sfb_base(&spec, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	size = sfb_build(&spec, buf, USER_ADDR, text, &l);
	if (init_at(&sec, buf, size, 0, ~0UL)) {
		check(false, "function_wraps_around");
		return;
	}
	check(sframe_find(&sec, ~0UL - 0x10, &frame) == -EINVAL, "function_wraps_around");
	sframe_section_release(&sec);
}

/* The FDE and FRE walk that sframe-dump and validation use. */
static void run_walk(void)
{
	static const char * const want[] = {
		SP8, SP16FP, SP8, SP16FP, "cfa=fp+16 ra=*(cfa-8) fp=*(cfa-16)", SP8,
	};
	unsigned long text = USER_ADDR + SFB_TEXT_DISTANCE;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec spec;
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned int i, j, n = 0;
	unsigned long addr;
	bool ok = true;
	char got[128];
	u32 size;

	spec_unsorted(&spec, SFRAME_ABI_AMD64_ENDIAN_LITTLE);
	size = sfb_build(&spec, buf, USER_ADDR, text, &l);
	if (init_at(&sec, buf, size, text, text + 0x1000)) {
		check(false, "walk_fdes_and_fres");
		return;
	}
	for (i = 0; i < sec.num_fdes; i++) {
		ok &= !sframe_read_fde(&sec, i, &fde);
		ok &= fde.func_start == text + (i == 2 ? 0x100 : i * 0x40);
		for (j = 0, addr = fde.fres; ok && j < fde.num_fres; j++, addr = fre.next) {
			ok &= !sframe_read_fre(&sec, &fde, addr, &fre) && n < ARRAY_SIZE(want);
			if (!ok)
				break;
			sframe_format_frame(got, sizeof(got), &fre.frame);
			ok &= !strcmp(got, want[n++]);
		}
	}
	check(ok && n == ARRAY_SIZE(want), "walk_fdes_and_fres");
	check(sframe_read_fde(&sec, sec.num_fdes, &fde) == -ENOENT, "read_fde_past_end");
	sframe_read_fde(&sec, 0, &fde);
	check(sframe_read_fre(&sec, &fde, fde.fres_end, &fre) == -EINVAL,
	      "read_fre_outside_fde");
	sframe_section_release(&sec);
}

int main(void)
{
	static const struct { u8 abi; const char *name; } abis[] = {
		{ SFRAME_ABI_AMD64_ENDIAN_LITTLE, "amd64" },
		{ SFRAME_ABI_AARCH64_ENDIAN_LITTLE, "aarch64" },
		{ SFRAME_ABI_S390X_ENDIAN_BIG, "s390x" },
	};
	unsigned int a, i;

	for (a = 0; a < ARRAY_SIZE(abis); a++) {
		for (i = 0; i < ARRAY_SIZE(sframe_decode_cases); i++) {
			const struct sframe_decode_case *c = &sframe_decode_cases[i];

			if (!c->abi || c->abi == abis[a].abi)
				run_decode(c, abis[a].abi, abis[a].name);
		}
		for (i = 0; i < ARRAY_SIZE(sframe_bad_cases); i++) {
			const struct sframe_bad_case *c = &sframe_bad_cases[i];

			if (!c->abi || c->abi == abis[a].abi)
				run_bad(c, abis[a].abi, abis[a].name);
		}
	}
	run_limits();
	run_wrap();
	run_walk();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
