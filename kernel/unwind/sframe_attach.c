// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame attached to ELF files that have none (PR_SFRAME_ATTACH).
 *
 * A distribution's binaries have no .sframe, and a library that makes
 * SFrame from .eh_frame inside each process (tools/sframe's audit module)
 * runs only once the dynamic loader has mapped and relocated everything:
 * a profile of a system that starts many short processes loses the
 * start-up of each.  An administrator converts each file once and
 * attaches the result to that version of the file; from then on every
 * process that maps it executable has the section registered on its way
 * back to user space, as a file's own PT_GNU_SFRAME is, before the
 * loader's first instruction.
 *
 * The section is read from its file once, when it is attached, and that
 * copy and its index serve the whole system: each process that maps the
 * file gets an explicit registration whose lookups read the copy, and
 * nothing is mapped into it.  Only root may attach, a section in a file
 * no one else can change: the section decides what other users' profiles
 * show, not what their programs do.
 */
#include <linux/bits.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/sframe.h>
#include <kunit/visibility.h>

#include "sframe_attach.h"
#include "sframe_registry.h"
#include "sframe_share.h"

#define SFRAME_ATTACH_BITS	6
/* One exec PT_LOAD is the rule; a few more cover odd linker scripts. */
#define SFRAME_ATTACH_PER_FILE	SFRAME_ELF_MAX_TEXT

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."

/*
 * The index of an attached section is built as if it lay here, its text
 * at the same distance as in the ELF file's virtual addresses (which may
 * wrap below the load bias): the reader's address checks hold, and each
 * process's view places it where that process has the text.
 */
#define SFRAME_ATTACH_BUILD_AT	BIT(48)

/* Attachments the system may hold; each keeps the ELF file open. */
static unsigned int sframe_max_attached = 4096;
module_param_named(max_attached, sframe_max_attached, uint, 0644);

/* Kernel memory all attached sections may take: copies and indexes. */
static unsigned long sframe_max_attached_bytes = 256UL << 20;
module_param_named(max_attached_bytes, sframe_max_attached_bytes, ulong, 0644);

/**
 * struct sframe_attach_layout - where an attached section and its text are
 * @sframe_vaddr: the ELF virtual address the section was made for.
 * @text_vaddr: the code it describes, in ELF virtual addresses.
 * @text_size: that code's length.
 */
struct sframe_attach_layout {
	u64	sframe_vaddr;
	u64	text_vaddr;
	u64	text_size;
};

/**
 * struct sframe_attached - one section attached to one version of a file
 * @node: in sframe_attach_table, by inode.
 * @version: the ELF file's version it is for.
 * @elf: the ELF file, held open so that @version's inode stays that file.
 * @held: the section's copy and index, which every registration shares.
 * @l: where the section and its text are.
 * @rcu: readers look it up without the mutex.
 */
struct sframe_attached {
	struct hlist_node		node;
	struct sframe_file_version	version;
	struct file			*elf;
	struct sframe_shared		*held;
	struct sframe_attach_layout	l;
	struct rcu_head			rcu;
};

/* What a registration needs of an attachment, taken out of the table */
struct sframe_attach_found {
	struct sframe_shared		*held;
	struct sframe_attach_layout	l;
};

static DEFINE_MUTEX(sframe_attach_mutex);
static DEFINE_HASHTABLE(sframe_attach_table, SFRAME_ATTACH_BITS);
static unsigned int sframe_attach_nr;
static unsigned long sframe_attach_bytes;

static unsigned long sframe_attach_hash(const struct inode *inode)
{
	return (unsigned long)inode;
}

/*
 * The section's file decides what other users' stack traces show: one
 * its owner alone may change, root, and that every user may read.
 */
static int sframe_attach_check_section(struct file *file)
{
	struct inode *inode = file_inode(file);

	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if (!uid_eq(inode->i_uid, GLOBAL_ROOT_UID) ||
	    (inode->i_mode & 0022) || !(inode->i_mode & 0004))
		return -EACCES;
	return 0;
}

/* The executable PT_LOAD of @info that holds all of [@vaddr, @vaddr + @size) */
static const struct sframe_elf_segment *
sframe_attach_segment(const struct sframe_elf_info *info, u64 vaddr, u64 size)
{
	unsigned int i;

	for (i = 0; i < info->nr_text; i++) {
		const struct sframe_elf_segment *seg = &info->text[i];

		if (vaddr >= seg->vaddr && size <= seg->memsz &&
		    vaddr - seg->vaddr <= seg->memsz - size)
			return seg;
	}
	return NULL;
}

static bool sframe_attach_overlaps(const struct sframe_attached *a,
				   const struct sframe_attached *b)
{
	return a->l.text_vaddr < b->l.text_vaddr + b->l.text_size &&
	       b->l.text_vaddr < a->l.text_vaddr + a->l.text_size;
}

/* Kernel memory an attachment holds: its section's copy and index */
static unsigned long sframe_attached_bytes(const struct sframe_attached *a)
{
	return a->held->bytes + a->held->held.len;
}

/* Add @new unless a limit or an overlapping attachment stops it */
static int sframe_attach_insert(struct sframe_attached *new)
{
	unsigned long hash = sframe_attach_hash(new->version.inode);
	struct sframe_attached *a;
	unsigned int same = 0;

	guard(mutex)(&sframe_attach_mutex);
	if (sframe_attach_nr >= READ_ONCE(sframe_max_attached) ||
	    sframe_attached_bytes(new) > READ_ONCE(sframe_max_attached_bytes) -
					 min(sframe_attach_bytes,
					     READ_ONCE(sframe_max_attached_bytes)))
		return -ENOSPC;
	hash_for_each_possible(sframe_attach_table, a, node, hash) {
		if (!sframe_file_version_eq(&a->version, &new->version))
			continue;
		if (sframe_attach_overlaps(a, new))
			return -EEXIST;
		same++;
	}
	if (same >= SFRAME_ATTACH_PER_FILE)
		return -ENOSPC;
	hash_add_rcu(sframe_attach_table, &new->node, hash);
	WRITE_ONCE(sframe_attach_nr, sframe_attach_nr + 1);
	sframe_attach_bytes += sframe_attached_bytes(new);
	return 0;
}

static void sframe_attached_free(struct sframe_attached *a)
{
	if (a->elf)
		fput(a->elf);
	if (a->held)
		sframe_shared_put(a->held);
	kfree(a);
}

/* fput() defers its work when called from an RCU callback. */
static void sframe_attached_free_rcu(struct rcu_head *rcu)
{
	sframe_attached_free(container_of(rcu, struct sframe_attached, rcu));
}

/*
 * The section's bytes, read from its file once and for all; the size
 * is checked against what all attachments may hold before anything is
 * allocated.
 */
static void *sframe_attach_read(struct file *file, u64 off, u64 size)
{
	loff_t pos = off;
	size_t done = 0;
	ssize_t n;
	u8 *data;

	if (off > LLONG_MAX)
		return ERR_PTR(-EINVAL);
	if (size > READ_ONCE(sframe_max_attached_bytes))
		return ERR_PTR(-ENOSPC);
	data = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!data)
		return ERR_PTR(-ENOMEM);
	while (done < size) {
		n = kernel_read(file, data + done, size - done, &pos);
		if (n <= 0) {
			kvfree(data);
			/* Past the end of the file: the range is wrong. */
			return ERR_PTR(n ? n : -EINVAL);
		}
		done += n;
		if (fatal_signal_pending(current)) {
			kvfree(data);
			return ERR_PTR(-EINTR);
		}
	}
	return data;
}

