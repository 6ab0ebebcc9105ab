// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the vDSO's SFrame section.  The architecture maps the
 * kernel's own vDSO into the test thread's address space, as exec does
 * (arch_setup_additional_pages()): its PT_GNU_SFRAME must be there and
 * its section accepted whole by the reader, registered by the exec hook
 * as [vdso], describing the vDSO's code, and gone with its mapping.
 * Copies of the image with broken headers are refused.  The vDSO is also
 * the section the demand cases watch: registered only once the process
 * is wanted, by a first walk or a consumer of user stacks.
 */
#include <kunit/test.h>
#include <linux/binfmts.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/perf_event.h>
#include <linux/sched/mm.h>
#include <linux/sframe.h>
#include <linux/sframe_mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/unwind_user_types.h>

#include "../sframe_elf.h"
#include "../sframe_registry.h"
#include "kunit_fork.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct vdso_ctx {
	unsigned long	start;		/* the vDSO's mapping */
	unsigned long	end;
	u8		*image;		/* a copy of it */
	long		live;		/* sframe_live_sections() at the start */
	struct sframe_range_info info[2];
};

static int vdso_init(struct kunit *test)
{
	struct vdso_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	unsigned long scratch;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	/* Any mapping gives the test thread an mm for the vDSO to go in. */
	scratch = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ,
				MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, scratch, 0);
	/* The previous case's address space may still be on its way out. */
	for (i = 0; i < 100; i++) {
		ctx->live = sframe_live_sections();
		msleep(20);
		if (sframe_live_sections() == ctx->live)
			break;
	}
	KUNIT_ASSERT_EQ(test, arch_setup_additional_pages(NULL, 1), 0);
	/* Just mapped: not finding it is the code under test failing */
	KUNIT_ASSERT_TRUE(test, sframe_vdso_find(current->mm, &ctx->start, &ctx->end));
	ctx->image = kunit_kzalloc(test, ctx->end - ctx->start, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->image);
	KUNIT_ASSERT_EQ(test, copy_from_user(ctx->image, (void __user *)ctx->start,
					     ctx->end - ctx->start), 0);
	test->priv = ctx;
	return 0;
}

static const struct elf64_hdr *vdso_ehdr(struct vdso_ctx *ctx)
{
	return (const struct elf64_hdr *)ctx->image;
}

static struct elf64_phdr *vdso_phdr(struct vdso_ctx *ctx, u32 type)
{
	const struct elf64_hdr *eh = vdso_ehdr(ctx);
	struct elf64_phdr *ph = (struct elf64_phdr *)(ctx->image + eh->e_phoff);
	unsigned int i;

	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == type)
			return &ph[i];
	return NULL;
}

/* The image as built: one executable segment and its SFrame, read whole. */
static void vdso_image_test(struct kunit *test)
{
	struct vdso_ctx *ctx = test->priv;
	unsigned long size = ctx->end - ctx->start, seg_end;
	struct sframe_elf_info info;
	struct sframe_section sec;
	const struct elf64_phdr *load;

	KUNIT_ASSERT_TRUE(test, sframe_elf_header_ok(vdso_ehdr(ctx)));
	KUNIT_ASSERT_LE(test, vdso_ehdr(ctx)->e_phoff +
			vdso_ehdr(ctx)->e_phnum * sizeof(struct elf64_phdr), size);
	sframe_elf_parse_phdrs(&info, (const struct elf64_phdr *)(ctx->image +
			       vdso_ehdr(ctx)->e_phoff), vdso_ehdr(ctx)->e_phnum);
	KUNIT_ASSERT_TRUE(test, info.has_sframe);
	KUNIT_ASSERT_EQ(test, info.nr_text, 1);
	KUNIT_EXPECT_EQ(test, info.text[0].offset, 0);
	KUNIT_EXPECT_LE(test, info.text[0].memsz, size);
	/* The section lies in the one loadable segment. */
	load = vdso_phdr(ctx, PT_LOAD);
	KUNIT_ASSERT_NOT_NULL(test, load);
	KUNIT_EXPECT_GE(test, info.sframe_vaddr, load->p_vaddr);
	KUNIT_EXPECT_LE(test, info.sframe_vaddr + info.sframe_memsz,
			load->p_vaddr + load->p_filesz);

	seg_end = ctx->start + info.text[0].memsz;
	KUNIT_ASSERT_EQ(test, sframe_section_init(&sec, ctx->start + info.sframe_vaddr -
						  info.text[0].vaddr, info.sframe_memsz,
						  ctx->start, seg_end, SIZE_MAX), 0);
	KUNIT_EXPECT_GT(test, sec.num_fdes, 0);
	KUNIT_EXPECT_EQ(test, sec.version, SFRAME_VERSION_3);
	KUNIT_EXPECT_EQ(test, sframe_section_validate(&sec), 0);
	sframe_section_release(&sec);
}

