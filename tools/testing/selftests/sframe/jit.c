// SPDX-License-Identifier: GPL-2.0
/*
 * (i) Explicit registration, as a JIT uses it: two pages of anonymous code
 * and a hand-made SFrame section (sframe_jit.c) in the page after them.
 * Registered, the block shows as a "[jit]" line, v3 fdes=1 ok (and v2 for
 * a V2 section), and registered again at the same text start it is
 * replaced (ustack.c walks code so rewritten); then every error the uapi
 * header documents, each with the call that must get it; unregistration;
 * the max_sections and
 * max_bytes limits; the read-only sections count; a registration kept
 * while its text goes RX -> RW -> RX (a JIT patching its code), and going
 * away when its text or SFrame data is unmapped, like an ELF file's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sframe_jit.h"
#include "sf_harness.h"

/* An ABI id that is valid, but not ours */
#if defined(__x86_64__)
#define SF_ABI_OTHER		SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#else
#define SF_ABI_OTHER		SFRAME_ABI_AMD64_ENDIAN_LITTLE
#endif

/* For V3 headers this many FDEs need an index the kernel refuses to build */
#define SF_TOO_MANY_FDES	(256 * 1024 + 1)

static unsigned long page;
static unsigned long text;	/* two pages of "code", PROT_READ | PROT_EXEC */
static unsigned long data;	/* one page: the section at its start, scratch after */
static unsigned long hole;	/* a page with nothing mapped */
static unsigned long sealed;	/* a PROT_NONE page holding a copy of the section */
static size_t len;		/* size of the section at @data */
static long sections0;

static const char *sf_errname(int err)
{
	return err ? strerrorname_np(err) : "success";
}

/* PR_SFRAME_REGISTER of @reg must fail with @want (0: succeed). */
static bool sf_expect(const char *what, const void *reg, int want)
{
	int err = sf_jit_register(reg);

	if (err == want)
		return true;
	sf_fail("%s: PR_SFRAME_REGISTER got %s, expected %s", what, sf_errname(err),
		sf_errname(want));
	/* A wrongly accepted registration must not spoil the next cases. */
	if (!err && reg)
		sf_jit_unregister(((const struct sframe_registration *)reg)->text_start);
	return false;
}

/* PR_SFRAME_UNREGISTER with these arguments must fail with @want. */
static void sf_expect_unreg(const char *what, unsigned long start, unsigned long a3,
			    unsigned long a4, unsigned long a5, int want)
{
	int err = prctl(PR_SFRAME_UNREGISTER, start, a3, a4, a5) ? errno : 0;

	if (err != want)
		sf_fail("%s: PR_SFRAME_UNREGISTER got %s, expected %s", what, sf_errname(err),
			sf_errname(want));
}

/* /proc/self/sframe: the oracle's lines plus @jit lines. */
static void sf_expect_lines(const struct sf_line *jit, int njit, const char *step)
{
	struct sf_set want;
	int i;

	if (!sf_oracle_self(&want, step))
		return;
	for (i = 0; i < njit; i++)
		sf_set_add(&want, &jit[i]);
	sf_set_sort(&want);
	sf_check_want(&want, step);
	sf_set_free(&want);
}

static void sf_base_reg(struct sframe_registration *reg)
{
	sf_jit_reg(reg, (void *)data, len, text, 2 * page);
}

static bool sf_setup(void)
{
	unsigned long region;

	region = (unsigned long)mmap(NULL, 5 * page, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(region != (unsigned long)MAP_FAILED, "mmap"))
		return false;
	text = region;
	data = region + 2 * page;
	sealed = region + 3 * page;
	hole = region + 4 * page;
	/* Code is never run: its pages only need to be executable. */
	memset((void *)text, 0, 2 * page);
	len = sf_jit_build((void *)data, SFRAME_VERSION_3, text, 2 * page);
	sf_jit_build((void *)sealed, SFRAME_VERSION_3, text, 2 * page);
	return SF_CHECK(!mprotect((void *)text, 2 * page, PROT_READ | PROT_EXEC), "mprotect") &&
	       SF_CHECK(!mprotect((void *)sealed, page, PROT_NONE), "mprotect") &&
	       SF_CHECK(!munmap((void *)hole, page), "munmap");
}

