/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Generic kernel services for the C++ core: memory, logging, time, locks,
 * atomics, deferred work, sleeping. The rule of this header: implemented
 * in C, called by C++, and nothing in it knows of RDMA, SCSI or SRP.
 *
 * The C++ core never includes a kernel header. It meets the kernel through
 * four plain-C headers, sorted by who implements the functions:
 *
 *   header                    implemented in  holds
 *   include/srpt/platform.h   C               generic kernel services
 *   include/srpt/rdma_glue.h  C               RDMA, RDMA/CM, IB/CM, LIO and
 *                                             debugfs services (srpt_dp_*,
 *                                             srpt_ib_*, srpt_rdma_cm_*)
 *   include/srpt/trace.h      C               the core's tracepoints
 *   include/srpt/core_api.h   C++             every entry point the glue
 *                                             calls (srpt_core_*)
 *
 * All four use fixed-width integers and opaque handles, and 0 or a
 * negative errno for errors.
 *
 * This header has two implementations:
 *   - glue/platform_kernel.c: the real one, in C, inside ib_srpt.ko;
 *   - tests/host/platform_host.cpp: a deterministic one for the host tests,
 *     with allocation-failure injection and captured logs (srpt_msleep:
 *     tests/host/platform_dp_host.cpp, which scripts it).
 *
 * Kernel objects that the core embeds (spinlock_t, struct mutex, work items)
 * are held as opaque storage whose size and alignment come from
 * <srpt/kernel_sizes.h>, generated at build time from the kernel headers
 * (glue/kernel_sizes.c) and hand-written for the host.
 *
 * Every function carries a Contract: the context it may be called from and
 * who owns what afterwards.
 */
#ifndef SRPT_PLATFORM_H
#define SRPT_PLATFORM_H

#if defined(__cplusplus) || !defined(__KERNEL__)
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#else
#include <linux/stdarg.h>
#include <linux/types.h>
#endif

#include <srpt/kernel_sizes.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Error numbers. The values are Linux's; glue/platform_kernel.c checks each
 * against <linux/errno.h> with a static assertion.
 */
enum srpt_errno {
	SRPT_OK = 0,
	SRPT_EPERM = 1,
	SRPT_ENOENT = 2,
	SRPT_EIO = 5,
	SRPT_EAGAIN = 11,
	SRPT_ENOMEM = 12,
	SRPT_EBUSY = 16,
	SRPT_EEXIST = 17,
	SRPT_ENODEV = 19,
	SRPT_EINVAL = 22,
	SRPT_ERANGE = 34,
	SRPT_ENOSPC = 28,
	SRPT_EOPNOTSUPP = 95,
	SRPT_ECONNREFUSED = 111,
};

/* ---- Memory ----------------------------------------------------------- */

/* Allocation context, as the kernel's gfp_t: may the allocator sleep? */
enum srpt_gfp {
	SRPT_GFP_KERNEL = 0, /* process context, may sleep */
	SRPT_GFP_ATOMIC = 1, /* any context, never sleeps */
};

/*
 * Contract: GFP_KERNEL only in process context. Returns zeroed memory or
 * NULL; the caller owns it and releases it with srpt_kfree().
 */
void *srpt_kzalloc(size_t size, enum srpt_gfp gfp);
/* Contract: any context; NULL is accepted. */
void srpt_kfree(const void *ptr);
/*
 * kvzalloc(GFP_KERNEL): large arrays the CPU alone touches (never
 * DMA-mapped: the memory may be vmalloc'ed). Contract: process context.
 * Release with srpt_kvfree() (process context; NULL is accepted).
 */
void *srpt_kvzalloc(size_t size);
void srpt_kvfree(const void *ptr);

/* ---- Logging ---------------------------------------------------------- */

enum srpt_log_level {
	SRPT_LOG_ERR = 3,
	SRPT_LOG_WARNING = 4,
	SRPT_LOG_NOTICE = 5,
	SRPT_LOG_INFO = 6,
	SRPT_LOG_DEBUG = 7,
};

/*
 * Logs one line prefixed with the module name and, when @session is not
 * NULL, "[<session>] " so that every line about a login names it.
 * Contract: any context. The format is plain printf (no kernel %p
 * extensions); a trailing newline is added.
 */
void srpt_log(enum srpt_log_level level, const char *session, const char *fmt,
	      ...) __attribute__((format(printf, 3, 4)));
void srpt_vlog(enum srpt_log_level level, const char *session, const char *fmt,
	       va_list args) __attribute__((format(printf, 3, 0)));

/*
 * A broken invariant: WARN_ONCE-like in the kernel (one stack trace per call
 * site), a test failure on the host. Contract: any context.
 */
void srpt_warn(const char *file, int line, const char *what);

/* Monotonic clock in nanoseconds. Contract: any context. */
uint64_t srpt_now_ns(void);

/* ---- Locks ------------------------------------------------------------ */

/*
 * Lockdep needs one class per kind of lock, not one for every lock made by
 * the same wrapper: the core names the kind when it initializes a lock.
 */
enum srpt_lock_class {
	SRPT_LOCK_DEVICE_LIST = 0,
	SRPT_LOCK_DEVICE,
	SRPT_LOCK_PORT,
	SRPT_LOCK_CHANNEL,
	SRPT_LOCK_NEXUS,
	SRPT_LOCK_RDMA_CM_LISTENER,
	SRPT_LOCK_CHANNEL_REGISTRY,
	SRPT_LOCK_SEND_DONE_HOLD,
	SRPT_LOCK_TEST,
	SRPT_LOCK_CLASS_COUNT,
};

