// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame sections of each address space, kept exact through mmap,
 * munmap, mprotect, fork and exit: a section registered (checked, indexed,
 * charged to the process, put in its table, sframe_table.c), cut or
 * removed with its code, copied for a forked child.  A file's section
 * whose data is mapped from the file uses the index every mapping of that
 * file version shares (sframe_share.c).  The hooks that call these are
 * sframe_mmap.c's; lookups are sframe_lookup.c's.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <kunit/visibility.h>

#include "sframe_share.h"
#include "sframe_table.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."

/* A process with over a thousand ELF objects with SFrame is unheard of. */
unsigned int sframe_max_sections = 1024;
EXPORT_SYMBOL_IF_KUNIT(sframe_max_sections);
module_param_named(max_sections, sframe_max_sections, uint, 0644);
MODULE_PARM_DESC(max_sections, "SFrame sections one process may register");

unsigned long sframe_max_bytes = 64UL << 20;
EXPORT_SYMBOL_IF_KUNIT(sframe_max_bytes);
module_param_named(max_bytes, sframe_max_bytes, ulong, 0644);
MODULE_PARM_DESC(max_bytes, "Kernel memory one process's SFrame sections may hold");

static int sframe_check_mapped(struct mm_struct *mm, struct file *file,
			       unsigned long file_base,
			       unsigned long sframe_start, unsigned long sframe_end,
			       unsigned long text_start, unsigned long text_end)
{
	int ret;

	ret = sframe_check_vmas(mm, text_start, text_end, VM_EXEC, file, file_base);
	if (!ret && !file)
		ret = sframe_check_vmas(mm, sframe_start, sframe_end, VM_READ,
					NULL, 0) ? -EFAULT : 0;
	return ret;
}

/*
 * Another part of a file's text whose section is registered already (the
 * text's mapping was split, or part of it mapped again): add the range to
 * that entry.  -ENOENT if there is none.
 */
static int sframe_add_range(struct mm_struct *mm, const struct sframe_new_section *add)
{
	struct sframe_entry *e = NULL;
	struct sframe_table *t;
	unsigned int i;
	int ret = -ENOENT;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	t = sframe_table_locked(mm);
	for (i = 0; t && i < t->nr_ranges && !e; i++) {
		struct sframe_entry *c = t->ranges[i].entry;

		if (sframe_range_live(&t->ranges[i]) && c->file == add->file &&
		    c->file_base == add->file_base &&
		    c->sframe_start == add->sframe_start &&
		    c->sec.text_start == add->seg_start &&
		    c->sec.text_end == add->seg_end)
			e = c;
	}
	if (e) {
		ret = sframe_check_mapped(mm, add->file, add->file_base, 0, 0,
					  add->start, add->end);
		if (!ret)
			ret = sframe_table_insert(mm, e, add->start, add->end, NULL,
						  false);
	}
	mmap_write_unlock(mm);
	return ret;
}

/* Does @add register a section by prctl()? */
static bool sframe_add_explicit(const struct sframe_new_section *add)
{
	return !add->file && !add->vdso;
}

/*
 * The explicit registration @add takes the place of, if any.  The kernel's
 * registration of an attachment is replaced by the kernel's alone (the
 * text mapped again): a process's own registration of that text is
 * refused as overlapping (EEXIST) unless it asks to replace what it
 * overlaps, so that a module converting what the kernel already has can
 * tell it needs not.
 */
static struct sframe_entry *sframe_replaced_at(struct sframe_table *t,
					       const struct sframe_new_section *add)
{
	struct sframe_entry *e;

	if (!sframe_add_explicit(add))
		return NULL;
	e = sframe_explicit_at(t, add->seg_start);
	if (e && test_bit(SFRAME_ENTRY_ATTACHED, &e->flags) && !add->held)
		return NULL;
	return e;
}

/*
 * Free in @sections and @used the room of one entry other than @replace
 * whose text overlaps @add's, if there is one.  A lower bound of what
 * the replacement frees: counting each entry once would take a set, or
 * a pass per entry, under RCU, and sframe_table_insert() counts them
 * exactly under the lock anyway.  RCU read lock held.
 */
static void sframe_overlap_room(struct sframe_table *t,
				const struct sframe_new_section *add,
				const struct sframe_entry *replace,
				unsigned int *sections, size_t *used)
{
	unsigned int i;

	for (i = 0; t && i < t->nr_ranges; i++) {
		const struct sframe_range *r = &t->ranges[i];

		if (r->entry == replace ||
		    !sframe_range_overlaps(r, add->start, add->end))
			continue;
		if (*sections) {
			(*sections)--;
			*used -= min(*used, r->entry->bytes);
		}
		return;
	}
}

