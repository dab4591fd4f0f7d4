// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel implementation of include/srpt/platform.h: one-line wrappers around
 * kernel functions and macros, no policy. The opaque storage the core hands
 * in was sized by generated/srpt/kernel_sizes.h from the same types.
 */
#include "pr_fmt.h"

#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/ktime.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/build_bug.h>

#include <srpt/platform.h>
#include "platform_kernel.h"
#include "glue.h"

/* The core uses Linux errno values under its own names. */
static_assert(SRPT_EPERM == EPERM && SRPT_ENOENT == ENOENT);
static_assert(SRPT_EIO == EIO && SRPT_EAGAIN == EAGAIN);
static_assert(SRPT_ENOMEM == ENOMEM && SRPT_EBUSY == EBUSY);
static_assert(SRPT_EEXIST == EEXIST && SRPT_ENODEV == ENODEV);
static_assert(SRPT_EINVAL == EINVAL && SRPT_ERANGE == ERANGE);
static_assert(SRPT_ENOSPC == ENOSPC && SRPT_EOPNOTSUPP == EOPNOTSUPP);
static_assert(SRPT_ECONNREFUSED == ECONNREFUSED);

/* And the kernel's log levels. */
static_assert(SRPT_LOG_ERR == LOGLEVEL_ERR);
static_assert(SRPT_LOG_WARNING == LOGLEVEL_WARNING);
static_assert(SRPT_LOG_NOTICE == LOGLEVEL_NOTICE);
static_assert(SRPT_LOG_INFO == LOGLEVEL_INFO);
static_assert(SRPT_LOG_DEBUG == LOGLEVEL_DEBUG);

static gfp_t srpt_to_gfp(enum srpt_gfp gfp)
{
	return gfp == SRPT_GFP_ATOMIC ? GFP_ATOMIC : GFP_KERNEL;
}

void *srpt_kzalloc(size_t size, enum srpt_gfp gfp)
{
	return kzalloc(size, srpt_to_gfp(gfp));
}

void srpt_kfree(const void *ptr)
{
	kfree(ptr);
}

void *srpt_kvzalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

void srpt_kvfree(const void *ptr)
{
	kvfree(ptr);
}

void srpt_vlog(enum srpt_log_level level, const char *session,
	       const char *fmt, va_list args)
{
	struct va_format vaf;
	va_list copy;

	/* A va_list parameter is a pointer; %pV needs the array object. */
	va_copy(copy, args);
	vaf.fmt = fmt;
	vaf.va = &copy;

	/* Debug lines go through dynamic debug like pr_debug would. */
	if (level == SRPT_LOG_DEBUG) {
		if (session)
			pr_debug("[%s] %pV\n", session, &vaf);
		else
			pr_debug("%pV\n", &vaf);
		va_end(copy);
		return;
	}
	if (session)
		printk("%c%c" "ib_srpt: [%s] %pV\n", KERN_SOH_ASCII,
		       '0' + level, session, &vaf);
	else
		printk("%c%c" "ib_srpt: %pV\n", KERN_SOH_ASCII, '0' + level,
		       &vaf);
	va_end(copy);
}

void srpt_log(enum srpt_log_level level, const char *session,
	      const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	srpt_vlog(level, session, fmt, args);
	va_end(args);
}

void srpt_warn(const char *file, int line, const char *what)
{
	WARN(1, "ib_srpt: invariant broken at %s:%d: %s\n", file, line, what);
}

uint64_t srpt_now_ns(void)
{
	return ktime_get_ns();
}

/*
 * One lockdep class per kind of lock the core names, rather than one for
 * every lock initialized through this wrapper.
 */
static struct lock_class_key srpt_lock_keys[SRPT_LOCK_CLASS_COUNT];
static const char *const srpt_lock_names[SRPT_LOCK_CLASS_COUNT] = {
	[SRPT_LOCK_DEVICE_LIST] = "srpt_device_list",
	[SRPT_LOCK_DEVICE] = "srpt_device",
	[SRPT_LOCK_PORT] = "srpt_port",
	[SRPT_LOCK_CHANNEL] = "srpt_channel",
	[SRPT_LOCK_NEXUS] = "srpt_nexus",
	[SRPT_LOCK_RDMA_CM_LISTENER] = "srpt_rdma_cm_listener",
	[SRPT_LOCK_CHANNEL_REGISTRY] = "srpt_channel_registry",
	[SRPT_LOCK_SEND_DONE_HOLD] = "srpt_send_done_hold",
	[SRPT_LOCK_TEST] = "srpt_test",
};

static unsigned int srpt_lock_index(enum srpt_lock_class cls)
{
	return (unsigned int)cls < SRPT_LOCK_CLASS_COUNT ? cls : SRPT_LOCK_TEST;
}

