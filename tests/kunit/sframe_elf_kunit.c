// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for finding a file's SFrame section from its ELF program
 * headers, and for the per-file cache in front of it.  The files are
 * written to shmem, so the reading path is the one mapped files take.
 */
#include <kunit/test.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/pipe_fs_i.h>
#include <linux/shmem_fs.h>
#include <linux/sframe_format.h>

#include "../sframe_elf.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define ELF_TEST_MAX_PHDRS	(SFRAME_ELF_MAX_TEXT + 4)

struct elf_image {
	struct elf64_hdr	eh;
	struct elf64_phdr	ph[ELF_TEST_MAX_PHDRS];
};

/* A library as GNU ld lays it out: R, RX, R with .sframe, RW. */
static void elf_good(struct elf_image *im)
{
	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
	im->eh.e_ident[EI_CLASS] = ELFCLASS64;
	im->eh.e_ident[EI_DATA] = ELF_DATA;
	im->eh.e_ident[EI_VERSION] = EV_CURRENT;
	im->eh.e_type = ET_DYN;
	im->eh.e_machine = ELF_ARCH;
	im->eh.e_phoff = sizeof(struct elf64_hdr);
	im->eh.e_phentsize = sizeof(struct elf64_phdr);
	im->eh.e_phnum = 5;
	im->ph[0] = (struct elf64_phdr) { .p_type = PT_LOAD, .p_flags = PF_R,
		.p_offset = 0, .p_vaddr = 0, .p_filesz = 0x800, .p_memsz = 0x800 };
	im->ph[1] = (struct elf64_phdr) { .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
		.p_offset = 0x1000, .p_vaddr = 0x1000, .p_filesz = 0x520,
		.p_memsz = 0x520 };
	im->ph[2] = (struct elf64_phdr) { .p_type = PT_LOAD, .p_flags = PF_R,
		.p_offset = 0x2000, .p_vaddr = 0x2000, .p_filesz = 0x300,
		.p_memsz = 0x300 };
	im->ph[3] = (struct elf64_phdr) { .p_type = PT_GNU_SFRAME, .p_flags = PF_R,
		.p_offset = 0x2100, .p_vaddr = 0x2100, .p_filesz = 0x90,
		.p_memsz = 0x98 };
	im->ph[4] = (struct elf64_phdr) { .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
		.p_offset = 0x2e00, .p_vaddr = 0x3e00, .p_filesz = 0x200,
		.p_memsz = 0x400 };
}

static void elf_no_sframe(struct elf_image *im)
{
	elf_good(im);
	im->ph[3].p_type = PT_NOTE;
}

static void elf_no_code(struct elf_image *im)
{
	elf_good(im);
	im->ph[1].p_flags = PF_R;
}

static void elf_bad_magic(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_ident[EI_MAG1] = 'e';
}

static void elf_32bit(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_ident[EI_CLASS] = ELFCLASS32;
}

static void elf_other_endian(struct elf_image *im)
{
	elf_good(im);
	/* The two encodings are 1 and 2. */
	im->eh.e_ident[EI_DATA] = ELFDATA2LSB + ELFDATA2MSB - ELF_DATA;
}

static void elf_other_machine(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_machine = EM_SPARCV9;
}

static void elf_phentsize(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_phentsize = sizeof(struct elf64_phdr) - 8;
}

static void elf_no_phdrs(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_phnum = 0;
}

static void elf_too_many_phdrs(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_phnum = 129;
}

static void elf_phdrs_past_eof(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_phoff = 0x100000;
}

static void elf_phdrs_wrap(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_phoff = -sizeof(struct elf64_phdr);
}

/* Code whose address and file offset disagree within a page can't map. */
static void elf_misaligned_code(struct elf_image *im)
{
	elf_good(im);
	im->ph[1].p_vaddr += 0x10;
}

static void elf_empty_code(struct elf_image *im)
{
	elf_good(im);
	im->ph[1].p_memsz = 0;
}

static void elf_two_sframes(struct elf_image *im)
{
	elf_good(im);
	im->eh.e_phnum = 6;
	im->ph[5] = im->ph[3];
	im->ph[5].p_vaddr = 0x2200;
}