/*
 * What one more section of @mm may take in kernel memory for its index, or
 * -ENOSPC or -EDQUOT when the process has no room for another: checked
 * before a section is read, and again when it is added.  A registration
 * that replaces another (@add explicit, at its text start) has the room
 * of the one it replaces; one with @add->replace at least that of one its
 * text overlaps (whether it may replace them is known only under the lock).
 */
static int sframe_index_allowance(struct mm_struct *mm, const struct sframe_new_section *add,
				  size_t *room)
{
	size_t used = sizeof(struct sframe_entry), max = READ_ONCE(sframe_max_bytes);
	unsigned int sections = 0, ranges = 0;
	struct sframe_entry *replace;
	struct sframe_table *t;

	scoped_guard(rcu) {
		t = rcu_dereference(mm->sframe_table);
		if (t) {
			sections = t->nr_sections;
			ranges = t->nr_ranges;
			used += t->bytes;
		}
		replace = sframe_replaced_at(t, add);
		if (replace) {
			sections--;
			used -= replace->bytes;
		}
		if (add->replace)
			sframe_overlap_room(t, add, replace, &sections, &used);
	}
	if (sections >= READ_ONCE(sframe_max_sections))
		return -ENOSPC;
	used += sframe_table_bytes(ranges + 1);
	if (used > max)
		return -EDQUOT;
	*room = max - used;
	return 0;
}

/* Faulted in between two chances to reschedule */
#define SFRAME_FAULT_IN_CHUNK	(64 * PAGE_SIZE)

/*
 * Samples walk user stacks in interrupts, where a page of the section that
 * is not mapped in cannot be read, and a process rarely reads its own
 * .sframe: without this, profiles of it would fall back to frame pointers
 * all along.  So the section is faulted in once, when it is added.  If
 * reclaim takes a page away later, interrupt-time walks fall back at that
 * page until a walk that may fault (deferred, /proc) brings it back.
 */
static void sframe_fault_in(unsigned long start, unsigned long end)
{
	size_t len;

	while (start < end && !fatal_signal_pending(current)) {
		len = min(end - start, SFRAME_FAULT_IN_CHUNK);
		if (fault_in_readable((const char __user *)start, len))
			break;
		start += len;
		cond_resched();
	}
}

/**
 * sframe_has_file() - does @mm have a section registered from @file?
 * @mm: the address space.
 * @file: the file.
 *
 * Context: Any; takes no lock but RCU.
 * Return: true if one of @mm's registered ranges is of @file.
 */
bool sframe_has_file(struct mm_struct *mm, const struct file *file)
{
	struct sframe_table *t;
	unsigned int i;

	guard(rcu)();
	t = rcu_dereference(mm->sframe_table);
	for (i = 0; t && i < t->nr_ranges; i++)
		if (t->ranges[i].entry->file == file)
			return true;
	return false;
}

/**
 * sframe_has_addr() - does @mm have a section registered for @addr?
 * @mm: the address space.
 * @addr: a user address.
 *
 * Context: Any; takes no lock but RCU.
 * Return: true if one of @mm's registered ranges holds @addr, whether or
 * not its section was found corrupt.
 */
bool sframe_has_addr(struct mm_struct *mm, unsigned long addr)
{
	struct sframe_table *t;

	guard(rcu)();
	t = rcu_dereference(mm->sframe_table);
	return t && sframe_range_find(t, addr);
}

/**
 * sframe_fault_in_range() - fault in what sections of @mm lie in a range
 * @mm: the address space, current->mm.
 * @start: start of the range, typically a new mapping.
 * @end: its end.
 *
 * ld.so maps a library whole, then each segment over it: the mapping
 * that held the section when it was registered and faulted in may be
 * replaced by one with nothing mapped in yet.
 *
 * Context: Process context, mmap lock not held; may sleep.
 */
void sframe_fault_in_range(struct mm_struct *mm, unsigned long start,
			   unsigned long end)
{
	unsigned long addr = start, lo, hi;
	struct sframe_table *t;
	unsigned int i;

	while (addr < end && !fatal_signal_pending(current)) {
		lo = end;
		hi = end;
		scoped_guard(rcu) {
			t = rcu_dereference(mm->sframe_table);
			for (i = 0; t && i < t->nr_ranges; i++) {
				const struct sframe_entry *e = t->ranges[i].entry;
				unsigned long s = max(e->sframe_start, addr);

				if (e->sec.held)
					continue;
				if (s < min(e->sframe_end, end) && s < lo) {
					lo = s;
					hi = min(e->sframe_end, end);
				}
			}
		}
		if (lo >= end)
			break;
		sframe_fault_in(lo, hi);
		addr = hi;
	}
}

