/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The data path of one SRP channel, without the kernel: receive contexts,
 * send contexts, credits, send-queue budget, command states, the wait list,
 * and the logic of every completion. See docs/protocol-core-credits.md.
 *
 * The environment (the kernel glue, or a fake in the host tests) plugs in
 * as a template parameter satisfying ChannelEnv (channel_types.hpp, with
 * the other types of this interface): every hook is a direct, inlinable
 * call, resolved at compile time (no virtual call, no function pointer on
 * the per-I/O path).
 *
 * The channel's state (ChannelState, channel_state.hpp) lives here, under
 * the same lock as the rest of the data path: there is one state, and what
 * the data path needs of it (serve, wait, give back) is PhaseOf(state).
 * Every move is TransitionTo() (or the internal moves of a flushed drain
 * marker and of Release()), and the environment hears of each one
 * (StateChanged) under the lock, in order.
 *
 * Concurrency. One spinlock (IRQ-safe) protects everything in here. The
 * entry points are called from:
 *   - the channel's CQ context (one at a time per channel): OnRecvDone,
 *     OnSendDone, OnRdmaReadDone, OnZeroLengthWriteDone; with the test
 *     knob test_send_done_delay_us, OnSendDone of a successful SEND runs
 *     later from a work item (SendDoneHold), concurrently with the CQ
 *     context: every entry point takes the lock and any context may be
 *     the drainer, so this changes only the timing;
 *   - the target core, any context: WritePending, QueueResponse,
 *     AbortedTask, ReleaseCmd;
 *   - the connection manager, process context: TransitionTo (OnRtu,
 *     Disconnect), Release; also the CQ context (a failed completion
 *     disconnects) and the target core (a lost response disconnects);
 *   - the kick work item, process context: ProcessWaitList.
 * Hooks named Post*, and StateChanged, are called with the lock held (IRQs
 * off): they post work requests or record a move, and must neither sleep
 * nor call back into the core. All other hooks are called without the
 * lock, from CQ or work-item context (they may sleep), and may call back
 * into the core.
 *
 * The wait list is served by one context at a time (the "drainer"), in
 * FIFO order, dropping the lock around each hand-off to the target core.
 * Whoever frees a send context while IUs wait makes sure a drainer runs:
 * the CQ context drains inline; any other context (the target core's last
 * reference drop) kicks the work item. Under the lock a free context and a
 * waiting IU never coexist without a drainer running or a kick pending.
 */
#ifndef SRPT_CORE_CHANNEL_CORE_HPP
#define SRPT_CORE_CHANNEL_CORE_HPP

#include <srpt/alloc.hpp>
#include <srpt/core/channel_state.hpp>
#include <srpt/core/channel_types.hpp>
#include <srpt/core/cmd_state.hpp>
#include <srpt/core/credits.hpp>
#include <srpt/core/ioctx_ring.hpp>
#include <srpt/core/send_ctx_pool.hpp>
#include <srpt/core/wait_list.hpp>
#include <srpt/lock.hpp>
#include <srpt/log.hpp>
#include <srpt/status.hpp>
#include <srpt/trace.h>
#include <stddef.h>
#include <stdint.h>
#include <utility>

namespace srpt
{

template <typename Env>
class ChannelCore
{
	static_assert(ChannelEnv<Env>, "Env does not provide the hooks");

public:
	template <typename... Args>
	explicit ChannelCore(Args &&...env_args)
	    : env_(std::forward<Args>(env_args)...), lock_(LockClass::kChannel)
	{
	}
	~ChannelCore()
	{
		SRPT_WARN_ON(!send_ring_.empty());
		SRPT_WARN_ON(!own_recv_ring_.empty());
	}
	ChannelCore(const ChannelCore &) = delete;
	ChannelCore &operator=(const ChannelCore &) = delete;

	Env &env() { return env_; }

	/* ---- setup and teardown (process context) ---------------------- */

