/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Connection management: an SRP login (the connect request's private data)
 * becomes a channel, or a LOGIN_REJ. The decisions that do not need the
 * kernel are pure functions here, so that the host tests check them.
 */
#ifndef SRPT_CM_HANDLER_HPP
#define SRPT_CM_HANDLER_HPP

#include <srpt/device_registry.hpp>
#include <srpt/login.hpp>
#include <srpt/status.hpp>
#include <srpt/wire/srp.hpp>
#include <stddef.h>
#include <stdint.h>

namespace srpt
{

/* Credits of a channel: min(128, max_qp_wr), as the in-tree rq_size. */
constexpr uint32_t kMaxChannelCredits = 128;
constexpr uint32_t ChannelCredits(uint32_t max_qp_wr)
{
	return max_qp_wr < kMaxChannelCredits ? max_qp_wr : kMaxChannelCredits;
}

/*
 * The LIO reject reason for a failed target_setup_session: no memory is a
 * resource shortage, anything else (no ACL matches) a channel limit, as
 * in-tree.
 */
constexpr wire::LoginRejReason SessionRejectReason(Status session)
{
	return session == Status::kNoMemory
		   ? wire::LoginRejReason::InsufficientResources
		   : wire::LoginRejReason::ChannelLimitReached;
}

/* Upper bound of one command's data, checked before any allocation. */
constexpr uint32_t kMaxCommandData = PortAttributes::kMaxMaxRdmaSize;

struct LoginResult {
	/*
	 * kOk when the channel took the cm_id (accepted, or closing after a
	 * failed accept); otherwise the CM handler returns it (as -errno) and
	 * the CM destroys the id.
	 */
	Status status;
};

/*
 * The whole login of either CM: one implementation, two entry points
 * that say where it came from.
 * RDMA/CM (srpt_core_dp_rdma_cm_req): @pdata is srp_login_req_rdma;
 * @src_addr names the session on GUID-named ports.
 */
LoginResult HandleRdmaCmLogin(Device &device, uint32_t port_num, void *cm_id,
			      const uint8_t *pdata, uint32_t pdata_len,
			      const char *src_addr);
/*
 * IB/CM (srpt_core_dp_ib_cm_req): @pdata is srp_login_req; the GUID form
 * of @initiator_gid ("xxxx:xxxx:xxxx:xxxx", in-tree srpt_format_guid of
 * the path's dgid) names the session on GUID-named ports; @pkey is handed
 * to the QP's INIT transition.
 */
LoginResult HandleIbCmLogin(Device &device, uint32_t port_num, void *cm_id,
			    const uint8_t *pdata, uint32_t pdata_len,
			    const uint8_t (&initiator_gid)[16], uint16_t pkey);

} // namespace srpt

#endif
