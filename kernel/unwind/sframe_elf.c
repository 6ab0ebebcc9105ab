// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where an ELF file keeps its SFrame section: PT_GNU_SFRAME and the
 * executable PT_LOADs, from the file's own program headers.
 *
 * Every executable mapping of a file asks, so what was read is kept per
 * file version in a small LRU cache: a library mapped by a thousand
 * processes is read once.  Files without SFrame are remembered too, as
 * most mapped files have none.  A version is the inode's change counter
 * (i_version), which every write moves; time stamps are not enough, as
 * two writes may share one.  Files of filesystems that keep no such
 * counter are read every time.
 *
 * Only regular files are read: reading a device or a pipe could block,
 * consume data or warn, and none of them holds an ELF image to map.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/iversion.h>
#include <linux/list.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "sframe_elf.h"

#define SFRAME_ELF_CACHE_BITS	6
#define SFRAME_ELF_CACHE_MAX	256

struct sframe_elf_cached {
	struct hlist_node	hash;
	struct list_head	lru;
	struct sframe_file_version key;
	struct sframe_elf_info	info;
};

static DEFINE_SPINLOCK(sframe_elf_lock);
static DEFINE_HASHTABLE(sframe_elf_cache, SFRAME_ELF_CACHE_BITS);
static LIST_HEAD(sframe_elf_lru);
static unsigned int sframe_elf_cached_nr;

#if IS_ENABLED(CONFIG_SFRAME_KUNIT_TEST)
/* For the KUnit suite to tell a cached answer from a read: nothing else asks */
static unsigned long sframe_elf_hits, sframe_elf_misses;

static void sframe_elf_count(bool hit)
{
	if (hit)
		sframe_elf_hits++;
	else
		sframe_elf_misses++;
}
#else
static inline void sframe_elf_count(bool hit) { }
#endif

/**
 * sframe_file_version() - the version of a file's contents
 * @file: the file.
 * @v: filled in.
 *
 * Context: Any context that may look at the inode.
 * Return: false when the file's versions cannot be told apart (its
 *	filesystem keeps no i_version): nothing read from it may be reused.
 */
bool sframe_file_version(struct file *file, struct sframe_file_version *v)
{
	struct inode *inode = file_inode(file);

	memset(v, 0, sizeof(*v));
	if (!IS_I_VERSION(inode))
		return false;
	v->inode = inode;
	v->ino = inode->i_ino;
	v->generation = inode->i_generation;
	v->size = i_size_read(inode);
	/* Asking makes the next write move it. */
	v->version = inode_query_iversion(inode);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_file_version);

/**
 * sframe_file_version_eq() - are two versions the same contents?
 * @a: one, from sframe_file_version().
 * @b: another.
 *
 * Return: true if they are of the same file, unchanged between them.
 */
bool sframe_file_version_eq(const struct sframe_file_version *a,
			    const struct sframe_file_version *b)
{
	return a->inode == b->inode && a->ino == b->ino &&
	       a->generation == b->generation && a->size == b->size &&
	       a->version == b->version;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_file_version_eq);

/* Caller holds sframe_elf_lock. */
static struct sframe_elf_cached *sframe_elf_find(const struct sframe_file_version *key)
{
	struct sframe_elf_cached *c;

	hash_for_each_possible(sframe_elf_cache, c, hash, (unsigned long)key->inode) {
		if (c->key.inode == key->inode)
			return c;
	}
	return NULL;
}

static void sframe_elf_segment(struct sframe_elf_info *info,
			       const struct elf64_phdr *ph)
{
	/* A segment whose address and offset disagree can't be mapped. */
	if ((ph->p_vaddr - ph->p_offset) & ~PAGE_MASK)
		return;
	if (ph->p_type == PT_GNU_SFRAME && !info->sframe_memsz) {
		info->sframe_vaddr = ph->p_vaddr;
		info->sframe_memsz = ph->p_memsz;
	} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		   ph->p_memsz && info->nr_text < SFRAME_ELF_MAX_TEXT) {
		info->text[info->nr_text].vaddr = ph->p_vaddr;
		info->text[info->nr_text].offset = ph->p_offset;
		info->text[info->nr_text].memsz = ph->p_memsz;
		info->nr_text++;
	}
}

/**
 * sframe_elf_header_ok() - is this the header of a 64-bit ELF image of ours?
 * @eh: the header, read whole.
 *
 * Return: true if @eh is a 64-bit ELF header of this architecture and byte
 *	order, with between 1 and SFRAME_ELF_MAX_PHDRS program headers of
 *	the 64-bit size.
 */
bool sframe_elf_header_ok(const struct elf64_hdr *eh)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_ident[EI_DATA] == ELF_DATA &&
	       elf_check_arch(eh) && eh->e_phentsize == sizeof(struct elf64_phdr) &&
	       eh->e_phnum && eh->e_phnum <= SFRAME_ELF_MAX_PHDRS;
}

/**
 * sframe_elf_parse_phdrs() - what the kernel needs of an image's program headers
 * @info: filled in.
 * @phdrs: the program headers.
 * @nr: how many.
 */
