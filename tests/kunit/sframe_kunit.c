// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the SFrame reader.
 *
 * Each case builds a section (sframe_cases.h), copies it into user memory
 * of the test's own address space and asks the reader about it, exactly as
 * the unwinder will for a process.  The same tables run in user space under
 * ASan and UBSan in tools/testing/sframe/.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sframe.h>
#include <linux/uaccess.h>
#include <asm/unwind_user_sframe.h>

#include "sframe_cases.h"
#include "sframe_real.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct sframe_test_ctx {
	unsigned long	addr;	/* user address of the section */
	unsigned long	text;	/* text base its functions are placed at */
	u8		*buf;	/* kernel copy being built */
};

static int sframe_test_init(struct kunit *test)
{
	struct sframe_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->buf = kunit_kzalloc(test, SFB_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->buf);
	ctx->addr = kunit_vm_mmap(test, NULL, 0, SFB_BUF_SIZE + PAGE_SIZE,
				  PROT_READ | PROT_WRITE,
				  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, ctx->addr, 0, "could not map user memory");
	KUNIT_ASSERT_LT(test, ctx->addr, (unsigned long)TASK_SIZE);
	ctx->text = ctx->addr + SFB_TEXT_DISTANCE;
	test->priv = ctx;
	return 0;
}

/* Copies the built section out and makes one page of it unreadable. */
static void sframe_test_place(struct kunit *test, struct sframe_test_ctx *ctx,
			      u8 hole_page)
{
	unsigned long hole, ret;

	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->addr, ctx->buf,
					   SFB_BUF_SIZE), 0);
	if (!hole_page)
		return;
	if (PAGE_SIZE != 4096)
		kunit_skip(test, "the cases lay out sections for 4 KiB pages");
	hole = ctx->addr + (hole_page - 1) * PAGE_SIZE;
	ret = vm_mmap(NULL, hole, PAGE_SIZE, PROT_NONE,
		      MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_EQ(test, ret, hole);
}

static int sframe_test_open(struct sframe_test_ctx *ctx, struct sframe_section *sec,
			    u32 size)
{
	return sframe_section_init(sec, ctx->addr, size, ctx->text - SFB_TEXT_BEFORE,
				   ctx->text + SFB_TEXT_SIZE, SIZE_MAX);
}

KUNIT_ARRAY_PARAM_DESC(sframe_decode, sframe_decode_cases, name);

static void sframe_decode_test(struct kunit *test)
{
	const struct sframe_decode_case *c = test->param_value;
	struct sframe_test_ctx *ctx = test->priv;
	struct sframe_section sec;
	char got[128];
	u32 size;
	int ret;

	if (c->abi && c->abi != SFRAME_ABI)
		kunit_skip(test, "needs the SFrame ABI of another architecture");

	size = sframe_decode_case_bytes(c, SFRAME_ABI, ctx->buf, ctx->addr, ctx->text);
	sframe_test_place(test, ctx, 0);
	ret = sframe_test_open(ctx, &sec, size);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "init: %s", sec.reason);

	sframe_describe_lookup(&sec, ctx->text + c->pc, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, c->expect);

	/* With a rule cache: the lookup that fills it, then the one it answers */
	KUNIT_ASSERT_EQ(test, sframe_section_cache_alloc(&sec), 0);
	sframe_describe_lookup(&sec, ctx->text + c->pc, got, sizeof(got));
	KUNIT_EXPECT_STREQ_MSG(test, got, c->expect, "filling the cache");
	sframe_describe_lookup(&sec, ctx->text + c->pc, got, sizeof(got));
	KUNIT_EXPECT_STREQ_MSG(test, got, c->expect, "from the cache");
	sframe_section_release(&sec);
}

KUNIT_ARRAY_PARAM_DESC(sframe_bad, sframe_bad_cases, name);

static void sframe_malformed_test(struct kunit *test)
{
	const struct sframe_bad_case *c = test->param_value;
	struct sframe_test_ctx *ctx = test->priv;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	u32 size;
	int ret;

	if (c->abi && c->abi != SFRAME_ABI)
		kunit_skip(test, "needs the SFrame ABI of another architecture");

	size = sframe_bad_case_bytes(c, SFRAME_ABI, ctx->buf, ctx->addr, ctx->text);
	sframe_test_place(test, ctx, c->hole_page);
	ret = sframe_test_open(ctx, &sec, size);
	if (c->at_init) {
		KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "init: %s", sec.reason);
		if (!ret)
			sframe_section_release(&sec);
	} else {
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "init: %s", sec.reason);
		ret = sframe_find(&sec, ctx->text + c->pc, &frame, SFRAME_UNBOUNDED);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "lookup: %s", sec.reason);
		sframe_section_release(&sec);
	}
	/* Every refusal names its reason, for the one-line diagnostic. */
	KUNIT_EXPECT_NOT_NULL(test, sec.reason);
}

