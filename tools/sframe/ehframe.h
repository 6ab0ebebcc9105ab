/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A reader of .eh_frame records (CIEs and FDEs) for sframe-gen.  Every
 * read is checked against the bytes given; errors are -EINVAL with a
 * message, or -EOPNOTSUPP for valid DWARF this reader does not handle
 * (textrel, funcrel and aligned pointers, indirect FDE addresses).
 */
#ifndef _SFRAME_GEN_EHFRAME_H
#define _SFRAME_GEN_EHFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DW_EH_PE_* pointer encodings */
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
#define DW_EH_PE_textrel	0x20
#define DW_EH_PE_datarel	0x30
#define DW_EH_PE_funcrel	0x40
#define DW_EH_PE_aligned	0x50
#define DW_EH_PE_indirect	0x80
#define DW_EH_PE_omit		0xff

/**
 * struct eh_ctx - the bytes being read and how to read them
 * @data: the section's bytes.
 * @size: how many.
 * @addr: the address of @data[0], for PC-relative pointers.
 * @data_base: base of DW_EH_PE_datarel pointers.
 * @big: big endian.
 * @ptr_size: bytes of a DW_EH_PE_absptr pointer, 4 or 8.
 * @err: where messages go.
 * @err_size: its size.
 */
struct eh_ctx {
	const uint8_t	*data;
	size_t		size;
	uint64_t	addr;
	uint64_t	data_base;
	bool		big;
	unsigned int	ptr_size;
	char		*err;
	size_t		err_size;
};

/**
 * struct eh_record - one length-delimited record
 * @off: where it starts (its length field).
 * @body: where its CIE id / CIE pointer field is.
 * @end: where it ends, the next record's start.
 * @id_size: 4, or 8 for a record with a 64-bit length.
 * @is_cie: a CIE (id 0); otherwise an FDE.
 * @cie_off: an FDE's CIE, as its pointer says (not yet checked).
 */
struct eh_record {
	size_t		off;
	size_t		body;
	size_t		end;
	unsigned int	id_size;
	bool		is_cie;
	size_t		cie_off;
};

/**
 * struct eh_cie - a parsed CIE
 * @off: where it starts.
 * @version: 1, 3 or 4.
 * @code_align: code alignment factor.
 * @data_align: data alignment factor.
 * @ra_reg: return address column.
 * @fde_enc: pointer encoding of its FDEs' addresses ('R', else absptr).
 * @lsda_enc: encoding of the FDEs' LSDA pointers ('L', else omit).
 * @has_z: augmentation data with a length (FDEs have one too).
 * @signal: 'S', a signal frame.
 * @key_b: 'B', aarch64 return addresses signed with key B.
 * @insns: initial instructions.
 * @insns_len: their length.
 */
struct eh_cie {
	size_t		off;
	uint8_t		version;
	uint64_t	code_align;
	int64_t		data_align;
	uint64_t	ra_reg;
	uint8_t		fde_enc;
	uint8_t		lsda_enc;
	bool		has_z;
	bool		signal;
	bool		key_b;
	const uint8_t	*insns;
	size_t		insns_len;
};

/**
 * struct eh_fde - a parsed FDE
 * @off: where it starts.
 * @pc_begin: the address of its code.
 * @pc_range: its length in bytes.
 * @insns: its CFA instructions.
 * @insns_len: their length.
 */
struct eh_fde {
	size_t		off;
	uint64_t	pc_begin;
	uint64_t	pc_range;
	const uint8_t	*insns;
	size_t		insns_len;
};

#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#endif

__printf(3, 4) int eh_err(const struct eh_ctx *ctx, int ret, const char *fmt, ...);
int eh_read_uleb(const struct eh_ctx *ctx, size_t *pos, size_t end, uint64_t *val);
int eh_read_sleb(const struct eh_ctx *ctx, size_t *pos, size_t end, int64_t *val);
int eh_read_u(const struct eh_ctx *ctx, size_t *pos, size_t end, unsigned int len,
	      uint64_t *val);
int eh_read_encoded(const struct eh_ctx *ctx, uint8_t enc, size_t *pos, size_t end,
		    uint64_t *val);
int eh_next_record(const struct eh_ctx *ctx, size_t *pos, struct eh_record *rec);
int eh_parse_cie(const struct eh_ctx *ctx, size_t off, struct eh_cie *cie);
int eh_parse_fde(const struct eh_ctx *ctx, const struct eh_record *rec,
		 const struct eh_cie *cie, struct eh_fde *fde);

#endif /* _SFRAME_GEN_EHFRAME_H */
