// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-audit-check: checks the sections libsframe-audit.so made in a
 * process (SFRAME_AUDIT_DUMP=DIR) with the kernel's SFrame reader, built
 * in user space:
 *
 *   sframe-audit-check [--pcs N] DIR
 *
 * For each section DIR/index lists: the reader takes it as the kernel
 * would for PR_SFRAME_REGISTER (sframe_section_init() on the text range,
 * then sframe_section_validate()), its FDE count is the one the module
 * reported, and, when the object is a file, the same converter run on the
 * file on disk (file addresses, .eh_frame found from the file's program
 * headers) gives the same rule at every FDE's first, middle and last byte
 * and at N more PCs spread over the text, shifted by the load bias.  One
 * TAP line a section, then "N passed, N failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe_internal.h"
#include "sframe-ehframe.h"
#include "sframe-gen.h"

#if defined(__x86_64__)
#define CHECK_ARCH	SFRAME_GEN_X86_64
#elif defined(__aarch64__)
#define CHECK_ARCH	SFRAME_GEN_AARCH64
#elif defined(__s390x__)
#define CHECK_ARCH	SFRAME_GEN_S390X
#endif

/* Where the file's own section is placed: below any run-time address */
#define FILE_SEC_ADDR	0x10000UL

struct entry {
	char		path[4096];
	char		name[4096];
	uint64_t	bias;
	uint64_t	text_start;
	uint64_t	text_end;
	uint64_t	addr;
	size_t		size;
	unsigned int	fdes;
};

struct file_map {
	const uint8_t		*bytes;
	size_t			size;
	const ElfW(Phdr)	*phdr;
	unsigned int		phnum;
};

static unsigned int passed, failed, pcs_extra = 1000;

static unsigned char *read_all(const char *path, size_t *size)
{
	unsigned char *buf;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	buf = malloc(st.st_size);
	n = buf ? read(fd, buf, st.st_size) : -1;
	close(fd);
	if (n != st.st_size) {
		free(buf);
		return NULL;
	}
	*size = st.st_size;
	return buf;
}

static const void *file_at(void *ctx, uint64_t addr, size_t len)
{
	const struct file_map *f = ctx;
	const ElfW(Phdr) *load = sfe_load_of(f->phdr, f->phnum, addr, len);
	uint64_t off;

	if (!load)
		return NULL;
	off = load->p_offset + (addr - load->p_vaddr);
	if (off > f->size || len > f->size - off)
		return NULL;
	return f->bytes + off;
}

/* The ELF file's program headers, bounds-checked; NULL if it has none */
static int file_open(const char *path, struct file_map *f)
{
	const ElfW(Ehdr) *eh;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*eh)) {
		close(fd);
		return -1;
	}
	f->size = st.st_size;
	f->bytes = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->bytes == MAP_FAILED)
		return -1;
	eh = (const ElfW(Ehdr) *)f->bytes;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_phentsize != sizeof(ElfW(Phdr)) ||
	    eh->e_phoff > f->size ||
	    (size_t)eh->e_phnum * sizeof(ElfW(Phdr)) > f->size - eh->e_phoff) {
		munmap((void *)f->bytes, f->size);
		return -1;
	}
	f->phdr = (const ElfW(Phdr) *)(f->bytes + eh->e_phoff);
	f->phnum = eh->e_phnum;
	return 0;
}

static bool same_rule(const struct unwind_user_rule *a, const struct unwind_user_rule *b)
{
	return a->base == b->base && a->regnum == b->regnum && a->deref == b->deref &&
	       a->offset == b->offset;
}

static bool same_frame(const struct unwind_user_frame *a, const struct unwind_user_frame *b)
{
	if (a->outermost != b->outermost || a->signal != b->signal ||
	    a->ra_signed != b->ra_signed || a->pauth_key != b->pauth_key)
		return false;
	return a->outermost || (same_rule(&a->cfa, &b->cfa) && same_rule(&a->ra, &b->ra) &&
				same_rule(&a->fp, &b->fp));
}

