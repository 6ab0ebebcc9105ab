// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-dump: print the .sframe section of an ELF file as the kernel's
 * SFrame reader (kernel/unwind/sframe.c, built through the user space
 * shims) understands it.
 *
 *   sframe-dump FILE                 header, FDEs and FREs
 *   sframe-dump --lookup-all FILE    the rules of every covered address
 *   sframe-dump --lookup ADDR FILE   the rules at one address, or "none"
 *
 * The section bytes are the only "user memory" the reader can see, so what
 * this prints is exactly what an unwinder in the kernel would use.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_internal.h"
#include "frame-str.h"
#include "sframe-elf.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

static const char *prog = "sframe-dump";

static void print_frame(const struct unwind_user_frame *f)
{
	char buf[UNWIND_USER_FRAME_STR_SIZE];

	puts(unwind_user_frame_str(f, buf, sizeof(buf)));
}

static void read_fde(struct sframe_section *sec, unsigned int n,
		     struct sframe_fde *fde)
{
	if (sframe_read_fde(sec, n, fde))
		sframe_elf_fail("FDE %u: %s", n, sec->reason);
}

static int lookup_all(struct sframe_section *sec, unsigned long code_lo,
		      unsigned long code_hi)
{
	struct unwind_user_frame frame;
	struct sframe_fde fde;
	unsigned long pc, end, done = 0;
	unsigned int n;
	bool any = false;
	int ret;

	for (n = 0; n < sec->num_fdes; n++) {
		read_fde(sec, n, &fde);
		end = fde.func_start + fde.func_size;
		if (fde.func_size && (fde.func_start < code_lo || end > code_hi))
			sframe_elf_fail("FDE %u (%#lx-%#lx) lies outside the file's code", n,
					fde.func_start, end);
		if (any && fde.func_start < done)
			sframe_elf_fail("FDE %u at %#lx overlaps addresses already printed (up to %#lx)",
					n, fde.func_start, done);
		for (pc = fde.func_start; pc < end; pc++) {
			ret = sframe_find(sec, pc, &frame, SFRAME_UNBOUNDED);
			printf("%#lx ", pc);
			if (ret == -ENOENT) {
				puts("none");
				continue;
			}
			if (ret)
				sframe_elf_fail("lookup of %#lx: %s", pc, sec->reason);
			print_frame(&frame);
		}
		if (fde.func_size) {
			done = end;
			any = true;
		}
	}
	return 0;
}

static int lookup_one(struct sframe_section *sec, unsigned long pc)
{
	struct unwind_user_frame frame;
	int ret;

	ret = sframe_find(sec, pc, &frame, SFRAME_UNBOUNDED);
	printf("%#lx ", pc);
	if (ret == -ENOENT) {
		puts("none");
		return 0;
	}
	if (ret)
		sframe_elf_fail("lookup of %#lx: %s", pc, sec->reason);
	print_frame(&frame);
	return 0;
}

static const char *abi_name(u8 abi)
{
	switch (abi) {
	case SFRAME_ABI_AARCH64_ENDIAN_BIG:
		return "aarch64 big-endian";
	case SFRAME_ABI_AARCH64_ENDIAN_LITTLE:
		return "aarch64 little-endian";
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		return "amd64 little-endian";
	case SFRAME_ABI_S390X_ENDIAN_BIG:
		return "s390x big-endian";
	}
	return "unknown";
}

static void dump_header(const struct sframe_loc *loc,
			const struct sframe_section *sec)
{
	struct sframe_header h;

	/* sframe_section_init() checked the first header is there. */
	memcpy(&h, loc->bytes, sizeof(h));
	if (sframe_foreign(sec)) {
		h.num_fdes = swab32(h.num_fdes);
		h.num_fres = swab32(h.num_fres);
		h.fre_len = swab32(h.fre_len);
		h.fdes_off = swab32(h.fdes_off);
		h.fres_off = swab32(h.fres_off);
	}
	printf("%s at %#lx, %lu bytes\n", loc->where, loc->addr, loc->size);
	if (loc->relocated)
		printf("  relocatable object: sections placed at their file offsets\n");
	printf("  version: %u\n", sec->version);
	printf("  flags: %#x%s%s%s\n", h.preamble.flags,
	       h.preamble.flags & SFRAME_F_FDE_SORTED ? " FDE_SORTED" : "",
	       h.preamble.flags & SFRAME_F_FRAME_POINTER ? " FRAME_POINTER" : "",
	       h.preamble.flags & SFRAME_F_FDE_FUNC_START_PCREL ?
	       " FDE_FUNC_START_PCREL" : "");
	printf("  abi: %u (%s)%s\n", sec->abi, abi_name(sec->abi),
	       sframe_foreign(sec) ? ", foreign byte order" : "");
	printf("  cfa_fixed_fp_offset: %d\n", sec->fixed_fp_off);
	printf("  cfa_fixed_ra_offset: %d\n", sec->fixed_ra_off);
	printf("  auxhdr_len: %u\n", h.auxhdr_len);
	printf("  num_fdes: %u (indexed: %u)\n", h.num_fdes, sec->num_fdes);
	printf("  num_fres: %u\n", h.num_fres);
	printf("  fre_len: %u\n", h.fre_len);
	printf("  fdes_off: %u\n", h.fdes_off);
	printf("  fres_off: %u\n", h.fres_off);
	printf("  elements: %s\n", sec->elems ? "several" : "one");
}

