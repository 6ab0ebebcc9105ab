// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CFA program interpreter: see cfi.h.  The work is linear in the
 * program's bytes: each instruction takes at least one, rows are bounded,
 * and the state stack is a fixed array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"

#define DW_CFA_advance_loc		0x40
#define DW_CFA_offset			0x80
#define DW_CFA_restore			0xc0
#define DW_CFA_nop			0x00
#define DW_CFA_set_loc			0x01
#define DW_CFA_advance_loc1		0x02
#define DW_CFA_advance_loc2		0x03
#define DW_CFA_advance_loc4		0x04
#define DW_CFA_offset_extended		0x05
#define DW_CFA_restore_extended		0x06
#define DW_CFA_undefined		0x07
#define DW_CFA_same_value		0x08
#define DW_CFA_register			0x09
#define DW_CFA_remember_state		0x0a
#define DW_CFA_restore_state		0x0b
#define DW_CFA_def_cfa			0x0c
#define DW_CFA_def_cfa_register		0x0d
#define DW_CFA_def_cfa_offset		0x0e
#define DW_CFA_def_cfa_expression	0x0f
#define DW_CFA_expression		0x10
#define DW_CFA_offset_extended_sf	0x11
#define DW_CFA_def_cfa_sf		0x12
#define DW_CFA_def_cfa_offset_sf	0x13
#define DW_CFA_val_offset		0x14
#define DW_CFA_val_offset_sf		0x15
#define DW_CFA_val_expression		0x16
#define DW_CFA_AARCH64_negate_ra_state_with_pc 0x2c
#define DW_CFA_AARCH64_negate_ra_state	0x2d
#define DW_CFA_GNU_args_size		0x2e
#define DW_CFA_GNU_negative_offset_extended 0x2f

#define DW_OP_const1u			0x08
#define DW_OP_deref			0x06
#define DW_OP_and			0x1a
#define DW_OP_plus			0x22
#define DW_OP_shl			0x24
#define DW_OP_ge			0x2a
#define DW_OP_lit0			0x30
#define DW_OP_breg0			0x70
#define DW_OP_bregx			0x92

/* Register numbers beyond this are no DWARF register of any ABI here. */
#define CFI_MAX_REG			0xffff

struct cfi_run {
	const struct cfi_params	*p;
	const struct eh_ctx	*ctx;
	size_t			pos;
	size_t			end;
};

/**
 * cfi_state_equal() - whether two rows' rules are the same
 * @a: one.
 * @b: the other.
 *
 * Return: true if they are.
 */
bool cfi_state_equal(const struct cfi_state *a, const struct cfi_state *b)
{
	return a->cfa.kind == b->cfa.kind && a->cfa.reg == b->cfa.reg &&
	       a->cfa.off == b->cfa.off && a->cfa.plt_mask == b->cfa.plt_mask &&
	       a->cfa.plt_thresh == b->cfa.plt_thresh &&
	       a->ra.kind == b->ra.kind && a->ra.reg == b->ra.reg && a->ra.off == b->ra.off &&
	       a->fp.kind == b->fp.kind && a->fp.reg == b->fp.reg && a->fp.off == b->fp.off &&
	       a->sp.kind == b->sp.kind && a->sp.reg == b->sp.reg && a->sp.off == b->sp.off &&
	       a->ra_signed == b->ra_signed;
}

static int cfi_uleb(struct cfi_run *r, uint64_t *v)
{
	return eh_read_uleb(r->ctx, &r->pos, r->end, v);
}

static int cfi_sleb(struct cfi_run *r, int64_t *v)
{
	return eh_read_sleb(r->ctx, &r->pos, r->end, v);
}

static int cfi_reg(struct cfi_run *r, uint64_t *reg)
{
	int ret = cfi_uleb(r, reg);

	if (!ret && *reg > CFI_MAX_REG)
		return eh_err(r->ctx, -EINVAL, "register %llu out of range",
			      (unsigned long long)*reg);
	return ret;
}

/*
 * A factored offset: signed LEB128 for the _sf opcodes (@sf), else
 * unsigned, times the data alignment factor; an overflow is an error, not
 * a wrong rule.
 */
