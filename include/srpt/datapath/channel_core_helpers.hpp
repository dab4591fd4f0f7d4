/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The definitions of ChannelCore's private member functions, in the order
 * of their declarations: the one state change, taking the next IU off the
 * wait list, giving receive contexts back, taking and posting responses,
 * freeing send contexts. What each one is for is said at its declaration
 * in channel_core.hpp, which includes this file at its end: include
 * channel_core.hpp, not this file.
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
bool ChannelCore<Env>::NextHandoffLocked(Handoff &h) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	RecvCtx *r = PhaseOf(state_) == ChannelPhase::kLive ? wait_.Front()
							      : nullptr;
	SendCtx *s = nullptr;
	if (r && NeedsSendCtx(r->class_.kind)) {
		s = pool_.Get();
		if (!s)
			r = nullptr;
	}
	if (!r) {
		draining_ = false;
		return false;
	}
	draining_ = true;
	(void)wait_.Pop();
	if (r->waited_) {
		r->waited_ = false;
		if (srpt_tracing())
			srpt_trace_iu_resume(
			    name_, static_cast<uint32_t>(wait_.size()));
	}
	TakeLocked(*r, s, h);
	h.direct = false;
	return true;
}

template <typename Env>
void ChannelCore<Env>::TakeLocked(RecvCtx &r, SendCtx *s, Handoff &h)
    SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	const IuKind kind = r.class_.kind;
	if (s) {
		(void)s->state_.TransitionTo(kind == IuKind::kCmd
						 ? CmdState::kNew
						 : CmdState::kMgmt);
		s->holds_credit_ = true;
	}
	h.r = &r;
	h.s = s;
	h.kind = kind;
	h.held = s && kind == IuKind::kCmd && r.class_.keeps_buffer;
	if (h.held) {
		s->recv_ = &r;
		r.state_ = RecvState::kHeldByCmd;
	} else {
		r.state_ = RecvState::kHandling;
	}
}

template <typename Env>
bool ChannelCore<Env>::NeedKickLocked() SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	if (PhaseOf(state_) != ChannelPhase::kLive || wait_.empty() ||
	    draining_ || kick_pending_)
		return false;
	if (NeedsSendCtx(wait_.Front()->class_.kind) && pool_.empty())
		return false;
	kick_pending_ = true;
	stats_.kicks++;
	return true;
}

template <typename Env>
void ChannelCore<Env>::ReturnRecvLocked(RecvCtx &r, Posts &posts)
    SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	if (use_srq_ || PhaseOf(state_) == ChannelPhase::kConnecting ||
	    PhaseOf(state_) == ChannelPhase::kLive) {
		/*
		 * Posted before the post: on an SRQ the context may complete
		 * on another channel's CQ (under that channel's lock) before
		 * PostRecv returns. A channel's own ring is posted here only
		 * while it is live: its QP's drain comes after every receive
		 * decided before the channel left kLive (docs/data-path.md,
		 * "Teardown order").
		 */
		r.state_ = RecvState::kPosted;
		posts.Add(r);
	} else {
		r.state_ = RecvState::kIdle; /* own ring, QP closing */
	}
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
void ChannelCore<Env>::TakeResponseLocked(SendCtx &s, uint32_t n_rdma_writes)
    SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	const bool own = s.holds_credit_;
	s.rsp_delta_ = ledger_.TakeResponseDelta(own);
	s.rsp_own_credit_ = own;
	s.rsp_n_rdma_ = n_rdma_writes;
	s.holds_credit_ = false;
	s.posted_wrs_ = 1 + n_rdma_writes;
	if (srpt_tracing())
		srpt_trace_credits(name_, s.rsp_delta_, ledger_.req_lim());
	(void)s.state_.TransitionTo(s.state_.Is(CmdState::kMgmt)
					? CmdState::kMgmtRspSent
					: CmdState::kCmdRspSent);
}

template <typename Env>
void ChannelCore<Env>::TakeDeferredLocked(Posts &posts) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	while (SendCtx *s = deferred_.Front()) {
		if (!sq_.TryReserve(1 + s->rsp_n_rdma_))
			return;
		(void)deferred_.Pop();
		TakeResponseLocked(*s, s->rsp_n_rdma_);
		posts.Add(*s);
	}
}

template <typename Env>
Status ChannelCore<Env>::Post(Posts &posts)
{
	if (posts.recv) {
		PostRecvUnlocked(*posts.recv);
		while (RecvCtx *r = posts.more_recvs.Pop())
			PostRecvUnlocked(*r);
	}
	Status first = Status::kOk;
	if (posts.rsp) {
		first = PostResponseUnlocked(*posts.rsp);
		while (SendCtx *s = posts.more_rsps.Pop()) {
			const Status st = PostResponseUnlocked(*s);
			if (IsOk(first))
				first = st;
		}
	}
	return first;
}

template <typename Env>
void ChannelCore<Env>::PostRecvUnlocked(RecvCtx &r)
{
	if (IsOk(env_.PostRecv(r)))
		return;
	/* 6.1 ignored this. Count it; the context stays idle. */
	SpinLockGuard guard(lock_);
	stats_.post_recv_failures++;
	r.state_ = RecvState::kIdle;
}

template <typename Env>
Status ChannelCore<Env>::PostResponseUnlocked(SendCtx &s)
{
	const Status st = env_.PostResponse(s, s.rsp_n_rdma_, s.rsp_delta_);
	if (IsOk(st))
		return st;
	/*
	 * Nobody can retry it: the command ends without a response and the
	 * channel disconnects (an error path, which hands the fabric's
	 * reference back from here).
	 */
	{
		SpinLockGuard guard(lock_);
		UndoResponseLocked(s);
	}
	env_.PutCmd(s);
	env_.ResponseLost();
	return st;
}

template <typename Env>
void ChannelCore<Env>::UndoResponseLocked(SendCtx &s) SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	ledger_.UndoResponseDelta(s.rsp_delta_, s.rsp_own_credit_);
	s.holds_credit_ = s.rsp_own_credit_;
	ReturnSlotsLocked(s);
	stats_.responses_lost++;
	FinishWithoutResponseLocked(s);
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
void ChannelCore<Env>::FreeCtxLocked(SendCtx &s, Posts &posts)
    SRPT_REQUIRES(lock_)
{
	lock_.AssertHeld();
	SRPT_WARN_ON(s.posted_wrs_ != 0);
	FinishWithoutResponseLocked(s);
	if (RecvCtx *r = s.recv_) {
		s.recv_ = nullptr;
		r->state_ = RecvState::kHandling;
		ReturnRecvLocked(*r, posts);
	}
	s.release_pending_ = false;
	s.rsp_n_rdma_ = 0;
	(void)s.state_.TransitionTo(CmdState::kFree);
	pool_.Put(s);
}

} // namespace srpt

#endif
