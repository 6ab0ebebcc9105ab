// SPDX-License-Identifier: GPL-2.0
/*
 * sf-compat32 (x86_64 only): a 32-bit task has no SFrame, so the kernel
 * walks it by frame pointers, four bytes a word.  Each function of
 * _start > c32_main > c32_a > c32_b > c32_leaf records where it will
 * return to; /proc/thread-self/ustack, read by the leaf's own int $0x80,
 * must list exactly those addresses after the leaf's, each found by "fp".
 *
 * Freestanding, with no C library: Debian's 32-bit glibc for gcc -m32
 * (gcc-multilib) cannot be installed beside the cross compilers.  Prints
 * like the other test programs and exits 0 when every check passed.
 */
#define NR_exit		1
#define NR_write	4
#define NR_open		5
#define NR_pread64	180

#define C32_FRAMES	3

static char text[8192];
static unsigned long ret_to[C32_FRAMES];
static int fd, failed;

static long c32_syscall(long nr, long a, long b, long c)
{
	long ret;

	/* pread64's offset is the pair esi:edi, zero here */
	__asm__ volatile("int $0x80" : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(0), "D"(0)
			 : "memory");
	return ret;
}

static unsigned long c32_strlen(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void c32_print(const char *s)
{
	c32_syscall(NR_write, 1, (long)s, c32_strlen(s));
}

static void c32_check(int ok, const char *what)
{
	if (ok)
		return;
	c32_print("FAIL: ");
	c32_print(what);
	c32_print("\n");
	failed = 1;
}

/* "0x<hex> <method>\n" at *@p: the address, or 0; *@p moves to the next line */
static unsigned long c32_line(const char **p, int *fp)
{
	const char *s = *p;
	unsigned long v = 0;

	*fp = 0;
	if (s[0] != '0' || s[1] != 'x')
		return 0;
	for (s += 2; (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'); s++)
		v = v * 16 + (*s <= '9' ? *s - '0' : *s - 'a' + 10);
	*fp = s[0] == ' ' && s[1] == 'f' && s[2] == 'p' && s[3] == '\n';
	while (*s && *s != '\n')
		s++;
	*p = *s ? s + 1 : s;
	return v;
}

__attribute__((noinline)) long c32_leaf(void)
{
	ret_to[0] = (unsigned long)__builtin_return_address(0);
	return c32_syscall(NR_pread64, fd, (long)text, sizeof(text) - 1);
}

__attribute__((noinline)) long c32_b(void)
{
	long r;

	ret_to[1] = (unsigned long)__builtin_return_address(0);
	r = c32_leaf();
	__asm__ volatile("" : : : "memory");
	return r + 1;
}

__attribute__((noinline)) long c32_a(void)
{
	long r;

	ret_to[2] = (unsigned long)__builtin_return_address(0);
	r = c32_b();
	__asm__ volatile("" : : : "memory");
	return r + 1;
}

__attribute__((noinline)) int c32_main(void)
{
	const char *p = text;
	int i, fp;

	fd = c32_syscall(NR_open, (long)"/proc/thread-self/ustack", 0, 0);
	c32_check(fd >= 0, "cannot open /proc/thread-self/ustack");
	c32_check(c32_a() > 2, "reading /proc/thread-self/ustack failed");
	c32_print("# ");
	c32_print(text);
	for (i = 0; i <= C32_FRAMES; i++) {
		unsigned long ip = c32_line(&p, &fp);

		c32_check(ip != 0, "fewer frames than the call chain");
		c32_check(fp, "a frame not found by frame pointers");
		if (i)
			c32_check(ip == ret_to[i - 1], "a frame is not where its call returns");
	}
	if (!failed)
		c32_print("NOTE: a 32-bit task: the leaf and its 3 callers, by frame pointers\n");
	return failed;
}

/* The ELF entry point: ESP is 16-byte aligned, EBP zero (end of chain). */
__attribute__((noreturn, force_align_arg_pointer)) void _start(void)
{
	c32_syscall(NR_exit, c32_main(), 0, 0);
	__builtin_unreachable();
}
