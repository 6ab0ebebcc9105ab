// SPDX-License-Identifier: GPL-2.0
/*
 * Whether an ELF file's .eh_frame has an FDE for an address, found the
 * way a DWARF unwinder finds one: PT_GNU_EH_FRAME's search table, sorted
 * by the start of each FDE, gives the last FDE that starts at or below
 * the address; that FDE describes the address if its range reaches past
 * it.  Code in no FDE's range (glibc's _init and _fini, from crti.o and
 * crtn.o, which carry no CFI; arm64's PLT) can be unwound only by a guess.
 *
 * Only what linkers write is read: a version 1 header whose table has
 * data-relative 4-byte entries, and FDE addresses of 2, 4 or 8 bytes,
 * absolute or PC-relative.  Anything else, and any read that fails,
 * answers "cannot tell".
 */
#include <elf.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "sf_ehframe.h"

#define SF_EH_MAX_PHDRS		64
#define SF_EH_CIE_BYTES		64	/* a CIE's fields up to its 'R' encoding */

/* DW_EH_PE_*: the pointer encodings of .eh_frame and .eh_frame_hdr */
#define SF_EH_PE_FORMAT		0x0f
#define SF_EH_PE_APPLY		0x70
#define SF_EH_PE_ABSPTR		0x00
#define SF_EH_PE_UDATA2		0x02
#define SF_EH_PE_UDATA4		0x03
#define SF_EH_PE_UDATA8		0x04
#define SF_EH_PE_SDATA2		0x0a
#define SF_EH_PE_SDATA4		0x0b
#define SF_EH_PE_SDATA8		0x0c
#define SF_EH_PE_PCREL		0x10
#define SF_EH_PE_DATAREL	0x30
#define SF_EH_PE_INDIRECT	0x80
#define SF_EH_TABLE_ENC		(SF_EH_PE_DATAREL | SF_EH_PE_SDATA4)

struct sf_eh_file {
	int		fd;
	Elf64_Phdr	phdr[SF_EH_MAX_PHDRS];
	unsigned int	nphdr;
};

/* Reads @len bytes at address @vaddr of the file's loaded image */
static bool sf_eh_read(const struct sf_eh_file *f, uint64_t vaddr, void *buf, size_t len)
{
	const Elf64_Phdr *p;
	unsigned int i;

	for (i = 0; i < f->nphdr; i++) {
		p = &f->phdr[i];
		if (p->p_type != PT_LOAD || vaddr < p->p_vaddr ||
		    vaddr - p->p_vaddr > p->p_filesz || p->p_filesz - (vaddr - p->p_vaddr) < len)
			continue;
		return pread(f->fd, buf, len, p->p_offset + (vaddr - p->p_vaddr)) == (ssize_t)len;
	}
	return false;
}

/* Bytes of a value of encoding @enc; 0 for one this reader does not take */
static unsigned int sf_eh_size(uint8_t enc)
{
	switch (enc & SF_EH_PE_FORMAT) {
	case SF_EH_PE_ABSPTR:
	case SF_EH_PE_UDATA8:
	case SF_EH_PE_SDATA8:
		return 8;
	case SF_EH_PE_UDATA4:
	case SF_EH_PE_SDATA4:
		return 4;
	case SF_EH_PE_UDATA2:
	case SF_EH_PE_SDATA2:
		return 2;
	}
	return 0;
}

/* The value of encoding @enc at @vaddr; @data is the base of a data-relative one */
static bool sf_eh_value(const struct sf_eh_file *f, uint8_t enc, uint64_t vaddr,
			uint64_t data, uint64_t *val)
{
	unsigned int size = sf_eh_size(enc);
	union {
		uint16_t u16;
		int16_t s16;
		uint32_t u32;
		int32_t s32;
		uint64_t u64;
	} v;

	if (!size || (enc & SF_EH_PE_INDIRECT) || !sf_eh_read(f, vaddr, &v, size))
		return false;
	switch (enc & SF_EH_PE_FORMAT) {
	case SF_EH_PE_UDATA2:
		*val = v.u16;
		break;
	case SF_EH_PE_SDATA2:
		*val = (uint64_t)(int64_t)v.s16;
		break;
	case SF_EH_PE_UDATA4:
		*val = v.u32;
		break;
	case SF_EH_PE_SDATA4:
		*val = (uint64_t)(int64_t)v.s32;
		break;
	default:
		*val = v.u64;
		break;
	}
	switch (enc & SF_EH_PE_APPLY) {
	case 0:
		return true;
	case SF_EH_PE_PCREL:
		*val += vaddr;
		return true;
	case SF_EH_PE_DATAREL:
		*val += data;
		return true;
	}
	return false;
}

/* Skips a ULEB128 or SLEB128 in @b at *@at; false if it runs past @end */
static bool sf_eh_skip_leb(const uint8_t *b, unsigned int *at, unsigned int end)
{
	while (*at < end)
		if (!(b[(*at)++] & 0x80))
			return true;
	return false;
}

