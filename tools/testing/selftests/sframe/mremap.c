// SPDX-License-Identifier: GPL-2.0
/*
 * (f) mremap() moving a library's text, and moving the mapping that holds
 * its SFrame data.  Either way the section is gone from the old place and
 * nothing is registered at the new one: the kernel registers at mmap()
 * and execve() only, and a moved mapping is neither.  (On arm64 and s390x
 * the SFrame data sits in the text segment: both moves are the same.)
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "sframe_loader.h"
#include "sf_harness.h"

/* Moves the mapping holding @addr to a fresh place; its new range in @to. */
static bool sf_move(unsigned long addr, unsigned long *to, unsigned long *len,
		    const char *step)
{
	const struct sf_map *m;
	struct sf_maps maps;
	void *dst, *p;
	bool ok = false;

	if (!SF_CHECK(!sf_maps_read("self", &maps), "%s: cannot read maps", step))
		return false;
	m = sf_maps_find(&maps, addr);
	if (!SF_CHECK(m, "%s: nothing mapped at %lx", step, addr))
		goto out;
	*len = m->end - m->start;
	/* A reservation elsewhere, so the move cannot land next to the old place */
	dst = mmap(NULL, *len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SF_CHECK(dst != MAP_FAILED, "%s: mmap", step))
		goto out;
	p = mremap((void *)m->start, *len, *len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (!SF_CHECK(p == dst, "%s: mremap %lx-%lx", step, m->start, m->end))
		goto out;
	*to = (unsigned long)p;
	sf_info("%s: moved %lx-%lx %s to %lx", step, m->start, m->end, m->perms, *to);
	ok = true;
out:
	sf_maps_free(&maps);
	return ok;
}

/* After a move: the oracle, less anything at the new place; none of @img left. */
static void sf_after_move(const struct sf_image *img, unsigned long to, unsigned long len,
			  long sections, const char *step)
{
	struct sf_set want, none = { 0 };

	if (sf_oracle_self(&want, step)) {
		sf_drop_text(&want, to, to + len);
		sf_check_want(&want, step);
		sf_set_free(&want);
	}
	sf_check_range(&none, img->start, img->end, step);
	sf_check_range(&none, to, to + len, step);
	sf_check_sections(sections, step);
}

SF_TEST(mremap)
{
	long sections0 = sf_stat_get("sections");
	unsigned long to, len;
	struct sf_image c, d;
	struct sf_line lc, ld;

	SF_CHECK(sections0 >= 0, "cannot read " SF_PARAM_DIR "sections");

	if (sf_instance(SF_BIG_LIB, &c, &lc, "C mapped") &&
	    sf_move(lc.text_start, &to, &len, "C: text moved")) {
		sf_after_move(&c, to, len, sections0, "C: text moved");
		munmap((void *)to, len);
	}
	munmap((void *)c.start, c.end - c.start);

	if (sf_instance(SF_BIG_LIB, &d, &ld, "D mapped") &&
	    sf_move(ld.sframe_start, &to, &len, "D: SFrame data moved")) {
		sf_after_move(&d, to, len, sections0, "D: SFrame data moved");
		munmap((void *)to, len);
	}
	munmap((void *)d.start, d.end - d.start);
	sf_check_oracle("all unmapped");
	sf_check_sections(sections0, "all unmapped");
	sf_exit();
}

SF_HARNESS_MAIN
