/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Locks of the core: the kernel's spinlock_t and struct mutex held as opaque
 * storage, used only through guards that cannot be copied or moved.
 */
#ifndef SRPT_LOCK_HPP
#define SRPT_LOCK_HPP

#include <srpt/platform.h>

namespace srpt
{

enum class LockClass : int {
	kDeviceList = SRPT_LOCK_DEVICE_LIST,
	kDevice = SRPT_LOCK_DEVICE,
	kPort = SRPT_LOCK_PORT,
	kChannel = SRPT_LOCK_CHANNEL,
	kNexus = SRPT_LOCK_NEXUS,
	kRdmaCmListener = SRPT_LOCK_RDMA_CM_LISTENER,
	kChannelState = SRPT_LOCK_CHANNEL_STATE,
	kChannelRegistry = SRPT_LOCK_CHANNEL_REGISTRY,
	kSendDoneHold = SRPT_LOCK_SEND_DONE_HOLD,
	kTest = SRPT_LOCK_TEST,
};

/* Interrupt-safe spinlock; the guard keeps the saved flags. */
class SpinLock
{
public:
	explicit SpinLock(LockClass cls)
	{
		srpt_spin_lock_init(storage_,
				    static_cast<srpt_lock_class>(cls));
	}
	SpinLock(const SpinLock &) = delete;
	SpinLock &operator=(const SpinLock &) = delete;

	[[nodiscard]] unsigned long LockIrqSave()
	{
		return srpt_spin_lock_irqsave(storage_);
	}
	void UnlockIrqRestore(unsigned long flags)
	{
		srpt_spin_unlock_irqrestore(storage_, flags);
	}

private:
	alignas(SRPT_SPINLOCK_ALIGN) unsigned char storage_[SRPT_SPINLOCK_SIZE];
};

class SpinLockGuard
{
public:
	explicit SpinLockGuard(SpinLock &lock)
	    : lock_(&lock), flags_(lock.LockIrqSave())
	{
	}
	~SpinLockGuard() { Release(); }
	SpinLockGuard(const SpinLockGuard &) = delete;
	SpinLockGuard &operator=(const SpinLockGuard &) = delete;

	/* Drops the lock before the end of the scope. */
	void Release()
	{
		if (lock_) {
			lock_->UnlockIrqRestore(flags_);
			lock_ = nullptr;
		}
	}

	/* Runs @op with the lock dropped, then takes it again. */
	template <typename Op>
	void CallUnlocked(Op &&op)
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
class Mutex
{
public:
	explicit Mutex(LockClass cls)
	{
		srpt_mutex_init(storage_, static_cast<srpt_lock_class>(cls));
	}
	~Mutex() { srpt_mutex_destroy(storage_); }
	Mutex(const Mutex &) = delete;
	Mutex &operator=(const Mutex &) = delete;

	void Lock() { srpt_mutex_lock(storage_); }
	void Unlock() { srpt_mutex_unlock(storage_); }

private:
	alignas(SRPT_MUTEX_ALIGN) unsigned char storage_[SRPT_MUTEX_SIZE];
};

class MutexGuard
{
public:
	explicit MutexGuard(Mutex &mutex) : mutex_(mutex) { mutex_.Lock(); }
	~MutexGuard() { mutex_.Unlock(); }
	MutexGuard(const MutexGuard &) = delete;
	MutexGuard &operator=(const MutexGuard &) = delete;

private:
	Mutex &mutex_;
};

} // namespace srpt

#endif
