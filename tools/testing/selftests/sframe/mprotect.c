// SPDX-License-Identifier: GPL-2.0
/*
 * (g) mprotect() on a library's text.  Dropping PROT_EXEC on a page in the
 * middle trims like munmap (two lines); a change that keeps PROT_EXEC
 * (the VMA splits, the registered range does not) changes nothing;
 * dropping it on all of the text removes the section; and giving
 * PROT_EXEC back registers the file's section again, as ld.so needs after
 * text relocations.
 */
#include <sys/mman.h>

#include "sframe_loader.h"
#include "sf_harness.h"

SF_TEST(mprotect)
{
	long sections0 = sf_stat_get("sections");
	unsigned long page = sf_page_size(), p, lo, hi;
	struct sf_set want, none = { 0 };
	struct sf_image e;
	struct sf_line l;

	SF_CHECK(sections0 >= 0, "cannot read " SF_PARAM_DIR "sections");
	if (!sf_instance(SF_BIG_LIB, &e, &l, "E mapped"))
		sf_exit();
	p = sf_middle_page(&l);
	if (!SF_CHECK(p && p - 2 * page >= sf_page_up(l.text_start),
		      "text '%s' too small to cut pages from", l.text))
		sf_exit();
	lo = sf_page_down(l.text_start);
	hi = sf_page_up(l.text_end);

	sf_set_init(&want);
	sf_add_piece(&want, &l, l.text_start, p);
	sf_add_piece(&want, &l, p + page, l.text_end);
	SF_CHECK(!mprotect((void *)p, page, PROT_READ), "mprotect");
	sf_check_oracle("exec dropped on a middle page");
	sf_check_range(&want, l.text_start, l.text_end, "exec dropped on a middle page");
	sf_check_sections(sections0 + 1, "exec dropped on a middle page");

	/* A write-enabled page in the first half: its VMA splits, exec stays. */
	SF_CHECK(!mprotect((void *)(p - 2 * page), page, PROT_READ | PROT_WRITE | PROT_EXEC),
		 "mprotect");
	sf_check_oracle("PROT_WRITE added, exec kept");
	sf_check_range(&want, l.text_start, l.text_end, "PROT_WRITE added, exec kept");
	sf_set_free(&want);

	SF_CHECK(!mprotect((void *)lo, hi - lo, PROT_READ), "mprotect");
	sf_check_oracle("exec dropped on all text");
	sf_check_range(&none, e.start, e.end, "exec dropped on all text");
	sf_check_sections(sections0, "exec dropped on all text");

	/* Made executable again (as ld.so does after text relocations). */
	SF_CHECK(!mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC), "mprotect");
	sf_check_oracle("exec given back");
	sf_check_sections(sections0 + 1, "exec given back by mprotect");

	munmap((void *)e.start, e.end - e.start);
	sf_check_oracle("all unmapped");
	sf_check_sections(sections0, "all unmapped");
	sf_exit();
}

SF_HARNESS_MAIN