/*
 * Registered: one [jit] line; the same text start again replaces it;
 * other overlapping text: EEXIST.
 */
static void sf_test_register(void)
{
	struct sframe_registration reg, other;
	struct sf_set got;
	struct sf_line jit;

	sf_base_reg(&reg);
	if (!sf_expect("valid V3 section", &reg, 0))
		return;
	sf_jit_line(&jit, &reg, SFRAME_VERSION_3, 1);
	sf_expect_lines(&jit, 1, "registered");
	sf_check_sections(sections0 + 1, "registered");

	sf_expect("the same again", &reg, 0);
	sf_expect_lines(&jit, 1, "registered again");
	sf_check_sections(sections0 + 1, "registered again");
	other = reg;
	other.text_start = text + page;
	other.text_size = page;
	sf_expect("text overlapping the second page", &other, EEXIST);
	other = reg;
	other.text_start = text + 16;
	other.text_size = 16;
	sf_expect("text inside the registered text", &other, EEXIST);

	/* An ELF file's registration counts too: our own text. */
	if (sf_read_self(&got, "own text")) {
		const struct sf_line *own = NULL;
		int i;

		for (i = 0; i < got.n; i++)
			if (strcmp(got.line[i].path, "[jit]") &&
			    strcmp(got.line[i].path, "[vdso]"))
				own = &got.line[i];
		if (SF_CHECK(own, "no line for this program")) {
			other = reg;
			other.text_start = own->text_start;
			other.text_size = own->text_end - own->text_start;
			sf_expect("text overlapping this program's text", &other, EEXIST);
			sf_expect_unreg("an ELF file's text", own->text_start, 0, 0, 0, ENOENT);
		}
		sf_set_free(&got);
	}

	sf_expect_unreg("not the start of the registration", text + page, 0, 0, 0, ENOENT);
	sf_expect_unreg("third argument set", text, 1, 0, 0, EINVAL);
	sf_expect_unreg("fourth argument set", text, 0, 1, 0, EINVAL);
	sf_expect_unreg("fifth argument set", text, 0, 0, 1, EINVAL);
	sf_expect_lines(&jit, 1, "after the failed calls");

	sf_expect_unreg("the registration", text, 0, 0, 0, 0);
	sf_expect_lines(NULL, 0, "unregistered");
	sf_check_sections(sections0, "unregistered");
	sf_expect_unreg("the registration again", text, 0, 0, 0, ENOENT);
}

/* The header's version shows on the line. */
static void sf_test_v2(void)
{
	unsigned long at = data + 256;
	struct sframe_registration reg;
	struct sf_line jit;
	size_t n;

	n = sf_jit_build((void *)at, SFRAME_VERSION_2, text, 2 * page);
	sf_jit_reg(&reg, (void *)at, n, text, 2 * page);
	if (!sf_expect("valid V2 section", &reg, 0))
		return;
	sf_jit_line(&jit, &reg, SFRAME_VERSION_2, 1);
	sf_expect_lines(&jit, 1, "V2 registered");
	sf_expect_unreg("the V2 registration", text, 0, 0, 0, 0);
}

/* What the registration structure itself may get wrong. */
static void sf_test_struct(void)
{
	struct {
		struct sframe_registration reg;
		unsigned char more[8];
	} big;
	struct sframe_registration reg;

	sf_base_reg(&reg);
	reg.flags = SFRAME_REGISTER_REPLACE << 1;
	sf_expect("reserved flag", &reg, EINVAL);
	reg.flags = ~SFRAME_REGISTER_REPLACE;
	sf_expect("reserved flags", &reg, EINVAL);
	sf_base_reg(&reg);
	reg.size = SFRAME_REGISTRATION_SIZE_VER0 - 1;
	sf_expect("size below SFRAME_REGISTRATION_SIZE_VER0", &reg, EINVAL);
	reg.size = 0;
	sf_expect("size 0", &reg, EINVAL);

	memset(&big, 0, sizeof(big));
	sf_base_reg(&big.reg);
	big.reg.size = sizeof(big);
	big.more[0] = 1;
	sf_expect("larger structure, unknown field set", &big, E2BIG);
	big.more[0] = 0;
	big.more[7] = 0x80;
	sf_expect("larger structure, last unknown byte set", &big, E2BIG);
	big.more[7] = 0;
	if (sf_expect("larger structure, unknown bytes zero", &big, 0))
		sf_expect_unreg("the larger structure's registration", text, 0, 0, 0, 0);

	sf_expect("NULL structure", NULL, EFAULT);
	sf_expect("structure in unmapped memory", (void *)hole, EFAULT);
}

