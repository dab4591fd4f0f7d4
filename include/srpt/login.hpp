// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRP_LOGIN_REQ validation and parameter negotiation.
 *
 * Pure functions over the CM private data: no allocation, no locks, no
 * logging (the caller logs describe(check) for a rejected login). The
 * checks that need channel-layer state (ACL lookup, resources, existing
 * channels of the nexus) are not here: the CM layer rejects those itself
 * with build_login_rej() and the matching LoginRejReason.
 *
 * Checks, in this order (the first failure decides the reason):
 *   private data shorter than the login form   UnableToEstablishChannel
 *   opcode != LOGIN_REQ                        UnableToEstablishChannel
 *   req_it_iu_len < 64 or > srp_max_req_size   ItIuLengthTooLarge
 *   target port disabled                       InsufficientResources
 *   target_port_id != service GUID (2 halves)  UnableToAssociateChannel
 *   req_buf_fmt bits other than DIRECT|INDIRECT
 *                                              UnsupportedDescriptorFormat
 *   MULTI-CHANNEL ACTION 2 or 3 (reserved)     UnableToEstablishChannel
 * Length, port state and target_port_id are what the in-tree
 * srpt_cm_req_recv() checks, with the same reasons; the others are
 * unchecked there.
 *
 * Immediate data is granted (LOGIN_RSP IMMED_SUPP) only when requested,
 * without SRQ, and with 52 <= imm_data_offset < req_it_iu_len (the SRP_CMD
 * header and the 4-byte immediate descriptor must precede the data, and
 * at least one data byte must fit in an IU). Otherwise it is declined, not
 * rejected: the login succeeds without IMMED_SUPP, as the in-tree driver
 * does for offsets below 48 and with SRQ.
 */
#ifndef SRPT_LOGIN_HPP
#define SRPT_LOGIN_HPP

#include <optional>
#include <span>
#include <stddef.h>
#include <stdint.h>

#include <srpt/wire/srp.hpp>

namespace srpt
{

/* Smallest req_it_iu_len accepted (in-tree srpt_cm_req_recv). */
inline constexpr uint32_t kMinItIuLen = 64;
/* Smallest imm_data_offset granted: sizeof(Cmd) + sizeof(ImmBuf). */
inline constexpr uint16_t kMinImmDataOffset =
    sizeof(wire::Cmd) + sizeof(wire::ImmBuf);

/* A LOGIN_REQ decoded from either CM form, in host order. */
struct LoginRequest {
	uint64_t tag; /* opaque: echoed in LOGIN_RSP / LOGIN_REJ */
	uint8_t opcode;
	uint32_t it_iu_len;
	uint16_t buf_fmt;
	uint8_t flags;
	uint16_t imm_data_offset;
	uint8_t initiator_port_id[16];
	uint8_t target_port_id[16];
};

/* IB/CM REQ private data (struct srp_login_req, 64 bytes). */
std::optional<LoginRequest> decode_login_req(std::span<const uint8_t> pdata);
/* RDMA/CM connect private data (struct srp_login_req_rdma, 56 bytes). */
std::optional<LoginRequest>
decode_login_req_rdma(std::span<const uint8_t> pdata);

/* Target-side inputs of the negotiation. */
struct LoginConfig {
	uint64_t service_guid; /* srpt_service_guid: expected target_port_id */
	uint32_t max_req_size; /* srp_max_req_size: max_it_iu_len */
	uint32_t req_lim;      /* credits granted (rq_size, <= send contexts) */
	bool port_enabled;     /* a TPG of the port is enabled */
	bool use_srq;	       /* SRQ receive ring: no immediate data */
};

/* What was accepted; the channel is sized from this. */
struct LoginParams {
	uint32_t it_iu_len;	  /* negotiated: longer IUs are rejected */
	uint32_t max_it_iu_len;	  /* sent in LOGIN_RSP (= srp_max_req_size) */
	uint32_t max_ti_iu_len;	  /* sent in LOGIN_RSP (= req_it_iu_len, as
				     in-tree); sense is truncated to it */
	uint16_t imm_data_offset; /* 0: immediate data not granted */
	bool immediate_data;
	wire::MultiChannelAction multichannel;
	uint32_t req_lim_delta; /* initial credits */
	uint16_t buf_fmt;	/* DIRECT | INDIRECT */
};

/* Precise cause of a rejection (for logs and tests). */
enum class LoginCheck : uint8_t {
	Ok,
	ShortPrivateData,
	BadOpcode,
	ItIuLenTooSmall,
	ItIuLenTooLarge,
	PortDisabled,
	TargetPortIdMismatch,
	UnsupportedBufFmt,
	ReservedMultiChannelAction,
};

struct LoginDecision {
	LoginCheck check;	     /* Ok: accepted */
	wire::LoginRejReason reason; /* valid when check != Ok */
	uint64_t tag;		     /* request tag, 0 if unreadable */
	LoginParams params;	     /* valid when check == Ok */

	bool accepted() const { return check == LoginCheck::Ok; }
};

LoginDecision negotiate_login(const LoginRequest &req, const LoginConfig &cfg);
/*
 * On what a decode_login_req*() returned: nothing decoded (short private
 * data) is a rejection, not an error.
 */
LoginDecision negotiate_login(const std::optional<LoginRequest> &req,
			      const LoginConfig &cfg);

/* decode + negotiate */
LoginDecision negotiate_login_ib_cm(std::span<const uint8_t> pdata,
				    const LoginConfig &cfg);
LoginDecision negotiate_login_rdma_cm(std::span<const uint8_t> pdata,
				      const LoginConfig &cfg);

/* LOGIN_RSP rsp_flags for an accepted login. channels_terminated: the
 * channel layer closed other channels of the nexus (MULTI-CHANNEL ACTION
 * single). */
uint8_t login_rsp_flags(const LoginParams &params, bool channels_terminated);

const char *describe(LoginCheck check);

} // namespace srpt

#endif