static int cfi_factored(struct cfi_run *r, bool sf, int64_t *off)
{
	uint64_t u;
	int64_t v;
	int ret = sf ? cfi_sleb(r, &v) : cfi_uleb(r, &u);

	if (ret)
		return ret;
	if (!sf) {
		if (u > INT64_MAX)
			return eh_err(r->ctx, -EINVAL, "factored offset overflows");
		v = (int64_t)u;
	}
	if (__builtin_mul_overflow(v, r->p->cie->data_align, off))
		return eh_err(r->ctx, -EINVAL, "factored offset overflows");
	return 0;
}

/*
 * The offset of DW_CFA_def_cfa and DW_CFA_def_cfa_offset: unlike a
 * register's, not factored, unless the opcode is an _sf one (@sf).
 */
static int cfi_cfa_off(struct cfi_run *r, bool sf, int64_t *off)
{
	uint64_t u;
	int ret;

	if (sf)
		return cfi_factored(r, true, off);
	ret = cfi_uleb(r, &u);
	if (ret)
		return ret;
	if (u > INT64_MAX)
		return eh_err(r->ctx, -EINVAL, "CFA offset overflows");
	*off = (int64_t)u;
	return 0;
}

/* The tracked rule of register @reg, or NULL for a register not tracked */
static struct cfi_reg_rule *cfi_tracked(struct cfi_run *r, struct cfi_state *st, uint64_t reg)
{
	if (reg == r->p->cie->ra_reg)
		return &st->ra;
	if (reg == r->p->fp_reg)
		return &st->fp;
	if (reg == r->p->sp_reg)
		return &st->sp;
	return NULL;
}

static void cfi_set(struct cfi_reg_rule *rule, uint8_t kind, uint64_t reg, int64_t off)
{
	if (!rule)
		return;
	rule->kind = kind;
	rule->reg = reg;
	rule->off = off;
}

/*
 * The rules with a factored offset, all read alike: DW_CFA_offset (@op
 * without its register bits), DW_CFA_val_offset, and their _extended, _sf
 * and GNU negative forms.  @reg is read already; the offset follows.
 */
static int cfi_offset_rule(struct cfi_run *r, struct cfi_state *st, uint8_t op, uint64_t reg)
{
	bool sf = op == DW_CFA_offset_extended_sf || op == DW_CFA_val_offset_sf;
	bool val = op == DW_CFA_val_offset || op == DW_CFA_val_offset_sf;
	int64_t off;
	int ret = cfi_factored(r, sf, &off);

	if (ret)
		return ret;
	if (op == DW_CFA_GNU_negative_offset_extended)
		off = -off;
	cfi_set(cfi_tracked(r, st, reg), val ? CFI_VAL_OFFSET : CFI_OFFSET, 0, off);
	return 0;
}

/* Reads a DWARF expression block; *@blk and *@len say where it is. */
static int cfi_block(struct cfi_run *r, size_t *blk, uint64_t *len)
{
	int ret = cfi_uleb(r, len);

	if (ret)
		return ret;
	if (*len > r->end - r->pos)
		return eh_err(r->ctx, -EINVAL, "expression at %#zx past the end", r->pos);
	*blk = r->pos;
	r->pos += *len;
	return 0;
}

/* A small literal of an expression: DW_OP_lit0..31 or DW_OP_const1u */
static bool cfi_op_lit(const uint8_t *e, size_t len, size_t *i, uint8_t *v)
{
	if (*i < len && e[*i] >= DW_OP_lit0 && e[*i] <= DW_OP_lit0 + 31) {
		*v = e[(*i)++] - DW_OP_lit0;
		return true;
	}
	if (*i + 1 < len && e[*i] == DW_OP_const1u) {
		*v = e[*i + 1];
		*i += 2;
		return true;
	}
	return false;
}

/* DW_OP_breg<n> off or DW_OP_bregx n off, alone: true with @reg and @off */
static bool cfi_breg_expr(struct cfi_run *r, size_t blk, uint64_t len, uint64_t *reg,
			  int64_t *off)
{
	struct eh_ctx sub = *r->ctx;
	size_t pos = blk, end = blk + len;
	uint8_t op;

	sub.err = NULL;
	if (!len)
		return false;
	op = r->ctx->data[pos++];
	if (op >= DW_OP_breg0 && op < DW_OP_breg0 + 32)
		*reg = op - DW_OP_breg0;
	else if (op != DW_OP_bregx || eh_read_uleb(&sub, &pos, end, reg) || *reg > CFI_MAX_REG)
		return false;
	return !eh_read_sleb(&sub, &pos, end, off) && pos == end;
}

