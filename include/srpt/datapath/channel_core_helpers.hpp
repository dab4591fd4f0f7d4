/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The definitions of ChannelCore's private member functions, in the order
 * of their declarations: the one state change, the wait-list drain, giving
 * receive contexts back, posting responses, freeing send contexts. What
 * each one is for is said at its declaration in channel_core.hpp, which
 * includes this file at its end: include channel_core.hpp, not this file.
 */
#ifndef SRPT_DATAPATH_CHANNEL_CORE_HELPERS_HPP
#define SRPT_DATAPATH_CHANNEL_CORE_HELPERS_HPP

#include <srpt/datapath/channel_core.hpp>
#include <srpt/log.hpp>
#include <srpt/trace.h>

namespace srpt
{

template <typename Env>
ChannelState ChannelCore<Env>::TransitionToLocked(ChannelState next)
    SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	const ChannelState previous = state_;
	if (!IsLegalTransition(previous, next))
		return previous;
	state_ = next;
	env_.StateChanged(previous, next);
	return previous;
}

template <typename Env>
void ChannelCore<Env>::DrainLocked(SpinLockGuard &guard) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	if (draining_)
		return;
	draining_ = true;
	while (PhaseOf(state_) == ChannelPhase::kLive) {
		RecvCtx *r = wait_.Front();
		if (!r)
			break;
		const IuKind kind = r->class_.kind;
		SendCtx *s = nullptr;
		if (NeedsSendCtx(kind)) {
			s = pool_.Get();
			if (!s)
				break;
			(void)s->state_.TransitionTo(kind == IuKind::kCmd
							 ? CmdState::kNew
							 : CmdState::kMgmt);
			s->holds_credit_ = true;
		}
		(void)wait_.Pop();
		if (r->waited_) {
			r->waited_ = false;
			if (srpt_tracing())
				srpt_trace_iu_resume(
				    name_, static_cast<uint32_t>(wait_.size()));
		}
		const bool held =
		    s && kind == IuKind::kCmd && r->class_.keeps_buffer;
		if (held) {
			s->recv_ = r;
			r->state_ = RecvState::kHeldByCmd;
		} else {
			r->state_ = RecvState::kHandling;
		}
		/*
		 * After the call neither @s nor (if held) @r may be
		 * touched: the command may already be finished and
		 * both recycled by another context.
		 */
		guard.CallUnlocked([&] { Dispatch(*r, s, kind); });
		if (!held)
			ReturnRecvLocked(*r);
	}
	draining_ = false;
}

template <typename Env>
void ChannelCore<Env>::Dispatch(RecvCtx &r, SendCtx *s, IuKind kind)
{
	switch (kind) {
	case IuKind::kCmd:
		env_.SubmitCmd(*s, r);
		break;
	case IuKind::kTaskMgmt:
		env_.SubmitTaskMgmt(*s, r);
		break;
	default:
		env_.HandleOtherIu(r);
		break;
	}
}

template <typename Env>
void ChannelCore<Env>::FinishCompletion(SendCtx *freed, bool promised)
{
	SpinLockGuard guard(lock_);
	if (promised) {
		SRPT_WARN_ON(pending_drainers_ == 0);
		pending_drainers_--;
	}
	if (freed) {
		SRPT_WARN_ON(!freed->state_.Is(CmdState::kDone));
		FreeCtxLocked(*freed);
	}
	DrainLocked(guard);
}

template <typename Env>
void ChannelCore<Env>::OpenPutWindow(SendCtx &s)
{
	__atomic_store_n(&s.put_window_, 1u, __ATOMIC_RELEASE);
}

template <typename Env>
bool ChannelCore<Env>::TakePutWindow(SendCtx &s)
{
	return __atomic_exchange_n(&s.put_window_, 0u, __ATOMIC_ACQ_REL) != 0;
}

template <typename Env>
bool ChannelCore<Env>::NeedKickLocked() SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	if (PhaseOf(state_) != ChannelPhase::kLive || wait_.empty() ||
	    draining_ || pending_drainers_ != 0 || kick_pending_)
		return false;
	if (NeedsSendCtx(wait_.Front()->class_.kind) && pool_.empty())
		return false;
	kick_pending_ = true;
	stats_.kicks++;
	return true;
}