/* Ranges: empty, wrapping, unmapped, unreadable, not executable. */
static void sf_test_ranges(void)
{
	struct sframe_registration reg;

	sf_base_reg(&reg);
	reg.text_size = 0;
	sf_expect("empty text", &reg, EINVAL);
	sf_base_reg(&reg);
	reg.sframe_size = 0;
	sf_expect("empty SFrame range", &reg, EINVAL);
	sf_base_reg(&reg);
	reg.text_start = -page;
	reg.text_size = 2 * page;
	sf_expect("wrapping text", &reg, EINVAL);
	sf_base_reg(&reg);
	reg.sframe_start = -page;
	reg.sframe_size = 2 * page;
	sf_expect("wrapping SFrame range", &reg, EINVAL);

	sf_base_reg(&reg);
	reg.sframe_start = hole;
	sf_expect("SFrame data not mapped", &reg, EFAULT);
	sf_base_reg(&reg);
	reg.sframe_start = data + page - 8;
	reg.sframe_size = 64;
	sf_expect("SFrame range running into a PROT_NONE page", &reg, EFAULT);
	sf_base_reg(&reg);
	reg.sframe_start = sealed;
	sf_expect("SFrame data unreadable (PROT_NONE)", &reg, EFAULT);
	sf_base_reg(&reg);
	reg.text_start = hole;
	reg.text_size = page;
	sf_expect("text not mapped", &reg, EFAULT);

	sf_base_reg(&reg);
	reg.text_start = data;
	reg.text_size = page;
	sf_expect("text not executable", &reg, EACCES);
	sf_base_reg(&reg);
	reg.text_start = text + page;
	reg.text_size = 2 * page;
	sf_expect("text executable only in part", &reg, EACCES);
}

/* The reader's verdicts on a malformed or foreign section. */
static void sf_test_contents(void)
{
	unsigned long at = data + 512;
	struct sframe_registration reg;
	struct sframe_header *h = (void *)at;
	unsigned long big;
	size_t n;

	sf_jit_reg(&reg, (void *)at, 0, text, 2 * page);

#define SF_BROKEN(what, change, err) do {					\
		reg.sframe_size = sf_jit_build(h, SFRAME_VERSION_3, text, 2 * page); \
		change;								\
		sf_expect(what, &reg, err);					\
	} while (0)

	SF_BROKEN("bad magic", h->preamble.magic = 0x1234, EINVAL);
	SF_BROKEN("FDE table beyond the section", h->num_fdes = 100, EINVAL);
	SF_BROKEN("FRE sub-section beyond the section", h->fre_len = 4096, EINVAL);
	SF_BROKEN("section shorter than its header", reg.sframe_size = 20, EINVAL);
	SF_BROKEN("version 1", h->preamble.version = SFRAME_VERSION_1, EOPNOTSUPP);
	SF_BROKEN("version 4", h->preamble.version = 4, EOPNOTSUPP);
	SF_BROKEN("another architecture's ABI", h->abi_arch = SF_ABI_OTHER, EOPNOTSUPP);
	SF_BROKEN("unknown ABI", h->abi_arch = 99, EOPNOTSUPP);
#undef SF_BROKEN

	/*
	 * Too large to index: an unsorted section makes the kernel sort an
	 * index of all FDEs, and it refuses one beyond its bound before
	 * reading any FDE.  The FDEs are zero pages never touched.
	 */
	n = sizeof(*h) + SF_TOO_MANY_FDES * sizeof(struct sframe_fde_v3);
	big = (unsigned long)mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
	if (!SF_CHECK(big != (unsigned long)MAP_FAILED, "mmap"))
		return;
	sf_jit_build((void *)big, SFRAME_VERSION_3, text, 2 * page);
	h = (void *)big;
	h->preamble.flags = SFRAME_F_FDE_FUNC_START_PCREL;
	h->num_fdes = SF_TOO_MANY_FDES;
	h->num_fres = 0;
	h->fre_len = 0;
	h->fres_off = SF_TOO_MANY_FDES * sizeof(struct sframe_fde_v3);
	sf_jit_reg(&reg, (void *)big, n, text, 2 * page);
	sf_expect("section too large to index", &reg, EFBIG);
	munmap((void *)big, n);
}

