// SPDX-License-Identifier: GPL-2.0
/*
 * sf-vdso: stacks through the vDSO.  The kernel builds the vDSO with SFrame
 * and registers it at exec: /proc/self/sframe must show it as [vdso], as
 * the oracle reads it from the vDSO's own program headers, and a forked
 * child has it too.  Then the program samples itself with perf (cpu-clock,
 * user callchains, kernel samples included: where the clock is read by a
 * system call, the interrupted user frame is in the vDSO) while it calls
 * clock_gettime() and gettimeofday() of the vDSO in tight loops:
 *
 *   main > vdso_run > vdso_round > vdso_loop_cgt > [vDSO frames]
 *   main > vdso_run > vdso_round > vdso_loop_gtod > [vDSO frames]
 *
 * Every sample whose user IP is in the vDSO must have a callchain that
 * leaves the vDSO into the loop and goes on to main, symbol by symbol; all
 * of at least 500 such samples per chain, and every sample outside it too.
 * A sample taken where no user memory can be read, as perf's own copy of
 * the stack at the user SP tells, may be cut short instead, never wrong:
 * a KNOWN FAILURE on s390x (see vdso_run()), counted.  The vDSO functions
 * are called directly, found in its dynamic symbol table (AT_SYSINFO_EHDR):
 * through the C library's wrappers the walk would stop in the C library,
 * which has no SFrame on Debian 12.
 *
 * Last, a child moves the vDSO with mremap(), as checkpoint/restore tools
 * do: its section goes, and nothing is registered at the new place.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sf_chain.h"
#include "sf_perf.h"
#include "sf_syscall.h"
#include "sf_harness.h"

#define VDSO_SAMPLES		500
#define VDSO_MAX_SECONDS	60
#define VDSO_CALLS		2000
#define VDSO_DATA_PAGES		64
/*
 * Samples where no user memory could be read, at most this share of all:
 * 0.4% of them in 40 runs beside a busy host; each is judged (cut short,
 * never wrong), and the bound keeps a kernel whose user copies failed
 * everywhere from passing on cut stacks alone.
 */
#define VDSO_UNREADABLE_PERCENT	25
#define VDSO_TALLY_NOTE	"%s: %u of %u samples in the vDSO exact to main, %u outside it of %u; taken in the kernel: %u"
#define VDSO_CUT_NOTE	"KNOWN FAILURE: %s: %u of %u samples taken where no user memory could be read (s390x: in a context switch, before %%cr7 holds the task's address space) cut short, %u of them in the vDSO"

#if defined(__x86_64__)
#define VDSO_CGT	"__vdso_clock_gettime"
#define VDSO_GTOD	"__vdso_gettimeofday"
#else
#define VDSO_CGT	"__kernel_clock_gettime"
#define VDSO_GTOD	"__kernel_gettimeofday"
#endif

typedef int (*vdso_cgt_fn)(clockid_t clk, struct timespec *ts);
typedef int (*vdso_gtod_fn)(struct timeval *tv, void *tz);

static vdso_cgt_fn vdso_cgt;
static vdso_gtod_fn vdso_gtod;
static unsigned long vdso_start, vdso_end;	/* the [vdso] mapping */
static int vdso_fd = -1;
static volatile long vdso_sink;

/* A symbol of the vDSO's dynamic symbol table, or NULL. */
static void *vdso_sym(const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	unsigned long bias = 0;
	int i;

	if (!eh)
		return NULL;
	ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD)
			bias = (unsigned long)eh + ph[i].p_offset - ph[i].p_vaddr;
		else if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)((const char *)eh + ph[i].p_offset);
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)(bias + dyn->d_un.d_ptr);
	}
	/* The vDSO's linker scripts put .dynstr right after .dynsym. */
	for (; sym && str && (const char *)sym < str; sym++)
		if (sym->st_name && sym->st_value && ELF64_ST_TYPE(sym->st_info) == STT_FUNC &&
		    !strcmp(str + sym->st_name, name))
			return (void *)(bias + sym->st_value);
	return NULL;
}

static bool vdso_in(uint64_t ip)
{
	return ip >= vdso_start && ip < vdso_end;
}

__attribute__((noinline)) long vdso_loop_cgt(void)
{
	struct timespec ts;
	long sum = 0;
	int i;

	for (i = 0; i < VDSO_CALLS; i++) {
		vdso_cgt(CLOCK_MONOTONIC, &ts);
		sum += ts.tv_nsec;
	}
	vdso_sink = sum;
	return sum & 1;
}

