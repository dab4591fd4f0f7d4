// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The channel: setup and teardown, the state machine and the CM events
 * that drive it, a completion's failure, and the stats export. The
 * completions themselves (On*Done) and the KernelEnv hooks that post work
 * requests are inline in <srpt/channel_datapath.hpp>. The SRP commands and
 * responses of a channel are in srp_command.cpp, the registry of all
 * channels in channel_registry.cpp.
 * See include/srpt/channel.hpp and docs/data-path.md.
 */
#include <srpt/channel.hpp>
#include <srpt/channel_registry.hpp>
#include <srpt/hex_format.hpp>
#include <srpt/log.hpp>
#include <srpt/trace.h>
#include <srpt/wire/srp.hpp>

namespace srpt
{

const char *LioConnStateName(ChannelState s)
{
	switch (s) {
	case ChannelState::kConnecting:
		return "IN_LOGIN";
	case ChannelState::kLive:
		return "LOGGED_IN";
	case ChannelState::kDisconnecting:
	case ChannelState::kDraining:
		return "IN_LOGOUT";
	case ChannelState::kReleasing:
	case ChannelState::kReleased:
		break;
	}
	return "CLEANUP_WAIT";
}

/* ---- KernelEnv: the state hook ------------------------------------- */

/*
 * A channel never published (a refused login: no id yet) is torn down
 * through the same moves, untraced: nobody could see it.
 */
void KernelEnv::StateChanged(ChannelState from, ChannelState to)
{
	if (srpt_tracing() && ch_->id_ != 0)
		srpt_trace_channel_state(ch_->name_, ch_->id_,
					 ChannelStateName(from),
					 ChannelStateName(to));
}

/* ---- setup ---------------------------------------------------------- */

Channel::Channel(const ChannelParams &p, SrqRef srq)
    : nexus_node(), registry_node(), core_(*this),
      device_(DeviceRef::Acquire(*p.device)), srq_(std::move(srq)),
      port_(p.port), cm_id_(p.cm_id), cm_(p.cm), login_(p.login),
      limits_(channel_limits(p.login, p.max_data_len)), credits_(p.credits),
      id_(0)
{
	CopyName(name_, p.name);
	CopyName(source_, p.name);
	srpt_work_init(release_work_, ReleaseWork, this,
		       SRPT_WORK_CHANNEL_RELEASE);
}

Channel::~Channel()
{
	if (extra_)
		for (uint32_t i = 0; i < credits_; i++)
			FreeArray(extra_[i].more);
	FreeArray(extra_);
	/*
	 * The QP is gone and the core returned its SRQ contexts: let go of
	 * the SRQ, then of the device it lives in.
	 */
	srq_.reset();
	device_.reset();
}

Channel *Channel::Create(const ChannelParams &p, SrqRef srq, Status *status)
{
	/* Allocation fails before @srq moves: it goes back with the call. */
	Channel *ch = new (Gfp::kKernel) Channel(p, std::move(srq));
	if (!ch) {
		*status = Status::kNoMemory;
		return nullptr;
	}
	SharedRecvQueue *const q = ch->srq();
	ch->extra_ = AllocateArray<CmdExtra>(p.credits, Gfp::kKernel);
	if (!ch->extra_) {
		delete ch;
		*status = Status::kNoMemory;
		return nullptr;
	}

	srpt_dp_ch_args args{};
	args.core_device = p.device;
	args.cm_id = p.cm_id;
	args.cm = static_cast<uint8_t>(p.cm);
	args.pkey = p.pkey;
	args.core_ch = ch;
	args.name = ch->name_;
	args.srq = q ? q->dp() : nullptr;
	args.port_num = p.port->number;
	args.rq_size = p.credits;
	args.sq_size = p.sq_size;
	/* The SRQ's buffers were mapped when it was made. */
	args.n_recv = q ? 0 : p.credits;
	args.n_send = p.credits;
	uint32_t max_send_wr = 0;
	int rc = srpt_dp_ch_create(&args, &ch->dp_, &max_send_wr);
	if (rc) {
		SRPT_ERR(ch->name_, "creating the QP failed (%d)", rc);
		delete ch;
		*status = StatusFromErrno(rc);
		return nullptr;
	}

	ChannelConfig cfg;
	cfg.credits = p.credits;
	cfg.send_ctx_limit = p.send_ctx_limit;
	cfg.rsp_buf_size = p.rsp_buf_size;
	cfg.sq_size = max_send_wr;
	cfg.req_buf_size = p.req_buf_size;
	cfg.imm_data_offset = p.login.imm_data_offset;
	cfg.srq_ring = q ? &q->ring() : nullptr;
	cfg.name = ch->name_;
	Status st = ch->core_.Init(cfg, Gfp::kKernel);
	if (IsOk(st)) {
		RecvRing &rr = *ch->core_.recv_ring();
		for (uint32_t i = 0; i < args.n_recv && IsOk(st); i++)
			st = StatusFromErrno(srpt_dp_map_recv(
			    ch->dp_, i, rr[i].buf(), rr[i].buf_size()));
		SendRing &sr = ch->core_.send_ring();
		for (uint32_t i = 0; i < sr.size() && IsOk(st); i++)
			st = StatusFromErrno(srpt_dp_map_send(
			    ch->dp_, i, sr[i].buf(), sr[i].buf_size()));
		if (IsOk(st))
			st = ch->core_.PostInitialReceives();
	}
	if (!IsOk(st)) {
		SRPT_ERR(ch->name_,
			 "setting up the channel's rings failed (%d)",
			 ToNegativeErrno(st));
		ch->DestroyUnpublished();
		*status = st;
		return nullptr;
	}
	if (p.send_ctx_limit)
		SRPT_INFO(ch->name_,
			  "test knob: %u send contexts for %u credits",
			  p.send_ctx_limit, p.credits);
	/* Read here, like the pool limit: channels created afterwards. */
	const uint32_t delay_us = srpt_dp_test_send_done_delay_us();
	st = ch->send_done_hold_.Init(delay_us, ch->core_.send_ring().size(),
				      DeliverHeldSendDone, ch, Gfp::kKernel);
	if (!IsOk(st)) {
		ch->DestroyUnpublished();
		*status = st;
		return nullptr;
	}
	if (delay_us)
		SRPT_INFO(ch->name_,
			  "test knob: send completions held for %u us",
			  delay_us);
	*status = Status::kOk;
	return ch;
}

Status Channel::SetupSession(srpt_core_port_id *port_id, const char *name)
{
	const int rc = srpt_dp_session_setup(dp_, port_id, name, credits_);
	if (rc == 0) {
		session_ = true;
		session_port_id_ = port_id;
		CopyName(name_, name);
	}
	return StatusFromErrno(rc);
}

bool Channel::has_session() const
{
	return session_;
}

void Channel::DestroyUnpublished()
{
	/* Nothing was sent yet; kept for symmetry with Release(). */
	send_done_hold_.StopAndFlush();
	if (session_)
		srpt_dp_session_remove(dp_);
	session_ = false;
	if (dp_)
		srpt_dp_ch_destroy(dp_, false);
	dp_ = nullptr;
	if (core_.recv_ring()) {
		(void)core_.Release();
		core_.Destroy();
	}
	delete this;
}

/* ---- state machine -------------------------------------------------- */

/* The IUs that arrived while connecting are served from the kick work. */
void Channel::OnEstablished()
{
	const ChannelState prev = core_.TransitionTo(ChannelState::kLive);
	if (!IsLegalTransition(prev, ChannelState::kLive)) {
		SRPT_INFO(name_, "RTU in state %s ignored",
			  ChannelStateName(prev));
		return;
	}
	SRPT_INFO(name_, "channel %u live (%u credits)", id_, credits_);
}

bool Channel::Disconnect(const char *why)
{
	const ChannelState next = ChannelState::kDisconnecting;
	if (!IsLegalTransition(core_.TransitionTo(next), next))
		return false;
	SRPT_INFO(name_, "disconnecting channel %u: %s", id_, why);
	if (srpt_tracing())
		srpt_trace_disconnect(name_, id_, why);
	if (srpt_dp_cm_disconnect(dp_) != 0)
		(void)Close("sending the disconnect request failed");
	return true;
}

bool Channel::Close(const char *why)
{
	const ChannelState prev = core_.TransitionTo(ChannelState::kDraining);
	if (!IsLegalTransition(prev, ChannelState::kDraining))
		return false;
	SRPT_INFO(name_, "closing channel %u (was %s): %s", id_,
		  ChannelStateName(prev), why);
	if (srpt_tracing())
		srpt_trace_disconnect(name_, id_, why);
	const int rc = srpt_dp_qp_error(dp_);
	if (rc != 0 || !IsOk(core_.PostDrainWrite())) {
		SRPT_ERR(name_, "draining channel %u failed (%d): releasing",
			 id_, rc);
		ScheduleRelease();
	}
	return true;
}

/* Flushed: the core moved to kReleasing in this call, once. */
void Channel::OnZlwDone(bool ok)
{
	if (core_.OnZeroLengthWriteDone(ok) == ZlwOutcome::kReleaseChannel)
		srpt_work_queue(release_work_);
}

void Channel::OnCmEvent(CmEvent event)
{
	switch (event) {
	case CmEvent::kEstablished:
		OnEstablished();
		break;
	case CmEvent::kDisconnected:
		/* As in-tree: answer a DREQ, or finish our own disconnect. */
		if (!Disconnect("the initiator disconnected"))
			(void)Close("disconnected");
		break;
	case CmEvent::kDreqReceived:
		OnDisconnectRequest();
		break;
	case CmEvent::kTimewaitExit:
		(void)Close("CM timewait exit");
		break;
	case CmEvent::kRejected:
		(void)Close("CM reject or connection error");
		break;
	case CmEvent::kDeviceRemoval:
		(void)Close("RDMA device removal");
		break;
	case CmEvent::kAddrChange:
		(void)Close("address change");
		break;
	}
}

/*
 * IB/CM leaves the DREP to us. A live (or connecting) channel moves to
 * kDisconnecting and waits for the CM's timewait exit, as after our own
 * DREQ. If we had sent a DREQ already (the two crossed) or are closing,
 * the peer still gets its DREP and the channel closes now, as the
 * RDMA/CM DISCONNECTED rule does. Only the cm_id is touched: the glue
 * channel outlives every running CM handler (the release work destroys
 * the id, which waits for them).
 */
void Channel::OnDisconnectRequest()
{
	const ChannelState prev =
	    core_.TransitionTo(ChannelState::kDisconnecting);
	const bool changed =
	    IsLegalTransition(prev, ChannelState::kDisconnecting);
	if (changed)
		SRPT_INFO(name_, "DREQ received: disconnecting channel %u",
			  id_);
	const int rc = srpt_dp_cm_drep(dp_);
	if (rc != 0)
		SRPT_INFO(name_, "answering the DREQ in state %s failed (%d)",
			  ChannelStateName(prev), rc);
	if (!changed || rc != 0)
		(void)Close("DREQ received");
}

void Channel::ScheduleRelease()
{
	const ChannelState next = ChannelState::kReleasing;
	if (IsLegalTransition(core_.TransitionTo(next), next))
		srpt_work_queue(release_work_);
}

void Channel::ReleaseWork(void *ctx)
{
	static_cast<Channel *>(ctx)->Release();
}

void Channel::DeliverHeldSendDone(void *ctx, uint32_t index)
{
	Channel &ch = *static_cast<Channel *>(ctx);
	/*
	 * The test knob's work item stands in for the glue here: the one
	 * place a fabric reference is put from the core's side on a
	 * command's usual path, with no lock held.
	 */
	if (ch.core_.OnSendDone(ch.core_.send_ring()[index], true) ==
	    SendDone::kPutCmd)
		srpt_dp_put_cmd(ch.dp_, index);
}

/*
 * Teardown, in this order and why:
 *  0. send completions held by the test knob are delivered now (and no
 *     more are held): each one drops a command reference that the session
 *     removal waits for, and its PutCmd needs the glue channel;
 *  1. the session: the glue first waits for a submission still on its
 *     way to the target core; then stop it and wait until the target core
 *     released every command. Responses still being posted complete
 *     flushed (QP in ERR), and their completions drop the last references.
 *  2. the QP and CQ (glue): drain first, so that no completion can refer to
 *     a context after this; then the cm_id, which waits for running CM
 *     handlers: afterwards nobody can reach this channel any more.
 *  3. the wait list and rings (core), the registry links, the memory.
 */
void Channel::Release()
{
	SRPT_INFO(name_, "releasing channel %u", id_);
	send_done_hold_.StopAndFlush();
	srpt_dp_debugfs_remove(debugfs);
	debugfs = nullptr;
	if (session_)
		srpt_dp_session_remove(dp_);
	session_ = false;
	/* Also cancels the kick work, before and after the QP's drain. */
	srpt_dp_ch_destroy(dp_, true);
	dp_ = nullptr;
	/* kReleasing -> kReleased. */
	const uint32_t leaked = core_.Release();
	if (leaked)
		SRPT_ERR(name_, "%u send contexts not returned", leaked);
	core_.Destroy();
	if (ChannelRegistry *reg = GetChannelRegistry())
		reg->Remove(*this);
	SRPT_INFO(name_, "channel %u released", id_);
	delete this;
}

/* ---- completions ---------------------------------------------------- */

/*
 * A failed completion on an RC QP means the QP is in the error state:
 * everything posted after it is flushed, so the channel cannot serve
 * another IU. In-tree keeps it until the initiator's DREQ or the CM
 * timeout; end it now (as nvmet-rdma does). During our own drain the
 * flushes are expected and Disconnect() refuses the transition.
 */
void Channel::OnCompletionError(const char *what)
{
	if (Disconnect("a completion failed"))
		SRPT_ERR(name_,
			 "%s completion failed on channel %u: disconnected",
			 what, id_);
}

/* ---- stats ---------------------------------------------------------- */

ChannelSnapshot Channel::Stats()
{
	ChannelSnapshot s{};
	s.datapath = core_.Stats();
	s.credits = credits_;
	s.it_iu_len = login_.it_iu_len;
	s.imm_data_offset = login_.imm_data_offset;
	s.use_srq = srq_ != nullptr;
	s.recv_ring_size = core_.recv_ring() ? core_.recv_ring()->size() : 0;
	s.send_done_delay_us = send_done_hold_.delay_us();
	s.send_done_held = send_done_hold_.held();
	s.send_done_held_total = send_done_hold_.held_total();
	return s;
}

} // namespace srpt