static void elf_many_code(struct elf_image *im)
{
	unsigned int i;

	elf_good(im);
	for (i = 5; i < ELF_TEST_MAX_PHDRS; i++) {
		im->ph[i] = im->ph[1];
		im->ph[i].p_vaddr += i * 0x10000;
		im->ph[i].p_offset += i * 0x10000;
	}
	im->eh.e_phnum = ELF_TEST_MAX_PHDRS;
}

struct elf_case {
	const char	*name;
	void		(*make)(struct elf_image *im);
	bool		has_sframe;
	unsigned int	nr_text;
};

static const struct elf_case elf_cases[] = {
	{ "good",		elf_good,		true,  1 },
	{ "no_sframe",		elf_no_sframe,		false, 1 },
	{ "no_code",		elf_no_code,		false, 0 },
	{ "bad_magic",		elf_bad_magic,		false, 0 },
	{ "elf32",		elf_32bit,		false, 0 },
	{ "other_endian",	elf_other_endian,	false, 0 },
	{ "other_machine",	elf_other_machine,	false, 0 },
	{ "phentsize",		elf_phentsize,		false, 0 },
	{ "no_phdrs",		elf_no_phdrs,		false, 0 },
	{ "too_many_phdrs",	elf_too_many_phdrs,	false, 0 },
	{ "phdrs_past_eof",	elf_phdrs_past_eof,	false, 0 },
	{ "phdrs_wrap",		elf_phdrs_wrap,		false, 0 },
	{ "misaligned_code",	elf_misaligned_code,	false, 0 },
	{ "empty_code",		elf_empty_code,		false, 0 },
	{ "first_sframe_wins",	elf_two_sframes,	true,  1 },
	{ "code_segments_capped", elf_many_code,	true,  SFRAME_ELF_MAX_TEXT },
};

KUNIT_ARRAY_PARAM_DESC(elf, elf_cases, name);

static struct file *elf_file(struct kunit *test, const void *data, size_t len)
{
	struct file *file;
	loff_t pos = 0;

	file = shmem_kernel_file_setup("sframe-elf-test", 0, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, kernel_write(file, data, len, &pos), (ssize_t)len);
	return file;
}

static void elf_info_test(struct kunit *test)
{
	const struct elf_case *c = test->param_value;
	struct sframe_elf_info info;
	struct elf_image *im;
	struct file *file;

	im = kunit_kzalloc(test, sizeof(*im), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, im);
	c->make(im);
	file = elf_file(test, im, sizeof(*im));
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	fput(file);

	KUNIT_EXPECT_EQ(test, info.has_sframe, c->has_sframe);
	if (!c->has_sframe)
		return;
	KUNIT_EXPECT_EQ(test, info.nr_text, c->nr_text);
	KUNIT_EXPECT_EQ(test, info.sframe_vaddr, 0x2100);
	KUNIT_EXPECT_EQ(test, info.sframe_memsz, 0x98);
	KUNIT_EXPECT_EQ(test, info.text[0].vaddr, 0x1000);
	KUNIT_EXPECT_EQ(test, info.text[0].offset, 0x1000);
	KUNIT_EXPECT_EQ(test, info.text[0].memsz, 0x520);
}

static void elf_short_file_test(struct kunit *test)
{
	struct sframe_elf_info info = { .has_sframe = true };
	struct elf_image *im;
	struct file *file;

	im = kunit_kzalloc(test, sizeof(*im), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, im);
	elf_good(im);
	file = elf_file(test, im, sizeof(struct elf64_hdr) + 2 * sizeof(struct elf64_phdr));
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	KUNIT_EXPECT_FALSE(test, info.has_sframe);
	fput(file);

	file = elf_file(test, im, 10);
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	KUNIT_EXPECT_FALSE(test, info.has_sframe);
	fput(file);
}

