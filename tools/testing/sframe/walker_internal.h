/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel as kernel/unwind/user.c and the arch's <asm/unwind_user.h>
 * see it, for building them in user space.  Every kernel header they
 * include is a one-line stub under walker/include/ that includes this.
 *
 * One architecture a build: WALKER_ARCH_X86, _ARM64 or _S390.  Its
 * registers, signal frame layouts and TASK_SIZE are described here as its
 * kernel lays them out; the rest of its hooks are the kernel's own file.
 * User memory is read through walk_copy() (walker_env.c), which fails
 * outside the regions a test or the fuzzer mapped, as a fault would.
 */
#ifndef _WALKER_INTERNAL_H
#define _WALKER_INTERNAL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/bits.h>
#include "walker.h"

#define CONFIG_UNWIND_USER		1
#define CONFIG_UNWIND_USER_SFRAME	1
#define IS_ENABLED(CONFIG_x)		(CONFIG_x)

#define __user
#ifndef noinline
#define noinline			__attribute__((__noinline__))
#endif
#define __aligned(x)			__attribute__((__aligned__(x)))
#define READ_ONCE(x)			__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)		__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define static_assert(expr)		_Static_assert(expr, #expr)
#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define max_t(t, a, b)			({ t __a = (a); t __b = (b); __a > __b ? __a : __b; })
#define min_t(t, a, b)			({ t __a = (a); t __b = (b); __a < __b ? __a : __b; })
#define GENMASK_ULL(h, l)		((~0ULL << (l)) & (~0ULL >> (63 - (h))))

#define EXPORT_SYMBOL_IF_KUNIT(sym)
#define VISIBLE_IF_KUNIT

/* A WARN in the walker is a finding: the fuzzer stops on it. */
#define WARN_ONCE(cond, fmt, ...)					\
({									\
	bool __c = !!(cond);						\
	if (__c)							\
		walk_bug("WARN_ONCE: " fmt);				\
	__c;								\
})

static inline unsigned long find_next_bit(const unsigned long *addr,
					  unsigned long size,
					  unsigned long bit)
{
	while (bit < size && !(*addr & (1UL << bit)))
		bit++;
	return bit;
}

/* As the kernel defines it, for bitmaps of one word */
#define for_each_set_bit(bit, addr, size)				\
	for ((bit) = 0; (bit) = find_next_bit((addr), (size), (bit)), (bit) < (size); (bit)++)

static inline int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long v;
	char *end;

	if (*s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, base);
	if (end == s || (*end && strcmp(end, "\n")) || errno || v > UINT_MAX)
		return -EINVAL;
	*res = v;
	return 0;
}

/* Module parameters: the callbacks stay callable, through walker_shim.c. */
struct kernel_param;

struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
};

struct kernel_param {
	const char			*name;
	const struct kernel_param_ops	*ops;
	unsigned short			perm;
	void				*arg;
};

int param_get_uint(char *buffer, const struct kernel_param *kp);

#define module_param_cb(name_, ops_, arg_, perm_)			\
	const struct kernel_param walk_param_##name_ = {		\
		.name = #name_, .ops = (ops_), .perm = (perm_),		\
		.arg = (arg_)						\
	}

/*
 * Sleeping in NMI or IRQ context, or faulting with page faults disabled,
 * would be a bug of the kernel's: the harness marks those contexts.
 */
static inline void cond_resched(void)
{
	if (walk_atomic)
		walk_bug("a reschedule in NMI or IRQ context");
}

static inline void might_fault(void)
{
	if (walk_atomic)
		walk_bug("a possible fault in NMI or IRQ context");
}

/* <linux/unaligned.h>: code bytes read as the arch's instruction words */
static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = p;

	return b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24;
}

static inline void pagefault_disable(void)
{
	walk_pagefault_disabled++;
}

static inline void pagefault_enable(void)
{
	if (--walk_pagefault_disabled < 0)
		walk_bug("page faults enabled more often than disabled");
}

extern bool walk_in_nmi;
extern bool walk_nmi_uaccess_okay;

static inline bool in_nmi(void)
{
	return walk_in_nmi;
}

static inline bool nmi_uaccess_okay(void)
{
	return walk_nmi_uaccess_okay;
}

#define get_user(x, ptr)						\
({									\
	__typeof__(*(ptr)) __v;						\
	int __ret = walk_copy(&__v, (unsigned long)(ptr), sizeof(__v)) ? \
		    0 : -EFAULT;					\
	(x) = __v;							\
	__ret;								\
})

