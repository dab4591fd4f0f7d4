/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The definitions of ChannelCore's public member functions, in the order
 * of their declarations. channel_core.hpp holds the class (the interface,
 * what each entry point does and the concurrency contract) and includes
 * this file at its end: include channel_core.hpp, not this file. The
 * private helpers are in channel_core_helpers.hpp.
 */
#ifndef SRPT_DATAPATH_CHANNEL_CORE_IMPL_HPP
#define SRPT_DATAPATH_CHANNEL_CORE_IMPL_HPP

#include <srpt/datapath/channel_core.hpp>
#include <srpt/log.hpp>
#include <srpt/trace.h>

namespace srpt
{

/* ---- setup and teardown (process context) ------------------------------ */

template <typename Env>
Status ChannelCore<Env>::Init(const ChannelConfig &cfg, Gfp gfp)
{
	if (cfg.credits == 0 || cfg.rsp_buf_size == 0 ||
	    cfg.sq_size < 2 + kZlwSlots ||
	    (!cfg.srq_ring && cfg.req_buf_size == 0))
		return Status::kInvalid;
	Status st = send_ring_.Init(cfg.credits, cfg.rsp_buf_size, gfp);
	if (!IsOk(st))
		return st;
	if (cfg.srq_ring) {
		recv_ring_ = cfg.srq_ring;
	} else {
		BufAlignment align;
		if (cfg.imm_data_offset)
			align = {cfg.imm_data_offset, kImmDataAlignment};
		st = own_recv_ring_.Init(cfg.credits, cfg.req_buf_size, gfp,
					 align);
		if (!IsOk(st)) {
			send_ring_.Destroy();
			return st;
		}
		recv_ring_ = &own_recv_ring_;
	}
	use_srq_ = cfg.srq_ring != nullptr;
	name_ = cfg.name;
	if (cfg.state_observer) {
		for (uint32_t i = 0; i < send_ring_.size(); i++)
			send_ring_[i].SetStateObserver(
			    cfg.state_observer, cfg.state_observer_cookie);
	}
	SpinLockGuard guard(lock_);
	pool_.Init(send_ring_, cfg.send_ctx_limit);
	ledger_.Grant(static_cast<int32_t>(cfg.credits));
	sq_.Init(cfg.sq_size - kZlwSlots);
	state_ = ChannelState::kConnecting;
	return Status::kOk;
}

template <typename Env>
Status ChannelCore<Env>::PostInitialReceives()
{
	if (use_srq_)
		return Status::kOk;
	/* Before the QP leaves INIT: nothing else touches the ring yet. */
	for (uint32_t i = 0; i < recv_ring_->size(); i++) {
		RecvCtx &r = (*recv_ring_)[i];
		{
			SpinLockGuard guard(lock_);
			if (r.state_ != RecvState::kIdle)
				continue;
			r.state_ = RecvState::kPosted;
		}
		Status st = env_.PostRecv(r);
		if (!IsOk(st)) {
			SpinLockGuard guard(lock_);
			r.state_ = RecvState::kIdle;
			stats_.post_recv_failures++;
			return st;
		}
	}
	return Status::kOk;
}

/* ---- channel state ----------------------------------------------------- */

template <typename Env>
ChannelState ChannelCore<Env>::TransitionTo(ChannelState next)
{
	SpinLockGuard guard(lock_);
	if (SRPT_WARN_ON(next == ChannelState::kReleased))
		return state_;
	const ChannelState previous = TransitionToLocked(next);
	const bool kick = next == ChannelState::kLive &&
			  IsLegalTransition(previous, next) && NeedKickLocked();
	guard.Release();
	if (kick)
		env_.KickWaitList();
	return previous;
}

template <typename Env>
ChannelState ChannelCore<Env>::state()
{
	SpinLockGuard guard(lock_);
	return state_;
}

template <typename Env>
bool ChannelCore<Env>::OnRtu()
{
	return IsLegalTransition(TransitionTo(ChannelState::kLive),
				 ChannelState::kLive);
}

template <typename Env>
bool ChannelCore<Env>::Disconnect()
{
	return IsLegalTransition(TransitionTo(ChannelState::kDisconnecting),
				 ChannelState::kDisconnecting);
}

template <typename Env>
Status ChannelCore<Env>::PostDrainWrite()
{
	{
		SpinLockGuard guard(lock_);
		if (zlw_outstanding_)
			return Status::kBusy;
		zlw_outstanding_ = true;
	}
	Status st = env_.PostZeroLengthWrite();
	if (!IsOk(st)) {
		SpinLockGuard guard(lock_);
		zlw_outstanding_ = false;
	}
	return st;
}

template <typename Env>
ZlwOutcome ChannelCore<Env>::OnZeroLengthWriteDone(bool ok)
{
	SpinLockGuard guard(lock_);
	SRPT_WARN_ON(!zlw_outstanding_);
	zlw_outstanding_ = false;
	if (ok) {
		/* QP still usable: whatever waits is served by the kick. */
		const bool kick = NeedKickLocked();
		guard.Release();
		if (kick)
			env_.KickWaitList();
		return ZlwOutcome::kNothing;
	}
	bool moved = false;
	while (state_ != ChannelState::kReleasing &&
	       state_ != ChannelState::kReleased) {
		const ChannelState next = NextTowardRelease(state_);
		(void)TransitionToLocked(next);
		moved = next == ChannelState::kReleasing;
	}
	return moved ? ZlwOutcome::kReleaseChannel : ZlwOutcome::kNothing;
}

template <typename Env>
bool ChannelCore<Env>::ProcessWaitList(Handoff &h)
{
	SpinLockGuard guard(lock_);
	kick_pending_ = false;
	if (draining_)
		return false;
	return NextHandoffLocked(h);
}

template <typename Env>
uint32_t ChannelCore<Env>::Release()
{
	Posts posts;
	SpinLockGuard guard(lock_);
	while (state_ != ChannelState::kReleased)
		(void)TransitionToLocked(NextTowardRelease(state_));
	while (RecvCtx *r = wait_.Pop()) {
		r->waited_ = false;
		r->state_ = RecvState::kHandling;
		ReturnRecvLocked(*r, posts);
	}
	SRPT_WARN_ON(!deferred_.empty());
	if (!use_srq_) {
		/* The QP is gone: the HCA owns none of our buffers. */
		for (uint32_t i = 0; i < recv_ring_->size(); i++) {
			RecvCtx &r = (*recv_ring_)[i];
			if (r.state_ == RecvState::kPosted)
				r.state_ = RecvState::kIdle;
		}
	}
	const uint32_t leaked = pool_.in_use();
	SRPT_WARN_ON(leaked != 0);
	guard.Release();
	(void)Post(posts); /* an SRQ's buffers back to it */
	return leaked;
}

template <typename Env>
void ChannelCore<Env>::Destroy()
{
	send_ring_.Destroy();
	own_recv_ring_.Destroy();
	recv_ring_ = nullptr;
}

/* ---- completions (CQ context) ------------------------------------------ */

template <typename Env>
bool ChannelCore<Env>::OnRecvDone(RecvCtx &r, uint32_t byte_len, bool ok,
				  Handoff &h)
{
	IuClass cls;
	if (ok) {
		r.byte_len_ =
		    byte_len <= r.buf_size() ? byte_len : r.buf_size();
		cls = env_.ClassifyIu(r);
	}
	Posts posts;
	SpinLockGuard guard(lock_);
	SRPT_WARN_ON(r.state_ != RecvState::kPosted);
	r.state_ = RecvState::kHandling;
	if (!ok) {
		stats_.recv_errors++;
		if (use_srq_ && PhaseOf(state_) != ChannelPhase::kReleased)
			ReturnRecvLocked(r, posts);
		else
			r.state_ = RecvState::kIdle;
		guard.Release();
		(void)Post(posts);
		return false;
	}
	stats_.ius_received++;
	r.class_ = cls;
	if (ConsumesCredit(cls.kind) && !ledger_.Consume() &&
	    ledger_.violations() == 1)
		SRPT_WARNING(name_,
			     "initiator sent an IU without credit"
			     " (req_lim %d)",
			     ledger_.req_lim());
	if (PhaseOf(state_) == ChannelPhase::kClosing ||
	    PhaseOf(state_) == ChannelPhase::kReleased) {
		/* Not served: give the buffer back. */
		if (ConsumesCredit(cls.kind))
			ledger_.WriteOff();
		ReturnRecvLocked(r, posts);
		guard.Release();
		(void)Post(posts);
		return false;
	}
	if (PhaseOf(state_) == ChannelPhase::kLive && wait_.empty() &&
	    !draining_ && (!NeedsSendCtx(cls.kind) || !pool_.empty())) {
		/*
		 * Nothing waits and nobody drains: serve it now, without the
		 * wait list. No IU can arrive meanwhile (this channel's
		 * receives complete on one CQ, polled by one context at a
		 * time: the caller), so none can be overtaken, and the
		 * caller needs no drainer's role.
		 */
		SendCtx *s = NeedsSendCtx(cls.kind) ? pool_.Get() : nullptr;
		TakeLocked(r, s, h);
		h.direct = true;
		return true;
	}
	r.state_ = RecvState::kWaiting;
	if (NeedsSendCtx(cls.kind) && pool_.empty())
		stats_.ius_no_send_ctx++;
	wait_.Push(r);
	/* One drainer at a time: a running one serves this IU in its turn. */
	const bool handoff = !draining_ && NextHandoffLocked(h);
	if (r.state_ == RecvState::kWaiting) {
		stats_.ius_waited++;
		r.waited_ = true;
		if (srpt_tracing())
			srpt_trace_iu_wait(name_,
					   static_cast<uint32_t>(wait_.size()));
	}
	return handoff;
}

template <typename Env>
bool ChannelCore<Env>::HandoffDone(Handoff &h)
{
	if (h.direct) {
		/*
		 * The channel was live when the IU was taken, and this
		 * context owns the buffer: it goes back to the HCA without
		 * the lock. If the channel closed meanwhile, the receive is
		 * flushed (OnRecvDone: idle); the glue's teardown flushes
		 * the receive CQ's work before it drains the QP, so no
		 * receive is posted behind the drain's marker.
		 */
		if (!h.held) {
			h.r->state_ = RecvState::kPosted;
			PostRecvUnlocked(*h.r);
		}
		return false;
	}
	Posts posts;
	SpinLockGuard guard(lock_);
	SRPT_WARN_ON(!draining_);
	if (!h.held)
		ReturnRecvLocked(*h.r, posts);
	const bool next = NextHandoffLocked(h);
	guard.Release();
	(void)Post(posts);
	return next;
}

template <typename Env>
SendDone ChannelCore<Env>::OnSendDone(SendCtx &s, bool ok)
{
	return CompleteSend(s, ok, false);
}

template <typename Env>
SendDone ChannelCore<Env>::OnSendDoneAtomic(SendCtx &s)
{
	return CompleteSend(s, true, true);
}

template <typename Env>
SendDone ChannelCore<Env>::CompleteSend(SendCtx &s, bool ok, bool atomic)
{
	Posts posts;
	SpinLockGuard guard(lock_);
	/*
	 * Responses waiting for send-queue room are posted below; a post
	 * that fails loses its response and disconnects the channel, which
	 * sleeps. Decided before anything changes, so that the caller can
	 * hand the whole completion to process context.
	 */
	if (atomic && !deferred_.empty()) {
		stats_.send_done_deferred++;
		return SendDone::kRefused;
	}
	if (!ok)
		stats_.send_errors++;
	const CmdState prev = s.state_.state();
	SRPT_WARN_ON(prev != CmdState::kCmdRspSent &&
		     prev != CmdState::kMgmtRspSent);
	ReturnSlotsLocked(s);
	(void)s.state_.TransitionTo(CmdState::kDone);
	TakeDeferredLocked(posts);
	SendDone next = SendDone::kPutCmd;
	bool kick = false;
	if (s.release_pending_) {
		/* The target core let go already: the context is free now. */
		FreeCtxLocked(s, posts);
		kick = NeedKickLocked();
		next = SendDone::kDone;
	}
	guard.Release();
	(void)Post(posts);
	if (kick)
		env_.KickWaitList();
	return next;
}

template <typename Env>
DataOut ChannelCore<Env>::OnRdmaReadDone(SendCtx &s, bool ok)
{
	Posts posts;
	SpinLockGuard guard(lock_);
	ReturnSlotsLocked(s);
	TakeDeferredLocked(posts);
	DataOut next = DataOut::kNothing;
	bool kick = false;
	if (s.release_pending_) {
		FreeCtxLocked(s, posts);
		kick = NeedKickLocked();
	} else if (s.state_.Is(CmdState::kNeedData)) {
		(void)s.state_.TransitionTo(CmdState::kDataIn);
		next = ok ? DataOut::kExecute : DataOut::kFail;
	}
	/* else: aborted meanwhile (kDone); nothing to run. */
	if (!ok)
		stats_.send_errors++;
	guard.Release();
	(void)Post(posts);
	if (kick)
		env_.KickWaitList();
	return next;
}

/* ---- target core operations (any context) ------------------------------ */

template <typename Env>
Status ChannelCore<Env>::WritePending(SendCtx &s, uint32_t n_rdma_reads,
				      DataOut &out)
{
	out = DataOut::kNothing;
	SpinLockGuard guard(lock_);
	if (SRPT_WARN_ON(!s.state_.Is(CmdState::kNew)))
		return Status::kInvalid;
	if (!WritePendingPosts(s, n_rdma_reads)) {
		(void)s.state_.TransitionTo(CmdState::kDataIn);
		out = DataOut::kExecute;
		return Status::kOk;
	}
	if (!sq_.Fits(n_rdma_reads))
		return Status::kNoSpace;
	if (!deferred_.empty() || !sq_.TryReserve(n_rdma_reads)) {
		stats_.queue_full++;
		return kQueueFull;
	}
	s.posted_wrs_ = n_rdma_reads;
	(void)s.state_.TransitionTo(CmdState::kNeedData);
	guard.Release();
	/*
	 * After the lock: the chain's completion may run before the post
	 * returns, and finds the context in kNeedData.
	 */
	Status st = env_.PostRdmaRead(s, n_rdma_reads);
	if (IsOk(st))
		return st;
	/*
	 * Not posted, so no completion comes: the command is back where it
	 * was (kNeedData -> kNew is no move of the table: the one undo of a
	 * move that did not happen on the wire), for LIO to fail it.
	 */
	SpinLockGuard again(lock_);
	ReturnSlotsLocked(s);
	s.state_.Undo(CmdState::kNew);
	return st;
}

template <typename Env>
Status ChannelCore<Env>::QueueResponse(SendCtx &s, uint32_t n_rdma_writes,
				       QueueFullPolicy policy)
{
	SpinLockGuard guard(lock_);
	const CmdState st0 = s.state_.state();
	if (SRPT_WARN_ON(st0 != CmdState::kNew && st0 != CmdState::kDataIn &&
			 st0 != CmdState::kMgmt))
		return Status::kInvalid;
	const uint32_t need = 1 + n_rdma_writes;
	if (SRPT_WARN_ON(!sq_.Fits(need)))
		return Status::kNoSpace;
	if (!deferred_.empty() || !sq_.TryReserve(need)) {
		if (policy == QueueFullPolicy::kDefer) {
			s.rsp_n_rdma_ = n_rdma_writes;
			deferred_.Push(s);
			stats_.responses_deferred++;
			return Status::kOk;
		}
		stats_.queue_full++;
		return kQueueFull;
	}
	TakeResponseLocked(s, n_rdma_writes);
	guard.Release();
	return PostResponseUnlocked(s);
}

template <typename Env>
void ChannelCore<Env>::AbortedTask(SendCtx &s)
{
	SpinLockGuard guard(lock_);
	SRPT_WARN_ON(s.deferred_node.InContainer());
	if (IsResponsePending(s.state_.state()))
		FinishWithoutResponseLocked(s);
}

template <typename Env>
void ChannelCore<Env>::ReleaseCmd(SendCtx &s)
{
	Posts posts;
	SpinLockGuard guard(lock_);
	if (SRPT_WARN_ON(s.state_.Is(CmdState::kFree)))
		return;
	if (IsResponsePending(s.state_.state()))
		FinishWithoutResponseLocked(s);
	if (s.posted_wrs_ != 0) {
		/*
		 * No LIO path releases a command this early; the glue's spare
		 * data pages rely on that. Said once per channel, in words a
		 * test's dmesg check looks for.
		 */
		if (++stats_.released_wrs_posted == 1)
			SRPT_ERR(name_,
				 "command released with %u work requests"
				 " posted: its data pages may be reused before"
				 " they complete",
				 static_cast<unsigned>(s.posted_wrs_));
		s.release_pending_ = true;
		return;
	}
	SRPT_WARN_ON(!s.state_.Is(CmdState::kDone));
	FreeCtxLocked(s, posts);
	const bool kick = NeedKickLocked();
	guard.Release();
	(void)Post(posts); /* the receive buffer of immediate data */
	if (kick)
		env_.KickWaitList();
}

/* ---- observation ------------------------------------------------------- */

template <typename Env>
ChannelStats ChannelCore<Env>::Stats()
{
	SpinLockGuard guard(lock_);
	ChannelStats st = stats_;
	st.state = state_;
	st.phase = PhaseOf(state_);
	st.req_lim = ledger_.req_lim();
	st.in_flight = ledger_.in_flight();
	st.owed = ledger_.owed();
	st.granted_total = ledger_.granted_total();
	st.consumed_total = ledger_.consumed_total();
	st.credit_violations = ledger_.violations();
	st.send_ctx_total = pool_.total();
	st.send_ctx_free = pool_.free_count();
	st.sq_capacity = sq_.capacity();
	st.sq_avail = sq_.avail();
	st.wait_depth = static_cast<uint32_t>(wait_.size());
	st.wait_max_depth = static_cast<uint32_t>(wait_.max_depth());
	st.deferred_responses = static_cast<uint32_t>(deferred_.size());
	st.drain_running = draining_;
	st.kick_pending = kick_pending_;
	return st;
}

template <typename Env>
const char *ChannelCore<Env>::CheckInvariants()
{
	SpinLockGuard guard(lock_);
	if (!ledger_.Conserved())
		return "credits not conserved";
	if (draining_)
		return "drainer left running";
	if (PhaseOf(state_) == ChannelPhase::kLive && !wait_.empty() &&
	    !kick_pending_ &&
	    (!NeedsSendCtx(wait_.Front()->class_.kind) || !pool_.empty()))
		return "IU stranded on the wait list";
	uint32_t wrs = 0, busy = 0;
	for (uint32_t i = 0; i < send_ring_.size(); i++) {
		SendCtx &s = send_ring_[i];
		wrs += s.posted_wrs_;
		if (!s.state_.Is(CmdState::kFree))
			busy++;
		if (s.state_.Is(CmdState::kFree) &&
		    (s.recv_ || s.posted_wrs_ || s.holds_credit_))
			return "free send context holds resources";
	}
	if (wrs != sq_.in_use())
		return "send-queue budget does not match posted WRs";
	if (busy != pool_.in_use())
		return "send-context pool does not match states";
	return nullptr;
}

} // namespace srpt

#endif
