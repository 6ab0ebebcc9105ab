// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes the fuzzer's seed corpus: every section of the reader's case
 * tables, for every ABI, each with the fuzzer's tail appended (see
 * sframe_fuzz.h): a mode (all zeros: the reader called plainly), a
 * second-writer script, then a lookup address.  Each
 * section is written twice, with no script and with one that changes the
 * first element's FDE count and the first FDE's size while it is read.
 */
#include "sframe_internal.h"
#include "sframe_fuzz.h"
#include "../../../tests/kunit/sframe_cases.h"

#define SEED_ADDR	FUZZ_ADDR

static unsigned char buf[SFB_BUF_SIZE + FUZZ_TAIL_LEN];

/*
 * Store 0 raises the first element's num_fdes right after its first read;
 * store 1 makes the first FDE's size huge after read 3, about when the
 * FDEs are indexed.  Values are in the section's byte order.
 */
static void put_script(u8 *s, const u8 *section, u32 size, u8 abi)
{
	static const u16 off[2] = { 8, 28 + 8 };
	bool big = sfb_big_endian(abi);
	u32 num_fdes = 0;
	int i;

	for (i = 0; i < 4 && size >= 12; i++)
		num_fdes |= (u32)section[big ? 11 - i : 8 + i] << (8 * i);
	memset(s, 0, 16);
	s[0] = 0x80;
	s[1] = 3;
	memcpy(s + 4, off, sizeof(off));
	sfb_put(s + 8, num_fdes + 1, 4, big);
	sfb_put(s + 12, 0xffffffff, 4, big);
}

static int write_seed(const char *dir, const char *abi, u8 abi_id, const char *name,
		      u32 size, s32 pc)
{
	unsigned long text = SEED_ADDR + SFB_TEXT_DISTANCE + pc;
	char path[512];
	unsigned int k;
	FILE *f;

	if (size > SFB_BUF_SIZE)
		size = SFB_BUF_SIZE;
	/* the last 8 bytes pick lookup addresses, relative to the section */
	text -= SEED_ADDR;
	memset(buf + size, 0, FUZZ_MODE_LEN);
	memcpy(buf + size + FUZZ_MODE_LEN + FUZZ_SCRIPT_LEN, &text, 8);
	for (k = 0; k < 2; k++) {
		if (k)
			put_script(buf + size + FUZZ_MODE_LEN, buf, size, abi_id);
		else
			memset(buf + size + FUZZ_MODE_LEN, 0, FUZZ_SCRIPT_LEN);
		snprintf(path, sizeof(path), "%s/%s-%s%s", dir, abi, name, k ? "-writer" : "");
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, size + FUZZ_TAIL_LEN, f) != size + FUZZ_TAIL_LEN) {
			perror(path);
			return 1;
		}
		if (fclose(f))
			return 1;
	}
	return 0;
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
			bad |= write_seed(argv[1], abis[a].name, abis[a].abi, c->name, size,
					  c->pc);
		}
		for (i = 0; i < ARRAY_SIZE(sframe_bad_cases); i++) {
			const struct sframe_bad_case *c = &sframe_bad_cases[i];

			memset(buf, 0, sizeof(buf));
			size = sframe_bad_case_bytes(c, abis[a].abi, buf, SEED_ADDR, text);
			bad |= write_seed(argv[1], abis[a].name, abis[a].abi, c->name, size,
					  c->pc);
		}
	}
	return bad;
}