/* One PC's rule, at run time and in the file: -1 and a message if they differ */
static int compare_pc(struct sframe_section *rt, struct sframe_section *file,
		      uint64_t pc, uint64_t bias, char *msg, size_t msg_size)
{
	struct unwind_user_frame a, b;
	int ra, rb;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ra = sframe_find(rt, pc, &a, SFRAME_UNBOUNDED);
	rb = sframe_find(file, pc - bias, &b, SFRAME_UNBOUNDED);
	if (ra != rb) {
		snprintf(msg, msg_size, "pc %#" PRIx64 ": run time %d, file %d", pc, ra, rb);
		return -1;
	}
	if (!ra && !same_frame(&a, &b)) {
		snprintf(msg, msg_size, "pc %#" PRIx64 ": the rules differ (cfa %d/%d ra %d/%d)",
			 pc, a.cfa.offset, b.cfa.offset, a.ra.offset, b.ra.offset);
		return -1;
	}
	return 0;
}

static int compare_file(const struct entry *e, struct sframe_section *rt,
			unsigned int *npcs, char *msg, size_t msg_size)
{
	struct sframe_gen_input in = {
		.arch = CHECK_ARCH,
		.ptr_size = sizeof(void *),
		.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
	};
	struct sframe_section fsec = { 0 };
	struct sframe_gen_stats st = { 0 };
	struct sframe_gen *gen;
	struct sfe_eh_frame eh;
	struct file_map f;
	struct sframe_fde fde;
	enum sfe_result res;
	unsigned char *buf;
	uint64_t pc, span = e->text_end - e->text_start;
	unsigned int n, i;
	size_t size;
	int ret = -1;

	if (file_open(e->path, &f)) {
		snprintf(msg, msg_size, "%s: not an ELF file", e->path);
		return -1;
	}
	/* An object with SFrame of its own: the module filled its gaps */
	for (i = 0; i < f.phnum; i++) {
		if (f.phdr[i].p_type != PT_GNU_SFRAME)
			continue;
		in.sframe = file_at(&f, f.phdr[i].p_vaddr, f.phdr[i].p_filesz);
		in.sframe_size = f.phdr[i].p_filesz;
		in.sframe_addr = f.phdr[i].p_vaddr;
		if (!in.sframe) {
			snprintf(msg, msg_size, "%s: PT_GNU_SFRAME not in the file", e->path);
			goto out_unmap;
		}
	}
	res = in.sframe ? sfe_find_eh_frame_fill(f.phdr, f.phnum, 0, file_at, &f, &eh) :
			  sfe_find_eh_frame(f.phdr, f.phnum, 0, file_at, &f, &eh);
	if (res != SFE_OK) {
		snprintf(msg, msg_size, "%s: %s", e->path, sfe_result_str(res));
		goto out_unmap;
	}
	in.eh_frame = eh.bytes;
	in.eh_frame_size = eh.size;
	in.eh_frame_addr = eh.addr;
	in.text_start = e->text_start - e->bias;
	in.text_end = e->text_end - e->bias;
	gen = sframe_gen_new(&in, &st, msg, msg_size);
	if (!gen)
		goto out_unmap;
	size = sframe_gen_size(gen);
	buf = calloc(1, size ? size : 1);
	if (!buf) {
		sframe_gen_free(gen);
		snprintf(msg, msg_size, "out of memory");
		goto out_unmap;
	}
	sframe_gen_emit(gen, buf, FILE_SEC_ADDR);
	sframe_gen_free(gen);
	if (size != e->size) {
		snprintf(msg, msg_size, "the file gives %zu bytes, run time %zu", size, e->size);
		goto out_free;
	}
	sframe_umem[1] = (struct sframe_umem_region){
		.addr = FILE_SEC_ADDR, .len = size, .data = buf,
	};
	if (sframe_section_init(&fsec, FILE_SEC_ADDR, size, in.text_start, in.text_end,
				SIZE_MAX)) {
		snprintf(msg, msg_size, "the file's section: %s", fsec.reason);
		goto out_free;
	}
	for (n = 0; n < rt->num_fdes; n++) {
		if (sframe_read_fde(rt, n, &fde)) {
			snprintf(msg, msg_size, "FDE %u: %s", n, rt->reason);
			goto out_fini;
		}
		if (!fde.func_size)
			continue;
		uint64_t at[3] = { fde.func_start, fde.func_start + fde.func_size / 2,
				   fde.func_start + fde.func_size - 1 };
		for (i = 0; i < 3; i++, (*npcs)++)
			if (compare_pc(rt, &fsec, at[i], e->bias, msg, msg_size))
				goto out_fini;
	}
	for (i = 0; i < pcs_extra && span; i++, (*npcs)++) {
		pc = e->text_start + (uint64_t)((unsigned __int128)span * i / pcs_extra);
		if (compare_pc(rt, &fsec, pc, e->bias, msg, msg_size))
			goto out_fini;
	}
	ret = 0;
out_fini:
	sframe_section_release(&fsec);
out_free:
	memset(&sframe_umem[1], 0, sizeof(sframe_umem[1]));
	free(buf);
out_unmap:
	munmap((void *)f.bytes, f.size);
	return ret;
}