/*
 * @key's layout part: the section and its text as offsets from the
 * address of the file's offset 0 in the mapping that holds the section.
 * The text's may be a distance to another mapping, even a negative one:
 * keys are equal only for the same layout.
 */
static void sframe_share_layout(struct sframe_share_key *key,
				const struct sframe_new_section *add, unsigned long file_base)
{
	key->sframe_off = add->sframe_start - file_base;
	key->sframe_size = add->sframe_size;
	key->text_off = add->seg_start - file_base;
	key->text_len = add->seg_end - add->seg_start;
}

/*
 * The key of the shared index @add may use: only if the section's data is
 * mapped from the same file, at the same place as its text, so that the
 * file's bytes are what the process reads there.  False otherwise, and
 * for files whose versions cannot be told apart.
 */
static bool sframe_share_key_of(struct mm_struct *mm, const struct sframe_new_section *add,
				struct sframe_share_key *key)
{
	bool mapped;

	if (!add->file || !sframe_file_version(add->file, &key->version))
		return false;
	if (mmap_read_lock_killable(mm))
		return false;
	mapped = !sframe_check_vmas(mm, add->sframe_start,
				    add->sframe_start + add->sframe_size, VM_READ,
				    add->file, add->file_base);
	mmap_read_unlock(mm);
	sframe_share_layout(key, add, add->file_base);
	return mapped;
}

/*
 * The file an explicit registration's section may share an index of, with
 * its key and the address of its offset 0, or NULL.  Its bytes in memory
 * must be the file's: one readable, never writable mapping of a regular
 * file holds all of it, and no anonymous page was ever written over the
 * file's there (no anon_vma).  A file open for writing or mapped writable
 * shared is left out: a JIT that rewrites its code and section through a
 * shared mapping, which need not move i_version, and registers them again
 * must get the new bytes' index, not the old one's.  (One that unmapped
 * its writable mapping of a tmpfs file first is not caught: the version
 * cannot tell, for a library's section as little.)  The audit module maps
 * its cache files read-only, at one distance from their text in every
 * process, so their sections share indexes as libraries' do.  Caller holds
 * the mmap lock; the file comes with a reference.
 */
static struct file *sframe_explicit_share(struct mm_struct *mm,
					  const struct sframe_new_section *add,
					  struct sframe_share_key *key,
					  unsigned long *file_base)
{
	unsigned long end = add->sframe_start + add->sframe_size;
	struct vm_area_struct *vma = vma_lookup(mm, add->sframe_start);
	struct file *file = vma ? vma->vm_file : NULL;

	if (!file || vma->vm_end < end || vma->anon_vma ||
	    (vma->vm_flags & (VM_READ | VM_WRITE)) != VM_READ ||
	    !S_ISREG(file_inode(file)->i_mode) ||
	    inode_is_open_for_write(file_inode(file)) ||
	    mapping_writably_mapped(file->f_mapping) ||
	    !sframe_file_version(file, &key->version))
		return NULL;
	*file_base = vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT);
	sframe_share_layout(key, add, *file_base);
	return get_file(file);
}

/*
 * The index of a section in another process's memory (/proc/<pid>/ustack
 * registers the sections of a process nobody walked before): built from a
 * copy read as /proc/<pid>/mem reads, counted with the other copies read
 * for indexes; lookups read the process's memory, as for any section.
 */
static int sframe_section_init_remote(struct sframe_section *sec,
				      struct mm_struct *mm,
				      const struct sframe_new_section *add, size_t room)
{
	struct sframe_image image = { .len = add->sframe_size };
	void *data;
	int ret;

	if (sframe_copy_room_get(image.len))
		return -EAGAIN;
	data = kvmalloc(image.len, SFRAME_GFP);
	ret = -ENOMEM;
	if (data) {
		image.data = data;
		ret = -EFAULT;
		if (access_remote_vm(mm, add->sframe_start, data, image.len, 0) ==
		    image.len)
			ret = sframe_section_init_image(sec, &image, add->sframe_start,
							add->seg_start, add->seg_end,
							room);
		kvfree(data);
	}
	sframe_copy_room_put(image.len);
	return ret;
}

