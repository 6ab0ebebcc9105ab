// SPDX-License-Identifier: GPL-2.0-only
/*
 * FDE indexes shared by every process that maps the same file.
 *
 * A library with SFrame is mapped by most processes of a system, and the
 * index of its section (twelve bytes an FDE, plus the fast lookup table)
 * depends only on the section's bytes and on where its text lies relative
 * to it.  So one index is built per file version and section layout, and
 * every registration of that file, in any address space, uses it.
 *
 * Hostile files stay harmless.  The index is built from a copy of the
 * section read from the file once, never from a process's memory, which
 * that process may have changed; it is shared only if the file's change
 * counter (i_version) did not move while it was read, and a later change
 * makes a new version that no old index matches.  A process that can
 * write the file can make other processes' lookups miss or find wrong
 * rules, which it could by changing the code they run anyway; lookups
 * still check every FDE and FRE they read against the section's bounds.
 * Files whose versions cannot be told apart are not shared: their
 * sections are indexed per process from its memory.  An explicit
 * registration shares the index of the file its section is mapped from,
 * read-only and unwritten, when there is one (the audit module's cache
 * files); its text may lie in another file or in anonymous memory, as the
 * index depends only on the section's bytes and on the distance and length
 * of its text, which the key holds.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "sframe_share.h"

/*
 * Larger sections are indexed from the process's memory, not copied; and
 * so is any section while others' copies, read for indexes being built
 * right now, hold that much: many threads registering large sections at
 * once would otherwise hold a copy each, charged to no one for long.
 */
#define SFRAME_SHARE_MAX_COPY	(64UL << 20)
#define SFRAME_SHARE_BITS	8

static DEFINE_SPINLOCK(sframe_share_lock);
static DEFINE_HASHTABLE(sframe_share_table, SFRAME_SHARE_BITS);
static atomic_long_t sframe_shared_nr = ATOMIC_LONG_INIT(0);
static atomic_long_t sframe_shared_bytes = ATOMIC_LONG_INIT(0);
VISIBLE_IF_KUNIT atomic_long_t sframe_share_copying = ATOMIC_LONG_INIT(0);
EXPORT_SYMBOL_IF_KUNIT(sframe_share_copying);

static unsigned long sframe_share_hash(const struct sframe_share_key *key)
{
	return (unsigned long)key->version.inode ^ key->sframe_off;
}

static bool sframe_share_key_eq(const struct sframe_share_key *a,
				const struct sframe_share_key *b)
{
	return sframe_file_version_eq(&a->version, &b->version) &&
	       a->sframe_off == b->sframe_off && a->sframe_size == b->sframe_size &&
	       a->text_off == b->text_off && a->text_len == b->text_len;
}

/* A live index of @key, with a reference; sframe_share_lock held */
static struct sframe_shared *sframe_share_find(const struct sframe_share_key *key)
{
	struct sframe_shared *sh;

	hash_for_each_possible(sframe_share_table, sh, node, sframe_share_hash(key)) {
		/* One at zero is on its way out: build another. */
		if (sframe_share_key_eq(&sh->key, key) && refcount_inc_not_zero(&sh->ref))
			return sh;
	}
	return NULL;
}

static void sframe_shared_free(struct sframe_shared *sh)
{
	sframe_section_release(&sh->sec);
	if (sh->file)
		fput(sh->file);
	kvfree(sh->held.data);
	kfree(sh);
}

/**
 * sframe_copy_room_get() - room for a section's copy among those read at once
 * @bytes: the copy's size.
 *
 * Every copy of a section read into kernel memory only to index it (a
 * file's, for a shared index; another process's, for /proc/<pid>/ustack)
 * counts here until sframe_copy_room_put().
 *
 * Context: Any.
 * Return: 0, or -EAGAIN when there is no room (the caller indexes the
 *	process's memory instead, or goes without).
 */
int sframe_copy_room_get(size_t bytes)
{
	if (bytes > SFRAME_SHARE_MAX_COPY)
		return -EAGAIN;
	if (atomic_long_add_return(bytes, &sframe_share_copying) <=
	    SFRAME_SHARE_MAX_COPY)
		return 0;
	atomic_long_sub(bytes, &sframe_share_copying);
	return -EAGAIN;
}

/**
 * sframe_copy_room_put() - a copy counted by sframe_copy_room_get() is freed
 * @bytes: its size.
 *
 * Context: Any.
 */