static void check(const struct entry *e)
{
	struct sframe_section sec = { 0 };
	unsigned char *bytes;
	unsigned int npcs = 0;
	char msg[4400] = "";
	bool inited;
	size_t size;
	int ret;

	bytes = read_all(e->path, &size);
	if (!bytes || size != e->size) {
		printf("not ok %s # %s: unreadable or not %zu bytes\n", e->name, e->path, e->size);
		failed++;
		free(bytes);
		return;
	}
	sframe_umem[0] = (struct sframe_umem_region){
		.addr = e->addr, .len = size, .data = bytes,
	};
	ret = sframe_section_init(&sec, e->addr, size, e->text_start, e->text_end, SIZE_MAX);
	inited = !ret;
	if (!ret)
		ret = sframe_section_validate(&sec);
	if (ret) {
		snprintf(msg, sizeof(msg), "the kernel's reader refuses it: %s (%d)",
			 sec.reason ? sec.reason : "?", ret);
	} else if (sec.num_fdes != e->fdes) {
		snprintf(msg, sizeof(msg), "%u FDEs indexed, the module wrote %u",
			 sec.num_fdes, e->fdes);
		ret = -1;
	} else if (e->name[0] == '/') {
		struct entry fe = *e;

		/* The section's bytes are in @bytes; the file is the object's */
		snprintf(fe.path, sizeof(fe.path), "%s", e->name);
		ret = compare_file(&fe, &sec, &npcs, msg, sizeof(msg));
	}
	if (ret) {
		printf("not ok %s # %s\n", e->name, msg);
		failed++;
	} else {
		printf("ok %s # %u FDEs, %zu bytes, valid%s", e->name, sec.num_fdes, size,
		       npcs ? "" : "\n");
		if (npcs)
			printf(", %u PCs as the file's\n", npcs);
		passed++;
	}
	if (inited)
		sframe_section_release(&sec);
	memset(&sframe_umem[0], 0, sizeof(sframe_umem[0]));
	free(bytes);
}

int main(int argc, char **argv)
{
	char path[4096], line[9000];
	struct entry e;
	FILE *idx;
	int i, n;

	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--pcs") && i + 1 < argc - 1)
			pcs_extra = strtoul(argv[++i], NULL, 0);
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: %s [--pcs N] DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/index", argv[i]);
	idx = fopen(path, "r");
	if (!idx) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], path, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), idx)) {
		line[strcspn(line, "\n")] = 0;
		memset(&e, 0, sizeof(e));
		n = 0;
		if (sscanf(line, "%4095s %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
			   " %zu %u %n", e.path, &e.bias, &e.text_start, &e.text_end,
			   &e.addr, &e.size, &e.fdes, &n) != 7 || !n) {
			printf("not ok index # bad line: %s\n", line);
			failed++;
			continue;
		}
		snprintf(e.name, sizeof(e.name), "%s", line + n);
		check(&e);
	}
	fclose(idx);
	if (!passed && !failed) {
		printf("not ok index # no section listed\n");
		failed++;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
