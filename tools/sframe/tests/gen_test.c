// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-gen's unit tests: hand-written .eh_frame (gen_build.h) for each
 * CFA instruction, augmentation and pointer encoding, each ABI's emitter,
 * and bad input.  Each section made is checked by the kernel's reader
 * (gen_check.c), and the rules it finds at chosen PCs are compared with
 * ones written here by hand.  Ends with "N passed, N failed".
 */
#include <time.h>

#include "gen_check.h"
#include "gen_build.h"
#include "gen_harness.h"
#include "../cfi.h"
#include "../ehframe.h"

static struct eb B;

#define SEC_ADDR	0x800000UL

/* Rules as the kernel's reader gives them */
#define R_SAME		((struct unwind_user_rule){ UNWIND_USER_BASE_SAME, 0, false, 0 })
#define R_SP(o)		((struct unwind_user_rule){ UNWIND_USER_BASE_SP, 0, false, (o) })
#define R_FP(o)		((struct unwind_user_rule){ UNWIND_USER_BASE_FP, 0, false, (o) })
#define R_AT(o)		((struct unwind_user_rule){ UNWIND_USER_BASE_CFA, 0, true, (o) })
#define R_REG(r, o)	((struct unwind_user_rule){ UNWIND_USER_BASE_REG, (r), false, (o) })
#define R_AT_REG(r, o)	((struct unwind_user_rule){ UNWIND_USER_BASE_REG, (r), true, (o) })

static struct unwind_user_frame F(struct unwind_user_rule cfa, struct unwind_user_rule ra,
				  struct unwind_user_rule fp)
{
	struct unwind_user_frame f;

	memset(&f, 0, sizeof(f));
	f.cfa = cfa;
	f.ra = ra;
	f.fp = fp;
	return f;
}

static struct unwind_user_frame SIGNED(struct unwind_user_frame f, int key)
{
	f.ra_signed = true;
	f.pauth_key = key;
	return f;
}

static struct unwind_user_frame OUTERMOST(void)
{
	struct unwind_user_frame f;

	memset(&f, 0, sizeof(f));
	f.outermost = true;
	return f;
}

struct conv {
	struct sframe_gen	*gen;
	struct sframe_gen_stats	st;
	struct sframe_section	sec;
	unsigned char		*bytes;
	char			err[256];
	bool			checked;
};

static void conv_input(struct sframe_gen_input *in, enum sframe_gen_arch arch)
{
	memset(in, 0, sizeof(*in));
	in->arch = arch;
	in->eh_frame = B.d;
	in->eh_frame_size = B.n;
	in->eh_frame_addr = EB_ADDR;
	in->data_base = EB_DATA_BASE;
	in->ptr_size = B.ptr_size;
}

/*
 * With GEN_SEED_DIR set, each input converted is also written there as a
 * seed of the fuzzer (gen_fuzz.c: an ABI byte, the section to keep if
 * any, then the .eh_frame).
 */
static void write_seed(const struct sframe_gen_input *in)
{
	const char *dir = getenv("GEN_SEED_DIR");
	static unsigned int n;
	char name[4096];
	uint8_t abi;
	FILE *f;

	/* Large inputs only slow the fuzzer down. */
	if (!dir || in->eh_frame_size > 16384)
		return;
	abi = in->arch == SFRAME_GEN_AARCH64 && in->big_endian ? 3 : in->arch;
	abi |= in->ptr_size == 4 ? 4 : 0;
	abi |= in->sframe && in->sframe_size <= 0xffff ? 8 : 0;
	snprintf(name, sizeof(name), "%s/seed-%04u", dir, n++);
	f = fopen(name, "wb");
	if (!f)
		return;
	fwrite(&abi, 1, 1, f);
	if (abi & 8) {
		fputc(in->sframe_size & 0xff, f);
		fputc(in->sframe_size >> 8, f);
		fwrite(in->sframe, 1, in->sframe_size, f);
	}
	fwrite(in->eh_frame, 1, in->eh_frame_size, f);
	fclose(f);
}

/* Converts B with @in; checks the section with the reader */
static bool convert_in(struct conv *c, const struct sframe_gen_input *in)
{
	char why[256];

	memset(c, 0, sizeof(*c));
	write_seed(in);
	c->gen = sframe_gen_new(in, &c->st, c->err, sizeof(c->err));
	CHECK(c->gen, "conversion failed: %s", c->err);
	if (!c->gen)
		return false;
	c->checked = !gen_check_section(c->gen, SEC_ADDR, &c->sec, &c->bytes, why, sizeof(why));
	CHECK(c->checked, "reader check: %s", why);
	return c->checked;
}

static bool convert(struct conv *c, enum sframe_gen_arch arch)
{
	struct sframe_gen_input in;

	conv_input(&in, arch);
	return convert_in(c, &in);
}

static void conv_free(struct conv *c)
{
	if (c->gen)
		gen_section_release(&c->sec, c->bytes);
	sframe_gen_free(c->gen);
	memset(c, 0, sizeof(*c));
}

static void expect(struct conv *c, unsigned long pc, struct unwind_user_frame e)
{
	struct unwind_user_frame k;
	char a[128], b[128];
	int ret;

	if (!c->checked)
		return;
	ret = sframe_find(&c->sec, pc, &k, SFRAME_UNBOUNDED);
	CHECK(!ret, "sframe_find(%#lx): %d", pc, ret);
	if (ret)
		return;
	gen_frame_str(&k, a, sizeof(a));
	gen_frame_str(&e, b, sizeof(b));
	CHECK(!strcmp(a, b) && k.outermost == e.outermost && k.pauth_key == e.pauth_key,
	      "at %#lx: found %s, expected %s", pc, a, b);
}

static void expect_none(struct conv *c, unsigned long pc)
{
	struct unwind_user_frame k;

	if (c->checked)
		CHECK(sframe_find(&c->sec, pc, &k, SFRAME_UNBOUNDED) == -ENOENT, "%#lx should not be covered", pc);
}

static void expect_counts(struct conv *c, unsigned int out, unsigned int flex,
			  unsigned int skipped, unsigned int bad)
{
	CHECK(c->st.fdes_out == out && c->st.fdes_flex == flex && c->st.fdes_skipped == skipped &&
	      c->st.fdes_bad == bad,
	      "out %u flex %u skipped %u bad %u, expected %u %u %u %u (%s)", c->st.fdes_out,
	      c->st.fdes_flex, c->st.fdes_skipped, c->st.fdes_bad, out, flex, skipped, bad,
	      c->st.reason);
}

static void expect_reason(struct conv *c, const char *part)
{
	CHECK(strstr(c->st.reason, part), "reason \"%s\" lacks \"%s\"", c->st.reason, part);
}

/* The FDE the reader has at @n: its info byte and rep_size */
static void expect_fde(struct conv *c, unsigned int n, unsigned long start, unsigned int size,
		       bool mask, unsigned int rep, unsigned int fre_type)
{
	struct sframe_fde fde;

	if (!c->checked)
		return;
	CHECK(!sframe_read_fde(&c->sec, n, &fde), "FDE %u unreadable", n);
	CHECK(fde.func_start == start && fde.func_size == size, "FDE %u: [%#lx +%u]", n,
	      fde.func_start, fde.func_size);
	CHECK(SFRAME_FDE_INFO_PCTYPE(fde.info) == mask && (!mask || fde.rep_size == rep),
	      "FDE %u: pctype %u rep %u", n, SFRAME_FDE_INFO_PCTYPE(fde.info), fde.rep_size);
	CHECK(SFRAME_FDE_INFO_FRE_TYPE(fde.info) == fre_type, "FDE %u: FRE type %u", n,
	      SFRAME_FDE_INFO_FRE_TYPE(fde.info));
}

/* Standard CIEs of each ABI, as GCC makes them */
static const uint8_t x86_init[] = { 0x0c, 7, 8, 0x90, 1 };	/* rsp+8, rip at cfa-8 */
static const uint8_t a64_init[] = { 0x0c, 31, 0 };		/* sp+0 */
static const uint8_t s390_init[] = { 0x0c, 15, 0xa0, 0x01 };	/* r15+160 */

static size_t x86_cie(const char *aug, uint8_t enc)
{
	return eb_cie(&B, false, 1, aug, enc, 1, -8, 16, x86_init, sizeof(x86_init));
}

static size_t a64_cie(const char *aug)
{
	return eb_cie(&B, false, 1, aug, 0x1b, 4, -8, 30, a64_init, sizeof(a64_init));
}

static size_t s390_cie(void)
{
	return eb_cie(&B, false, 1, "zR", 0x1b, 1, -8, 14, s390_init, sizeof(s390_init));
}

