// SPDX-License-Identifier: GPL-2.0
/*
 * Expected lines from dl_iterate_phdr(): for each loaded object with
 * PT_GNU_SFRAME, its executable PT_LOAD and PT_GNU_SFRAME plus the load
 * bias ld.so used, and the version and FDE count from the SFrame header
 * in memory.  The vDSO is no file: its line is named "[vdso]".
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "sframe_phdr.h"

static int sf_phdr_one(struct dl_phdr_info *info, size_t size, void *data)
{
	const Elf64_Phdr *text = NULL, *sframe = NULL;
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR), lowest = ~0UL;
	unsigned long page = sysconf(_SC_PAGESIZE);
	struct sframe_header h;
	struct sf_set *want = data;
	struct sf_line l;
	ssize_t n;
	bool is_vdso;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && ph->p_vaddr < lowest)
			lowest = ph->p_vaddr;
		if (ph->p_type == PT_LOAD && ph->p_flags & PF_X)
			text = ph;
		if (ph->p_type == PT_GNU_SFRAME)
			sframe = ph;
	}
	if (!text || !sframe)
		return 0;
	is_vdso = vdso && info->dlpi_addr + (lowest & ~(page - 1)) == vdso;

	memset(&l, 0, sizeof(l));
	l.text_start = info->dlpi_addr + text->p_vaddr;
	l.text_end = l.text_start + text->p_memsz;
	l.sframe_start = info->dlpi_addr + sframe->p_vaddr;
	l.sframe_end = l.sframe_start + sframe->p_memsz;
	memcpy(&h, (void *)l.sframe_start, sizeof(h));
	l.version = h.preamble.version;
	l.fdes = h.num_fdes;
	snprintf(l.state, sizeof(l.state), "ok");
	/* Canonical, as maps prints it: ld.so may have found it by a relative path. */
	if (is_vdso) {
		snprintf(l.path, sizeof(l.path), "[vdso]");
	} else if (info->dlpi_name && info->dlpi_name[0]) {
		char *real = realpath(info->dlpi_name, NULL);

		snprintf(l.path, sizeof(l.path), "%s", real ? real : info->dlpi_name);
		free(real);
	} else {
		n = readlink("/proc/self/exe", l.path, sizeof(l.path) - 1);
		l.path[n > 0 ? n : 0] = '\0';
	}
	sf_line_format(&l);
	sf_set_add(want, &l);
	return 0;
}

static int sf_line_cmp(const void *a, const void *b)
{
	const struct sf_line *x = a, *y = b;

	return x->text_start < y->text_start ? -1 : x->text_start > y->text_start;
}

int sf_phdr_expected(struct sf_set *want)
{
	sf_set_init(want);
	dl_iterate_phdr(sf_phdr_one, want);
	qsort(want->line, want->n, sizeof(*want->line), sf_line_cmp);
	return 0;
}
