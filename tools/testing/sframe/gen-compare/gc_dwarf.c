// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF CFI rows from GNU readelf's two listings of .eh_frame.  See
 * gc_dwarf.h.
 *
 * The interpreted table (frames-interp) is the oracle: readelf, not this
 * file, runs the CFA programs.  The table leaves out three things SFrame
 * needs, which are read from the raw listing (frames) of the same entry,
 * following only the instructions that touch them:
 *  - what an "exp"/"vexp" cell's expression is (DW_OP_bregN off [deref]
 *    is expressible, anything else is not);
 *  - whether a "u" RA is undefined (the outermost frame) or merely has no
 *    rule (the RA is still in the link register);
 *  - aarch64's RA signing state (DW_CFA_AARCH64_negate_ra_state), which
 *    the table does not show at all.
 * Both listings are hostile input: a line that does not parse ends the
 * run with its number, and the two must agree where they overlap.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_dwarf.h"

#define fallthrough	__attribute__((__fallthrough__))

static const char *const nx_names[GC_NX_COUNT] = {
	[GC_NX_NONE] = "expressible",
	[GC_NX_CFA_EXPR] = "cfa-expression",
	[GC_NX_CFA_ALIGN] = "cfa-unaligned",
	[GC_NX_RA_UNCHANGED] = "ra-unchanged-x86",
	[GC_NX_RA_EXPR] = "ra-expression",
	[GC_NX_RA_VAL] = "ra-val-offset",
	[GC_NX_FP_EXPR] = "fp-expression",
	[GC_NX_FP_VAL] = "fp-val-offset",
	[GC_NX_RANGE] = "out-of-range",
	[GC_NX_PAUTH_PC] = "pauth-lr",
	[GC_NX_SP_ELSEWHERE] = "sp-elsewhere",
	[GC_NX_RA_ABOVE_CFA] = "ra-above-cfa",
	[GC_NX_CFA_BEFORE_SP] = "cfa-before-sp",
	[GC_NX_ORACLE] = "oracle-mismatch",
};

const char *gc_nx_name(unsigned int nx)
{
	return nx < GC_NX_COUNT ? nx_names[nx] : "?";
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		gc_fail("out of memory");
	p = realloc(p, n * size > 0 ? n * size : 1);
	if (!p)
		gc_fail("out of memory");
	return p;
}

/* ---- what the raw listing tells ---------------------------------------- */

enum rule_kind { RK_INIT, RK_UNDEF, RK_EXPR, RK_VEXPR, RK_OTHER };

/* DW_OP_bregN off, optionally then DW_OP_deref: all SFrame can say */
struct xexpr {
	bool	ok;
	bool	deref;
	u32	reg;
	s64	off;
};

struct rstate {
	u8		ra;
	u8		fp;
	bool		cfa_expr;
	bool		pac;
	bool		pac_pc;
	struct xexpr	ra_x;
	struct xexpr	fp_x;
	struct xexpr	cfa_x;
};

struct snap {
	u64		loc;
	struct rstate	st;
};

struct raw_entry {
	u64		off;
	bool		cie;
	u64		cie_off;
	u64		lo;
	u64		hi;
	char		aug[16];
	u32		ra_col;
	struct rstate	init;
	struct snap	*snaps;
	size_t		nsnaps;
};

struct regname {
	char	name[16];
	u32	num;
};

struct parser {
	const struct gc_abi	*abi;
	const char		*path;
	unsigned long		lineno;
	struct raw_entry	*raw;
	size_t			nraw;
	struct regname		*names;
	size_t			nnames;
	struct gc_dwarf		*out;
	size_t			cap;
};

static __noreturn void bad_line(struct parser *p, const char *what)
{
	gc_fail("%s:%lu: %s", p->path, p->lineno, what);
}

static void learn_name(struct parser *p, const char *name, size_t len, u32 num)
{
	size_t i;

	if (!len || len >= sizeof(p->names[0].name))
		return;
	for (i = 0; i < p->nnames; i++)
		if (strlen(p->names[i].name) == len && !memcmp(p->names[i].name, name, len))
			return;
	p->names = xrealloc(p->names, p->nnames + 1, sizeof(*p->names));
	memcpy(p->names[p->nnames].name, name, len);
	p->names[p->nnames].name[len] = 0;
	p->names[p->nnames++].num = num;
}