/* The section of @att read and indexed, in @a->held */
static int sframe_attach_hold(const struct sframe_attachment *att,
			      struct file *sframe, struct sframe_attached *a)
{
	s64 text_off = att->text_vaddr - att->sframe_vaddr;
	const char *reason = NULL;
	struct sframe_shared *held;
	void *data;

	/* Text further than that from its section is no ELF file's. */
	if (text_off <= -(s64)SFRAME_ATTACH_BUILD_AT ||
	    text_off >= (s64)SFRAME_ATTACH_BUILD_AT)
		return -EINVAL;
	data = sframe_attach_read(sframe, att->sframe_off, att->sframe_size);
	if (IS_ERR(data))
		return PTR_ERR(data);
	held = sframe_shared_hold(data, att->sframe_size, SFRAME_ATTACH_BUILD_AT,
				  SFRAME_ATTACH_BUILD_AT + text_off,
				  att->text_size, &reason);
	if (IS_ERR(held))
		return PTR_ERR(held);
	a->held = held;
	return 0;
}

/* Check @att against its files and the ELF file's headers, and fill in @a */
static int sframe_attach_prepare(const struct sframe_attachment *att,
				 struct sframe_attached *a)
{
	struct sframe_elf_info info;
	struct file *sframe;
	u64 end;
	int ret;