/* Rows found for addresses of [@start, @end) */
static unsigned int vdso_rows(unsigned long start, unsigned long end)
{
	struct unwind_user_ctx uctx = {};
	struct unwind_user_frame frame;
	unsigned int hits = 0;
	unsigned long ip;

	for (ip = start; ip < end; ip++) {
		uctx.budget = UINT_MAX;
		hits += !sframe_lookup(&uctx, ip, &frame);
	}
	return hits;
}

static int vdso_child_ranges(void *arg)
{
	struct vdso_ctx *ctx = arg;
	struct sframe_range_info info[2];

	if (sframe_mm_ranges(current->mm, info, 2) != 1 || !info[0].vdso ||
	    info[0].start != ctx->info[0].start || info[0].end != ctx->info[0].end)
		return -EINVAL;
	return vdso_rows(info[0].start, info[0].end) ? 0 : -ENOENT;
}

/* What a process being profiled is: see sframe_want.c */
static void vdso_want(void)
{
	set_bit(SFRAME_MM_WANTED, &current->mm->sframe_flags);
}

/*
 * The exec hook registers it in a wanted process, rows describe its code,
 * fork copies it.
 */
static void vdso_register_test(struct kunit *test)
{
	struct vdso_ctx *ctx = test->priv;
	struct sframe_range_info *r = &ctx->info[0];

	sframe_vdso_register();
	KUNIT_EXPECT_EQ(test, sframe_mm_ranges(current->mm, ctx->info, 2), 0);
	vdso_want();
	sframe_vdso_register();
	KUNIT_ASSERT_EQ(test, sframe_mm_ranges(current->mm, ctx->info, 2), 1);
	KUNIT_EXPECT_TRUE(test, r->vdso);
	KUNIT_EXPECT_FALSE(test, r->explicit);
	KUNIT_EXPECT_FALSE(test, r->bad);
	KUNIT_EXPECT_GT(test, r->num_fdes, 0);
	KUNIT_EXPECT_EQ(test, r->start, ctx->start);
	KUNIT_EXPECT_LE(test, r->end, ctx->end);
	KUNIT_EXPECT_GE(test, r->sframe_start, ctx->start);
	KUNIT_EXPECT_LE(test, r->sframe_end, ctx->end);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
	KUNIT_EXPECT_GT(test, vdso_rows(r->start, r->end), 0);

	/* Twice is refused: the text is taken. */
	KUNIT_EXPECT_EQ(test, sframe_vdso_add(current->mm, ctx->start, ctx->end), -EEXIST);
	KUNIT_EXPECT_EQ(test, sframe_mm_ranges(current->mm, ctx->info + 1, 1), 1);

	KUNIT_EXPECT_EQ(test, kunit_fork_run(vdso_child_ranges, ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_mm_ranges(current->mm, ctx->info + 1, 1), 1);

	/* Explicit unregistration cannot take it away. */
	KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm, r->start), -ENOENT);

	/* Unmapped, it is gone. */
	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->start, ctx->end - ctx->start), 0);
	KUNIT_EXPECT_EQ(test, sframe_mm_ranges(current->mm, ctx->info, 2), 0);
	KUNIT_EXPECT_EQ(test, sframe_vdso_find(current->mm, &ctx->start, &ctx->end), false);
}

