// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for sframe-gen: the input's first byte picks the ABI
 * (and for aarch64 the byte order), the rest is .eh_frame.  Whatever the
 * bytes, the conversion must not crash or read outside them (ASan), and
 * every section it makes must be taken by the kernel's reader, which must
 * find each FRE's rules at its first and last address (gen_check.c).
 *
 * With bit 3 of the first byte set, the next two bytes (little endian) are
 * the length of a section to keep (--fill) that comes before .eh_frame.
 * Its FDEs are copied as they are, so a section that kept any is not
 * judged by the reader here (it judges the object's own section the same
 * way at registration); the rest holds.
 */
#include "gen_check.h"

#define FUZZ_EH_ADDR	0x400000UL
#define FUZZ_SEC_ADDR	0x10000000UL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum sframe_gen_arch arches[] = {
		SFRAME_GEN_X86_64, SFRAME_GEN_AARCH64, SFRAME_GEN_S390X, SFRAME_GEN_AARCH64,
	};
	struct sframe_gen_input in = { 0 };
	struct sframe_gen_stats st;
	struct sframe_section sec;
	struct sframe_gen *gen;
	unsigned char *bytes, *copy, *kept = NULL;
	char err[256], why[256];
	size_t kept_size = 0;

	if (!size)
		return 0;
	/* An exact copy, so that a read past the end shows under ASan */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		abort();
	memcpy(copy, data + 1, size - 1);
	if ((data[0] & 8) && size >= 3) {
		kept_size = data[1] | data[2] << 8;
		if (kept_size > size - 3)
			kept_size = size - 3;
		kept = malloc(kept_size ? kept_size : 1);
		if (!kept)
			abort();
		memcpy(kept, data + 3, kept_size);
		memmove(copy, data + 3 + kept_size, size - 3 - kept_size);
		size -= 2 + kept_size;
		in.sframe = kept;
		in.sframe_size = kept_size;
		in.sframe_addr = FUZZ_SEC_ADDR - 0x100000;
	}
	in.arch = arches[data[0] & 3];
	in.big_endian = (data[0] & 3) == 3;
	in.ptr_size = data[0] & 4 ? 4 : 8;
	in.eh_frame = copy;
	in.eh_frame_size = size - 1;
	in.eh_frame_addr = FUZZ_EH_ADDR;
	in.data_base = FUZZ_EH_ADDR;
	gen = sframe_gen_new(&in, &st, err, sizeof(err));
	if (gen) {
		if (st.fdes_skipped + st.fdes_bad + st.fdes_covered > st.fdes ||
		    st.fdes_flex > st.fdes_out || st.fdes_kept > st.fdes_out) {
			fprintf(stderr, "stats do not add up\n");
			abort();
		}
		if (!st.fdes_kept &&
		    gen_check_section(gen, FUZZ_SEC_ADDR, &sec, &bytes, why, sizeof(why))) {
			fprintf(stderr, "generated section refused: %s\n", why);
			abort();
		}
		if (!st.fdes_kept)
			gen_section_release(&sec, bytes);
		sframe_gen_free(gen);
	} else if (!err[0]) {
		fprintf(stderr, "failure without a message\n");
		abort();
	}
	free(kept);
	free(copy);
	return 0;
}