	if (att->flags || !att->sframe_size || !att->text_size ||
	    check_add_overflow(att->sframe_off, att->sframe_size, &end) ||
	    check_add_overflow(att->text_vaddr, att->text_size, &end))
		return -EINVAL;
	a->elf = fget(att->elf_fd);
	if (!a->elf)
		return -EBADF;
	if (!S_ISREG(file_inode(a->elf)->i_mode) ||
	    !sframe_file_version(a->elf, &a->version))
		return -EINVAL;
	ret = sframe_elf_info(a->elf, &info);
	if (ret)
		return ret;
	/* A file's own section would be registered instead, at every mapping. */
	if (info.has_sframe)
		return -EEXIST;
	if (!sframe_attach_segment(&info, att->text_vaddr, att->text_size))
		return -EINVAL;
	sframe = fget(att->sframe_fd);
	if (!sframe)
		return -EBADF;
	ret = sframe_attach_check_section(sframe);
	if (!ret)
		ret = sframe_attach_hold(att, sframe, a);
	fput(sframe);
	if (ret)
		return ret;
	a->l = (struct sframe_attach_layout){
		.sframe_vaddr = att->sframe_vaddr,
		.text_vaddr = att->text_vaddr,
		.text_size = att->text_size,
	};
	return 0;
}

/**
 * sframe_attach_user() - PR_SFRAME_ATTACH
 * @uatt: the caller's struct sframe_attachment.
 *
 * Context: Process context; may sleep.
 * Return: 0, or a negative error as include/uapi/linux/sframe.h lists.
 */
int sframe_attach_user(struct sframe_attachment __user *uatt)
{
	struct sframe_attachment att;
	struct sframe_attached *a;
	u32 size;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (get_user(size, &uatt->size))
		return -EFAULT;
	if (size < SFRAME_ATTACHMENT_SIZE_VER0)
		return -EINVAL;
	/* As clone3() and openat2(): no page of zeros to check byte by byte */
	if (size > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&att, sizeof(att), uatt, size);
	if (ret)
		return ret;
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;
	ret = sframe_attach_prepare(&att, a);
	if (!ret)
		ret = sframe_attach_insert(a);
	if (ret)
		sframe_attached_free(a);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_attach_user);

/* Remove the attachments of @inode, or all for NULL; whether there were any */
static bool sframe_detach_inode(const struct inode *inode)
{
	struct sframe_attached *a;
	struct hlist_node *tmp;
	bool found = false;
	int bkt;

	guard(mutex)(&sframe_attach_mutex);
	hash_for_each_safe(sframe_attach_table, bkt, tmp, a, node) {
		if (inode && a->version.inode != inode)
			continue;
		hash_del_rcu(&a->node);
		WRITE_ONCE(sframe_attach_nr, sframe_attach_nr - 1);
		sframe_attach_bytes -= sframe_attached_bytes(a);
		call_rcu(&a->rcu, sframe_attached_free_rcu);
		found = true;
	}
	return found;
}

/**
 * sframe_detach_fd() - PR_SFRAME_DETACH
 * @fd: a descriptor of the ELF file, or ULONG_MAX for every attachment
 *	(those of files replaced since, which no descriptor reaches).
 *
 * Removes every attachment of the file's inode, those of versions before
 * the current one included (they can match no mapping any more).
 *
 * Context: Process context; may sleep.
 * Return: 0; -EPERM, -EBADF, or -ENOENT when there was none.
 */