/*
 * A malformed section must not poison the next lookup of a good one: the
 * reader keeps no state between calls beyond the section itself.
 */
static void sframe_bad_then_good_test(struct kunit *test)
{
	const struct sframe_bad_case *bad = &sframe_bad_cases[0];
	const struct sframe_decode_case *good = &sframe_decode_cases[1];
	struct sframe_test_ctx *ctx = test->priv;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	char got[128];
	u32 size;

	size = sframe_bad_case_bytes(bad, SFRAME_ABI, ctx->buf, ctx->addr, ctx->text);
	sframe_test_place(test, ctx, 0);
	KUNIT_EXPECT_NE(test, sframe_test_open(ctx, &sec, size), 0);

	size = sframe_decode_case_bytes(good, SFRAME_ABI, ctx->buf, ctx->addr, ctx->text);
	sframe_test_place(test, ctx, 0);
	KUNIT_ASSERT_EQ(test, sframe_test_open(ctx, &sec, size), 0);
	KUNIT_ASSERT_EQ(test, sframe_find(&sec, ctx->text + good->pc, &frame, SFRAME_UNBOUNDED), 0);
	sframe_format_frame(got, sizeof(got), &frame);
	KUNIT_EXPECT_STREQ(test, got, good->expect);
	sframe_section_release(&sec);
}

/*
 * Full validation (CONFIG_UNWIND_USER_SFRAME_VALIDATE) reads every row: it
 * passes every decode case's section and finds what lookups elsewhere in
 * the section would only meet later.
 */
static void sframe_validate_test(struct kunit *test)
{
	struct sframe_test_ctx *ctx = test->priv;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec *s;
	unsigned int i;
	u32 size;
	int ret;

	/* Too large for the stack of a test thread */
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(sframe_decode_cases); i++) {
		const struct sframe_decode_case *c = &sframe_decode_cases[i];

		size = sframe_decode_case_bytes(c, SFRAME_ABI, ctx->buf, ctx->addr,
						ctx->text);
		sframe_test_place(test, ctx, 0);
		ret = sframe_test_open(ctx, &sec, size);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s: init: %s", c->name, sec.reason);
		if (ret)
			continue;
		ret = sframe_section_validate(&sec);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s: %s", c->name, sec.reason);
		sframe_section_release(&sec);
	}

	/* The last function's rows out of order: no lookup of it yet. */
	sfb_base(s, SFRAME_ABI);
	s->fde[1].fre[2].start = s->fde[1].fre[1].start;
	size = sfb_build(s, ctx->buf, ctx->addr, ctx->text, &l);
	sframe_test_place(test, ctx, 0);
	KUNIT_ASSERT_EQ(test, sframe_test_open(ctx, &sec, size), 0);
	KUNIT_EXPECT_EQ(test, sframe_section_validate(&sec), -EINVAL);
	KUNIT_EXPECT_STREQ(test, sec.reason, "FREs out of order");
	sframe_section_release(&sec);

	/* An FRE sub-section cut short under the second function. */
	sfb_base(s, SFRAME_ABI);
	size = sfb_build(s, ctx->buf, ctx->addr, ctx->text, &l);
	sframe_test_place(test, ctx, 0);
	KUNIT_ASSERT_EQ(test, sframe_test_open(ctx, &sec, size), 0);
	sec.fres_end = ctx->addr + l.fre[1][1];
	ret = sframe_section_validate(&sec);
	KUNIT_EXPECT_TRUE_MSG(test, ret < 0 && ret != -ENOENT, "validate gave %d", ret);
	sframe_section_release(&sec);
}

/*
 * With page faults disabled (NMI and IRQ callers) a page that is not resident
 * reads as a fault instead of sleeping; with faults enabled it is read.
 */