/*
 * Prepare @e's section: a view of the held section's index for an
 * attachment; a view of the shared index of @key's version of @file when
 * there is a key and the file gives a stable copy; else an index of its
 * own read from the memory of @mm; within @room bytes.
 */
static int sframe_entry_index(struct sframe_entry *e, struct mm_struct *mm,
			      const struct sframe_new_section *add, struct file *file,
			      const struct sframe_share_key *key, size_t room)
{
	const char *reason = NULL;
	struct sframe_shared *sh;

	if (add->held) {
		if (add->held->bytes > room) {
			e->sec.reason = "FDE index over the allowance";
			return -EDQUOT;
		}
		e->shared = sframe_shared_get_ref(add->held);
		sframe_section_view(&e->sec, &add->held->sec, add->sframe_start,
				    add->seg_start);
		e->bytes += add->held->bytes;
		return 0;
	}
	if (key) {
		sh = sframe_shared_get(file, key, add->sframe_start,
				       add->seg_start, room, &reason);
		if (!IS_ERR(sh)) {
			e->shared = sh;
			sframe_section_view(&e->sec, &sh->sec, add->sframe_start,
					    add->seg_start);
			e->bytes += sh->bytes;
			return 0;
		}
		if (PTR_ERR(sh) != -EAGAIN) {
			e->sec.reason = reason;
			return PTR_ERR(sh);
		}
	}
	if (mm != current->mm)
		return sframe_section_init_remote(&e->sec, mm, add, room);
	return sframe_section_init(&e->sec, add->sframe_start, add->sframe_size,
				   add->seg_start, add->seg_end, room);
}

/*
 * The entry for @add, its section read (within @room bytes) and charged.
 * A section found bad is still an entry, marked so, that keeps its range
 * from being read again; an explicit registration of one fails instead.
 */
static struct sframe_entry *sframe_entry_new(struct mm_struct *mm,
					     const struct sframe_new_section *add,
					     struct file *share_file,
					     const struct sframe_share_key *key,
					     size_t room)
{
	struct sframe_entry *e = sframe_entry_alloc();
	int ret;

	if (!e)
		return ERR_PTR(-ENOMEM);
	if (add->vdso)
		set_bit(SFRAME_ENTRY_VDSO, &e->flags);
	else if (sframe_add_explicit(add))
		set_bit(SFRAME_ENTRY_EXPLICIT, &e->flags);
	if (add->held)
		set_bit(SFRAME_ENTRY_ATTACHED, &e->flags);
	e->file = add->file ? get_file(add->file) : NULL;
	e->file_base = add->file_base;
	e->sframe_start = add->sframe_start;
	e->sframe_end = add->sframe_start + add->sframe_size;
	ret = sframe_entry_index(e, mm, add, share_file, key, room);
	if (!ret && IS_ENABLED(CONFIG_UNWIND_USER_SFRAME_VALIDATE))
		ret = sframe_section_validate(&e->sec);
	if (ret) {
		/* No room to copy another's section now: not the section's fault */
		if (test_bit(SFRAME_ENTRY_EXPLICIT, &e->flags) || ret == -ENOMEM ||
		    ret == -EINTR || ret == -EAGAIN) {
			sframe_entry_put(e);
			return ERR_PTR(ret);
		}
		set_bit(SFRAME_ENTRY_BAD, &e->flags);
		sframe_report(e, ret);
	}
	sframe_charge(sframe_section_bytes(&e->sec));
	e->bytes += sframe_section_bytes(&e->sec);
	/* The rule cache comes with the first unwind; its room is kept now. */
	if (!ret && e->bytes - sizeof(*e) + sframe_section_cache_bytes(&e->sec) <= room)
		e->bytes += sframe_section_cache_bytes(&e->sec);
	else
		set_bit(SFRAME_ENTRY_NO_CACHE, &e->flags);
	return e;
}

