/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * SRP flow control (request limit) and the send-queue budget of a channel.
 * Plain counters: the channel core calls them with its lock held.
 *
 * Credits (SRP r16a 5.5.3 "request limit"). LOGIN_RSP grants the initiator
 * `initial` credits; every SRP_CMD or SRP_TSK_MGMT costs it one; every
 * response gives back REQ_LIM_DELTA. The ledger splits the fixed total into
 * three parts and the identity
 *
 *     initial == req_lim + in_flight + owed
 *
 * holds at every point where the lock is released:
 *   req_lim    credits the target believes the initiator holds
 *              (= granted_total - consumed_total);
 *   in_flight  requests received whose credit is neither returned nor owed
 *              (waiting, being executed, or answered but not yet posted);
 *   owed       credits the target must add to the next response
 *              (requests that end without a response: aborted tasks,
 *              commands the target core released unanswered). This is
 *              6.1's req_lim_delta.
 *
 * Send-queue budget. Each response costs 1 SEND plus the RDMA WRITEs chained
 * in front of it; each RDMA READ chain costs its number of WRs. The budget
 * is taken before posting and returned by the completion, with the exact
 * count recorded in the send context (not recomputed), so it cannot drift.
 */
#ifndef SRPT_DATAPATH_CREDITS_HPP
#define SRPT_DATAPATH_CREDITS_HPP

#include <srpt/log.hpp>
#include <stdint.h>

namespace srpt
{

class CreditLedger
{
public:
	/* LOGIN_RSP: the initiator starts with @initial credits. */
	void Grant(int32_t initial)
	{
		initial_ = initial;
		req_lim_ = initial;
		granted_total_ = static_cast<uint64_t>(initial);
		consumed_total_ = 0;
		in_flight_ = 0;
		owed_ = 0;
	}

	/*
	 * A request arrived and cost the initiator one credit. Returns false
	 * if the initiator had none left (a protocol violation, counted; the
	 * request is still accounted so that the identity keeps holding).
	 */
	bool Consume()
	{
		consumed_total_++;
		in_flight_++;
		if (req_lim_-- <= 0) {
			violations_++;
			return false;
		}
		return true;
	}

	/*
	 * A response is being posted. @returns_own_credit: the response answers
	 * a request that still holds its credit. Returns REQ_LIM_DELTA for the
	 * response: its own credit plus everything owed.
	 */
	int32_t TakeResponseDelta(bool returns_own_credit)
	{
		int32_t delta = owed_;
		owed_ = 0;
		if (returns_own_credit) {
			SRPT_WARN_ON(in_flight_ <= 0);
			in_flight_--;
			delta++;
		}
		req_lim_ += delta;
		granted_total_ += static_cast<uint64_t>(delta);
		return delta;
	}

	/* Undoes TakeResponseDelta() when the post did not happen. */
	void UndoResponseDelta(int32_t delta, bool returns_own_credit)
	{
		req_lim_ -= delta;
		granted_total_ -= static_cast<uint64_t>(delta);
		if (returns_own_credit) {
			in_flight_++;
			delta--;
		}
		owed_ += delta;
	}

	/* A request ends without a response: its credit goes to the next one.
	 */
	void WriteOff()
	{
		SRPT_WARN_ON(in_flight_ <= 0);
		in_flight_--;
		owed_++;
	}

	bool Conserved() const
	{
		return req_lim_ + in_flight_ + owed_ == initial_ &&
		       static_cast<int64_t>(granted_total_) -
			       static_cast<int64_t>(consumed_total_) ==
			   req_lim_;
	}

	int32_t initial() const { return initial_; }
	int32_t req_lim() const { return req_lim_; }
	int32_t in_flight() const { return in_flight_; }
	int32_t owed() const { return owed_; }
	uint64_t granted_total() const { return granted_total_; }
	uint64_t consumed_total() const { return consumed_total_; }
	uint64_t violations() const { return violations_; }

private:
	int32_t initial_ = 0;
	int32_t req_lim_ = 0;
	int32_t in_flight_ = 0;
	int32_t owed_ = 0;
	uint64_t granted_total_ = 0;
	uint64_t consumed_total_ = 0;
	uint64_t violations_ = 0;
};

class SqBudget
{
public:
	void Init(uint32_t capacity)
	{
		capacity_ = capacity;
		avail_ = capacity;
	}

	/* Takes @n slots if all of them are there; never goes negative. */
	bool TryReserve(uint32_t n)
	{
		if (n > avail_)
			return false;
		avail_ -= n;
		return true;
	}

	void Return(uint32_t n)
	{
		if (SRPT_WARN_ON(n > capacity_ - avail_)) {
			avail_ = capacity_;
			return;
		}
		avail_ += n;
	}

	/* Can a request for @n slots ever be satisfied? */
	bool Fits(uint32_t n) const { return n <= capacity_; }

	uint32_t capacity() const { return capacity_; }
	uint32_t avail() const { return avail_; }
	uint32_t in_use() const { return capacity_ - avail_; }

private:
	uint32_t capacity_ = 0;
	uint32_t avail_ = 0;
};

} // namespace srpt

#endif