/* Exec permission taken from part of the text trims it, as for a file. */
static void vdso_mprotect_test(struct kunit *test)
{
	struct vdso_ctx *ctx = test->priv;
	struct sframe_range_info *r = &ctx->info[0];

	vdso_want();
	sframe_vdso_register();
	KUNIT_ASSERT_EQ(test, sframe_mm_ranges(current->mm, ctx->info, 2), 1);
	mmap_write_lock(current->mm);
	sframe_remove_range(current->mm, r->start, r->start + 1, false);
	mmap_write_unlock(current->mm);
	KUNIT_ASSERT_EQ(test, sframe_mm_ranges(current->mm, ctx->info, 2), 1);
	KUNIT_EXPECT_EQ(test, r->start, ctx->start + 1);
	KUNIT_EXPECT_TRUE(test, r->vdso);
}

static bool vdso_wanted(void)
{
	return test_bit(SFRAME_MM_WANTED, &current->mm->sframe_flags);
}

/* A forked child of a wanted process: wanted, the vDSO registered */
static int vdso_child_wanted(void *arg)
{
	return vdso_wanted() ? vdso_child_ranges(arg) : -ESRCH;
}

/*
 * A process nobody walked: the exec hook and a walk that cannot sleep
 * register nothing; the first walk that can registers what is mapped,
 * and its forked children inherit both the sections and being wanted.
 */
static int vdso_child_demand(void *arg)
{
	struct vdso_ctx *ctx = arg;
	struct sframe_range_info info[2];

	if (vdso_wanted())
		return -EEXIST;
	sframe_vdso_register();
	/* From interrupt or NMI: asks the deferred unwinder, registers nothing */
	sframe_want_current_nofault();
	if (vdso_wanted() || sframe_mm_ranges(current->mm, info, 2))
		return -EBUSY;
	sframe_want_current();
	if (!vdso_wanted())
		return -ENOENT;
	/* Filled here for the grandchild's check */
	if (sframe_mm_ranges(current->mm, ctx->info, 2) != 1 || !ctx->info[0].vdso ||
	    ctx->info[0].start != ctx->start || !vdso_rows(ctx->start, ctx->info[0].end))
		return -ENODATA;
	/* Once is enough: a second walk registers nothing twice */
	sframe_want_current();
	if (sframe_mm_ranges(current->mm, info, 2) != 1)
		return -E2BIG;
	return kunit_fork_run(vdso_child_wanted, ctx);
}

static int vdso_child_unwanted(void *arg)
{
	struct sframe_range_info info[2];

	return vdso_wanted() || sframe_mm_ranges(current->mm, info, 2) ? -EBUSY : 0;
}

static void vdso_demand_test(struct kunit *test)
{
	struct vdso_ctx *ctx = test->priv;

	KUNIT_ASSERT_FALSE(test, vdso_wanted());
	KUNIT_EXPECT_EQ(test, kunit_fork_run(vdso_child_demand, ctx), 0);
	/* The child's walk made its own process wanted, not its parent */
	KUNIT_EXPECT_FALSE(test, vdso_wanted());
	KUNIT_EXPECT_EQ(test, kunit_fork_run(vdso_child_unwanted, ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
}

/*
 * While a consumer of user stacks exists (perf's callchain buffers are
 * held), a new address space is wanted from the start; once it has gone,
 * new ones are not, and those made meanwhile stay wanted.
 */
static void vdso_consumer_test(struct kunit *test)
{
	struct vdso_ctx *ctx = test->priv;
	struct mm_struct *mm;

	sframe_want_all_begin();
	mm = mm_alloc();
	sframe_want_all_end();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	KUNIT_EXPECT_TRUE(test, test_bit(SFRAME_MM_WANTED, &mm->sframe_flags));
	mmput(mm);
	mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	KUNIT_EXPECT_FALSE(test, test_bit(SFRAME_MM_WANTED, &mm->sframe_flags));
	mmput(mm);
	KUNIT_EXPECT_EQ(test, kunit_fork_run(vdso_child_unwanted, ctx), 0);
}

/* A sampling perf event on this CPU that takes callchains, held until released */
static struct perf_event *vdso_callchain_event(bool exclude_callchain_user)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
		.exclude_callchain_user = exclude_callchain_user,
		.disabled = 1,
	};

	return perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
						NULL, NULL, NULL);
}

