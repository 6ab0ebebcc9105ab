// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the user stack walker: the input is a whole task
 * (walker_oracle.c, struct walk_blob): registers, flags, a memory map of
 * four regions with a hole each, and the bytes of an SFrame section, text,
 * a stack and another stack.  Every walk of it is checked by the oracle;
 * a failed check, a crash, a sanitizer report or a leak of the reader's
 * memory is a finding.
 */
#include "walker_oracle.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct walk_result res;
	struct walk_input in;

	if (!walk_decode(data, size, &in))
		return 0;
	if (in.max_entries >= WALK_MAX_FRAMES)
		in.max_entries = WALK_MAX_FRAMES - 1;
	if (!walk_run(&in, &res)) {
		fprintf(stderr, "walker oracle: %s\n", res.why);
		__builtin_trap();
	}
	return 0;
}
