// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the per-mm SFrame registry and the explicit registration
 * call.  Each test works in the test thread's own address space: it maps
 * "text" and a section built by sframe_build.h, registers it, and changes
 * the mappings with the same vm_mmap(), vm_munmap(), mprotect_fixup(),
 * madvise and fork paths a process's syscalls reach, so the hooks in mm/
 * and kernel/fork.c run for real.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <linux/sched/mm.h>
#include <linux/sframe.h>
#include <linux/sframe_mm.h>
#include <linux/shmem_fs.h>
#include <linux/uaccess.h>
#include <uapi/linux/sframe.h>
#include <asm/tlb.h>
#include <asm/unwind_user_sframe.h>

#include "../sframe_registry.h"
#include "../sframe_share.h"
#include "kunit_fork.h"
#include "sframe_build.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define REG_TEXT_PAGES	4
#define REG_MAX_RANGES	8

struct reg_ctx {
	unsigned long	text;		/* REG_TEXT_PAGES executable pages */
	unsigned long	sframe;		/* the section, SFB_BUF_SIZE bytes */
	u32		size;		/* bytes of section */
	unsigned long	uarg;		/* a page for prctl() arguments */
	long		live;		/* sframe_live_sections() at the start */
	unsigned int	max_sections;
	unsigned long	max_bytes;
	struct sframe_range_info info[REG_MAX_RANGES];
};

/*
 * sfb_base()'s section (its functions in the first text page) in @version,
 * the CFA of its first FRE @delta bytes further, built for a section at
 * @sframe and text at @text; SFB_BUF_SIZE bytes, its size in @size.
 */
static u8 *reg_section(struct kunit *test, u8 version, s32 delta,
		       unsigned long sframe, unsigned long text, u32 *size)
{
	struct sfb_layout l;
	struct sfb_spec *s;
	u8 *buf;

	/* Not on the stack: with KASAN's redzones it outgrows the frame limit */
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	buf = kunit_kzalloc(test, SFB_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sfb_base(s, SFRAME_ABI);
	s->version = version;
	s->fde[0].fre[0].words[0] += delta;
	*size = sfb_build(s, buf, sframe, text, &l);
	return buf;
}

/* That section at ctx->sframe, for the text at ctx->text */
static void reg_build_cfa(struct kunit *test, struct reg_ctx *ctx, u8 version,
			  s32 delta)
{
	u8 *buf = reg_section(test, version, delta, ctx->sframe, ctx->text, &ctx->size);

	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->sframe, buf,
					   SFB_BUF_SIZE), 0);
}

static void reg_build(struct kunit *test, struct reg_ctx *ctx, u8 version)
{
	reg_build_cfa(test, ctx, version, 0);
}

static int reg_init(struct kunit *test)
{
	struct reg_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->text = kunit_vm_mmap(test, NULL, 0, REG_TEXT_PAGES * PAGE_SIZE,
				  PROT_READ | PROT_EXEC,
				  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	ctx->sframe = kunit_vm_mmap(test, NULL, 0, SFB_BUF_SIZE,
				    PROT_READ | PROT_WRITE,
				    MAP_ANONYMOUS | MAP_PRIVATE, 0);
	ctx->uarg = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE,
				  PROT_READ | PROT_WRITE,
				  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ctx->text, 0);
	KUNIT_ASSERT_NE(test, ctx->sframe, 0);
	KUNIT_ASSERT_NE(test, ctx->uarg, 0);
	reg_build(test, ctx, SFRAME_VERSION_3);
	/*
	 * The previous case's thread may still be dropping its address
	 * space, and its sections with it, after KUnit has moved on.
	 */
	for (i = 0; i < 100; i++) {
		ctx->live = sframe_live_sections();
		msleep(20);
		if (sframe_live_sections() == ctx->live)
			break;
	}
	ctx->max_sections = sframe_max_sections;
	ctx->max_bytes = sframe_max_bytes;
	test->priv = ctx;
	return 0;
}

static void reg_exit(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;

	sframe_max_sections = ctx->max_sections;
	sframe_max_bytes = ctx->max_bytes;
}

static int reg_add(struct reg_ctx *ctx, unsigned long start, unsigned long end)
{
	struct sframe_new_section add = {
		.sframe_start = ctx->sframe,
		.sframe_size = ctx->size,
		.seg_start = start,
		.seg_end = end,
		.start = start,
		.end = end,
	};

	return sframe_add_section(current->mm, &add);
}

static unsigned int reg_ranges(struct reg_ctx *ctx)
{
	return sframe_mm_ranges(current->mm, ctx->info, REG_MAX_RANGES);
}

static int reg_lookup(unsigned long ip, struct unwind_user_frame *frame)
{
	struct unwind_user_ctx uctx = { .budget = UINT_MAX };

	return sframe_lookup(&uctx, ip, frame);
}

/* The same by a lookup that may not fault, as in NMI */
static int reg_lookup_nofault(unsigned long ip, struct unwind_user_frame *frame)
{
	struct unwind_user_ctx uctx = { .budget = UINT_MAX, .nofault = true };
	int ret;

	pagefault_disable();
	ret = sframe_lookup(&uctx, ip, frame);
	pagefault_enable();
	return ret;
}

/*
 * mprotect() of [@start, @start + @len), which one VMA must cover: the
 * part of do_mprotect_pkey() that reaches the registry's hook.
 */
static int reg_mprotect(unsigned long start, unsigned long len, unsigned long prot)
{
	struct mm_struct *mm = current->mm;
	unsigned long end = start + len;
	struct vm_area_struct *vma, *prev;
	struct vma_iterator vmi;
	struct mmu_gather tlb;
	int ret = -ENOMEM;

	mmap_write_lock(mm);
	vma_iter_init(&vmi, mm, start);
	vma = vma_find(&vmi, end);
	if (vma && vma->vm_start <= start && vma->vm_end >= end) {
		prev = vma_prev(&vmi);
		if (start > vma->vm_start)
			prev = vma;
		vma = vma_find(&vmi, end);
		tlb_gather_mmu(&tlb, mm);
		ret = mprotect_fixup(&vmi, &tlb, vma, &prev, start, end,
				     calc_vm_prot_bits(prot, 0) |
				     (vma->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC)));
		tlb_finish_mmu(&tlb);
	}
	mmap_write_unlock(mm);
	return ret;
}

