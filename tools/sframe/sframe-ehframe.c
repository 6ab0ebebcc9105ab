// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-ehframe: an object's .eh_frame found through its program headers
 * and .eh_frame_hdr, as the run-time unwinders find it.  Section headers
 * are not used: a loaded object's are not in memory, and a stripped file
 * may have none.  Every byte read comes through the caller's accessor,
 * which bounds it.
 */
#include <stdbool.h>
#include <string.h>

#include "ehframe.h"
#include "sframe-ehframe.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

/* version, eh_frame_ptr_enc, fde_count_enc, table_enc */
#define EH_HDR_FIXED		4
/* The longest encoded pointer: a LEB128 of 64 bits */
#define EH_PTR_MAX		10

/**
 * sfe_load_of() - the PT_LOAD whose file bytes hold a range
 * @phdr: the program headers.
 * @phnum: how many.
 * @vaddr: start of the range, a link-time address.
 * @len: its length.
 *
 * Return: the PT_LOAD, or NULL if no one holds all of the range.
 */
const ElfW(Phdr) *sfe_load_of(const ElfW(Phdr) *phdr, unsigned int phnum,
			      uint64_t vaddr, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		const ElfW(Phdr) *p = &phdr[i];

		if (p->p_type != PT_LOAD || vaddr < p->p_vaddr)
			continue;
		if (vaddr - p->p_vaddr <= p->p_filesz &&
		    len <= p->p_filesz - (vaddr - p->p_vaddr))
			return p;
	}
	return NULL;
}

/*
 * .eh_frame_hdr's eh_frame_ptr, at address @addr: @p holds @avail bytes
 * from there.  Decoded as .eh_frame's pointers are (ehframe.c), datarel
 * from the header's start; a link-time value (absptr) is shifted by @bias,
 * since a read-only .eh_frame_hdr is never relocated.
 */
static int read_encoded(const uint8_t *p, size_t avail, uint8_t enc, uint64_t addr,
			uint64_t hdr_addr, uint64_t bias, uint64_t *val, size_t *used)
{
	struct eh_ctx ctx = {
		.data = p, .size = avail, .addr = addr, .data_base = hdr_addr,
		.big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, .ptr_size = sizeof(void *),
	};
	size_t pos = 0;

	/* textrel, funcrel, aligned and indirect mean nothing here */
	if ((enc & 0x70) != DW_EH_PE_absptr && (enc & 0x70) != DW_EH_PE_pcrel &&
	    (enc & 0x70) != DW_EH_PE_datarel)
		return -1;
	if (enc & DW_EH_PE_indirect || eh_read_encoded(&ctx, enc, &pos, avail, val))
		return -1;
	if (!(enc & 0x70))
		*val += bias;
	*used = pos;
	return 0;
}

/*
 * The end of .eh_frame by .eh_frame_hdr's search table: the furthest end
 * of an FDE it lists.  A link without crtend.o's zero terminator (the
 * vDSO's: its .sframe follows at once) leaves nothing else to tell where
 * .eh_frame stops and the next section starts, and records read past it
 * are garbage.  @tab is where the FDE count starts, @len the header's
 * bytes at @h.  Returns 0 when the table cannot tell (none, another
 * encoding than GNU ld's, an entry outside [@start, @end)): the caller
 * keeps its bound.
 */
static uint64_t eh_frame_end_by_table(const uint8_t *h, size_t len, size_t tab,
				      uint64_t hdr_addr, uint64_t start, uint64_t end,
				      sfe_at_fn at, void *ctx)
{
	uint64_t count, i, last = 0;
	const uint8_t *eh;
	uint32_t fde_len;
	int32_t fde_off;
	size_t used;

	/* datarel | sdata4: initial location and FDE address, 8 bytes a pair */
	if (h[2] == DW_EH_PE_omit || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    read_encoded(h + tab, len - tab, h[2], hdr_addr + tab, hdr_addr, 0, &count, &used))
		return 0;
	tab += used;
	if (!count || count > (len - tab) / 8)
		return 0;
	/* One question whether it is all there, not one an FDE */
	eh = at(ctx, start, end - start);
	if (!eh)
		return 0;
	for (i = 0; i < count; i++) {
		uint64_t fde;

		memcpy(&fde_off, h + tab + i * 8 + 4, sizeof(fde_off));
		fde = hdr_addr + (int64_t)fde_off;
		if (fde < start || fde >= end || end - fde < 4)
			return 0;
		memcpy(&fde_len, eh + (fde - start), sizeof(fde_len));
		/* 64-bit DWARF lengths: not from GNU ld's .eh_frame */
		if (!fde_len || fde_len == 0xffffffff || fde_len > end - fde - 4)
			return 0;
		if (fde + 4 + fde_len > last)
			last = fde + 4 + fde_len;
	}
	return last;
}