/* A register's number by the name readelf gives it; "rN" where it has none (s390x) */
static bool name_num(const struct parser *p, const char *name, size_t len, u32 *num)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; i < p->nnames; i++)
		if (strlen(p->names[i].name) == len && !memcmp(p->names[i].name, name, len)) {
			*num = p->names[i].num;
			return true;
		}
	if (len < 2 || len > 4 || name[0] != 'r')
		return false;
	for (i = 1; i < len; i++) {
		if (!isdigit((unsigned char)name[i]))
			return false;
		v = v * 10 + name[i] - '0';
	}
	*num = v;
	return true;
}

/* Every "rN (name)" and "DW_OP_bregN (name)" of a raw line teaches a name. */
static void learn_names(struct parser *p, const char *line)
{
	const char *s = line, *e;
	unsigned long num;
	char *end;

	while ((s = strpbrk(s, "rg"))) {
		if ((s[0] == 'r' && (s == line || s[-1] == ' ')) ||
		    (s[0] == 'g' && s - line >= 9 && !strncmp(s - 9, "DW_OP_breg", 10))) {
			if (isdigit((unsigned char)s[1])) {
				errno = 0;
				num = strtoul(s + 1, &end, 10);
				e = strchr(end, ')');
				if (!errno && num <= UINT32_MAX && !strncmp(end, " (", 2) && e)
					learn_name(p, end + 2, e - (end + 2), num);
			}
		}
		s++;
	}
}

static bool parse_s64(const char **s, s64 *v)
{
	char *end;

	errno = 0;
	*v = strtoll(*s, &end, 10);
	if (errno || end == *s)
		return false;
	*s = end;
	return true;
}

/* "(DW_OP_bregN (name): OFF[; DW_OP_deref])" */
static struct xexpr parse_expr(const char *s)
{
	struct xexpr x = { 0 };
	unsigned long reg;
	char *end;

	s = strstr(s, "(DW_OP_");
	if (!s || strncmp(s, "(DW_OP_breg", 11) || !isdigit((unsigned char)s[11]))
		return x;
	errno = 0;
	reg = strtoul(s + 11, &end, 10);
	if (errno || reg > UINT32_MAX)
		return x;
	s = end;
	if (s[0] == ' ' && s[1] == '(') {
		s = strchr(s, ')');
		if (!s)
			return x;
		s++;
	}
	if (strncmp(s, ": ", 2))
		return x;
	s += 2;
	if (!parse_s64(&s, &x.off))
		return x;
	if (!strcmp(s, "; DW_OP_deref)"))
		x.deref = true;
	else if (strcmp(s, ")"))
		return x;
	x.reg = reg;
	x.ok = true;
	return x;
}