/* Storage of SRPT_SPINLOCK_SIZE bytes aligned to SRPT_SPINLOCK_ALIGN. */
void srpt_spin_lock_init(void *lock, enum srpt_lock_class cls);
/* Contract: any context; disables local interrupts until the unlock. */
unsigned long srpt_spin_lock_irqsave(void *lock);
void srpt_spin_unlock_irqrestore(void *lock, unsigned long flags);
#if SRPT_SPIN_DIRECT && defined(__cplusplus)
/*
 * The same two, where SRPT_SPIN_DIRECT says that they are exactly the
 * kernel's exported _raw_spin_lock_irqsave() / _raw_spin_unlock_irqrestore()
 * called on the spinlock_t's storage (glue/kernel_sizes.c checks the
 * layout): the core calls the kernel's functions by these names and saves
 * the forwarding call. The glue has the kernel's own declarations.
 */
unsigned long
srpt_kernel_spin_lock_irqsave(void *lock) __asm__("_raw_spin_lock_irqsave");
void srpt_kernel_spin_unlock_irqrestore(
    void *lock, unsigned long flags) __asm__("_raw_spin_unlock_irqrestore");
#endif
/*
 * A broken lock contract: lockdep_assert_held() in the kernel (a warning on
 * a lockdep kernel, nothing otherwise), a test failure on the host when the
 * calling thread does not hold @lock. Contract: any context. The core
 * calls it only where SRPT_LOCK_ASSERTS is set (<srpt/kernel_sizes.h>:
 * CONFIG_LOCKDEP in the kernel, always on the host).
 */
void srpt_spin_assert_held(void *lock);

/* Storage of SRPT_MUTEX_SIZE bytes aligned to SRPT_MUTEX_ALIGN. */
void srpt_mutex_init(void *mutex, enum srpt_lock_class cls);
/* Contract: process context only (may sleep). */
void srpt_mutex_lock(void *mutex);
void srpt_mutex_unlock(void *mutex);
/* As srpt_spin_assert_held(), for a mutex. Contract: any context. */
void srpt_mutex_assert_held(void *mutex);
void srpt_mutex_destroy(void *mutex);

/*
 * Atomics on memory that only the C++ core touches. The __atomic builtins
 * compile to the same locked instructions as the kernel's atomic_t on x86;
 * memory shared with C glue goes through explicit functions instead.
 * Returns the new value. Full barrier, as the kernel's atomic_*_return.
 */
static inline int32_t srpt_atomic_add_return(int32_t *v, int32_t delta)
{
	return __atomic_add_fetch(v, delta, __ATOMIC_SEQ_CST);
}

/* ---- Deferred work ---------------------------------------------------- */

typedef void (*srpt_work_fn)(void *ctx);

/*
 * As for locks, lockdep needs one class per kind of work item: with one
 * class for every work initialized through this wrapper, a work that
 * cancels another (a port refresh cancelled by a release) looks
 * like a work waiting for itself ("possible recursive locking"), and real
 * dependencies between kinds cannot be told apart.
 */
enum srpt_work_class {
	SRPT_WORK_PORT_REFRESH = 0,
	SRPT_WORK_CHANNEL_RELEASE,
	SRPT_WORK_SEND_DONE_HOLD,
	SRPT_WORK_TEST,
	SRPT_WORK_TEST_OTHER,
	SRPT_WORK_CLASS_COUNT,
};

/*
 * Storage of SRPT_WORK_SIZE bytes aligned to SRPT_WORK_ALIGN.
 * Contract: srpt_work_queue() from any context; returns false when the work
 * was already pending. @fn runs later in process context, on the system
 * workqueue. (A channel's kick is the glue's own work item, on the queue
 * of its completions: glue/completion.c.) srpt_work_cancel_sync() sleeps.
 */
void srpt_work_init(void *work, srpt_work_fn fn, void *ctx,
		    enum srpt_work_class cls);
bool srpt_work_queue(void *work);
bool srpt_work_cancel_sync(void *work);

/*
 * A work item that runs after a delay (the kernel's delayed_work). Storage
 * of SRPT_DELAYED_WORK_SIZE bytes aligned to SRPT_DELAYED_WORK_ALIGN.
 * Contract: srpt_delayed_work_queue() from any context; @fn runs in process
 * context on the system workqueue no earlier than @delay_us from now (the
 * kernel rounds up to whole jiffies); returns false when the work was
 * already pending, whose expiry then stays. srpt_delayed_work_cancel_sync()
 * sleeps: afterwards @fn is neither pending nor running, even if it
 * re-queues itself.
 */
void srpt_delayed_work_init(void *dwork, srpt_work_fn fn, void *ctx,
			    enum srpt_work_class cls);
bool srpt_delayed_work_queue(void *dwork, uint32_t delay_us);
bool srpt_delayed_work_cancel_sync(void *dwork);

/* ---- Sleeping --------------------------------------------------------- */

/* msleep(). Contract: process context. */
void srpt_msleep(uint32_t ms);

#ifdef __cplusplus
}
#endif

#endif /* SRPT_PLATFORM_H */
