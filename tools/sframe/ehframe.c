// SPDX-License-Identifier: GPL-2.0-only
/*
 * .eh_frame records: see ehframe.h.  The section is hostile input: each
 * read checks the record's bounds first, and a record's fields must lie
 * inside the record.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ehframe.h"

/**
 * eh_err() - record a message in ctx->err and return @ret
 * @ctx: the context.
 * @ret: the error to return (negative).
 * @fmt: printf format of the message.
 *
 * Return: @ret.
 */
int eh_err(const struct eh_ctx *ctx, int ret, const char *fmt, ...)
{
	va_list ap;

	if (ctx->err && ctx->err_size) {
		va_start(ap, fmt);
		vsnprintf(ctx->err, ctx->err_size, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/**
 * eh_read_u() - read an unsigned integer of @len bytes in the section's order
 * @ctx: the context.
 * @pos: where; advanced past it.
 * @end: the end of the record it belongs to.
 * @len: 1, 2, 4 or 8.
 * @val: the value.
 *
 * Return: 0, or -EINVAL if it does not fit before @end.
 */
int eh_read_u(const struct eh_ctx *ctx, size_t *pos, size_t end, unsigned int len,
	      uint64_t *val)
{
	uint64_t v = 0;
	unsigned int i;

	*val = 0;
	if (end > ctx->size || *pos > end || end - *pos < len)
		return eh_err(ctx, -EINVAL, "%u-byte field at %#zx past the end", len, *pos);
	for (i = 0; i < len; i++)
		v = (v << 8) | ctx->data[*pos + (ctx->big ? i : len - 1 - i)];
	*pos += len;
	*val = v;
	return 0;
}

/*
 * Unsigned and (@sign) signed LEB128 differ only in what the 10th byte
 * may hold beside bit 63, and in the sign extension: one loop reads both.
 */
static int eh_read_leb(const struct eh_ctx *ctx, size_t *pos, size_t end, bool sign,
		       uint64_t *val)
{
	unsigned int shift = 0;
	uint64_t v = 0;
	uint8_t b;

	if (end > ctx->size)
		end = ctx->size;
	do {
		if (*pos >= end)
			return eh_err(ctx, -EINVAL, "LEB128 number at %#zx past the end", *pos);
		b = ctx->data[(*pos)++];
		/*
		 * The 10th byte holds bit 63 only: the rest must be zero, or
		 * for a signed number copies of that bit.
		 */
		if (shift >= 64 ||
		    (shift == 63 && (b & 0x7f) != 0 && (b & 0x7f) != (sign ? 0x7f : 1)))
			return eh_err(ctx, -EINVAL, "LEB128 number at %#zx too large", *pos - 1);
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	*val = v;
	return 0;
}

/**
 * eh_read_uleb() - read an unsigned LEB128 number
 * @ctx: the context.
 * @pos: where; advanced past it.
 * @end: the end of the record it belongs to.
 * @val: the value.
 *
 * Return: 0, or -EINVAL if it runs past @end or does not fit 64 bits.
 */
int eh_read_uleb(const struct eh_ctx *ctx, size_t *pos, size_t end, uint64_t *val)
{
	return eh_read_leb(ctx, pos, end, false, val);
}

/**
 * eh_read_sleb() - read a signed LEB128 number
 * @ctx: the context.
 * @pos: where; advanced past it.
 * @end: the end of the record it belongs to.
 * @val: the value.
 *
 * Return: 0, or -EINVAL if it runs past @end or does not fit 64 bits.
 */
int eh_read_sleb(const struct eh_ctx *ctx, size_t *pos, size_t end, int64_t *val)
{
	uint64_t v;
	int ret = eh_read_leb(ctx, pos, end, true, &v);

	if (!ret)
		*val = (int64_t)v;
	return ret;
}

/**
 * eh_read_encoded() - read a pointer of DW_EH_PE_* encoding @enc
 * @ctx: the context; PC-relative pointers are relative to their own address.
 * @enc: the encoding.
 * @pos: where; advanced past it.
 * @end: the end of the record it belongs to.
 * @val: the pointer, resolved (indirect pointers: the address of the pointer).
 *
 * Return: 0; -EINVAL for an unknown encoding or a pointer past @end;
 *	-EOPNOTSUPP for textrel, funcrel and aligned, whose bases an
 *	.eh_frame reader does not know.
 */
int eh_read_encoded(const struct eh_ctx *ctx, uint8_t enc, size_t *pos, size_t end,
		    uint64_t *val)
{
	size_t start = *pos;
	uint64_t v = 0;
	int64_t s = 0;
	int ret;

	if (enc == DW_EH_PE_omit)
		return eh_err(ctx, -EINVAL, "pointer at %#zx has encoding omit", start);
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		ret = eh_read_u(ctx, pos, end, ctx->ptr_size, &v);
		break;
	case DW_EH_PE_uleb128:
		ret = eh_read_uleb(ctx, pos, end, &v);
		break;
	case DW_EH_PE_udata2:
		ret = eh_read_u(ctx, pos, end, 2, &v);
		break;
	case DW_EH_PE_udata4:
		ret = eh_read_u(ctx, pos, end, 4, &v);
		break;
	case DW_EH_PE_udata8:
		ret = eh_read_u(ctx, pos, end, 8, &v);
		break;
	case DW_EH_PE_sleb128:
		ret = eh_read_sleb(ctx, pos, end, &s);
		v = s;
		break;
	case DW_EH_PE_sdata2:
		ret = eh_read_u(ctx, pos, end, 2, &v);
		v = (int64_t)(int16_t)v;
		break;
	case DW_EH_PE_sdata4:
		ret = eh_read_u(ctx, pos, end, 4, &v);
		v = (int64_t)(int32_t)v;
		break;
	case DW_EH_PE_sdata8:
		ret = eh_read_u(ctx, pos, end, 8, &v);
		break;
	default:
		return eh_err(ctx, -EINVAL, "unknown pointer format %#x at %#zx", enc, start);
	}
	if (ret)
		return ret;
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += ctx->addr + start;
		break;
	case DW_EH_PE_datarel:
		v += ctx->data_base;
		break;
	case DW_EH_PE_textrel:
		return eh_err(ctx, -EOPNOTSUPP, "textrel pointer at %#zx not supported", start);
	case DW_EH_PE_funcrel:
		return eh_err(ctx, -EOPNOTSUPP, "funcrel pointer at %#zx not supported", start);
	case DW_EH_PE_aligned:
		return eh_err(ctx, -EOPNOTSUPP, "aligned pointer at %#zx not supported", start);
	default:
		return eh_err(ctx, -EINVAL, "unknown pointer application %#x at %#zx", enc,
			      start);
	}
	/* Only 32-bit pointers of ELF32 objects wrap at 4 GiB. */
	if (ctx->ptr_size == 4)
		v &= 0xffffffff;
	*val = v;
	return 0;
}

/**
 * eh_next_record() - the record at *@pos
 * @ctx: the context.
 * @pos: where it starts; advanced to the next one.
 * @rec: the record's framing.
 *
 * Return: 1 for a record, 0 at the end (a zero terminator or no bytes
 *	left), -EINVAL for a length past the end of the section.
 */
int eh_next_record(const struct eh_ctx *ctx, size_t *pos, struct eh_record *rec)
{
	size_t p = *pos;
	uint64_t len = 0, id = 0;
	int ret;

	if (p >= ctx->size)
		return 0;
	ret = eh_read_u(ctx, &p, ctx->size, 4, &len);
	if (ret)
		return eh_err(ctx, -EINVAL, "truncated record length at %#zx", *pos);
	if (!len)
		return 0;
	rec->id_size = 4;
	if (len == 0xffffffff) {
		if (eh_read_u(ctx, &p, ctx->size, 8, &len))
			return eh_err(ctx, -EINVAL, "truncated 64-bit length at %#zx", *pos);
		rec->id_size = 8;
	} else if (len >= 0xfffffff0) {
		return eh_err(ctx, -EINVAL, "reserved length %#llx at %#zx",
			      (unsigned long long)len, *pos);
	}
	if (len > ctx->size - p)
		return eh_err(ctx, -EINVAL, "record at %#zx: length %#llx past the end",
			      *pos, (unsigned long long)len);
	rec->off = *pos;
	rec->body = p;
	rec->end = p + len;
	if (eh_read_u(ctx, &p, rec->end, rec->id_size, &id))
		return eh_err(ctx, -EINVAL, "record at %#zx too short for its CIE id", *pos);
	rec->is_cie = !id;
	rec->cie_off = 0;
	if (!rec->is_cie) {
		/*
		 * The pointer counts back from its own field; one out of range
		 * spoils its FDE only (eh_parse_cie() refuses SIZE_MAX).
		 */
		rec->cie_off = id > rec->body ? SIZE_MAX : rec->body - id;
	}
	*pos = rec->end;
	return 1;
}

/* Reads the augmentation data of a CIE with 'z' */
static int eh_cie_aug_data(const struct eh_ctx *ctx, struct eh_cie *cie, const char *aug,
			   size_t *pos, size_t end)
{
	uint64_t len, v;
	size_t data_end;
	uint8_t enc;
	int ret;

	ret = eh_read_uleb(ctx, pos, end, &len);
	if (ret)
		return ret;
	if (len > end - *pos)
		return eh_err(ctx, -EINVAL, "CIE at %#zx: augmentation data past the end",
			      cie->off);
	data_end = *pos + len;
	for (aug++; *aug; aug++) {
		switch (*aug) {
		case 'R':
		case 'L':
		case 'P':
			if (*pos >= data_end)
				return eh_err(ctx, -EINVAL,
					      "CIE at %#zx: augmentation data too short", cie->off);
			enc = ctx->data[(*pos)++];
			if (*aug == 'R') {
				cie->fde_enc = enc;
			} else if (*aug == 'L') {
				cie->lsda_enc = enc;
			} else if (enc != DW_EH_PE_omit) {
				/* The personality routine is not ours: only its size counts. */
				ret = eh_read_encoded(ctx, enc & ~DW_EH_PE_indirect, pos, data_end,
						      &v);
				if (ret == -EOPNOTSUPP && (enc & 0x70) != DW_EH_PE_aligned)
					ret = 0;
				if (ret)
					return ret;
			}
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B':
			cie->key_b = true;
			break;
		default:
			/* The length says where the data ends: the rest is not ours. */
			*pos = data_end;
			return 0;
		}
	}
	*pos = data_end;
	return 0;
}

/**
 * eh_parse_cie() - parse the CIE at @off
 * @ctx: the context.
 * @off: where it starts (its length field).
 * @cie: the parsed CIE.
 *
 * Return: 0; -EINVAL if it is malformed, not a CIE, or of an unknown
 *	version or augmentation; -EOPNOTSUPP for pointer encodings not read.
 */
int eh_parse_cie(const struct eh_ctx *ctx, size_t off, struct eh_cie *cie)
{
	struct eh_record rec;
	size_t pos = off, end, aug_len;
	const char *aug;
	uint64_t v = 0, u = 0;
	int64_t s = 0;
	int ret;

	if (off >= ctx->size)
		return eh_err(ctx, -EINVAL, "CIE pointer out of the section");
	ret = eh_next_record(ctx, &pos, &rec);
	if (ret < 0)
		return ret;
	if (!ret)
		return eh_err(ctx, -EINVAL, "CIE at %#zx is a terminator", off);
	if (!rec.is_cie)
		return eh_err(ctx, -EINVAL, "CIE at %#zx is an FDE", off);
	memset(cie, 0, sizeof(*cie));
	cie->off = off;
	cie->fde_enc = DW_EH_PE_absptr;
	cie->lsda_enc = DW_EH_PE_omit;
	end = rec.end;
	pos = rec.body + rec.id_size;
	if (eh_read_u(ctx, &pos, end, 1, &v))
		return eh_err(ctx, -EINVAL, "CIE at %#zx: truncated", off);
	cie->version = v;
	if (v != 1 && v != 3 && v != 4)
		return eh_err(ctx, -EINVAL, "CIE at %#zx: version %u not known", off,
			      cie->version);
	aug = (const char *)ctx->data + pos;
	aug_len = strnlen(aug, end - pos);
	if (aug_len == end - pos)
		return eh_err(ctx, -EINVAL, "CIE at %#zx: augmentation string not terminated",
			      off);
	pos += aug_len + 1;
	cie->has_z = aug[0] == 'z';
	if (aug[0] == 'e' && aug[1] == 'h') {
		/* Old GCC's "eh": a pointer-sized word of EH data follows. */
		if (end - pos < ctx->ptr_size)
			return eh_err(ctx, -EINVAL, "CIE at %#zx: truncated", off);
		pos += ctx->ptr_size;
		aug += 2;
	}
	if (*aug && !cie->has_z)
		return eh_err(ctx, -EINVAL, "CIE at %#zx: augmentation \"%s\" not known", off,
			      aug);
	if (cie->version == 4) {
		/* address_size, segment_selector_size */
		if (eh_read_u(ctx, &pos, end, 1, &v) || eh_read_u(ctx, &pos, end, 1, &u))
			return eh_err(ctx, -EINVAL, "CIE at %#zx: truncated", off);
		if (v != ctx->ptr_size || u)
			return eh_err(ctx, -EINVAL,
				      "CIE at %#zx: address size %u, segment size %u", off,
				      (unsigned int)v, (unsigned int)u);
	}
	ret = eh_read_uleb(ctx, &pos, end, &cie->code_align);
	if (!ret)
		ret = eh_read_sleb(ctx, &pos, end, &s);
	if (ret)
		return ret;
	cie->data_align = s;
	if (cie->version == 1)
		ret = eh_read_u(ctx, &pos, end, 1, &cie->ra_reg);
	else
		ret = eh_read_uleb(ctx, &pos, end, &cie->ra_reg);
	if (ret)
		return ret;
	if (!cie->code_align)
		return eh_err(ctx, -EINVAL, "CIE at %#zx: code alignment factor 0", off);
	if (cie->has_z) {
		ret = eh_cie_aug_data(ctx, cie, aug, &pos, end);
		if (ret)
			return ret;
	}
	if (cie->fde_enc == DW_EH_PE_omit || (cie->fde_enc & DW_EH_PE_indirect))
		return eh_err(ctx, -EINVAL, "CIE at %#zx: FDE address encoding %#x", off,
			      cie->fde_enc);
	cie->insns = ctx->data + pos;
	cie->insns_len = end - pos;
	return 0;
}

/**
 * eh_parse_fde() - parse an FDE's fields
 * @ctx: the context.
 * @rec: its record, from eh_next_record().
 * @cie: its CIE, from eh_parse_cie() of @rec->cie_off.
 * @fde: the parsed FDE.
 *
 * Return: 0, or the errors of eh_read_encoded(); -EINVAL for a record too
 *	short for its fields or a range that wraps around.
 */
int eh_parse_fde(const struct eh_ctx *ctx, const struct eh_record *rec,
		 const struct eh_cie *cie, struct eh_fde *fde)
{
	size_t pos = rec->body + rec->id_size;
	uint64_t len;
	int ret;

	fde->off = rec->off;
	ret = eh_read_encoded(ctx, cie->fde_enc, &pos, rec->end, &fde->pc_begin);
	if (!ret)
		ret = eh_read_encoded(ctx, cie->fde_enc & 0x0f, &pos, rec->end, &fde->pc_range);
	if (ret)
		return ret;
	if (fde->pc_begin + fde->pc_range < fde->pc_begin)
		return eh_err(ctx, -EINVAL, "FDE at %#zx: range wraps around", rec->off);
	if (cie->has_z) {
		ret = eh_read_uleb(ctx, &pos, rec->end, &len);
		if (ret)
			return ret;
		if (len > rec->end - pos)
			return eh_err(ctx, -EINVAL, "FDE at %#zx: augmentation data past the end",
				      rec->off);
		pos += len;
	}
	fde->insns = ctx->data + pos;
	fde->insns_len = rec->end - pos;
	return 0;
}
