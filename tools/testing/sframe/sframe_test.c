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

static unsigned char buf[SFB_BUF_SIZE] __attribute__((aligned(4096)));
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
	struct unwind_user_frame frame;
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
	ret = sframe_find(&sec, text + c->pc, &frame);
	if (ret == -ENOENT)
		snprintf(got, sizeof(got), "none");
	else if (ret)
		snprintf(got, sizeof(got), "%s (%s)", errname(ret), sec.reason);
	else
		sframe_format_frame(got, sizeof(got), &frame);
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
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
