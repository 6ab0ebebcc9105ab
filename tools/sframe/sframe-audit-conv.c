// SPDX-License-Identifier: GPL-2.0-only
/*
 * An object's .eh_frame made into SFrame sections by sframe-gen, one for
 * each executable segment, laid out in one block: written where the
 * sections will be read, into an anonymous mapping or a cache file.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "sframe-audit.h"

/*
 * @own: the object's own SFrame section as mapped (NULL if none), whose
 * FDEs the conversion keeps; a segment where it fills nothing is left out.
 */
int sfa_convert(const ElfW(Phdr) *phdr, unsigned int phnum, uint64_t bias,
		const struct sfe_eh_frame *eh, const ElfW(Phdr) *own, struct sfa_conv *c)
{
	struct sframe_gen_input in = {
		.arch = SFA_ARCH,
		.eh_frame = eh->bytes,
		.eh_frame_size = eh->size,
		.eh_frame_addr = eh->addr,
		.ptr_size = sizeof(void *),
		.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
	};
	struct sframe_gen_stats st;
	unsigned int i;

	if (own) {
		/* Mapped: sfa_load() checked; at its run-time address, as the kernel reads it */
		in.sframe_addr = bias + own->p_vaddr;
		in.sframe = (const void *)(uintptr_t)in.sframe_addr;
		in.sframe_size = own->p_filesz;
	}

	for (i = 0; i < phnum; i++) {
		if (phdr[i].p_type != PT_LOAD || !(phdr[i].p_flags & PF_X) ||
		    !phdr[i].p_memsz)
			continue;
		if (c->n == SFA_MAX_SEGS) {
			snprintf(c->err, sizeof(c->err), "more than %d executable segments",
				 SFA_MAX_SEGS);
			return -1;
		}
		in.text_start = bias + phdr[i].p_vaddr;
		in.text_end = in.text_start + phdr[i].p_memsz;
		memset(&st, 0, sizeof(st));
		c->gen[c->n] = sframe_gen_new(&in, &st, c->err, sizeof(c->err));
		if (!c->gen[c->n])
			return -1;
		/* Nothing to say about this segment, or nothing the kernel lacks */
		if (!st.fdes_out || st.fdes_out == st.fdes_kept) {
			sframe_gen_free(c->gen[c->n]);
			c->gen[c->n] = NULL;
			continue;
		}
		c->size[c->n] = sframe_gen_size(c->gen[c->n]);
		c->off[c->n] = c->total;
		c->text_start[c->n] = in.text_start;
		c->text_end[c->n] = in.text_end;
		c->fdes[c->n] = st.fdes_out;
		c->total += (c->size[c->n] + SFA_ALIGN - 1) & ~(size_t)(SFA_ALIGN - 1);
		c->n++;
	}
	if (!c->n) {
		snprintf(c->err, sizeof(c->err), "%s", own ?
			 "no gaps: its own section stays" : "no FDE for executable code");
		return -1;
	}
	return 0;
}

/* Writes the converted sections into @buf, which will be at @addr */
void sfa_emit(const struct sfa_conv *c, uint8_t *buf, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		sframe_gen_emit(c->gen[i], buf + c->off[i], addr + c->off[i]);
}
