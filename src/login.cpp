// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SRP_LOGIN_REQ validation and negotiation: see include/srpt/login.hpp. */
#include <srpt/login.hpp>

namespace srpt
{

using wire::LoginRejReason;

namespace
{

/* Both CM forms carry the same fields under the same names. */
template <typename Wire>
std::optional<LoginRequest> decode_login(std::span<const uint8_t> pdata)
{
	if (pdata.size() < sizeof(Wire))
		return std::nullopt;
	const auto w = wire::load<Wire>(pdata.data());
	LoginRequest r{};
	r.tag = w.tag.get();
	r.opcode = w.opcode;
	r.it_iu_len = w.req_it_iu_len.get();
	r.buf_fmt = w.req_buf_fmt.get();
	r.flags = w.req_flags;
	r.imm_data_offset = w.imm_data_offset.get();
	__builtin_memcpy(r.initiator_port_id, w.initiator_port_id, 16);
	__builtin_memcpy(r.target_port_id, w.target_port_id, 16);
	return r;
}

} // namespace

std::optional<LoginRequest> decode_login_req(std::span<const uint8_t> pdata)
{
	return decode_login<wire::LoginReq>(pdata);
}

std::optional<LoginRequest>
decode_login_req_rdma(std::span<const uint8_t> pdata)
{
	return decode_login<wire::LoginReqRdma>(pdata);
}

namespace
{

LoginDecision reject(uint64_t tag, LoginCheck check, LoginRejReason reason)
{
	LoginDecision d{};
	d.check = check;
	d.reason = reason;
	d.tag = tag;
	return d;
}

bool target_port_id_matches(const uint8_t id[16], uint64_t guid)
{
	wire::Be64 half[2];
	__builtin_memcpy(half, id, sizeof(half));
	return half[0].get() == guid && half[1].get() == guid;
}

} // namespace

LoginDecision negotiate_login(const LoginRequest &req, const LoginConfig &cfg)
{
	constexpr uint16_t supported_fmt =
	    wire::kBufFormatDirect | wire::kBufFormatIndirect;

	if (req.opcode != static_cast<uint8_t>(wire::Opcode::LoginReq))
		return reject(req.tag, LoginCheck::BadOpcode,
			      LoginRejReason::UnableToEstablishChannel);
	if (req.it_iu_len < kMinItIuLen)
		return reject(req.tag, LoginCheck::ItIuLenTooSmall,
			      LoginRejReason::ItIuLengthTooLarge);
	if (req.it_iu_len > cfg.max_req_size)
		return reject(req.tag, LoginCheck::ItIuLenTooLarge,
			      LoginRejReason::ItIuLengthTooLarge);
	if (!cfg.port_enabled)
		return reject(req.tag, LoginCheck::PortDisabled,
			      LoginRejReason::InsufficientResources);
	if (!target_port_id_matches(req.target_port_id, cfg.service_guid))
		return reject(req.tag, LoginCheck::TargetPortIdMismatch,
			      LoginRejReason::UnableToAssociateChannel);
	if (req.buf_fmt & ~supported_fmt)
		return reject(req.tag, LoginCheck::UnsupportedBufFmt,
			      LoginRejReason::UnsupportedDescriptorFormat);

	const uint8_t mc = req.flags & wire::kReqFlagMultiChannelMask;
	if (mc != static_cast<uint8_t>(wire::MultiChannelAction::Single) &&
	    mc != static_cast<uint8_t>(wire::MultiChannelAction::Multi))
		return reject(req.tag, LoginCheck::ReservedMultiChannelAction,
			      LoginRejReason::UnableToEstablishChannel);

	LoginDecision d{};
	d.check = LoginCheck::Ok;
	d.tag = req.tag;
	LoginParams &p = d.params;
	p.it_iu_len = req.it_iu_len;
	p.max_it_iu_len = cfg.max_req_size;
	p.max_ti_iu_len = req.it_iu_len;
	p.multichannel = static_cast<wire::MultiChannelAction>(mc);
	p.req_lim_delta = cfg.req_lim;
	p.buf_fmt = supported_fmt;

	const bool want_imm = req.flags & wire::kReqFlagImmediateRequested;
	if (want_imm && !cfg.use_srq &&
	    req.imm_data_offset >= kMinImmDataOffset &&
	    req.imm_data_offset < req.it_iu_len) {
		p.immediate_data = true;
		p.imm_data_offset = req.imm_data_offset;
	}
	return d;
}

LoginDecision negotiate_login(const std::optional<LoginRequest> &req,
			      const LoginConfig &cfg)
{
	if (!req)
		return reject(0, LoginCheck::ShortPrivateData,
			      LoginRejReason::UnableToEstablishChannel);
	return negotiate_login(*req, cfg);
}

LoginDecision negotiate_login_ib_cm(std::span<const uint8_t> pdata,
				    const LoginConfig &cfg)
{
	return negotiate_login(decode_login_req(pdata), cfg);
}

LoginDecision negotiate_login_rdma_cm(std::span<const uint8_t> pdata,
				      const LoginConfig &cfg)
{
	return negotiate_login(decode_login_req_rdma(pdata), cfg);
}

uint8_t login_rsp_flags(const LoginParams &params, bool channels_terminated)
{
	uint8_t flags = wire::kRspFlagNoChannel;

	if (params.multichannel == wire::MultiChannelAction::Multi)
		flags |= wire::kRspFlagChannelsMaintained;
	else if (channels_terminated)
		flags |= wire::kRspFlagChannelsTerminated;
	if (params.immediate_data)
		flags |= wire::kRspFlagImmediateSupported;
	return flags;
}

const char *describe(LoginCheck check)
{
	switch (check) {
	case LoginCheck::Ok:
		return "accepted";
	case LoginCheck::ShortPrivateData:
		return "login private data too short";
	case LoginCheck::BadOpcode:
		return "opcode is not SRP_LOGIN_REQ";
	case LoginCheck::ItIuLenTooSmall:
		return "req_it_iu_len below 64";
	case LoginCheck::ItIuLenTooLarge:
		return "req_it_iu_len above srp_max_req_size";
	case LoginCheck::PortDisabled:
		return "target port not enabled";
	case LoginCheck::TargetPortIdMismatch:
		return "target_port_id does not match the service GUID";
	case LoginCheck::UnsupportedBufFmt:
		return "required buffer format not supported";
	case LoginCheck::ReservedMultiChannelAction:
		return "reserved multi-channel action";
	}
	return "unknown";
}

} // namespace srpt
