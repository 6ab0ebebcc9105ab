// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen-compare: for every code byte of a linked ELF file, up to three rules
 *   (a) from the .sframe GNU as/ld made,
 *   (b) from the SFrame sframe-gen makes of the file's .eh_frame,
 *   (c) from the file's DWARF CFI as GNU readelf interprets it,
 * (a) and (b) decoded by the kernel's reader (kernel/unwind/sframe.c, built
 * in user space), all three in the normal form of gc.h, and counted:
 *
 *   gen-compare [--diffs N] [--no-gen] --interp FILE --raw FILE ELF
 *
 * FILEs are `readelf --debug-dump=frames-interp ELF` and
 * `readelf --debug-dump=frames ELF`.  Prints counts, the first N
 * disagreements of each kind (5), and one line "summary key=value ..." for
 * scripts.  Exits 0 when everything could be read, whatever the counts say;
 * the caller judges them.  1 on an error, 2 on bad arguments.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_internal.h"
#include "../../../sframe/frame-str.h"
#include "../../../sframe/sframe-gen.h"
#include "gc.h"
#include "gc_dwarf.h"
#include "gc_elf.h"

static unsigned int max_diffs = 5;

struct counts {
	u64	text;
	u64	a, b, c, cx;		/* present; cx: (c) expressible */
	u64	ba_eq, ba_ne, ba_noa, ba_nob;
	u64	bc_eq, bc_ne, bc_nx, bc_nob, bc_noc;
	u64	bc_bnx;			/* b where c is not expressible, outside PLTs */
	u64	bc_nob_part;		/* b absent, c expressible, in an FDE that is not all */
	u64	ac_eq, ac_ne, ac_noa;
	u64	ac_anx;			/* a where c is not expressible: gas said too much */
	u64	ac_anx_known;		/* ... where gas 2.47 is known to: gas_known_nx() */
	u64	plt_ba_ne, plt_ac_ne;	/* ld's PLT sections, not counted above */
	u64	plt_known;		/* ... ld 2.47's .plt.got rows, which DWARF and b refute */
	u64	a_err, b_err;
	u64	nx[GC_NX_COUNT];
};

/* Disagreements printed, per kind, and where the last one was */
struct diffs {
	const char	*what;
	unsigned int	shown;
	u64		last;
};

static void show(struct diffs *d, u64 pc, const char *l, const struct unwind_user_frame *x,
		 const char *r, const struct unwind_user_frame *y)
{
	char bx[UNWIND_USER_FRAME_STR_SIZE], by[UNWIND_USER_FRAME_STR_SIZE];
	bool run = d->shown && d->last == pc - 1;

	d->last = pc;
	if (run || d->shown >= max_diffs)
		return;
	d->shown++;
	printf("  %s at %#llx: %s %s, %s %s\n", d->what, pc, l,
	       x ? unwind_user_frame_str(x, bx, sizeof(bx)) : "none", r,
	       y ? unwind_user_frame_str(y, by, sizeof(by)) : "");
}

/* A rule by the kernel's reader: 1 found, 0 none, -1 the reader failed */
static int lookup(struct sframe_section *sec, const struct gc_abi *abi, u64 pc,
		  struct unwind_user_frame *f)
{
	int ret;

	if (!sec)
		return 0;
	ret = sframe_find(sec, pc, f, SFRAME_UNBOUNDED);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return -1;
	gc_normalize(abi, f);
	return 1;
}

static bool init_section(struct sframe_section *sec, int region, u64 addr,
			 unsigned char *bytes, u64 size, const char *what)
{
	int ret;

	sframe_umem[region] = (struct sframe_umem_region){
		.addr = addr, .len = size, .data = bytes,
	};
	memset(sec, 0, sizeof(*sec));
	ret = sframe_section_init(sec, addr, size, 0, ULONG_MAX, SIZE_MAX);
	if (ret) {
		printf("  %s: the kernel's reader rejects it: %s (%s)\n", what,
		       sec->reason ? sec->reason : "rejected", strerror(-ret));
		return false;
	}
	return true;
}

static enum sframe_gen_arch gen_arch(enum gc_arch arch)
{
	switch (arch) {
	case GC_AARCH64:
		return SFRAME_GEN_AARCH64;
	case GC_S390X:
		return SFRAME_GEN_S390X;
	default:
		return SFRAME_GEN_X86_64;
	}
}

