/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User space stand-in for kernel/unwind/sframe_internal.h: same name, same
 * guard.  sframe_shim.c includes this first and then the real
 * kernel/unwind/sframe.c, whose own include of the internal header then
 * expands to nothing.
 *
 * "User memory" is a small table of regions registered by the caller; a
 * read outside them, or inside a hole, takes the reader's real fault path.
 * Unlike the kernel, this build reads sections of the other byte order, so
 * sframe-dump can read s390x files on any host.
 */
#ifndef _KERNEL_UNWIND_SFRAME_INTERNAL_H
#define _KERNEL_UNWIND_SFRAME_INTERNAL_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/sframe.h>

#define __user
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define READ_ONCE(x)		(*(volatile typeof(x) *)&(x))
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define cmpxchg(p, old, new)						\
({									\
	typeof(*(p)) __old = (old);					\
	__atomic_compare_exchange_n(p, &__old, new, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	__old;								\
})
#define __uninitialized
#define noinline		__attribute__((__noinline__))
#define static_assert(expr)	_Static_assert(expr, #expr)
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#define GFP_KERNEL_ACCOUNT	0
#define __GFP_RETRY_MAYFAIL	0
#define __GFP_NOWARN		0
#define ALIGN(x, a)		(((x) + (a) - 1) & ~((typeof(x))(a) - 1))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
/* As include/linux/limits.h defines them, promotions included */
#define U8_MAX			((u8)~0U)
#define U16_MAX			((u16)~0U)
#define U32_MAX			((u32)~0U)
#define S32_MAX			((s32)(U32_MAX >> 1))
#define S32_MIN			((s32)(-S32_MAX - 1))
#define swab16(x)		__builtin_bswap16(x)
#define swab32(x)		__builtin_bswap32(x)
#define swab64(x)		__builtin_bswap64(x)
/* As include/linux/hash.h and log2.h compute them */
#define GOLDEN_RATIO_32		0x61C88647
#define hash_32(val, bits)	((u32)((u32)(val) * GOLDEN_RATIO_32) >> (32 - (bits)))
#define ilog2(n)		(31 - __builtin_clz((unsigned int)(n)))

/*
 * sframe-dump reads s390x files on any host; the benchmark builds the
 * reader as the kernel does, for its own byte order only.
 */
#ifdef SFRAME_UMEM_INLINE
#define SFRAME_READS_FOREIGN	0
#else
#define SFRAME_READS_FOREIGN	1
#endif

/*
 * Which byte order a section is stored in: the kernel's struct has no
 * field for what only tools read.  Bit 7 of @flags marks the other
 * order; no SFrame version defines that bit, and the preamble check
 * rejects a header that sets it, so it never comes from the section.
 */
#define SFRAME_SHIM_F_FOREIGN	0x80

static inline bool sframe_foreign(const struct sframe_section *sec)
{
	return SFRAME_READS_FOREIGN && (sec->flags & SFRAME_SHIM_F_FOREIGN);
}

static inline void sframe_set_foreign(struct sframe_section *sec, bool foreign)
{
	sec->flags = (sec->flags & ~SFRAME_SHIM_F_FOREIGN) |
		     (foreign ? SFRAME_SHIM_F_FOREIGN : 0);
}

/* Puts a value read from the section into host byte order. */
static __always_inline void sframe_fix_order(const struct sframe_section *sec, void *value,
					     unsigned int size)
{
	if (!sframe_foreign(sec))
		return;
	switch (size) {
	case 2:
		*(u16 *)value = swab16(*(u16 *)value);
		break;
	case 4:
		*(u32 *)value = swab32(*(u32 *)value);
		break;
	case 8:
		*(u64 *)value = swab64(*(u64 *)value);
		break;
	}
}

/* The context of a lookup of the current task's section with no bound on rows */
#define SFRAME_UNBOUNDED	(&(struct unwind_user_ctx){ .budget = UINT_MAX })

#define SFRAME_UMEM_MAX_REGIONS	4

/**
 * struct sframe_umem_region - bytes that stand in for user memory
 * @addr: the user address they appear at.
 * @len: their length.
 * @data: the bytes; writable, as the second writer below changes them.
 * @hole_start: start of a range inside that faults (to test fault paths).
 * @hole_end: its end; equal to @hole_start for none.
 */
struct sframe_umem_region {
	unsigned long		addr;
	unsigned long		len;
	unsigned char		*data;
	unsigned long		hole_start;
	unsigned long		hole_end;
};

/*
 * The second writer: user memory belongs to a process whose other threads
 * may store into it between any two reads of the reader.  A scripted write
 * stands in for such a store, so that tests can show which bytes the
 * reader trusts across two reads (a double fetch) and what it then does.
 */
#define SFRAME_UMEM_MAX_WRITES	2

/**
 * struct sframe_umem_write - one store by the second writer
 * @addr: user address of the first byte stored; it must lie in a region,
 *	or the store is dropped.
 * @len: bytes stored, at most sizeof(@bytes); 0 for an unused slot.
 * @bytes: what is stored.
 * @after_read: store right after read number @after_read, counted from
 *	sframe_umem_arm(); 0 to store right after the first read that
 *	overlaps [@addr, @addr + @len) instead, so that whatever reads those
 *	bytes again sees other bytes than the first read did.
 * @fired: the store was made; each is made once.
 */
struct sframe_umem_write {
	unsigned long	addr;
	unsigned int	len;
	u8		bytes[8];
	unsigned long	after_read;
	bool		fired;
};

extern struct sframe_umem_region sframe_umem[SFRAME_UMEM_MAX_REGIONS];
extern struct sframe_umem_write sframe_umem_writes[SFRAME_UMEM_MAX_WRITES];
extern unsigned long sframe_umem_reads;
extern bool sframe_fail_alloc;
extern unsigned long sframe_fail_alloc_in;
extern long sframe_kmem_live;

#ifdef SFRAME_UMEM_INLINE
/*
 * The benchmark's user memory (bench.c): region 0 alone, read inline, as
 * the kernel's unsafe_get_user() is, so that the reader's instructions
 * are not lost among a shim's calls.  Counted all the same.
 */
static __always_inline bool sframe_umem_copy(void *dst, unsigned long src,
					     unsigned long len)
{
	const struct sframe_umem_region *r = &sframe_umem[0];

	sframe_umem_reads++;
	if (src - r->addr > r->len || len > r->len - (src - r->addr))
		return false;
	__builtin_memcpy(dst, r->data + (src - r->addr), len);
	return true;
}
#else
bool sframe_umem_copy(void *dst, unsigned long src, unsigned long len);
#endif
void sframe_umem_arm(void);
void sframe_umem_disarm(void);

bool sframe_shim_index_sane(const struct sframe_section *sec);
void sframe_shim_cache_tear(struct sframe_section *sec);

#define unsafe_get_user(x, ptr, label)					\
do {									\
	__typeof__(*(ptr)) __v;						\
	if (!sframe_umem_copy(&__v, (unsigned long)(ptr), sizeof(__v)))	\
		goto label;						\
	(x) = __v;							\
} while (0)

#define get_user(x, ptr)						\
({									\
	__typeof__(*(ptr)) __v;						\
	int __ret = -EFAULT;						\
	if (sframe_umem_copy(&__v, (unsigned long)(ptr), sizeof(__v))) { \
		(x) = __v;						\
		__ret = 0;						\
	}								\
	__ret;								\
})

static inline unsigned long copy_from_user(void *dst, const void *src,
					   unsigned long len)
{
	return sframe_umem_copy(dst, (unsigned long)src, len) ? 0 : len;
}

/* One address space: another process's section is read as our own. */
struct mm_struct;

static inline int access_remote_vm(struct mm_struct *mm, unsigned long addr,
				   void *buf, int len, unsigned int gup_flags)
{
	(void)mm;
	(void)gup_flags;
	return sframe_umem_copy(buf, addr, len) ? len : 0;
}

/* access_ok() only checks the range is a user range; it never faults. */
static inline bool user_read_access_begin(const void *ptr, unsigned long len)
{
	return (unsigned long)ptr + len >= (unsigned long)ptr;
}

static inline void user_read_access_end(void)
{
}

/*
 * Tests set sframe_fail_alloc to take the reader's -ENOMEM paths, or
 * sframe_fail_alloc_in to N to fail only the Nth allocation from then on,
 * so that each of those paths can be taken on its own.  Like the kernel's,
 * the memory is not zeroed: it is filled with a pattern, so that an entry
 * the reader forgot to write is garbage here too.
 * sframe_kmem_live counts the blocks not yet freed, so that tests which
 * cannot afford a leak check at exit for each run can still see a leak.
 */
static inline bool sframe_alloc_fails(void)
{
	if (sframe_fail_alloc)
		return true;
	return sframe_fail_alloc_in && !--sframe_fail_alloc_in;
}

static inline void *kvmalloc_array(size_t n, size_t size, int gfp __attribute__((unused)))
{
	void *p = sframe_alloc_fails() || (size && n > SIZE_MAX / size) ? NULL :
		  malloc(n * size);

	if (!p)
		return NULL;
	sframe_kmem_live++;
	return memset(p, 0xa5, n * size);
}

static inline void kvfree(void *p)
{
	if (p)
		sframe_kmem_live--;
	free(p);
}

/* One thread, never killed, never rescheduled by anyone but the host. */
#define current			NULL
#define fatal_signal_pending(t)	((void)(t), 0)
#define cond_resched()		do { } while (0)

static inline void *kvmemdup(const void *src, size_t len, int gfp __attribute__((unused)))
{
	void *p = sframe_alloc_fails() ? NULL : malloc(len);

	if (!p)
		return NULL;
	sframe_kmem_live++;
	return memcpy(p, src, len);
}

static inline void sort(void *base, size_t num, size_t size,
			int (*cmp)(const void *, const void *),
			void *swap __attribute__((unused)))
{
	qsort(base, num, size, cmp);
}

static inline bool sframe_host_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

/* Any known ABI, as long as its byte order is the one the section has. */
static inline const char *sframe_abi_mismatch(u8 abi, bool foreign_endian)
{
	bool abi_big = abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
		       abi == SFRAME_ABI_S390X_ENDIAN_BIG;

	if (abi_big != (sframe_host_big_endian() != foreign_endian))
		return "byte order does not match the ABI";
	return NULL;
}

#endif /* _KERNEL_UNWIND_SFRAME_INTERNAL_H */
