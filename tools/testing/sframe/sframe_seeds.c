// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes the fuzzer's seed corpus: every section of the reader's case
 * tables, for every ABI, each with a lookup address appended.
 */
#include "sframe_internal.h"
#include "../../../tests/kunit/sframe_cases.h"

#define SEED_ADDR	0x7f0000000000UL

static unsigned char buf[SFB_BUF_SIZE + 8];

static int write_seed(const char *dir, const char *abi, const char *name,
		      u32 size, s32 pc)
{
	unsigned long text = SEED_ADDR + SFB_TEXT_DISTANCE + pc;
	char path[512];
	FILE *f;

	if (size > SFB_BUF_SIZE)
		size = SFB_BUF_SIZE;
	/* the last 8 bytes pick lookup addresses, relative to the section */
	text -= SEED_ADDR;
	memcpy(buf + size, &text, 8);
	snprintf(path, sizeof(path), "%s/%s-%s", dir, abi, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, size + 8, f) != size + 8) {
		perror(path);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct { u8 abi; const char *name; } abis[] = {
		{ SFRAME_ABI_AMD64_ENDIAN_LITTLE, "amd64" },
		{ SFRAME_ABI_AARCH64_ENDIAN_LITTLE, "aarch64" },
		{ SFRAME_ABI_S390X_ENDIAN_BIG, "s390x" },
	};
	unsigned long text = SEED_ADDR + SFB_TEXT_DISTANCE;
	unsigned int a, i;
	int bad = 0;
	u32 size;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (a = 0; a < ARRAY_SIZE(abis); a++) {
		for (i = 0; i < ARRAY_SIZE(sframe_decode_cases); i++) {
			const struct sframe_decode_case *c = &sframe_decode_cases[i];

			memset(buf, 0, sizeof(buf));
			size = sframe_decode_case_bytes(c, abis[a].abi, buf, SEED_ADDR, text);
			bad |= write_seed(argv[1], abis[a].name, c->name, size, c->pc);
		}
		for (i = 0; i < ARRAY_SIZE(sframe_bad_cases); i++) {
			const struct sframe_bad_case *c = &sframe_bad_cases[i];

			memset(buf, 0, sizeof(buf));
			size = sframe_bad_case_bytes(c, abis[a].abi, buf, SEED_ADDR, text);
			bad |= write_seed(argv[1], abis[a].name, c->name, size, c->pc);
		}
	}
	return bad;
}