/* The second ask is answered from the cache; a changed file is read again. */
static void elf_cache_test(struct kunit *test)
{
	unsigned long hits, misses, hits2, misses2;
	struct sframe_elf_info info;
	struct elf_image *im;
	struct file *file;
	loff_t pos;

	im = kunit_kzalloc(test, sizeof(*im), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, im);
	elf_good(im);
	file = elf_file(test, im, sizeof(*im));

	sframe_elf_cache_stats(&hits, &misses);
	/* Not read yet: not known to have none */
	KUNIT_EXPECT_FALSE(test, sframe_elf_known_without(file));
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	KUNIT_EXPECT_TRUE(test, info.has_sframe);
	KUNIT_EXPECT_FALSE(test, sframe_elf_known_without(file));
	sframe_elf_cache_stats(&hits2, &misses2);
	KUNIT_EXPECT_EQ(test, misses2 - misses, 1);
	KUNIT_EXPECT_EQ(test, hits2 - hits, 1);

	/* Rewrite it without SFrame: the cached answer must not be used. */
	elf_no_sframe(im);
	pos = 0;
	KUNIT_ASSERT_EQ(test, kernel_write(file, im, sizeof(*im), &pos),
			(ssize_t)sizeof(*im));
	pos = sizeof(*im);
	KUNIT_ASSERT_EQ(test, kernel_write(file, "", 1, &pos), 1);
	/* A new version is not known until it is read. */
	KUNIT_EXPECT_FALSE(test, sframe_elf_known_without(file));
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	KUNIT_EXPECT_FALSE(test, info.has_sframe);
	sframe_elf_cache_stats(&hits, &misses);
	KUNIT_EXPECT_EQ(test, misses - misses2, 1);
	/* Then mapping it again costs the hook nothing more. */
	KUNIT_EXPECT_TRUE(test, sframe_elf_known_without(file));
	fput(file);
}

/*
 * Two writes of the same size may fall in one tick of the clock that
 * stamps change times: the second must still be seen as a new version.
 */
static void elf_cache_same_tick_test(struct kunit *test)
{
	struct timespec64 ctime, mtime;
	struct sframe_elf_info info;
	struct elf_image *im;
	struct inode *inode;
	struct file *file;
	loff_t pos = 0;

	im = kunit_kzalloc(test, sizeof(*im), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, im);
	elf_good(im);
	file = elf_file(test, im, sizeof(*im));
	inode = file_inode(file);
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	KUNIT_EXPECT_TRUE(test, info.has_sframe);

	ctime = inode_get_ctime(inode);
	mtime = inode_get_mtime(inode);
	elf_no_sframe(im);
	KUNIT_ASSERT_EQ(test, kernel_write(file, im, sizeof(*im), &pos),
			(ssize_t)sizeof(*im));
	inode_set_ctime_to_ts(inode, ctime);
	inode_set_mtime_to_ts(inode, mtime);
	KUNIT_EXPECT_EQ(test, sframe_elf_info(file, &info), 0);
	KUNIT_EXPECT_FALSE(test, info.has_sframe);
	fput(file);
}

/*
 * Only regular files are read: a pipe (or a device) mapped executable
 * must not lose data, block or warn because the kernel looked for SFrame.
 */
static void elf_not_regular_test(struct kunit *test)
{
	struct sframe_elf_info info = { .has_sframe = true };
	struct file *pipe[2];
	struct elf_image *im;
	loff_t pos = 0;

	im = kunit_kzalloc(test, sizeof(*im), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, im);
	elf_good(im);
	KUNIT_ASSERT_EQ(test, create_pipe_files(pipe, O_NONBLOCK), 0);
	KUNIT_EXPECT_EQ(test, kernel_write(pipe[1], im, sizeof(*im), &pos),
			(ssize_t)sizeof(*im));
	KUNIT_EXPECT_EQ(test, sframe_elf_info(pipe[0], &info), 0);
	KUNIT_EXPECT_FALSE(test, info.has_sframe);
	/* Everything written is still there for the pipe's reader. */
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_read(pipe[0], im, sizeof(*im), &pos),
			(ssize_t)sizeof(*im));
	fput(pipe[0]);
	fput(pipe[1]);
}

static struct kunit_case sframe_elf_test_cases[] = {
	KUNIT_CASE_PARAM(elf_info_test, elf_gen_params),
	KUNIT_CASE(elf_short_file_test),
	KUNIT_CASE(elf_cache_test),
	KUNIT_CASE(elf_cache_same_tick_test),
	KUNIT_CASE(elf_not_regular_test),
	{}
};

static struct kunit_suite sframe_elf_suite = {
	.name = "sframe_elf",
	.test_cases = sframe_elf_test_cases,
};

kunit_test_suite(sframe_elf_suite);

MODULE_DESCRIPTION("KUnit tests for finding SFrame sections in ELF files");
MODULE_LICENSE("GPL");