/*
 * A register's rule by expression: "at reg + off" or "is reg + off" when
 * the expression is a lone DW_OP_breg, else not followed.
 */
static void cfi_reg_expr(struct cfi_run *r, size_t blk, uint64_t len, bool val,
			 struct cfi_reg_rule *rule)
{
	uint64_t reg;
	int64_t off;

	if (!rule)
		return;
	if (cfi_breg_expr(r, blk, len, &reg, &off))
		cfi_set(rule, val ? CFI_REG : CFI_AT_REG, reg, off);
	else
		cfi_set(rule, CFI_EXPR, 0, 0);
}

/*
 * The CFA expressions SFrame can express: DW_OP_breg<n> off; DW_OP_deref
 * (x86_64 DRAP), and GNU ld's x86_64 PLT expression
 *	DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit<M>; DW_OP_and; DW_OP_lit<K>;
 *	DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * with M + 1 a power of two (the PLT entry size).  Anything else is kept
 * as CFI_CFA_EXPR, which the emitter cannot express.
 */
static int cfi_cfa_expr(struct cfi_run *r, size_t blk, uint64_t len, struct cfi_cfa_rule *cfa)
{
	struct eh_ctx sub = *r->ctx;
	size_t pos = blk, end = blk + len;
	const uint8_t *e = r->ctx->data + blk;
	uint64_t reg;
	int64_t off, z;
	uint8_t m, k, three;
	size_t i;

	memset(cfa, 0, sizeof(*cfa));
	cfa->kind = CFI_CFA_EXPR;
	/* Errors inside an expression only mean "not a form we know". */
	sub.err = NULL;
	if (!len)
		return 0;
	if (e[0] >= DW_OP_breg0 && e[0] < DW_OP_breg0 + 32) {
		reg = e[0] - DW_OP_breg0;
		pos++;
	} else if (e[0] == DW_OP_bregx) {
		pos++;
		if (eh_read_uleb(&sub, &pos, end, &reg) || reg > CFI_MAX_REG)
			return 0;
	} else {
		return 0;
	}
	if (eh_read_sleb(&sub, &pos, end, &off))
		return 0;
	if (end - pos == 1 && r->ctx->data[pos] == DW_OP_deref) {
		cfa->kind = CFI_CFA_DEREF;
		cfa->reg = reg;
		cfa->off = off;
		return 0;
	}
	if (reg != 7 || pos >= end || r->ctx->data[pos] != DW_OP_breg0 + 16)
		return 0;
	pos++;
	if (eh_read_sleb(&sub, &pos, end, &z) || z)
		return 0;
	i = pos - blk;
	if (!cfi_op_lit(e, len, &i, &m) || i >= len || e[i++] != DW_OP_and ||
	    !cfi_op_lit(e, len, &i, &k) || i >= len || e[i++] != DW_OP_ge ||
	    !cfi_op_lit(e, len, &i, &three) || three != 3 || i + 2 != len ||
	    e[i] != DW_OP_shl || e[i + 1] != DW_OP_plus)
		return 0;
	if (m > 127 || (m & (m + 1)) || k > m)
		return 0;
	cfa->kind = CFI_CFA_PLT;
	cfa->reg = 7;
	cfa->off = off;
	cfa->plt_mask = m;
	cfa->plt_thresh = k;
	return 0;
}

static int cfi_push_row(struct cfi_run *r, struct cfi_rows *out, uint64_t loc,
			const struct cfi_state *st)
{
	unsigned int max = r->p->max_rows && r->p->max_rows < CFI_MAX_ROWS ?
			   r->p->max_rows : CFI_MAX_ROWS;
	struct cfi_row *rows;

	/* A later row at the same address replaces the earlier one. */
	if (out->n && out->rows[out->n - 1].start == loc) {
		out->n--;
		if (out->n && cfi_state_equal(&out->rows[out->n - 1].st, st))
			return 0;
		out->rows[out->n++].st = *st;
		return 0;
	}
	if (out->n && cfi_state_equal(&out->rows[out->n - 1].st, st))
		return 0;
	if (out->n >= max)
		return eh_err(r->ctx, -E2BIG, "more than %u rows", max);
	if (out->n == out->cap) {
		unsigned int cap = out->cap ? out->cap * 2 : 16;

		rows = realloc(out->rows, (size_t)cap * sizeof(*rows));
		if (!rows)
			return eh_err(r->ctx, -ENOMEM, "out of memory");
		out->rows = rows;
		out->cap = cap;
	}
	out->rows[out->n].start = loc;
	out->rows[out->n].st = *st;
	out->n++;
	return 0;
}