static int reg_madvise(unsigned long start, unsigned long len, int advice)
{
	return do_madvise(current->mm, start, len, advice);
}

static void reg_expect_range(struct kunit *test, struct reg_ctx *ctx,
			     unsigned int i, unsigned long start,
			     unsigned long end)
{
	KUNIT_EXPECT_EQ_MSG(test, ctx->info[i].start, start, "range %u", i);
	KUNIT_EXPECT_EQ_MSG(test, ctx->info[i].end, end, "range %u", i);
	KUNIT_EXPECT_EQ(test, ctx->info[i].sframe_start, ctx->sframe);
	KUNIT_EXPECT_EQ(test, ctx->info[i].sframe_end, ctx->sframe + ctx->size);
}

static void reg_add_lookup_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	struct unwind_user_frame frame;
	unsigned long end = ctx->text + REG_TEXT_PAGES * PAGE_SIZE;

	KUNIT_EXPECT_EQ(test, reg_lookup(ctx->text, &frame), -ENOENT);
	KUNIT_ASSERT_EQ(test, reg_add(ctx, ctx->text, end), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, ctx->text, end);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].explicit);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].bad);
	KUNIT_EXPECT_EQ(test, ctx->info[0].num_fdes, 3);

	KUNIT_EXPECT_EQ(test, reg_lookup(ctx->text, &frame), 0);
	KUNIT_EXPECT_EQ(test, frame.cfa.base, UNWIND_USER_BASE_SP);
	KUNIT_EXPECT_EQ(test, reg_lookup(ctx->text - 1, &frame), -ENOENT);
	KUNIT_EXPECT_EQ(test, reg_lookup(end, &frame), -ENOENT);
	/*
	 * Covered text without an FDE is not an error of the section: the
	 * walker's rule for uncovered code takes it (-ENODATA), while an
	 * address no section holds is not the walker's to guess at.
	 */
	KUNIT_EXPECT_EQ(test, reg_lookup(end - 1, &frame), -ENODATA);
	KUNIT_EXPECT_EQ(test, reg_lookup_nofault(end - 1, &frame), -ENODATA);
	KUNIT_EXPECT_EQ(test, reg_lookup_nofault(end, &frame), -ENOENT);
	KUNIT_EXPECT_EQ(test, reg_lookup_nofault(ctx->text, &frame), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].bad);

	KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm, ctx->text), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
	KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm, ctx->text), -ENOENT);
}

static void reg_overlap_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long mid = ctx->text + 2 * PAGE_SIZE;
	unsigned long end = ctx->text + REG_TEXT_PAGES * PAGE_SIZE;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, mid, end), 0);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, mid - 1, mid + 1), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, mid + 1, end), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, end - 1, end), -EEXIST);
	/* Adjacent is fine, and the table stays sorted. */
	KUNIT_EXPECT_EQ(test, reg_add(ctx, ctx->text, mid), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	reg_expect_range(test, ctx, 0, ctx->text, mid);
	reg_expect_range(test, ctx, 1, mid, end);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 2);
}

/* Unmapping text trims or splits its ranges exactly. */
static void reg_munmap_trim_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + 4 * p), 0);

	KUNIT_ASSERT_EQ(test, vm_munmap(t, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t + p, t + 4 * p);

	KUNIT_ASSERT_EQ(test, vm_munmap(t + 3 * p, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t + p, t + 3 * p);

	/* What was unmapped can't be registered again. */
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + 1), -EFAULT);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
}

static void reg_munmap_split_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t + 16, t + 4 * p - 16), 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(t + p, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	reg_expect_range(test, ctx, 0, t + 16, t + p);
	reg_expect_range(test, ctx, 1, t + 2 * p, t + 4 * p - 16);
	/* Two ranges, one section. */
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);

	KUNIT_ASSERT_EQ(test, vm_munmap(t + 2 * p, 2 * p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t + 16, t + p);
	KUNIT_ASSERT_EQ(test, vm_munmap(t, p), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
}

/*
 * A cut that begins in a gap reaches the range after it, and one below
 * every range the first: the registry finds the ranges a cut may change
 * without trying each, and must not miss those.
 */
static void reg_munmap_next_range_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t + 16, t + p), 0);
	KUNIT_ASSERT_EQ(test, reg_add(ctx, t + 2 * p + 16, t + 4 * p), 0);
	/* The gap between them alone: nothing changes */
	KUNIT_ASSERT_EQ(test, vm_munmap(t + p, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	reg_expect_range(test, ctx, 0, t + 16, t + p);
	reg_expect_range(test, ctx, 1, t + 2 * p + 16, t + 4 * p);

	/* From where the gap was, into the second */
	KUNIT_ASSERT_EQ(test, vm_munmap(t + 2 * p, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	reg_expect_range(test, ctx, 0, t + 16, t + p);
	reg_expect_range(test, ctx, 1, t + 3 * p, t + 4 * p);

	/* From below every range, into the first */
	KUNIT_ASSERT_EQ(test, vm_munmap(t, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t + 3 * p, t + 4 * p);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
}

/* Unmapping any page of a section's data drops all of its ranges. */
static void reg_munmap_data_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + 4 * p), 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(t + p, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	/* Unmapping unrelated memory changes nothing. */
	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->uarg, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);

	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->sframe, p), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
}

/* A MAP_FIXED mapping over registered text replaces it. */
static void reg_map_fixed_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text, ret;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + 4 * p), 0);
	ret = vm_mmap(NULL, t + 2 * p, p, PROT_READ | PROT_EXEC,
		      MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_EQ(test, ret, t + 2 * p);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	reg_expect_range(test, ctx, 0, t, t + 2 * p);
	reg_expect_range(test, ctx, 1, t + 3 * p, t + 4 * p);
}

/*
 * A file's text: REG_TEXT_PAGES of a shmem file mapped executable, and its
 * section (in the anonymous ctx->sframe) registered as the mmap hook does.
 */