__attribute__((noinline)) long vdso_loop_gtod(void)
{
	struct timeval tv;
	long sum = 0;
	int i;

	for (i = 0; i < VDSO_CALLS; i++) {
		vdso_gtod(&tv, NULL);
		sum += tv.tv_usec;
	}
	vdso_sink = sum;
	return sum & 1;
}

/* Sampling is on only here, switched by this function's own syscalls. */
__attribute__((noinline)) long vdso_round(long (*loop)(void))
{
	long r;

	sf_syscall4(SYS_ioctl, vdso_fd, PERF_EVENT_IOC_ENABLE, 0, 0);
	r = loop();
	sf_syscall4(SYS_ioctl, vdso_fd, PERF_EVENT_IOC_DISABLE, 0, 0);
	__asm__ volatile("" : : : "memory");
	return r;
}

struct vdso_tally {
	const char		*name;
	const char *const	*chain;		/* from the loop to main */
	unsigned int		in_vdso;	/* samples with the user IP in the vDSO */
	unsigned int		exact;		/* ... complete to main */
	unsigned int		cut;		/* ... cut short: unreadable */
	unsigned int		outside;	/* samples elsewhere */
	unsigned int		outside_exact;
	unsigned int		outside_cut;
	unsigned int		in_kernel;	/* samples taken in the kernel */
	unsigned int		unreadable;	/* ... where no user memory could be read */
	unsigned int		shown;
};

static const char *const vdso_cgt_chain[] = {
	"vdso_loop_cgt", "vdso_round", "vdso_run", "sf_test_vdso", "main", NULL
};

static const char *const vdso_gtod_chain[] = {
	"vdso_loop_gtod", "vdso_round", "vdso_run", "sf_test_vdso", "main", NULL
};

/*
 * One user callchain, innermost first; @kernel_ip is the sample's IP where
 * it was taken in the kernel, 0 in user mode; @readable, whether perf could
 * copy the user stack in the sample's context.
 */
static void vdso_stack(struct vdso_tally *t, const uint64_t *ips, uint64_t nr,
		       uint64_t kernel_ip, bool readable)
{
	const char *names[SF_PERF_CHAIN_NAMES];
	bool in_vdso = nr && vdso_in(ips[0]);
	unsigned int i = 0, n = 0;
	bool from, exact, cut;

	/* The vDSO's own frames, then its caller's return address */
	while (in_vdso && i < nr && vdso_in(ips[i]))
		i++;
	for (; i < nr && n < SF_PERF_CHAIN_NAMES; i++)
		names[n++] = sf_perf_sym(ips[i], i > 0);
	/* Out of the vDSO, the walk goes on in the loop that called it */
	from = n && (!in_vdso || !strcmp(names[0], t->chain[0]));
	exact = from && sf_perf_names_exact(t->chain, names, n);
	cut = !exact && !readable && (!n || (from && sf_perf_names_cut(t->chain, names, n)));
	t->in_kernel += !!kernel_ip;
	t->unreadable += !readable;
	if (in_vdso) {
		t->in_vdso++;
		t->exact += exact;
		t->cut += cut;
	} else {
		t->outside++;
		t->outside_exact += exact;
		t->outside_cut += cut;
	}
	if (!exact && !cut && t->shown++ < 3) {
		if (kernel_ip)
			sf_info("taken in the kernel at %#llx", (unsigned long long)kernel_ip);
		sf_perf_chain_show(kernel_ip ? "in the kernel" : "in user mode", ips, nr);
	}
}

static void vdso_drain(struct sf_perf_ring *ring, struct vdso_tally *t)
{
	const struct perf_event_header *hdr;
	const uint64_t *rec = ring->rec;
	uint64_t nr, words, size;

	while ((hdr = sf_perf_ring_next(ring))) {
		if (hdr->type != PERF_RECORD_SAMPLE) {
			SF_CHECK(hdr->type != PERF_RECORD_LOST, "%s: samples lost", t->name);
			continue;
		}
		/*
		 * header, ip, nr, ips (the user context first, the kernel's
		 * excluded), then the stack's copy: its size, its bytes and
		 * how many of them could be read.
		 */
		words = hdr->size / sizeof(*rec);
		nr = rec[2];
		if (!SF_CHECK(words > 5 && nr >= 2 && nr < words - 3 &&
			      rec[3] == PERF_CONTEXT_USER,
			      "%s: callchain of %llu without a user context", t->name,
			      (unsigned long long)nr))
			continue;
		size = rec[3 + nr];
		if (!SF_CHECK(size == SF_PERF_USTACK_BYTES &&
			      4 + nr + size / sizeof(*rec) < words,
			      "%s: a copy of the user stack of %llu bytes in a record of %u",
			      t->name, (unsigned long long)size, hdr->size))
			continue;
		/* A sample in the kernel: a system call, an interrupt, a fault */
		vdso_stack(t, &rec[4], nr - 1, rec[1] != rec[4] ? rec[1] : 0,
			   rec[4 + nr + size / sizeof(*rec)] != 0);
	}
}