/*
 * Runs the program in [r->pos, r->end).  @init is the CIE's state for
 * DW_CFA_restore (NULL while running the CIE itself); @out, NULL for a
 * CIE, gets the rows of [0, @range).
 */
static int cfi_exec(struct cfi_run *r, struct cfi_state *st, const struct cfi_state *init,
		    struct cfi_rows *out, uint64_t range)
{
	static const struct cfi_reg_rule same = { .kind = CFI_SAME };
	struct cfi_state stack[CFI_MAX_STATE_DEPTH];
	const struct eh_cie *cie = r->p->cie;
	unsigned int depth = 0;
	struct cfi_reg_rule *rule;
	uint64_t loc = 0, u = 0, reg = 0, reg2 = 0, delta, len = 0;
	size_t op_at, blk;
	int64_t off = 0;
	uint8_t op;
	int ret;

	while (r->pos < r->end) {
		op_at = r->pos;
		op = r->ctx->data[r->pos++];
		ret = 0;
		delta = 0;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			delta = op & 0x3f;
			goto advance;
		case DW_CFA_offset:
			ret = cfi_offset_rule(r, st, DW_CFA_offset, op & 0x3f);
			goto next;
		case DW_CFA_restore:
			reg = op & 0x3f;
			goto restore;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			ret = eh_read_u(r->ctx, &r->pos, r->end, 1U << (op - DW_CFA_advance_loc1),
					&delta);
			if (ret)
				break;
advance:
			if (!out)
				return eh_err(r->ctx, -EOPNOTSUPP,
					      "CIE at %#zx: advance in initial instructions",
					      cie->off);
			if (__builtin_mul_overflow(delta, cie->code_align, &delta))
				delta = UINT64_MAX;
			if (delta) {
				ret = cfi_push_row(r, out, loc, st);
				if (ret)
					return ret;
				/* Rows past the FDE's code describe nothing. */
				if (delta >= range - loc)
					return 0;
				loc += delta;
			}
			break;
		case DW_CFA_set_loc:
			return eh_err(r->ctx, -EOPNOTSUPP, "DW_CFA_set_loc at %#zx not supported",
				      op_at);
		case DW_CFA_offset_extended:
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			ret = cfi_reg(r, &reg);
			if (!ret)
				ret = cfi_offset_rule(r, st, op, reg);
			break;
		case DW_CFA_restore_extended:
			ret = cfi_reg(r, &reg);
			if (ret)
				break;
restore:
			rule = cfi_tracked(r, st, reg);
			if (rule)
				*rule = !init ? same : reg == cie->ra_reg ? init->ra :
					reg == r->p->fp_reg ? init->fp : init->sp;
			break;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			ret = cfi_reg(r, &reg);
			if (!ret)
				cfi_set(cfi_tracked(r, st, reg), op == DW_CFA_undefined ?
					CFI_UNDEF : CFI_SAME, 0, 0);
			break;
		case DW_CFA_register:
			ret = cfi_reg(r, &reg);
			if (!ret)
				ret = cfi_reg(r, &reg2);
			if (!ret)
				cfi_set(cfi_tracked(r, st, reg), CFI_REG, reg2, 0);
			break;
		case DW_CFA_remember_state:
			if (depth == CFI_MAX_STATE_DEPTH)
				return eh_err(r->ctx, -EINVAL,
					      "remember_state at %#zx nested too deep", op_at);
			stack[depth++] = *st;
			break;
		case DW_CFA_restore_state:
			if (!depth)
				return eh_err(r->ctx, -EINVAL,
					      "restore_state at %#zx without remember", op_at);
			*st = stack[--depth];
			break;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
			ret = cfi_reg(r, &reg);
			if (!ret)
				ret = cfi_cfa_off(r, op == DW_CFA_def_cfa_sf, &off);
			if (ret)
				break;
			memset(&st->cfa, 0, sizeof(st->cfa));
			st->cfa.kind = CFI_CFA_REG;
			st->cfa.reg = reg;
			st->cfa.off = off;
			break;
		case DW_CFA_def_cfa_register:
			ret = cfi_reg(r, &reg);
			if (ret)
				break;
			if (st->cfa.kind != CFI_CFA_REG)
				return eh_err(r->ctx, -EINVAL,
					      "DW_CFA_def_cfa_register at %#zx without a register rule",
					      op_at);
			st->cfa.reg = reg;
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
			ret = cfi_cfa_off(r, op == DW_CFA_def_cfa_offset_sf, &off);
			if (ret)
				break;
			if (st->cfa.kind != CFI_CFA_REG)
				return eh_err(r->ctx, -EINVAL,
					      "CFA offset at %#zx without a register rule", op_at);
			st->cfa.off = off;
			break;
		case DW_CFA_def_cfa_expression:
			ret = cfi_block(r, &blk, &len);
			if (!ret)
				ret = cfi_cfa_expr(r, blk, len, &st->cfa);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			ret = cfi_reg(r, &reg);
			if (!ret)
				ret = cfi_block(r, &blk, &len);
			if (!ret)
				cfi_reg_expr(r, blk, len, op == DW_CFA_val_expression,
					     cfi_tracked(r, st, reg));
			break;
		case DW_CFA_GNU_args_size:
			ret = cfi_uleb(r, &u);
			break;
		case DW_CFA_AARCH64_negate_ra_state:
			if (!r->p->aarch64)
				return eh_err(r->ctx, -EOPNOTSUPP,
					      "GNU_window_save at %#zx not supported", op_at);
			st->ra_signed = !st->ra_signed;
			break;
		case DW_CFA_AARCH64_negate_ra_state_with_pc:
			return eh_err(r->ctx, -EOPNOTSUPP, "CFA opcode %#x at %#zx not supported",
				      op, op_at);
		default:
			return eh_err(r->ctx, -EINVAL, "unknown CFA opcode %#x at %#zx", op, op_at);
		}
next:
		if (ret)
			return ret;
	}
	if (out)
		return cfi_push_row(r, out, loc, st);
	return 0;
}

