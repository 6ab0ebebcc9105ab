// SPDX-License-Identifier: GPL-2.0
/*
 * A call instruction that ends at a given address, by the arch's
 * encodings of a call: what the CPU would have executed for the address
 * to be a return address.  Loose where the arch is (x86_64's indirect
 * calls take many lengths; any that fits is taken): the answer "not
 * after a call" is the one a test acts on, and it is never a guess.
 */
#include <unistd.h>

#include "sf_call.h"

#if defined(__x86_64__)
/* CALL rel32 (e8), or CALL r/m64 (ff /2) of 2 to 7 bytes, prefixes aside */
bool sf_call_ends_at(const uint8_t *code, unsigned int len)
{
	unsigned int k;

	if (len >= 5 && code[len - 5] == 0xe8)
		return true;
	for (k = 2; k <= 7 && k <= len; k++)
		if (code[len - k] == 0xff && ((code[len - k + 1] >> 3) & 7) == 2)
			return true;
	return false;
}
#elif defined(__aarch64__)
/* BL, BLR, and the pointer-authenticating BLRAA/BLRAB(Z) */
bool sf_call_ends_at(const uint8_t *code, unsigned int len)
{
	uint32_t insn;

	if (len < 4)
		return false;
	insn = code[len - 4] | code[len - 3] << 8 | code[len - 2] << 16 |
	       (uint32_t)code[len - 1] << 24;
	return (insn & 0xfc000000) == 0x94000000 ||	/* BL */
	       (insn & 0xfffffc1f) == 0xd63f0000 ||	/* BLR */
	       (insn & 0xfefff800) == 0xd63f0800;	/* BLRAA, BLRAB, ...Z */
}
#elif defined(__s390x__)
/* BRASL (6 bytes), BRAS, BAS (4), BASR, BALR, BASSM (2) */
bool sf_call_ends_at(const uint8_t *code, unsigned int len)
{
	return (len >= 6 && code[len - 6] == 0xc0 && (code[len - 5] & 0x0f) == 5) ||
	       (len >= 4 && code[len - 4] == 0xa7 && (code[len - 3] & 0x0f) == 5) ||
	       (len >= 4 && (code[len - 4] == 0x4d || code[len - 4] == 0x45)) ||
	       (len >= 2 && (code[len - 2] == 0x0d || code[len - 2] == 0x05 ||
			     code[len - 2] == 0x0c));
}
#else
bool sf_call_ends_at(const uint8_t *code, unsigned int len)
{
	return true;
}
#endif

/**
 * sf_call_before() - does a call instruction end at @file_offset of @fd?
 * @fd: the mapped file, open for reading.
 * @file_offset: where the address lies in it.
 *
 * Return: 1 if so, 0 if not, -1 if the file cannot tell (a failed read,
 * an offset too near the file's start).
 */
int sf_call_before(int fd, uint64_t file_offset)
{
	uint8_t code[SF_CALL_MAX_BYTES];

	if (fd < 0 || file_offset < sizeof(code) ||
	    pread(fd, code, sizeof(code), file_offset - sizeof(code)) != sizeof(code))
		return -1;
	return sf_call_ends_at(code, sizeof(code));
}