static struct raw_entry *raw_find(struct parser *p, u64 off)
{
	size_t lo = 0, hi = p->nraw, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->raw[mid].off == off)
			return &p->raw[mid];
		if (p->raw[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void raw_snap(struct raw_entry *e, u64 loc, const struct rstate *st)
{
	if (e->nsnaps && e->snaps[e->nsnaps - 1].loc == loc) {
		e->snaps[e->nsnaps - 1].st = *st;
		return;
	}
	e->snaps = xrealloc(e->snaps, e->nsnaps + 1, sizeof(*e->snaps));
	e->snaps[e->nsnaps].loc = loc;
	e->snaps[e->nsnaps++].st = *st;
}

#define MAX_REMEMBER	64

struct raw_run {
	struct raw_entry	*e;
	const struct raw_entry	*cie;
	struct rstate		cur;
	u64			loc;
	struct rstate		stack[MAX_REMEMBER];
	unsigned int		depth;
};

static void raw_insn(struct parser *p, struct raw_run *r, const char *s)
{
	const struct rstate *init = r->cie ? &r->cie->init : NULL;
	u32 ra_col = r->cie ? r->cie->ra_col : r->e->ra_col;
	const char *colon, *t;
	unsigned long reg;
	char *end;
	u64 loc;

	if (!strncmp(s, "DW_CFA_advance_loc", 18) || !strncmp(s, "DW_CFA_set_loc", 14)) {
		t = strstr(s, " to ");
		t = t ? t + 4 : strchr(s, ':');
		if (!t || (*t == ':' && !*++t))
			bad_line(p, "advance without a location");
		errno = 0;
		loc = strtoull(t, &end, 16);
		if (errno || end == t)
			bad_line(p, "bad location");
		if (r->e->cie)
			bad_line(p, "a CIE advances the location");
		r->loc = loc;
		return;
	}
	if (!strcmp(s, "DW_CFA_remember_state")) {
		if (r->depth == MAX_REMEMBER)
			bad_line(p, "remember_state nested too deep");
		r->stack[r->depth++] = r->cur;
		return;
	}
	if (!strcmp(s, "DW_CFA_restore_state")) {
		if (!r->depth)
			bad_line(p, "restore_state without remember_state");
		r->cur = r->stack[--r->depth];
		return;
	}
	if (!strncmp(s, "DW_CFA_def_cfa_expression", 25)) {
		r->cur.cfa_expr = true;
		r->cur.cfa_x = parse_expr(s + 25);
		return;
	}
	if (!strncmp(s, "DW_CFA_def_cfa:", 15) || !strncmp(s, "DW_CFA_def_cfa_sf:", 18) ||
	    !strncmp(s, "DW_CFA_def_cfa_register:", 24)) {
		r->cur.cfa_expr = false;
		return;
	}
	if (!strncmp(s, "DW_CFA_AARCH64_negate_ra_state_with_pc", 38)) {
		r->cur.pac = !r->cur.pac;
		r->cur.pac_pc = true;
		return;
	}
	if (!strcmp(s, "DW_CFA_AARCH64_negate_ra_state") ||
	    (!strcmp(s, "DW_CFA_GNU_window_save") && p->abi->ra == 30)) {
		r->cur.pac = !r->cur.pac;
		return;
	}
	/* "DW_CFA_op: rN (name)...": only the RA column and the FP matter */
	colon = strstr(s, ": r");
	if (!colon || !isdigit((unsigned char)colon[3]))
		return;
	errno = 0;
	reg = strtoul(colon + 3, &end, 10);
	if (errno || (reg != ra_col && reg != p->abi->fp))
		return;
	u8 kind, *slot = reg == ra_col ? &r->cur.ra : &r->cur.fp;
	struct xexpr *x = reg == ra_col ? &r->cur.ra_x : &r->cur.fp_x;

	if (!strncmp(s, "DW_CFA_restore", 14)) {
		if (!init)
			bad_line(p, "restore in a CIE");
		*slot = reg == ra_col ? init->ra : init->fp;
		*x = reg == ra_col ? init->ra_x : init->fp_x;
		return;
	}
	if (!strncmp(s, "DW_CFA_undefined:", 17)) {
		kind = RK_UNDEF;
	} else if (!strncmp(s, "DW_CFA_expression:", 18)) {
		kind = RK_EXPR;
		*x = parse_expr(end);
	} else if (!strncmp(s, "DW_CFA_val_expression:", 22)) {
		kind = RK_VEXPR;
		*x = parse_expr(end);
	} else {
		kind = RK_OTHER;
	}
	*slot = kind;
}

static void raw_load(struct parser *p, const char *path)
{
	FILE *f = fopen(path, "r");
	struct raw_run run = { 0 };
	bool in_eh = false;
	char line[4096], kind[16];
	unsigned long long off, len, id, lo, hi, cie;

	if (!f)
		gc_fail("%s: %s", path, strerror(errno));
	p->path = path;
	p->lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = line;
		size_t n = strlen(line);

		p->lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		else if (n == sizeof(line) - 1)
			bad_line(p, "line too long");
		if (!strncmp(line, "Contents of the ", 16)) {
			in_eh = !strcmp(line, "Contents of the .eh_frame section:");
			run.e = NULL;
			continue;
		}
		if (!in_eh)
			continue;
		if (isxdigit((unsigned char)line[0])) {
			run.e = NULL;
			if (strstr(line, "ZERO terminator"))
				continue;
			if (sscanf(line, "%llx %llx %llx %15s", &off, &len, &id, kind) != 4)
				bad_line(p, "entry header");
			if (p->nraw && off <= p->raw[p->nraw - 1].off)
				bad_line(p, "entries out of order");
			p->raw = xrealloc(p->raw, p->nraw + 1, sizeof(*p->raw));
			run.e = &p->raw[p->nraw++];
			memset(run.e, 0, sizeof(*run.e));
			run.e->off = off;
			memset(&run.cur, 0, sizeof(run.cur));
			run.depth = 0;
			run.cie = NULL;
			if (!strcmp(kind, "CIE")) {
				run.e->cie = true;
				run.e->ra_col = UINT32_MAX;
			} else if (!strcmp(kind, "FDE") &&
				   sscanf(line, "%*x %*x %*x FDE cie=%llx pc=%llx..%llx",
					  &cie, &lo, &hi) == 3) {
				run.e->cie_off = cie;
				run.e->lo = lo;
				run.e->hi = hi;
				run.cie = raw_find(p, cie);
				if (!run.cie || !run.cie->cie)
					bad_line(p, "FDE of an unknown CIE");
				run.cur = run.cie->init;
				run.loc = lo;
				raw_snap(run.e, lo, &run.cur);
			} else {
				bad_line(p, "entry header");
			}
			continue;
		}
		if (!run.e)
			continue;
		while (*s == ' ')
			s++;
		if (run.e->cie && !strncmp(s, "Augmentation:", 13)) {
			char *q = strchr(s, '"'), *e = q ? strchr(q + 1, '"') : NULL;

			if (!e || e - q - 1 >= (long)sizeof(run.e->aug))
				bad_line(p, "augmentation");
			memcpy(run.e->aug, q + 1, e - q - 1);
			continue;
		}
		if (run.e->cie && !strncmp(s, "Return address column:", 22)) {
			run.e->ra_col = strtoul(s + 22, NULL, 10);
			continue;
		}
		if (strncmp(s, "DW_CFA_", 7))
			continue;
		learn_names(p, s);
		raw_insn(p, &run, s);
		if (run.e->cie)
			run.e->init = run.cur;
		else
			raw_snap(run.e, run.loc, &run.cur);
	}
	if (ferror(f))
		gc_fail("%s: read error", path);
	fclose(f);
}

/* ---- the interpreted table --------------------------------------------- */

enum cell_kind { CK_U, CK_S, CK_C, CK_V, CK_R, CK_EXP, CK_VEXP };

struct cell {
	u8	kind;
	u32	reg;
	s64	off;
};

struct irow {
	u64		loc;
	bool		cfa_expr;
	u32		cfa_reg;
	s64		cfa_off;
	struct cell	ra;
	struct cell	fp;
	struct cell	sp;
};

struct itable {
	u64		off;
	bool		cie;
	u64		cie_off;
	u64		lo;
	u64		hi;
	struct irow	*rows;
	size_t		n;
	int		ra_col;		/* column index, -1 if none */
	int		fp_col;
	int		sp_col;
};

static struct cell parse_cell(struct parser *p, const char *tok)
{
	struct cell c = { 0 };
	const char *s = tok + 1;
	unsigned long reg;
	char *end;

	if (!strcmp(tok, "u")) {
		c.kind = CK_U;
	} else if (!strcmp(tok, "s")) {
		c.kind = CK_S;
	} else if (!strcmp(tok, "exp")) {
		c.kind = CK_EXP;
	} else if (!strcmp(tok, "vexp")) {
		c.kind = CK_VEXP;
	} else if ((tok[0] == 'c' || tok[0] == 'v') && (tok[1] == '+' || tok[1] == '-')) {
		c.kind = tok[0] == 'c' ? CK_C : CK_V;
		if (!parse_s64(&s, &c.off) || *s)
			bad_line(p, "bad offset cell");
	} else if (tok[0] == 'r' && isdigit((unsigned char)tok[1])) {
		errno = 0;
		reg = strtoul(tok + 1, &end, 10);
		if (errno || *end || reg > UINT32_MAX)
			bad_line(p, "bad register cell");
		c.kind = CK_R;
		c.reg = reg;
	} else {
		bad_line(p, "unknown cell");
	}
	return c;
}

static void parse_row(struct parser *p, struct itable *t, char *line)
{
	struct irow row = { .ra = { CK_U }, .fp = { CK_U }, .sp = { CK_U } };
	char *tok, *save, *sign;
	int col = 0;
	u64 loc;

	tok = strtok_r(line, " ", &save);
	errno = 0;
	loc = strtoull(tok, &sign, 16);
	if (errno || *sign)
		bad_line(p, "bad row location");
	row.loc = loc;
	tok = strtok_r(NULL, " ", &save);
	if (!tok)
		bad_line(p, "row without a CFA");
	if (!strcmp(tok, "exp")) {
		row.cfa_expr = true;
	} else {
		const char *s;

		sign = strpbrk(tok, "+-");
		if (!sign || !name_num(p, tok, sign - tok, &row.cfa_reg))
			bad_line(p, "CFA on an unknown register");
		s = sign;
		if (!parse_s64(&s, &row.cfa_off) || *s)
			bad_line(p, "bad CFA offset");
	}
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (tok[0] == '(')	/* the name after "rN" */
			continue;
		if (col == t->ra_col)
			row.ra = parse_cell(p, tok);
		else if (col == t->fp_col)
			row.fp = parse_cell(p, tok);
		else if (col == t->sp_col)
			row.sp = parse_cell(p, tok);
		else
			parse_cell(p, tok);
		col++;
	}
	t->rows = xrealloc(t->rows, t->n + 1, sizeof(*t->rows));
	t->rows[t->n++] = row;
}