#define FDE(cie, pc, range, ...)						\
	eb_fde(&B, false, (cie), 0x1b, true, (pc), (range), (const uint8_t[]){ __VA_ARGS__ }, \
	       sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void begin(const char *name, bool big)
{
	gen_test_start(name);
	eb_reset(&B, big);
}

/* x86_64 */

static void test_x86_basic(void)
{
	struct conv c;
	size_t cie;

	begin("x86_64 prologue, frame pointer, epilogue", false);
	cie = x86_cie("zR", 0x1b);
	/* push rbp; mov rbp, rsp; ...; pop rbp; ret */
	FDE(cie, 0x1000, 0x40, 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x60, 0x0c, 7, 8, 0xc6);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x1000, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x1001, F(R_SP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x1003, F(R_SP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x1004, F(R_FP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x1023, F(R_FP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x1024, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x103f, F(R_SP(8), R_AT(-8), R_SAME));
		expect_none(&c, 0x1040);
		expect_none(&c, 0xfff);
		expect_counts(&c, 1, 0, 0, 0);
		CHECK(c.st.cies == 1 && c.st.fdes == 1 && c.st.fres == 4 &&
		      c.st.bytes_described == 0x40, "cies %u fdes %u fres %u bytes %llu",
		      c.st.cies, c.st.fdes, c.st.fres, (unsigned long long)c.st.bytes_described);
		expect_fde(&c, 0, 0x1000, 0x40, false, 0, SFRAME_FRE_TYPE_ADDR1);
	}
	conv_free(&c);
}

static void test_x86_advance(void)
{
	struct conv c;
	size_t cie;

	begin("advance_loc1/2/4, def_cfa_sf, def_cfa_offset_sf, ADDR2/4 FREs", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0x20000,
	    0x02, 0x10, 0x13, 0x7e,			/* +0x10: cfa = rsp + (-2 * -8) */
	    0x03, 0x00, 0x01, 0x12, 6, 0x7d,		/* +0x100: cfa = rbp + 24 */
	    0x04, 0x00, 0x00, 0x01, 0x00, 0x0c, 7, 8);	/* +0x10000: cfa = rsp + 8 */
	FDE(cie, 0x30000, 0x1000, 0x03, 0x00, 0x01, 0x0e, 16);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x1000, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x100f, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x1010, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x1110, F(R_FP(24), R_AT(-8), R_SAME));
		expect(&c, 0x1110f, F(R_FP(24), R_AT(-8), R_SAME));
		expect(&c, 0x11110, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x20fff, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x300ff, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x30100, F(R_SP(16), R_AT(-8), R_SAME));
		expect_fde(&c, 0, 0x1000, 0x20000, false, 0, SFRAME_FRE_TYPE_ADDR4);
		expect_fde(&c, 1, 0x30000, 0x1000, false, 0, SFRAME_FRE_TYPE_ADDR2);
	}
	conv_free(&c);
}

static void test_x86_offsets(void)
{
	struct conv c;
	size_t cie;

	begin("offset_extended(_sf), GNU_negative_offset_extended, restore_extended, same_value",
	      false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0x10,
	    0x41, 0x05, 6, 3,		/* rbp at cfa - 24 */
	    0x41, 0x11, 6, 0x7c,	/* rbp at cfa + 32 (-4 * -8) */
	    0x41, 0x2f, 6, 2,		/* rbp at cfa - (2 * -8) = cfa + 16 */
	    0x41, 0x06, 6,		/* restore_extended */
	    0x41, 0x86, 2,		/* rbp at cfa - 16 */
	    0x41, 0x08, 6,		/* same_value */
	    0x41, 0x0e, 0x90, 0x01);	/* cfa = rsp + 144: two-byte LEB128 */
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x1001, F(R_SP(8), R_AT(-8), R_AT(-24)));
		expect(&c, 0x1002, F(R_SP(8), R_AT(-8), R_AT(32)));
		expect(&c, 0x1003, F(R_SP(8), R_AT(-8), R_AT(16)));
		expect(&c, 0x1004, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x1005, F(R_SP(8), R_AT(-8), R_AT(-16)));
		expect(&c, 0x1006, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x1007, F(R_SP(144), R_AT(-8), R_SAME));
	}
	conv_free(&c);
}

static void test_x86_state(void)
{
	struct conv c;
	size_t cie;

	begin("remember_state/restore_state, GNU_args_size, nop", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0x20,
	    0x41, 0x0e, 16, 0x86, 2, 0x0a,	/* +1: rsp+16, rbp saved; remember */
	    0x44, 0x0e, 8, 0xc6, 0x2e, 0x10,	/* +5: rsp+8, rbp restored; args_size */
	    0x41, 0x0b, 0x00, 0x00);		/* +6: back to the remembered state */
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x1001, F(R_SP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x1005, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x1006, F(R_SP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x101f, F(R_SP(16), R_AT(-8), R_AT(-16)));
		/* The two rows before and after the state stack merge into one FRE. */
		CHECK(c.st.fres == 4, "fres %u", c.st.fres);
	}
	conv_free(&c);
}

static void test_x86_undefined(void)
{
	static const uint8_t start_init[] = { 0x0c, 7, 8, 0x90, 1, 0x07, 16 };
	struct conv c;
	size_t cie;

	begin("undefined RA: outermost (_start)", false);
	cie = eb_cie(&B, false, 1, "zR", 0x1b, 1, -8, 16, start_init, sizeof(start_init));
	FDE(cie, 0x1000, 0x22, 0);
	cie = x86_cie("zR", 0x1b);
	/* _start's ENDBR64 before its cfi_undefined: outermost from its entry */
	FDE(cie, 0x2000, 0x10, 0x44, 0x07, 16);
	/* Five bytes in: no landing pad, a frame of its own until then */
	FDE(cie, 0x3000, 0x10, 0x45, 0x07, 16);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x1000, OUTERMOST());
		expect(&c, 0x1021, OUTERMOST());
		expect(&c, 0x2000, OUTERMOST());
		expect(&c, 0x2003, OUTERMOST());
		expect(&c, 0x2004, OUTERMOST());
		expect(&c, 0x3004, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x3005, OUTERMOST());
		expect_counts(&c, 3, 0, 0, 0);
	}
	conv_free(&c);
}

static void test_x86_drap(void)
{
	struct conv c;
	size_t cie;

	begin("DRAP: CFA in r10, then *(rbp - 8), rbp saved at rbp: flex FDE", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0x40,
	    0x45, 0x0c, 10, 0,				/* +5: cfa = r10 */
	    0x49, 0x10, 6, 2, 0x76, 0x00,		/* +14: rbp at rbp + 0 */
	    0x45, 0x0f, 3, 0x76, 0x78, 0x06,		/* +19: cfa = *(rbp - 8) */
	    0x50, 0x0c, 10, 0, 0xc6,			/* +35: cfa = r10, rbp back */
	    0x44, 0x0c, 7, 8);				/* +39: cfa = rsp + 8 */
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x1000, F(R_REG(7, 8), R_AT(-8), R_SAME));
		expect(&c, 0x1005, F(R_REG(10, 0), R_AT(-8), R_SAME));
		expect(&c, 0x100e, F(R_REG(10, 0), R_AT(-8), R_AT_REG(6, 0)));
		expect(&c, 0x1013, F(R_AT_REG(6, -8), R_AT(-8), R_AT_REG(6, 0)));
		expect(&c, 0x1022, F(R_AT_REG(6, -8), R_AT(-8), R_AT_REG(6, 0)));
		expect(&c, 0x1023, F(R_REG(10, 0), R_AT(-8), R_SAME));
		expect(&c, 0x1027, F(R_REG(7, 8), R_AT(-8), R_SAME));
		expect_counts(&c, 1, 1, 0, 0);
	}
	conv_free(&c);
}

