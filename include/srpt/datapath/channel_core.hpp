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
 *   - the receive CQ's poll work: OnRecvDone;
 *   - the send CQ's softirq poller: OnSendDoneAtomic, concurrently with
 *     the receive side (the kernel polls the two CQs apart);
 *   - process context for the send side's completions that may sleep
 *     (the glue's work item, in the order the send CQ delivered them):
 *     OnSendDone (failed, or refused by OnSendDoneAtomic),
 *     OnRdmaReadDone, OnZeroLengthWriteDone; with the test knob
 *     test_send_done_delay_us, OnSendDone of a successful SEND runs later
 *     from a work item (SendDoneHold). Every entry point takes the lock
 *     and any context may be the drainer, so who runs what changes only
 *     the timing;
 *   - the target core, any context: WritePending, QueueResponse,
 *     AbortedTask, ReleaseCmd;
 *   - the connection manager, process context: TransitionTo (OnRtu,
 *     Disconnect), Release; also the CQ context (a failed completion
 *     disconnects) and the target core (a lost response disconnects);
 *   - the kick work item, process context: ProcessWaitList.
 * Hooks named Post*, and StateChanged, are called with the lock held (IRQs
 * off): they post work requests or record a move, and must neither sleep
 * nor call back into the core. All other hooks are called without the
 * lock, from CQ or work-item context, and may call back into the core;
 * they may sleep, but for PutCmd and KickWaitList, which OnSendDoneAtomic
 * calls in softirq.
 *
 * The wait list is served by one context at a time (the "drainer"), in
 * FIFO order, dropping the lock around each hand-off to the target core.
 * Whoever frees a send context while IUs wait makes sure a drainer runs:
 * a completion in process context drains inline; any other context (the
 * softirq send completion, the target core's last reference drop) kicks
 * the work item. Under the lock a free context and a waiting IU never
 * coexist without a drainer running or a kick pending.
 * The usual last reference is the one the send completion drops itself
 * (PutCmd): a ReleaseCmd while that call runs, whatever its context, leaves
 * the context to OnSendDone, which frees it and serves the wait list in
 * one lock hold (the put window, SendCtx::put_window_): a send completion
 * takes two lock round trips instead of three.
 *
 * This file is the interface. The member functions are defined in
 * channel_core_impl.hpp (the public ones) and channel_core_helpers.hpp
 * (the private ones), which it includes at its end.
 */
#ifndef SRPT_DATAPATH_CHANNEL_CORE_HPP
#define SRPT_DATAPATH_CHANNEL_CORE_HPP

#include <srpt/alloc.hpp>
#include <srpt/datapath/channel_state.hpp>
#include <srpt/datapath/channel_types.hpp>
#include <srpt/datapath/cmd_state.hpp>
#include <srpt/datapath/credits.hpp>
#include <srpt/datapath/ioctx_ring.hpp>
#include <srpt/datapath/send_ctx_pool.hpp>
#include <srpt/datapath/wait_list.hpp>
#include <srpt/lock.hpp>
#include <srpt/log.hpp>
#include <srpt/status.hpp>
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
	Status Init(const ChannelConfig &cfg, Gfp gfp);

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
	Status PostInitialReceives();

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
	ChannelState TransitionTo(ChannelState next);

	/* Any context. */
	ChannelState state();

	/* The RTU: kConnecting -> kLive. False if the move was refused. */
	bool OnRtu();

	/*
	 * Stops serving IUs: kConnecting or kLive -> kDisconnecting. True for
	 * the caller that moved the channel (it then moves the QP to the error
	 * state and calls PostDrainWrite(), or lets the CM do it).
	 */
	bool Disconnect();

	/*
	 * Posts the zero-length write whose flushed completion tells that
	 * every WR posted before it has completed. Uses the reserved slot.
	 * On failure the caller schedules the release itself
	 * (TransitionTo(kReleasing)).
	 */
	Status PostDrainWrite();

	/*
	 * CQ context. Flushed: every WR posted before it has completed, the
	 * channel moves to kReleasing (through kDraining if it was not there
	 * yet), and the one call that made that move returns kReleaseChannel.
	 */
	ZlwOutcome OnZeroLengthWriteDone(bool ok);

	/* The kick work item. Process context. */
	void ProcessWaitList();

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
	uint32_t Release();

	/* Frees the rings (after Release()). */
	void Destroy();

	/* ---- completions (CQ context) ---------------------------------- */

	/*
	 * A receive completed. @ok false: flushed or failed (the context goes
	 * back to the SRQ, or idle without one).
	 */
	void OnRecvDone(RecvCtx &r, uint32_t byte_len, bool ok);

	/*
	 * The SEND of a response completed (@ok false: flushed/failed).
	 * Returns the context's slots, hands the fabric's reference back
	 * (PutCmd, without the lock) and serves the wait list.
	 */
	void OnSendDone(SendCtx &s, bool ok);

	/*
	 * The SEND of a response completed successfully, in a context that
	 * must not sleep (the send CQ's softirq poller): as OnSendDone(@s,
	 * true), except that a wait list that can move is served by the kick
	 * work item instead of inline (the target core's submission sleeps).
	 * Returns false, having changed nothing, when responses wait for
	 * send-queue room: posting one may fail, and a lost response
	 * disconnects the channel, which sleeps. The caller then calls
	 * OnSendDone from process context.
	 */
	bool OnSendDoneAtomic(SendCtx &s);

	/* The RDMA READ chain of a write command completed. */
	void OnRdmaReadDone(SendCtx &s, bool ok);

	/* ---- target core operations (any context) ---------------------- */

	/*
	 * write_pending: fetch the data-out. With immediate data the data is
	 * in the receive buffer and the command executes at once. Returns
	 * kQueueFull when the send queue has no room for @n_rdma_reads WRs.
	 */
	Status WritePending(SendCtx &s, uint32_t n_rdma_reads);

	/*
	 * Whether WritePending(@s, @n_rdma_reads) posts RDMA READs (true) or
	 * executes the command at once (its data came with it, or it has
	 * none). Needs no lock: a command's receive buffer is bound before
	 * the target core has the command and freed after its release.
	 */
	static bool WritePendingPosts(const SendCtx &s, uint32_t n_rdma_reads)
	{
		return s.recv() == nullptr && n_rdma_reads != 0;
	}

	/*
	 * queue_data_in / queue_status / queue_tm_rsp: the response is built
	 * in s.buf() (all but REQ_LIM_DELTA, which the PostResponse hook
	 * fills in). Takes 1 + @n_rdma_writes send-queue slots. When they are
	 * not there: kQueueFull (kReturnQueueFull) or kept for later (kDefer);
	 * in neither case are credits or the response lost.
	 */
	Status QueueResponse(SendCtx &s, uint32_t n_rdma_writes,
			     QueueFullPolicy policy);

	/*
	 * The caller gives up on a response whose post failed under
	 * kReturnQueueFull: as AbortedTask, counted as lost. The caller drops
	 * the fabric's reference and disconnects.
	 */
	void DropResponse(SendCtx &s);

	/*
	 * aborted_task: no response will be sent for @s. Its credit goes to
	 * the next response.
	 */
	void AbortedTask(SendCtx &s);

	/*
	 * release_cmd: the target core dropped its last reference. The
	 * context returns to the pool now, or when the last WR posted for it
	 * completes; either way the wait list is re-run.
	 */
	void ReleaseCmd(SendCtx &s);

	/* ---- observation ----------------------------------------------- */

	ChannelStats Stats();

	/*
	 * The invariants that must hold whenever no entry point is running.
	 * Returns nullptr, or a description of the first broken one.
	 */
	const char *CheckInvariants();

	SendRing &send_ring() { return send_ring_; }
	RecvRing *recv_ring() { return recv_ring_; }
	bool use_srq() const { return use_srq_; }

private:
	static constexpr uint32_t kZlwSlots = 1;

	/* The one place the state changes. Returns the previous state. */
	ChannelState TransitionToLocked(ChannelState next) SRPT_REQUIRES(lock_);

	/*
	 * Serves the wait list until it is empty, the channel is not live or
	 * the head needs a send context and none is free. One drainer at a
	 * time; the lock is dropped around each hand-off.
	 */
	void DrainLocked(SpinLockGuard &guard) SRPT_REQUIRES(lock_);

	void Dispatch(RecvCtx &r, SendCtx *s, IuKind kind);

	/* Where a send completion runs: whether it may serve the wait list. */
	enum class CompletionContext { kMaySleep, kAtomic };

	/* OnSendDone and OnSendDoneAtomic: false only as the latter says. */
	bool CompleteSend(SendCtx &s, bool ok, CompletionContext ctx);

	/*
	 * The end of a completion, in one lock hold: frees @freed (a send
	 * completion's context released in the put window, or nullptr) and
	 * serves the wait list. @promised: the completion promised this
	 * drain (pending_drainers_++) before dropping the lock.
	 */
	void FinishCompletion(SendCtx *freed, bool promised);

	/* The put window (SendCtx::put_window_). No lock. */
	static void OpenPutWindow(SendCtx &s);
	/*
	 * Closes the window; true if it was still open, i.e. this caller
	 * took it: ReleaseCmd then leaves the context to OnSendDone, and
	 * OnSendDone, when it finds it taken, frees the context itself.
	 */
	static bool TakePutWindow(SendCtx &s);

	/*
	 * Someone must run the wait list, and nobody will: the caller kicks
	 * the work item after dropping the lock.
	 */
	bool NeedKickLocked() SRPT_REQUIRES(lock_);

	/* A receive context we are done with goes back where it belongs. */
	void ReturnRecvLocked(RecvCtx &r) SRPT_REQUIRES(lock_);

	void RepostLocked(RecvCtx &r) SRPT_REQUIRES(lock_);

	void ReturnSlotsLocked(SendCtx &s) SRPT_REQUIRES(lock_);

	Status PostResponseLocked(SendCtx &s, uint32_t n_rdma_writes)
	    SRPT_REQUIRES(lock_);

	/* Posts deferred responses, in order, while there is room. */
	void PostDeferredLocked() SRPT_REQUIRES(lock_);

	/*
	 * PutCmd for deferred responses that could not be posted, then one
	 * ResponseLost for them all. Its callers test failed_deferred_ under
	 * their own hold of lock_ and call it only when it is not empty: a
	 * context pushed after their release is finished by its pusher, which
	 * calls this after its own release (PostDeferredLocked's callers).
	 * That saves a lock round trip per send and RDMA READ completion.
	 */
	void FinishFailedDeferred();

	/* The command ends without a response: its credit is owed. */
	void FinishWithoutResponseLocked(SendCtx &s) SRPT_REQUIRES(lock_);

	void FreeCtxLocked(SendCtx &s) SRPT_REQUIRES(lock_);

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

/* The member functions' definitions. */
#include <srpt/datapath/channel_core_helpers.hpp>
#include <srpt/datapath/channel_core_impl.hpp>

#endif
