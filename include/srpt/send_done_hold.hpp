/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Test knob: holds successful send completions for a fixed delay before
 * the data path sees them (debugfs ib_srpt/test_send_done_delay_us, for
 * testing only; see docs/data-path.md).
 *
 * Why: the SEND of a response carries its credit (REQ_LIM_DELTA). The
 * initiator may use that credit, and its next IU may arrive, before the
 * target has processed the SEND's completion, i.e. while the response's
 * send context is still in use. With one send context per credit that IU
 * must wait on the wait list and be served, in order, once the completion
 * frees a context: the race the in-tree driver never exercised. On a real
 * HCA the window is microseconds; holding the completion widens it to the
 * configured delay so that a guest test hits it on every I/O.
 *
 * How: the channel's CQ context hands each successful send completion to
 * Hold(), which queues the context index with its due time (FIFO: every
 * entry has the same delay, so the queue is ordered by due time) and arms
 * one delayed work item. The work item delivers every due entry, in order,
 * with its own lock dropped, and re-arms for the next one. A send context
 * has at most one SEND outstanding, so @capacity entries (one per send
 * context) always suffice.
 *
 * Teardown: StopAndFlush() stops holding (later completions go straight
 * through), cancels the work item synchronously and delivers whatever is
 * still held, in order, in the caller's context. The channel calls it at
 * the start of its release, while the QP and the target session still
 * exist, so that every held completion runs before anything it refers to
 * is freed; after it returns, nothing of this object runs any more.
 */
#ifndef SRPT_SEND_DONE_HOLD_HPP
#define SRPT_SEND_DONE_HOLD_HPP

#include <srpt/alloc.hpp>
#include <srpt/lock.hpp>
#include <srpt/platform.h>
#include <srpt/status.hpp>
#include <stdint.h>

namespace srpt
{

class SendDoneHold
{
public:
	/* Delivers the (successful) send completion of context @index. */
	using DeliverFn = void (*)(void *ctx, uint32_t index);

	SendDoneHold();
	~SendDoneHold();
	SendDoneHold(const SendDoneHold &) = delete;
	SendDoneHold &operator=(const SendDoneHold &) = delete;

	/*
	 * @delay_us 0: disabled, nothing allocated, Hold() always false.
	 * Otherwise room for @capacity held completions. Process context,
	 * once, before the first Hold().
	 */
	Status Init(uint32_t delay_us, uint32_t capacity, DeliverFn deliver,
		    void *ctx, Gfp gfp);

	/* 0: disabled. */
	uint32_t delay_us() const { return delay_us_; }

	/*
	 * CQ context: takes the completion of @index and delivers it after
	 * the delay. False (the caller delivers it now) when disabled,
	 * stopped, or full (a broken invariant: one SEND per context).
	 * Inline: disabled (always, but in tests) costs one test per
	 * completion, not a call.
	 */
	bool Hold(uint32_t index)
	{
		return delay_us_ != 0 && HoldDelayed(index);
	}

	/*
	 * Process context, may sleep. Stops holding, cancels the work item
	 * and delivers every held completion now, in order. Idempotent.
	 */
	void StopAndFlush();

	/* Held now, and held since Init(). */
	uint32_t held();
	uint64_t held_total();

private:
	struct Entry {
		uint64_t due_ns;
		uint32_t index;
	};

	/* Hold() when enabled: queues @index, arms the work if idle. */
	bool HoldDelayed(uint32_t index);
	static void WorkFn(void *ctx);
	/* The delayed work: deliver what is due, re-arm for the rest. */
	void RunDue();
	/* Pops the head if @all or if it is due; lock held. */
	bool PopLocked(bool all, uint64_t now, uint32_t *index)
	    SRPT_REQUIRES(lock_);
	void ArmLocked(uint64_t due_ns, uint64_t now) SRPT_REQUIRES(lock_);

	SpinLock lock_;
	/*
	 * Below: lock_ (delay_us_, capacity_, deliver_, ctx_ set by Init).
	 * delay_us_, work_ready_, deliver_ and ctx_ are read without it once
	 * set: not annotated.
	 */
	Entry *fifo_ SRPT_GUARDED_BY(lock_) = nullptr;
	uint32_t capacity_ SRPT_GUARDED_BY(lock_) = 0;
	uint32_t head_ SRPT_GUARDED_BY(lock_) = 0;
	uint32_t count_ SRPT_GUARDED_BY(lock_) = 0;
	uint32_t delay_us_ = 0;
	bool stopped_ SRPT_GUARDED_BY(lock_) = false;
	bool work_ready_ = false;
	uint64_t held_total_ SRPT_GUARDED_BY(lock_) = 0;
	DeliverFn deliver_ = nullptr;
	void *ctx_ = nullptr;
	alignas(SRPT_DELAYED_WORK_ALIGN) unsigned char work_
	    [SRPT_DELAYED_WORK_SIZE];
};

} // namespace srpt

#endif
