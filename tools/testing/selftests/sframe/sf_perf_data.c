// SPDX-License-Identifier: GPL-2.0
/*
 * Writing perf.data for Debian's perf to unwind by DWARF: see sf_perf_data.h.
 */
#include <string.h>

#include "sf_perf.h"
#include "sf_perf_data.h"
#include "sframe_test.h"

/* perf.data's header (tools/perf/util/header.h): no optional features */
struct sf_file_section {
	uint64_t	offset, size;
};

struct sf_file_header {
	uint64_t		magic, size, attr_size;
	struct sf_file_section	attrs, data, event_types;
	uint64_t		features[4];
};

struct sf_file_attr {
	struct perf_event_attr	attr;
	struct sf_file_section	ids;
};

/*
 * What perf record --call-graph dwarf asks of a sampling event, in user
 * mode, with the user callchain it leaves out, and the records perf needs
 * to find the objects; disabled, the ring's wakeup at a quarter of its
 * @ring_pages.  The caller has set the event and its period.
 */
void sf_perf_dwarf_attr(struct perf_event_attr *attr, unsigned int stack_bytes,
			unsigned int ring_pages)
{
	attr->size = sizeof(*attr);
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr->sample_regs_user = SF_PERF_DWARF_REGS;
	attr->sample_stack_user = stack_bytes;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->exclude_callchain_kernel = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->task = 1;
	attr->sample_id_all = 1;
	attr->watermark = 1;
	attr->wakeup_watermark = ring_pages / 4 * 4096;
}

bool sf_perf_sample_parse(const struct perf_event_attr *attr, const uint64_t *rec,
			  struct sf_perf_sample *s)
{
	const struct perf_event_header *hdr = (const void *)rec;
	const uint64_t *p = rec + 1, *end = rec + hdr->size / 8;
	uint64_t size = 0, dyn = 0;

	memset(s, 0, sizeof(*s));
	s->misc = hdr->misc;
	s->ip = *p++;
	s->pid_tid = *p++;
	s->time = *p++;
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN) {
		s->nr = p < end ? *p++ : 0;
		s->chain = p;
		if (!SF_CHECK(s->nr <= (uint64_t)(end - p), "a callchain of %llu frames",
			      (unsigned long long)s->nr))
			return false;
		p += s->nr;
	}
	s->abi = p < end ? *p++ : 0;
	s->regs = p;
	if (s->abi)
		s->nregs = __builtin_popcountll(attr->sample_regs_user);
	p += s->nregs;
	if (p < end)
		size = *p++;
	if (size && p + size / 8 < end)
		dyn = p[size / 8];
	s->stack = p;
	s->stack_bytes = (dyn + 7) & ~7ULL;
	return SF_CHECK(p <= end && p + size / 8 + !!size <= end && dyn <= size,
			"a sample of %u bytes does not parse", hdr->size);
}

void sf_perf_data_write(struct sf_perf_data *d, const void *p, size_t len)
{
	if (d->f && fwrite(p, 1, len, d->f) != len) {
		sf_fail("%s: %m", d->path);
		fclose(d->f);
		d->f = NULL;
	}
	d->bytes += len;
}

/*
 * The file's one event: the sampling one as perf record --call-graph
 * dwarf makes it, no user callchain, so that perf script takes every user
 * stack from the copy, by DWARF.  Written at the start and again, with
 * the size of the records, at the end.
 */
static void sf_perf_data_header(struct sf_perf_data *d, const struct perf_event_attr *sampled)
{
	struct sf_file_header h = {
		.magic = 0x32454c4946524550ULL,	/* "PERFILE2" */
		.size = sizeof(h),
		.attr_size = sizeof(struct sf_file_attr),
		.attrs = { sizeof(h), sizeof(struct sf_file_attr) },
		.data = { sizeof(h) + sizeof(struct sf_file_attr), d->bytes },
	};
	struct sf_file_attr a = { .attr = *sampled };

	a.attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	a.attr.exclude_callchain_user = 1;
	sf_perf_defer(&a.attr, false, false);
	if (d->f)
		rewind(d->f);
	sf_perf_data_write(d, &h, sizeof(h));
	sf_perf_data_write(d, &a, sizeof(a));
	d->bytes = 0;
}