__attribute__((noinline)) void vdso_run(struct vdso_tally *t, long (*loop)(void))
{
	static struct sf_perf_ring ring;
	time_t end = time(NULL) + VDSO_MAX_SECONDS;
	unsigned int round;

	/*
	 * Once unsampled first: the loop's stack and the vDSO's pages are in
	 * place then, not faulted in under a sample, whose walk cannot wait.
	 */
	loop();
	/*
	 * 10 kHz.  Samples in the kernel too: where the clock is read by a
	 * system call, the interrupted user frame is in the vDSO.
	 */
	vdso_fd = sf_perf_self_cpu(100000, SF_PERF_KERNEL | SF_PERF_USTACK, &ring,
				   VDSO_DATA_PAGES);
	if (vdso_fd < 0)
		goto out;
	for (round = 0; time(NULL) < end && t->in_vdso < VDSO_SAMPLES; round++) {
		vdso_round(loop);
		vdso_drain(&ring, t);
	}
	sf_perf_ring_unmap(&ring);
	SF_CHECK(t->in_vdso >= VDSO_SAMPLES, "%s: %u samples in the vDSO in %u rounds",
		 t->name, t->in_vdso, round);
	sf_note(VDSO_TALLY_NOTE, t->name, t->exact, t->in_vdso, t->outside_exact, t->outside,
		t->in_kernel);
	/*
	 * s390x's user accesses go through the address space in %cr7.
	 * switch_mm() leaves it invalid, and finish_task_switch() loads the
	 * new task's only after it has turned interrupts back on: a sample
	 * taken in an interrupt there, or in the softirqs run on its way out,
	 * reads no user memory, and its stack ends with what the registers
	 * tell.  perf's synchronous callchains are cut there, as its own copy
	 * of the stack is.  Other architectures switch with interrupts off.
	 */
	sf_note(VDSO_CUT_NOTE, t->name, t->cut + t->outside_cut, t->unreadable, t->cut);
	SF_CHECK(t->unreadable * 100ULL <= (t->in_vdso + t->outside) * VDSO_UNREADABLE_PERCENT,
		 "%s: %u of %u samples taken where no user memory could be read",
		 t->name, t->unreadable, t->in_vdso + t->outside);
	SF_CHECK(t->exact + t->cut == t->in_vdso,
		 "%s: %u of %u samples in the vDSO exact to main, %u cut short where no user memory could be read",
		 t->name, t->exact, t->in_vdso, t->cut);
	SF_CHECK(t->outside_exact + t->outside_cut == t->outside,
		 "%s: %u of %u samples outside the vDSO exact to main, %u cut short where no user memory could be read",
		 t->name, t->outside_exact, t->outside, t->outside_cut);
out:
	if (vdso_fd >= 0)
		close(vdso_fd);
	vdso_fd = -1;
}

/* The [vdso] line: one, ok, inside the mapping; the oracle's, too. */
static bool vdso_line(const char *step, struct sf_line *out)
{
	const struct sf_line *l;
	struct sf_set got;
	bool ok = false;

	if (!sf_check_oracle(step) || !sf_read_self(&got, step))
		return false;
	l = sf_only_line(&got, "[vdso]", step);
	if (l && SF_CHECK(l->parsed && !strcmp(l->state, "ok") && l->fdes > 0 &&
			  l->version == SFRAME_VERSION_3,
			  "%s: '%s': want v3, fdes > 0, ok", step, l->text) &&
	    SF_CHECK(l->text_start == vdso_start && l->text_end <= vdso_end &&
		     l->sframe_start >= vdso_start && l->sframe_end <= vdso_end,
		     "%s: '%s' is not inside the vDSO's mapping %lx-%lx", step, l->text,
		     vdso_start, vdso_end)) {
		*out = *l;
		ok = true;
	}
	sf_set_free(&got);
	return ok;
}

