// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Builders of the IUs the target sends. Each writes into the caller's
 * buffer and returns the number of bytes to send, or 0 (and writes nothing)
 * when the buffer is too small. Field values follow the in-tree driver
 * (srpt_cm_req_recv, srpt_build_cmd_rsp, srpt_build_tskmgmt_rsp); reserved
 * bytes are zero.
 */
#ifndef SRPT_IU_BUILD_HPP
#define SRPT_IU_BUILD_HPP

#include <span>
#include <stddef.h>
#include <stdint.h>

#include <srpt/iu_parse.hpp>
#include <srpt/login.hpp>
#include <srpt/scsi.hpp>
#include <srpt/wire/srp.hpp>

namespace srpt
{

/*
 * SRP_LOGIN_RSP (52 bytes): tag echoed, req_lim_delta, max_it_iu_len,
 * max_ti_iu_len, buf_fmt DIRECT|INDIRECT, rsp_flags from
 * login_rsp_flags(p, channels_terminated).
 */
size_t build_login_rsp(std::span<uint8_t> out, uint64_t tag,
		       const LoginParams &p, bool channels_terminated);

/* SRP_LOGIN_REJ (32 bytes): reason, tag, buf_fmt DIRECT|INDIRECT. */
size_t build_login_rej(std::span<uint8_t> out, uint64_t tag,
		       wire::LoginRejReason reason);

/* Fixed-format (0x70, current) sense data: kFixedSenseLen bytes. */
size_t build_fixed_sense(std::span<uint8_t> out, SenseCode code);

enum class Residual : uint8_t {
	None,
	Underflow, /* fewer bytes moved than the descriptors offered */
	Overflow,  /* the command wanted more than the descriptors offered */
};

struct CmdRspInfo {
	uint64_t tag;
	uint32_t req_lim_delta; /* >= 1: this response's credit + owed ones */
	ScsiStatus status;
	DataDir dir; /* residual flags only for ToDevice / FromDevice */
	Residual residual;
	uint32_t residual_count;
	std::span<const uint8_t> sense; /* empty: no SNSVALID */
};

/*
 * SRP_RSP for a SCSI command: 36 bytes + sense. Residual sets DOUNDER /
 * DOOVER (data-out) or DIUNDER / DIOVER (data-in) with the count in the
 * matching field. Sense is truncated to
 * min(max_ti_iu_len, out.size()) - 36 bytes.
 */
size_t build_cmd_rsp(std::span<uint8_t> out, uint32_t max_ti_iu_len,
		     const CmdRspInfo &info);

/* SRP_RSP with CHECK CONDITION and fixed-format sense for @code. */
size_t build_check_condition_rsp(std::span<uint8_t> out, uint32_t max_ti_iu_len,
				 uint64_t tag, uint32_t req_lim_delta,
				 SenseCode code);

/* The CHECK CONDITION response for an SRP_CMD parse_cmd() refused. */
inline size_t build_reject_rsp(std::span<uint8_t> out, uint32_t max_ti_iu_len,
			       uint64_t tag, CmdCheck check,
			       uint32_t req_lim_delta)
{
	return build_check_condition_rsp(out, max_ti_iu_len, tag, req_lim_delta,
					 sense_for(check));
}

/* The same for a RejectCmd outcome of parse_iu(). */
inline size_t build_reject_rsp(std::span<uint8_t> out, uint32_t max_ti_iu_len,
			       const IuParseResult &r, uint32_t req_lim_delta)
{
	return build_reject_rsp(out, max_ti_iu_len, r.tag, r.cmd_check,
				req_lim_delta);
}

/* Task management SRP_RSP: RSPVALID, 4 bytes of response data, code in
 * the last one (40 bytes). */
inline constexpr size_t kTskMgmtRspLen = sizeof(wire::Rsp) + 4;
size_t build_tsk_mgmt_rsp(std::span<uint8_t> out, uint64_t tag,
			  uint32_t req_lim_delta, wire::TskMgmtRspCode code);

/* SRP_T_LOGOUT (16 bytes). */
size_t build_t_logout(std::span<uint8_t> out, uint64_t tag, uint32_t reason);

/* SRP_CRED_REQ (16 bytes). */
size_t build_cred_req(std::span<uint8_t> out, uint64_t tag,
		      uint32_t req_lim_delta);

} // namespace srpt

#endif
