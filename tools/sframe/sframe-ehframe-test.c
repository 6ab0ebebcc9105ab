// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-ehframe-test: sfe_find_eh_frame() on crafted program headers and
 * .eh_frame_hdr bytes: every pointer encoding .eh_frame_hdr may use, and
 * every way the headers can be wrong.  Ends with "N passed, N failed".
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sframe-ehframe.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* A fake object: link-time addresses 0x1000.., loaded at BIAS */
#define BASE	0x1000
#define BIAS	0x500000
#define HDR	0x1100		/* .eh_frame_hdr */
#define EHF	0x1800		/* .eh_frame */
#define END	0x2000		/* end of the PT_LOAD's file part */

static unsigned char mem[END - BASE];
static ElfW(Phdr) ph[3];
static unsigned int nph, passed, failed;
static bool refuse_all;

static const void *at(void *ctx, uint64_t addr, size_t len)
{
	(void)ctx;
	if (refuse_all || addr < BASE + BIAS || addr - BIAS + len > END)
		return NULL;
	return mem + (addr - BIAS - BASE);
}

static void layout(void)
{
	memset(mem, 0, sizeof(mem));
	memset(ph, 0, sizeof(ph));
	ph[0] = (ElfW(Phdr)) { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_vaddr = BASE,
			      .p_filesz = END - BASE, .p_memsz = END - BASE + 0x100 };
	ph[1] = (ElfW(Phdr)) { .p_type = PT_GNU_EH_FRAME, .p_flags = PF_R, .p_vaddr = HDR,
			      .p_filesz = 24, .p_memsz = 24 };
	nph = 2;
	refuse_all = false;
}

/* .eh_frame_hdr: version, eh_frame_ptr_enc, then @n bytes of pointer */
static void hdr(unsigned char version, unsigned char enc, const void *ptr, size_t n)
{
	unsigned char *h = mem + (HDR - BASE);

	h[0] = version;
	h[1] = enc;
	h[2] = 0x03;
	h[3] = 0x3b;
	memcpy(h + 4, ptr, n);
}

