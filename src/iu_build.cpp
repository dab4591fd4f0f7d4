// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Builders of target IUs: see include/srpt/iu_build.hpp. */
#include <srpt/iu_build.hpp>

namespace srpt
{

namespace
{

constexpr uint8_t op(wire::Opcode o)
{
	return static_cast<uint8_t>(o);
}

constexpr uint16_t kTargetBufFmt =
    wire::kBufFormatDirect | wire::kBufFormatIndirect;

} // namespace

size_t build_login_rsp(std::span<uint8_t> out, uint64_t tag,
		       const LoginParams &p, bool channels_terminated)
{
	if (out.size() < sizeof(wire::LoginRsp))
		return 0;
	wire::LoginRsp rsp{};
	rsp.opcode = op(wire::Opcode::LoginRsp);
	rsp.req_lim_delta.set(p.req_lim_delta);
	rsp.tag.set(tag);
	rsp.max_it_iu_len.set(p.max_it_iu_len);
	rsp.max_ti_iu_len.set(p.max_ti_iu_len);
	rsp.buf_fmt.set(kTargetBufFmt);
	rsp.rsp_flags = login_rsp_flags(p, channels_terminated);
	wire::store(out.data(), rsp);
	return sizeof(rsp);
}

size_t build_login_rej(std::span<uint8_t> out, uint64_t tag,
		       wire::LoginRejReason reason)
{
	if (out.size() < sizeof(wire::LoginRej))
		return 0;
	wire::LoginRej rej{};
	rej.opcode = op(wire::Opcode::LoginRej);
	rej.reason.set(static_cast<uint32_t>(reason));
	rej.tag.set(tag);
	rej.buf_fmt.set(kTargetBufFmt);
	wire::store(out.data(), rej);
	return sizeof(rej);
}

size_t build_fixed_sense(std::span<uint8_t> out, SenseCode code)
{
	if (out.size() < kFixedSenseLen)
		return 0;
	__builtin_memset(out.data(), 0, kFixedSenseLen);
	out[0] = 0x70; /* current error, fixed format */
	out[2] = static_cast<uint8_t>(code.key);
	out[7] = kFixedSenseLen - 8; /* additional sense length */
	out[12] = code.asc;
	out[13] = code.ascq;
	return kFixedSenseLen;
}

size_t build_cmd_rsp(std::span<uint8_t> out, uint32_t max_ti_iu_len,
		     const CmdRspInfo &info)
{
	size_t limit = out.size();
	if (max_ti_iu_len < limit)
		limit = max_ti_iu_len;
	if (limit < sizeof(wire::Rsp))
		return 0;

	wire::Rsp rsp{};
	rsp.opcode = op(wire::Opcode::Rsp);
	rsp.req_lim_delta.set(info.req_lim_delta);
	rsp.tag.set(info.tag);
	rsp.status = static_cast<uint8_t>(info.status);

	if (info.residual != Residual::None) {
		const bool under = info.residual == Residual::Underflow;
		if (info.dir == DataDir::ToDevice) {
			rsp.flags = under ? wire::kDoUnder : wire::kDoOver;
			rsp.data_out_res_cnt.set(info.residual_count);
		} else if (info.dir == DataDir::FromDevice) {
			rsp.flags = under ? wire::kDiUnder : wire::kDiOver;
			rsp.data_in_res_cnt.set(info.residual_count);
		}
	}

	size_t sense_len = info.sense.size();
	if (sense_len > limit - sizeof(wire::Rsp))
		sense_len = limit - sizeof(wire::Rsp);
	if (sense_len) {
		rsp.flags |= wire::kSnsValid;
		rsp.sense_data_len.set(static_cast<uint32_t>(sense_len));
		__builtin_memcpy(out.data() + sizeof(rsp), info.sense.data(),
				 sense_len);
	}
	wire::store(out.data(), rsp);
	return sizeof(rsp) + sense_len;
}

size_t build_check_condition_rsp(std::span<uint8_t> out, uint32_t max_ti_iu_len,
				 uint64_t tag, uint32_t req_lim_delta,
				 SenseCode code)
{
	uint8_t sense[kFixedSenseLen];
	build_fixed_sense(sense, code);

	CmdRspInfo info{};
	info.tag = tag;
	info.req_lim_delta = req_lim_delta;
	info.status = ScsiStatus::CheckCondition;
	info.dir = DataDir::None;
	info.residual = Residual::None;
	info.sense = sense;
	return build_cmd_rsp(out, max_ti_iu_len, info);
}

size_t build_tsk_mgmt_rsp(std::span<uint8_t> out, uint64_t tag,
			  uint32_t req_lim_delta, wire::TskMgmtRspCode code)
{
	if (out.size() < kTskMgmtRspLen)
		return 0;
	wire::Rsp rsp{};
	rsp.opcode = op(wire::Opcode::Rsp);
	rsp.req_lim_delta.set(req_lim_delta);
	rsp.tag.set(tag);
	rsp.flags = wire::kRspValid;
	rsp.resp_data_len.set(4);
	wire::store(out.data(), rsp);
	const uint8_t data[4] = {0, 0, 0, static_cast<uint8_t>(code)};
	__builtin_memcpy(out.data() + sizeof(rsp), data, sizeof(data));
	return kTskMgmtRspLen;
}

size_t build_t_logout(std::span<uint8_t> out, uint64_t tag, uint32_t reason)
{
	if (out.size() < sizeof(wire::TLogout))
		return 0;
	wire::TLogout t{};
	t.opcode = op(wire::Opcode::TLogout);
	t.reason.set(reason);
	t.tag.set(tag);
	wire::store(out.data(), t);
	return sizeof(t);
}

size_t build_cred_req(std::span<uint8_t> out, uint64_t tag,
		      uint32_t req_lim_delta)
{
	if (out.size() < sizeof(wire::CredReq))
		return 0;
	wire::CredReq c{};
	c.opcode = op(wire::Opcode::CredReq);
	c.req_lim_delta.set(req_lim_delta);
	c.tag.set(tag);
	wire::store(out.data(), c);
	return sizeof(c);
}

} // namespace srpt