	/*
	 * Allocates the send ring (and, without an SRQ, the receive ring of
	 * @cfg.credits contexts). All or nothing.
	 */
	Status Init(const ChannelConfig &cfg, Gfp gfp)
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
				align = {cfg.imm_data_offset,
					 kImmDataAlignment};
			st = own_recv_ring_.Init(cfg.credits, cfg.req_buf_size,
						 gfp, align);
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
				    cfg.state_observer,
				    cfg.state_observer_cookie);
		}
		SpinLockGuard guard(lock_);
		pool_.Init(send_ring_, cfg.send_ctx_limit);
		ledger_.Grant(static_cast<int32_t>(cfg.credits));
		sq_.Init(cfg.sq_size - kZlwSlots);
		state_ = ChannelState::kConnecting;
		return Status::kOk;
	}

	/*
	 * The REQ_LIM of LOGIN_RSP. Not analysed: the ledger is guarded, but
	 * its initial() is written once by Init() (under the lock, before the
	 * channel is shared) and never again, so the login path reads it
	 * without the lock.
	 */
	int32_t login_credits() const SRPT_NO_THREAD_SAFETY_ANALYSIS
	{
		return ledger_.initial();
	}

	/*
	 * Without an SRQ: posts every receive context of the channel's ring
	 * (before the QP leaves INIT). Returns the first failure.
	 */
	Status PostInitialReceives()
	{
		if (use_srq_)
			return Status::kOk;
		SpinLockGuard guard(lock_);
		for (uint32_t i = 0; i < recv_ring_->size(); i++) {
			RecvCtx &r = (*recv_ring_)[i];
			if (r.state_ != RecvState::kIdle)
				continue;
			Status st = env_.PostRecv(r);
			if (!IsOk(st)) {
				stats_.post_recv_failures++;
				return st;
			}
			r.state_ = RecvState::kPosted;
		}
		return Status::kOk;
	}

	/* ---- channel state --------------------------------------------- */

	/*
	 * Moves the channel to @next if kChannelTransitions allows it, and
	 * returns the previous state in any case: the move happened iff
	 * IsLegalTransition(previous, @next). A refused move is no error (late
	 * or duplicate CM events) and changes nothing. Moving to kLive serves
	 * the IUs that arrived while connecting (from the kick work item);
	 * leaving kLive stops serving IUs at once, in the same move. kReleased
	 * is Release()'s alone. Any context.
	 */
	ChannelState TransitionTo(ChannelState next)
	{
		SpinLockGuard guard(lock_);
		if (SRPT_WARN_ON(next == ChannelState::kReleased))
			return state_;
		const ChannelState previous = TransitionToLocked(next);
		const bool kick = next == ChannelState::kLive &&
				  IsLegalTransition(previous, next) &&
				  NeedKickLocked();
		guard.Release();
		if (kick)
			env_.KickWaitList();
		return previous;
	}

	/* Any context. */
	ChannelState state()
	{
		SpinLockGuard guard(lock_);
		return state_;
	}

	/* The RTU: kConnecting -> kLive. False if the move was refused. */
	bool OnRtu()
	{
		return IsLegalTransition(TransitionTo(ChannelState::kLive),
					 ChannelState::kLive);
	}

	/*
	 * Stops serving IUs: kConnecting or kLive -> kDisconnecting. True for
	 * the caller that moved the channel (it then moves the QP to the error
	 * state and calls PostDrainWrite(), or lets the CM do it).
	 */
	bool Disconnect()
	{
		return IsLegalTransition(
		    TransitionTo(ChannelState::kDisconnecting),
		    ChannelState::kDisconnecting);
	}

	/*
	 * Posts the zero-length write whose flushed completion tells that
	 * every WR posted before it has completed. Uses the reserved slot.
	 * On failure the caller schedules the release itself
	 * (TransitionTo(kReleasing)).
	 */
	Status PostDrainWrite()
	{
		SpinLockGuard guard(lock_);
		if (zlw_outstanding_)
			return Status::kBusy;
		Status st = env_.PostZeroLengthWrite();
		if (IsOk(st))
			zlw_outstanding_ = true;
		return st;
	}

	/*
	 * CQ context. Flushed: every WR posted before it has completed, the
	 * channel moves to kReleasing (through kDraining if it was not there
	 * yet), and the one call that made that move returns kReleaseChannel.
	 */
	ZlwOutcome OnZeroLengthWriteDone(bool ok)
	{
		SpinLockGuard guard(lock_);
		SRPT_WARN_ON(!zlw_outstanding_);
		zlw_outstanding_ = false;
		if (ok) {
			/* QP still usable: serve whatever waits. */
			pending_drainers_++;
			guard.Release();
			DrainFromCompletion();
			return ZlwOutcome::kNothing;
		}
		bool moved = false;
		while (state_ != ChannelState::kReleasing &&
		       state_ != ChannelState::kReleased) {
			const ChannelState next = NextTowardRelease(state_);
			(void)TransitionToLocked(next);
			moved = next == ChannelState::kReleasing;
		}
		return moved ? ZlwOutcome::kReleaseChannel
			     : ZlwOutcome::kNothing;
	}

	/* The kick work item. Process context. */
	void ProcessWaitList()
	{
		SpinLockGuard guard(lock_);
		kick_pending_ = false;
		DrainLocked(guard);
	}

	/*
	 * Channel release, process context, after the QP is destroyed (no
	 * completion will arrive any more), the kick work is cancelled and
	 * the target core released every command. Returns the receive
	 * contexts still waiting (to an SRQ: reposted; own ring: idle) and
	 * checks that every send context is back. Returns the number of
	 * send contexts not returned (0 when all is well). Ends in kReleased:
	 * from kReleasing (the release work), or through the legal moves on
	 * the way there (a channel never published, the host tests).
	 */
	uint32_t Release()
	{
		SpinLockGuard guard(lock_);
		while (state_ != ChannelState::kReleased)
			(void)TransitionToLocked(NextTowardRelease(state_));
		while (RecvCtx *r = wait_.Pop()) {
			r->waited_ = false;
			r->state_ = RecvState::kHandling;
			ReturnRecvLocked(*r);
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
		return leaked;
	}

	/* Frees the rings (after Release()). */
	void Destroy()
	{
		send_ring_.Destroy();
		own_recv_ring_.Destroy();
		recv_ring_ = nullptr;
	}

	/* ---- completions (CQ context) ---------------------------------- */

	/*
	 * A receive completed. @ok false: flushed or failed (the context goes
	 * back to the SRQ, or idle without one).
	 */
	void OnRecvDone(RecvCtx &r, uint32_t byte_len, bool ok)
	{
		IuClass cls;
		if (ok) {
			r.byte_len_ =
			    byte_len <= r.buf_size() ? byte_len : r.buf_size();
			cls = env_.ClassifyIu(r);
		}
		SpinLockGuard guard(lock_);
		SRPT_WARN_ON(r.state_ != RecvState::kPosted);
		r.state_ = RecvState::kHandling;
		if (!ok) {
			stats_.recv_errors++;
			if (use_srq_ &&
			    PhaseOf(state_) != ChannelPhase::kReleased)
				RepostLocked(r);
			else
				r.state_ = RecvState::kIdle;
			return;
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
			ReturnRecvLocked(r);
			return;
		}
		r.state_ = RecvState::kWaiting;
		if (NeedsSendCtx(cls.kind) && pool_.empty())
			stats_.ius_no_send_ctx++;
		wait_.Push(r);
		DrainLocked(guard);
		if (r.state_ == RecvState::kWaiting) {
			stats_.ius_waited++;
			r.waited_ = true;
			if (srpt_tracing())
				srpt_trace_iu_wait(
				    name_, static_cast<uint32_t>(wait_.size()));
		}
	}

	/* The SEND of a response completed (@ok false: flushed/failed). */
	void OnSendDone(SendCtx &s, bool ok)
	{
		SpinLockGuard guard(lock_);
		if (!ok)
			stats_.send_errors++;
		const CmdState prev = s.state_.state();
		SRPT_WARN_ON(prev != CmdState::kCmdRspSent &&
			     prev != CmdState::kMgmtRspSent);
		ReturnSlotsLocked(s);
		(void)s.state_.TransitionTo(CmdState::kDone);
		PostDeferredLocked();
		const bool already_released = s.release_pending_;
		if (already_released)
			FreeCtxLocked(s);
		/*
		 * A drain follows in this context: a context freed meanwhile
		 * (by PutCmd below, or by any other path) needs no kick.
		 */
		pending_drainers_++;
		guard.Release();
		FinishFailedDeferred();
		if (!already_released)
			env_.PutCmd(s);
		DrainFromCompletion();
	}

	/* The RDMA READ chain of a write command completed. */
	void OnRdmaReadDone(SendCtx &s, bool ok)
	{
		SpinLockGuard guard(lock_);
		ReturnSlotsLocked(s);
		PostDeferredLocked();
		bool execute = false, fail = false, freed = false;
		if (s.release_pending_) {
			FreeCtxLocked(s);
			freed = true;
		} else if (s.state_.Is(CmdState::kNeedData)) {
			(void)s.state_.TransitionTo(CmdState::kDataIn);
			execute = ok;
			fail = !ok;
		}
		/* else: aborted meanwhile (kDone); nothing to run. */
		if (!ok)
			stats_.send_errors++;
		if (freed)
			pending_drainers_++;
		guard.Release();
		FinishFailedDeferred();
		if (execute)
			env_.ExecuteCmd(s);
		if (fail)
			env_.FailCmd(s);
		if (freed)
			DrainFromCompletion();
	}

	/* ---- target core operations (any context) ---------------------- */

	/*
	 * write_pending: fetch the data-out. With immediate data the data is
	 * in the receive buffer and the command executes at once. Returns
	 * kQueueFull when the send queue has no room for @n_rdma_reads WRs.
	 */
	Status WritePending(SendCtx &s, uint32_t n_rdma_reads)
	{
		SpinLockGuard guard(lock_);
		if (SRPT_WARN_ON(!s.state_.Is(CmdState::kNew)))
			return Status::kInvalid;
		if (s.recv_ || n_rdma_reads == 0) {
			(void)s.state_.TransitionTo(CmdState::kDataIn);
			guard.Release();
			env_.ExecuteCmd(s);
			return Status::kOk;
		}
		if (!sq_.Fits(n_rdma_reads))
			return Status::kNoSpace;
		if (!deferred_.empty() || !sq_.TryReserve(n_rdma_reads)) {
			stats_.queue_full++;
			return kQueueFull;
		}
		Status st = env_.PostRdmaRead(s, n_rdma_reads);
		if (!IsOk(st)) {
			sq_.Return(n_rdma_reads);
			return st;
		}
		s.posted_wrs_ = n_rdma_reads;
		(void)s.state_.TransitionTo(CmdState::kNeedData);
		return Status::kOk;
	}

	/*
	 * queue_data_in / queue_status / queue_tm_rsp: the response is built
	 * in s.buf() (all but REQ_LIM_DELTA, which the PostResponse hook
	 * fills in). Takes 1 + @n_rdma_writes send-queue slots. When they are
	 * not there: kQueueFull (kReturnQueueFull) or kept for later (kDefer);
	 * in neither case are credits or the response lost.
	 */
	Status QueueResponse(SendCtx &s, uint32_t n_rdma_writes,
			     QueueFullPolicy policy)
	{
		SpinLockGuard guard(lock_);
		const CmdState st0 = s.state_.state();
		if (SRPT_WARN_ON(st0 != CmdState::kNew &&
				 st0 != CmdState::kDataIn &&
				 st0 != CmdState::kMgmt))
			return Status::kInvalid;
		const uint32_t need = 1 + n_rdma_writes;
		if (SRPT_WARN_ON(!sq_.Fits(need)))
			return Status::kNoSpace;
		if (!deferred_.empty() || !sq_.TryReserve(need)) {
			if (policy == QueueFullPolicy::kDefer) {
				s.deferred_n_rdma_ = n_rdma_writes;
				deferred_.Push(s);
				stats_.responses_deferred++;
				return Status::kOk;
			}
			stats_.queue_full++;
			return kQueueFull;
		}
		Status st = PostResponseLocked(s, n_rdma_writes);
		if (IsOk(st) || policy == QueueFullPolicy::kReturnQueueFull)
			return st;
		/* kDefer and the post failed: nobody can retry it. */
		stats_.responses_lost++;
		FinishWithoutResponseLocked(s);
		guard.Release();
		env_.PutCmd(s);
		env_.ResponseLost();
		return st;
	}

	/*
	 * The caller gives up on a response whose post failed under
	 * kReturnQueueFull: as AbortedTask, counted as lost. The caller drops
	 * the fabric's reference and disconnects.
	 */
	void DropResponse(SendCtx &s)
	{
		SpinLockGuard guard(lock_);
		stats_.responses_lost++;
		if (IsResponsePending(s.state_.state()))
			FinishWithoutResponseLocked(s);
	}

	/*
	 * aborted_task: no response will be sent for @s. Its credit goes to
	 * the next response.
	 */
	void AbortedTask(SendCtx &s)
	{
		SpinLockGuard guard(lock_);
		SRPT_WARN_ON(s.deferred_node.InContainer());
		if (IsResponsePending(s.state_.state()))
			FinishWithoutResponseLocked(s);
	}

	/*
	 * release_cmd: the target core dropped its last reference. The
	 * context returns to the pool now, or when the last WR posted for it
	 * completes; either way the wait list is re-run.
	 */
	void ReleaseCmd(SendCtx &s)
	{
		SpinLockGuard guard(lock_);
		if (SRPT_WARN_ON(s.state_.Is(CmdState::kFree)))
			return;
		if (IsResponsePending(s.state_.state()))
			FinishWithoutResponseLocked(s);
		if (s.posted_wrs_ != 0) {
			s.release_pending_ = true;
			return;
		}
		SRPT_WARN_ON(!s.state_.Is(CmdState::kDone));
		FreeCtxLocked(s);
		const bool kick = NeedKickLocked();
		guard.Release();
		if (kick)
			env_.KickWaitList();
	}

	/* ---- observation ----------------------------------------------- */

	ChannelStats Stats()
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

	/*
	 * The invariants that must hold whenever no entry point is running.
	 * Returns nullptr, or a description of the first broken one.
	 */
	const char *CheckInvariants()
	{
		SpinLockGuard guard(lock_);
		if (!ledger_.Conserved())
			return "credits not conserved";
		if (draining_ || pending_drainers_ != 0)
			return "drainer left running";
		if (PhaseOf(state_) == ChannelPhase::kLive && !wait_.empty() &&
		    !kick_pending_ &&
		    (!NeedsSendCtx(wait_.Front()->class_.kind) ||
		     !pool_.empty()))
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

	SendRing &send_ring() { return send_ring_; }
	RecvRing *recv_ring() { return recv_ring_; }
	bool use_srq() const { return use_srq_; }

private:
	static constexpr uint32_t kZlwSlots = 1;

	/* The one place the state changes. Returns the previous state. */
	ChannelState TransitionToLocked(ChannelState next) SRPT_REQUIRES(lock_)
	{
		lock_.AssertHeld();
		const ChannelState previous = state_;
		if (!IsLegalTransition(previous, next))
			return previous;
		state_ = next;
		env_.StateChanged(previous, next);
		return previous;
	}

	/*
	 * Serves the wait list until it is empty, the channel is not live or
	 * the head needs a send context and none is free. One drainer at a
	 * time; the lock is dropped around each hand-off.
	 */
	void DrainLocked(SpinLockGuard &guard) SRPT_REQUIRES(lock_)
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
				(void)s->state_.TransitionTo(
				    kind == IuKind::kCmd ? CmdState::kNew
							 : CmdState::kMgmt);
				s->holds_credit_ = true;
			}
			(void)wait_.Pop();
			if (r->waited_) {
				r->waited_ = false;
				if (srpt_tracing())
					srpt_trace_iu_resume(
					    name_, static_cast<uint32_t>(
						       wait_.size()));
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

	void Dispatch(RecvCtx &r, SendCtx *s, IuKind kind)
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

	/* After a completion that promised a drain (pending_drainers_++). */
	void DrainFromCompletion()
	{
		SpinLockGuard guard(lock_);
		SRPT_WARN_ON(pending_drainers_ == 0);
		pending_drainers_--;
		DrainLocked(guard);
	}

	/*
	 * Someone must run the wait list, and nobody will: the caller kicks
	 * the work item after dropping the lock.
	 */
	bool NeedKickLocked() SRPT_REQUIRES(lock_)
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

	/* A receive context we are done with goes back where it belongs. */
	void ReturnRecvLocked(RecvCtx &r) SRPT_REQUIRES(lock_)
	{
		lock_.AssertHeld();
		if (use_srq_ || PhaseOf(state_) == ChannelPhase::kConnecting ||
		    PhaseOf(state_) == ChannelPhase::kLive)
			RepostLocked(r);
		else
			r.state_ = RecvState::kIdle; /* own ring, QP closing */
	}

	void RepostLocked(RecvCtx &r) SRPT_REQUIRES(lock_)
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

	void ReturnSlotsLocked(SendCtx &s) SRPT_REQUIRES(lock_)
	{
		lock_.AssertHeld();
		SRPT_WARN_ON(s.posted_wrs_ == 0);
		sq_.Return(s.posted_wrs_);
		s.posted_wrs_ = 0;
	}

	Status PostResponseLocked(SendCtx &s, uint32_t n_rdma_writes)
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

	/* Posts deferred responses, in order, while there is room. */
	void PostDeferredLocked() SRPT_REQUIRES(lock_)
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

	/*
	 * PutCmd for deferred responses that could not be posted, then one
	 * ResponseLost for them all.
	 */
	void FinishFailedDeferred()
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

	/* The command ends without a response: its credit is owed. */
	void FinishWithoutResponseLocked(SendCtx &s) SRPT_REQUIRES(lock_)
	{
		lock_.AssertHeld();
		if (s.holds_credit_) {
			ledger_.WriteOff();
			s.holds_credit_ = false;
		}
		if (!s.state_.Is(CmdState::kDone))
			(void)s.state_.TransitionTo(CmdState::kDone);
	}

	void FreeCtxLocked(SendCtx &s) SRPT_REQUIRES(lock_)
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

	Env env_;
	SpinLock lock_;
	/*
	 * Set by Init() before the channel is shared, then only read (the
	 * contexts of the rings carry their own state, under lock_).
	 */
	SendRing send_ring_;
	RecvRing own_recv_ring_;
	RecvRing *recv_ring_ = nullptr;
	const char *name_ = nullptr;
	bool use_srq_ = false;
	/* Everything below is protected by lock_. */
	ChannelState state_ SRPT_GUARDED_BY(lock_) = ChannelState::kConnecting;
	SendCtxPool pool_ SRPT_GUARDED_BY(lock_);
	CreditLedger ledger_ SRPT_GUARDED_BY(lock_);
	SqBudget sq_ SRPT_GUARDED_BY(lock_);
	WaitList<RecvCtx, &RecvCtx::wait_node> wait_ SRPT_GUARDED_BY(lock_);
	WaitList<SendCtx, &SendCtx::deferred_node>
	    deferred_ SRPT_GUARDED_BY(lock_);
	WaitList<SendCtx, &SendCtx::deferred_node>
	    failed_deferred_ SRPT_GUARDED_BY(lock_);
	ChannelStats stats_ SRPT_GUARDED_BY(lock_){};
	uint32_t pending_drainers_ SRPT_GUARDED_BY(lock_) = 0;
	bool draining_ SRPT_GUARDED_BY(lock_) = false;
	bool kick_pending_ SRPT_GUARDED_BY(lock_) = false;
	bool zlw_outstanding_ SRPT_GUARDED_BY(lock_) = false;
};

} // namespace srpt

#endif
