// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/unwind_deferred_test: deferred unwinding driven from user space,
 * for end-to-end tests.  A thread writes the address of an int in its
 * memory; from 10 ms later, the first hard timer interrupt that hits the
 * thread in user mode (where a PMU sample of user code comes from) asks
 * for its user stack through two works, and asks the first again.  The
 * callbacks run on the thread's way back to user space, record what they
 * got, and set the int to 1.  Reading the file then gives, on one line,
 *
 *   requests <r1> <r2> <r1 again> cookies <c1> <c2> callbacks <c1> <c2>
 *   walks <n> same <0|1>
 *
 * (the requests' return values and cookies, the cookies the callbacks
 * got, the stacks walked for them, whether both callbacks got the same
 * stack), then the stack, one "0x<ip>" per line; "pending" until the
 * callbacks ran.
 *
 * /proc/unwind_deferred_exec_test plays, within one write(), what exec
 * does to a stay in the kernel that a sample asked a stack of, with a
 * second sample taken while the callback runs: a request, then
 * unwind_deferred_task_exec() (whose callback asks again), then a request
 * of the new program.  Reading it gives
 *
 *   requests <before> <in callback> <after> cookies <before> <after>
 *   callbacks <n> <cookie 1> <cookie 2>
 *
 * The stay must end at exec: the callback called twice with the first
 * cookie, and the request after it queued with a new one.
 */
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/unwind_deferred.h>
#include <asm/irq_regs.h>

#define UDT_DELAY_NS	(10 * NSEC_PER_MSEC)
#define UDT_TRIES	500
#define UDT_FRAMES	64

struct udt_result {
	int		request;
	u64		cookie;
	u64		callback_cookie;
	unsigned int	nr;
	unsigned long	ips[UDT_FRAMES];
	bool		called;
};

struct udt {
	struct hrtimer		timer;
	struct task_struct	*task;
	int __user		*flag;
	unsigned int		tries;
	int			again;
	long			walks;
	struct udt_result	res[2];
};

static struct unwind_work udt_works[2];
static DEFINE_SPINLOCK(udt_lock);
static struct udt *udt_armed;

static enum hrtimer_restart udt_fire(struct hrtimer *timer)
{
	struct udt *u = container_of(timer, struct udt, timer);
	struct pt_regs *regs = get_irq_regs();
	int i;

	/*
	 * Not the thread's turn on this CPU, or not in user mode (where a
	 * profiler's samples of user code come from): try again a little later.
	 */
	if (current != u->task || !regs || !user_mode(regs)) {
		if (++u->tries >= UDT_TRIES)
			return HRTIMER_NORESTART;
		hrtimer_forward_now(timer, ns_to_ktime(NSEC_PER_MSEC));
		return HRTIMER_RESTART;
	}
	u->walks = unwind_deferred_walk_count();
	for (i = 0; i < 2; i++)
		u->res[i].request = unwind_deferred_request(&udt_works[i],
							    &u->res[i].cookie);
	u->again = unwind_deferred_request(&udt_works[0], &u->res[0].cookie);
	return HRTIMER_NORESTART;
}

static void udt_callback(struct unwind_work *work,
			 struct unwind_stacktrace *trace, u64 cookie)
{
	struct udt_result *r;
	struct udt *u;
	bool done;

	spin_lock(&udt_lock);
	u = udt_armed;
	if (!u || u->task != current) {
		spin_unlock(&udt_lock);
		return;
	}
	r = &u->res[work == &udt_works[1]];
	r->callback_cookie = cookie;
	r->nr = min(trace->nr, UDT_FRAMES);
	memcpy(r->ips, trace->entries, r->nr * sizeof(r->ips[0]));
	r->called = true;
	done = u->res[0].called && u->res[1].called;
	if (done) {
		u->walks = unwind_deferred_walk_count() - u->walks;
		/* Cannot fault under the lock; the int is on a resident page. */
		pagefault_disable();
		if (put_user(1, u->flag))
			u->flag = NULL;
		pagefault_enable();
	}
	spin_unlock(&udt_lock);
}

static int udt_show(struct seq_file *m, void *v)
{
	struct udt *u = m->private;
	const struct udt_result *a = &u->res[0], *b = &u->res[1];
	unsigned int i;

	spin_lock(&udt_lock);
	if (!a->called || !b->called) {
		spin_unlock(&udt_lock);
		seq_puts(m, "pending\n");
		return 0;
	}
	seq_printf(m, "requests %d %d %d cookies %llx %llx callbacks %llx %llx walks %ld same %d\n",
		   a->request, b->request, u->again, a->cookie, b->cookie,
		   a->callback_cookie, b->callback_cookie, u->walks,
		   a->nr == b->nr && !memcmp(a->ips, b->ips, a->nr * sizeof(a->ips[0])));
	for (i = 0; i < a->nr; i++)
		seq_printf(m, "0x%lx\n", a->ips[i]);
	spin_unlock(&udt_lock);
	return 0;
}

