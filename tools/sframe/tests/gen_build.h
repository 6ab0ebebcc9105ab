/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny .eh_frame builder for sframe-gen's tests: records with their
 * lengths patched in, CIEs and FDEs of any encoding, in either byte order.
 */
#ifndef _SFRAME_GEN_BUILD_TEST_H
#define _SFRAME_GEN_BUILD_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define EB_MAX		0x100000
/* Where the built .eh_frame is, and the datarel base, in the tests */
#define EB_ADDR		0x400000ULL
#define EB_DATA_BASE	0x600000ULL

struct eb {
	uint8_t		d[EB_MAX];
	size_t		n;
	bool		big;
	unsigned int	ptr_size;
};

static inline void eb_reset(struct eb *b, bool big)
{
	b->n = 0;
	b->big = big;
	b->ptr_size = 8;
}

static inline void eb_put(struct eb *b, uint64_t v, unsigned int len)
{
	unsigned int i;

	if (b->n + len > EB_MAX)
		return;
	for (i = 0; i < len; i++)
		b->d[b->n + (b->big ? len - 1 - i : i)] = v >> (8 * i);
	b->n += len;
}

static inline void eb_bytes(struct eb *b, const void *p, size_t len)
{
	if (b->n + len > EB_MAX)
		return;
	memcpy(b->d + b->n, p, len);
	b->n += len;
}

static inline void eb_uleb(struct eb *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		eb_put(b, c | (v ? 0x80 : 0), 1);
	} while (v);
}

static inline void eb_sleb(struct eb *b, int64_t v)
{
	bool more;

	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)));
		eb_put(b, c | (more ? 0x80 : 0), 1);
	} while (more);
}

/* Starts a record: returns where its length is */
static inline size_t eb_begin(struct eb *b, bool d64)
{
	size_t at = b->n;

	if (d64) {
		eb_put(b, 0xffffffff, 4);
		eb_put(b, 0, 8);
	} else {
		eb_put(b, 0, 4);
	}
	return at;
}

static inline void eb_end(struct eb *b, size_t at)
{
	bool d64 = b->d[at] == 0xff && b->d[at + 1] == 0xff && b->d[at + 2] == 0xff &&
		   b->d[at + 3] == 0xff;
	size_t save = b->n, body = at + (d64 ? 12 : 4);

	b->n = d64 ? at + 4 : at;
	eb_put(b, save - body, d64 ? 8 : 4);
	b->n = save;
}

/* A pointer of encoding @enc whose value is @v */
static inline void eb_ptr(struct eb *b, uint8_t enc, uint64_t v)
{
	uint64_t here = EB_ADDR + b->n;

	if ((enc & 0x70) == 0x10)
		v -= here;
	else if ((enc & 0x70) == 0x30)
		v -= EB_DATA_BASE;
	switch (enc & 0x0f) {
	case 0x00:
		eb_put(b, v, b->ptr_size);
		break;
	case 0x01:
		eb_uleb(b, v);
		break;
	case 0x02:
	case 0x0a:
		eb_put(b, v, 2);
		break;
	case 0x03:
	case 0x0b:
		eb_put(b, v, 4);
		break;
	case 0x09:
		eb_sleb(b, (int64_t)v);
		break;
	default:
		eb_put(b, v, 8);
		break;
	}
}

/*
 * A CIE: version @ver, augmentation @aug ("zR..." with @enc for 'R'),
 * the given factors and RA column, then @insns.
 */
static inline size_t eb_cie(struct eb *b, bool d64, unsigned int ver, const char *aug,
			    uint8_t enc, uint64_t caf, int64_t daf, unsigned int ra,
			    const void *insns, size_t ilen)
{
	size_t at = eb_begin(b, d64), adata;
	const char *a;

	eb_put(b, 0, d64 ? 8 : 4);
	eb_put(b, ver, 1);
	eb_bytes(b, aug, strlen(aug) + 1);
	if (aug[0] == 'e' && aug[1] == 'h')
		eb_put(b, 0, b->ptr_size);
	if (ver == 4) {
		eb_put(b, b->ptr_size, 1);
		eb_put(b, 0, 1);
	}
	eb_uleb(b, caf);
	eb_sleb(b, daf);
	if (ver == 1)
		eb_put(b, ra, 1);
	else
		eb_uleb(b, ra);
	if (strchr(aug, 'z')) {
		eb_put(b, 0, 1);	/* patched below: data is short */
		adata = b->n;
		for (a = strchr(aug, 'z') + 1; *a; a++) {
			if (*a == 'R') {
				eb_put(b, enc, 1);
			} else if (*a == 'L') {
				eb_put(b, 0x1b, 1);
			} else if (*a == 'P') {
				eb_put(b, 0x9b, 1);	/* indirect pcrel sdata4 */
				eb_ptr(b, 0x1b, EB_ADDR + 0x1000);
			}
		}
		b->d[adata - 1] = b->n - adata;
	}
	eb_bytes(b, insns, ilen);
	eb_end(b, at);
	return at;
}

/* An FDE of the CIE at @cie: @enc as its CIE's 'R' says, @z if the CIE has 'z' */
static inline size_t eb_fde(struct eb *b, bool d64, size_t cie, uint8_t enc, bool z,
			    uint64_t pc, uint64_t range, const void *insns, size_t ilen)
{
	size_t at = eb_begin(b, d64);

	eb_put(b, b->n - cie, d64 ? 8 : 4);
	eb_ptr(b, enc, pc);
	eb_ptr(b, enc & 0x0f, range);
	if (z)
		eb_uleb(b, 0);
	eb_bytes(b, insns, ilen);
	eb_end(b, at);
	return at;
}

#endif /* _SFRAME_GEN_BUILD_TEST_H */
