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
 *   - the receive CQ's poll work: OnRecvDone, HandoffDone;
 *   - the send CQ's softirq poller: OnSendDoneAtomic, concurrently with
 *     the receive side (the kernel polls the two CQs apart);
 *   - process context for the send side's completions that may sleep
 *     (the glue's work item, in the order the send CQ delivered them):
 *     OnSendDone (failed, or refused by OnSendDoneAtomic),
 *     OnRdmaReadDone, OnZeroLengthWriteDone;
 *   - the target core, any context: WritePending, QueueResponse,
 *     AbortedTask, ReleaseCmd;
 *   - the connection manager, process context: TransitionTo (OnRtu,
 *     Disconnect), Release; also the CQ context (a failed completion
 *     disconnects) and the target core (a lost response disconnects);
 *   - the kick work item, process context: ProcessWaitList, HandoffDone.
 *
 * Every entry point takes the lock once on a command's usual path, decides,
 * drops it, and only then posts what it decided (Post* hooks: ib_post_send,
 * ib_post_recv) and returns. No entry point calls the target core: what the
 * target core must do next is returned to the caller (the glue), which
 * makes that call after the core has returned, so that the target core's
 * callbacks (a synchronous queue_data_in, release_cmd) enter the core from
 * the glue, never from inside it:
 *   - a received IU to hand off (submit a command or a task-management
 *     request) is a Handoff, returned by OnRecvDone/ProcessWaitList; the
 *     caller gives it back with HandoffDone, which returns the next one;
 *   - a send completion returns SendDone::kPutCmd: the caller drops the
 *     fabric's reference, and the target core's last reference comes back
 *     as ReleaseCmd, the one place a send context returns to the pool;
 *   - a data-out that is there returns DataOut::kExecute (WritePending,
 *     OnRdmaReadDone): the caller executes the command.
 * The one exception is an error path: a deferred response whose post
 * failed (nobody can retry it) drops the fabric's reference through the
 * PutCmd hook, with no lock held.
 *
 * The wait list is served by one context at a time (the "drainer"), in
 * FIFO order, one Handoff at a time. Whoever frees a send context while
 * IUs wait and no drainer runs kicks the work item (NeedKickLocked). Under
 * the lock a free context and a waiting IU never coexist without a drainer
 * running or a kick pending.
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

/*
 * A received IU that the caller hands to the target core, or answers
 * itself, with no lock held; then it gives it back to HandoffDone().
 */
struct Handoff {
	RecvCtx *r = nullptr;
	/* SRP_CMD and SRP_TSK_MGMT: the send context it was given. */
	SendCtx *s = nullptr;
	IuKind kind = IuKind::kOther;
	/*
	 * The command keeps the receive buffer (immediate data): after the
	 * hand-off neither @r nor @s may be touched, the command may be done.
	 */
	bool held = false;
	/*
	 * Served on arrival, without the wait list (nothing waited, no
	 * drainer ran): the caller is no drainer, and HandoffDone gives the
	 * buffer back without taking the lock (see OnRecvDone).
	 */
	bool direct = false;
};

/* What the caller of a send completion does next. */
enum class SendDone : uint8_t {
	kDone,	 /* nothing */
	kPutCmd, /* drop the fabric's reference (transport_generic_free_cmd) */
	/*
	 * OnSendDoneAtomic only: nothing changed; call OnSendDone from
	 * process context.
	 */
	kRefused,
};

/* What the caller does with a command whose data-out question is settled. */
enum class DataOut : uint8_t {
	kNothing, /* RDMA READs posted, or the command was aborted meanwhile */
	kExecute, /* the data is there: target_execute_cmd */
	kFail,	  /* the RDMA READ failed: fail the command */
};

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
	 * back to the SRQ, or idle without one). True: the caller is now the
	 * drainer and hands @h off, then calls HandoffDone(@h).
	 */
	bool OnRecvDone(RecvCtx &r, uint32_t byte_len, bool ok, Handoff &h);

	/*
	 * The caller handed @h off (or answered it). Gives its receive buffer
	 * back (unless the command keeps it) and, true, fills @h with the
	 * next IU to hand off; false: the drain is over.
	 */
	bool HandoffDone(Handoff &h);

	/*
	 * The kick work item (process context): starts a drain; as
	 * OnRecvDone's return.
	 */
	bool ProcessWaitList(Handoff &h);

	/*
	 * The SEND of a response completed (@ok false: flushed/failed).
	 * Returns the context's slots and posts responses that waited for
	 * them. kPutCmd: the caller drops the fabric's reference.
	 */
	SendDone OnSendDone(SendCtx &s, bool ok);

	/*
	 * The SEND of a response completed successfully, in a context that
	 * must not sleep (the send CQ's softirq poller): as OnSendDone(@s,
	 * true), except that it returns kRefused, having changed nothing,
	 * when responses wait for send-queue room: posting one may fail, and
	 * a lost response disconnects the channel, which sleeps. The caller
	 * then calls OnSendDone from process context.
	 */
	SendDone OnSendDoneAtomic(SendCtx &s);

	/* The RDMA READ chain of a write command completed. */
	DataOut OnRdmaReadDone(SendCtx &s, bool ok);

	/* ---- target core operations (any context) ---------------------- */

	/*
	 * write_pending: fetch the data-out. With immediate data the data is
	 * in the receive buffer: *@out = kExecute, and the caller executes
	 * the command. Returns kQueueFull when the send queue has no room
	 * for @n_rdma_reads WRs.
	 */
	Status WritePending(SendCtx &s, uint32_t n_rdma_reads, DataOut &out);

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
	 * in neither case are credits or the response lost. When the post
	 * fails, the response is lost: the command ends without one, the
	 * fabric's reference is dropped (PutCmd), the channel disconnects
	 * (ResponseLost), and the post's error is returned.
	 */
	Status QueueResponse(SendCtx &s, uint32_t n_rdma_writes,
			     QueueFullPolicy policy);

	/*
	 * aborted_task: no response will be sent for @s. Its credit goes to
	 * the next response.
	 */
	void AbortedTask(SendCtx &s);

	/*
	 * release_cmd: the target core dropped its last reference. The
	 * context returns to the pool now, or when the last WR posted for it
	 * completes; a waiting IU is then served by the kick work item.
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
	 * Receive contexts and responses to post once the lock is dropped,
	 * in the order added. A command's path adds at most one of each;
	 * more (deferred responses, an SRQ's buffers at release) go on the
	 * lists.
	 */
	struct Posts {
		RecvCtx *recv = nullptr;
		SendCtx *rsp = nullptr;
		WaitList<RecvCtx, &RecvCtx::wait_node> more_recvs;
		WaitList<SendCtx, &SendCtx::deferred_node> more_rsps;
		void Add(RecvCtx &r)
		{
			if (!recv)
				recv = &r;
			else
				more_recvs.Push(r);
		}
		void Add(SendCtx &s)
		{
			if (!rsp)
				rsp = &s;
			else
				more_rsps.Push(s);
		}
		bool empty() const { return !recv && !rsp; }
	};

	/*
	 * Gives @r (and @s, when it needs one) to the caller as @h: the
	 * caller hands it off. Whether @r was on the wait list is the
	 * caller's.
	 */
	void TakeLocked(RecvCtx &r, SendCtx *s, Handoff &h)
	    SRPT_REQUIRES(lock_);

	/*
	 * Takes the head of the wait list for @h if it can be served (the
	 * channel is live, a send context is free if it needs one). The
	 * caller is or becomes the drainer; false ends its drain.
	 */
	bool NextHandoffLocked(Handoff &h) SRPT_REQUIRES(lock_);

	/* The send completions: kRefused only from the atomic one. */
	SendDone CompleteSend(SendCtx &s, bool ok, bool atomic);

	/*
	 * Someone must run the wait list, and nobody will: the caller kicks
	 * the work item after dropping the lock.
	 */
	bool NeedKickLocked() SRPT_REQUIRES(lock_);

	/* A receive context we are done with goes back where it belongs. */
	void ReturnRecvLocked(RecvCtx &r, Posts &posts) SRPT_REQUIRES(lock_);

	void ReturnSlotsLocked(SendCtx &s) SRPT_REQUIRES(lock_);

	/*
	 * Takes REQ_LIM_DELTA and moves @s to "response sent" for a post the
	 * caller makes after dropping the lock (Post()). Slots reserved.
	 */
	void TakeResponseLocked(SendCtx &s, uint32_t n_rdma_writes)
	    SRPT_REQUIRES(lock_);

	/* Deferred responses, in order, while there is room. */
	void TakeDeferredLocked(Posts &posts) SRPT_REQUIRES(lock_);

	/*
	 * Posts what the lock hold decided, lock not held. A receive whose
	 * post fails stays idle; a response whose post fails is lost
	 * (ResponseLost). Returns the first response post's failure.
	 */
	Status Post(Posts &posts);
	void PostRecvUnlocked(RecvCtx &r);
	Status PostResponseUnlocked(SendCtx &s);

	/* A taken response's post failed: back to where it was, then lost. */
	void UndoResponseLocked(SendCtx &s) SRPT_REQUIRES(lock_);

	/* The command ends without a response: its credit is owed. */
	void FinishWithoutResponseLocked(SendCtx &s) SRPT_REQUIRES(lock_);

	void FreeCtxLocked(SendCtx &s, Posts &posts) SRPT_REQUIRES(lock_);

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
	ChannelStats stats_ SRPT_GUARDED_BY(lock_){};
	bool draining_ SRPT_GUARDED_BY(lock_) = false;
	bool kick_pending_ SRPT_GUARDED_BY(lock_) = false;
	bool zlw_outstanding_ SRPT_GUARDED_BY(lock_) = false;
};

} // namespace srpt

/* The member functions' definitions. */
#include <srpt/datapath/channel_core_helpers.hpp>
#include <srpt/datapath/channel_core_impl.hpp>

#endif