/*
 * Of perf's events, only one that takes user callchains is a consumer of
 * user stacks: perf's DWARF mode (exclude_callchain_user) copies the user
 * stack and walks nothing, so a new address space made while it lives is
 * not wanted, and its release leaves the count as it found it.
 */
static void vdso_perf_consumer_test(struct kunit *test)
{
	struct perf_event *event;
	struct mm_struct *mm;
	bool wanted;
	int exclude;

	for (exclude = 1; exclude >= 0; exclude--) {
		event = vdso_callchain_event(exclude);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event), "perf event: %ld",
				       PTR_ERR(event));
		mm = mm_alloc();
		perf_event_release_kernel(event);
		KUNIT_ASSERT_NOT_NULL(test, mm);
		wanted = test_bit(SFRAME_MM_WANTED, &mm->sframe_flags);
		mmput(mm);
		KUNIT_EXPECT_EQ_MSG(test, wanted, !exclude,
				    "a new mm while an event with exclude_callchain_user=%d lived",
				    exclude);
	}
	mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	KUNIT_EXPECT_FALSE(test, test_bit(SFRAME_MM_WANTED, &mm->sframe_flags));
	mmput(mm);
}

/* A copy of the image, changed by @edit, at a new executable mapping */
static unsigned long vdso_copy(struct kunit *test, struct vdso_ctx *ctx,
			       void (*edit)(struct vdso_ctx *ctx, u8 *img))
{
	unsigned long size = ctx->end - ctx->start, addr;
	u8 *img = kunit_kmalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, img);
	memcpy(img, ctx->image, size);
	if (edit)
		edit(ctx, img);
	addr = kunit_vm_mmap(test, NULL, 0, size, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, addr, 0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, img, size), 0);
	return addr;
}

static struct elf64_phdr *vdso_edit_phdr(struct vdso_ctx *ctx, u8 *img, u32 type)
{
	return (struct elf64_phdr *)(img + ((u8 *)vdso_phdr(ctx, type) - ctx->image));
}

static void vdso_no_magic(struct vdso_ctx *ctx, u8 *img)
{
	img[EI_MAG1] = 'X';
}

static void vdso_class32(struct vdso_ctx *ctx, u8 *img)
{
	img[EI_CLASS] = ELFCLASS32;
}

static void vdso_no_sframe(struct vdso_ctx *ctx, u8 *img)
{
	vdso_edit_phdr(ctx, img, PT_GNU_SFRAME)->p_type = PT_NULL;
}

static void vdso_phoff_out(struct vdso_ctx *ctx, u8 *img)
{
	((struct elf64_hdr *)img)->e_phoff = ctx->end - ctx->start - 8;
}

static void vdso_phoff_wraps(struct vdso_ctx *ctx, u8 *img)
{
	((struct elf64_hdr *)img)->e_phoff = -16UL;
}

static void vdso_sframe_out(struct vdso_ctx *ctx, u8 *img)
{
	struct elf64_phdr *ph = vdso_edit_phdr(ctx, img, PT_GNU_SFRAME);

	ph->p_vaddr += ctx->end - ctx->start;
	ph->p_offset += ctx->end - ctx->start;
}