static void test_x86_plt(void)
{
	/* GNU ld's .plt CFI: PLT0, then the entries' expression */
	static const uint8_t plt_expr[] = { 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a,
					    0x33, 0x24, 0x22 };
	static const uint8_t ibt_expr[] = { 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3a, 0x2a,
					    0x33, 0x24, 0x22 };
	uint8_t insns[64];
	struct conv c;
	size_t cie, n;

	begin("x86_64 PLT expression: a MASK FDE as ld makes", false);
	cie = x86_cie("zR", 0x1b);
	n = 0;
	insns[n++] = 0x0e;
	insns[n++] = 16;
	insns[n++] = 0x46;
	insns[n++] = 0x0e;
	insns[n++] = 24;
	insns[n++] = 0x4a;
	memcpy(insns + n, plt_expr, sizeof(plt_expr));
	n += sizeof(plt_expr);
	eb_fde(&B, false, cie, 0x1b, true, 0x1020, 0x30, insns, n);
	/* An IBT PLT whose entries start off a 16-byte boundary */
	eb_fde(&B, false, cie, 0x1b, true, 0x2008, 0x20, ibt_expr, sizeof(ibt_expr));
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x1020, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x1026, F(R_SP(24), R_AT(-8), R_SAME));
		expect(&c, 0x102f, F(R_SP(24), R_AT(-8), R_SAME));
		expect(&c, 0x1030, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x103a, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x103b, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x1040, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x104f, F(R_SP(16), R_AT(-8), R_SAME));
		expect_fde(&c, 0, 0x1020, 0x10, false, 0, SFRAME_FRE_TYPE_ADDR1);
		expect_fde(&c, 1, 0x1030, 0x20, true, 16, SFRAME_FRE_TYPE_ADDR1);
		expect(&c, 0x2008, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x2009, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x200a, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x200f, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x2010, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x201a, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x201f, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x2020, F(R_SP(8), R_AT(-8), R_SAME));
		expect(&c, 0x2027, F(R_SP(8), R_AT(-8), R_SAME));
		expect_fde(&c, 2, 0x2008, 0x20, true, 16, SFRAME_FRE_TYPE_ADDR1);
		expect_counts(&c, 3, 0, 0, 0);
	}
	conv_free(&c);

	begin("x86_64 PLT whose entries overlap another FDE: both parts dropped", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1030, 0x10, 0x41, 0x0e, 16);
	n = 0;
	insns[n++] = 0x0e;
	insns[n++] = 16;
	insns[n++] = 0x50;
	memcpy(insns + n, plt_expr, sizeof(plt_expr));
	n += sizeof(plt_expr);
	eb_fde(&B, false, cie, 0x1b, true, 0x1020, 0x30, insns, n);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_none(&c, 0x1020);
		expect(&c, 0x1031, F(R_SP(16), R_AT(-8), R_SAME));
		expect_none(&c, 0x1040);
		expect_counts(&c, 1, 0, 1, 0);
		CHECK(c.st.bytes_skipped == 0x30, "bytes skipped %llu",
		      (unsigned long long)c.st.bytes_skipped);
		expect_reason(&c, "overlaps");
	}
	conv_free(&c);

	begin("x86_64 PLT expression followed by rows: skipped", false);
	cie = x86_cie("zR", 0x1b);
	memcpy(insns, plt_expr, sizeof(plt_expr));
	n = sizeof(plt_expr);
	insns[n++] = 0x44;
	insns[n++] = 0x0c;
	insns[n++] = 7;
	insns[n++] = 8;
	eb_fde(&B, false, cie, 0x1b, true, 0x1000, 0x20, insns, n);
	FDE(cie, 0x2000, 0x10, 0);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_none(&c, 0x1000);
		expect(&c, 0x2000, F(R_SP(8), R_AT(-8), R_SAME));
		expect_counts(&c, 1, 0, 1, 0);
		expect_reason(&c, "PLT");
	}
	conv_free(&c);
}

static void test_x86_unrepresentable(void)
{
	struct conv c;
	size_t cie;

	begin("val_offset, expression, val_expression: ignored for other registers", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0x10, 0x14, 3, 2, 0x10, 12, 2, 0x77, 0, 0x16, 13, 1, 0x30,
	    0x41, 0x15, 3, 0x7f);
	/* The FP's value at CFA - 16: no flex encoding (its control word is 0) */
	FDE(cie, 0x2000, 0x10, 0x41, 0x14, 6, 2);
	/* The RA by an expression */
	FDE(cie, 0x3000, 0x10, 0x41, 0x10, 16, 2, 0x30, 0x06);
	/* The CFA by an expression that is not DRAP's */
	FDE(cie, 0x4000, 0x10, 0x41, 0x0f, 1, 0x30);
	/* The FP by val_expression: FP = rsp + 8 (flex), then by another expression */
	FDE(cie, 0x5000, 0x10, 0x41, 0x16, 6, 2, 0x77, 8);
	FDE(cie, 0x6000, 0x10, 0x41, 0x16, 6, 1, 0x30);
	/* The FP undefined; the RA the same value (nonsense on x86_64) */
	FDE(cie, 0x7000, 0x10, 0x41, 0x07, 6);
	FDE(cie, 0x8000, 0x10, 0x41, 0x08, 16);
	/* The FP in another register */
	FDE(cie, 0x9000, 0x10, 0x41, 0x09, 6, 3);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x100f, F(R_SP(8), R_AT(-8), R_SAME));
		expect_none(&c, 0x2000);
		expect_none(&c, 0x3000);
		expect_none(&c, 0x4000);
		expect(&c, 0x5001, F(R_REG(7, 8), R_AT(-8), R_REG(7, 8)));
		expect_none(&c, 0x6000);
		expect_none(&c, 0x7000);
		expect_none(&c, 0x8000);
		expect(&c, 0x9000, F(R_REG(7, 8), R_AT(-8), R_SAME));
		expect(&c, 0x9001, F(R_REG(7, 8), R_AT(-8), R_REG(3, 0)));
		expect_counts(&c, 3, 2, 6, 0);
		CHECK(c.st.bytes_skipped == 0x60, "bytes skipped %llu",
		      (unsigned long long)c.st.bytes_skipped);
	}
	conv_free(&c);

	/*
	 * glibc's __longjmp: CFA = %rdi (its jmp_buf), the RA in %rdx and the
	 * caller's SP in %r8, which no row can say; SP = CFA + 0 can.
	 */
	begin("x86_64: the caller's SP in a register: refused", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0x10, 0x44, 0x0c, 5, 0, 0x09, 7, 8, 0x09, 16, 1);
	FDE(cie, 0x2000, 0x10, 0x44, 0x14, 7, 0);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_none(&c, 0x1000);
		expect_none(&c, 0x1004);
		expect(&c, 0x2004, F(R_SP(8), R_AT(-8), R_SAME));
		expect_counts(&c, 1, 0, 1, 0);
	}
	conv_free(&c);
}

/* aarch64 */

static void test_a64(void)
{
	struct conv c;
	size_t cie, cieb;

	begin("aarch64: PAC, frame record, FP-based CFA, key B", false);
	cie = a64_cie("zR");
	/* paciasp; stp x29, x30, [sp, -32]!; mov x29, sp; ...; ldp; autiasp */
	FDE(cie, 0x2000, 0x40, 0x2d, 0x41, 0x0e, 32, 0x9d, 4, 0x9e, 3, 0x42, 0x0d, 29,
	    0x48, 0x0c, 31, 0, 0xde, 0xdd, 0x41, 0x2d);
	cieb = a64_cie("zRB");
	FDE(cieb, 0x3000, 0x10, 0x2d, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1);
	if (convert(&c, SFRAME_GEN_AARCH64)) {
		expect(&c, 0x2000, SIGNED(F(R_SP(0), R_SAME, R_SAME), 0));
		expect(&c, 0x2004, SIGNED(F(R_SP(32), R_AT(-24), R_AT(-32)), 0));
		expect(&c, 0x200c, SIGNED(F(R_FP(32), R_AT(-24), R_AT(-32)), 0));
		expect(&c, 0x202c, SIGNED(F(R_SP(0), R_SAME, R_SAME), 0));
		expect(&c, 0x2030, F(R_SP(0), R_SAME, R_SAME));
		expect(&c, 0x203f, F(R_SP(0), R_SAME, R_SAME));
		expect(&c, 0x3000, SIGNED(F(R_SP(0), R_SAME, R_SAME), 1));
		expect(&c, 0x3004, SIGNED(F(R_SP(16), R_AT(-8), R_AT(-16)), 1));
		expect_counts(&c, 2, 0, 0, 0);
	}
	conv_free(&c);

	begin("aarch64: RA in a register, FP saved with RA in LR: flex", false);
	cie = a64_cie("zR");
	FDE(cie, 0x2000, 0x10, 0x41, 0x09, 30, 9);
	FDE(cie, 0x3000, 0x10, 0x41, 0x0e, 16, 0x9d, 2);
	FDE(cie, 0x4000, 0x10, 0x41, 0x9e, 1);	/* RA saved, FP not: two words */
	/* After the padding word, the FP's offset needs two bytes (a byte holds its control) */
	FDE(cie, 0x5000, 0x10, 0x41, 0x11, 29, 0x67);
	if (convert(&c, SFRAME_GEN_AARCH64)) {
		expect(&c, 0x5004, F(R_REG(31, 0), R_SAME, R_AT(200)));
		expect(&c, 0x2000, F(R_REG(31, 0), R_SAME, R_SAME));
		expect(&c, 0x2004, F(R_REG(31, 0), R_REG(9, 0), R_SAME));
		expect(&c, 0x3004, F(R_REG(31, 16), R_SAME, R_AT(-16)));
		expect(&c, 0x4004, F(R_SP(0), R_AT(-8), R_SAME));
		expect_counts(&c, 4, 3, 0, 0);
	}
	conv_free(&c);

	/*
	 * glibc's _dl_runtime_resolve: CFA = SP and the RA at CFA + 8, as if
	 * PLT0's push of {x16, x30} were not there.  Every row moves by 16.
	 */
	begin("aarch64: RA saved above the CFA: the CFA moved to the call's, or refused", false);
	cie = a64_cie("zR");
	FDE(cie, 0x6000, 0x10, 0x41, 0x11, 30, 0x7f, 0x41, 0x0e, 0xd0, 0x01);
	/* glibc's __longjmp: CFA = x0 (its jmp_buf), the RA at CFA + 88 */
	FDE(cie, 0x7000, 0x10, 0x41, 0x0c, 0, 0, 0x11, 30, 0x75);
	if (convert(&c, SFRAME_GEN_AARCH64)) {
		expect(&c, 0x6000, F(R_SP(16), R_SAME, R_SAME));
		expect(&c, 0x6004, F(R_SP(16), R_AT(-8), R_SAME));
		expect(&c, 0x6008, F(R_SP(224), R_AT(-8), R_SAME));
		expect_none(&c, 0x7004);
		expect_counts(&c, 1, 0, 1, 0);
	}
	conv_free(&c);

	begin("aarch64 big endian", true);
	cie = a64_cie("zR");
	FDE(cie, 0x2000, 0x10, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1);
	{
		struct sframe_gen_input in;

		conv_input(&in, SFRAME_GEN_AARCH64);
		in.big_endian = true;
		if (convert_in(&c, &in)) {
			expect(&c, 0x2004, F(R_SP(16), R_AT(-8), R_AT(-16)));
			CHECK(c.sec.abi == SFRAME_ABI_AARCH64_ENDIAN_BIG, "abi %u", c.sec.abi);
		}
		conv_free(&c);
	}

	begin("x86_64: 0x2d is not negate_ra_state", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0x10, 0x2d);
	FDE(cie, 0x2000, 0x10, 0x2c);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_counts(&c, 0, 0, 2, 0);
		expect_reason(&c, "not supported");
	}
	conv_free(&c);
}