/* (b): sframe-gen's section for the file, at an address above all of it */
static unsigned char *generate(const struct gc_elf *elf, struct sframe_gen_stats *st,
			       u64 *addr, u64 *size, char *err, size_t err_size)
{
	const struct gc_section *eh = gc_elf_section(elf, ".eh_frame");
	const struct gc_section *got = gc_elf_section(elf, ".got");
	struct sframe_gen_input in = { 0 };
	struct sframe_gen *gen;
	unsigned char *buf;

	if (!eh) {
		snprintf(err, err_size, "no .eh_frame");
		return NULL;
	}
	in.arch = gen_arch(elf->arch);
	in.eh_frame = eh->bytes;
	in.eh_frame_size = eh->size;
	in.eh_frame_addr = eh->addr;
	in.data_base = got ? got->addr : 0;
	in.ptr_size = 8;
	gen = sframe_gen_new(&in, st, err, err_size);
	if (!gen)
		return NULL;
	*size = sframe_gen_size(gen);
	*addr = ((elf->alloc_end + 0xfffff) & ~0xfffffULL) + 0x100000;
	buf = calloc(1, *size ? *size : 1);
	if (!buf)
		gc_fail("out of memory");
	sframe_gen_emit(gen, buf, *addr);
	sframe_gen_free(gen);
	return buf;
}

struct fde_acc {
	u64		bytes;
	u64		b_bytes;
	unsigned int	nx;
	bool		partial;
};

static void report_fdes(const struct gc_dwarf *d, const struct fde_acc *acc)
{
	unsigned int n[GC_NX_COUNT] = { 0 }, gone[GC_NX_COUNT] = { 0 }, i, part = 0;

	for (i = 0; i < d->fdes; i++) {
		if (!acc[i].bytes)
			continue;
		n[acc[i].nx]++;
		if (!acc[i].b_bytes)
			gone[acc[i].nx]++;
		else if (acc[i].b_bytes < acc[i].bytes)
			part++;
	}
	printf("  DWARF FDEs in code, by first inexpressible rule ");
	printf("(of which sframe-gen described none):\n");
	for (i = 0; i < GC_NX_COUNT; i++)
		if (n[i])
			printf("    %-18s %6u (%u)\n", gc_nx_name(i), n[i], gone[i]);
	printf("    FDEs sframe-gen described in part: %u\n", part);
}

/*
 * Rules gas 2.47 writes though SFrame cannot say what DWARF says: it
 * truncates an s390x CFA offset that is no multiple of 8, ignores
 * x86_64's .cfi_same_value %rip, and writes GCC's s390x epilogue rows
 * whose CFA is back before r15 is as they stand (a walk from them reads a
 * stale slot: gas has no way to know).  Known, counted apart, and
 * nothing else.
 */
static bool gas_known_nx(const struct gc_abi *abi, enum gc_nx nx)
{
	return (abi->cfa_align > 1 && nx == GC_NX_CFA_ALIGN) ||
	       (abi->fixed_ra && nx == GC_NX_RA_UNCHANGED) ||
	       nx == GC_NX_CFA_BEFORE_SP;
}