static ssize_t udt_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	struct udt *u = ((struct seq_file *)file->private_data)->private;
	unsigned long addr;
	int ret;

	ret = kstrtoul_from_user(buf, count, 16, &addr);
	if (ret)
		return ret;
	hrtimer_cancel(&u->timer);
	scoped_guard(spinlock, &udt_lock) {
		if (udt_armed && udt_armed != u)
			return -EBUSY;
		memset(u->res, 0, sizeof(u->res));
		u->flag = (int __user *)addr;
		u->tries = 0;
		udt_armed = u;
	}
	hrtimer_start(&u->timer, ns_to_ktime(UDT_DELAY_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return count;
}

static int udt_open(struct inode *inode, struct file *file)
{
	struct udt *u = kzalloc(sizeof(*u), GFP_KERNEL);
	int ret;

	if (!u)
		return -ENOMEM;
	hrtimer_init(&u->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	u->timer.function = udt_fire;
	u->task = get_task_struct(current);
	ret = single_open(file, udt_show, u);
	if (ret) {
		put_task_struct(u->task);
		kfree(u);
	}
	return ret;
}

static int udt_release(struct inode *inode, struct file *file)
{
	struct udt *u = ((struct seq_file *)file->private_data)->private;

	hrtimer_cancel(&u->timer);
	scoped_guard(spinlock, &udt_lock) {
		if (udt_armed == u)
			udt_armed = NULL;
	}
	put_task_struct(u->task);
	kfree(u);
	return single_release(inode, file);
}

static struct unwind_work udt_exec_work;
static DEFINE_MUTEX(udt_exec_lock);
static struct {
	struct task_struct	*task;	/* while its write() runs */
	bool			ask_again;
	int			request_before;
	int			request_in_callback;
	int			request_after;
	u64			cookie_before;
	u64			cookie_after;
	unsigned int		calls;
	u64			callback_cookie[2];
} udt_exec;

static void udt_exec_callback(struct unwind_work *work,
			      struct unwind_stacktrace *trace, u64 cookie)
{
	u64 again;

	/* The new program's own callback, on its way out of write(): not ours */
	if (READ_ONCE(udt_exec.task) != current)
		return;
	if (udt_exec.calls < ARRAY_SIZE(udt_exec.callback_cookie))
		udt_exec.callback_cookie[udt_exec.calls] = cookie;
	udt_exec.calls++;
	/* A sample taken while the callback runs asks again. */
	if (udt_exec.ask_again) {
		udt_exec.ask_again = false;
		udt_exec.request_in_callback = unwind_deferred_request(&udt_exec_work,
								       &again);
	}
}

static int udt_exec_show(struct seq_file *m, void *v)
{
	guard(mutex)(&udt_exec_lock);
	seq_printf(m, "requests %d %d %d cookies %llx %llx callbacks %u %llx %llx\n",
		   udt_exec.request_before, udt_exec.request_in_callback,
		   udt_exec.request_after, udt_exec.cookie_before, udt_exec.cookie_after,
		   udt_exec.calls,
		   udt_exec.callback_cookie[0], udt_exec.callback_cookie[1]);
	return 0;
}

static ssize_t udt_exec_write(struct file *file, const char __user *buf,
			      size_t count, loff_t *ppos)
{
	guard(mutex)(&udt_exec_lock);
	memset(&udt_exec, 0, sizeof(udt_exec));
	udt_exec.ask_again = true;
	WRITE_ONCE(udt_exec.task, current);
	udt_exec.request_before = unwind_deferred_request(&udt_exec_work,
							  &udt_exec.cookie_before);
	unwind_deferred_task_exec(current);
	udt_exec.request_after = unwind_deferred_request(&udt_exec_work,
							 &udt_exec.cookie_after);
	WRITE_ONCE(udt_exec.task, NULL);
	return count;
}

static int udt_exec_open(struct inode *inode, struct file *file)
{
	return single_open(file, udt_exec_show, NULL);
}

static const struct proc_ops udt_exec_ops = {
	.proc_open	= udt_exec_open,
	.proc_read	= seq_read,
	.proc_write	= udt_exec_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

static const struct proc_ops udt_ops = {
	.proc_open	= udt_open,
	.proc_read	= seq_read,
	.proc_write	= udt_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= udt_release,
};

static int __init udt_init(void)
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = unwind_deferred_init(&udt_works[i], udt_callback);
		if (ret)
			return ret;
	}
	ret = unwind_deferred_init(&udt_exec_work, udt_exec_callback);
	if (ret)
		return ret;
	if (!proc_create("unwind_deferred_exec_test", 0600, NULL, &udt_exec_ops))
		return -ENOMEM;
	return proc_create("unwind_deferred_test", 0600, NULL, &udt_ops) ? 0 : -ENOMEM;
}
late_initcall(udt_init);