static void sframe_nofault_test(struct kunit *test)
{
	const struct sframe_decode_case *good = &sframe_decode_cases[1];
	struct sframe_test_ctx *ctx = test->priv;
	struct unwind_user_frame frame;
	struct sframe_section sec;
	unsigned long ret;
	u32 size;
	int err;

	size = sframe_decode_case_bytes(good, SFRAME_ABI, ctx->buf, ctx->addr, ctx->text);
	sframe_test_place(test, ctx, 0);
	KUNIT_ASSERT_EQ(test, sframe_test_open(ctx, &sec, size), 0);

	/* A fresh page where the FDE table was: mapped, never touched. */
	ret = vm_mmap(NULL, ctx->addr, PAGE_SIZE, PROT_READ | PROT_WRITE,
		      MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_EQ(test, ret, ctx->addr);
	pagefault_disable();
	err = sframe_find(&sec, ctx->text + good->pc, &frame, SFRAME_UNBOUNDED);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, err, -EFAULT);

	err = sframe_find(&sec, ctx->text + good->pc, &frame, SFRAME_UNBOUNDED);
	KUNIT_EXPECT_NE(test, err, -EFAULT);
	sframe_section_release(&sec);
}

static int sframe_test_limit(struct kunit *test, const u8 *bytes, u32 copy,
			     u32 size)
{
	struct sframe_section sec;
	unsigned long addr;
	int ret;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_ALIGN(size), PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, addr, 0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, bytes, copy), 0);
	ret = sframe_section_init(&sec, addr, size, addr, addr + 1, SIZE_MAX);
	if (!ret)
		sframe_section_release(&sec);
	return ret;
}

/* What a section may ask of the kernel is bounded, and the bounds are exact. */
static void sframe_limits_test(struct kunit *test)
{
	struct sframe_test_ctx *ctx = test->priv;
	struct sframe_section sec;
	u32 size;
	u8 *buf;

	KUNIT_EXPECT_EQ(test, sframe_section_init(&sec, ctx->addr, 1UL << 32,
						  ctx->text, ctx->text + 1, SIZE_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, sframe_section_init(&sec, ctx->addr, SFB_BUF_SIZE,
						  ctx->text, ctx->text, SIZE_MAX), -EINVAL);

	buf = kvzalloc((SFRAME_MAX_ELEMENTS + 1) * 28, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	size = sframe_many_elements(buf, SFRAME_MAX_ELEMENTS, SFRAME_ABI);
	KUNIT_EXPECT_EQ(test, sframe_test_limit(test, buf, size, size), 0);
	size = sframe_many_elements(buf, SFRAME_MAX_ELEMENTS + 1, SFRAME_ABI);
	KUNIT_EXPECT_EQ(test, sframe_test_limit(test, buf, size, size), -EFBIG);

	/* The FDE table is fresh anonymous memory: zeros, never read. */
	size = sframe_big_index_header(buf, SFRAME_MAX_INDEX_FDES + 1, SFRAME_ABI);
	KUNIT_EXPECT_EQ(test, sframe_test_limit(test, buf, 28, size), -EFBIG);
	kvfree(buf);
}

/*
 * A second writer, as another thread of the process may be: the section
 * lies in a special mapping whose faults the test serves, and the first
 * touch of the page after it rewrites the second element's FDE count.
 * The reader looks there for a third element right after reading the
 * second one, so a reader that read that header again would see a count
 * that no longer fits and refuse a section it had accepted (or worse, had
 * the count stayed in bounds: write past the index it sized).
 */
struct sframe_race {
	struct vm_special_mapping	spec;
	struct page			*pages[2];
	unsigned int			count_off;	/* second header's num_fdes */
	bool				fired;
};

static vm_fault_t sframe_race_fault(const struct vm_special_mapping *sm,
				    struct vm_area_struct *vma,
				    struct vm_fault *vmf)
{
	struct sframe_race *race = container_of(sm, struct sframe_race, spec);
	u32 *count;

	if (vmf->pgoff >= ARRAY_SIZE(race->pages))
		return VM_FAULT_SIGBUS;
	if (vmf->pgoff == 1 && !race->fired) {
		count = page_address(race->pages[0]) + race->count_off;
		*count = *count + 1;
		race->fired = true;
	}
	vmf->page = race->pages[vmf->pgoff];
	get_page(vmf->page);
	return 0;
}

static void sframe_race_test(struct kunit *test)
{
	const struct sframe_decode_case *second = NULL;
	struct sframe_test_ctx *ctx = test->priv;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct sframe_race *race;
	struct sframe_section sec;
	struct sfb_layout l;
	struct sfb_spec *s;
	unsigned long addr;
	u32 size, off, fre_len;
	unsigned int i;
	char got[128];
	int ret;

	for (i = 0; i < ARRAY_SIZE(sframe_decode_cases); i++)
		if (!strcmp(sframe_decode_cases[i].name, "concatenated_second"))
			second = &sframe_decode_cases[i];
	KUNIT_ASSERT_NOT_NULL(test, second);
	race = kunit_kzalloc(test, sizeof(*race), GFP_KERNEL);
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, race);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(race->pages); i++) {
		race->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, race->pages[i]);
	}
	race->spec.name = "[sframe_race]";
	race->spec.fault = sframe_race_fault;

	/* Both elements in the first page, the second one ending with it. */
	addr = vm_mmap(NULL, 0, 2 * PAGE_SIZE, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_EQ(test, vm_munmap(addr, 2 * PAGE_SIZE), 0);
	spec_base(s, SFRAME_ABI);
	off = ALIGN(sfb_build(s, ctx->buf, addr, ctx->text, &l), 8);
	size = sframe_case_build(spec_base, spec_second_element, SFRAME_ABI, ctx->buf,
				 addr, ctx->text, &l);
	race->count_off = off + offsetof(struct sframe_header, num_fdes);
	/* A longer FRE sub-section, all in native byte order: no harm. */
	memcpy(&fre_len, ctx->buf + off + offsetof(struct sframe_header, fre_len), 4);
	fre_len += PAGE_SIZE - size;
	memcpy(ctx->buf + off + offsetof(struct sframe_header, fre_len), &fre_len, 4);
	memcpy(page_address(race->pages[0]), ctx->buf, size);

	mmap_write_lock(mm);
	vma = _install_special_mapping(mm, addr, 2 * PAGE_SIZE, VM_READ | VM_MAYREAD,
				       &race->spec);
	mmap_write_unlock(mm);
	KUNIT_ASSERT_FALSE(test, IS_ERR(vma));

	ret = sframe_section_init(&sec, addr, 2 * PAGE_SIZE, ctx->text - SFB_TEXT_BEFORE,
				  ctx->text + SFB_TEXT_SIZE, SIZE_MAX);
	KUNIT_EXPECT_TRUE(test, race->fired);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "init: %s", sec.reason);
	if (!ret) {
		sframe_describe_lookup(&sec, ctx->text + second->pc, got, sizeof(got));
		KUNIT_EXPECT_STREQ(test, got, second->expect);
		sframe_section_release(&sec);
	}
	vm_munmap(addr, 2 * PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(race->pages); i++)
		__free_page(race->pages[i]);
}

