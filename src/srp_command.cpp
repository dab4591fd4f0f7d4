// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRP commands and responses of a channel: the command hooks of KernelEnv
 * (an SRP_CMD or SRP_TSK_MGMT goes to LIO or is answered here, SRP_I_LOGOUT
 * ends the channel, other IUs are dropped), the responses the transport
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

/* ---- KernelEnv: the command hooks ----------------------------------- */

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

/*
 * A command's data descriptors in CPU order, for the glue, for the time of
 * its submission. The glue copies what it keeps into its RDMA contexts, so
 * the array lives on the stack for the usual few descriptors (ib_srp
 * sends one unless a transfer needs several memory regions), and is
 * allocated for a longer indirect list (up to 255).
 */
class DpDescriptors
{
public:
	explicit DpDescriptors(const DescriptorList &list) : n_(list.size())
	{
		if (n_ > kOnStack) {
			heap_ = AllocateArray<srpt_dp_desc>(n_, Gfp::kKernel);
			if (!heap_)
				return;
		}
		srpt_dp_desc *out = heap_ ? heap_ : on_stack_;
		for (size_t i = 0; i < n_; i++) {
			const DataDescriptor d = list[i];
			out[i] = srpt_dp_desc{d.va, d.key, d.len};
		}
	}
	~DpDescriptors() { FreeArray(heap_); }
	DpDescriptors(const DpDescriptors &) = delete;
	DpDescriptors &operator=(const DpDescriptors &) = delete;

	/* False when the list needed memory and none was free. */
	bool ok() const { return n_ <= kOnStack || heap_; }
	const srpt_dp_desc *data() const { return heap_ ? heap_ : on_stack_; }
	uint32_t size() const { return static_cast<uint32_t>(n_); }

private:
	static constexpr size_t kOnStack = 8; /* 128 bytes */
	size_t n_;
	srpt_dp_desc on_stack_[kOnStack];
	srpt_dp_desc *heap_ = nullptr;
};

} // namespace

/* ---- KernelEnv: the command hooks ----------------------------------- */

void KernelEnv::ResetExtra(SendCtx &s, uint64_t tag)
{
	CmdExtra &x = ch_->extra_[s.index()];
	x.tag = tag;
	x.rsp_len = 0;
}

/*
 * The classification saw opcode SRP_CMD: only parse_iu()'s SRP_CMD branch
 * applies, so the command is parsed straight into a ParsedCmd (a
 * parse_iu() result is 152 bytes, cleared and copied once per command).
 */
void KernelEnv::SubmitCmd(SendCtx &s, RecvCtx &r)
{
	Channel &ch = *ch_;
	ParsedCmd c;
	const CmdCheck check =
	    parse_cmd({r.buf(), r.byte_len()}, ch.limits_, c);
	ResetExtra(s, c.tag); /* 0 for a truncated IU */
	if (check == CmdCheck::Ok) {
		const DpDescriptors desc(c.descriptors);
		int rc = -SRPT_ENOMEM;
		if (desc.ok()) {
			srpt_dp_cmd cmd{};
			cmd.tag = c.tag;
			cmd.lun = lun_to_u64(c.lun);
			cmd.cdb = c.cdb.data();
			cmd.cdb_len = static_cast<uint32_t>(c.cdb.size());
			cmd.data_len = c.data_length;
			cmd.dir = ToDp(c.dir);
			cmd.task_attr = ToDp(c.task_attr);
			cmd.desc = desc.data();
			cmd.n_desc = desc.size();
			cmd.imm_data = c.imm_data.data();
			cmd.imm_len = static_cast<uint32_t>(c.imm_data.size());
			cmd.reuse_data =
			    !c.cdb.empty() && IsBlockReadWrite(c.cdb[0]);
			/* The target core may now finish and recycle @s. */
			rc = srpt_dp_submit_cmd(ch.dp_, s.index(), &cmd);
		}
		if (rc != 0) {
			SRPT_DEBUG(ch.name_,
				   "command %u not submitted (%d): busy",
				   s.index(), rc);
			ch.AnswerStatus(s, c.tag, ScsiStatus::Busy);
		}
		return;
	}
	uint32_t suppressed;
	if (check == CmdCheck::ShortIu) {
		/* Too short to carry a tag: nothing can be answered. */
		if (ch.drop_log_.Allow(srpt_now_ns(), &suppressed))
			SRPT_ERR(ch.name_, "dropping IU (opcode %#x): %s",
				 static_cast<unsigned>(wire::Opcode::Cmd),
				 describe(DropReason::ShortIu));
		ch.core_.ReleaseCmd(s);
		return;
	}
	if (ch.drop_log_.Allow(srpt_now_ns(), &suppressed))
		SRPT_ERR(ch.name_, "rejecting SRP_CMD: %s", describe(check));
	const size_t len = build_reject_rsp(
	    {s.buf(), s.buf_size()}, ch.login_.max_ti_iu_len, c.tag, check, 1);
	ch.SendOwnResponse(s, len);
}

void KernelEnv::SubmitTaskMgmt(SendCtx &s, RecvCtx &r)
{
	Channel &ch = *ch_;
	const IuParseResult res = parse_iu({r.buf(), r.byte_len()}, ch.limits_);
	ResetExtra(s, res.tag);
	switch (res.action) {
	case IuAction::TaskMgmt:
		if (!res.tm.supported) {
			ch.AnswerTaskMgmt(s, res.tag,
					  wire::TskMgmtRspCode::NotSupported);
			return;
		}
		SRPT_INFO(ch.name_,
			  "task management function %#x for tag %#llx",
			  res.tm.func_raw,
			  static_cast<unsigned long long>(res.tm.task_tag));
		if (srpt_dp_submit_tmr(ch.dp_, s.index(), res.tm.tag,
				       lun_to_u64(res.tm.lun),
				       ToDp(res.tm.func), res.tm.task_tag) != 0)
			ch.AnswerTaskMgmt(s, res.tag,
					  wire::TskMgmtRspCode::Failed);
		return;
	case IuAction::RejectTaskMgmt:
		ch.AnswerTaskMgmt(s, res.tag,
				  wire::TskMgmtRspCode::FieldsInvalid);
		return;
	default:
		ch.core_.ReleaseCmd(s);
		return;
	}
}

void KernelEnv::HandleOtherIu(RecvCtx &r)
{
	Channel &ch = *ch_;
	const IuParseResult res = parse_iu({r.buf(), r.byte_len()}, ch.limits_);
	uint32_t suppressed;
	switch (res.action) {
	case IuAction::Logout:
		/*
		 * In-tree only logs this and keeps serving the channel. The
		 * initiator said it is done: serving IUs that follow would
		 * act on commands of a logged-out nexus, so end the channel.
		 */
		SRPT_INFO(ch.name_, "SRP_I_LOGOUT on channel %u: disconnecting",
			  ch.id_);
		(void)ch.Disconnect("SRP_I_LOGOUT");
		return;
	case IuAction::Ignore:
		return;
	default:
		if (ch.drop_log_.Allow(srpt_now_ns(), &suppressed))
			SRPT_ERR(ch.name_, "dropping IU (opcode %#x): %s",
				 res.opcode, describe(res.drop));
		return;
	}
}

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
 * QueueResponse, WritePending, AbortedTask and ReleaseCmd are inline in
 * <srpt/channel_datapath.hpp>, for the C entry points to flatten.
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