static unsigned long reg_add_file(struct kunit *test, struct reg_ctx *ctx)
{
	unsigned long len = REG_TEXT_PAGES * PAGE_SIZE, t;
	struct sframe_new_section add;
	struct file *file;

	file = shmem_kernel_file_setup("sframe-reg-test", len, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	t = vm_mmap(file, 0, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0);
	fput(file);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(t));
	/* The section's rules name the text it was built for. */
	ctx->text = t;
	reg_build(test, ctx, SFRAME_VERSION_3);
	add = (struct sframe_new_section){
		.file = file, .file_base = t,
		.sframe_start = ctx->sframe, .sframe_size = ctx->size,
		.seg_start = t, .seg_end = t + len, .start = t, .end = t + len,
	};
	KUNIT_ASSERT_EQ(test, sframe_add_section(current->mm, &add), 0);
	return t;
}

/*
 * mprotect() dropping exec trims a file's text, and leaves its section
 * alone when only its data's protection changes.
 */
static void reg_noexec_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = reg_add_file(test, ctx);

	KUNIT_ASSERT_EQ(test, reg_mprotect(ctx->sframe, p, PROT_READ), 0);
	KUNIT_ASSERT_EQ(test, reg_mprotect(t + 3 * p, p, PROT_READ), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t, t + 3 * p);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].explicit);
}

/* A JIT flips its code RX -> RW -> RX to patch it: its registration stays. */
static void reg_jit_flip_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;
	struct unwind_user_frame frame;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + 4 * p), 0);
	KUNIT_ASSERT_EQ(test, reg_mprotect(t, 4 * p, PROT_READ | PROT_WRITE), 0);
	KUNIT_ASSERT_EQ(test, reg_mprotect(t, 4 * p, PROT_READ | PROT_EXEC), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t, t + 4 * p);
	KUNIT_EXPECT_EQ(test, reg_lookup(t, &frame), 0);
	/* Unmapping still removes it. */
	KUNIT_ASSERT_EQ(test, vm_munmap(t, 4 * p), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
}

/*
 * A section that cannot be read for a while (its data made inaccessible,
 * or unmapped by a racing munmap()) is not malformed: it stays usable.
 */
static void reg_unreadable_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long t = ctx->text;
	struct unwind_user_frame frame;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, reg_mprotect(ctx->sframe, SFB_BUF_SIZE, PROT_NONE), 0);
	KUNIT_EXPECT_EQ(test, reg_lookup(t, &frame), -EFAULT);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].bad);
	KUNIT_ASSERT_EQ(test, reg_mprotect(ctx->sframe, SFB_BUF_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, reg_lookup(t, &frame), 0);
}

struct reg_fork_args {
	struct kunit		*test;
	struct reg_ctx		*ctx;
	unsigned int		nr;		/* ranges the child must have */
	long			live;		/* sections alive in the child's time */
	struct sframe_range_info want[REG_MAX_RANGES];
};

/* The child's view; only EXPECTs here, as this is not the test thread. */
static int reg_fork_child(void *arg)
{
	struct reg_fork_args *a = arg;
	struct sframe_range_info got[REG_MAX_RANGES];
	struct unwind_user_frame frame;
	struct kunit *test = a->test;
	unsigned int n, i;

	n = sframe_mm_ranges(current->mm, got, REG_MAX_RANGES);
	KUNIT_EXPECT_EQ(test, n, a->nr);
	for (i = 0; i < n && i < a->nr; i++) {
		KUNIT_EXPECT_EQ_MSG(test, got[i].start, a->want[i].start, "range %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got[i].end, a->want[i].end, "range %u", i);
		KUNIT_EXPECT_EQ(test, got[i].sframe_start, a->want[i].sframe_start);
		KUNIT_EXPECT_EQ(test, got[i].explicit, a->want[i].explicit);
	}
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), a->live);
	if (n)
		KUNIT_EXPECT_EQ(test, reg_lookup(got[0].start, &frame), 0);
	/* The child's changes do not reach the parent. */
	if (n)
		KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm,
							     a->want[0].start), 0);
	return 0;
}

/* What a forked child must find: @nr ranges and @live sections in all */
static struct reg_fork_args *reg_fork_args(struct kunit *test, unsigned int nr,
					   long live)
{
	struct reg_fork_args *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	*a = (struct reg_fork_args){ .test = test, .ctx = test->priv, .nr = nr,
				     .live = live };
	return a;
}

/* A child gets copies through fork itself: same ranges, its own sections. */
static void reg_fork_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;
	struct reg_fork_args *a;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + p), 0);
	KUNIT_ASSERT_EQ(test, reg_add(ctx, t + p, t + 4 * p), 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(t + 2 * p, p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 3);

	a = reg_fork_args(test, 3, ctx->live + 4);
	memcpy(a->want, ctx->info, sizeof(a->want));
	KUNIT_EXPECT_EQ(test, kunit_fork_run(reg_fork_child, a), 0);

	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 3);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 2);
}

/*
 * Memory fork does not copy (MADV_DONTFORK) or copies as zeros
 * (MADV_WIPEONFORK) takes its text, and sections whose data it held, out
 * of the child's registry; the child may map and register code there.
 */
static int reg_fork_uncopied_child(void *arg)
{
	struct reg_fork_args *a = arg;
	unsigned long p = PAGE_SIZE, t = a->ctx->text, ret;

	reg_fork_child(arg);
	ret = vm_mmap(NULL, t + 3 * p, p, PROT_READ | PROT_EXEC,
		      MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_EXPECT_EQ(a->test, ret, t + 3 * p);
	KUNIT_EXPECT_EQ(a->test, reg_add(a->ctx, t + 3 * p, t + 4 * p), 0);
	return 0;
}

static void reg_fork_uncopied_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;
	struct reg_fork_args *a;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + 4 * p), 0);
	KUNIT_ASSERT_EQ(test, reg_madvise(t + 3 * p, p, MADV_DONTFORK), 0);
	KUNIT_ASSERT_EQ(test, reg_madvise(t + 2 * p, p, MADV_WIPEONFORK), 0);

	a = reg_fork_args(test, 1, ctx->live + 2);
	a->want[0] = (struct sframe_range_info){
		.start = t, .end = t + 2 * p, .sframe_start = ctx->sframe,
		.explicit = true,
	};
	KUNIT_EXPECT_EQ(test, kunit_fork_run(reg_fork_uncopied_child, a), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t, t + 4 * p);

	/* The section's data not copied: nothing of it in the child. */
	KUNIT_ASSERT_EQ(test, reg_madvise(ctx->sframe, SFB_BUF_SIZE, MADV_DONTFORK), 0);
	a = reg_fork_args(test, 0, ctx->live + 1);
	KUNIT_EXPECT_EQ(test, kunit_fork_run(reg_fork_child, a), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
}

