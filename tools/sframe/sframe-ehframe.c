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

#include "sframe-ehframe.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

/* DWARF pointer encodings (the LSB's DW_EH_PE_*), as .eh_frame_hdr uses them */
#define DW_EH_PE_omit		0xff
#define DW_EH_PE_absptr		0x00
#define DW_EH_PE_uleb128	0x01
#define DW_EH_PE_udata2		0x02
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_udata8		0x04
#define DW_EH_PE_sleb128	0x09
#define DW_EH_PE_sdata2		0x0a
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_sdata8		0x0c
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_datarel	0x30

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

static int read_uleb(const uint8_t *p, size_t avail, uint64_t *val, size_t *used, bool sign)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	size_t i;

	for (i = 0; i < avail && i < EH_PTR_MAX; i++) {
		if (shift < 64)
			v |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i] & 0x80)) {
			if (sign && shift < 64 && (p[i] & 0x40))
				v |= ~(uint64_t)0 << shift;
			*val = v;
			*used = i + 1;
			return 0;
		}
	}
	return -1;
}

/*
 * One encoded pointer of .eh_frame_hdr, at address @addr: @p holds @avail
 * bytes from there.  Link-time values (absptr) are shifted by @bias, since a
 * read-only .eh_frame_hdr is never relocated.
 */
static int read_encoded(const uint8_t *p, size_t avail, uint8_t enc, uint64_t addr,
			uint64_t hdr_addr, uint64_t bias, uint64_t *val)
{
	uint64_t v;
	size_t n, used;
	union {
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
		int16_t s16;
		int32_t s32;
	} u;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		n = sizeof(void *);
		if (avail < n)
			return -1;
		memcpy(&u, p, n);
		v = n == 8 ? u.u64 : u.u32;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		if (avail < 2)
			return -1;
		memcpy(&u.u16, p, 2);
		v = (enc & 0x0f) == DW_EH_PE_sdata2 ? (uint64_t)(int64_t)u.s16 : u.u16;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		if (avail < 4)
			return -1;
		memcpy(&u.u32, p, 4);
		v = (enc & 0x0f) == DW_EH_PE_sdata4 ? (uint64_t)(int64_t)u.s32 : u.u32;
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (avail < 8)
			return -1;
		memcpy(&u.u64, p, 8);
		v = u.u64;
		break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		if (read_uleb(p, avail, &v, &used, (enc & 0x0f) == DW_EH_PE_sleb128))
			return -1;
		break;
	default:
		return -1;
	}

	/* textrel, funcrel, aligned and indirect mean nothing in .eh_frame_hdr */
	switch (enc & 0xf0) {
	case DW_EH_PE_absptr:
		v += bias;
		break;
	case DW_EH_PE_pcrel:
		v += addr;
		break;
	case DW_EH_PE_datarel:
		v += hdr_addr;
		break;
	default:
		return -1;
	}
	*val = v;
	return 0;
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
	const ElfW(Phdr) *hdr = NULL, *load;
	const uint8_t *h;
	uint64_t hdr_addr, ptr, end;
	size_t avail;
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		if (phdr[i].p_type == PT_GNU_SFRAME)
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
			 hdr_addr + EH_HDR_FIXED, hdr_addr, bias, &ptr))
		return SFE_BAD_HDR;

	/* The PT_LOAD that holds it bounds it: link-time addresses again */
	load = sfe_load_of(phdr, phnum, ptr - bias, 1);
	if (!load)
		return SFE_BAD_PTR;
	end = load->p_vaddr + load->p_filesz + bias;
	out->addr = ptr;
	out->size = end - ptr;
	out->bytes = at(ctx, ptr, out->size);
	return out->bytes ? SFE_OK : SFE_BAD_PTR;
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