static void parse_header(struct parser *p, struct itable *t, char *line)
{
	char *tok, *save;
	int col = 0;
	u32 num;

	t->ra_col = -1;
	t->fp_col = -1;
	t->sp_col = -1;
	strtok_r(line, " ", &save);		/* LOC */
	tok = strtok_r(NULL, " ", &save);	/* CFA */
	if (!tok || strcmp(tok, "CFA"))
		bad_line(p, "table header");
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (!strcmp(tok, "ra"))
			t->ra_col = col;
		else if (name_num(p, tok, strlen(tok), &num) && num == p->abi->fp)
			t->fp_col = col;
		else if (name_num(p, tok, strlen(tok), &num) && num == p->abi->sp)
			t->sp_col = col;
		col++;
	}
}

/* ---- one rule from a table row and the raw state at the same address ---- */

static bool fits(s64 v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static unsigned int saved_rule(struct unwind_user_rule *r, const struct cell *c, u8 kind,
			       const struct xexpr *x, bool is_ra, bool *outermost,
			       const struct gc_abi *abi, u32 ra_col)
{
	switch (c->kind) {
	case CK_U:
		if (kind != RK_INIT && kind != RK_UNDEF)
			return GC_NX_ORACLE;
		if (is_ra && kind == RK_UNDEF) {
			*outermost = true;
			return GC_NX_NONE;
		}
		fallthrough;
	case CK_S:
		/* an RA column of the CIE's own: the RA is in that register */
		if (is_ra && ra_col != abi->ra) {
			if (ra_col > 255)
				return GC_NX_RANGE;
			r->base = UNWIND_USER_BASE_REG;
			r->regnum = ra_col;
			return GC_NX_NONE;
		}
		if (is_ra && abi->fixed_ra)
			return GC_NX_RA_UNCHANGED;
		r->base = UNWIND_USER_BASE_SAME;
		return GC_NX_NONE;
	case CK_V:
		/*
		 * "CFA + off" as the value: a flex rule's control word for a
		 * CFA base without dereference is 0, which is padding.
		 */
		return is_ra ? GC_NX_RA_VAL : GC_NX_FP_VAL;
	case CK_C:
		if (!fits(c->off))
			return GC_NX_RANGE;
		r->base = UNWIND_USER_BASE_CFA;
		r->deref = true;
		r->offset = c->off;
		return GC_NX_NONE;
	case CK_R:
		if (c->reg > 255)
			return GC_NX_RANGE;
		r->base = UNWIND_USER_BASE_REG;
		r->regnum = c->reg;
		return GC_NX_NONE;
	default:
		if (kind != (c->kind == CK_EXP ? RK_EXPR : RK_VEXPR))
			return GC_NX_ORACLE;
		/* "exp": saved at the address; "vexp": is the value */
		if (!x->ok || x->deref)
			return is_ra ? GC_NX_RA_EXPR : GC_NX_FP_EXPR;
		if (x->reg > 255 || !fits(x->off))
			return GC_NX_RANGE;
		r->base = UNWIND_USER_BASE_REG;
		r->regnum = x->reg;
		r->deref = c->kind == CK_EXP;
		r->offset = x->off;
		return GC_NX_NONE;
	}
}

static unsigned int make_rule(struct parser *p, const struct raw_entry *cie,
			      const struct irow *row, const struct rstate *st,
			      struct unwind_user_frame *f)
{
	const char *aug = cie->aug;
	const struct gc_abi *abi = p->abi;
	bool outermost = false;
	unsigned int nx;

	memset(f, 0, sizeof(*f));
	f->signal = strchr(aug, 'S');
	nx = saved_rule(&f->ra, &row->ra, st->ra, &st->ra_x, true, &outermost, abi, cie->ra_col);
	if (nx)
		return nx;
	if (outermost) {
		f->outermost = true;
		gc_normalize(abi, f);
		return GC_NX_NONE;
	}
	if (row->cfa_expr != st->cfa_expr)
		return GC_NX_ORACLE;
	if (row->cfa_expr) {
		if (!st->cfa_x.ok)
			return GC_NX_CFA_EXPR;
		f->cfa.base = UNWIND_USER_BASE_REG;
		f->cfa.regnum = st->cfa_x.reg;
		f->cfa.deref = st->cfa_x.deref;
		f->cfa.offset = st->cfa_x.off;
		if (st->cfa_x.reg > 255 || !fits(st->cfa_x.off))
			return GC_NX_RANGE;
	} else {
		if (row->cfa_reg > 255 || !fits(row->cfa_off))
			return GC_NX_RANGE;
		f->cfa.base = UNWIND_USER_BASE_REG;
		f->cfa.regnum = row->cfa_reg;
		f->cfa.offset = row->cfa_off;
	}
	if (f->cfa.offset % (s32)abi->cfa_align)
		return GC_NX_CFA_ALIGN;
	/*
	 * The SP kept in a register while the CFA is on another (x86_64's
	 * __longjmp: CFA = %rdi, SP in %r8): the CFA is no caller's SP.
	 * With a CFA on the SP or FP the SP's rule only says where a copy is,
	 * and so does one that saves it in memory (a signal frame's).
	 */
	if ((row->sp.kind == CK_R || row->sp.kind == CK_VEXP) &&
	    (f->cfa.deref || (f->cfa.regnum != abi->sp && f->cfa.regnum != abi->fp)))
		return GC_NX_SP_ELSEWHERE;
	nx = saved_rule(&f->fp, &row->fp, st->fp, &st->fp_x, false, &outermost, abi, cie->ra_col);
	if (nx)
		return nx;
	if (st->pac_pc)
		return GC_NX_PAUTH_PC;
	f->ra_signed = st->pac;
	f->pauth_key = !!strchr(aug, 'B');
	gc_normalize(abi, f);
	return GC_NX_NONE;
}

static void add_row(struct parser *p, u64 start, u64 end, unsigned int fde, unsigned int nx,
		    const struct unwind_user_frame *f)
{
	struct gc_dwarf *d = p->out;
	struct gc_row *last = d->n ? &d->rows[d->n - 1] : NULL;

	if (last && last->fde == fde && last->end == start && last->nx == nx &&
	    (nx || gc_frame_eq(&last->frame, f))) {
		last->end = end;
		return;
	}
	if (d->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		d->rows = xrealloc(d->rows, p->cap, sizeof(*d->rows));
	}
	d->rows[d->n++] = (struct gc_row){ start, end, fde, nx, *f };
}

/*
 * aarch64: no function saves its return address at or above the CFA its
 * call made.  glibc's _dl_runtime_resolve does by its CFI, which leaves out
 * of an SP-based CFA the 16 bytes PLT0 pushed before it: every row of such
 * an FDE with a CFA on a register moves by what puts the RA 8 below, and
 * what still saves it at or above the CFA (a CFA on another register:
 * __longjmp's jmp_buf) says no caller's frame.  The bytes to move, or 0.
 */
struct seg {
	u64				pc, next;
	unsigned int			nx;
	struct unwind_user_frame	f;
	struct cell			sp;
};

static bool ra_above_cfa(const struct unwind_user_frame *f)
{
	return f->ra.base == UNWIND_USER_BASE_CFA && f->ra.deref && f->ra.offset >= 0;
}

static s32 pushed_before_entry(const struct parser *p, const struct seg *segs, size_t n)
{
	size_t i;

	if (p->abi != gc_abi(GC_AARCH64))
		return 0;
	for (i = 0; i < n; i++)
		if (!segs[i].nx && !segs[i].f.outermost &&
		    segs[i].f.cfa.base == UNWIND_USER_BASE_SP && !segs[i].f.cfa.deref &&
		    ra_above_cfa(&segs[i].f))
			return segs[i].f.ra.offset + 8;
	return 0;
}

static void shift_cfa(struct seg *s, s32 shift, const struct gc_abi *abi)
{
	struct unwind_user_frame *f = &s->f;

	if (s->nx || f->outermost)
		return;
	if (shift && !f->cfa.deref && f->cfa.base != UNWIND_USER_BASE_CFA) {
		f->cfa.offset += shift;
		if (f->ra.base == UNWIND_USER_BASE_CFA)
			f->ra.offset -= shift;
		if (f->fp.base == UNWIND_USER_BASE_CFA)
			f->fp.offset -= shift;
	}
	if (abi == gc_abi(GC_AARCH64) && ra_above_cfa(f))
		s->nx = GC_NX_RA_ABOVE_CFA;
}

/*
 * s390x: a row whose CFA is back at the FDE's first CFA (r15 + 160) while
 * the caller's r15 is still kept in the register it was kept in when an
 * earlier row moved the CFA up: GCC's epilogue CFI ahead of its lgdr.
 * The frame's size is missing from such a CFA, so no rule of it is one
 * to express.
 */
static void cfa_before_sp(const struct parser *p, struct seg *segs, size_t n)
{
	const struct unwind_user_frame *first = &segs[0].f;
	u32 kept = 0;
	size_t i;

	if (p->abi != gc_abi(GC_S390X) || !n || segs[0].nx || first->outermost ||
	    first->cfa.base != UNWIND_USER_BASE_SP || first->cfa.deref)
		return;
	for (i = 0; i < n; i++) {
		const struct unwind_user_frame *f = &segs[i].f;

		if (segs[i].nx || f->outermost || f->cfa.base != UNWIND_USER_BASE_SP ||
		    f->cfa.deref || segs[i].sp.kind != CK_R ||
		    (kept && kept != segs[i].sp.reg + 1)) {
			kept = 0;
			continue;
		}
		if (f->cfa.offset > first->cfa.offset)
			kept = segs[i].sp.reg + 1;
		else if (kept && f->cfa.offset == first->cfa.offset)
			segs[i].nx = GC_NX_CFA_BEFORE_SP;
	}
}

/*
 * A thread's first function whose CFI makes the RA undefined only after its
 * landing pad (BTI, ENDBR64), at most one instruction in: the outermost
 * frame from its first byte, as sframe-gen reads it (before that row the
 * CIE's rule would take the loader's leftover link register, or argc).
 */
static void outermost_from_entry(struct seg *segs, size_t n)
{
	if (n >= 2 && !segs[0].f.outermost && segs[1].f.outermost &&
	    segs[1].pc - segs[0].pc <= 4) {
		segs[0].f = segs[1].f;
		segs[0].nx = 0;
	}
}

/* An FDE's rows: the table's and the raw listing's breakpoints merged */
static void fde_rows(struct parser *p, const struct itable *fde, const struct itable *cie)
{
	const struct raw_entry *raw = raw_find(p, fde->off), *rcie;
	const struct itable *t = fde->n ? fde : cie;
	size_t i = 0, j = 0;
	u64 pc = fde->lo, next;
	unsigned int index = p->out->fdes++;
	struct seg *segs = NULL;
	size_t nsegs = 0, k;
	s32 shift;

	if (!raw || raw->cie || raw->lo != fde->lo || raw->hi != fde->hi)
		bad_line(p, "FDE not in the raw listing");
	rcie = raw_find(p, raw->cie_off);
	if (!t->n)
		bad_line(p, "no table for an FDE or its CIE");
	while (pc < fde->hi) {
		/* the table row and raw state in force at pc */
		while (i + 1 < t->n && (t == cie || t->rows[i + 1].loc <= pc))
			i++;
		while (j + 1 < raw->nsnaps && raw->snaps[j + 1].loc <= pc)
			j++;
		next = fde->hi;
		if (t == fde && i + 1 < t->n && t->rows[i + 1].loc < next)
			next = t->rows[i + 1].loc;
		if (j + 1 < raw->nsnaps && raw->snaps[j + 1].loc < next)
			next = raw->snaps[j + 1].loc;
		if (next <= pc)
			bad_line(p, "rows out of order");
		segs = xrealloc(segs, nsegs + 1, sizeof(*segs));
		segs[nsegs].pc = pc;
		segs[nsegs].next = next;
		segs[nsegs].nx = make_rule(p, rcie, &t->rows[i], &raw->snaps[j].st,
					   &segs[nsegs].f);
		segs[nsegs].sp = t->rows[i].sp;
		nsegs++;
		pc = next;
	}
	outermost_from_entry(segs, nsegs);
	cfa_before_sp(p, segs, nsegs);
	shift = pushed_before_entry(p, segs, nsegs);
	for (k = 0; k < nsegs; k++) {
		shift_cfa(&segs[k], shift, p->abi);
		add_row(p, segs[k].pc, segs[k].next, index, segs[k].nx, &segs[k].f);
	}
	free(segs);
}

static int row_cmp(const void *a, const void *b)
{
	const struct gc_row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->fde < y->fde ? -1 : x->fde > y->fde;
}

static void itable_reset(struct itable *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
	t->ra_col = -1;
	t->fp_col = -1;
}

/* The entry read so far is complete: keep a CIE's table, turn an FDE into rows */
static void end_entry(struct parser *p, struct itable *cur, struct itable **cies,
		      size_t *ncies)
{
	const struct itable *c = NULL;
	size_t i;

	if (cur->cie) {
		*cies = xrealloc(*cies, *ncies + 1, sizeof(**cies));
		(*cies)[(*ncies)++] = *cur;
		memset(cur, 0, sizeof(*cur));
	} else if (cur->hi > cur->lo) {
		for (i = *ncies; i-- > 0;) {
			if ((*cies)[i].off == cur->cie_off) {
				c = &(*cies)[i];
				break;
			}
		}
		if (!c)
			bad_line(p, "FDE of an unknown CIE");
		fde_rows(p, cur, c);
	}
	itable_reset(cur);
}

/**
 * gc_dwarf_load() - a file's .eh_frame rows, from readelf's two listings
 * @abi: the file's ABI.
 * @interp: output of readelf --debug-dump=frames-interp.
 * @raw: output of readelf --debug-dump=frames, of the same file.
 * @out: filled with rows sorted by address, no two overlapping.
 *
 * Ends the program with a message on input it cannot read.
 */
void gc_dwarf_load(const struct gc_abi *abi, const char *interp, const char *raw,
		   struct gc_dwarf *out)
{
	struct parser p = { .abi = abi, .out = out };
	struct itable cur = { 0 }, *cies = NULL;
	size_t ncies = 0, i, w;
	bool in_eh = false;
	char line[8192], kind[16];
	unsigned long long off, len, id, lo, hi, cie;
	FILE *f;

	memset(out, 0, sizeof(*out));
	raw_load(&p, raw);

	f = fopen(interp, "r");
	if (!f)
		gc_fail("%s: %s", interp, strerror(errno));
	p.path = interp;
	p.lineno = 0;
	itable_reset(&cur);
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);
		size_t n = eof ? 0 : strlen(line);
		bool header = !eof && isxdigit((unsigned char)line[0]) &&
			      (strstr(line, " CIE") || strstr(line, " FDE") ||
			       strstr(line, "ZERO terminator"));

		if (!eof) {
			p.lineno++;
			if (n && line[n - 1] == '\n')
				line[--n] = 0;
			else if (n == sizeof(line) - 1)
				bad_line(&p, "line too long");
		}
		/* an entry ends at the next one, a section's end or the file's */
		if (eof || header || !strncmp(line, "Contents of the ", 16))
			end_entry(&p, &cur, &cies, &ncies);
		if (eof)
			break;
		if (!strncmp(line, "Contents of the ", 16)) {
			in_eh = !strcmp(line, "Contents of the .eh_frame section:");
			continue;
		}
		if (!in_eh)
			continue;
		if (header) {
			if (strstr(line, "ZERO terminator"))
				continue;
			if (sscanf(line, "%llx %llx %llx %15s", &off, &len, &id, kind) != 4)
				bad_line(&p, "entry header");
			cur.off = off;
			if (!strcmp(kind, "CIE")) {
				cur.cie = true;
			} else if (sscanf(line, "%*x %*x %*x FDE cie=%llx pc=%llx..%llx",
					  &cie, &lo, &hi) == 3) {
				cur.cie_off = cie;
				cur.lo = lo;
				cur.hi = hi;
			} else {
				bad_line(&p, "entry header");
			}
			continue;
		}
		if (!strncmp(line, "   LOC", 6)) {
			parse_header(&p, &cur, line);
			continue;
		}
		if (isxdigit((unsigned char)line[0]))
			parse_row(&p, &cur, line);
	}
	if (ferror(f))
		gc_fail("%s: read error", interp);
	fclose(f);
	itable_reset(&cur);
	for (i = 0, w = 0; i < p.nraw; i++)
		w += !p.raw[i].cie && p.raw[i].hi > p.raw[i].lo;
	if (w != out->fdes)
		gc_fail("%s has %zu FDEs with code, %s %u", raw, w, interp, out->fdes);
	for (i = 0; i < ncies; i++)
		free(cies[i].rows);
	free(cies);
	for (i = 0; i < p.nraw; i++)
		free(p.raw[i].snaps);
	free(p.raw);
	free(p.names);

	/* sorted, the first FDE keeping bytes that two claim */
	qsort(out->rows, out->n, sizeof(*out->rows), row_cmp);
	for (i = 0, w = 0; i < out->n; i++) {
		struct gc_row r = out->rows[i];

		if (w && r.start < out->rows[w - 1].end) {
			u64 cut = out->rows[w - 1].end;

			out->overlap_bytes += (r.end < cut ? r.end : cut) - r.start;
			if (r.end <= cut)
				continue;
			r.start = cut;
		}
		out->rows[w++] = r;
	}
	out->n = w;
}

void gc_dwarf_free(struct gc_dwarf *d)
{
	free(d->rows);
	memset(d, 0, sizeof(*d));
}
