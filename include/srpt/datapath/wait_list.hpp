/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A FIFO of contexts waiting for a resource: receive contexts waiting for a
 * send context (or for the channel to become live), responses waiting for
 * send-queue slots. Intrusive: the node lives in the waiting context, so
 * queueing never allocates and cannot fail.
 *
 * Only FIFO operations are offered (push at the back, look at and pop the
 * front), so the order of service is the order of arrival by construction.
 * Not a lock: the owner serializes access.
 */
#ifndef SRPT_DATAPATH_WAIT_LIST_HPP
#define SRPT_DATAPATH_WAIT_LIST_HPP

#include <srpt/intrusive_list.hpp>
#include <stddef.h>
#include <stdint.h>

namespace srpt
{

template <typename T, ListNode T::*Node>
class WaitList
{
public:
	WaitList() = default;
	WaitList(const WaitList &) = delete;
	WaitList &operator=(const WaitList &) = delete;

	bool empty() const { return list_.empty(); }
	size_t size() const { return list_.size(); }

	void Push(T &elem)
	{
		list_.push_back(elem);
		total_pushed_++;
		if (list_.size() > max_depth_)
			max_depth_ = list_.size();
	}

	T *Front() { return list_.front(); }
	T *Pop() { return list_.pop_front(); }

	/* Calls @fn(T&) on each element from front to back (read only). */
	template <typename Fn>
	void ForEach(Fn &&fn)
	{
		list_.ForEach(static_cast<Fn &&>(fn));
	}

	uint64_t total_pushed() const { return total_pushed_; }
	size_t max_depth() const { return max_depth_; }

private:
	IntrusiveList<T, Node> list_;
	uint64_t total_pushed_ = 0;
	size_t max_depth_ = 0;
};

} // namespace srpt

#endif
