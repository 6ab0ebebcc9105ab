// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user memory the walker reads, and the registry part of its SFrame
 * lookups: one section, looked up by the real reader (sframe_shim.c) on
 * the same bytes.  Built with the reader's shim header, not the walker's.
 *
 * User memory is the four regions of walk_map[]; an access must lie whole
 * in the first region that holds its start, outside any hole that faults
 * at the time, and below TASK_SIZE, as access_ok() demands, or it fails
 * as a fault would.  The reader's own accesses see the same regions.
 */
#define CONFIG_UNWIND_USER_SFRAME	1
#include "sframe_internal.h"
#include <linux/sframe_mm.h>
#include "walker.h"

#if defined(WALKER_ARCH_X86)
#include "../../../arch/x86/include/asm/unwind_user_sframe.h"
#elif defined(WALKER_ARCH_ARM64)
#include "../../../arch/arm64/include/asm/unwind_user_sframe.h"
#elif defined(WALKER_ARCH_S390)
#include "../../../arch/s390/include/asm/unwind_user_sframe.h"
#else
#error "build with WALKER_ARCH_X86, WALKER_ARCH_ARM64 or WALKER_ARCH_S390"
#endif

static_assert(WALK_REGIONS <= SFRAME_UMEM_MAX_REGIONS);

const u8 walk_sframe_abi = SFRAME_ABI;
struct walk_region walk_map[WALK_REGIONS];
unsigned long walk_task_size;
int walk_pagefault_disabled;
bool walk_atomic;
bool walk_have_mm;
struct walk_read walk_log[WALK_LOG_MAX];
unsigned int walk_log_len;
bool walk_log_on;
unsigned long walk_kernel_reads;

static struct {
	bool			registered;
	bool			dropped;
	unsigned long		start;
	unsigned long		end;
	struct sframe_section	sec;
	unsigned long		rows;
	unsigned long		lookups;
} walk_reg;

void walk_bug(const char *what)
{
	fprintf(stderr, "walker: %s\n", what);
	abort();
}

static bool walk_hole_faults(const struct walk_region *r)
{
	return r->hole_end > r->hole_start &&
	       (!r->hole_cold || walk_pagefault_disabled);
}

static const struct walk_region *walk_readable(unsigned long src,
					       unsigned long len)
{
	const struct walk_region *r;
	unsigned int i;

	for (i = 0; i < WALK_REGIONS; i++) {
		r = &walk_map[i];
		if (!r->len || src < r->addr || src - r->addr >= r->len)
			continue;
		if (len > r->len - (src - r->addr))
			return NULL;
		if (walk_hole_faults(r) && src < r->hole_end &&
		    src + len > r->hole_start)
			return NULL;
		return r;
	}
	return NULL;
}

static bool walk_access_ok(unsigned long src, unsigned long len)
{
	return len <= walk_task_size && src <= walk_task_size - len;
}

/*
 * Every user access of the walker: get_user() and copy_from_user() of
 * walker_internal.h.  A failed one leaves zeros, as theirs do.
 */
bool walk_copy(void *dst, unsigned long src, unsigned long len)
{
	const struct walk_region *r = NULL;
	struct walk_read *e = NULL;

	if (walk_log_on) {
		if (walk_log_len == WALK_LOG_MAX)
			walk_bug("more user accesses in one step than any method makes");
		e = &walk_log[walk_log_len++];
	}
	if (walk_access_ok(src, len))
		r = walk_readable(src, len);
	else
		walk_kernel_reads++;
	if (r)
		memcpy(dst, r->data + (src - r->addr), len);
	else
		memset(dst, 0, len);
	if (e) {
		e->addr = src;
		e->len = len;
		e->ok = r;
		e->value = 0;
		memcpy(&e->value, dst, min_t(unsigned long, len, sizeof(e->value)));
	}
	return r;
}

/* The oracle's view of the same memory, at the same moment: not logged */
bool walk_peek(void *dst, unsigned long src, unsigned long len)
{
	const struct walk_region *r = NULL;

	if (walk_access_ok(src, len))
		r = walk_readable(src, len);
	if (!r) {
		memset(dst, 0, len);
		return false;
	}
	memcpy(dst, r->data + (src - r->addr), len);
	return true;
}

void walk_log_reset(void)
{
	walk_log_len = 0;
}

