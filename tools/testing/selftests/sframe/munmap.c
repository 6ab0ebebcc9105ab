// SPDX-License-Identifier: GPL-2.0
/*
 * (e) munmap() of a library's text.  Instance A: a page out of the middle
 * leaves two lines with the same SFrame range, then unmapping all of the
 * text leaves none and frees the section.  Instance B: after the same cut,
 * unmapping one page of the SFrame data removes the whole section, both
 * lines.  The instances are fresh mappings of libsf-big.so made the way
 * ld.so makes them (sframe_loader.c).
 */
#include <sys/mman.h>

#include "sframe_loader.h"
#include "sf_harness.h"

/* Cuts a page out of the middle of @l: two lines are left, same section. */
static bool sf_cut_middle(const struct sf_line *l, const char *step)
{
	unsigned long page = sf_page_size(), p = sf_middle_page(l);
	struct sf_set want;
	bool ok;

	if (!SF_CHECK(p, "%s: text '%s' too small to cut a page from", step, l->text) ||
	    !SF_CHECK(!munmap((void *)p, page), "%s: munmap", step))
		return false;
	sf_set_init(&want);
	sf_add_piece(&want, l, l->text_start, p);
	sf_add_piece(&want, l, p + page, l->text_end);
	ok = sf_check_oracle(step) && sf_check_range(&want, l->text_start, l->text_end, step);
	sf_set_free(&want);
	return ok;
}

SF_TEST(munmap)
{
	long sections0 = sf_stat_get("sections");
	struct sf_set none = { 0 };
	struct sf_image a, b;
	struct sf_line la, lb;

	SF_CHECK(sections0 >= 0, "cannot read " SF_PARAM_DIR "sections");

	if (sf_instance(SF_BIG_LIB, &a, &la, "A mapped") &&
	    sf_check_sections(sections0 + 1, "A mapped") &&
	    sf_cut_middle(&la, "A: a page cut out of the text") &&
	    sf_check_sections(sections0 + 1, "A: a page cut out of the text")) {
		munmap((void *)sf_page_down(la.text_start),
		       sf_page_up(la.text_end) - sf_page_down(la.text_start));
		sf_check_oracle("A: all text unmapped");
		sf_check_range(&none, a.start, a.end, "A: all text unmapped");
		sf_check_sections(sections0, "A: all text unmapped");
	}
	munmap((void *)a.start, a.end - a.start);

	if (sf_instance(SF_BIG_LIB, &b, &lb, "B mapped") &&
	    sf_cut_middle(&lb, "B: a page cut out of the text")) {
		munmap((void *)sf_page_down(lb.sframe_start), sf_page_size());
		sf_check_oracle("B: a page of SFrame data unmapped");
		sf_check_range(&none, b.start, b.end, "B: a page of SFrame data unmapped");
		sf_check_sections(sections0, "B: a page of SFrame data unmapped");
	}
	munmap((void *)b.start, b.end - b.start);
	sf_check_oracle("all unmapped");
	sf_check_sections(sections0, "all unmapped");
	sf_exit();
}

SF_HARNESS_MAIN