/**
 * sframe_add_section() - register a section in an address space
 * @mm: the address space the section is read from: current->mm, or that
 *	of a task which is not running (sframe_register_task_mm()).
 * @add: what to register: the section, the code it may describe
 *	(@add->seg_start to @add->seg_end), the part of that code to
 *	register (@add->start to @add->end), and for a file's section the
 *	file and the address its offset 0 has in the mapping.
 *
 * An attachment's section (@add->held) is the kernel's copy and index:
 * only its text must be mapped, and it is neither read nor faulted in.
 * Reads and checks the section, then takes the mmap lock for writing and
 * adds it if the text is still mapped as it was (of the file at that
 * place, executable), then faults all of it in.  A file's section, and
 * an explicit one mapped read-only and unwritten from a file, uses the
 * index that every registration of the same bytes at the same distance
 * from their text shares.  A file's or the vDSO's section that fails the
 * checks is kept, marked bad, so that /proc shows it; an explicit one is
 * refused.  Text of a file's section already
 * registered joins that registration.  An explicit registration whose text
 * starts where another's does replaces that one whole, in the same table
 * swap: a JIT that rewrote code and section in place registers them again
 * so that lookups stop using the old section's index and rule cache.
 * With @add->replace it also replaces every registration (a file's, the
 * vDSO's, an explicit one) its text overlaps, in the same swap, provided
 * all of that one's text lies within the new text; -EEXIST otherwise,
 * with nothing changed.
 *
 * Context: Process context, mmap lock not held; may sleep.
 * Return: 0 on success, else see the errors in include/uapi/linux/sframe.h.
 */
int sframe_add_section(struct mm_struct *mm, const struct sframe_new_section *add)
{
	unsigned long sframe_end = add->sframe_start + add->sframe_size;
	struct file *explicit_file = NULL;
	struct sframe_entry *e, *replace;
	struct sframe_share_key key;
	unsigned long explicit_base = 0;
	bool bad, share = false;
	size_t room;
	int ret;

	if (!add->sframe_size || sframe_end < add->sframe_start ||
	    add->start >= add->end || add->start < add->seg_start ||
	    add->end > add->seg_end)
		return -EINVAL;
	if (add->file) {
		ret = sframe_add_range(mm, add);
		if (ret != -ENOENT)
			return ret;
		share = sframe_share_key_of(mm, add, &key);
	} else if (add->held) {
		if (mmap_read_lock_killable(mm))
			return -EINTR;
		ret = sframe_check_vmas(mm, add->start, add->end, VM_EXEC, NULL, 0);
		mmap_read_unlock(mm);
		if (ret)
			return ret;
	} else {
		if (mmap_read_lock_killable(mm))
			return -EINTR;
		ret = sframe_check_mapped(mm, NULL, 0, add->sframe_start,
					  sframe_end, add->start, add->end);
		if (!ret && sframe_add_explicit(add))
			explicit_file = sframe_explicit_share(mm, add, &key,
							      &explicit_base);
		mmap_read_unlock(mm);
		if (ret)
			return ret;
		share = !!explicit_file;
	}

	ret = sframe_index_allowance(mm, add, &room);
	if (ret)
		goto out;
	e = sframe_entry_new(mm, add, add->file ?: explicit_file,
			     share ? &key : NULL, room);
	if (IS_ERR(e)) {
		ret = PTR_ERR(e);
		goto out;
	}
	bad = test_bit(SFRAME_ENTRY_BAD, &e->flags);

	ret = mmap_write_lock_killable(mm);
	if (ret)
		goto put;
	if (add->held)
		ret = sframe_check_vmas(mm, add->start, add->end, VM_EXEC, NULL, 0);
	else
		ret = sframe_check_mapped(mm, add->file, add->file_base,
					  add->sframe_start, sframe_end, add->start,
					  add->end);
	/* A shared index is the file's: the section must still be mapped from it. */
	if (!ret && e->shared && explicit_file)
		ret = sframe_check_vmas(mm, add->sframe_start, sframe_end, VM_READ,
					explicit_file, explicit_base);
	if (!ret) {
		replace = sframe_replaced_at(sframe_table_locked(mm), add);
		ret = sframe_table_insert(mm, e, add->start, add->end, replace,
					  add->replace);
	}
	mmap_write_unlock(mm);
	if (!ret) {
		/*
		 * @e is the table's now: another thread may drop it any time.
		 * Another process's sections are faulted in by that process
		 * (sframe_register_task_mm()).
		 */
		if (!bad && !add->held && mm == current->mm)
			sframe_fault_in(add->sframe_start, sframe_end);
		goto out;
	}
put:
	sframe_entry_put(e);
out:
	if (explicit_file)
		fput(explicit_file);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_add_section);

/**
 * sframe_remove_explicit() - unregister what prctl() registered
 * @mm: the address space.
 * @text_start: text start the registration was made with.
 *
 * Context: Process context, mmap lock not held; may sleep.
 * Return: 0, -ENOENT if no explicit registration starts at @text_start,
 *	-EINTR if killed while waiting for the mmap lock.
 */