/* Corrupt data found at lookup drops that section only, once. */
static void reg_bad_section_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text;
	struct unwind_user_frame frame;
	u8 junk[16];
	int ret;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + 2 * p), 0);
	KUNIT_ASSERT_EQ(test, reg_add(ctx, t + 2 * p, t + 4 * p), 0);
	KUNIT_ASSERT_EQ(test, reg_lookup(t, &frame), 0);

	/* Send the FDE table's first entry far out of its sub-section. */
	memset(junk, 0x7f, sizeof(junk));
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->sframe + 28 + 12,
					   junk, 4), 0);
	ret = reg_lookup(t, &frame);
	KUNIT_EXPECT_TRUE_MSG(test, ret < 0 && ret != -ENOENT && ret != -ENODATA,
			      "lookup gave %d", ret);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].bad);
	KUNIT_EXPECT_FALSE(test, ctx->info[1].bad);
	/* Dropped: no more reads of it, no error either. */
	KUNIT_EXPECT_EQ(test, reg_lookup(t, &frame), -ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 2);
}

/* The explicit call's structure: the size field and reserved bits. */
static int reg_prctl(struct kunit *test, struct reg_ctx *ctx,
		     const void *arg, size_t len)
{
	KUNIT_EXPECT_EQ(test, clear_user((void __user *)ctx->uarg, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, copy_to_user((void __user *)ctx->uarg, arg, len), 0);
	return sframe_prctl(PR_SFRAME_REGISTER, ctx->uarg, 0, 0, 0);
}

static struct sframe_registration reg_args(struct reg_ctx *ctx)
{
	return (struct sframe_registration){
		.size = sizeof(struct sframe_registration),
		.sframe_start = ctx->sframe,
		.sframe_size = ctx->size,
		.text_start = ctx->text,
		.text_size = REG_TEXT_PAGES * PAGE_SIZE,
	};
}

static void reg_prctl_struct_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	struct sframe_registration r = reg_args(ctx);
	u8 big[sizeof(r) + 8] = {};
	unsigned long two;

	r.size = SFRAME_REGISTRATION_SIZE_VER0 - 1;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EINVAL);
	r = reg_args(ctx);
	r.flags = ~SFRAME_REGISTER_REPLACE;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EINVAL);
	r.flags = SFRAME_REGISTER_REPLACE << 1 | SFRAME_REGISTER_REPLACE;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EINVAL);
	r = reg_args(ctx);
	r.sframe_size = 0;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EINVAL);
	r = reg_args(ctx);
	r.text_size = 0;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EINVAL);
	r = reg_args(ctx);
	r.text_size = -r.text_start;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EINVAL);

	/* A newer caller's structure: unknown bytes must be zero. */
	r = reg_args(ctx);
	r.size = sizeof(big);
	memcpy(big, &r, sizeof(r));
	big[sizeof(r) + 3] = 1;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, big, sizeof(big)), -E2BIG);
	big[sizeof(r) + 3] = 0;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, big, sizeof(big)), 0);

	/*
	 * Over a page, as clone3() and openat2(): refused, though every byte
	 * past the known ones is zero and readable (two fresh pages), so that
	 * only the size says no.
	 */
	r = reg_args(ctx);
	r.size = PAGE_SIZE + 1;
	two = kunit_vm_mmap(test, NULL, 0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, two, 0);
	KUNIT_EXPECT_EQ(test, copy_to_user((void __user *)two, &r, sizeof(r)), 0);
	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_REGISTER, two, 0, 0, 0), -E2BIG);

	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_REGISTER, 16, 0, 0, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_REGISTER, ctx->uarg, 1, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_UNREGISTER, ctx->text, 0, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_UNREGISTER, ctx->text + 1, 0, 0, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_UNREGISTER, ctx->text, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
}

static void reg_prctl_mapping_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	struct sframe_registration r = reg_args(ctx);
	unsigned long p = PAGE_SIZE;

	/* Text must be mapped, all of it, and executable. */
	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->text + 3 * p, p), 0);
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EFAULT);
	r = reg_args(ctx);
	r.text_start = ctx->sframe;
	r.text_size = p;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EACCES);
	/* The section must be mapped. */
	r = reg_args(ctx);
	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->sframe + SFB_BUF_SIZE - p, p), 0);
	r.sframe_size = SFB_BUF_SIZE;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EFAULT);
	/* Readable memory that holds no section. */
	r = reg_args(ctx);
	r.text_size = 3 * p;
	r.sframe_start = ctx->uarg + 64;
	r.sframe_size = 64;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EINVAL);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
}

static void reg_prctl_section_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	struct sframe_registration r = reg_args(ctx);
	u8 version = 1;

	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->sframe + 2,
					   &version, 1), 0);
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EOPNOTSUPP);
	reg_build(test, ctx, SFRAME_VERSION_2);
	r = reg_args(ctx);
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), 0);
	r.text_start += PAGE_SIZE;
	r.text_size -= PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EEXIST);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].explicit);
}

static void reg_limits_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long t = ctx->text;
	unsigned int i;

	sframe_max_sections = 3;
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, reg_add(ctx, t + 16 * i, t + 16 * i + 16), 0);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t + 64, t + 80), -ENOSPC);
	KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm, t + 16), 0);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t + 64, t + 80), 0);

	sframe_max_sections = ctx->max_sections;
	sframe_max_bytes = 1;
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t + 96, t + 112), -EDQUOT);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 3);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 3);
}

/* The CFA offset at @ip, by a lookup that may fault or one that may not */
static s32 reg_cfa(struct kunit *test, unsigned long ip, bool nofault)
{
	struct unwind_user_frame frame;
	int ret;

	ret = nofault ? reg_lookup_nofault(ip, &frame) : reg_lookup(ip, &frame);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "lookup at %lx (nofault %d)", ip, nofault);
	return ret ? S32_MIN : frame.cfa.offset;
}

/*
 * A JIT rewrites a section in place and registers it again at the same
 * text start: lookups, those that may not fault (NMI) too, must give the
 * new rules, not what the rule cache of the old registration holds.  The
 * test thread is a kthread, which lookups give no cache: it gets one here.
 */
