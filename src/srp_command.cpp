// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRP commands and responses of a channel: a received IU prepared for the
 * glue's hand-off (an SRP_CMD or SRP_TSK_MGMT parsed into what the glue
 * submits to LIO, or answered here; SRP_I_LOGOUT ends the channel, other
 * IUs are dropped), the responses the transport
 * builds itself (SendOwnResponse, Answer*), and the task management
 * response. LIO's other entry points (a command's response, the RDMA READs
 * of write data, abort, release) and the hooks that are one glue call are
 * inline in <srpt/channel_datapath.hpp>. The channel itself (state
 * machine) is in channel.cpp.
 */
#include <srpt/alloc.hpp>
#include <srpt/channel.hpp>
#include <srpt/iu_build.hpp>
#include <srpt/log.hpp>
#include <srpt/wire/srp.hpp>

namespace srpt
{

namespace
{

constexpr srpt_dp_dir ToDp(DataDir d)
{
	switch (d) {
	case DataDir::ToDevice:
		return SRPT_DP_DIR_WRITE;
	case DataDir::FromDevice:
		return SRPT_DP_DIR_READ;
	case DataDir::None:
		break;
	}
	return SRPT_DP_DIR_NONE;
}

/* parse_iu() rejected the reserved codes: @a is one of the four. */
constexpr srpt_dp_task_attr ToDp(wire::TaskAttr a)
{
	switch (a) {
	case wire::TaskAttr::Simple:
		return SRPT_DP_TASK_SIMPLE;
	case wire::TaskAttr::HeadOfQueue:
		return SRPT_DP_TASK_HEAD_OF_QUEUE;
	case wire::TaskAttr::Aca:
		return SRPT_DP_TASK_ACA;
	case wire::TaskAttr::Ordered:
		break;
	}
	return SRPT_DP_TASK_ORDERED;
}

/* Only for a function parse_iu() marked supported. */
constexpr srpt_dp_tmf ToDp(wire::TskMgmtFunc f)
{
	switch (f) {
	case wire::TskMgmtFunc::AbortTask:
		return SRPT_DP_TMF_ABORT_TASK;
	case wire::TskMgmtFunc::AbortTaskSet:
		return SRPT_DP_TMF_ABORT_TASK_SET;
	case wire::TskMgmtFunc::ClearTaskSet:
		return SRPT_DP_TMF_CLEAR_TASK_SET;
	case wire::TskMgmtFunc::LunReset:
		return SRPT_DP_TMF_LUN_RESET;
	case wire::TskMgmtFunc::ClearAca:
		break;
	}
	return SRPT_DP_TMF_CLEAR_ACA;
}

} // namespace

/* ---- hand-offs: a received IU, prepared for the glue ---------------- */

void Channel::ResetExtra(SendCtx &s, uint64_t tag)
{
	CmdExtra &x = extra_[s.index()];
	x.tag = tag;
	x.rsp_len = 0;
}

bool Channel::PrepareHandoff(const Handoff &h, srpt_dp_handoff &out)
{
	switch (h.kind) {
	case IuKind::kCmd:
		if (!PrepareCmd(*h.s, *h.r, out))
			return false;
		break;
	case IuKind::kTaskMgmt:
		if (!PrepareTaskMgmt(*h.s, *h.r, out))
			return false;
		break;
	default:
		HandleOtherIu(*h.r);
		return false;
	}
	out.index = h.s->index();
	out.rc = 0;
	out.recv_index = h.r->index();
	out.iu_kind = static_cast<uint8_t>(h.kind);
	out.held = h.held;
	out.direct = h.direct;
	return true;
}

/*
 * The classification saw opcode SRP_CMD: only parse_iu()'s SRP_CMD branch
 * applies. parse_cmd() is compiled into this function
 * (<srpt/iu_parse_cmd_impl.hpp>), so its ParsedCmd is a set of registers:
 * the wire's fields are read once, into the glue's srpt_dp_cmd, and the
 * descriptors once, into the send context's CmdExtra (in CPU order: the
 * glue knows no SRP byte).
 */
bool Channel::PrepareCmd(SendCtx &s, RecvCtx &r, srpt_dp_handoff &out)
{
	ParsedCmd c;
	const CmdCheck check = parse_cmd({r.buf(), r.byte_len()}, limits_, c);
	ResetExtra(s, c.tag); /* 0 for a truncated IU */
	uint32_t suppressed;
	if (check == CmdCheck::ShortIu) {
		/* Too short to carry a tag: nothing can be answered. */
		if (drop_log_.Allow(srpt_now_ns(), &suppressed))
			SRPT_ERR(name_, "dropping IU (opcode %#x): %s",
				 static_cast<unsigned>(wire::Opcode::Cmd),
				 describe(DropReason::ShortIu));
		core_.ReleaseCmd(s);
		return false;
	}
	if (check != CmdCheck::Ok) {
		if (drop_log_.Allow(srpt_now_ns(), &suppressed))
			SRPT_ERR(name_, "rejecting SRP_CMD: %s",
				 describe(check));
		const size_t len =
		    build_reject_rsp({s.buf(), s.buf_size()},
				     login_.max_ti_iu_len, c.tag, check, 1);
		SendOwnResponse(s, len);
		return false;
	}
	CmdExtra &x = extra_[s.index()];
	const uint32_t n = static_cast<uint32_t>(c.descriptors.size());
	srpt_dp_desc *desc = x.desc;
	if (n > CmdExtra::kInlineDesc) {
		if (n > x.more_cap) {
			srpt_dp_desc *more =
			    AllocateArray<srpt_dp_desc>(n, Gfp::kKernel);
			if (!more) {
				SRPT_DEBUG(name_,
					   "command %u: no memory for %u "
					   "descriptors: busy",
					   s.index(), n);
				AnswerStatus(s, c.tag, ScsiStatus::Busy);
				return false;
			}
			FreeArray(x.more);
			x.more = more;
			x.more_cap = n;
		}
		desc = x.more;
	}
	for (uint32_t i = 0; i < n; i++) {
		const DataDescriptor d = c.descriptors[i];
		desc[i] = srpt_dp_desc{d.va, d.key, d.len};
	}
	srpt_dp_cmd &cmd = out.cmd;
	cmd.tag = c.tag;
	cmd.lun = lun_to_u64(c.lun);
	cmd.cdb = c.cdb.data();
	cmd.cdb_len = static_cast<uint32_t>(c.cdb.size());
	cmd.data_len = c.data_length;
	cmd.dir = ToDp(c.dir);
	cmd.task_attr = ToDp(c.task_attr);
	cmd.desc = desc;
	cmd.n_desc = n;
	cmd.imm_data = c.imm_data.data();
	cmd.imm_len = static_cast<uint32_t>(c.imm_data.size());
	cmd.reuse_data = !c.cdb.empty() && IsBlockReadWrite(c.cdb[0]);
	out.kind = SRPT_DP_SUBMIT_CMD;
	return true;
}

bool Channel::PrepareTaskMgmt(SendCtx &s, RecvCtx &r, srpt_dp_handoff &out)
{
	const IuParseResult res = parse_iu({r.buf(), r.byte_len()}, limits_);
	ResetExtra(s, res.tag);
	switch (res.action) {
	case IuAction::TaskMgmt:
		if (!res.tm.supported) {
			AnswerTaskMgmt(s, res.tag,
				       wire::TskMgmtRspCode::NotSupported);
			return false;
		}
		SRPT_INFO(name_, "task management function %#x for tag %#llx",
			  res.tm.func_raw,
			  static_cast<unsigned long long>(res.tm.task_tag));
		out.kind = SRPT_DP_SUBMIT_TMR;
		out.tmr.tag = res.tm.tag;
		out.tmr.lun = lun_to_u64(res.tm.lun);
		out.tmr.func = ToDp(res.tm.func);
		out.tmr.task_tag = res.tm.task_tag;
		return true;
	case IuAction::RejectTaskMgmt:
		AnswerTaskMgmt(s, res.tag, wire::TskMgmtRspCode::FieldsInvalid);
		return false;
	default:
		core_.ReleaseCmd(s);
		return false;
	}
}

void Channel::SubmitFailed(const Handoff &h, const srpt_dp_handoff &out)
{
	SendCtx &s = *h.s;
	if (out.kind == SRPT_DP_SUBMIT_TMR) {
		AnswerTaskMgmt(s, extra_[s.index()].tag,
			       wire::TskMgmtRspCode::Failed);
		return;
	}
	SRPT_DEBUG(name_, "command %u not submitted (%d): busy", s.index(),
		   out.rc);
	AnswerStatus(s, extra_[s.index()].tag, ScsiStatus::Busy);
}

void Channel::HandleOtherIu(RecvCtx &r)
{
	const IuParseResult res = parse_iu({r.buf(), r.byte_len()}, limits_);
	uint32_t suppressed;
	switch (res.action) {
	case IuAction::Logout:
		/*
		 * In-tree only logs this and keeps serving the channel. The
		 * initiator said it is done: serving IUs that follow would
		 * act on commands of a logged-out nexus, so end the channel.
		 */
		SRPT_INFO(name_, "SRP_I_LOGOUT on channel %u: disconnecting",
			  id_);
		(void)Disconnect("SRP_I_LOGOUT");
		return;
	case IuAction::Ignore:
		return;
	default:
		if (drop_log_.Allow(srpt_now_ns(), &suppressed))
			SRPT_ERR(name_, "dropping IU (opcode %#x): %s",
				 res.opcode, describe(res.drop));
		return;
	}
}

/* ---- KernelEnv ------------------------------------------------------ */

void KernelEnv::ResponseLost()
{
	ch_->OnResponseLost();
}

/* ---- responses the transport builds itself -------------------------- */

void Channel::SendOwnResponse(SendCtx &s, size_t len)
{
	extra_[s.index()].rsp_len = static_cast<uint32_t>(len);
	/*
	 * Deferred when the send queue is full: nobody could retry it. On a
	 * post failure the core finished the context, called PutCmd and
	 * ResponseLost.
	 */
	(void)core_.QueueResponse(s, 0, QueueFullPolicy::kDefer);
}

void Channel::AnswerStatus(SendCtx &s, uint64_t tag, ScsiStatus status)
{
	CmdRspInfo info{};
	info.tag = tag;
	info.req_lim_delta = 1;
	info.status = status;
	info.dir = DataDir::None;
	info.residual = Residual::None;
	SendOwnResponse(s, build_cmd_rsp({s.buf(), s.buf_size()},
					 login_.max_ti_iu_len, info));
}

void Channel::AnswerTaskMgmt(SendCtx &s, uint64_t tag,
			     wire::TskMgmtRspCode code)
{
	SendOwnResponse(
	    s, build_tsk_mgmt_rsp({s.buf(), s.buf_size()}, tag, 1, code));
}

/* ---- LIO's side of a command ---------------------------------------- */

/*
 * A response could not be posted: its initiator would wait for its SCSI
 * timeout (30 s and an abort) for a command that has ended. In-tree and
 * nvmet-rdma log and drop it; the port disconnects, so that ib_srp
 * reconnects and retries at once, or dm-multipath fails over. When the
 * post failed because the QP is already in error, the channel is already
 * going down and Disconnect() refuses: nothing is logged twice.
 */
void Channel::OnResponseLost()
{
	if (Disconnect("a response could not be posted"))
		SRPT_ERR(name_,
			 "a response could not be posted on channel %u: "
			 "disconnected",
			 id_);
}

/*
 * QueueResponse, WritePending, AbortedTask, ReleaseCmd and the completions
 * are inline in <srpt/channel_datapath.hpp>, for the C entry points to
 * flatten.
 */

void Channel::QueueTmResponse(uint32_t index, wire::TskMgmtRspCode code)
{
	if (SRPT_WARN_ON(!Valid(index)))
		return;
	AnswerTaskMgmt(core_.send_ring()[index], extra_[index].tag, code);
}

int Channel::CmdStateOf(uint32_t index)
{
	if (!Valid(index))
		return -1;
	return static_cast<int>(core_.send_ring()[index].state());
}

} // namespace srpt