static const char *const fre_types[] = { "addr1", "addr2", "addr4" };

static int dump(const struct sframe_loc *loc, struct sframe_section *sec)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	unsigned long addr;
	unsigned int n, i;
	bool mask;

	dump_header(loc, sec);
	for (n = 0; n < sec->num_fdes; n++) {
		read_fde(sec, n, &fde);
		mask = SFRAME_FDE_INFO_PCTYPE(fde.info) == SFRAME_FDE_PCTYPE_MASK;
		printf("\nFDE %u: [%#lx, %#lx) size %u\n", n, fde.func_start,
		       fde.func_start + fde.func_size, fde.func_size);
		printf("  type %s, pc type %s", SFRAME_FDE_INFO2_TYPE(fde.info2) ==
		       SFRAME_FDE_TYPE_FLEX ? "flex" : "default",
		       mask ? "mask" : "inc");
		if (mask)
			printf(" (rep_size %u)", fde.rep_size);
		printf(", fre type %s, pauth key %c, signal %u, %u FREs\n",
		       fre_types[SFRAME_FDE_INFO_FRE_TYPE(fde.info)],
		       SFRAME_FDE_INFO_PAUTH_KEY(fde.info) ? 'b' : 'a',
		       sec->version == SFRAME_VERSION_3 ?
		       SFRAME_FDE_INFO_SIGNAL(fde.info) : 0, fde.num_fres);
		if (!fde.num_fres && sec->version == SFRAME_VERSION_3 &&
		    SFRAME_FDE_INFO2_TYPE(fde.info2) == SFRAME_FDE_TYPE_DEFAULT)
			printf("    (whole function outermost)\n");
		for (i = 0, addr = fde.fres; i < fde.num_fres; i++, addr = fre.next) {
			if (sframe_read_fre(sec, &fde, addr, &fre))
				sframe_elf_fail("FDE %u FRE %u: %s", n, i, sec->reason);
			if (mask)
				printf("    +0x%04x ", fre.start);
			else
				printf("    %#lx ", fde.func_start + fre.start);
			print_frame(&fre.frame);
		}
	}
	return 0;
}

static __noreturn void bad_args(void)
{
	fprintf(stderr, "usage: %s [--lookup-all | --lookup ADDR | --validate] FILE\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sframe_section sec = { 0 };
	struct sframe_loc loc;
	bool lookup = false, validate = false, one = false;
	unsigned long addr = 0;
	char *end;
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--lookup-all")) {
			lookup = true;
		} else if (!strcmp(argv[i], "--validate")) {
			validate = true;
		} else if (!strcmp(argv[i], "--lookup") && i + 1 < argc) {
			errno = 0;
			addr = strtoul(argv[++i], &end, 0);
			if (errno || !*argv[i] || *end)
				bad_args();
			one = true;
		} else {
			bad_args();
		}
	}
	if (i != argc - 1 || lookup + validate + one > 1)
		bad_args();

	sframe_elf_load(prog, argv[i], &loc);
	sframe_umem[0] = (struct sframe_umem_region) {
		.addr = loc.addr, .len = loc.size, .data = (unsigned char *)loc.bytes,
	};
	ret = sframe_section_init(&sec, loc.addr, loc.size, 0, ULONG_MAX, SIZE_MAX);
	if (ret)
		sframe_elf_fail("%s: %s (%s)", loc.where,
				sec.reason ? sec.reason : "rejected", strerror(-ret));

	if (validate) {
		/* What CONFIG_UNWIND_USER_SFRAME_VALIDATE does at registration */
		ret = sframe_section_validate(&sec);
		printf("%s: %u FDEs: %s\n", loc.where, sec.num_fdes,
		       ret ? (sec.reason ? sec.reason : strerror(-ret)) : "valid");
		ret = !!ret;
	} else {
		ret = one ? lookup_one(&sec, addr) :
		      lookup ? lookup_all(&sec, loc.code_lo, loc.code_hi) : dump(&loc, &sec);
	}
	sframe_section_release(&sec);
	sframe_elf_free(&loc);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: write error\n", prog);
		return 1;
	}
	return ret;
}