/* s390x */

static void test_s390(void)
{
	struct conv c;
	size_t cie;

	begin("s390x: stmg, aghi, lgr r11: scaled CFA offsets", true);
	cie = s390_cie();
	/* stmg %r6,%r15,48(%r15) saves r15 too: the caller's SP, still the CFA's */
	FDE(cie, 0x3000, 0x40, 0x46, 0x8b, 9, 0x8e, 6, 0x8f, 5, 0x46, 0x0e, 0xc0, 0x02, 0x44,
	    0x0d, 11);
	if (convert(&c, SFRAME_GEN_S390X)) {
		expect(&c, 0x3000, F(R_SP(160), R_SAME, R_SAME));
		expect(&c, 0x3006, F(R_SP(160), R_AT(-48), R_AT(-72)));
		expect(&c, 0x300c, F(R_SP(320), R_AT(-48), R_AT(-72)));
		expect(&c, 0x3010, F(R_FP(320), R_AT(-48), R_AT(-72)));
		expect(&c, 0x303f, F(R_FP(320), R_AT(-48), R_AT(-72)));
		expect_counts(&c, 1, 0, 0, 0);
		CHECK(c.sec.abi == SFRAME_ABI_S390X_ENDIAN_BIG && sframe_foreign(&c.sec),
		      "abi %u foreign %d", c.sec.abi, sframe_foreign(&c.sec));
	}
	conv_free(&c);

	begin("s390x: FP saved, RA not (RA word SFRAME_FRE_RA_OFFSET_INVALID)", true);
	cie = s390_cie();
	FDE(cie, 0x3000, 0x10, 0x42, 0x8b, 9);
	/* r14, r11 and r15 kept in floating-point registers (leaf): flex */
	FDE(cie, 0x4000, 0x10, 0x42, 0x09, 14, 16, 0x09, 11, 17, 0x09, 15, 18);
	/* A CFA offset that is no multiple of 8 from 160: not expressible */
	FDE(cie, 0x5000, 0x10, 0x42, 0x0e, 0xa4, 0x01);
	/* One whose word would fit 32 bits, but not the offset: 2^31 + 152 */
	FDE(cie, 0x6000, 0x10, 0x42, 0x0e, 0x98, 0x81, 0x80, 0x80, 0x08);
	if (convert(&c, SFRAME_GEN_S390X)) {
		expect_none(&c, 0x6002);
		expect(&c, 0x3002, F(R_SP(160), R_SAME, R_AT(-72)));
		expect(&c, 0x4000, F(R_REG(15, 160), R_SAME, R_SAME));
		expect(&c, 0x4002, F(R_REG(15, 160), R_REG(16, 0), R_REG(17, 0)));
		expect_none(&c, 0x5000);
		expect_counts(&c, 2, 1, 2, 0);
	}
	conv_free(&c);

	/*
	 * r15 kept in %f0, the frame 168 bytes: GCC's epilogue puts the CFA
	 * back at r15 + 160 eight bytes before the lgdr that restores r15
	 * (Debian's sqlite3).  Those rows go, the rest of the function stays;
	 * where CFA and r15 come back together, nothing goes.
	 */
	begin("s390x: an epilogue's CFA back before r15 is: its rows refused", true);
	cie = s390_cie();
	FDE(cie, 0x7000, 0x40, 0x44, 0x09, 15, 16, 0x44, 0x0e, 0xc8, 0x02, 0x50, 0x0a,
	    0x0e, 0xa0, 0x01, 0x48, 0xcf, 0x46, 0x0b);
	FDE(cie, 0x8000, 0x40, 0x44, 0x09, 15, 16, 0x44, 0x0e, 0xc8, 0x02, 0x50, 0x0a,
	    0xcf, 0x0e, 0xa0, 0x01, 0x46, 0x0b);
	if (convert(&c, SFRAME_GEN_S390X)) {
		expect(&c, 0x7004, F(R_SP(160), R_SAME, R_SAME));
		expect(&c, 0x7008, F(R_SP(328), R_SAME, R_SAME));
		expect(&c, 0x7017, F(R_SP(328), R_SAME, R_SAME));
		expect_none(&c, 0x7018);
		expect_none(&c, 0x701f);
		expect(&c, 0x7020, F(R_SP(160), R_SAME, R_SAME));
		expect(&c, 0x7026, F(R_SP(328), R_SAME, R_SAME));
		expect(&c, 0x703f, F(R_SP(328), R_SAME, R_SAME));
		expect(&c, 0x8018, F(R_SP(160), R_SAME, R_SAME));
		expect(&c, 0x8026, F(R_SP(328), R_SAME, R_SAME));
		expect_counts(&c, 3, 0, 0, 0);
		CHECK(c.st.rows_refused == 1, "%u rows refused", c.st.rows_refused);
	}
	conv_free(&c);

	/*
	 * glibc's __fentry__: the CIE names r0 as the RA column, so the RA is
	 * in r0 until r0 is saved at CFA - 208 (a flex rule either way).
	 */
	begin("s390x: an RA column other than r14", true);
	cie = eb_cie(&B, false, 1, "zR", 0x1b, 1, -8, 0, s390_init, sizeof(s390_init));
	FDE(cie, 0x3000, 0x10, 0x44, 0x80, 26);
	if (convert(&c, SFRAME_GEN_S390X)) {
		expect(&c, 0x3000, F(R_REG(15, 160), R_REG(0, 0), R_SAME));
		expect(&c, 0x3004, F(R_REG(15, 160), R_AT(-208), R_SAME));
		expect_counts(&c, 1, 1, 0, 0);
	}
	conv_free(&c);
}

/* Augmentations and pointer encodings */