static inline unsigned long copy_from_user(void *dst, const void *src,
					   unsigned long len)
{
	return walk_copy(dst, (unsigned long)src, len) ? 0 : len;
}

/* One address space: another task's is the walk's own here. */
struct mm_struct;

static inline int access_remote_vm(struct mm_struct *mm, unsigned long addr,
				   void *buf, int len, unsigned int gup_flags)
{
	(void)mm;
	(void)gup_flags;
	return walk_copy(buf, addr, len) ? len : 0;
}

#define TASK_SIZE		walk_task_size

/* The arch: registers, user mode, signal frame layouts */
struct pt_regs;

/*
 * Of the mm, only its size (a remote walk's bound) and s390's ASCE limit
 * are asked: unwind_user_addr_end(), unwind_user_mm_addr_end()
 */
struct mm_struct {
	unsigned long	task_size;
	struct {
		unsigned long	asce_limit;
	} context;
};

/*
 * The walk's memory is one flat space (walk_copy()): every address in it
 * is code, as far as unwind_user_in_code() asks.  The KUnit suite and the
 * e2e tests check the kernel's answer.
 */
#define VM_EXEC		0x00000004UL

struct vm_area_struct {
	unsigned long	vm_flags;
};

static inline int mmap_read_lock_killable(struct mm_struct *mm)
{
	(void)mm;
	return 0;
}

static inline void mmap_read_unlock(struct mm_struct *mm)
{
	(void)mm;
}

static inline struct vm_area_struct *vma_lookup(struct mm_struct *mm,
						unsigned long addr)
{
	static struct vm_area_struct code = { .vm_flags = VM_EXEC };

	(void)mm;
	(void)addr;
	return &code;
}

/* The kernel's stack_t, in every arch's ucontext */
struct walk_stack_t {
	void		*ss_sp;
	int		ss_flags;
	size_t		ss_size;
};

#if defined(WALKER_ARCH_X86)

#define WALKER_ARCH_NAME	"x86_64"