int sframe_detach_fd(unsigned long fd)
{
	struct file *file;
	bool found;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (fd == ULONG_MAX)
		return sframe_detach_inode(NULL) ? 0 : -ENOENT;
	if (fd > INT_MAX)
		return -EBADF;
	file = fget(fd);
	if (!file)
		return -EBADF;
	found = sframe_detach_inode(file_inode(file));
	fput(file);
	return found ? 0 : -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(sframe_detach_fd);

/**
 * sframe_attached_any() - has this version of @file an attachment?
 * @file: a file being mapped executable.
 *
 * Context: Any context but NMI; takes no lock but RCU's.
 * Return: true if PR_SFRAME_ATTACH gave it a section.
 */
bool sframe_attached_any(struct file *file)
{
	struct sframe_file_version v;
	struct sframe_attached *a;
	bool found = false;

	if (!READ_ONCE(sframe_attach_nr) || !sframe_file_version(file, &v))
		return false;
	rcu_read_lock();
	hash_for_each_possible_rcu(sframe_attach_table, a, node,
				   sframe_attach_hash(v.inode)) {
		if (sframe_file_version_eq(&a->version, &v)) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Copies of @file's attachments, each with a reference to its section */
static unsigned int sframe_attached_of(struct file *file,
				       struct sframe_attach_found *out)
{
	struct sframe_file_version v;
	struct sframe_attached *a;
	unsigned int n = 0;

	if (!READ_ONCE(sframe_attach_nr) || !sframe_file_version(file, &v))
		return 0;
	rcu_read_lock();
	hash_for_each_possible_rcu(sframe_attach_table, a, node,
				   sframe_attach_hash(v.inode)) {
		if (n == SFRAME_ATTACH_PER_FILE)
			break;
		if (!sframe_file_version_eq(&a->version, &v))
			continue;
		/* Detach puts its section only after readers are done. */
		out[n].held = sframe_shared_get_ref(a->held);
		out[n].l = a->l;
		n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * The load bias a mapping of @l's file with offset 0 at @file_base gives
 * @l's text, in *@bias; false if no executable segment of @info holds it.
 * Wrapping is harmless: callers' checks and the registry's refuse it.
 */
static bool sframe_attached_bias(const struct sframe_elf_info *info,
				 const struct sframe_attach_layout *l,
				 unsigned long file_base, unsigned long *bias)
{
	const struct sframe_elf_segment *seg;

	seg = sframe_attach_segment(info, l->text_vaddr, l->text_size);
	if (!seg)
		return false;
	*bias = file_base + seg->offset - seg->vaddr;
	return true;
}

/*
 * Register @a's section for the part of its text in [@vm_start, @vm_end),
 * as lying where the mapping at @file_base would put it.
 */
static void sframe_attached_add(struct mm_struct *mm,
				const struct sframe_attach_found *a,
				unsigned long file_base, unsigned long vm_start,
				unsigned long vm_end,
				const struct sframe_elf_info *info)
{
	unsigned long bias, text;
	struct sframe_new_section add;

	if (!sframe_attached_bias(info, &a->l, file_base, &bias))
		return;
	text = bias + a->l.text_vaddr;
	if (max(text, vm_start) >= min(text + a->l.text_size, vm_end))
		return;
	add = (struct sframe_new_section){
		.sframe_start = bias + a->l.sframe_vaddr,
		.sframe_size = a->held->held.len,
		.seg_start = text,
		.seg_end = text + a->l.text_size,
		.start = max(text, vm_start),
		.end = min(text + a->l.text_size, vm_end),
		.held = a->held,
	};
	sframe_add_section(mm, &add);
}

/**
 * sframe_attached_register() - register what is attached to a mapped file
 * @mm: the address space, current->mm.
 * @file: a file without PT_GNU_SFRAME mapped executable.
 * @file_base: the address of its offset 0 in the mapping.
 * @vm_start: start of the executable mapping.
 * @vm_end: its end.
 * @info: @file's headers.
 *
 * Each attached section whose text the mapping holds is registered, its
 * lookups reading the kernel's copy; one that cannot be registered (its
 * text overlaps another registration, the process's allowance is spent)
 * is skipped.
 *
 * Context: Process context, no mmap lock held; may sleep.
 */
void sframe_attached_register(struct mm_struct *mm, struct file *file,
			      unsigned long file_base, unsigned long vm_start,
			      unsigned long vm_end,
			      const struct sframe_elf_info *info)
{
	struct sframe_attach_found found[SFRAME_ATTACH_PER_FILE];
	unsigned int i, n = sframe_attached_of(file, found);

	for (i = 0; i < n; i++) {
		sframe_attached_add(mm, &found[i], file_base, vm_start, vm_end,
				    info);
		sframe_shared_put(found[i].held);
	}
}

/**
 * sframe_attached_at() - is the code at @addr covered by an attachment?
 * @addr: an address in the caller's address space.
 *
 * For a library that makes SFrame for the objects of its own process
 * (tools/sframe's audit module): the kernel registers an attached section
 * by itself whenever the process's stacks may be walked, so a section of
 * the library's own for that code would cost the process its making and
 * registering for nothing.  Anyone may ask: the answer is about a file
 * the caller maps, and /sys/kernel/sframe/attached already counts
 * attachments.
 *
 * The hooks apply an attachment to a mapping only as it is made (or as
 * the process becomes wanted), so a file attached by another process
 * after the caller mapped it is covered for the caller by nobody.  The
 * caller that is told 1 makes nothing of its own: if its stacks may be
 * walked and nothing is registered at @addr, the attachment is registered
 * for its mapping here.
 *
 * Context: Process context, no mmap lock held; may sleep.
 * Return: 1 if the file mapped executable at @addr has, in its current
 * version and without PT_GNU_SFRAME of its own, an attached section whose
 * text holds @addr where this mapping puts it; 0 if not, or if nothing,
 * or nothing executable from a file, is mapped there; -EINTR if a fatal
 * signal came while waiting for the mmap lock.
 */
int sframe_attached_at(unsigned long addr)
{
	struct sframe_attach_found found[SFRAME_ATTACH_PER_FILE];
	struct mm_struct *mm = current->mm;
	unsigned long file_base = 0, vm_start = 0, vm_end = 0, bias;
	struct sframe_elf_info info;
	struct vm_area_struct *vma;
	struct file *file = NULL;
	unsigned int i, n = 0;
	bool register_now;
	int ret = 0;

	if (!READ_ONCE(sframe_attach_nr))
		return 0;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file && (vma->vm_flags & VM_EXEC)) {
		file = get_file(vma->vm_file);
		file_base = vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT);
		vm_start = vma->vm_start;
		vm_end = vma->vm_end;
	}
	mmap_read_unlock(mm);
	if (!file)
		return 0;
	/* The ELF headers are read, or found in their cache, without the lock */
	if (!sframe_elf_info(file, &info) && !info.has_sframe)
		n = sframe_attached_of(file, found);
	/* Not wanted yet: sframe_register_mm() will find the attachment */
	register_now = n && test_bit(SFRAME_MM_WANTED, &mm->sframe_flags) &&
		       !sframe_has_addr(mm, addr);
	for (i = 0; i < n; i++) {
		if (sframe_attached_bias(&info, &found[i].l, file_base, &bias) &&
		    addr - (bias + found[i].l.text_vaddr) < found[i].l.text_size) {
			ret = 1;
			/* An error leaves the walks as they were: short */
			if (register_now)
				sframe_attached_add(mm, &found[i], file_base,
						    vm_start, vm_end, &info);
		}
		sframe_shared_put(found[i].held);
	}
	fput(file);
	return ret;
}

/**
 * sframe_attached_count() - attachments in the system
 *
 * Return: how many PR_SFRAME_ATTACH made that no PR_SFRAME_DETACH removed.
 */
long sframe_attached_count(void)
{
	return READ_ONCE(sframe_attach_nr);
}
