/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Locks of the core: the kernel's spinlock_t and struct mutex held as opaque
 * storage, used only through guards that cannot be copied or moved.
 * They are Clang capabilities (thread_safety.hpp): data members carry
 * SRPT_GUARDED_BY(lock), ...Locked() helpers SRPT_REQUIRES(lock) and call
 * AssertHeld() (lockdep_assert_held in the kernel, an owner check on the
 * host). AssertHeld() calls into the glue only where the check exists
 * (SRPT_LOCK_ASSERTS, <srpt/kernel_sizes.h>: a lockdep kernel, the host):
 * elsewhere the glue's function is empty, and the call would be made
 * several times per command for nothing (nine for a READ, counted on the
 * host). Where SRPT_SPIN_DIRECT is set (Debian's kernels), the spinlock is
 * taken and dropped by calling the kernel's own lock functions, not the
 * glue's srpt_spin_lock_irqsave() that only forwards to them.
 */
#ifndef SRPT_LOCK_HPP
#define SRPT_LOCK_HPP

#include <srpt/platform.h>
#include <srpt/thread_safety.hpp>

namespace srpt
{

enum class LockClass : int {
	kDeviceList = SRPT_LOCK_DEVICE_LIST,
	kDevice = SRPT_LOCK_DEVICE,
	kPort = SRPT_LOCK_PORT,
	kChannel = SRPT_LOCK_CHANNEL,
	kNexus = SRPT_LOCK_NEXUS,
	kRdmaCmListener = SRPT_LOCK_RDMA_CM_LISTENER,
	kChannelRegistry = SRPT_LOCK_CHANNEL_REGISTRY,
	kSendDoneHold = SRPT_LOCK_SEND_DONE_HOLD,
	kTest = SRPT_LOCK_TEST,
};

namespace lock_detail
{
/* The one choice of the functions that take and drop a SpinLock. */
#if SRPT_SPIN_DIRECT
inline unsigned long LockIrqSave(void *lock)
{
	return srpt_kernel_spin_lock_irqsave(lock);
}
inline void UnlockIrqRestore(void *lock, unsigned long flags)
{
	srpt_kernel_spin_unlock_irqrestore(lock, flags);
}
#else
inline unsigned long LockIrqSave(void *lock)
{
	return srpt_spin_lock_irqsave(lock);
}
inline void UnlockIrqRestore(void *lock, unsigned long flags)
{
	srpt_spin_unlock_irqrestore(lock, flags);
}
#endif
} // namespace lock_detail

/* Interrupt-safe spinlock; the guard keeps the saved flags. */
class SRPT_CAPABILITY("spinlock") SpinLock
{
public:
	explicit SpinLock(LockClass cls)
	{
		srpt_spin_lock_init(storage_,
				    static_cast<srpt_lock_class>(cls));
	}
	SpinLock(const SpinLock &) = delete;
	SpinLock &operator=(const SpinLock &) = delete;

	[[nodiscard]] unsigned long LockIrqSave() SRPT_ACQUIRE()
	{
		return lock_detail::LockIrqSave(storage_);
	}
	void UnlockIrqRestore(unsigned long flags) SRPT_RELEASE()
	{
		lock_detail::UnlockIrqRestore(storage_, flags);
	}
	/* The calling thread holds the lock (lockdep_assert_held). */
	void AssertHeld() SRPT_ASSERT_CAPABILITY(this)
	{
		if constexpr (SRPT_LOCK_ASSERTS != 0)
			srpt_spin_assert_held(storage_);
	}

private:
	alignas(SRPT_SPINLOCK_ALIGN) unsigned char storage_[SRPT_SPINLOCK_SIZE];
};

/*
 * Holds @lock from construction to Release() or the end of the scope
 * (lock_ is nullptr once released). For the analysis, a scoped capability
 * with early release.
 */
class SRPT_SCOPED_CAPABILITY SpinLockGuard
{
public:
	explicit SpinLockGuard(SpinLock &lock) SRPT_ACQUIRE(lock)
	    : lock_(&lock), flags_(lock.LockIrqSave())
	{
	}
	~SpinLockGuard() SRPT_RELEASE() { Release(); }
	SpinLockGuard(const SpinLockGuard &) = delete;
	SpinLockGuard &operator=(const SpinLockGuard &) = delete;

	/* Drops the lock before the end of the scope. */
	void Release() SRPT_RELEASE()
	{
		if (lock_) {
			lock_->UnlockIrqRestore(flags_);
			lock_ = nullptr;
		}
	}

	/*
	 * Runs @op with the lock dropped, then takes it again. For the
	 * analysis the caller holds the lock throughout (it does, before and
	 * after) and @op, a lambda, is analysed on its own without it. The
	 * body is not analysed: it takes the lock through a local copy of
	 * lock_, which the analysis cannot tie to the guard.
	 */
	template <typename Op>
	void CallUnlocked(Op &&op) SRPT_NO_THREAD_SAFETY_ANALYSIS
	{
		SpinLock *lock = lock_;
		Release();
		op();
		lock_ = lock;
		flags_ = lock->LockIrqSave();
	}

private:
	SpinLock *lock_;
	unsigned long flags_;
};

/* Sleeping lock, process context only. */
class SRPT_CAPABILITY("mutex") Mutex
{
public:
	explicit Mutex(LockClass cls)
	{
		srpt_mutex_init(storage_, static_cast<srpt_lock_class>(cls));
	}
	~Mutex() { srpt_mutex_destroy(storage_); }
	Mutex(const Mutex &) = delete;
	Mutex &operator=(const Mutex &) = delete;

	void Lock() SRPT_ACQUIRE() { srpt_mutex_lock(storage_); }
	void Unlock() SRPT_RELEASE() { srpt_mutex_unlock(storage_); }
	/* The calling thread holds the mutex (lockdep_assert_held). */
	void AssertHeld() SRPT_ASSERT_CAPABILITY(this)
	{
		if constexpr (SRPT_LOCK_ASSERTS != 0)
			srpt_mutex_assert_held(storage_);
	}

private:
	alignas(SRPT_MUTEX_ALIGN) unsigned char storage_[SRPT_MUTEX_SIZE];
};

class SRPT_SCOPED_CAPABILITY MutexGuard
{
public:
	explicit MutexGuard(Mutex &mutex) SRPT_ACQUIRE(mutex) : mutex_(mutex)
	{
		mutex_.Lock();
	}
	~MutexGuard() SRPT_RELEASE() { mutex_.Unlock(); }
	MutexGuard(const MutexGuard &) = delete;
	MutexGuard &operator=(const MutexGuard &) = delete;

private:
	Mutex &mutex_;
};

} // namespace srpt

#endif