static void test_encodings(void)
{
	static const uint8_t encs[] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x09, 0x0a, 0x0b, 0x0c,
					0x10, 0x11, 0x12, 0x13, 0x14, 0x19, 0x1a, 0x1b, 0x1c,
					0x30, 0x3b, 0x33 };
	struct conv c;
	unsigned int i;
	char name[64];
	size_t cie;

	for (i = 0; i < sizeof(encs); i++) {
		snprintf(name, sizeof(name), "FDE address encoding %#x", encs[i]);
		begin(name, false);
		cie = x86_cie("zR", encs[i]);
		/* Addresses a 2-byte field can hold, whatever it is relative to */
		eb_fde(&B, false, cie, encs[i], true,
		       (encs[i] & 0x70) == 0x10 ? EB_ADDR + 0x1000 :
		       (encs[i] & 0x70) == 0x30 ? EB_DATA_BASE + 0x1000 : 0x1000,
		       0x20, (const uint8_t[]){ 0x41, 0x0e, 16 }, 3);
		if (convert(&c, SFRAME_GEN_X86_64)) {
			unsigned long pc = (encs[i] & 0x70) == 0x10 ? EB_ADDR + 0x1000 :
					   (encs[i] & 0x70) == 0x30 ? EB_DATA_BASE + 0x1000 :
					   0x1000;

			expect_counts(&c, 1, 0, 0, 0);
			expect(&c, pc, F(R_SP(8), R_AT(-8), R_SAME));
			expect(&c, pc + 0x1f, F(R_SP(16), R_AT(-8), R_SAME));
			expect_none(&c, pc + 0x20);
		}
		conv_free(&c);
	}

	begin("CIE versions 1, 3, 4; augmentations \"\", \"eh\", \"zPLR\", \"zRS\", \"zRG\"; "
	      "64-bit lengths", false);
	{
		size_t c1 = eb_cie(&B, false, 3, "zR", 0x1b, 1, -8, 16, x86_init,
				   sizeof(x86_init));
		size_t c2 = eb_cie(&B, false, 4, "zR", 0x1b, 1, -8, 16, x86_init,
				   sizeof(x86_init));
		size_t c3 = eb_cie(&B, false, 1, "", 0, 1, -8, 16, x86_init, sizeof(x86_init));
		size_t c4 = eb_cie(&B, false, 1, "eh", 0, 1, -8, 16, x86_init, sizeof(x86_init));
		size_t c5 = x86_cie("zPLR", 0x1b);
		size_t c6 = x86_cie("zRS", 0x1b);
		size_t c7 = eb_cie(&B, true, 1, "zR", 0x1b, 1, -8, 16, x86_init,
				   sizeof(x86_init));
		size_t c8 = x86_cie("zRG", 0x1b);
		const uint8_t body[] = { 0x41, 0x0e, 16 };

		eb_fde(&B, false, c1, 0x1b, true, 0x1000, 0x10, body, 3);
		eb_fde(&B, false, c2, 0x1b, true, 0x2000, 0x10, body, 3);
		eb_fde(&B, false, c3, 0x00, false, 0x3000, 0x10, body, 3);
		eb_fde(&B, false, c4, 0x00, false, 0x4000, 0x10, body, 3);
		/* With 'L' the FDE's augmentation data holds an LSDA pointer. */
		{
			size_t at = eb_begin(&B, false);

			eb_put(&B, B.n - c5, 4);
			eb_ptr(&B, 0x1b, 0x5000);
			eb_ptr(&B, 0x03, 0x10);
			eb_uleb(&B, 4);
			eb_ptr(&B, 0x1b, 0x9999);
			eb_bytes(&B, body, 3);
			eb_end(&B, at);
		}
		eb_fde(&B, false, c6, 0x1b, true, 0x6000, 0x10, body, 3);
		eb_fde(&B, true, c7, 0x1b, true, 0x7000, 0x10, body, 3);
		eb_fde(&B, false, c8, 0x1b, true, 0x8000, 0x10, body, 3);
		if (convert(&c, SFRAME_GEN_X86_64)) {
			struct unwind_user_frame sig = F(R_SP(16), R_AT(-8), R_SAME);
			unsigned long pc;

			sig.signal = true;
			expect_counts(&c, 8, 0, 0, 0);
			CHECK(c.st.cies == 8, "cies %u", c.st.cies);
			for (pc = 0x1000; pc <= 0x8000; pc += 0x1000) {
				if (pc != 0x6000)
					expect(&c, pc + 1, F(R_SP(16), R_AT(-8), R_SAME));
			}
			expect(&c, 0x6001, sig);
		}
		conv_free(&c);
	}

	begin("ELF32 pointers (absptr of 4 bytes)", false);
	B.ptr_size = 4;
	{
		size_t c1 = eb_cie(&B, false, 1, "zR", 0x00, 1, -8, 16, x86_init,
				   sizeof(x86_init));

		eb_fde(&B, false, c1, 0x00, true, 0x1000, 0x10,
		       (const uint8_t[]){ 0x41, 0x0e, 16 }, 3);
		if (convert(&c, SFRAME_GEN_X86_64))
			expect(&c, 0x1001, F(R_SP(16), R_AT(-8), R_SAME));
		conv_free(&c);
	}
}

/* The reader functions on their own */

static void test_reads(void)
{
	struct eh_ctx ctx = { 0 };
	char msg[128];
	uint64_t v;
	int64_t s;
	size_t pos;

	begin("LEB128 and encoded pointers, bounds", false);
	ctx.data = B.d;
	ctx.addr = 0x1000;
	ctx.data_base = 0x5000;
	ctx.ptr_size = 8;
	ctx.err = msg;
	ctx.err_size = sizeof(msg);
	eb_uleb(&B, 624485);
	eb_sleb(&B, -123456);
	eb_sleb(&B, INT64_MIN);
	eb_uleb(&B, UINT64_MAX);
	ctx.size = B.n;
	pos = 0;
	CHECK(!eh_read_uleb(&ctx, &pos, B.n, &v) && v == 624485, "uleb %llu",
	      (unsigned long long)v);
	CHECK(!eh_read_sleb(&ctx, &pos, B.n, &s) && s == -123456, "sleb %lld", (long long)s);
	CHECK(!eh_read_sleb(&ctx, &pos, B.n, &s) && s == INT64_MIN, "sleb min %lld",
	      (long long)s);
	CHECK(!eh_read_uleb(&ctx, &pos, B.n, &v) && v == UINT64_MAX, "uleb max");
	CHECK(pos == B.n, "pos %zu", pos);
	CHECK(eh_read_uleb(&ctx, &pos, B.n, &v) == -EINVAL, "uleb past the end");

	eb_reset(&B, false);
	memset(B.d, 0x80, 11);
	B.d[11] = 0;
	B.n = 12;
	ctx.size = B.n;
	pos = 0;
	CHECK(eh_read_uleb(&ctx, &pos, B.n, &v) == -EINVAL && strstr(msg, "too large"),
	      "11-byte LEB128: %s", msg);
	pos = 0;
	CHECK(eh_read_sleb(&ctx, &pos, B.n, &s) == -EINVAL, "11-byte SLEB128");
	pos = 0;
	B.d[0] = 0x80;
	CHECK(eh_read_uleb(&ctx, &pos, 1, &v) == -EINVAL, "LEB128 cut by the record's end");

	eb_reset(&B, false);
	eb_put(&B, 0xfff0, 2);
	eb_put(&B, 0x10, 4);
	eb_put(&B, 0x20, 4);
	ctx.size = B.n;
	pos = 0;
	CHECK(!eh_read_encoded(&ctx, 0x0a, &pos, B.n, &v) && v == (uint64_t)-16, "sdata2");
	CHECK(!eh_read_encoded(&ctx, 0x13, &pos, B.n, &v) && v == 0x1000 + 2 + 0x10, "pcrel");
	CHECK(!eh_read_encoded(&ctx, 0x33, &pos, B.n, &v) && v == 0x5020, "datarel");
	pos = 0;
	CHECK(eh_read_encoded(&ctx, 0x23, &pos, B.n, &v) == -EOPNOTSUPP && strstr(msg, "textrel"),
	      "textrel: %s", msg);
	pos = 0;
	CHECK(eh_read_encoded(&ctx, 0x43, &pos, B.n, &v) == -EOPNOTSUPP && strstr(msg, "funcrel"),
	      "funcrel: %s", msg);
	pos = 0;
	CHECK(eh_read_encoded(&ctx, 0x53, &pos, B.n, &v) == -EOPNOTSUPP && strstr(msg, "aligned"),
	      "aligned: %s", msg);
	pos = 0;
	CHECK(eh_read_encoded(&ctx, 0x07, &pos, B.n, &v) == -EINVAL, "format 7");
	pos = 0;
	CHECK(eh_read_encoded(&ctx, 0x63, &pos, B.n, &v) == -EINVAL, "application 0x60");
	pos = 0;
	CHECK(eh_read_encoded(&ctx, 0xff, &pos, B.n, &v) == -EINVAL, "omit");
	pos = 8;
	CHECK(eh_read_encoded(&ctx, 0x04, &pos, B.n, &v) == -EINVAL, "udata8 past the end");
	pos = 0;
	CHECK(eh_read_u(&ctx, &pos, B.n + 1, 4, &v) == -EINVAL, "record end past the section");

	begin("eh_parse_cie() on what is no CIE", false);
	{
		struct eh_cie cie;
		size_t c0, f0, term;

		c0 = x86_cie("zR", 0x1b);
		f0 = FDE(c0, 0x1000, 0x10, 0);
		term = B.n;
		eb_put(&B, 0, 4);
		ctx.data = B.d;
		ctx.size = B.n;
		CHECK(!eh_parse_cie(&ctx, c0, &cie) && cie.ra_reg == 16 && cie.data_align == -8 &&
		      cie.code_align == 1 && cie.fde_enc == 0x1b && cie.has_z,
		      "the CIE: %s", msg);
		CHECK(eh_parse_cie(&ctx, f0, &cie) == -EINVAL && strstr(msg, "is an FDE"),
		      "an FDE: %s", msg);
		CHECK(eh_parse_cie(&ctx, term, &cie) == -EINVAL && strstr(msg, "terminator"),
		      "the terminator: %s", msg);
		CHECK(eh_parse_cie(&ctx, B.n, &cie) == -EINVAL && strstr(msg, "out of the section"),
		      "the end: %s", msg);
		CHECK(eh_parse_cie(&ctx, SIZE_MAX, &cie) == -EINVAL, "SIZE_MAX");
	}
}