/* @want_size 0: .eh_frame runs to the end of its PT_LOAD's file part */
static void expect(const char *name, enum sfe_result want, uint64_t want_addr,
		   uint64_t want_size)
{
	struct sfe_eh_frame out = { 0 };
	enum sfe_result got = sfe_find_eh_frame(ph, nph, BIAS, at, NULL, &out);
	bool ok = got == want;

	if (!want_size)
		want_size = END + BIAS - want_addr;
	if (ok && want == SFE_OK)
		ok = out.addr == want_addr && out.size == want_size &&
		     out.bytes == mem + (want_addr - BIAS - BASE);
	printf("%sok %s # %s", ok ? "" : "not ", name, sfe_result_str(got));
	if (got == SFE_OK)
		printf(" at %#lx, %zu bytes", (unsigned long)out.addr, out.size);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

/*
 * A case: a fresh object whose .eh_frame_hdr (none without @ptr), of
 * version @ver or else 1, has eh_frame_ptr encoded @enc in the @n bytes at
 * @ptr; then what sets its program headers apart.  sfe_find_eh_frame()
 * must give @want and, for SFE_OK, .eh_frame at @at.
 */
struct hdr_case {
	const char	*name;
	unsigned char	ver;
	unsigned char	enc;
	const void	*ptr;
	size_t		n;
	enum sfe_result	want;
	uint64_t	at;
	uint64_t	vaddr;		/* PT_GNU_EH_FRAME's, if not 0 */
	uint64_t	filesz;		/* the same */
	unsigned int	nph;		/* if not 0 */
	bool		sframe;		/* a PT_GNU_SFRAME too */
	bool		refuse;		/* no byte readable */
};

static void run(const struct hdr_case *c)
{
	layout();
	if (c->ptr)
		hdr(c->ver ? c->ver : 1, c->enc, c->ptr, c->n);
	if (c->vaddr)
		ph[1].p_vaddr = c->vaddr;
	if (c->filesz)
		ph[1].p_filesz = c->filesz;
	if (c->nph)
		nph = c->nph;
	if (c->sframe)
		ph[nph++] = (ElfW(Phdr)) { .p_type = PT_GNU_SFRAME, .p_vaddr = 0x1200,
					   .p_filesz = 8 };
	refuse_all = c->refuse;
	expect(c->name, c->want, c->at, 0);
}

/*
 * .eh_frame_hdr with GNU ld's search table: fde_count @count (udata4),
 * then @n pairs whose FDE addresses are @fde (link-time), the length word
 * @flen[i] written at each.  .eh_frame (at EHF) must come out @want_size
 * bytes long, 0 meaning that the table could not tell and the PT_LOAD
 * bounds it.
 */
static void table_case(const char *name, uint32_t count, unsigned int n,
		       const uint64_t *fde, const uint32_t *flen, uint64_t want_size)
{
	unsigned char *h = mem + (HDR - BASE);
	int32_t s32 = EHF - (HDR + 4), loc = 0, off;
	unsigned int i;

	layout();
	hdr(1, 0x1b, &s32, 4);
	memcpy(h + 8, &count, 4);
	for (i = 0; i < n; i++) {
		off = (int32_t)(fde[i] - HDR);
		memcpy(h + 12 + 8 * i, &loc, 4);
		memcpy(h + 16 + 8 * i, &off, 4);
		if (fde[i] >= BASE && fde[i] + 4 <= END)
			memcpy(mem + (fde[i] - BASE), &flen[i], 4);
	}
	ph[1].p_filesz = 12 + 8 * n;
	expect(name, SFE_OK, EHF + BIAS, want_size);
}

int main(void)
{
	int32_t s32 = EHF - (HDR + 4);
	uint32_t u32 = EHF - HDR;
	uint16_t u16 = EHF - HDR;
	int16_t s16 = EHF - (HDR + 4);
	uint64_t u64 = EHF, s64 = EHF - (HDR + 4);
	unsigned char leb[] = { ((EHF - HDR) & 0x7f) | 0x80, (EHF - HDR) >> 7 };
	/* -(HDR + 4 - 0x1010): eh_frame before the header */
	unsigned char sleb[] = { 0x8c, 0x7e };
	unsigned char unterminated[20];
	int32_t past_file = END + 0x10 - (HDR + 4);	/* in memsz, past filesz */
	int32_t below = -(HDR + 4) + 0x10;
	uint64_t wrap = ~0ULL;
	const struct hdr_case cases[] = {
		/* pcrel | sdata4: what GNU ld writes */
		{ .name = "pcrel sdata4", .enc = 0x1b, .ptr = &s32, .n = 4, .want = SFE_OK,
		  .at = EHF + BIAS },
		{ .name = "datarel udata4", .enc = 0x33, .ptr = &u32, .n = 4, .want = SFE_OK,
		  .at = EHF + BIAS },
		{ .name = "datarel udata2", .enc = 0x32, .ptr = &u16, .n = 2, .want = SFE_OK,
		  .at = EHF + BIAS },
		{ .name = "pcrel sdata2", .enc = 0x1a, .ptr = &s16, .n = 2, .want = SFE_OK,
		  .at = EHF + BIAS },
		{ .name = "absptr udata8, shifted by the bias", .enc = 0x04, .ptr = &u64, .n = 8,
		  .want = SFE_OK, .at = EHF + BIAS },
		{ .name = "absptr", .enc = 0x00, .ptr = &u64, .n = sizeof(void *), .want = SFE_OK,
		  .at = EHF + BIAS },
		{ .name = "pcrel sdata8", .enc = 0x1c, .ptr = &s64, .n = 8, .want = SFE_OK,
		  .at = EHF + BIAS },
		{ .name = "datarel uleb128", .enc = 0x31, .ptr = leb, .n = sizeof(leb),
		  .want = SFE_OK, .at = EHF + BIAS },
		{ .name = "pcrel sleb128, negative", .enc = 0x19, .ptr = sleb, .n = sizeof(sleb),
		  .want = SFE_OK, .at = 0x1010 + BIAS },

		/* Every way the headers can be wrong */
		{ .name = "PT_GNU_SFRAME", .enc = 0x1b, .ptr = &s32, .n = 4, .sframe = true,
		  .want = SFE_HAS_SFRAME },
		{ .name = "no PT_GNU_EH_FRAME", .nph = 1, .want = SFE_NO_HDR },
		{ .name = "PT_GNU_EH_FRAME past its PT_LOAD", .vaddr = END - 8,
		  .want = SFE_NO_HDR },
		{ .name = "PT_GNU_EH_FRAME too short", .filesz = 3, .want = SFE_NO_HDR },
		{ .name = "version 2", .ver = 2, .enc = 0x1b, .ptr = &s32, .n = 4,
		  .want = SFE_BAD_HDR },
		{ .name = "eh_frame_ptr omitted", .enc = 0xff, .ptr = &s32, .n = 4,
		  .want = SFE_BAD_HDR },
		{ .name = "indirect", .enc = 0x9b, .ptr = &s32, .n = 4, .want = SFE_BAD_HDR },
		{ .name = "textrel", .enc = 0x2b, .ptr = &s32, .n = 4, .want = SFE_BAD_HDR },
		{ .name = "funcrel", .enc = 0x4b, .ptr = &s32, .n = 4, .want = SFE_BAD_HDR },
		{ .name = "unknown format 5", .enc = 0x05, .ptr = &s32, .n = 4,
		  .want = SFE_BAD_HDR },
		{ .name = "sdata4 cut short", .enc = 0x1b, .ptr = &s32, .n = 4, .filesz = 6,
		  .want = SFE_BAD_HDR },
		{ .name = "sdata8 cut short", .enc = 0x1c, .ptr = &s64, .n = 8, .filesz = 10,
		  .want = SFE_BAD_HDR },
		{ .name = "sdata2 cut short", .enc = 0x1a, .ptr = &s16, .n = 2, .filesz = 5,
		  .want = SFE_BAD_HDR },
		{ .name = "uleb128 without its last byte", .enc = 0x01, .ptr = unterminated,
		  .n = sizeof(unterminated), .want = SFE_BAD_HDR },
		{ .name = "header not readable", .enc = 0x1b, .ptr = &s32, .n = 4, .refuse = true,
		  .want = SFE_BAD_HDR },
		{ .name = "eh_frame_ptr past the file part", .enc = 0x1b, .ptr = &past_file, .n = 4,
		  .want = SFE_BAD_PTR },
		{ .name = "eh_frame_ptr below every PT_LOAD", .enc = 0x1b, .ptr = &below, .n = 4,
		  .want = SFE_BAD_PTR },
		{ .name = "eh_frame_ptr wrapping", .enc = 0x04, .ptr = &wrap, .n = 8,
		  .want = SFE_BAD_PTR },
	};
	size_t i;

	memset(unterminated, 0x80, sizeof(unterminated));
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run(&cases[i]);

	/*
	 * No zero terminator (the vDSO's .eh_frame, its .sframe right after):
	 * the furthest FDE the table lists ends it, in whatever order.
	 */
	table_case("the table's last FDE ends it", 2, 2,
		   (const uint64_t[]){ EHF + 0x40, EHF + 0x18 }, (const uint32_t[]){ 0x1c, 0x24 },
		   0x40 + 4 + 0x1c);
	table_case("one FDE", 1, 1, (const uint64_t[]){ EHF + 0x18 }, (const uint32_t[]){ 0x14 },
		   0x18 + 4 + 0x14);
	/* Whatever the table cannot vouch for leaves the PT_LOAD's bound */
	table_case("an FDE before .eh_frame", 2, 2, (const uint64_t[]){ EHF + 0x18, EHF - 0x20 },
		   (const uint32_t[]){ 0x14, 0x14 }, 0);
	table_case("an FDE past the PT_LOAD", 1, 1, (const uint64_t[]){ END - 2 },
		   (const uint32_t[]){ 0x14 }, 0);
	table_case("an FDE running past the PT_LOAD", 1, 1, (const uint64_t[]){ END - 0x10 },
		   (const uint32_t[]){ 0x40 }, 0);
	table_case("a zero length", 1, 1, (const uint64_t[]){ EHF + 0x18 }, (const uint32_t[]){ 0 },
		   0);
	table_case("a 64-bit length", 1, 1, (const uint64_t[]){ EHF + 0x18 },
		   (const uint32_t[]){ 0xffffffff }, 0);
	table_case("more FDEs counted than the header holds", 3, 2,
		   (const uint64_t[]){ EHF + 0x18, EHF + 0x40 }, (const uint32_t[]){ 0x14, 0x14 },
		   0);
	table_case("an empty table", 0, 0, NULL, NULL, 0);

	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
