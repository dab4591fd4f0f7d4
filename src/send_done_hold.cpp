// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The send-completion hold of the test knob test_send_done_delay_us; see
 * include/srpt/send_done_hold.hpp.
 */
#include <srpt/log.hpp>
#include <srpt/send_done_hold.hpp>

namespace srpt
{

SendDoneHold::SendDoneHold() : lock_(LockClass::kSendDoneHold) {}

SendDoneHold::~SendDoneHold()
{
	/* The owner flushed; a held completion here would be lost. */
	SRPT_WARN_ON(count_ != 0);
	if (work_ready_)
		(void)srpt_delayed_work_cancel_sync(work_);
	FreeArray(fifo_);
}

Status SendDoneHold::Init(uint32_t delay_us, uint32_t capacity,
			  DeliverFn deliver, void *ctx, Gfp gfp)
{
	if (delay_us == 0)
		return Status::kOk;
	if (capacity == 0 || !deliver)
		return Status::kInvalid;
	Entry *fifo = AllocateArray<Entry>(capacity, gfp);
	if (!fifo)
		return Status::kNoMemory;
	srpt_delayed_work_init(work_, WorkFn, this, SRPT_WORK_SEND_DONE_HOLD);
	SpinLockGuard guard(lock_);
	fifo_ = fifo;
	capacity_ = capacity;
	deliver_ = deliver;
	ctx_ = ctx;
	delay_us_ = delay_us;
	work_ready_ = true;
	return Status::kOk;
}

void SendDoneHold::ArmLocked(uint64_t due_ns, uint64_t now)
{
	lock_.AssertHeld();
	const uint64_t wait_ns = due_ns > now ? due_ns - now : 0;
	/* Rounded up: never earlier than due. */
	(void)srpt_delayed_work_queue(
	    work_, static_cast<uint32_t>((wait_ns + 999) / 1000));
}

bool SendDoneHold::HoldDelayed(uint32_t index)
{
	SpinLockGuard guard(lock_);
	if (stopped_)
		return false;
	if (SRPT_WARN_ON(count_ == capacity_))
		return false;
	const uint64_t now = srpt_now_ns();
	Entry &e = fifo_[(head_ + count_) % capacity_];
	e.due_ns = now + uint64_t{delay_us_} * 1000;
	e.index = index;
	count_++;
	held_total_++;
	/*
	 * An empty queue has no work armed for it (or one that will find
	 * nothing): arm for this entry. Otherwise the work re-arms itself.
	 */
	if (count_ == 1)
		ArmLocked(e.due_ns, now);
	return true;
}

bool SendDoneHold::PopLocked(bool all, uint64_t now, uint32_t *index)
{
	lock_.AssertHeld();
	if (count_ == 0)
		return false;
	const Entry &e = fifo_[head_];
	if (!all && e.due_ns > now)
		return false;
	*index = e.index;
	head_ = (head_ + 1) % capacity_;
	count_--;
	return true;
}

void SendDoneHold::WorkFn(void *ctx)
{
	static_cast<SendDoneHold *>(ctx)->RunDue();
}

void SendDoneHold::RunDue()
{
	for (;;) {
		SpinLockGuard guard(lock_);
		const uint64_t now = srpt_now_ns();
		uint32_t index;
		if (!PopLocked(false, now, &index)) {
			if (count_ != 0)
				ArmLocked(fifo_[head_].due_ns, now);
			return;
		}
		guard.Release();
		/* The data path takes its own lock: never under ours. */
		deliver_(ctx_, index);
	}
}

void SendDoneHold::StopAndFlush()
{
	if (!work_ready_)
		return;
	{
		SpinLockGuard guard(lock_);
		stopped_ = true;
	}
	/* Waits for a running RunDue(); it cannot re-arm afterwards. */
	(void)srpt_delayed_work_cancel_sync(work_);
	for (;;) {
		SpinLockGuard guard(lock_);
		uint32_t index;
		if (!PopLocked(true, 0, &index))
			return;
		guard.Release();
		deliver_(ctx_, index);
	}
}

uint32_t SendDoneHold::held()
{
	SpinLockGuard guard(lock_);
	return count_;
}

uint64_t SendDoneHold::held_total()
{
	SpinLockGuard guard(lock_);
	return held_total_;
}

} // namespace srpt