/* Bad input */

static void expect_fail(const char *name, const char *part)
{
	struct sframe_gen_input in;
	struct sframe_gen_stats st;
	struct sframe_gen *gen;
	char err[256] = "";

	gen_test_start(name);
	conv_input(&in, SFRAME_GEN_X86_64);
	gen = sframe_gen_new(&in, &st, err, sizeof(err));
	CHECK(!gen && strstr(err, part), "expected failure with \"%s\", got %s", part,
	      gen ? "success" : err);
	sframe_gen_free(gen);
}

static void expect_bad(const char *name, unsigned int bad, unsigned int skipped,
		       const char *part)
{
	struct conv c;

	gen_test_start(name);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_counts(&c, 1, 0, skipped, bad);
		expect_reason(&c, part);
		expect(&c, 0x9000, F(R_SP(8), R_AT(-8), R_SAME));
	}
	conv_free(&c);
}

/* One good FDE at 0x9000, so that a section is made and checked */
static void good_fde(void)
{
	FDE(x86_cie("zR", 0x1b), 0x9000, 0x10, 0);
}

static void test_bad(void)
{
	struct conv c;
	size_t cie, at;

	begin("truncated length", false);
	eb_put(&B, 0x10, 2);
	expect_fail("truncated length", "truncated record length");

	begin("length past the end", false);
	eb_put(&B, 0x100, 4);
	eb_put(&B, 0, 4);
	expect_fail("length past the end", "past the end");

	begin("64-bit length past the end", false);
	eb_put(&B, 0xffffffff, 4);
	eb_put(&B, 1ULL << 62, 8);
	expect_fail("64-bit length past the end", "past the end");

	begin("truncated 64-bit length", false);
	eb_put(&B, 0xffffffff, 4);
	eb_put(&B, 0, 2);
	expect_fail("truncated 64-bit length", "truncated 64-bit length");

	begin("reserved length", false);
	eb_put(&B, 0xfffffff0, 4);
	expect_fail("reserved length", "reserved length");

	begin("record too short for its id", false);
	eb_put(&B, 2, 4);
	eb_put(&B, 0, 2);
	expect_fail("record too short for its id", "too short");

	begin("zero terminator: what follows is not read", false);
	good_fde();
	eb_put(&B, 0, 4);
	eb_put(&B, 0xdeadbeef, 4);
	if (convert(&c, SFRAME_GEN_X86_64))
		expect_counts(&c, 1, 0, 0, 0);
	conv_free(&c);

	begin("empty input", false);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_counts(&c, 0, 0, 0, 0);
		CHECK(sframe_gen_size(c.gen) == 28, "size %zu", sframe_gen_size(c.gen));
	}
	conv_free(&c);

	begin("CIE pointer out of range", false);
	good_fde();
	at = eb_begin(&B, false);
	eb_put(&B, 0x100000, 4);
	eb_bytes(&B, "\0\0\0\0\0\0\0\0", 8);
	eb_end(&B, at);
	expect_bad("CIE pointer out of range", 1, 0, "CIE pointer out of the section");

	begin("CIE pointer to an FDE", false);
	good_fde();
	at = FDE(x86_cie("zR", 0x1b), 0xa000, 0x10, 0);
	eb_fde(&B, false, at, 0x1b, true, 0xb000, 0x10, "", 0);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_counts(&c, 2, 0, 0, 1);
		expect_reason(&c, "not a CIE");
		expect_none(&c, 0xb000);
	}
	conv_free(&c);

	begin("CIE pointer into the middle of a record", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x9000, 0x10, 0);
	at = eb_begin(&B, false);
	/* Points at the good FDE's pc_begin field: not a record the walk met */
	eb_put(&B, B.n - (cie + 24 + 8), 4);
	eb_bytes(&B, "\0\0\0\0\0\0\0\0\0", 9);
	eb_end(&B, at);
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_counts(&c, 1, 0, 0, 1);
		expect_reason(&c, "not a CIE");
	}
	conv_free(&c);

	begin("remember_state overflow", false);
	good_fde();
	{
		uint8_t insns[CFI_MAX_STATE_DEPTH + 1];

		memset(insns, 0x0a, sizeof(insns));
		eb_fde(&B, false, x86_cie("zR", 0x1b), 0x1b, true, 0x1000, 0x10, insns,
		       sizeof(insns));
	}
	expect_bad("remember_state overflow", 1, 0, "nested too deep");

	begin("remember_state at the bound", false);
	good_fde();
	{
		uint8_t insns[2 * CFI_MAX_STATE_DEPTH];

		memset(insns, 0x0a, CFI_MAX_STATE_DEPTH);
		memset(insns + CFI_MAX_STATE_DEPTH, 0x0b, CFI_MAX_STATE_DEPTH);
		eb_fde(&B, false, x86_cie("zR", 0x1b), 0x1b, true, 0x1000, 0x10, insns,
		       sizeof(insns));
	}
	gen_test_start("remember_state at the bound");
	if (convert(&c, SFRAME_GEN_X86_64))
		expect_counts(&c, 2, 0, 0, 0);
	conv_free(&c);

	begin("restore_state underflow", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x0a, 0x0b, 0x0b);
	expect_bad("restore_state underflow", 1, 0, "without remember");

	begin("unknown opcode", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x41, 0x17);
	expect_bad("unknown opcode", 1, 0, "unknown CFA opcode 0x17");

	begin("instruction cut short", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x0c, 7);
	expect_bad("instruction cut short", 1, 0, "past the end");

	begin("expression block past the end", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x10, 6, 9, 0x76);
	expect_bad("expression block past the end", 1, 0, "past the end");

	begin("advance_loc4 cut short", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x04, 1, 0);
	expect_bad("advance_loc4 cut short", 1, 0, "past the end");

	begin("def_cfa_offset after a CFA expression", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x0f, 1, 0x30, 0x0e, 8);
	expect_bad("def_cfa_offset after a CFA expression", 1, 0, "without a register rule");

	begin("def_cfa_register after a CFA expression", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x0f, 1, 0x30, 0x0d, 6);
	expect_bad("def_cfa_register after a CFA expression", 1, 0, "without a register rule");

	begin("register number out of range", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x07, 0x80, 0x80, 0x04);
	expect_bad("register number out of range", 1, 0, "out of range");

	begin("factored offset overflow", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x86, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0x7f);
	expect_bad("factored offset overflow", 1, 0, "overflows");

	begin("CFA offset beyond SFrame's 32 bits", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x0e, 0x80, 0x80, 0x80, 0x80, 0x10);
	expect_bad("CFA offset beyond SFrame's 32 bits", 0, 1, "cannot express");

	begin("DW_CFA_set_loc", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x01, 0, 0, 0, 0);
	expect_bad("DW_CFA_set_loc", 0, 1, "set_loc");

	begin("advance in a CIE's initial instructions", false);
	good_fde();
	cie = eb_cie(&B, false, 1, "zR", 0x1b, 1, -8, 16, (const uint8_t[]){ 0x0c, 7, 8, 0x41 },
		     4);
	FDE(cie, 0x1000, 0x10, 0);
	expect_bad("advance in a CIE's initial instructions", 0, 1, "initial instructions");

	begin("CIE version 2", false);
	good_fde();
	FDE(eb_cie(&B, false, 2, "zR", 0x1b, 1, -8, 16, x86_init, sizeof(x86_init)), 0x1000,
	    0x10, 0);
	expect_bad("CIE version 2", 1, 0, "version 2");

	begin("unknown augmentation without z", false);
	good_fde();
	FDE(eb_cie(&B, false, 1, "xR", 0x1b, 1, -8, 16, x86_init, sizeof(x86_init)), 0x1000,
	    0x10, 0);
	expect_bad("unknown augmentation without z", 1, 0, "augmentation \"xR\"");

	begin("augmentation string not terminated", false);
	good_fde();
	at = eb_begin(&B, false);
	eb_put(&B, 0, 4);
	eb_put(&B, 1, 1);
	eb_bytes(&B, "zRzRzR", 6);
	eb_end(&B, at);
	FDE(at, 0x1000, 0x10, 0);
	expect_bad("augmentation string not terminated", 1, 0, "not terminated");

	begin("augmentation data past the end", false);
	good_fde();
	at = eb_begin(&B, false);
	eb_put(&B, 0, 4);
	eb_put(&B, 1, 1);
	eb_bytes(&B, "zR", 3);
	eb_bytes(&B, (const uint8_t[]){ 1, 0x78, 16, 40, 0x1b }, 5);
	eb_end(&B, at);
	FDE(at, 0x1000, 0x10, 0);
	expect_bad("augmentation data past the end", 1, 0, "augmentation data past the end");

	begin("FDE augmentation data past the end", false);
	good_fde();
	{
		size_t c2 = x86_cie("zR", 0x1b), f = eb_begin(&B, false);

		eb_put(&B, B.n - c2, 4);
		eb_ptr(&B, 0x1b, 0x1000);
		eb_ptr(&B, 0x03, 0x10);
		eb_uleb(&B, 40);
		eb_end(&B, f);
	}
	expect_bad("FDE augmentation data past the end", 1, 0, "augmentation data past the end");

	begin("code alignment factor 0", false);
	good_fde();
	FDE(eb_cie(&B, false, 1, "zR", 0x1b, 0, -8, 16, x86_init, sizeof(x86_init)), 0x1000,
	    0x10, 0);
	expect_bad("code alignment factor 0", 1, 0, "code alignment factor 0");

	begin("CIE version 4 with another address size", false);
	good_fde();
	B.ptr_size = 4;
	cie = eb_cie(&B, false, 4, "zR", 0x1b, 1, -8, 16, x86_init, sizeof(x86_init));
	B.ptr_size = 8;
	FDE(cie, 0x1000, 0x10, 0);
	expect_bad("CIE version 4 with another address size", 1, 0, "address size 4");

	begin("FDE address encodings refused", false);
	good_fde();
	FDE(x86_cie("zR", 0x07), 0x1000, 0x10, 0);
	expect_bad("FDE address format 7", 1, 0, "unknown pointer format");
	begin("textrel", false);
	good_fde();
	FDE(x86_cie("zR", 0x23), 0x1000, 0x10, 0);
	expect_bad("textrel", 0, 1, "textrel");
	begin("funcrel", false);
	good_fde();
	FDE(x86_cie("zR", 0x43), 0x1000, 0x10, 0);
	expect_bad("funcrel", 0, 1, "funcrel");
	begin("aligned", false);
	good_fde();
	FDE(x86_cie("zR", 0x53), 0x1000, 0x10, 0);
	expect_bad("aligned", 0, 1, "aligned");
	begin("indirect", false);
	good_fde();
	FDE(x86_cie("zR", 0x9b), 0x1000, 0x10, 0);
	expect_bad("indirect FDE address", 1, 0, "FDE address encoding 0x9b");
	begin("omit", false);
	good_fde();
	FDE(x86_cie("zR", 0xff), 0x1000, 0x10, 0);
	expect_bad("omitted FDE address", 1, 0, "FDE address encoding 0xff");

	begin("FDE range wraps around", false);
	good_fde();
	eb_fde(&B, false, x86_cie("zR", 0x1c), 0x1c, true, 0xfffffffffffff000ULL, 0x2000, "", 0);
	expect_bad("FDE range wraps around", 1, 0, "wraps around");

	begin("FDE over 4 GiB", false);
	good_fde();
	eb_fde(&B, false, x86_cie("zR", 0x1c), 0x1c, true, 0x100000000ULL, 0x100000000ULL, "",
	       0);
	expect_bad("FDE over 4 GiB", 0, 1, "over 4 GiB");

	begin("RA column naming the stack pointer", false);
	good_fde();
	FDE(eb_cie(&B, false, 1, "zR", 0x1b, 1, -8, 7, x86_init, sizeof(x86_init)), 0x1000,
	    0x10, 0);
	expect_bad("RA column naming the stack pointer", 0, 1, "RA column 7");

	begin("RA column past 255", false);
	good_fde();
	FDE(eb_cie(&B, false, 3, "zR", 0x1b, 1, -8, 256 + 14, x86_init, sizeof(x86_init)),
	    0x1000, 0x10, 0);
	expect_bad("RA column past 255", 0, 1, "RA column 270");

	begin("huge advance: rows past the FDE dropped", false);
	good_fde();
	FDE(x86_cie("zR", 0x1b), 0x1000, 0x10, 0x41, 0x0e, 16, 0x04, 0xff, 0xff, 0xff, 0xff,
	    0x0e, 24, 0x04, 0xff, 0xff, 0xff, 0xff);
	gen_test_start("huge advance");
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect(&c, 0x100f, F(R_SP(16), R_AT(-8), R_SAME));
		expect_counts(&c, 2, 0, 0, 0);
		CHECK(c.st.fres == 3, "fres %u", c.st.fres);
	}
	conv_free(&c);

	begin("huge code alignment factor", false);
	good_fde();
	cie = eb_cie(&B, false, 1, "zR", 0x1b, UINT64_MAX, -8, 16, x86_init, sizeof(x86_init));
	FDE(cie, 0x1000, 0x10, 0x0e, 16, 0x7f, 0x0e, 24);
	gen_test_start("huge code alignment factor");
	if (convert(&c, SFRAME_GEN_X86_64))
		expect(&c, 0x100f, F(R_SP(16), R_AT(-8), R_SAME));
	conv_free(&c);

	begin("FDE of no code, overlapping FDEs, text range", false);
	cie = x86_cie("zR", 0x1b);
	FDE(cie, 0x1000, 0, 0);
	FDE(cie, 0x2000, 0x20, 0);
	FDE(cie, 0x2010, 0x20, 0x41, 0x0e, 16);
	FDE(cie, 0x9000, 0x10, 0);
	gen_test_start("overlapping FDEs");
	if (convert(&c, SFRAME_GEN_X86_64)) {
		expect_counts(&c, 2, 0, 1, 0);
		expect(&c, 0x2011, F(R_SP(8), R_AT(-8), R_SAME));
		expect_reason(&c, "overlaps");
	}
	conv_free(&c);
	{
		struct sframe_gen_input in;

		conv_input(&in, SFRAME_GEN_X86_64);
		in.text_start = 0x8000;
		in.text_end = 0xa000;
		gen_test_start("text range");
		if (convert_in(&c, &in)) {
			expect_counts(&c, 1, 0, 0, 0);
			expect_none(&c, 0x2000);
			expect(&c, 0x9000, F(R_SP(8), R_AT(-8), R_SAME));
		}
		conv_free(&c);
	}

	begin("unknown arch, pointer size", false);
	{
		struct sframe_gen_input in;
		struct sframe_gen_stats st;
		char err[128] = "";

		conv_input(&in, SFRAME_GEN_X86_64);
		in.arch = 7;
		CHECK(!sframe_gen_new(&in, &st, err, sizeof(err)) && strstr(err, "arch"),
		      "arch 7: %s", err);
		conv_input(&in, SFRAME_GEN_X86_64);
		in.ptr_size = 2;
		CHECK(!sframe_gen_new(&in, &st, err, sizeof(err)) && strstr(err, "pointer size"),
		      "pointer size 2: %s", err);
	}
}