/* Fork: the child has the same line, and the section is its own. */
static void vdso_fork(const struct sf_line *parent)
{
	long sections = sf_stat_get("sections");
	struct sf_line l;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		/* The child's status is its own checks' */
		sf_failed = 0;
		if (vdso_line("child", &l))
			SF_CHECK(!strcmp(l.text, parent->text), "child: '%s', parent: '%s'",
				 l.text, parent->text);
		/* The parent's sections and the child's copies */
		SF_CHECK(sf_stat_get("sections") >= sections + 1,
			 "child: %ld sections, the parent alone had %ld",
			 sf_stat_get("sections"), sections);
		sf_exit();
	}
	if (!SF_CHECK(pid > 0, "fork: %m"))
		return;
	waitpid(pid, &status, 0);
	SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "fork child: status %#x", status);
}

/*
 * A child moves the vDSO: the section goes with the old place, none is
 * registered at the new one, and everything else stays.  The child calls
 * nothing of the vDSO afterwards: the C library still points at the old
 * place.
 */
static void vdso_mremap(void)
{
	unsigned long len = vdso_end - vdso_start;
	struct sf_set want, got;
	long sections;
	int status;
	void *dst, *p;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		sf_failed = 0;
		/* The child's copies are in; the parent waits. */
		sections = sf_stat_get("sections") - 1;
		dst = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!SF_CHECK(dst != MAP_FAILED, "mmap"))
			sf_exit();
		p = mremap((void *)vdso_start, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
		if (!SF_CHECK(p == dst, "mremap of the vDSO: %m"))
			sf_exit();
		sf_info("moved the vDSO %lx-%lx to %p", vdso_start, vdso_end, p);
		if (sf_oracle_self(&want, "moved")) {
			/* The oracle sees [vdso] at the new place: not registered there */
			sf_drop_text(&want, (unsigned long)p, (unsigned long)p + len);
			sf_check_want(&want, "after the move");
			sf_set_free(&want);
		}
		if (sf_read_self(&got, "after the move")) {
			int n;

			sf_set_find_path(&got, "[vdso]", &n);
			SF_CHECK(n == 0, "%d [vdso] lines after the move", n);
			sf_set_free(&got);
		}
		sf_check_sections(sections, "after the move");
		/* Moved back, it is still not registered: only exec registers it. */
		p = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)vdso_start);
		if (SF_CHECK(p == (void *)vdso_start, "mremap back: %m") &&
		    sf_read_self(&got, "moved back")) {
			int n;

			sf_set_find_path(&got, "[vdso]", &n);
			SF_CHECK(n == 0, "%d [vdso] lines after moving it back", n);
			sf_set_free(&got);
		}
		sf_check_sections(sections, "after moving it back");
		sf_exit();
	}
	if (!SF_CHECK(pid > 0, "fork: %m"))
		return;
	waitpid(pid, &status, 0);
	SF_CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "mremap child: status %#x", status);
}

SF_TEST(vdso)
{
	struct vdso_tally t_cgt = { .name = "clock_gettime", .chain = vdso_cgt_chain };
	struct vdso_tally t_gtod = { .name = "gettimeofday", .chain = vdso_gtod_chain };
	const struct sf_map *m;
	struct sf_maps maps;
	struct sf_line line;

	vdso_cgt = (vdso_cgt_fn)vdso_sym(VDSO_CGT);
	vdso_gtod = (vdso_gtod_fn)vdso_sym(VDSO_GTOD);
	if (!SF_CHECK(vdso_cgt && vdso_gtod, "no %s or %s in the vDSO", VDSO_CGT, VDSO_GTOD) ||
	    !SF_CHECK(!sf_maps_read("self", &maps), "cannot read maps"))
		sf_exit();
	m = sf_maps_find(&maps, (unsigned long)vdso_cgt);
	if (!SF_CHECK(m && !strcmp(m->path, "[vdso]"), "%s is not in [vdso]", VDSO_CGT))
		sf_exit();
	vdso_start = m->start;
	vdso_end = m->end;
	sf_maps_free(&maps);

	if (!vdso_line("at start", &line))
		sf_exit();
	/* Forks last: pages shared with a child fault when written. */
	vdso_run(&t_cgt, vdso_loop_cgt);
	vdso_run(&t_gtod, vdso_loop_gtod);
	vdso_fork(&line);
	vdso_mremap();
	sf_exit();
}

SF_HARNESS_MAIN