/* max_sections: ENOSPC at the limit; max_bytes: EDQUOT; sections: read-only. */
static void sf_test_limits(void)
{
	long max0 = sf_param_get("max_sections"), bytes0 = sf_param_get("max_bytes");
	long now = sf_stat_get("sections");
	struct sframe_registration reg;
	struct sf_set got;
	int mine;

	if (!SF_CHECK(max0 >= 0, "cannot read " SF_PARAM_DIR "max_sections") ||
	    !SF_CHECK(bytes0 >= 0, "cannot read " SF_PARAM_DIR "max_bytes") ||
	    !sf_read_self(&got, "limits"))
		return;
	mine = sf_set_sections(&got);
	sf_set_free(&got);
	sf_base_reg(&reg);

	if (SF_CHECK(!sf_param_set("max_sections", mine), "cannot write max_sections: %s",
		     strerror(errno))) {
		sf_expect("max_sections reached", &reg, ENOSPC);
		SF_CHECK(!sf_param_set("max_sections", mine + 1), "cannot write max_sections");
		if (sf_expect("one below max_sections", &reg, 0))
			sf_expect_unreg("the registration", text, 0, 0, 0, 0);
		SF_CHECK(!sf_param_set("max_sections", max0), "cannot restore max_sections");
		SF_CHECK(sf_param_get("max_sections") == max0, "max_sections not restored");
	}

	if (sf_param_set("max_bytes", 1)) {
		sf_note("max_bytes cannot be written (%s): EDQUOT not tested", strerror(errno));
	} else {
		sf_expect("max_bytes of 1", &reg, EDQUOT);
		SF_CHECK(!sf_param_set("max_bytes", bytes0), "cannot restore max_bytes");
		SF_CHECK(sf_param_get("max_bytes") == bytes0, "max_bytes not restored");
	}

	SF_CHECK(sf_param_set("sections", now + 1000), "sections is writable");
	sf_check_sections(now, "after writing to sections");
}

/*
 * Kept across the permission flips of a JIT patching its code; like an
 * ELF file's, trimmed and removed by munmap.
 */
static void sf_test_unmap(void)
{
	struct sframe_registration reg;
	struct sf_line jit;

	sf_base_reg(&reg);
	if (!sf_expect("before mprotect", &reg, 0))
		return;
	sf_jit_line(&jit, &reg, SFRAME_VERSION_3, 1);
	SF_CHECK(!mprotect((void *)text, 2 * page, PROT_READ | PROT_WRITE), "mprotect");
	sf_expect_lines(&jit, 1, "text made writable, not executable");
	SF_CHECK(!mprotect((void *)text, 2 * page, PROT_READ | PROT_EXEC), "mprotect");
	sf_expect_lines(&jit, 1, "text executable again");
	sf_expect_unreg("a registration kept across mprotect", text, 0, 0, 0, 0);
	sf_check_sections(sections0, "unregistered after mprotect");

	if (!sf_expect("before munmap", &reg, 0))
		return;
	SF_CHECK(!munmap((void *)(text + page), page), "munmap");
	reg.text_size = page;
	sf_jit_line(&jit, &reg, SFRAME_VERSION_3, 1);
	sf_expect_lines(&jit, 1, "second text page unmapped");
	SF_CHECK(!munmap((void *)data, page), "munmap");
	sf_expect_lines(NULL, 0, "SFrame data unmapped");
	sf_check_sections(sections0, "SFrame data unmapped");
}

SF_TEST(jit)
{
	page = sf_page_size();
	sections0 = sf_stat_get("sections");
	SF_CHECK(sections0 >= 0, "cannot read " SF_PARAM_DIR "sections");
	if (!sf_setup() || !sf_check_oracle("start"))
		sf_exit();

	sf_test_register();
	sf_test_v2();
	sf_test_struct();
	sf_test_ranges();
	sf_test_contents();
	sf_test_limits();
	sf_expect_lines(NULL, 0, "after the error cases");
	sf_check_sections(sections0, "after the error cases");
	sf_test_unmap();
	sf_exit();
}

SF_HARNESS_MAIN