void sframe_elf_parse_phdrs(struct sframe_elf_info *info,
			    const struct elf64_phdr *phdrs, unsigned int nr)
{
	unsigned int i;

	memset(info, 0, sizeof(*info));
	for (i = 0; i < nr; i++)
		sframe_elf_segment(info, &phdrs[i]);
	info->has_sframe = info->sframe_memsz && info->nr_text;
}

/* 0 with @info filled (files that are not ours included), or a read error. */
static int sframe_elf_read(struct file *file, struct sframe_elf_info *info)
{
	struct elf64_phdr *phdrs;
	struct elf64_hdr eh;
	loff_t pos = 0;
	ssize_t n;
	size_t size;

	memset(info, 0, sizeof(*info));
	n = kernel_read(file, &eh, sizeof(eh), &pos);
	if (n < 0)
		return n;
	if (n != sizeof(eh) || !sframe_elf_header_ok(&eh))
		return 0;

	size = eh.e_phnum * sizeof(struct elf64_phdr);
	if (eh.e_phoff > i_size_read(file_inode(file)) - size)
		return 0;
	phdrs = kmalloc(size, SFRAME_GFP);
	if (!phdrs)
		return -ENOMEM;
	pos = eh.e_phoff;
	n = kernel_read(file, phdrs, size, &pos);
	if (n == size)
		sframe_elf_parse_phdrs(info, phdrs, eh.e_phnum);
	kfree(phdrs);
	return n < 0 ? n : 0;
}

static void sframe_elf_remember(const struct sframe_file_version *key,
				const struct sframe_elf_info *info)
{
	struct sframe_elf_cached *c, *old = NULL;

	c = kmalloc(sizeof(*c), SFRAME_GFP);
	if (!c)
		return;
	c->key = *key;
	c->info = *info;

	scoped_guard(spinlock, &sframe_elf_lock) {
		old = sframe_elf_find(key);
		if (!old && sframe_elf_cached_nr >= SFRAME_ELF_CACHE_MAX)
			old = list_last_entry(&sframe_elf_lru, struct sframe_elf_cached, lru);
		if (old) {
			hash_del(&old->hash);
			list_del(&old->lru);
			sframe_elf_cached_nr--;
		}
		hash_add(sframe_elf_cache, &c->hash, (unsigned long)key->inode);
		list_add(&c->lru, &sframe_elf_lru);
		sframe_elf_cached_nr++;
	}
	kfree(old);
}

/**
 * sframe_elf_info() - where a file keeps its SFrame section
 * @file: a file open for reading (as mapped files are).
 * @info: filled in; @info->has_sframe is false for anything that is not a
 *	64-bit ELF regular file of this architecture with PT_GNU_SFRAME and
 *	code.
 *
 * Context: Process context, no mmap lock held (reads the file); may sleep.
 * Return: 0, or the error reading the file gave (nothing is cached then).
 */
int sframe_elf_info(struct file *file, struct sframe_elf_info *info)
{
	struct sframe_elf_cached *c;
	struct sframe_file_version key;
	bool cacheable;
	int ret;

	memset(info, 0, sizeof(*info));
	if (!S_ISREG(file_inode(file)->i_mode))
		return 0;
	cacheable = sframe_file_version(file, &key);
	scoped_guard(spinlock, &sframe_elf_lock) {
		c = cacheable ? sframe_elf_find(&key) : NULL;
		if (c && sframe_file_version_eq(&c->key, &key)) {
			*info = c->info;
			list_move(&c->lru, &sframe_elf_lru);
			sframe_elf_count(true);
			return 0;
		}
		sframe_elf_count(false);
	}

	ret = sframe_elf_read(file, info);
	if (!ret && cacheable)
		sframe_elf_remember(&key, info);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_elf_info);

/**
 * sframe_elf_known_without() - is @file known to have no SFrame section?
 * @file: a file being mapped executable.
 *
 * Most files mapped executable have no SFrame; once one has been read,
 * later mappings of that version need no work on the way back to user
 * space at all.
 *
 * Context: Any context but NMI; takes a spinlock, reads nothing.
 * Return: true only if this version of @file was read before and has no
 *	SFrame section (or is no ELF image of ours).
 */
bool sframe_elf_known_without(struct file *file)
{
	struct sframe_elf_cached *c;
	struct sframe_file_version key;
	bool without = false;

	if (!sframe_file_version(file, &key))
		return false;
	scoped_guard(spinlock, &sframe_elf_lock) {
		c = sframe_elf_find(&key);
		without = c && sframe_file_version_eq(&c->key, &key) && !c->info.has_sframe;
	}
	return without;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_elf_known_without);

#if IS_ENABLED(CONFIG_SFRAME_KUNIT_TEST)
/**
 * sframe_elf_cache_stats() - how often sframe_elf_info() read the file
 * @hits: answers from the cache.
 * @misses: answers read from the file.
 */
void sframe_elf_cache_stats(unsigned long *hits, unsigned long *misses)
{
	scoped_guard(spinlock, &sframe_elf_lock) {
		*hits = sframe_elf_hits;
		*misses = sframe_elf_misses;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sframe_elf_cache_stats);
#endif