static void reg_replace_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long t = ctx->text, end = t + REG_TEXT_PAGES * PAGE_SIZE;
	struct sframe_entry *e;
	s32 cfa;

	sframe_max_sections = 1;
	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, end), 0);
	scoped_guard(rcu)
		e = rcu_dereference(current->mm->sframe_table)->ranges[0].entry;
	KUNIT_ASSERT_EQ(test, sframe_section_cache_alloc(&e->sec), 0);
	KUNIT_ASSERT_NOT_NULL(test, e->sec.cache);
	cfa = reg_cfa(test, t, false);
	KUNIT_ASSERT_NE(test, cfa, S32_MIN);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t, true), cfa);

	/* Rewritten in place: the cache answers with the old rule. */
	reg_build_cfa(test, ctx, SFRAME_VERSION_3, 16);
	KUNIT_EXPECT_EQ_MSG(test, reg_cfa(test, t, true), cfa, "the rule was not cached");
	/* Registered again, at the limit of one section: it replaces the old one. */
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, end), 0);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t, true), cfa + 16);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t, false), cfa + 16);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t, end);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
	sframe_max_sections = ctx->max_sections;

	/* Less text at the same start replaces it too; other overlaps do not. */
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t + 16, t + 32), -EEXIST);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t, t + PAGE_SIZE);

	/* Unregistered and registered: new rules as well. */
	reg_build_cfa(test, ctx, SFRAME_VERSION_3, 0);
	KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm, t), 0);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, end), 0);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t, true), cfa);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);

	/* A failed registration again leaves the old one in place. */
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)ctx->sframe, 4), 0);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, end), -EINVAL);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t, false), cfa);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
}

/* PR_SFRAME_REGISTER with SFRAME_REGISTER_REPLACE for text [@start, @end) */
static int reg_prctl_replace(struct kunit *test, struct reg_ctx *ctx,
			     unsigned long start, unsigned long end)
{
	struct sframe_registration r = reg_args(ctx);

	r.flags = SFRAME_REGISTER_REPLACE;
	r.text_start = start;
	r.text_size = end - start;
	return reg_prctl(test, ctx, &r, sizeof(r));
}

/*
 * SFRAME_REGISTER_REPLACE takes the place of the explicit registrations
 * its text overlaps, with their room (at the limit of sections), but only
 * of those with no text outside it: a refusal changes nothing, and leaves
 * no entry marked for the next insert to drop.
 */
static void reg_replace_overlap_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = ctx->text, end = t + 4 * p;

	KUNIT_ASSERT_EQ(test, reg_add(ctx, t, t + p), 0);
	KUNIT_ASSERT_EQ(test, reg_add(ctx, t + 2 * p, t + 3 * p), 0);
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t + 16, end), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t, t + 3 * p - 1), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 2);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 2);
	/* Without the flag, overlapping is refused as before. */
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t + p, end), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t + 3 * p, end), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 3);
	reg_expect_range(test, ctx, 0, t, t + p);
	reg_expect_range(test, ctx, 1, t + 2 * p, t + 3 * p);
	reg_expect_range(test, ctx, 2, t + 3 * p, end);

	sframe_max_sections = 3;
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t, end), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t, end);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].explicit);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
	/* Replacing with nothing to replace is a plain registration. */
	KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm, t), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t + p, end), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_EQ(test, sframe_remove_explicit(current->mm, t + p), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
}

/*
 * A file's section is replaced whole by an explicit one over all of its
 * text, and not over part of it; the file's entry and its reference to
 * the file go with it (the counter of live sections says so).
 */
static void reg_replace_file_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = reg_add_file(test, ctx);
	struct unwind_user_frame frame;

	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].explicit);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + 4 * p), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t, t + 2 * p), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t + p, t + 4 * p), -EEXIST);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].explicit);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);

	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t, t + 4 * p), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	reg_expect_range(test, ctx, 0, t, t + 4 * p);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].explicit);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
	KUNIT_EXPECT_EQ(test, reg_lookup(t, &frame), 0);

	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_UNREGISTER, t, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live);
}

/* A file's text split by mprotect(): a replacement of either part is refused. */
static void reg_replace_file_split_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long p = PAGE_SIZE, t = reg_add_file(test, ctx);

	KUNIT_ASSERT_EQ(test, reg_mprotect(t + p, p, PROT_READ), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t, t + p), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg_prctl_replace(test, ctx, t + 2 * p, t + 4 * p), -EEXIST);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	reg_expect_range(test, ctx, 0, t, t + p);
	reg_expect_range(test, ctx, 1, t + 2 * p, t + 4 * p);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].explicit);
	KUNIT_EXPECT_FALSE(test, ctx->info[1].explicit);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
}

/*
 * The limits are checked before a section is read, and count all the
 * kernel memory a process's sections take: the table of ranges too.
 */
/* Kernel memory the reader takes for the section in @ctx, text [start, end) */
static size_t reg_index_bytes(struct kunit *test, struct reg_ctx *ctx,
			      unsigned long start, unsigned long end)
{
	struct sframe_section sec;
	size_t bytes;

	KUNIT_ASSERT_EQ(test, sframe_section_init(&sec, ctx->sframe, ctx->size, start,
						  end, SIZE_MAX), 0);
	bytes = sframe_section_bytes(&sec);
	sframe_section_release(&sec);
	return bytes;
}

static void reg_limits_first_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	unsigned long t = ctx->text;
	size_t index;
	u8 bad = 0;

	/* A malformed section: over the limit, it is not even read. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)ctx->sframe, &bad, 1), 0);
	sframe_max_sections = 0;
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + 16), -ENOSPC);
	sframe_max_sections = ctx->max_sections;
	sframe_max_bytes = sizeof(struct sframe_entry);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + 16), -EDQUOT);

	/* A good one that fits as a section, but not with its table and index. */
	reg_build(test, ctx, SFRAME_VERSION_3);
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + 16), -EDQUOT);
	index = reg_index_bytes(test, ctx, t, t + 16);
	KUNIT_EXPECT_GT(test, index, 0);
	sframe_max_bytes = sizeof(struct sframe_entry) + sizeof(struct sframe_table) +
			   sizeof(struct sframe_range) + index - 1;
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + 16), -EDQUOT);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 0);
	sframe_max_bytes++;
	KUNIT_EXPECT_EQ(test, reg_add(ctx, t, t + 16), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_EQ(test, sframe_live_sections(), ctx->live + 1);
}