static void vdso_sframe_long(struct vdso_ctx *ctx, u8 *img)
{
	vdso_edit_phdr(ctx, img, PT_GNU_SFRAME)->p_memsz = ctx->end - ctx->start;
}

static void vdso_text_out(struct vdso_ctx *ctx, u8 *img)
{
	struct elf64_phdr *ph = vdso_edit_phdr(ctx, img, PT_LOAD);

	ph->p_vaddr += ctx->end - ctx->start;
	ph->p_offset += ctx->end - ctx->start;
}

static void vdso_bad_magic(struct vdso_ctx *ctx, u8 *img)
{
	const struct elf64_phdr *ph = vdso_phdr(ctx, PT_GNU_SFRAME);

	/* The section's own magic, first in its preamble */
	img[ph->p_offset] ^= 0xff;
}

/* Broken images: refused, or (a broken section) registered as bad. */
static void vdso_bad_image_test(struct kunit *test)
{
	static const struct {
		const char	*what;
		void		(*edit)(struct vdso_ctx *ctx, u8 *img);
		int		ret;
	} cases[] = {
		{ "no ELF magic", vdso_no_magic, -ENOEXEC },
		{ "32-bit class", vdso_class32, -ENOEXEC },
		{ "no PT_GNU_SFRAME", vdso_no_sframe, -ENOENT },
		{ "program headers past the mapping", vdso_phoff_out, -ENOEXEC },
		{ "program headers offset wraps", vdso_phoff_wraps, -ENOEXEC },
		{ "section past the mapping", vdso_sframe_out, -ENOEXEC },
		{ "section longer than the mapping", vdso_sframe_long, -ENOEXEC },
		{ "text past the mapping", vdso_text_out, -ENOEXEC },
	};
	struct vdso_ctx *ctx = test->priv;
	unsigned long size = ctx->end - ctx->start, addr;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, vdso_phdr(ctx, PT_GNU_SFRAME));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		addr = vdso_copy(test, ctx, cases[i].edit);
		KUNIT_EXPECT_EQ_MSG(test, sframe_vdso_add(current->mm, addr, addr + size),
				    cases[i].ret, "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, sframe_mm_ranges(current->mm, ctx->info, 2), 0,
				    "%s", cases[i].what);
	}

	/* Too short for an ELF header: one page, its end the header's middle */
	addr = vdso_copy(test, ctx, NULL);
	KUNIT_EXPECT_EQ(test, sframe_vdso_add(current->mm, addr, addr + 32), -EFAULT);

	/* The copy as it is registers, and a corrupt section is kept as bad. */
	KUNIT_EXPECT_EQ(test, sframe_vdso_add(current->mm, addr, addr + size), 0);
	addr = vdso_copy(test, ctx, vdso_bad_magic);
	KUNIT_EXPECT_EQ(test, sframe_vdso_add(current->mm, addr, addr + size), 0);
	KUNIT_ASSERT_EQ(test, sframe_mm_ranges(current->mm, ctx->info, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE(test, ctx->info[i].vdso);
		KUNIT_EXPECT_EQ(test, ctx->info[i].bad, ctx->info[i].start == addr);
	}
}

static struct kunit_case sframe_vdso_cases[] = {
	KUNIT_CASE(vdso_image_test),
	KUNIT_CASE(vdso_register_test),
	KUNIT_CASE(vdso_mprotect_test),
	KUNIT_CASE(vdso_demand_test),
	KUNIT_CASE(vdso_consumer_test),
	KUNIT_CASE(vdso_perf_consumer_test),
	KUNIT_CASE(vdso_bad_image_test),
	{}
};

static struct kunit_suite sframe_vdso_suite = {
	.name = "sframe_vdso",
	.init = vdso_init,
	.test_cases = sframe_vdso_cases,
};

kunit_test_suite(sframe_vdso_suite);

MODULE_DESCRIPTION("KUnit tests for the vDSO's SFrame section");
MODULE_LICENSE("GPL");