static void sframe_real_test(struct kunit *test)
{
	const struct sframe_real_section *r = &sframe_real;
	struct sframe_section sec;
	unsigned long addr, base;
	unsigned int i;
	char got[128];
	int ret;

	/* tools/testing/sframe/gen-kunit-real writes it before every build. */
	KUNIT_ASSERT_NE_MSG(test, r->size, 0,
			    "no assembler output was generated for this build");
	/* Text must keep its distance from the section: PC-relative starts. */
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_ALIGN(r->size), PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, addr, 0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, r->data, r->size), 0);
	base = addr - r->sframe_vaddr;

	ret = sframe_section_init(&sec, addr, r->size, base + r->text_start,
				  base + r->text_end, SIZE_MAX);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "init: %s", sec.reason);
	KUNIT_EXPECT_EQ(test, sec.version, r->version);
	KUNIT_EXPECT_EQ(test, sec.num_fdes, r->num_fdes);

	for (i = 0; i < r->num_rows; i++) {
		sframe_describe_lookup(&sec, base + r->rows[i].pc, got, sizeof(got));
		KUNIT_EXPECT_STREQ_MSG(test, got, r->rows[i].expect, "pc %#lx",
				       r->rows[i].pc);
	}
	sframe_section_release(&sec);
}

static struct kunit_case sframe_reader_cases[] = {
	KUNIT_CASE_PARAM(sframe_decode_test, sframe_decode_gen_params),
	KUNIT_CASE_PARAM(sframe_malformed_test, sframe_bad_gen_params),
	KUNIT_CASE(sframe_bad_then_good_test),
	KUNIT_CASE(sframe_validate_test),
	KUNIT_CASE(sframe_nofault_test),
	KUNIT_CASE(sframe_limits_test),
	KUNIT_CASE(sframe_race_test),
	KUNIT_CASE(sframe_real_test),
	{}
};

static struct kunit_suite sframe_reader_suite = {
	.name = "sframe_reader",
	.init = sframe_test_init,
	.test_cases = sframe_reader_cases,
};

kunit_test_suite(sframe_reader_suite);

MODULE_DESCRIPTION("KUnit tests for the SFrame reader");
MODULE_LICENSE("GPL");