static void test_explosion(void)
{
	uint8_t *insns = malloc(4 * 70000);
	struct conv c;
	size_t n = 0, i;
	clock_t t0;

	begin("row explosion: more than 65535 rows", false);
	good_fde();
	for (i = 0; i < 70000; i++) {
		insns[n++] = 0x41;
		insns[n++] = 0x0e;
		insns[n++] = i & 1 ? 16 : 24;
	}
	eb_fde(&B, false, x86_cie("zR", 0x1b), 0x1b, true, 0x100000, 100000, insns, n);
	t0 = clock();
	expect_bad("row explosion", 0, 1, "more than 65535 rows");
	CHECK(clock() - t0 < 2 * CLOCKS_PER_SEC, "took %ld ms",
	      (long)((clock() - t0) * 1000 / CLOCKS_PER_SEC));

	begin("many rows, within bounds", false);
	n = 0;
	for (i = 0; i < 60000; i++) {
		insns[n++] = 0x41;
		insns[n++] = 0x0e;
		insns[n++] = i & 1 ? 16 : 24;
	}
	eb_fde(&B, false, x86_cie("zR", 0x1b), 0x1b, true, 0x100000, 100000, insns, n);
	gen_test_start("many rows");
	if (convert(&c, SFRAME_GEN_X86_64)) {
		CHECK(c.st.fres == 60001, "fres %u", c.st.fres);
		expect(&c, 0x100000 + 59999, F(R_SP(24), R_AT(-8), R_SAME));
		expect(&c, 0x100000 + 60000, F(R_SP(16), R_AT(-8), R_SAME));
		expect_fde(&c, 0, 0x100000, 100000, false, 0, SFRAME_FRE_TYPE_ADDR2);
	}
	conv_free(&c);

	begin("a long CIE program shared by many FDEs is run once", false);
	{
		uint8_t *init = malloc(200000);
		size_t cie;

		memset(init, 0, 200000);
		memcpy(init, x86_init, sizeof(x86_init));
		cie = eb_cie(&B, false, 1, "zR", 0x1b, 1, -8, 16, init, 200000);
		for (i = 0; i < 20000; i++)
			FDE(cie, 0x10000 + i * 16, 16, 0);
		t0 = clock();
		gen_test_start("long CIE program");
		if (convert(&c, SFRAME_GEN_X86_64))
			expect_counts(&c, 20000, 0, 0, 0);
		CHECK(clock() - t0 < 2 * CLOCKS_PER_SEC, "took %ld ms",
		      (long)((clock() - t0) * 1000 / CLOCKS_PER_SEC));
		conv_free(&c);
		free(init);
	}
	free(insns);
}