/*
 * A library as ld.so maps it: REG_TEXT_PAGES of text, then its section,
 * in one shmem file mapped whole, readable and executable.  Shared indexes
 * are built from the file's bytes.
 */
#define SHARE_FILE_LEN	(REG_TEXT_PAGES * PAGE_SIZE + SFB_BUF_SIZE)
#define SHARE_NOMINAL	0x400000UL	/* where the section is built for */

/* Write @ctx's section, its first CFA offset moved by @delta, into @file */
static void share_write(struct kunit *test, struct reg_ctx *ctx, struct file *file,
			s32 delta)
{
	loff_t pos = REG_TEXT_PAGES * PAGE_SIZE;
	/* Relative addresses only: any load address gives the same bytes. */
	u8 *buf = reg_section(test, SFRAME_VERSION_3, delta, SHARE_NOMINAL + pos,
			      SHARE_NOMINAL, &ctx->size);

	KUNIT_ASSERT_EQ(test, kernel_write(file, buf, SFB_BUF_SIZE, &pos),
			(ssize_t)SFB_BUF_SIZE);
}

static struct file *share_file(struct kunit *test, struct reg_ctx *ctx)
{
	struct file *file = shmem_kernel_file_setup("sframe-share-test",
						    SHARE_FILE_LEN, 0);

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	share_write(test, ctx, file, 0);
	return file;
}

/* Map @file whole and register its section as the mmap hook does: the text start */
static unsigned long share_map(struct kunit *test, struct reg_ctx *ctx,
			       struct file *file)
{
	unsigned long t, text_len = REG_TEXT_PAGES * PAGE_SIZE;
	struct sframe_new_section add;

	t = vm_mmap(file, 0, SHARE_FILE_LEN, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(t));
	add = (struct sframe_new_section){
		.file = file, .file_base = t,
		.sframe_start = t + text_len, .sframe_size = ctx->size,
		.seg_start = t, .seg_end = t + text_len, .start = t, .end = t + text_len,
	};
	KUNIT_ASSERT_EQ(test, sframe_add_section(current->mm, &add), 0);
	return t;
}

static long share_count(void)
{
	/* Indexes whose last user went are freed after a grace period. */
	rcu_barrier();
	return sframe_shared_indexes();
}

/* The shared indexes and private bytes before a second registration */
struct share_snap {
	long	indexes;
	long	bytes;
	long	priv;
};

static void share_snap_take(struct share_snap *snap)
{
	snap->indexes = sframe_shared_indexes();
	snap->bytes = sframe_shared_total_bytes();
	snap->priv = sframe_private_bytes();
}

/* A second registration of a section costs an entry and a range, not an index. */
static void share_expect_no_index(struct kunit *test, const struct share_snap *snap)
{
	KUNIT_EXPECT_EQ(test, sframe_shared_indexes(), snap->indexes);
	KUNIT_EXPECT_EQ(test, sframe_shared_total_bytes(), snap->bytes);
	KUNIT_EXPECT_LT(test, sframe_private_bytes() - snap->priv,
			(long)(sizeof(struct sframe_entry) + 2 * sizeof(struct sframe_range) +
			       sizeof(struct sframe_table)));
}

/*
 * Two mappings of one file share one index; each is looked up through it
 * at its own address; the index goes with the last of them.
 */
static void reg_share_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct share_snap snap;
	struct file *file = share_file(test, ctx);
	unsigned long t1, t2;

	t1 = share_map(test, ctx, file);
	KUNIT_EXPECT_EQ(test, sframe_shared_indexes(), nr + 1);
	share_snap_take(&snap);
	t2 = share_map(test, ctx, file);
	share_expect_no_index(test, &snap);

	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].shared);
	KUNIT_EXPECT_TRUE(test, ctx->info[1].shared);
	KUNIT_EXPECT_EQ(test, ctx->info[0].num_fdes, 3);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t1, false), 8);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t2, false), 8);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t2 + 0x45, true), 16);

	KUNIT_EXPECT_EQ(test, vm_munmap(t1, SHARE_FILE_LEN), 0);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 1);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t2, true), 8);
	KUNIT_EXPECT_EQ(test, vm_munmap(t2, SHARE_FILE_LEN), 0);
	KUNIT_EXPECT_EQ(test, share_count(), nr);
	fput(file);
}

static int reg_share_child(void *arg)
{
	struct reg_fork_args *a = arg;
	struct kunit *test = a->test;
	struct sframe_range_info got;

	KUNIT_EXPECT_EQ(test, sframe_mm_ranges(current->mm, &got, 1), 1);
	KUNIT_EXPECT_TRUE(test, got.shared);
	KUNIT_EXPECT_EQ(test, share_count(), a->live);
	/* fork leaves a file's pages to be faulted in: a faulting lookup first */
	KUNIT_EXPECT_EQ(test, reg_cfa(test, got.start, false), 8);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, got.start + 0x45, true), 16);
	return 0;
}

/* A forked child uses its parent's index, not a copy (@live: indexes alive). */
static void reg_share_fork_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct file *file = share_file(test, ctx);
	struct reg_fork_args *a;

	share_map(test, ctx, file);
	a = reg_fork_args(test, 1, nr + 1);
	KUNIT_EXPECT_EQ(test, kunit_fork_run(reg_share_child, a), 0);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 1);
	fput(file);
}

/*
 * A file changed after its index was built is a new version: a new
 * mapping gets an index of its own, from the new bytes.
 */
static void reg_share_changed_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct file *file = share_file(test, ctx);
	unsigned long t1, t2;

	t1 = share_map(test, ctx, file);
	share_write(test, ctx, file, 24);
	t2 = share_map(test, ctx, file);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 2);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t2, false), 32);
	/* The old mapping shows the file as it is now, through its old index. */
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t1, false), 32);
	fput(file);
}

/*
 * A file too large to copy: its section is indexed from the process's
 * memory, as before sharing, and nothing is shared.  The file is sparse
 * past the section, and the registration says the section runs over
 * 64 MiB of it (a PT_GNU_SFRAME segment may be larger than its section).
 */
