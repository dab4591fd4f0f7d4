// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: parse_iu() and the response built for its outcome.
 *
 * Input: 8 bytes of channel limits, then the received IU (exactly the
 * bytes after the header, so ASan flags any read past wc.byte_len):
 *   [0..1] it_iu_len = 64 + be16 % 8213   (64 .. 8276)
 *   [2]    imm_data_offset = 0 if 0, else 51 + byte
 *   [3]    max_desc
 *   [4..7] max_data_len (be32)
 * Every outcome is checked against the parser's documented invariants.
 */
#include <stddef.h>
#include <stdint.h>

#include <srpt/iu_build.hpp>
#include <srpt/iu_parse.hpp>

using namespace srpt;

namespace
{

#define CHECK(x)                                                               \
	do {                                                                   \
		if (!(x))                                                      \
			__builtin_trap();                                      \
	} while (0)

bool inside(std::span<const uint8_t> inner, const uint8_t *base, size_t len)
{
	if (inner.empty())
		return true;
	return inner.data() >= base &&
	       inner.data() + inner.size() <= base + len;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	ChannelLimits lim{};
	lim.it_iu_len = 64 + ((data[0] << 8 | data[1]) % 8213);
	lim.imm_data_offset = data[2] ? static_cast<uint16_t>(51 + data[2]) : 0;
	lim.max_desc = data[3];
	lim.max_data_len = static_cast<uint32_t>(data[4]) << 24 |
			   data[5] << 16 | data[6] << 8 | data[7];
	const uint8_t *iu = data + 8;
	const size_t n = size - 8;

	const auto r = parse_iu(std::span<const uint8_t>(iu, n), lim);

	CHECK(r.consumes_credit == (n > 0 && (iu[0] == 0x02 || iu[0] == 0x01)));
	CHECK((r.action == IuAction::RejectCmd) ==
	      (r.cmd_check != CmdCheck::Ok));
	CHECK((r.action == IuAction::Drop) == (r.drop != DropReason::None));

	uint8_t rsp[256];
	switch (r.action) {
	case IuAction::ExecuteCmd: {
		const ParsedCmd &c = r.cmd;
		CHECK(n >= sizeof(wire::Cmd) && n <= lim.it_iu_len);
		CHECK(inside(c.cdb, iu, n) && c.cdb.size() >= 16);
		CHECK(inside(c.descriptors.bytes(), iu, n));
		CHECK(inside(c.imm_data, iu, n));
		CHECK(c.data_length <= lim.max_data_len);
		CHECK(c.descriptors.size() <= lim.max_desc);
		uint64_t sum = 0;
		for (size_t i = 0; i < c.descriptors.size(); i++) {
			CHECK(c.descriptors[i].len != 0);
			sum += c.descriptors[i].len;
		}
		switch (c.format) {
		case wire::DescFormat::None:
			CHECK(c.dir == DataDir::None && c.data_length == 0);
			CHECK(c.descriptors.empty() && c.imm_data.empty());
			break;
		case wire::DescFormat::Direct:
			CHECK(c.descriptors.size() == 1);
			CHECK(sum == c.data_length);
			break;
		case wire::DescFormat::Indirect:
			CHECK(c.descriptors.size() >= 1);
			CHECK(sum == c.data_length);
			break;
		case wire::DescFormat::Immediate:
			CHECK(c.dir == DataDir::ToDevice);
			CHECK(lim.imm_data_offset != 0);
			CHECK(c.imm_data.data() == iu + lim.imm_data_offset);
			CHECK(c.imm_data.size() == c.data_length);
			CHECK(c.data_length > 0);
			break;
		}
		CmdRspInfo info{};
		info.tag = r.tag;
		info.req_lim_delta = 1;
		info.status = ScsiStatus::Good;
		info.dir = c.dir;
		info.residual = Residual::Underflow;
		info.residual_count = c.data_length;
		info.sense = c.cdb; /* any bytes: exercises truncation */
		const size_t len = build_cmd_rsp(rsp, lim.it_iu_len, info);
		CHECK(len >= sizeof(wire::Rsp) && len <= sizeof(rsp) &&
		      len <= lim.it_iu_len);
		break;
	}
	case IuAction::RejectCmd: {
		CHECK(n >= sizeof(wire::Cmd));
		CHECK(sense_for(r.cmd_check).key == SenseKey::IllegalRequest);
		const size_t len = build_reject_rsp(rsp, lim.it_iu_len, r, 1);
		CHECK(len == sizeof(wire::Rsp) + kFixedSenseLen);
		CHECK(rsp[19] == 0x02);
		break;
	}
	case IuAction::TaskMgmt:
	case IuAction::RejectTaskMgmt: {
		CHECK(n >= sizeof(wire::TskMgmt));
		CHECK((r.action == IuAction::RejectTaskMgmt) ==
		      (n > lim.it_iu_len));
		const auto code = r.tm.supported
				      ? wire::TskMgmtRspCode::Complete
				      : wire::TskMgmtRspCode::NotSupported;
		CHECK(build_tsk_mgmt_rsp(rsp, r.tag, 1, code) ==
		      kTskMgmtRspLen);
		break;
	}
	case IuAction::Logout:
	case IuAction::Ignore:
		CHECK(n >= 16 && n <= lim.it_iu_len);
		break;
	case IuAction::Drop:
		CHECK(!r.needs_send_context());
		break;
	}
	return 0;
}