void srpt_spin_lock_init(void *lock, enum srpt_lock_class cls)
{
	unsigned int i = srpt_lock_index(cls);

	spin_lock_init((spinlock_t *)lock);
	lockdep_set_class_and_name((spinlock_t *)lock, &srpt_lock_keys[i],
				   srpt_lock_names[i]);
}

unsigned long srpt_spin_lock_irqsave(void *lock)
{
	unsigned long flags;

	spin_lock_irqsave((spinlock_t *)lock, flags);
	return flags;
}

void srpt_spin_unlock_irqrestore(void *lock, unsigned long flags)
{
	spin_unlock_irqrestore((spinlock_t *)lock, flags);
}

void srpt_spin_assert_held(void *lock)
{
	lockdep_assert_held((spinlock_t *)lock);
}

void srpt_mutex_init(void *mutex, enum srpt_lock_class cls)
{
	unsigned int i = srpt_lock_index(cls);

	__mutex_init((struct mutex *)mutex, srpt_lock_names[i],
		     &srpt_lock_keys[i]);
}

void srpt_mutex_lock(void *mutex)
{
	mutex_lock((struct mutex *)mutex);
}

void srpt_mutex_unlock(void *mutex)
{
	mutex_unlock((struct mutex *)mutex);
}

void srpt_mutex_assert_held(void *mutex)
{
	lockdep_assert_held((struct mutex *)mutex);
}

void srpt_mutex_destroy(void *mutex)
{
	mutex_destroy((struct mutex *)mutex);
}

static void srpt_kwork_fn(struct work_struct *work)
{
	struct srpt_kwork *w = container_of(work, struct srpt_kwork, work);

	w->fn(w->ctx);
}

/* One lockdep class per kind of work item (enum srpt_work_class). */
#ifdef CONFIG_LOCKDEP
static struct lock_class_key srpt_work_keys[SRPT_WORK_CLASS_COUNT];
static const char *const srpt_work_names[SRPT_WORK_CLASS_COUNT] = {
	[SRPT_WORK_PORT_REFRESH] = "(work_completion)srpt_port_refresh",
	[SRPT_WORK_CHANNEL_RELEASE] = "(work_completion)srpt_channel_release",
	[SRPT_WORK_SEND_DONE_HOLD] = "(work_completion)srpt_send_done_hold",
	[SRPT_WORK_TEST] = "(work_completion)srpt_test",
	[SRPT_WORK_TEST_OTHER] = "(work_completion)srpt_test_other",
};

static void srpt_work_set_class(struct work_struct *work,
				enum srpt_work_class cls)
{
	unsigned int i = (unsigned int)cls < SRPT_WORK_CLASS_COUNT ?
				 cls : SRPT_WORK_TEST;

	lockdep_init_map(&work->lockdep_map, srpt_work_names[i],
			 &srpt_work_keys[i], 0);
}
#else
static void srpt_work_set_class(struct work_struct *work,
				enum srpt_work_class cls)
{
}
#endif

void srpt_work_init(void *work, srpt_work_fn fn, void *ctx,
		    enum srpt_work_class cls)
{
	struct srpt_kwork *w = work;

	INIT_WORK(&w->work, srpt_kwork_fn);
	srpt_work_set_class(&w->work, cls);
	w->fn = fn;
	w->ctx = ctx;
}

bool srpt_work_queue(void *work)
{
	struct srpt_kwork *w = work;

	return queue_work(system_wq, &w->work);
}

bool srpt_work_cancel_sync(void *work)
{
	return cancel_work_sync(&((struct srpt_kwork *)work)->work);
}

static void srpt_kdwork_fn(struct work_struct *work)
{
	struct srpt_kdwork *w =
		container_of(to_delayed_work(work), struct srpt_kdwork, dwork);

	w->fn(w->ctx);
}

void srpt_delayed_work_init(void *dwork, srpt_work_fn fn, void *ctx,
			    enum srpt_work_class cls)
{
	struct srpt_kdwork *w = dwork;

	INIT_DELAYED_WORK(&w->dwork, srpt_kdwork_fn);
	srpt_work_set_class(&w->dwork.work, cls);
	w->fn = fn;
	w->ctx = ctx;
}

bool srpt_delayed_work_queue(void *dwork, uint32_t delay_us)
{
	return schedule_delayed_work(&((struct srpt_kdwork *)dwork)->dwork,
				     usecs_to_jiffies(delay_us));
}

bool srpt_delayed_work_cancel_sync(void *dwork)
{
	return cancel_delayed_work_sync(&((struct srpt_kdwork *)dwork)->dwork);
}

void srpt_msleep(uint32_t ms)
{
	msleep(ms);
}