static void reg_share_too_large_test(struct kunit *test)
{
	unsigned long t, text_len = REG_TEXT_PAGES * PAGE_SIZE;
	unsigned long len = text_len + (65UL << 20);
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct sframe_new_section add;
	struct file *file;

	file = shmem_kernel_file_setup("sframe-share-big", len, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	share_write(test, ctx, file, 0);
	t = vm_mmap(file, 0, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(t));
	add = (struct sframe_new_section){
		.file = file, .file_base = t,
		.sframe_start = t + text_len, .sframe_size = len - text_len,
		.seg_start = t, .seg_end = t + text_len, .start = t, .end = t + text_len,
	};
	KUNIT_ASSERT_EQ(test, sframe_add_section(current->mm, &add), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].shared);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].bad);
	KUNIT_EXPECT_EQ(test, share_count(), nr);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t, false), 8);
	fput(file);
}

/*
 * While the copies being read for other indexes hold all the system
 * allows, a file's section is indexed from its process's memory instead:
 * threads registering many large sections at once hold no copy each.
 */
static void reg_share_copy_bound_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct file *file = share_file(test, ctx);
	unsigned long t;

	atomic_long_add(SZ_1G, &sframe_share_copying);
	t = share_map(test, ctx, file);
	atomic_long_sub(SZ_1G, &sframe_share_copying);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].shared);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].bad);
	KUNIT_EXPECT_EQ(test, share_count(), nr);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t, false), 8);
	/* With the room back, the next mapping shares as before. */
	share_map(test, ctx, file);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sframe_share_copying), 0);
	fput(file);
}

/*
 * An attachment's section, held by the kernel: registered with nothing
 * mapped where it would lie, looked up from the kernel's copy (faulting
 * or not), kept when that range is unmapped, copied by fork, and its
 * index freed with the last registration and the holder's reference.
 */
static void reg_held_test(struct kunit *test)
{
	unsigned long text_len = REG_TEXT_PAGES * PAGE_SIZE, at = 1UL << 48;
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct sframe_shared *held;
	const char *reason = NULL;
	struct sframe_registration r;
	struct sframe_new_section add;
	struct reg_fork_args *a;
	void *data;

	data = kvmalloc(ctx->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_EQ(test, copy_from_user(data, (void __user *)ctx->sframe,
					     ctx->size), 0);
	held = sframe_shared_hold(data, ctx->size, at, at + (ctx->text - ctx->sframe),
				  text_len, &reason);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(held), "%s", reason);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 1);
	add = (struct sframe_new_section){
		.sframe_start = ctx->sframe, .sframe_size = ctx->size,
		.seg_start = ctx->text, .seg_end = ctx->text + text_len,
		.start = ctx->text, .end = ctx->text + text_len, .held = held,
	};
	KUNIT_ASSERT_EQ(test, sframe_add_section(current->mm, &add), 0);
	/* The process's own registration of that text: refused, not a replacement */
	r = reg_args(ctx);
	KUNIT_EXPECT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), -EEXIST);
	/* The kernel's again (the text mapped anew) replaces it */
	KUNIT_EXPECT_EQ(test, sframe_add_section(current->mm, &add), 0);
	/* What the process had there is gone: only the kernel's copy is left. */
	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->sframe, SFB_BUF_SIZE), 0);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].shared);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].explicit);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, ctx->text, false), 8);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, ctx->text + 0x45, true), 16);
	/* Memory mapped and unmapped where the section would lie: no matter */
	KUNIT_ASSERT_EQ(test, vm_mmap(NULL, ctx->sframe, PAGE_SIZE, PROT_READ,
				      MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE, 0),
			ctx->sframe);
	KUNIT_ASSERT_EQ(test, vm_munmap(ctx->sframe, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, reg_ranges(ctx), 1);
	a = reg_fork_args(test, 1, nr + 1);
	KUNIT_EXPECT_EQ(test, kunit_fork_run(reg_share_child, a), 0);

	sframe_shared_put(held);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 1);
	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_UNREGISTER, ctx->text, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, share_count(), nr);
}

/*
 * A file whose section is malformed: the registration is kept, marked
 * bad, and no index is shared; one whose section is only in its process's
 * memory (not mapped from the file) gets an index of its own.
 */
static void reg_share_refused_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct file *file = share_file(test, ctx);
	loff_t pos = REG_TEXT_PAGES * PAGE_SIZE;
	u8 bad = 0;

	KUNIT_ASSERT_EQ(test, kernel_write(file, &bad, 1, &pos), 1);
	share_map(test, ctx, file);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 1);
	KUNIT_EXPECT_TRUE(test, ctx->info[0].bad);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].shared);
	KUNIT_EXPECT_EQ(test, share_count(), nr);
	fput(file);

	reg_add_file(test, ctx);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	KUNIT_EXPECT_FALSE(test, ctx->info[0].shared || ctx->info[1].shared);
	KUNIT_EXPECT_EQ(test, share_count(), nr);
}

/*
 * The audit module's layout: a cache file of converted sections, mapped
 * with @prot at SHARE_DIST below the text they describe (anonymous and
 * executable here), registered by prctl().  With @written, a page of the
 * mapping is written (the same byte) and made read-only again.  Returns
 * the text start.
 */
#define SHARE_DIST	(16 * PAGE_SIZE)

static struct file *share_cache_file(struct kunit *test, struct reg_ctx *ctx)
{
	struct file *file = shmem_kernel_file_setup("sframe-cache-test",
						    SFB_BUF_SIZE, 0);
	loff_t pos = 0;
	u8 *buf;

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	buf = reg_section(test, SFRAME_VERSION_3, 0, SHARE_NOMINAL,
			  SHARE_NOMINAL + SHARE_DIST, &ctx->size);
	KUNIT_ASSERT_EQ(test, kernel_write(file, buf, SFB_BUF_SIZE, &pos),
			(ssize_t)SFB_BUF_SIZE);
	return file;
}