struct pt_regs {
	unsigned long	r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long	ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

#define __USER_CS		0x33
#define __USER32_CS		0x23

static inline bool user_mode(struct pt_regs *regs)
{
	return !!(regs->cs & 3);
}

static inline bool user_64bit_mode(struct pt_regs *regs)
{
	return regs->cs == __USER_CS;
}

#define instruction_pointer(regs)	((regs)->ip)
#define user_stack_pointer(regs)	((regs)->sp)

/* arch/x86/include/uapi/asm/sigcontext.h, 64-bit, the kernel's names */
struct sigcontext {
	u64		r8, r9, r10, r11, r12, r13, r14, r15;
	u64		di, si, bp, bx, dx, ax, cx, sp, ip, flags;
	u16		cs, gs, fs, ss;
	u64		err, trapno, oldmask, cr2, fpstate;
	u64		reserved1[8];
};

struct ucontext {
	unsigned long		uc_flags;
	struct ucontext		*uc_link;
	struct walk_stack_t	uc_stack;
	struct sigcontext	uc_mcontext;
	u64			uc_sigmask;
};

struct siginfo {
	union {
		long	align;
		u8	bytes[128];
	};
};

/* arch/x86/include/asm/sigframe.h */
struct rt_sigframe {
	char __user	*pretcode;
	struct ucontext	uc;
	struct siginfo	info;
};

static_assert(offsetof(struct rt_sigframe, uc.uc_mcontext) -
	      offsetof(struct rt_sigframe, uc) == 40);
static_assert(offsetof(struct sigcontext, ip) == 128);

#define WALK_TASK_SIZE(compat)	((compat) ? 0xffffe000UL : (1UL << 47) - 4096)

#elif defined(WALKER_ARCH_ARM64)

#define WALKER_ARCH_NAME	"arm64"

struct pt_regs {
	u64		regs[31];
	u64		sp;
	u64		pc;
	u64		pstate;
};

#define PSR_MODE_EL0t		0x00000000
#define PSR_MODE_MASK		0x0000000f
#define PSR_MODE32_BIT		0x00000010

static inline bool user_mode(struct pt_regs *regs)
{
	return (regs->pstate & PSR_MODE_MASK) == PSR_MODE_EL0t;
}

static inline bool compat_user_mode(struct pt_regs *regs)
{
	return (regs->pstate & (PSR_MODE32_BIT | PSR_MODE_MASK)) ==
	       (PSR_MODE32_BIT | PSR_MODE_EL0t);
}

#define instruction_pointer(regs)	((regs)->pc)
#define user_stack_pointer(regs)	((regs)->sp)

/*
 * XPACLRI with 48-bit user addresses: the bits above them become copies
 * of bit 55, top byte included (instruction addresses have no TBI).
 */
#define WALK_VA_BITS		48
#define ptrauth_strip_user_insn_pac(ptr)				\
({									\
	unsigned long __p = (ptr);					\
	unsigned long __m = GENMASK_ULL(63, WALK_VA_BITS);		\
	(__p & (1UL << 55)) ? __p | __m : __p & ~__m;			\
})

/* arch/arm64/include/uapi/asm/sigcontext.h and ucontext.h */
struct sigcontext {
	u64		fault_address;
	u64		regs[31];
	u64		sp;
	u64		pc;
	u64		pstate;
	u8		__reserved[4096] __aligned(16);
};

struct ucontext {
	unsigned long		uc_flags;
	struct ucontext		*uc_link;
	struct walk_stack_t	uc_stack;
	u64			uc_sigmask;
	u8			__unused[1024 / 8 - sizeof(u64)];
	struct sigcontext	uc_mcontext;
};

struct siginfo {
	union {
		long	align;
		u8	bytes[128];
	};
};

static_assert(sizeof(struct siginfo) + offsetof(struct ucontext, uc_mcontext) == 304);
static_assert(offsetof(struct sigcontext, pc) == 264);

#define WALK_TASK_SIZE(compat)	((compat) ? 0x100000000UL : 1UL << WALK_VA_BITS)

#elif defined(WALKER_ARCH_S390)

#define WALKER_ARCH_NAME	"s390x"

struct walk_psw {
	unsigned long	mask;
	unsigned long	addr;
};

struct pt_regs {
	unsigned long	args[1];
	struct walk_psw	psw;
	unsigned long	gprs[16];
	unsigned long	orig_gpr2;
};

#define PSW_MASK_PSTATE		0x0001000000000000UL

static inline bool user_mode(struct pt_regs *regs)
{
	return !!(regs->psw.mask & PSW_MASK_PSTATE);
}

#define instruction_pointer(regs)	((regs)->psw.addr)
#define user_stack_pointer(regs)	((regs)->gprs[15])

/*
 * arch/s390/include/uapi/asm/sigcontext.h and ucontext.h, 64-bit.  The
 * hooks name _sigregs by its uapi typedef.
 */
typedef struct {
	struct {
		struct walk_psw	psw;
		unsigned long	gprs[16];
		unsigned int	acrs[16];
	} regs;
	struct {
		unsigned int	fpc;
		unsigned int	pad;
		double		fprs[16];
	} fpregs;
} _sigregs;

struct sigcontext {
	unsigned long	oldmask[1];
	_sigregs __user	*sregs;
};

struct ucontext_extended {
	unsigned long		uc_flags;
	struct ucontext		*uc_link;
	struct walk_stack_t	uc_stack;
	_sigregs		uc_mcontext;
	u64			uc_sigmask;
};

struct siginfo {
	union {
		long	align;
		u8	bytes[128];
	};
};

/* The high halves of the vector registers, where FPRs live */
struct walk_vxr {
	u64		high;
	u64		low;
};

#define WALK_TASK_SIZE(compat)	((compat) ? 1UL << 31 : -4096UL)

#else
#error "build with WALKER_ARCH_X86, WALKER_ARCH_ARM64 or WALKER_ARCH_S390"
#endif

/* The current task: what user.c and the arch hooks ask of it */
#define PF_KTHREAD		0x00200000

struct task_struct {
	unsigned int		flags;
	struct mm_struct	*mm;
	struct pt_regs		*regs;		/* task_pt_regs() */
	bool			compat;		/* TIF_31BIT, TIF_ADDR32 */
#ifdef WALKER_ARCH_S390
	struct {
		struct {
			struct walk_vxr	vxrs[32];
		} ufpu;
	} thread;
#endif
};

extern struct task_struct walk_task;
#define current			(&walk_task)
#define task_pt_regs(task)	((task)->regs)

#ifdef WALKER_ARCH_S390
#define TIF_31BIT		16

static inline bool test_tsk_thread_flag(struct task_struct *task, int flag)
{
	return flag == TIF_31BIT && task->compat;
}

static inline void save_user_fpu_regs(void)
{
}
#endif

#endif /* _WALKER_INTERNAL_H */