bool sf_perf_data_open(struct sf_perf_data *d, const char *path,
		       const struct perf_event_attr *sampled)
{
	*d = (struct sf_perf_data){ .path = path, .f = fopen(path, "w") };
	if (!SF_CHECK(d->f, "%s: %m", path))
		return false;
	sf_perf_data_header(d, sampled);
	return d->f;
}

#if defined(__aarch64__)
/*
 * A user return address's PAC: bits 54 down to the VA size (48, or 52
 * with FEAT_LVA).  User addresses stay below 2^48 (no mmap() asks for
 * more), bit 55 is 0 in them and the top byte is left alone (TBI).
 */
#define SF_PAC_BITS	(((1ULL << 55) - 1) & ~((1ULL << 48) - 1))
#define SF_VA_MASK	((1ULL << 48) - 1)
#define SF_REG_LR	30	/* its place in the sampled registers */

/*
 * A return address signed by pointer authentication, unsigned: a word
 * with a PAC and otherwise a user address, that address in executable
 * code.  The rule reads the word alone and the mappings, never the
 * kernel's stack, which strips signatures its own way.
 */
static uint64_t sf_unsign(uint64_t w, bool (*in_code)(uint64_t addr))
{
	if (!(w & SF_PAC_BITS) || (w & ~(SF_PAC_BITS | SF_VA_MASK)) || !in_code(w & SF_VA_MASK))
		return w;
	return w & SF_VA_MASK;
}
#endif

/*
 * On arm64, where Debian builds with pointer authentication, perf's DWARF
 * unwinding keeps the signature of a return address it reads back from
 * the stack copy, then finds no CFI for it: @s's registers and stack are
 * copied to @regs and @stack (room for all of them), which @s then points
 * to, with the signed return addresses there and in LR unsigned (@in_code
 * says what is executable code).  Elsewhere nothing is signed, nothing is
 * copied, and @s is left as it is.
 */
void sf_perf_sample_unsign(struct sf_perf_sample *s, uint64_t *regs, uint64_t *stack,
			   bool (*in_code)(uint64_t addr))
{
#if defined(__aarch64__)
	uint64_t i;

	memcpy(regs, s->regs, s->nregs * 8);
	memcpy(stack, s->stack, s->stack_bytes);
	if (s->nregs > SF_REG_LR)
		regs[SF_REG_LR] = sf_unsign(regs[SF_REG_LR], in_code);
	for (i = 0; i < s->stack_bytes / 8; i++)
		stack[i] = sf_unsign(stack[i], in_code);
	s->regs = regs;
	s->stack = stack;
#else
	(void)s;
	(void)regs;
	(void)stack;
	(void)in_code;
#endif
}

/* @s as a record of the file: without its callchain, with only the stack's data */
void sf_perf_data_sample(struct sf_perf_data *d, const struct sf_perf_sample *s)
{
	struct perf_event_header out = { .type = PERF_RECORD_SAMPLE, .misc = s->misc };
	uint64_t head[3] = { s->ip, s->pid_tid, s->time }, zero = 0, dyn = s->stack_bytes;

	out.size = sizeof(out) + sizeof(head) + 8 + 8 + s->nregs * 8 + 8 + (dyn ? dyn + 8 : 0);
	sf_perf_data_write(d, &out, sizeof(out));
	sf_perf_data_write(d, head, sizeof(head));
	sf_perf_data_write(d, &zero, 8);		/* no callchain */
	sf_perf_data_write(d, &s->abi, 8);
	sf_perf_data_write(d, s->regs, s->nregs * 8);
	sf_perf_data_write(d, &dyn, 8);
	if (dyn) {
		sf_perf_data_write(d, s->stack, dyn);
		sf_perf_data_write(d, &dyn, 8);
	}
}

/* Writes the header again, with the records' size, and closes: false if anything failed */
bool sf_perf_data_close(struct sf_perf_data *d, const struct perf_event_attr *sampled)
{
	bool ok;

	if (!d->f)
		return false;
	sf_perf_data_header(d, sampled);
	ok = d->f && !fclose(d->f);
	SF_CHECK(ok, "%s: %m", d->path);
	d->f = NULL;
	return ok;
}