static unsigned long share_cache_map(struct kunit *test, struct reg_ctx *ctx,
				     struct file *file, unsigned long prot,
				     bool written)
{
	unsigned long text_len = REG_TEXT_PAGES * PAGE_SIZE, area, c, t;
	struct sframe_registration r;
	u8 first;

	area = kunit_vm_mmap(test, NULL, 0, SHARE_DIST + text_len, PROT_NONE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, area, 0);
	c = vm_mmap(file, area, SFB_BUF_SIZE, prot, MAP_PRIVATE | MAP_FIXED, 0);
	KUNIT_ASSERT_EQ(test, c, area);
	t = vm_mmap(NULL, area + SHARE_DIST, text_len, PROT_READ | PROT_EXEC,
		    MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED, 0);
	KUNIT_ASSERT_EQ(test, t, area + SHARE_DIST);
	if (written) {
		KUNIT_ASSERT_EQ(test, copy_from_user(&first, (void __user *)c, 1), 0);
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)c, &first, 1), 0);
		KUNIT_ASSERT_EQ(test, reg_mprotect(c, PAGE_ALIGN(SFB_BUF_SIZE),
						   PROT_READ), 0);
	}
	r = (struct sframe_registration){
		.size = sizeof(r), .sframe_start = c, .sframe_size = ctx->size,
		.text_start = t, .text_size = text_len,
	};
	KUNIT_ASSERT_EQ(test, reg_prctl(test, ctx, &r, sizeof(r)), 0);
	return t;
}

/*
 * Explicit registrations of one cache file at one distance from their
 * text share one index, looked up at each one's own address; it goes with
 * the last of them.
 */
static void reg_share_explicit_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct share_snap snap;
	struct file *file = share_cache_file(test, ctx);
	unsigned long t1, t2;
	unsigned int i;

	t1 = share_cache_map(test, ctx, file, PROT_READ, false);
	KUNIT_EXPECT_EQ(test, sframe_shared_indexes(), nr + 1);
	share_snap_take(&snap);
	t2 = share_cache_map(test, ctx, file, PROT_READ, false);
	share_expect_no_index(test, &snap);
	KUNIT_ASSERT_EQ(test, reg_ranges(ctx), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, ctx->info[i].shared, "range %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, ctx->info[i].explicit, "range %u", i);
	}
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t1, false), 8);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t2, false), 8);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t2 + 0x45, true), 16);

	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_UNREGISTER, t1, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 1);
	KUNIT_EXPECT_EQ(test, reg_cfa(test, t2, true), 8);
	KUNIT_EXPECT_EQ(test, sframe_prctl(PR_SFRAME_UNREGISTER, t2, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, share_count(), nr);
	fput(file);
}

/*
 * An explicit section whose memory may not be, or not stay, the file's
 * bytes gets an index of its own: a writable mapping, one written to
 * before it was made read-only, a file open for writing or mapped writable
 * and shared (a JIT's memfd).  Each is still registered and looked up.
 */
static void reg_share_explicit_refused_test(struct kunit *test)
{
	struct reg_ctx *ctx = test->priv;
	long nr = share_count();
	struct file *file = share_cache_file(test, ctx);
	struct inode *inode = file_inode(file);
	unsigned long t[5], w;
	unsigned int i, n;

	t[0] = share_cache_map(test, ctx, file, PROT_READ | PROT_WRITE, false);
	t[1] = share_cache_map(test, ctx, file, PROT_READ | PROT_WRITE, true);
	KUNIT_ASSERT_EQ(test, get_write_access(inode), 0);
	t[2] = share_cache_map(test, ctx, file, PROT_READ, false);
	put_write_access(inode);
	w = vm_mmap(file, 0, SFB_BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(w));
	t[3] = share_cache_map(test, ctx, file, PROT_READ, false);
	KUNIT_EXPECT_EQ(test, vm_munmap(w, SFB_BUF_SIZE), 0);
	KUNIT_EXPECT_EQ(test, share_count(), nr);

	/* With nothing of that left, the same file is shared. */
	t[4] = share_cache_map(test, ctx, file, PROT_READ, false);
	KUNIT_EXPECT_EQ(test, share_count(), nr + 1);
	n = reg_ranges(ctx);
	KUNIT_ASSERT_EQ(test, n, 5);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, ctx->info[i].explicit, "range %u", i);
		KUNIT_EXPECT_EQ_MSG(test, ctx->info[i].shared, ctx->info[i].start == t[4],
				    "range %u", i);
		KUNIT_EXPECT_EQ(test, reg_cfa(test, t[i], false), 8);
	}
	fput(file);
}

static struct kunit_case sframe_registry_cases[] = {
	KUNIT_CASE(reg_add_lookup_test),
	KUNIT_CASE(reg_overlap_test),
	KUNIT_CASE(reg_munmap_trim_test),
	KUNIT_CASE(reg_munmap_split_test),
	KUNIT_CASE(reg_munmap_next_range_test),
	KUNIT_CASE(reg_munmap_data_test),
	KUNIT_CASE(reg_map_fixed_test),
	KUNIT_CASE(reg_noexec_test),
	KUNIT_CASE(reg_jit_flip_test),
	KUNIT_CASE(reg_unreadable_test),
	KUNIT_CASE(reg_fork_test),
	KUNIT_CASE(reg_fork_uncopied_test),
	KUNIT_CASE(reg_bad_section_test),
	KUNIT_CASE(reg_prctl_struct_test),
	KUNIT_CASE(reg_prctl_mapping_test),
	KUNIT_CASE(reg_prctl_section_test),
	KUNIT_CASE(reg_limits_test),
	KUNIT_CASE(reg_limits_first_test),
	KUNIT_CASE(reg_replace_test),
	KUNIT_CASE(reg_replace_overlap_test),
	KUNIT_CASE(reg_replace_file_test),
	KUNIT_CASE(reg_replace_file_split_test),
	KUNIT_CASE(reg_share_test),
	KUNIT_CASE(reg_share_fork_test),
	KUNIT_CASE(reg_share_changed_test),
	KUNIT_CASE(reg_share_refused_test),
	KUNIT_CASE(reg_share_too_large_test),
	KUNIT_CASE(reg_share_copy_bound_test),
	KUNIT_CASE(reg_held_test),
	KUNIT_CASE(reg_share_explicit_test),
	KUNIT_CASE(reg_share_explicit_refused_test),
	{}
};

static struct kunit_suite sframe_registry_suite = {
	.name = "sframe_registry",
	.init = reg_init,
	.exit = reg_exit,
	.test_cases = sframe_registry_cases,
};

kunit_test_suite(sframe_registry_suite);

MODULE_DESCRIPTION("KUnit tests for the per-mm SFrame registry");
MODULE_LICENSE("GPL");
