// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Parsing of initiator IUs: see include/srpt/iu_parse.hpp for the rules. */
#include <srpt/iu_parse.hpp>

namespace srpt
{

using wire::DescFormat;
using wire::Opcode;

namespace
{

bool valid_task_attr(uint8_t v)
{
	switch (static_cast<wire::TaskAttr>(v)) {
	case wire::TaskAttr::Simple:
	case wire::TaskAttr::HeadOfQueue:
	case wire::TaskAttr::Ordered:
	case wire::TaskAttr::Aca:
		return true;
	}
	return false;
}

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

/* The direct descriptor at @off, or DescBeyondIu. */
CmdCheck parse_direct(std::span<const uint8_t> iu, uint64_t off,
		      const ChannelLimits &lim, ParsedCmd &out)
{
	if (off + sizeof(wire::DirectBuf) > iu.size())
		return CmdCheck::DescBeyondIu;
	if (lim.max_desc < 1)
		return CmdCheck::TooManyDescriptors;
	const auto raw = iu.subspan(off, sizeof(wire::DirectBuf));
	const auto d = wire::load<wire::DirectBuf>(raw.data());
	const uint32_t len = d.len.get();
	if (len == 0)
		return CmdCheck::ZeroLengthDesc;
	if (len > lim.max_data_len)
		return CmdCheck::DataTooLong;
	out.descriptors = DescriptorList(raw);
	out.data_length = len;
	return CmdCheck::Ok;
}

CmdCheck parse_indirect(std::span<const uint8_t> iu, uint64_t off,
			uint8_t desc_cnt, const ChannelLimits &lim,
			ParsedCmd &out)
{
	constexpr uint64_t entry = sizeof(wire::DirectBuf);

	if (off + sizeof(wire::IndirectBufHeader) > iu.size())
		return CmdCheck::DescBeyondIu;
	const auto hdr = wire::load<wire::IndirectBufHeader>(iu.data() + off);
	const uint64_t table_len = hdr.table_desc.len.get();
	if (table_len == 0 || table_len % entry != 0)
		return CmdCheck::IndirectTableLen;
	const uint64_t n = table_len / entry;
	if (n != desc_cnt)
		return CmdCheck::IndirectCount;
	if (n > lim.max_desc)
		return CmdCheck::TooManyDescriptors;
	const uint64_t list = off + sizeof(wire::IndirectBufHeader);
	if (list + table_len > iu.size())
		return CmdCheck::TableBeyondIu;

	const DescriptorList descs(iu.subspan(list, table_len));
	uint64_t total = 0;
	for (size_t i = 0; i < descs.size(); i++) {
		const uint32_t len = descs[i].len;
		if (len == 0)
			return CmdCheck::ZeroLengthDesc;
		total += len;
		if (total > lim.max_data_len)
			return CmdCheck::DataTooLong;
	}
	if (hdr.len.get() != total)
		return CmdCheck::TotalLenMismatch;
	out.descriptors = descs;
	out.data_length = static_cast<uint32_t>(total);
	return CmdCheck::Ok;
}

CmdCheck parse_immediate(std::span<const uint8_t> iu, uint64_t off,
			 const ChannelLimits &lim, ParsedCmd &out)
{
	if (lim.imm_data_offset == 0)
		return CmdCheck::ImmNotNegotiated;
	if (off + sizeof(wire::ImmBuf) > iu.size())
		return CmdCheck::DescBeyondIu;
	if (off + sizeof(wire::ImmBuf) > lim.imm_data_offset)
		return CmdCheck::ImmDescAfterData;
	const uint32_t len =
	    wire::load<wire::ImmBuf>(iu.data() + off).len.get();
	if (len == 0)
		return CmdCheck::ZeroLengthDesc;
	if (uint64_t{lim.imm_data_offset} + len > iu.size())
		return CmdCheck::ImmDataBeyondIu;
	if (len > lim.max_data_len)
		return CmdCheck::DataTooLong;
	out.imm_data = iu.subspan(lim.imm_data_offset, len);
	out.data_length = len;
	return CmdCheck::Ok;
}

} // namespace

uint64_t lun_to_u64(const wire::Lun &lun)
{
	/* Level i's two bytes, big-endian, at bit 16 * i; written out: g++
	 * keeps a loop here a loop. */
	const auto level = [&lun](unsigned i) {
		return uint64_t{wire::load<wire::Be16>(lun.bytes + 2 * i).get()}
		       << (16 * i);
	};
	static_assert(sizeof(lun.bytes) == 8);
	return level(0) | level(1) | level(2) | level(3);
}

CmdCheck parse_cmd(std::span<const uint8_t> iu, const ChannelLimits &lim,
		   ParsedCmd &out)
{
	out = ParsedCmd{};
	if (iu.size() < sizeof(wire::Cmd))
		return CmdCheck::ShortIu;
	const auto w = wire::load<wire::Cmd>(iu.data());

	out.tag = w.tag.get();
	out.lun = w.lun;
	out.sol_not = w.sol_not;
	out.task_attr = static_cast<wire::TaskAttr>(w.task_attr);

	if (iu.size() > lim.it_iu_len)
		return CmdCheck::IuTooLong;
	if (!valid_task_attr(w.task_attr))
		return CmdCheck::ReservedTaskAttr;
	if (w.add_cdb_len & 0x3)
		return CmdCheck::ReservedAddCdbLen;
	const uint64_t desc_off = sizeof(wire::Cmd) + w.add_cdb_len;
	if (desc_off > iu.size())
		return CmdCheck::AddCdbBeyondIu;
	out.cdb =
	    iu.subspan(offsetof(wire::Cmd, cdb), sizeof(w.cdb) + w.add_cdb_len);

	const uint8_t fmt_out = w.buf_fmt >> 4;
	const uint8_t fmt_in = w.buf_fmt & 0xf;
	if (fmt_out > static_cast<uint8_t>(DescFormat::Immediate) ||
	    fmt_in >= static_cast<uint8_t>(DescFormat::Immediate))
		return CmdCheck::ReservedBufFmt;
	if (fmt_out && fmt_in)
		return CmdCheck::Bidirectional;

	uint8_t desc_cnt;
	if (fmt_out) {
		out.dir = DataDir::ToDevice;
		out.format = static_cast<DescFormat>(fmt_out);
		desc_cnt = w.data_out_desc_cnt;
	} else if (fmt_in) {
		out.dir = DataDir::FromDevice;
		out.format = static_cast<DescFormat>(fmt_in);
		desc_cnt = w.data_in_desc_cnt;
	} else {
		out.dir = DataDir::None;
		out.format = DescFormat::None;
		return CmdCheck::Ok;
	}

	switch (out.format) {
	case DescFormat::Direct:
		return parse_direct(iu, desc_off, lim, out);
	case DescFormat::Indirect:
		return parse_indirect(iu, desc_off, desc_cnt, lim, out);
	case DescFormat::Immediate:
		return parse_immediate(iu, desc_off, lim, out);
	case DescFormat::None:
		break;
	}
	return CmdCheck::ReservedBufFmt;
}

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