/* The reader's user memory: the walker's regions, with the holes that fault now */
static void walk_sync_umem(void)
{
	const struct walk_region *r;
	unsigned int i;

	memset(sframe_umem, 0, sizeof(sframe_umem));
	sframe_umem_disarm();
	for (i = 0; i < WALK_REGIONS; i++) {
		r = &walk_map[i];
		if (!r->len)
			continue;
		sframe_umem[i].addr = r->addr;
		sframe_umem[i].len = r->len;
		/* Only the second writer stores, and it is disarmed. */
		sframe_umem[i].data = (unsigned char *)r->data;
		if (walk_hole_faults(r)) {
			sframe_umem[i].hole_start = r->hole_start;
			sframe_umem[i].hole_end = r->hole_end;
		}
	}
}

void walk_unregister(void)
{
	if (walk_reg.registered)
		sframe_section_release(&walk_reg.sec);
	memset(&walk_reg, 0, sizeof(walk_reg));
	if (sframe_kmem_live)
		walk_bug("the reader leaked memory");
}

/*
 * As sframe_add_section() would, from process context: a section of user
 * memory, for text below TASK_SIZE, of this architecture's ABI (the shim
 * reader reads any).
 */
int walk_register(unsigned long sframe_start, unsigned long sframe_size,
		  unsigned long text_start, unsigned long text_end)
{
	int ret;

	walk_unregister();
	if (!walk_access_ok(sframe_start, sframe_size) || text_start >= text_end ||
	    text_end > walk_task_size)
		return -EINVAL;
	walk_sync_umem();
	ret = sframe_section_init(&walk_reg.sec, sframe_start, sframe_size,
				  text_start, text_end, SIZE_MAX);
	if (ret) {
		if (sframe_kmem_live)
			walk_bug("the reader leaked memory");
		return ret;
	}
	if (walk_reg.sec.abi != SFRAME_ABI) {
		sframe_section_release(&walk_reg.sec);
		return -EOPNOTSUPP;
	}
	walk_reg.registered = true;
	walk_reg.start = text_start;
	walk_reg.end = text_end;
	return 0;
}

void walk_registry_reset(void)
{
	walk_reg.dropped = false;
	walk_reg.rows = 0;
	walk_reg.lookups = 0;
}

bool walk_registered(void)
{
	return walk_reg.registered;
}

bool walk_section_dropped(void)
{
	return walk_reg.dropped;
}

unsigned long walk_rows_read(void)
{
	return walk_reg.rows;
}

unsigned long walk_lookups(void)
{
	return walk_reg.lookups;
}

bool sframe_mm_has_sections(struct mm_struct *mm)
{
	/* A dropped section stays in the table: only lookups skip it. */
	return walk_reg.registered;
}

static bool walk_described(unsigned long ip)
{
	return walk_have_mm && walk_reg.registered && !walk_reg.dropped &&
	       ip >= walk_reg.start && ip < walk_reg.end;
}

/* One address space here: @ctx->mm is the walk's either way. */
int sframe_lookup(struct unwind_user_ctx *ctx, unsigned long ip,
		  struct unwind_user_frame *frame)
{
	unsigned int before = ctx->budget;
	int ret;

	if (ctx->nofault && !walk_pagefault_disabled)
		walk_bug("a nofault SFrame lookup with page faults enabled");
	/* A faultable one takes a reference whose last put frees: never from NMI */
	if (!ctx->nofault && walk_atomic)
		walk_bug("a faultable SFrame lookup in NMI or IRQ context");
	if (ctx->nofault && ctx->mm)
		walk_bug("a nofault SFrame lookup of another address space");
	walk_reg.lookups++;
	if (!walk_described(ip))
		return -ENOENT;
	walk_sync_umem();
	ret = sframe_find(&walk_reg.sec, ip, frame, ctx);
	if (ctx->budget > before)
		walk_bug("a lookup gave FRE rows back to its budget");
	walk_reg.rows += before - ctx->budget;
	/*
	 * sframe_malformed(): only what the data says condemns a section,
	 * and only the section's own process's lookup that may fault drops it
	 */
	if (!ctx->nofault && !ctx->mm && (ret == -EINVAL || ret == -EOPNOTSUPP))
		walk_reg.dropped = true;
	return ret == -ENOENT ? -ENODATA : ret;
}

int walk_ref_lookup(unsigned long ip, struct unwind_user_frame *frame,
		    unsigned int *budget)
{
	struct unwind_user_ctx ctx = { .budget = *budget };
	int ret;

	if (!walk_described(ip))
		return -ENOENT;
	walk_sync_umem();
	ret = sframe_find(&walk_reg.sec, ip, frame, &ctx);
	*budget = ctx.budget;
	return ret;
}

bool walk_ref_described(unsigned long ip)
{
	return walk_described(ip);
}