static int compare(const char *path, const char *interp, const char *raw, bool use_gen)
{
	struct sframe_section sa, sb, *pa = NULL, *pb = NULL;
	struct diffs d_ba = { .what = "b!=a" }, d_bc = { .what = "b!=c" };
	struct diffs d_ac = { .what = "a!=c" }, d_err = { .what = "reader error" };
	struct diffs d_nob = { .what = "b absent, c expressible" };
	struct diffs d_plt = { .what = "PLT a!=c" };
	struct diffs d_bnx = { .what = "b where c is not expressible" };
	struct diffs d_anx = { .what = "a where c is not expressible" };
	struct sframe_gen_stats st = { 0 };
	const struct gc_section *sf;
	const struct gc_abi *abi;
	struct counts k = { 0 };
	struct fde_acc *acc;
	struct gc_dwarf dw;
	struct gc_elf elf;
	unsigned char *gbuf = NULL;
	u64 gaddr = 0, gsize = 0, pc;
	char err[256] = "", why[48];
	size_t i, row = 0;

	gc_elf_load(path, &elf);
	abi = gc_abi(elf.arch);
	printf("%s (%s)\n", path, abi->name);
	sf = gc_elf_section(&elf, ".sframe");
	if (sf && init_section(&sa, 0, sf->addr, (unsigned char *)sf->bytes, sf->size,
			       "(a) .sframe"))
		pa = &sa;
	if (use_gen) {
		gbuf = generate(&elf, &st, &gaddr, &gsize, err, sizeof(err));
		if (!gbuf)
			printf("  (b) sframe-gen fails: %s\n", err);
		else if (init_section(&sb, 1, gaddr, gbuf, gsize, "(b) sframe-gen's section"))
			pb = &sb;
	}
	gc_dwarf_load(abi, interp, raw, &dw);
	acc = calloc(dw.fdes ? dw.fdes : 1, sizeof(*acc));
	if (!acc)
		gc_fail("out of memory");
	/* An FDE with a row SFrame cannot say may be left out whole, as gas does */
	for (i = 0; i < dw.n; i++)
		if (dw.rows[i].nx && !acc[dw.rows[i].fde].partial)
			acc[dw.rows[i].fde].partial = true;

	for (i = 0; i < elf.nsecs; i++) {
		const struct gc_section *s = &elf.secs[i];

		/* ld, not gas, makes the SFrame of PLTs: counted apart */
		bool plt = !strncmp(s->name, ".plt", 4) || !strcmp(s->name, ".iplt");
		/*
		 * ld 2.47 gives x86_64's .plt.got entries (jmp *GOT) cfa=sp+16,
		 * where a call put the RA: sp+8, as DWARF says.
		 */
		bool pltgot_known = abi->fixed_ra && !strcmp(s->name, ".plt.got");

		if (!s->exec)
			continue;
		k.text += s->size;
		row = 0;
		for (pc = s->addr; pc < s->addr + s->size; pc++) {
			struct unwind_user_frame fa, fb;
			const struct gc_row *c = NULL;
			int ha, hb;
			bool cx;

			while (row < dw.n && dw.rows[row].end <= pc)
				row++;
			if (row < dw.n && dw.rows[row].start <= pc)
				c = &dw.rows[row];
			cx = c && c->nx == GC_NX_NONE;
			ha = lookup(pa, abi, pc, &fa);
			hb = lookup(pb, abi, pc, &fb);
			if (ha < 0) {
				k.a_err++;
				show(&d_err, pc, "(a)", NULL, pa->reason, NULL);
				ha = 0;
			}
			if (hb < 0) {
				k.b_err++;
				show(&d_err, pc, "(b)", NULL, pb->reason, NULL);
				hb = 0;
			}
			k.a += ha;
			k.b += hb;
			if (c) {
				k.c++;
				k.nx[c->nx]++;
				acc[c->fde].bytes++;
				acc[c->fde].b_bytes += hb;
				if (!acc[c->fde].nx)
					acc[c->fde].nx = c->nx;
			}
			k.cx += cx;
			if (plt) {
				bool ac = ha && cx && !gc_frame_eq(&fa, &c->frame);

				if (ac && pltgot_known && (!hb || gc_frame_eq(&fb, &c->frame))) {
					k.plt_known++;
				} else {
					k.plt_ba_ne += hb && ha && !gc_frame_eq(&fb, &fa);
					k.plt_ac_ne += ac;
					if (ac)
						show(&d_plt, pc, "a", &fa, "c", &c->frame);
				}
			} else if (hb && ha) {
				if (gc_frame_eq(&fb, &fa)) {
					k.ba_eq++;
				} else {
					k.ba_ne++;
					show(&d_ba, pc, "b", &fb, "a", &fa);
				}
			} else if (hb) {
				k.ba_noa++;
			} else if (ha) {
				k.ba_nob++;
			}
			if (hb && cx) {
				if (gc_frame_eq(&fb, &c->frame)) {
					k.bc_eq++;
				} else {
					k.bc_ne++;
					show(&d_bc, pc, "b", &fb, "c", &c->frame);
				}
			} else if (hb && !c) {
				k.bc_noc++;
			} else if (cx && use_gen && acc[c->fde].partial) {
				k.bc_nob_part++;
			} else if (cx && use_gen) {
				k.bc_nob++;
				show(&d_nob, pc, "b", NULL, "c", &c->frame);
			}
			if (c && !cx) {
				k.bc_nx++;
				if (hb && !plt) {
					k.bc_bnx++;
					snprintf(why, sizeof(why), "c %s", gc_nx_name(c->nx));
					show(&d_bnx, pc, "b", &fb, why, NULL);
				}
			}
			if (plt) {
				/* counted above */
			} else if (ha && c && !cx && gas_known_nx(abi, c->nx)) {
				k.ac_anx_known++;
			} else if (ha && c && !cx) {
				k.ac_anx++;
				snprintf(why, sizeof(why), "c %s", gc_nx_name(c->nx));
				show(&d_anx, pc, "a", &fa, why, NULL);
			} else if (ha && cx) {
				if (gc_frame_eq(&fa, &c->frame)) {
					k.ac_eq++;
				} else {
					k.ac_ne++;
					show(&d_ac, pc, "a", &fa, "c", &c->frame);
				}
			} else if (cx) {
				k.ac_noa++;
			}
		}
	}

	printf("  text %llu bytes: (a) gas %llu, (b) sframe-gen %llu"
	       ", (c) CFI %llu (expressible %llu, overlapping FDEs %llu)\n",
	       k.text, k.a, k.b, k.c, k.cx, dw.overlap_bytes);
	printf("  b vs a: %llu equal, %llu differ, %llu a absent, "
	       "%llu b absent\n", k.ba_eq, k.ba_ne, k.ba_noa, k.ba_nob);
	printf("  b vs c: %llu equal, %llu differ, %llu c not expressible (b there outside PLTs: "
	       "%llu), %llu b absent where c expressible (and %llu in FDEs c cannot express"
	       " whole), %llu b where no CFI\n",
	       k.bc_eq, k.bc_ne, k.bc_nx, k.bc_bnx, k.bc_nob, k.bc_nob_part, k.bc_noc);
	printf("  a vs c: %llu equal, %llu differ, %llu a absent where c expressible, %llu a where"
	       " c is not expressible\n", k.ac_eq, k.ac_ne, k.ac_noa, k.ac_anx);
	printf("  PLT sections (ld's SFrame): %llu b!=a, %llu a!=c; ld 2.47's .plt.got, known: %llu\n",
	       k.plt_ba_ne, k.plt_ac_ne, k.plt_known);
	printf("  gas 2.47's known rules DWARF cannot express: %llu\n", k.ac_anx_known);
	printf("  c not expressible, bytes by reason:");
	for (i = 1; i < GC_NX_COUNT; i++)
		if (k.nx[i])
			printf(" %s %llu", gc_nx_name(i), k.nx[i]);
	printf("\n");
	if (gbuf)
		printf("  sframe-gen: %u CIEs, %u FDEs, %u written (%u flex), %u skipped, %u bad, "
		       "%u FREs, %llu bytes described, %llu skipped, section %llu bytes%s%s\n",
		       st.cies, st.fdes, st.fdes_out, st.fdes_flex, st.fdes_skipped, st.fdes_bad,
		       st.fres,
		       (unsigned long long)st.bytes_described,
		       (unsigned long long)st.bytes_skipped, gsize,
		       st.reason[0] ? "; first skipped: " : "", st.reason);
	report_fdes(&dw, acc);
	printf("summary text=%llu a=%llu b=%llu c=%llu cx=%llu"
	       " ba_eq=%llu ba_ne=%llu ba_noa=%llu ba_nob=%llu"
	       " bc_eq=%llu bc_ne=%llu bc_nx=%llu bc_nob=%llu"
	       " bc_noc=%llu ac_eq=%llu ac_ne=%llu ac_noa=%llu"
	       " a_err=%llu b_err=%llu gen=%d a_sec=%d fdes=%u gen_skipped=%u gen_bad=%u"
	       " oracle=%llu plt_ba_ne=%llu plt_ac_ne=%llu bc_bnx=%llu bc_nob_part=%llu ac_anx=%llu"
	       " plt_known=%llu ac_anx_known=%llu\n",
	       k.text, k.a, k.b, k.c, k.cx, k.ba_eq, k.ba_ne, k.ba_noa, k.ba_nob, k.bc_eq, k.bc_ne,
	       k.bc_nx, k.bc_nob, k.bc_noc, k.ac_eq, k.ac_ne, k.ac_noa, k.a_err, k.b_err,
	       use_gen ? !!pb : -1, sf ? !!pa : -1, dw.fdes, st.fdes_skipped, st.fdes_bad,
	       k.nx[GC_NX_ORACLE], k.plt_ba_ne, k.plt_ac_ne, k.bc_bnx,
	       k.bc_nob_part, k.ac_anx, k.plt_known, k.ac_anx_known);

	if (pa)
		sframe_section_release(pa);
	if (pb)
		sframe_section_release(pb);
	free(gbuf);
	free(acc);
	gc_dwarf_free(&dw);
	gc_elf_free(&elf);
	return 0;
}

static __noreturn void usage(void)
{
	fprintf(stderr, "usage: gen-compare [--diffs N] [--no-gen] --interp FILE --raw FILE ELF\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *interp = NULL, *raw = NULL;
	bool use_gen = true;
	char *end;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--no-gen")) {
			use_gen = false;
		} else if (!strcmp(argv[i], "--diffs") && i + 1 < argc) {
			errno = 0;
			max_diffs = strtoul(argv[++i], &end, 10);
			if (errno || *end)
				usage();
		} else if (!strcmp(argv[i], "--interp") && i + 1 < argc) {
			interp = argv[++i];
		} else if (!strcmp(argv[i], "--raw") && i + 1 < argc) {
			raw = argv[++i];
		} else {
			usage();
		}
	}
	if (i != argc - 1 || !interp || !raw)
		usage();
	compare(argv[i], interp, raw, use_gen);
	if (fflush(stdout) || ferror(stdout))
		gc_fail("write error");
	return 0;
}