/* The encoding of the FDE addresses of the CIE at @cie: its 'R' augmentation */
static bool sf_eh_cie_enc(const struct sf_eh_file *f, uint64_t cie, uint8_t *enc)
{
	uint8_t b[SF_EH_CIE_BYTES];
	unsigned int at = 9, aug, end;	/* length, CIE id, version */
	const char *s;

	memset(b, 0, sizeof(b));
	for (end = sizeof(b); end > 9; end /= 2)	/* a CIE at the segment's end is short */
		if (sf_eh_read(f, cie, b, end))
			break;
	if (end <= 9 || b[8] < 1 || b[8] > 4)
		return false;
	aug = at;
	s = memchr(b + aug, '\0', end - aug);
	if (!s)
		return false;
	at = s - (const char *)b + 1;
	*enc = SF_EH_PE_ABSPTR;
	if (b[aug] != 'z')
		return b[aug] == '\0';
	/* code alignment, data alignment, return column (a byte in version 1) */
	if (!sf_eh_skip_leb(b, &at, end) || !sf_eh_skip_leb(b, &at, end))
		return false;
	if (b[8] == 1)
		at++;
	else if (!sf_eh_skip_leb(b, &at, end))
		return false;
	if (!sf_eh_skip_leb(b, &at, end))	/* the augmentation data's length */
		return false;
	for (aug++; at < end && b[aug]; aug++) {
		switch (b[aug]) {
		case 'R':
			*enc = b[at];
			return true;
		case 'L':
			at++;
			break;
		case 'P':
			if (!sf_eh_size(b[at]))
				return false;
			at += 1 + sf_eh_size(b[at]);
			break;
		case 'S':
		case 'B':
			break;
		default:
			return false;
		}
	}
	return !b[aug];
}

/* Whether the FDE at @fde covers @vaddr: 1 or 0; -1 if it cannot be read */
static int sf_eh_fde_covers(const struct sf_eh_file *f, uint64_t fde, uint64_t vaddr)
{
	uint64_t begin, range;
	uint32_t head[2];	/* length, CIE pointer */
	uint8_t enc;

	if (!sf_eh_read(f, fde, head, sizeof(head)) || head[0] == 0xffffffff || !head[1] ||
	    !sf_eh_cie_enc(f, fde + 4 - head[1], &enc) ||
	    !sf_eh_value(f, enc, fde + 8, 0, &begin) ||
	    !sf_eh_value(f, enc & SF_EH_PE_FORMAT, fde + 8 + sf_eh_size(enc), 0, &range))
		return -1;
	return vaddr >= begin && vaddr - begin < range;
}

/* The address at @offset of the file, by the PT_LOAD that maps it; false if none */
static bool sf_eh_vaddr(const struct sf_eh_file *f, uint64_t offset, uint64_t *vaddr)
{
	const Elf64_Phdr *p;
	unsigned int i;

	for (i = 0; i < f->nphdr; i++) {
		p = &f->phdr[i];
		if (p->p_type == PT_LOAD && offset >= p->p_offset &&
		    offset - p->p_offset < p->p_filesz) {
			*vaddr = p->p_vaddr + (offset - p->p_offset);
			return true;
		}
	}
	return false;
}

static int sf_eh_lookup(struct sf_eh_file *f, uint64_t offset)
{
	uint64_t vaddr, hdr = 0, ptr, count, table, lo, hi, mid;
	int32_t entry[2];	/* start, FDE: data-relative to the header */
	uint8_t enc[4];		/* version, pointer, count and table encodings */
	bool found = false;
	Elf64_Ehdr eh;
	unsigned int i;

	if (pread(f->fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	    eh.e_ident[EI_DATA] != ELFDATA2MSB ||
#else
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
#endif
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > SF_EH_MAX_PHDRS ||
	    pread(f->fd, f->phdr, eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(Elf64_Phdr)))
		return -1;
	f->nphdr = eh.e_phnum;
	for (i = 0; i < f->nphdr; i++) {
		if (f->phdr[i].p_type == PT_GNU_EH_FRAME) {
			hdr = f->phdr[i].p_vaddr;
			found = true;
		}
	}
	if (!found || !sf_eh_vaddr(f, offset, &vaddr) ||
	    !sf_eh_read(f, hdr, enc, sizeof(enc)) || enc[0] != 1 ||
	    enc[3] != SF_EH_TABLE_ENC || !sf_eh_size(enc[1]) ||
	    !sf_eh_value(f, enc[2], hdr + 4 + sf_eh_size(enc[1]), hdr, &count))
		return -1;
	ptr = hdr + 4 + sf_eh_size(enc[1]);
	table = ptr + sf_eh_size(enc[2]);
	/* The last entry starting at or below @vaddr: table[lo - 1] */
	lo = 0;
	hi = count;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (!sf_eh_read(f, table + mid * sizeof(entry), entry, sizeof(entry)))
			return -1;
		if (hdr + (int64_t)entry[0] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	if (!sf_eh_read(f, table + (lo - 1) * sizeof(entry), entry, sizeof(entry)))
		return -1;
	return sf_eh_fde_covers(f, hdr + (int64_t)entry[1], vaddr);
}

/**
 * sf_ehframe_covers() - does an FDE of a file's .eh_frame describe an address?
 * @fd: an open 64-bit ELF file of the machine's byte order.
 * @file_offset: the address, as the offset in the file of the byte it loads.
 *
 * Return: 1 if one does, 0 if none does, -1 if that cannot be told (no
 * PT_GNU_EH_FRAME, an encoding not read here, a read that failed).
 */
int sf_ehframe_covers(int fd, uint64_t file_offset)
{
	struct sf_eh_file f = { .fd = fd };

	return fd < 0 ? -1 : sf_eh_lookup(&f, file_offset);
}