template <typename Env>
void ChannelCore<Env>::ReturnRecvLocked(RecvCtx &r) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	if (use_srq_ || PhaseOf(state_) == ChannelPhase::kConnecting ||
	    PhaseOf(state_) == ChannelPhase::kLive)
		RepostLocked(r);
	else
		r.state_ = RecvState::kIdle; /* own ring, QP closing */
}

template <typename Env>
void ChannelCore<Env>::RepostLocked(RecvCtx &r) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	/*
	 * Posted before the post: on an SRQ the context may complete
	 * on another channel's CQ (under that channel's lock) before
	 * PostRecv returns here.
	 */
	r.state_ = RecvState::kPosted;
	Status st = env_.PostRecv(r);
	if (IsOk(st))
		return;
	/* 6.1 ignored this. Count it; the context stays idle. */
	stats_.post_recv_failures++;
	r.state_ = RecvState::kIdle;
}

template <typename Env>
void ChannelCore<Env>::ReturnSlotsLocked(SendCtx &s) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	SRPT_WARN_ON(s.posted_wrs_ == 0);
	sq_.Return(s.posted_wrs_);
	s.posted_wrs_ = 0;
}

template <typename Env>
Status ChannelCore<Env>::PostResponseLocked(SendCtx &s, uint32_t n_rdma_writes)
    SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	const bool own = s.holds_credit_;
	const int32_t delta = ledger_.TakeResponseDelta(own);
	Status st = env_.PostResponse(s, n_rdma_writes, delta);
	if (!IsOk(st)) {
		ledger_.UndoResponseDelta(delta, own);
		sq_.Return(1 + n_rdma_writes);
		return st;
	}
	s.holds_credit_ = false;
	s.posted_wrs_ = 1 + n_rdma_writes;
	if (srpt_tracing())
		srpt_trace_credits(name_, delta, ledger_.req_lim());
	(void)s.state_.TransitionTo(s.state_.Is(CmdState::kMgmt)
					? CmdState::kMgmtRspSent
					: CmdState::kCmdRspSent);
	return Status::kOk;
}

template <typename Env>
void ChannelCore<Env>::PostDeferredLocked() SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	while (SendCtx *s = deferred_.Front()) {
		if (!sq_.TryReserve(1 + s->deferred_n_rdma_))
			return;
		(void)deferred_.Pop();
		if (IsOk(PostResponseLocked(*s, s->deferred_n_rdma_)))
			continue;
		stats_.responses_lost++;
		FinishWithoutResponseLocked(*s);
		failed_deferred_.Push(*s);
	}
}

template <typename Env>
void ChannelCore<Env>::FinishFailedDeferred()
{
	bool lost = false;
	for (;;) {
		SpinLockGuard guard(lock_);
		SendCtx *s = failed_deferred_.Pop();
		guard.Release();
		if (!s)
			break;
		lost = true;
		env_.PutCmd(*s);
	}
	if (lost)
		env_.ResponseLost();
}

template <typename Env>
void ChannelCore<Env>::FinishWithoutResponseLocked(SendCtx &s)
    SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	if (s.holds_credit_) {
		ledger_.WriteOff();
		s.holds_credit_ = false;
	}
	if (!s.state_.Is(CmdState::kDone))
		(void)s.state_.TransitionTo(CmdState::kDone);
}

template <typename Env>
void ChannelCore<Env>::FreeCtxLocked(SendCtx &s) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	SRPT_WARN_ON(s.posted_wrs_ != 0);
	FinishWithoutResponseLocked(s);
	if (RecvCtx *r = s.recv_) {
		s.recv_ = nullptr;
		r->state_ = RecvState::kHandling;
		ReturnRecvLocked(*r);
	}
	s.release_pending_ = false;
	s.deferred_n_rdma_ = 0;
	(void)s.state_.TransitionTo(CmdState::kFree);
	pool_.Put(s);
}

} // namespace srpt

#endif
