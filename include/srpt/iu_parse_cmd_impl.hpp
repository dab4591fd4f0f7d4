/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The SRP_CMD parser, parse_cmd(), and lun_to_u64(), inline: the rules
 * and declarations are in <srpt/iu_parse.hpp>, which includes this file at
 * its end (include that one, not this file). Inline so that the receive
 * hot path (Channel::PrepareCmd, srp_command.cpp) compiles the parser
 * into itself: the ParsedCmd it fills stays in registers and the wire's
 * fields go straight into the glue's srpt_dp_cmd, so a command is parsed
 * once, with no intermediate copy cleared and read back.
 */
#ifndef SRPT_IU_PARSE_CMD_IMPL_HPP
#define SRPT_IU_PARSE_CMD_IMPL_HPP

#include <srpt/iu_parse.hpp>

namespace srpt
{

namespace parse_detail
{

using wire::DescFormat;

inline bool valid_task_attr(uint8_t v)
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

/* The direct descriptor at @off, or DescBeyondIu. */
inline CmdCheck parse_direct(std::span<const uint8_t> iu, uint64_t off,
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

inline CmdCheck parse_indirect(std::span<const uint8_t> iu, uint64_t off,
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

inline CmdCheck parse_immediate(std::span<const uint8_t> iu, uint64_t off,
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

} // namespace parse_detail

inline uint64_t lun_to_u64(const wire::Lun &lun)
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

/*
 * Always inline: at -O2 GCC keeps a function this size out of line, and
 * then PrepareCmd clears a ParsedCmd, has it written and reads it back
 * (27 instructions of the 4 KiB READ's 1016, tests/bench/cost-gate.sh).
 */
[[gnu::always_inline]] inline CmdCheck
parse_cmd(std::span<const uint8_t> iu, const ChannelLimits &lim, ParsedCmd &out)
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
	if (!parse_detail::valid_task_attr(w.task_attr))
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
	if (fmt_out > static_cast<uint8_t>(wire::DescFormat::Immediate) ||
	    fmt_in >= static_cast<uint8_t>(wire::DescFormat::Immediate))
		return CmdCheck::ReservedBufFmt;
	if (fmt_out && fmt_in)
		return CmdCheck::Bidirectional;

	uint8_t desc_cnt;
	if (fmt_out) {
		out.dir = DataDir::ToDevice;
		out.format = static_cast<wire::DescFormat>(fmt_out);
		desc_cnt = w.data_out_desc_cnt;
	} else if (fmt_in) {
		out.dir = DataDir::FromDevice;
		out.format = static_cast<wire::DescFormat>(fmt_in);
		desc_cnt = w.data_in_desc_cnt;
	} else {
		out.dir = DataDir::None;
		out.format = wire::DescFormat::None;
		return CmdCheck::Ok;
	}

	switch (out.format) {
	case wire::DescFormat::Direct:
		return parse_detail::parse_direct(iu, desc_off, lim, out);
	case wire::DescFormat::Indirect:
		return parse_detail::parse_indirect(iu, desc_off, desc_cnt, lim,
						    out);
	case wire::DescFormat::Immediate:
		return parse_detail::parse_immediate(iu, desc_off, lim, out);
	case wire::DescFormat::None:
		break;
	}
	return CmdCheck::ReservedBufFmt;
}

} // namespace srpt

#endif