void sframe_copy_room_put(size_t bytes)
{
	atomic_long_sub(bytes, &sframe_share_copying);
}

/* The section's bytes as the file holds them; NULL data if it cannot be read */
static int sframe_share_read(struct file *file, const struct sframe_share_key *key,
			     struct sframe_image *image)
{
	loff_t pos = key->sframe_off;
	ssize_t n;
	u8 *data;
	int ret;

	ret = sframe_copy_room_get(key->sframe_size);
	if (ret)
		return ret;
	data = kvmalloc(key->sframe_size, SFRAME_GFP);
	if (!data) {
		sframe_copy_room_put(key->sframe_size);
		return -ENOMEM;
	}
	n = kernel_read(file, data, key->sframe_size, &pos);
	if (n <= 0) {
		kvfree(data);
		sframe_copy_room_put(key->sframe_size);
		return n ? n : -EFAULT;
	}
	image->data = data;
	image->len = n;
	return 0;
}

static void sframe_share_read_done(const struct sframe_share_key *key,
				   struct sframe_image *image)
{
	kvfree(image->data);
	sframe_copy_room_put(key->sframe_size);
}

/* Build the index of @key; -EAGAIN if the file cannot give a stable copy */
static struct sframe_shared *sframe_share_build(struct file *file,
						const struct sframe_share_key *key,
						unsigned long sframe_start,
						unsigned long text_start,
						size_t max_bytes,
						const char **reason)
{
	struct sframe_file_version now;
	struct sframe_image image;
	struct sframe_shared *sh;
	int ret;

	sh = kzalloc(sizeof(*sh), SFRAME_GFP);
	if (!sh)
		return ERR_PTR(-ENOMEM);
	ret = sframe_share_read(file, key, &image);
	if (ret) {
		kfree(sh);
		return ERR_PTR(ret == -ENOMEM ? ret : -EAGAIN);
	}
	ret = sframe_section_init_image(&sh->sec, &image, sframe_start, text_start,
					text_start + key->text_len, max_bytes);
	sframe_share_read_done(key, &image);
	/* Changed while read: the copy may mix two versions. */
	if (!sframe_file_version(file, &now) ||
	    !sframe_file_version_eq(&now, &key->version)) {
		sframe_section_release(&sh->sec);
		kfree(sh);
		return ERR_PTR(-EAGAIN);
	}
	if (ret) {
		*reason = sh->sec.reason;
		kfree(sh);
		return ERR_PTR(ret);
	}
	sh->key = *key;
	sh->file = get_file(file);
	sh->bytes = sizeof(*sh) + sframe_section_bytes(&sh->sec);
	refcount_set(&sh->ref, 1);
	INIT_HLIST_NODE(&sh->node);
	return sh;
}

/**
 * sframe_shared_get() - the shared index of a section in a mapped file
 * @file: the file whose mapping holds the section.
 * @key: the file's version and the layout of the section and text relative
 *	to the file's mapping;
 *	@key->version from sframe_file_version() of @file.
 * @sframe_start: where the caller has the section mapped.
 * @text_start: where it has the text.
 * @max_bytes: kernel memory the index may take.
 * @reason: set to the reader's reason when the section is refused.
 *
 * An index of the same file version and layout built before is taken,
 * else one is built from the file.  Two callers may build the same one at
 * once: the first to publish it wins, and the other uses that.
 *
 * Context: Process context, no mmap lock held (reads the file); may sleep.
 * Return: the index with a reference for the caller; ERR_PTR(-EAGAIN)
 *	when the file cannot be shared (unreadable, too large to copy,
 *	changed while read): the caller indexes its own memory instead;
 *	-EDQUOT when an index built before is larger than @max_bytes; or
 *	the errors of sframe_section_init().
 */
