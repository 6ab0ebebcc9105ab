// SPDX-License-Identifier: GPL-2.0
/*
 * MAP_FIXED over text.  An anonymous page over the middle of a library's
 * text trims it (two lines); then another SFrame library mapped over the
 * start of the same place, the way ld.so maps it, registers anew there,
 * while what is left of the first one keeps its (trimmed) lines.
 */
#include <string.h>
#include <sys/mman.h>

#include "sframe_loader.h"
#include "sf_harness.h"

#define SF_SMALL_LIB	"libsf-dl.so"

SF_TEST(map_fixed)
{
	long sections0 = sf_stat_get("sections");
	unsigned long page = sf_page_size(), p;
	struct sf_set want, got;
	struct sf_image f, g;
	const struct sf_line *n;
	struct sf_line l;
	void *q;
	int i;

	SF_CHECK(sections0 >= 0, "cannot read " SF_PARAM_DIR "sections");
	if (!sf_instance(SF_BIG_LIB, &f, &l, "F mapped"))
		sf_exit();
	p = sf_middle_page(&l);
	if (!SF_CHECK(p, "text '%s' too small to cut a page from", l.text))
		sf_exit();

	q = mmap((void *)p, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0);
	SF_CHECK(q == (void *)p, "mmap MAP_FIXED");
	sf_set_init(&want);
	sf_add_piece(&want, &l, l.text_start, p);
	sf_add_piece(&want, &l, p + page, l.text_end);
	sf_check_oracle("anonymous page over the text");
	sf_check_range(&want, l.text_start, l.text_end, "anonymous page over the text");
	sf_check_sections(sections0 + 1, "anonymous page over the text");
	sf_set_free(&want);

	/* Another library where F starts: it replaces F's first pages. */
	if (!SF_CHECK(!sf_map_elf(SF_SMALL_LIB, f.bias, &g), "cannot map " SF_SMALL_LIB " at %lx",
		      f.bias))
		sf_exit();
	SF_CHECK(g.start == f.start, "mapped at %lx, not %lx", g.start, f.start);
	sf_check_oracle("library mapped over the text");
	if (sf_read_self(&got, "library mapped over the text")) {
		n = sf_only_line(&got, "/" SF_SMALL_LIB, "library mapped over the text");
		if (n)
			SF_CHECK(n->text_start >= g.start && n->text_end <= g.end &&
				 n->version == SFRAME_VERSION_3 && !strcmp(n->state, "ok"),
				 "line '%s' is not within %lx-%lx, v3, ok", n->text, g.start,
				 g.end);
		for (i = 0; i < got.n; i++)
			SF_CHECK(got.line[i].sframe_start != l.sframe_start ||
				 got.line[i].text_start >= g.end,
				 "'%s': F's text under the new library is still there",
				 got.line[i].text);
		sf_set_free(&got);
	}
	/* F's remaining text is beyond the small library, its data still in place. */
	sf_check_sections(sections0 + 2, "library mapped over the text");

	munmap((void *)f.start, f.end - f.start);
	sf_check_oracle("all unmapped");
	sf_check_sections(sections0, "all unmapped");
	sf_exit();
}

SF_HARNESS_MAIN