/* Filling a section: the object's own FDEs kept, the gaps converted */

#define KEPT_ADDR	0x900000UL

/* The section made of the FDEs of B in [@start, @end), emitted at KEPT_ADDR */
static uint8_t *fill_part(uint64_t start, uint64_t end, size_t *size)
{
	struct sframe_gen_input in;
	struct sframe_gen_stats st;
	struct sframe_gen *gen;
	uint8_t *bytes = NULL;
	char err[256];

	conv_input(&in, SFRAME_GEN_X86_64);
	in.text_start = start;
	in.text_end = end;
	gen = sframe_gen_new(&in, &st, err, sizeof(err));
	CHECK(gen, "%s", err);
	if (!gen)
		return NULL;
	*size = sframe_gen_size(gen);
	bytes = malloc(*size);
	if (bytes)
		sframe_gen_emit(gen, bytes, KEPT_ADDR);
	sframe_gen_free(gen);
	return bytes;
}

static uint8_t *fill_emit(struct sframe_gen *gen, size_t *size)
{
	uint8_t *bytes;

	*size = sframe_gen_size(gen);
	bytes = malloc(*size);
	if (bytes)
		sframe_gen_emit(gen, bytes, SEC_ADDR);
	return bytes;
}

/* x86_64 FDEs: two functions with a frame, one leaf far away */
static void fill_fdes(void)
{
	size_t cie = x86_cie("zR", 0x1b);

	FDE(cie, 0x1000, 0x40, 0x41, 0x0e, 16, 0x86, 2, 0x7e, 0x0e, 8);
	FDE(cie, 0x1040, 0x20, 0x41, 0x0e, 16);
	FDE(cie, 0x2000, 0x10);
}

static void test_fill(void)
{
	uint8_t *kept, *all = NULL, *filled = NULL;
	size_t kept_size = 0, all_size = 0, filled_size = 0;
	struct sframe_gen_input in;
	struct sframe_gen *whole;
	struct conv c;

	begin("fill: kept FDEs byte for byte, the gap converted", false);
	fill_fdes();
	kept = fill_part(0x1000, 0x1060, &kept_size);
	conv_input(&in, SFRAME_GEN_X86_64);
	whole = sframe_gen_new(&in, &c.st, c.err, sizeof(c.err));
	CHECK(whole, "%s", c.err);
	if (whole)
		all = fill_emit(whole, &all_size);
	in.sframe = kept;
	in.sframe_size = kept_size;
	in.sframe_addr = KEPT_ADDR;
	if (kept && all && convert_in(&c, &in)) {
		expect_counts(&c, 3, 0, 0, 0);
		CHECK(c.st.fdes_kept == 2 && c.st.fdes_covered == 2 && c.st.fdes == 3,
		      "kept %u covered %u read %u", c.st.fdes_kept, c.st.fdes_covered, c.st.fdes);
		/* Made by the same converter, kept or not: the same bytes */
		filled = fill_emit(c.gen, &filled_size);
		CHECK(filled && filled_size == all_size && !memcmp(filled, all, all_size),
		      "filled section differs from the whole conversion (%zu, %zu bytes)",
		      filled_size, all_size);
		expect(&c, 0x1001, F(R_SP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x2000, F(R_SP(8), R_AT(-8), R_SAME));
	}
	conv_free(&c);
	free(filled);
	free(all);
	sframe_gen_free(whole);

	begin("fill: FDEs overlapping kept ones are covered, not converted", false);
	fill_fdes();
	free(kept);
	kept = fill_part(0x1000, 0x1040, &kept_size);
	eb_reset(&B, false);
	{
		size_t cie = x86_cie("zR", 0x1b);

		FDE(cie, 0xff0, 0x20);		/* ends inside the kept one */
		FDE(cie, 0x1020, 0x40);		/* starts inside it */
		FDE(cie, 0x1000, 0x40);		/* the same function */
		FDE(cie, 0x1040, 0x10);		/* right after: a gap */
	}
	conv_input(&in, SFRAME_GEN_X86_64);
	in.sframe = kept;
	in.sframe_size = kept_size;
	in.sframe_addr = KEPT_ADDR;
	if (kept && convert_in(&c, &in)) {
		expect_counts(&c, 2, 0, 0, 0);
		CHECK(c.st.fdes_kept == 1 && c.st.fdes_covered == 3, "kept %u covered %u",
		      c.st.fdes_kept, c.st.fdes_covered);
		/* The kept rows, not the overlapping FDEs' */
		expect(&c, 0x1001, F(R_SP(16), R_AT(-8), R_AT(-16)));
		expect(&c, 0x1040, F(R_SP(8), R_AT(-8), R_SAME));
		expect_none(&c, 0xff0);
	}
	conv_free(&c);
	free(kept);
}

/* A kept section with one thing wrong: refused, with why */
static void fill_refused(const char *what, const uint8_t *kept, size_t size, const char *want)
{
	struct sframe_gen_input in;
	struct sframe_gen_stats st;
	struct sframe_gen *gen;
	char err[256] = "";

	conv_input(&in, SFRAME_GEN_X86_64);
	in.sframe = kept;
	in.sframe_size = size;
	in.sframe_addr = KEPT_ADDR;
	gen = sframe_gen_new(&in, &st, err, sizeof(err));
	CHECK(!gen && strstr(err, want), "%s: got %s '%s', want '%s'", what,
	      gen ? "a section" : "NULL", err, want);
	sframe_gen_free(gen);
}

static void test_fill_bad(void)
{
	size_t size = 0, fre_at;
	uint8_t *kept, *bad;
	unsigned int i;

	begin("fill: a bad section to keep", false);
	fill_fdes();
	kept = fill_part(0x1000, 0x1060, &size);
	bad = kept ? malloc(size) : NULL;
	if (!bad) {
		CHECK(0, "setup");
		free(kept);
		return;
	}
	/* Header 28 bytes, no auxiliary header, 2 FDEs of 16 from offset 0 */
	fre_at = 28 + 32;
#define BAD(what, off, val, want) do {						\
		memcpy(bad, kept, size);					\
		bad[off] = (val);						\
		fill_refused(what, bad, size, want);				\
	} while (0)
	fill_refused("short", kept, 27, "no SFrame header");
	BAD("magic", 0, 0, "no SFrame header");
	BAD("version 2", 2, 2, "version 2, not 3");
	BAD("ABI", 4, SFRAME_ABI_AARCH64_ENDIAN_LITTLE, "ABI 2");
	BAD("fixed FP offset", 5, 16, "fixed offsets 16 -8");
	BAD("fixed RA offset", 6, 0, "fixed offsets 0 0");
	BAD("FDE count", 8, 0xff, "past its end");
	BAD("FRE length", 17, 1, "past its end");
	BAD("FRE offset", 44 + 13, 0x10, "FDE 1: bad FREs");
	BAD("FRE address type", fre_at + 2, 0x0f, "FDE 0: bad FREs");
	BAD("FRE count", fre_at, 0xff, "FDE 0: bad FREs");
	/* FDE 1 starting where FDE 0 does: its field is 16 bytes on */
	memcpy(bad, kept, size);
	for (i = 0; i < 8; i++)
		bad[44 + i] = kept[28 + i];
	bad[44] -= 16;
	fill_refused("overlapping", bad, size, "FDE 1: not sorted, or overlapping");
	/* A data word size of 3 in the first FRE */
	memcpy(bad, kept, size);
	bad[fre_at + 5 + 1] |= 0x60;
	fill_refused("data word size", bad, size, "FDE 0: bad FREs");
#undef BAD
	free(bad);
	free(kept);
}

int main(void)
{
	test_x86_basic();
	test_x86_advance();
	test_x86_offsets();
	test_x86_state();
	test_x86_undefined();
	test_x86_drap();
	test_x86_plt();
	test_x86_unrepresentable();
	test_a64();
	test_s390();
	test_encodings();
	test_reads();
	test_bad();
	test_explosion();
	test_fill();
	test_fill_bad();
	return gen_report();
}
