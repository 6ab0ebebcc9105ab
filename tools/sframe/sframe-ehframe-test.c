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

static void expect(const char *name, enum sfe_result want, uint64_t want_addr)
{
	struct sfe_eh_frame out = { 0 };
	enum sfe_result got = sfe_find_eh_frame(ph, nph, BIAS, at, NULL, &out);
	bool ok = got == want;

	if (ok && want == SFE_OK)
		ok = out.addr == want_addr && out.size == END + BIAS - want_addr &&
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

	layout();
	hdr(1, 0x1b, &s32, 4);			/* pcrel | sdata4: what GNU ld writes */
	expect("pcrel sdata4", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x33, &u32, 4);
	expect("datarel udata4", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x32, &u16, 2);
	expect("datarel udata2", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x1a, &s16, 2);
	expect("pcrel sdata2", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x04, &u64, 8);
	expect("absptr udata8, shifted by the bias", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x00, &u64, sizeof(void *));
	expect("absptr", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x1c, &s64, 8);
	expect("pcrel sdata8", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x31, leb, sizeof(leb));
	expect("datarel uleb128", SFE_OK, EHF + BIAS);
	layout();
	hdr(1, 0x19, sleb, sizeof(sleb));
	expect("pcrel sleb128, negative", SFE_OK, 0x1010 + BIAS);

	layout();
	hdr(1, 0x1b, &s32, 4);
	ph[2] = (ElfW(Phdr)) { .p_type = PT_GNU_SFRAME, .p_vaddr = 0x1200, .p_filesz = 8 };
	nph = 3;
	expect("PT_GNU_SFRAME", SFE_HAS_SFRAME, 0);
	layout();
	nph = 1;
	expect("no PT_GNU_EH_FRAME", SFE_NO_HDR, 0);
	layout();
	ph[1].p_vaddr = END - 8;
	expect("PT_GNU_EH_FRAME past its PT_LOAD", SFE_NO_HDR, 0);
	layout();
	ph[1].p_filesz = 3;
	expect("PT_GNU_EH_FRAME too short", SFE_NO_HDR, 0);
	layout();
	hdr(2, 0x1b, &s32, 4);
	expect("version 2", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0xff, &s32, 4);
	expect("eh_frame_ptr omitted", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0x9b, &s32, 4);
	expect("indirect", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0x2b, &s32, 4);
	expect("textrel", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0x4b, &s32, 4);
	expect("funcrel", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0x05, &s32, 4);
	expect("unknown format 5", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0x1b, &s32, 4);
	ph[1].p_filesz = 6;
	expect("sdata4 cut short", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0x1c, &s64, 8);
	ph[1].p_filesz = 10;
	expect("sdata8 cut short", SFE_BAD_HDR, 0);
	layout();
	hdr(1, 0x1a, &s16, 2);
	ph[1].p_filesz = 5;
	expect("sdata2 cut short", SFE_BAD_HDR, 0);
	layout();
	memset(unterminated, 0x80, sizeof(unterminated));
	hdr(1, 0x01, unterminated, sizeof(unterminated));
	expect("uleb128 without its last byte", SFE_BAD_HDR, 0);
	layout();
	refuse_all = true;
	hdr(1, 0x1b, &s32, 4);
	expect("header not readable", SFE_BAD_HDR, 0);
	layout();
	s32 = END + 0x10 - (HDR + 4);	/* in memsz, past filesz */
	hdr(1, 0x1b, &s32, 4);
	expect("eh_frame_ptr past the file part", SFE_BAD_PTR, 0);
	layout();
	s32 = -(HDR + 4) + 0x10;
	hdr(1, 0x1b, &s32, 4);
	expect("eh_frame_ptr below every PT_LOAD", SFE_BAD_PTR, 0);
	layout();
	u64 = ~0ULL;
	hdr(1, 0x04, &u64, 8);
	expect("eh_frame_ptr wrapping", SFE_BAD_PTR, 0);

	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