struct sframe_shared *sframe_shared_get(struct file *file,
					const struct sframe_share_key *key,
					unsigned long sframe_start,
					unsigned long text_start,
					size_t max_bytes, const char **reason)
{
	struct sframe_shared *sh, *old;

	if (!key->sframe_size || key->sframe_size > SFRAME_SHARE_MAX_COPY)
		return ERR_PTR(-EAGAIN);
	scoped_guard(spinlock_bh, &sframe_share_lock)
		sh = sframe_share_find(key);
	if (!sh) {
		sh = sframe_share_build(file, key, sframe_start, text_start,
					max_bytes, reason);
		if (IS_ERR(sh))
			return sh;
		scoped_guard(spinlock_bh, &sframe_share_lock) {
			old = sframe_share_find(key);
			if (!old)
				hash_add(sframe_share_table, &sh->node,
					 sframe_share_hash(key));
		}
		if (old) {
			sframe_shared_free(sh);
			sh = old;
		} else {
			atomic_long_inc(&sframe_shared_nr);
			atomic_long_add(sh->bytes, &sframe_shared_bytes);
		}
	}
	if (sh->bytes > max_bytes) {
		*reason = "FDE index over the allowance";
		sframe_shared_put(sh);
		return ERR_PTR(-EDQUOT);
	}
	return sh;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_shared_get);

/**
 * sframe_shared_put() - drop a reference to a shared index
 * @sh: the index; freed with its last user.
 *
 * Context: Any context but NMI and hard interrupts (RCU callbacks
 *	included).
 */
void sframe_shared_put(struct sframe_shared *sh)
{
	if (!refcount_dec_and_test(&sh->ref))
		return;
	scoped_guard(spinlock_bh, &sframe_share_lock)
		hash_del(&sh->node);
	atomic_long_dec(&sframe_shared_nr);
	atomic_long_sub(sh->bytes + sh->held.len, &sframe_shared_bytes);
	sframe_shared_free(sh);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_shared_put);

/**
 * sframe_shared_hold() - index a section the kernel keeps, for all to share
 * @data: the section's bytes, from kvmalloc(): the index owns them from now
 *	on, and frees them with itself (or here, on failure).
 * @len: their length.
 * @sframe_start: the address to build the index at: nothing is read there,
 *	and sframe_section_view() places it where each process has the text.
 * @text_start: the code the section describes, at that place.
 * @text_len: that code's length.
 * @reason: set to the reader's reason when the section is refused.
 *
 * The index is in no table: its owner (an attachment) hands out
 * references with sframe_shared_get_ref(), and lookups in every view read
 * @data, never a process's memory.  It counts as a shared index in
 * sframe_shared_indexes(), and its bytes with @data's in
 * sframe_shared_total_bytes(); its @bytes, what each process that uses
 * it is charged, are the index's alone, as for a file's section, whose
 * bytes are the page cache's.
 *
 * Context: Process context; may sleep.
 * Return: the index with one reference, or the errors of
 *	sframe_section_init_held().
 */
struct sframe_shared *sframe_shared_hold(void *data, size_t len,
					 unsigned long sframe_start,
					 unsigned long text_start,
					 unsigned long text_len,
					 const char **reason)
{
	struct sframe_shared *sh = kzalloc(sizeof(*sh), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!sh) {
		kvfree(data);
		return ERR_PTR(-ENOMEM);
	}
	sh->held.data = data;
	sh->held.len = len;
	ret = sframe_section_init_held(&sh->sec, &sh->held, sframe_start,
				       text_start, text_start + text_len, SIZE_MAX);
	if (ret) {
		*reason = sh->sec.reason;
		sframe_shared_free(sh);
		return ERR_PTR(ret);
	}
	sh->bytes = sizeof(*sh) + sframe_section_bytes(&sh->sec);
	refcount_set(&sh->ref, 1);
	INIT_HLIST_NODE(&sh->node);
	atomic_long_inc(&sframe_shared_nr);
	atomic_long_add(sh->bytes + len, &sframe_shared_bytes);
	return sh;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_shared_hold);

/**
 * sframe_shared_get_ref() - another reference to a shared index
 * @sh: the index, of which the caller holds a reference.
 *
 * Return: @sh.
 */
struct sframe_shared *sframe_shared_get_ref(struct sframe_shared *sh)
{
	refcount_inc(&sh->ref);
	return sh;
}

/**
 * sframe_shared_indexes() - shared indexes alive in the system
 *
 * Return: how many.
 */
long sframe_shared_indexes(void)
{
	return atomic_long_read(&sframe_shared_nr);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_shared_indexes);

/**
 * sframe_shared_total_bytes() - kernel memory the shared indexes hold
 *
 * Return: their bytes, each index counted once.
 */
long sframe_shared_total_bytes(void)
{
	return atomic_long_read(&sframe_shared_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_shared_total_bytes);