static int cfi_bounds(const struct cfi_params *p, const uint8_t *insns, size_t len,
		      struct cfi_run *r)
{
	const struct eh_ctx *ctx = p->ctx;

	r->p = p;
	r->ctx = ctx;
	if (insns < ctx->data || (size_t)(insns - ctx->data) > ctx->size ||
	    len > ctx->size - (size_t)(insns - ctx->data))
		return eh_err(ctx, -EINVAL, "instructions outside the section");
	r->pos = insns - ctx->data;
	r->end = r->pos + len;
	return 0;
}

/**
 * cfi_run_cie() - the state a CIE's initial instructions make
 * @p: the parameters; @p->cie is the CIE.
 * @init: the state, for FDEs of the CIE to start from.
 *
 * Return: 0, or an error (cfi.h) with a message in @p->ctx->err.
 */
int cfi_run_cie(const struct cfi_params *p, struct cfi_state *init)
{
	struct cfi_run r;
	int ret;

	memset(init, 0, sizeof(*init));
	ret = cfi_bounds(p, p->cie->insns, p->cie->insns_len, &r);
	if (ret)
		return ret;
	return cfi_exec(&r, init, NULL, NULL, 0);
}

/**
 * cfi_run_fde() - the rows of an FDE's code
 * @p: the parameters.
 * @init: its CIE's state, from cfi_run_cie().
 * @insns: the FDE's instructions, inside @p->ctx's bytes.
 * @len: their length.
 * @range: the FDE's code length: rows past it are dropped.
 * @out: the rows (appended to; cfi_rows_free() frees them).
 *
 * Return: 0, or an error (cfi.h) with a message in @p->ctx->err.
 */
int cfi_run_fde(const struct cfi_params *p, const struct cfi_state *init,
		const uint8_t *insns, size_t len, uint64_t range, struct cfi_rows *out)
{
	struct cfi_state st = *init;
	struct cfi_run r;
	int ret;

	out->n = 0;
	if (!range)
		return eh_err(p->ctx, -EINVAL, "FDE of no code");
	ret = cfi_bounds(p, insns, len, &r);
	if (ret)
		return ret;
	return cfi_exec(&r, &st, init, out, range);
}

/**
 * cfi_rows_free() - free the rows of cfi_run_fde()
 * @rows: the rows.
 */
void cfi_rows_free(struct cfi_rows *rows)
{
	free(rows->rows);
	memset(rows, 0, sizeof(*rows));
}
