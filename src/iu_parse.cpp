// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Parsing of initiator IUs: see include/srpt/iu_parse.hpp for the rules. */
#include <srpt/iu_parse.hpp>

namespace srpt
{

using wire::DescFormat;
using wire::Opcode;

namespace
{

bool valid_tsk_mgmt_func(uint8_t v)
{
	switch (static_cast<wire::TskMgmtFunc>(v)) {
	case wire::TskMgmtFunc::AbortTask:
	case wire::TskMgmtFunc::AbortTaskSet:
	case wire::TskMgmtFunc::ClearTaskSet:
	case wire::TskMgmtFunc::LunReset:
	case wire::TskMgmtFunc::ClearAca:
		return true;
	}
	return false;
}

} // namespace

namespace
{

IuParseResult drop(uint8_t opcode, DropReason why, bool credit)
{
	IuParseResult r{};
	r.action = IuAction::Drop;
	r.opcode = opcode;
	r.drop = why;
	r.consumes_credit = credit;
	return r;
}

} // namespace

IuParseResult parse_iu(std::span<const uint8_t> iu, const ChannelLimits &lim)
{
	if (iu.empty())
		return drop(0, DropReason::Empty, false);

	const uint8_t opcode = iu[0];
	IuParseResult r{};
	r.opcode = opcode;

	switch (static_cast<Opcode>(opcode)) {
	case Opcode::Cmd:
		if (iu.size() < sizeof(wire::Cmd))
			return drop(opcode, DropReason::ShortIu, true);
		r.consumes_credit = true;
		r.cmd_check = parse_cmd(iu, lim, r.cmd);
		r.tag = r.cmd.tag;
		r.action = r.cmd_check == CmdCheck::Ok ? IuAction::ExecuteCmd
						       : IuAction::RejectCmd;
		return r;

	case Opcode::TskMgmt: {
		if (iu.size() < sizeof(wire::TskMgmt))
			return drop(opcode, DropReason::ShortIu, true);
		const auto w = wire::load<wire::TskMgmt>(iu.data());
		r.consumes_credit = true;
		r.tag = w.tag.get();
		r.tm.tag = r.tag;
		r.tm.lun = w.lun;
		r.tm.sol_not = w.sol_not;
		r.tm.func_raw = w.tsk_mgmt_func;
		r.tm.supported = valid_tsk_mgmt_func(w.tsk_mgmt_func);
		if (r.tm.supported)
			r.tm.func =
			    static_cast<wire::TskMgmtFunc>(w.tsk_mgmt_func);
		r.tm.task_tag = w.task_tag.get();
		r.action = iu.size() > lim.it_iu_len ? IuAction::RejectTaskMgmt
						     : IuAction::TaskMgmt;
		return r;
	}

	case Opcode::ILogout:
	case Opcode::CredRsp:
	case Opcode::AerRsp: {
		/* I_LOGOUT, CRED_RSP and AER_RSP all have 16-byte layouts */
		static_assert(sizeof(wire::ILogout) == sizeof(wire::CredRsp) &&
			      sizeof(wire::CredRsp) == sizeof(wire::AerRsp));
		if (iu.size() < sizeof(wire::ILogout))
			return drop(opcode, DropReason::ShortIu, false);
		if (iu.size() > lim.it_iu_len)
			return drop(opcode, DropReason::TooLong, false);
		r.tag = wire::load<wire::ILogout>(iu.data()).tag.get();
		r.action = static_cast<Opcode>(opcode) == Opcode::ILogout
			       ? IuAction::Logout
			       : IuAction::Ignore;
		return r;
	}

	case Opcode::LoginReq:
		return drop(opcode, DropReason::LoginReq, false);

	case Opcode::LoginRsp:
	case Opcode::Rsp:
	case Opcode::LoginRej:
	case Opcode::TLogout:
	case Opcode::CredReq:
	case Opcode::AerReq:
		return drop(opcode, DropReason::TargetOpcode, false);
	}
	return drop(opcode, DropReason::UnknownOpcode, false);
}

SenseCode sense_for(CmdCheck check)
{
	switch (check) {
	case CmdCheck::IuTooLong:
		return kSenseIuTooLong;
	case CmdCheck::AddCdbBeyondIu:
	case CmdCheck::DescBeyondIu:
	case CmdCheck::TableBeyondIu:
	case CmdCheck::ImmDataBeyondIu:
	case CmdCheck::ShortIu:
		return kSenseIuTooShort;
	case CmdCheck::Bidirectional:
	case CmdCheck::TooManyDescriptors:
	case CmdCheck::DataTooLong:
		return kSenseInvalidFieldInCdb;
	case CmdCheck::Ok:
	case CmdCheck::ReservedTaskAttr:
	case CmdCheck::ReservedAddCdbLen:
	case CmdCheck::ReservedBufFmt:
	case CmdCheck::IndirectTableLen:
	case CmdCheck::IndirectCount:
	case CmdCheck::ZeroLengthDesc:
	case CmdCheck::TotalLenMismatch:
	case CmdCheck::ImmNotNegotiated:
	case CmdCheck::ImmDescAfterData:
		break;
	}
	return kSenseInvalidFieldInCmdIu;
}

const char *describe(CmdCheck check)
{
	switch (check) {
	case CmdCheck::Ok:
		return "ok";
	case CmdCheck::IuTooLong:
		return "IU longer than it_iu_len";
	case CmdCheck::ReservedTaskAttr:
		return "reserved task attribute";
	case CmdCheck::ReservedAddCdbLen:
		return "reserved bits in additional CDB length";
	case CmdCheck::AddCdbBeyondIu:
		return "additional CDB beyond the received bytes";
	case CmdCheck::ReservedBufFmt:
		return "reserved data buffer descriptor format";
	case CmdCheck::Bidirectional:
		return "bidirectional command not supported";
	case CmdCheck::DescBeyondIu:
		return "data descriptor beyond the received bytes";
	case CmdCheck::IndirectTableLen:
		return "indirect table length 0 or not a multiple of 16";
	case CmdCheck::IndirectCount:
		return "indirect table length does not match descriptor count";
	case CmdCheck::TooManyDescriptors:
		return "too many data descriptors";
	case CmdCheck::TableBeyondIu:
		return "indirect table beyond the received bytes";
	case CmdCheck::ZeroLengthDesc:
		return "data descriptor of length 0";
	case CmdCheck::DataTooLong:
		return "data length above the maximum transfer size";
	case CmdCheck::TotalLenMismatch:
		return "indirect total length differs from descriptor sum";
	case CmdCheck::ImmNotNegotiated:
		return "immediate data not negotiated";
	case CmdCheck::ImmDescAfterData:
		return "immediate descriptor overlaps immediate data";
	case CmdCheck::ImmDataBeyondIu:
		return "immediate data beyond the received bytes";
	case CmdCheck::ShortIu:
		return "SRP_CMD shorter than 48 bytes";
	}
	return "unknown";
}

const char *describe(DropReason reason)
{
	switch (reason) {
	case DropReason::None:
		return "none";
	case DropReason::Empty:
		return "empty IU";
	case DropReason::ShortIu:
		return "IU shorter than its fixed part";
	case DropReason::TooLong:
		return "IU longer than it_iu_len";
	case DropReason::LoginReq:
		return "SRP_LOGIN_REQ on an established channel";
	case DropReason::TargetOpcode:
		return "target-to-initiator IU type";
	case DropReason::UnknownOpcode:
		return "unknown IU type";
	}
	return "unknown";
}

} // namespace srpt