int sframe_remove_explicit(struct mm_struct *mm, unsigned long text_start)
{
	struct sframe_removal cut = {};

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	cut.drop = sframe_explicit_at(sframe_table_locked(mm), text_start);
	if (cut.drop)
		sframe_apply_removal(mm, &cut);
	mmap_write_unlock(mm);
	return cut.drop ? 0 : -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_remove_explicit);

/**
 * sframe_remove_range() - forget code and data that go away
 * @mm: the address space, mmap lock held for writing.
 * @start: start of the range.
 * @end: end of the range.
 * @data_gone: the range is unmapped (sections with data in it go whole),
 *	not merely made non-executable (text in it is trimmed).
 */
void sframe_remove_range(struct mm_struct *mm, unsigned long start,
			 unsigned long end, bool data_gone)
{
	struct sframe_removal cut = {
		.start = start, .end = end, .data_gone = data_gone,
	};

	mmap_assert_write_locked(mm);
	sframe_apply_removal(mm, &cut);
}
EXPORT_SYMBOL_IF_KUNIT(sframe_remove_range);

/* A child's copy of @e, with no ranges yet; NULL if out of memory */
static struct sframe_entry *sframe_entry_dup(const struct sframe_entry *e)
{
	struct sframe_entry *c = sframe_entry_alloc();

	if (!c)
		return NULL;
	if (sframe_section_copy(&c->sec, &e->sec)) {
		sframe_entry_put(c);
		return NULL;
	}
	sframe_charge(sframe_section_bytes(&c->sec));
	c->shared = e->shared ? sframe_shared_get_ref(e->shared) : NULL;
	c->file = e->file ? get_file(e->file) : NULL;
	c->file_base = e->file_base;
	c->sframe_start = e->sframe_start;
	c->sframe_end = e->sframe_end;
	/* The child's cache comes with its own first unwind. */
	c->flags = READ_ONCE(e->flags) & ~BIT(SFRAME_ENTRY_CACHE_ASKED);
	c->bytes = e->bytes;
	return c;
}

/**
 * sframe_registry_dup() - give a forked child copies of the parent's sections
 * @oldmm: the parent's address space, mmap lock held for writing.
 * @mm: the child's, its mappings copied, mmap lock held for writing, its
 *	table still empty.
 *
 * Return: 0, or -ENOMEM (the fork fails).
 */
int sframe_registry_dup(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct sframe_table *old = sframe_table_locked(oldmm), *new;
	unsigned int i, j = 0, nr = 0;
	int ret = 0;

	if (!old)
		return 0;
	for (i = 0; i < old->nr_ranges; i++)
		nr += sframe_range_live(&old->ranges[i]);
	if (!nr)
		return 0;
	new = sframe_table_alloc(nr);
	if (!new)
		return -ENOMEM;
	new->nr_sections = 0;
	new->bytes = 0;

	for (i = 0; i < old->nr_ranges; i++) {
		struct sframe_range *r = &old->ranges[i];
		struct sframe_entry *e = r->entry, *c = e->copy;

		if (!sframe_range_live(r))
			continue;
		if (!c) {
			c = sframe_entry_dup(e);
			if (!c) {
				ret = -ENOMEM;
				break;
			}
			e->copy = c;
			new->nr_sections++;
			new->bytes += c->bytes;
		}
		c->nr_ranges++;
		new->ranges[j++] = (struct sframe_range){ r->start, r->end, c };
	}

	/* On failure the copies are in @new only: release each once. */
	for (i = 0; i < old->nr_ranges; i++) {
		struct sframe_entry *e = old->ranges[i].entry;

		if (ret && e->copy)
			sframe_entry_put(e->copy);
		e->copy = NULL;
	}
	if (ret) {
		sframe_table_free(new, false);
		return ret;
	}
	rcu_assign_pointer(mm->sframe_table, new);
	return 0;
}

/**
 * sframe_registry_free() - release every section of a dying address space
 * @mm: the address space, no longer used by any task.
 */
void sframe_registry_free(struct mm_struct *mm)
{
	struct sframe_table *t = rcu_dereference_protected(mm->sframe_table, true);
	unsigned int i;

	if (!t)
		return;
	RCU_INIT_POINTER(mm->sframe_table, NULL);
	for (i = 0; i < t->nr_ranges; i++) {
		struct sframe_entry *e = t->ranges[i].entry;

		if (!--e->nr_ranges)
			sframe_entry_put(e);
	}
	sframe_table_free(t, true);
}
