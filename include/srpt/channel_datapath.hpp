/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A channel's per-command entry points and KernelEnv's hooks that are one
 * glue call each, defined inline (included at the end of channel.hpp).
 *
 * Why inline: each entry point is called by exactly one C entry point of
 * src/datapath_api.cpp, which is compiled [[gnu::flatten]]: with these
 * bodies visible there, GCC makes one function of the C entry point, this
 * method, the ChannelCore method it calls, the core's ...Locked() helpers
 * and these hooks. What is left out of line on a command's path is the
 * glue (srpt_dp_*, the lock), the IU parser and PrepareHandoff. Out of line,
 * the same path made some twenty calls of the port's own per I/O that only
 * forward (docs/data-path.md, "What runs beneath the roots").
 */
#ifndef SRPT_CHANNEL_DATAPATH_HPP
#define SRPT_CHANNEL_DATAPATH_HPP

#include <srpt/log.hpp>
#include <srpt/wire/srp.hpp>

namespace srpt
{

/* ---- KernelEnv: the hooks that are one glue call -------------------- */

inline Status KernelEnv::PostRecv(RecvCtx &r)
{
	if (SharedRecvQueue *srq = ch_->srq_.get())
		return StatusFromErrno(
		    srpt_dp_srq_post_recv(srq->dp(), r.index()));
	return StatusFromErrno(srpt_dp_post_recv(ch_->dp_, r.index()));
}

inline Status KernelEnv::PostResponse(SendCtx &s, uint32_t n_rdma,
				      int32_t delta)
{
	const CmdExtra &x = ch_->extra_[s.index()];
	/* The delta is known only now, after the response was built. */
	wire::Be32 req_lim_delta;
	req_lim_delta.set(static_cast<uint32_t>(delta));
	wire::store(s.buf() + offsetof(wire::Rsp, req_lim_delta),
		    req_lim_delta);
	return StatusFromErrno(
	    srpt_dp_post_send(ch_->dp_, s.index(), x.rsp_len, n_rdma));
}

inline Status KernelEnv::PostRdmaRead(SendCtx &s, uint32_t)
{
	return StatusFromErrno(srpt_dp_post_rdma_read(ch_->dp_, s.index()));
}

inline Status KernelEnv::PostZeroLengthWrite()
{
	return StatusFromErrno(srpt_dp_post_zlw(ch_->dp_));
}

inline void KernelEnv::PutCmd(SendCtx &s)
{
	srpt_dp_put_cmd(ch_->dp_, s.index());
}

inline void KernelEnv::KickWaitList()
{
	srpt_dp_kick(ch_->dp_);
}

/* ---- completions ---------------------------------------------------- */

inline bool Channel::NextGlueHandoff(bool have, Handoff &h,
				     srpt_dp_handoff &out)
{
	while (have) {
		if (PrepareHandoff(h, out))
			return true;
		have = core_.HandoffDone(h);
	}
	return false;
}

inline bool Channel::OnRecvDone(uint32_t index, uint32_t byte_len, bool ok,
				srpt_dp_handoff &out)
{
	RecvRing *ring = core_.recv_ring();
	if (SRPT_WARN_ON(!ring || index >= ring->size()))
		return false;
	Handoff h;
	const bool have = core_.OnRecvDone((*ring)[index], byte_len, ok, h);
	if (!ok)
		OnCompletionError("receive");
	return NextGlueHandoff(have, h, out);
}

inline bool Channel::HandoffDone(srpt_dp_handoff &out)
{
	RecvRing *ring = core_.recv_ring();
	if (SRPT_WARN_ON(!ring || out.recv_index >= ring->size() ||
			 !Valid(out.index)))
		return false;
	Handoff h;
	h.r = &(*ring)[out.recv_index];
	h.s = &core_.send_ring()[out.index];
	h.kind = static_cast<IuKind>(out.iu_kind);
	h.held = out.held;
	h.direct = out.direct;
	if (out.rc != 0)
		SubmitFailed(h, out);
	return NextGlueHandoff(core_.HandoffDone(h), h, out);
}

inline bool Channel::Kick(srpt_dp_handoff &out)
{
	Handoff h;
	return NextGlueHandoff(core_.ProcessWaitList(h), h, out);
}

inline SendDone Channel::OnSendDone(uint32_t index, bool ok)
{
	if (SRPT_WARN_ON(!Valid(index)))
		return SendDone::kDone;
	/* Test knob: a successful SEND completes only after the delay. */
	if (ok && send_done_hold_.Hold(index))
		return SendDone::kDone;
	const SendDone next = core_.OnSendDone(core_.send_ring()[index], ok);
	if (!ok)
		OnCompletionError("send");
	return next;
}

inline SendDone Channel::OnSendDoneAtomic(uint32_t index)
{
	if (SRPT_WARN_ON(!Valid(index)))
		return SendDone::kDone;
	/* Test knob: delivered later from its work item, as above. */
	if (send_done_hold_.Hold(index))
		return SendDone::kDone;
	return core_.OnSendDoneAtomic(core_.send_ring()[index]);
}

inline DataOut Channel::OnRdmaReadDone(uint32_t index, bool ok)
{
	if (SRPT_WARN_ON(!Valid(index)))
		return DataOut::kNothing;
	if (!ok)
		SRPT_INFO(name_, "RDMA READ for command %u failed", index);
	const DataOut next = core_.OnRdmaReadDone(core_.send_ring()[index], ok);
	if (!ok)
		OnCompletionError("RDMA READ");
	return next;
}

/* ---- LIO's side of a command ---------------------------------------- */

inline Status Channel::QueueResponse(uint32_t index, const CmdResponse &rsp)
{
	if (SRPT_WARN_ON(!Valid(index)))
		return Status::kInvalid;
	SendCtx &s = core_.send_ring()[index];
	CmdExtra &x = extra_[index];
	CmdRspInfo info{};
	info.tag = x.tag;
	info.req_lim_delta = 1;
	info.status = rsp.status;
	info.dir = rsp.dir;
	info.residual = rsp.residual;
	info.residual_count = rsp.residual_count;
	info.sense = rsp.sense;
	x.rsp_len = static_cast<uint32_t>(
	    build_cmd_rsp({s.buf(), s.buf_size()}, login_.max_ti_iu_len, info));
	const Status st = core_.QueueResponse(
	    s, rsp.n_rdma_writes, QueueFullPolicy::kReturnQueueFull);
	/*
	 * A failed post was finished by the core (no response, the credit
	 * owed, the fabric's reference dropped, the channel disconnected):
	 * nothing for LIO to retry.
	 */
	return IsOk(st) || st == kQueueFull ? st : Status::kOk;
}

inline Status Channel::WritePending(uint32_t index, uint32_t n_rdma_reads,
				    DataOut &out)
{
	out = DataOut::kNothing;
	if (SRPT_WARN_ON(!Valid(index)))
		return Status::kInvalid;
	SendCtx &s = core_.send_ring()[index];
	const Status st = core_.WritePending(s, n_rdma_reads, out);
	if (IsOk(st) || st == kQueueFull)
		return st;
	SRPT_ERR(name_, "RDMA READ for command %u could not be posted (%d)",
		 index, ToNegativeErrno(st));
	return st;
}

inline void Channel::AbortedTask(uint32_t index)
{
	if (SRPT_WARN_ON(!Valid(index)))
		return;
	core_.AbortedTask(core_.send_ring()[index]);
}

inline void Channel::ReleaseCmd(uint32_t index)
{
	if (SRPT_WARN_ON(!Valid(index)))
		return;
	core_.ReleaseCmd(core_.send_ring()[index]);
}

} // namespace srpt

#endif