static enum sfe_result sfe_find(const ElfW(Phdr) *phdr, unsigned int phnum,
				uint64_t bias, sfe_at_fn at, void *ctx,
				struct sfe_eh_frame *out, bool fill)
{
	const ElfW(Phdr) *hdr = NULL, *load;
	uint64_t hdr_addr, ptr, end, table_end;
	size_t avail, used;
	const uint8_t *h;
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		if (phdr[i].p_type == PT_GNU_SFRAME && !fill)
			return SFE_HAS_SFRAME;
		if (phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = &phdr[i];
	}
	if (!hdr || hdr->p_filesz < EH_HDR_FIXED ||
	    !sfe_load_of(phdr, phnum, hdr->p_vaddr, hdr->p_filesz))
		return SFE_NO_HDR;

	hdr_addr = hdr->p_vaddr + bias;
	avail = hdr->p_filesz < EH_HDR_FIXED + EH_PTR_MAX ? hdr->p_filesz :
		EH_HDR_FIXED + EH_PTR_MAX;
	h = at(ctx, hdr_addr, avail);
	if (!h || h[0] != 1 || h[1] == DW_EH_PE_omit)
		return SFE_BAD_HDR;
	if (read_encoded(h + EH_HDR_FIXED, avail - EH_HDR_FIXED, h[1],
			 hdr_addr + EH_HDR_FIXED, hdr_addr, bias, &ptr, &used))
		return SFE_BAD_HDR;

	/* The PT_LOAD that holds it bounds it: link-time addresses again */
	load = sfe_load_of(phdr, phnum, ptr - bias, 1);
	if (!load)
		return SFE_BAD_PTR;
	end = load->p_vaddr + load->p_filesz + bias;
	/* The whole header, the search table with it, to bound it closer */
	h = at(ctx, hdr_addr, hdr->p_filesz);
	table_end = h ? eh_frame_end_by_table(h, hdr->p_filesz, EH_HDR_FIXED + used,
					      hdr_addr, ptr, end, at, ctx) : 0;
	if (table_end)
		end = table_end;
	out->addr = ptr;
	out->size = end - ptr;
	out->bytes = at(ctx, ptr, out->size);
	return out->bytes ? SFE_OK : SFE_BAD_PTR;
}

/**
 * sfe_find_eh_frame() - find an object's .eh_frame
 * @phdr: its program headers (link-time addresses).
 * @phnum: how many.
 * @bias: what to add to a link-time address to get one @at understands
 *	(the load bias for a loaded object, 0 for the file).
 * @at: gives the bytes at an address.
 * @ctx: for @at.
 * @out: filled in on SFE_OK.
 *
 * Return: SFE_OK, or why not (see enum sfe_result).
 */
enum sfe_result sfe_find_eh_frame(const ElfW(Phdr) *phdr, unsigned int phnum,
				  uint64_t bias, sfe_at_fn at, void *ctx,
				  struct sfe_eh_frame *out)
{
	return sfe_find(phdr, phnum, bias, at, ctx, out, false);
}

/**
 * sfe_find_eh_frame_fill() - find the .eh_frame of an object with SFrame
 * @phdr: its program headers (link-time addresses).
 * @phnum: how many.
 * @bias: as for sfe_find_eh_frame().
 * @at: gives the bytes at an address.
 * @ctx: for @at.
 * @out: filled in on SFE_OK.
 *
 * As sfe_find_eh_frame(), PT_GNU_SFRAME or not: for filling the gaps of
 * the object's own section from its .eh_frame.
 *
 * Return: SFE_OK, or why not (never SFE_HAS_SFRAME).
 */
enum sfe_result sfe_find_eh_frame_fill(const ElfW(Phdr) *phdr, unsigned int phnum,
				       uint64_t bias, sfe_at_fn at, void *ctx,
				       struct sfe_eh_frame *out)
{
	return sfe_find(phdr, phnum, bias, at, ctx, out, true);
}

/**
 * sfe_result_str() - a few words for a result, for messages
 * @res: the result.
 *
 * Return: a static string.
 */
const char *sfe_result_str(enum sfe_result res)
{
	switch (res) {
	case SFE_OK:
		return "ok";
	case SFE_HAS_SFRAME:
		return "has PT_GNU_SFRAME";
	case SFE_NO_HDR:
		return "no PT_GNU_EH_FRAME";
	case SFE_BAD_HDR:
		return "unreadable .eh_frame_hdr";
	case SFE_BAD_PTR:
		return "eh_frame_ptr outside the object";
	}
	return "?";
}
