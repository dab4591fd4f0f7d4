/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The free send contexts of a channel: a LIFO stack threaded through the
 * contexts themselves (the most recently freed context, whose buffer is
 * still in cache, is handed out first). Get and Put are O(1) and never
 * allocate. Not a lock: the channel core calls it with its lock held.
 *
 * It replaces the in-tree driver's use of the session's sbitmap tag pool;
 * the index of a context is the tag the glue gives the target core.
 */
#ifndef SRPT_DATAPATH_SEND_CTX_POOL_HPP
#define SRPT_DATAPATH_SEND_CTX_POOL_HPP

#include <srpt/datapath/cmd_state.hpp>
#include <srpt/datapath/ioctx_ring.hpp>
#include <srpt/log.hpp>
#include <stdint.h>

namespace srpt
{

class SendCtxPool
{
public:
	SendCtxPool() = default;
	SendCtxPool(const SendCtxPool &) = delete;
	SendCtxPool &operator=(const SendCtxPool &) = delete;

	/*
	 * Puts the first @limit contexts of @ring in the pool (all of them if
	 * @limit is 0 or larger than the ring). A smaller limit is the test
	 * knob that shrinks the pool below the credits.
	 */
	void Init(SendRing &ring, uint32_t limit)
	{
		head_ = nullptr;
		uint32_t n = ring.size();
		if (limit != 0 && limit < n)
			n = limit;
		total_ = n;
		for (uint32_t i = n; i > 0; i--) {
			SendCtx &ctx = ring[i - 1];
			SRPT_WARN_ON(!ctx.state_.Is(CmdState::kFree));
			ctx.next_free_ = head_;
			head_ = &ctx;
		}
		free_ = n;
	}

	/* A free context, or nullptr. The context stays in kFree. */
	SendCtx *Get()
	{
		SendCtx *ctx = head_;
		if (!ctx)
			return nullptr;
		head_ = ctx->next_free_;
		ctx->next_free_ = nullptr;
		free_--;
		return ctx;
	}

	/* Returns a context that the caller moved to kFree. */
	void Put(SendCtx &ctx)
	{
		SRPT_WARN_ON(!ctx.state_.Is(CmdState::kFree));
		ctx.next_free_ = head_;
		head_ = &ctx;
		free_++;
	}

	uint32_t free_count() const { return free_; }
	uint32_t total() const { return total_; }
	uint32_t in_use() const { return total_ - free_; }
	bool empty() const { return head_ == nullptr; }

private:
	SendCtx *head_ = nullptr;
	uint32_t free_ = 0;
	uint32_t total_ = 0;
};

} // namespace srpt

#endif
