// SPDX-License-Identifier: GPL-2.0
/*
 * Planted stacks: a thread moves its stack and frame pointers to memory
 * filled with hostile words and spins there, so that whatever samples it
 * walks them.  The words: kernel addresses, pointers back into the area
 * (cycles) and into a hole that is never mapped, misaligned pointers, zero,
 * and now and then a real return address so that walks go on for a while.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sf_plant.h"

/*
 * sf_plant_spin(sp, fp, count, ra): spins @count times with the stack
 * pointer at @sp, the frame pointer at @fp and (where the arch keeps it in
 * a register) the return address register at @ra, then puts them back.
 * No CFI: the walk of its frame starts from the planted registers.
 * A signal taken meanwhile is delivered on the planted stack, which has
 * room below @sp for it.
 */
void sf_plant_spin(unsigned long sp, unsigned long fp, unsigned long count,
		   unsigned long ra);

#if defined(__x86_64__)
__asm__(".text\n"
	".globl sf_plant_spin\n"
	".type sf_plant_spin, @function\n"
	"sf_plant_spin:\n"
	"	push %rbp\n"
	"	mov %rsp, %rax\n"
	"	mov %rsi, %rbp\n"
	"	mov %rdi, %rsp\n"
	"1:	dec %rdx\n"
	"	jnz 1b\n"
	"	mov %rax, %rsp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size sf_plant_spin, . - sf_plant_spin\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl sf_plant_spin\n"
	".type sf_plant_spin, %function\n"
	"sf_plant_spin:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x9, sp\n"
	"	mov x29, x1\n"
	"	mov x30, x3\n"
	"	mov sp, x0\n"
	"1:	subs x2, x2, #1\n"
	"	b.ne 1b\n"
	"	mov sp, x9\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size sf_plant_spin, . - sf_plant_spin\n");
#elif defined(__s390x__)
/* r14 and r15 saved in the caller's register save area, as the ABI allows */
__asm__(".text\n"
	".globl sf_plant_spin\n"
	".type sf_plant_spin, @function\n"
	"sf_plant_spin:\n"
	"	stmg %r11,%r15,88(%r15)\n"
	"	lgr %r1,%r15\n"
	"	lgr %r11,%r3\n"
	"	lgr %r14,%r5\n"
	"	lgr %r15,%r2\n"
	"1:	brctg %r4,1b\n"
	"	lgr %r15,%r1\n"
	"	lmg %r11,%r15,88(%r15)\n"
	"	br %r14\n"
	".size sf_plant_spin, . - sf_plant_spin\n");
#else
#error "no planted stack for this architecture"
#endif

/* The area: [guard][PLANT_PAGES - 2 pages of stack][hole][guard] */
#define PLANT_PAGES	16

static unsigned long plant_kernel_text;

static unsigned int plant_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 8;
}

/* The kernel's text, from kallsyms: the words a hostile stack would use */
static unsigned long plant_kallsyms(void)
{
	char line[256], name[128], type;
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_stext")) {
			fclose(f);
			return addr;
		}
	}
	fclose(f);
	return 0;
}

int sf_plant_init(struct sf_plant *p)
{
	long page = sysconf(_SC_PAGESIZE);
	char *area;

	if (!plant_kernel_text)
		plant_kernel_text = plant_kallsyms() ?: 0xffffffff81000000UL;
	area = mmap(NULL, PLANT_PAGES * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (area == MAP_FAILED)
		return -1;
	p->lo = (unsigned long)area + page;
	p->hole = (unsigned long)area + (PLANT_PAGES - 2) * page;
	p->hi = p->hole;
	p->page = page;
	return mprotect((void *)p->lo, p->hi - p->lo, PROT_READ | PROT_WRITE);
}

/* One hostile word for the area of @p */
static unsigned long plant_word(const struct sf_plant *p, unsigned int *seed,
				unsigned long real_ra)
{
	unsigned long span = p->hi - p->lo;

	switch (plant_rand(seed) % 8) {
	case 0:	/* kernel text */
		return plant_kernel_text + (plant_rand(seed) % 0x100000) * 16;
	case 1:	/* the top of the address space, below perf's context markers */
		return -(unsigned long)(plant_rand(seed) % 4096 + 4096) * 8;
	case 2:	/* back into the area: cycles, and frames going down */
		return p->lo + (plant_rand(seed) % span & ~7UL);
	case 3:	/* the hole */
		return p->hole + (plant_rand(seed) % p->page & ~7UL);
	case 4:	/* misaligned */
		return p->lo + (plant_rand(seed) % span | 1);
	case 5:
		return 0;
	default:
		return real_ra;
	}
}

void sf_plant_run(struct sf_plant *p, unsigned int *seed, unsigned long count)
{
	unsigned long *w = (unsigned long *)p->lo, n = (p->hi - p->lo) / sizeof(*w);
	unsigned long real_ra = (unsigned long)__builtin_return_address(0);
	unsigned long sp, fp, ra, i;

	for (i = 0; i < n; i++)
		w[i] = plant_word(p, seed, real_ra);
	/* Room below for a signal frame; on s390 a 160-byte frame above */
	sp = p->lo + (p->hi - p->lo) / 2 + (plant_rand(seed) % 1024 & ~15UL);
	fp = plant_word(p, seed, real_ra);
	ra = plant_word(p, seed, real_ra);
	sf_plant_spin(sp, fp, count, ra);
}
