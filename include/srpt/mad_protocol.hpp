// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device-management MAD requests: the byte logic of the in-tree
 * srpt_mad_recv_handler / srpt_mgmt_method_get and its srpt_get_* helpers.
 * The kernel side (MAD agent registration, address handles, sending) is
 * glue; it hands the received 256-byte MAD to handle_dm_mad() and sends
 * the response bytes if respond is set.
 *
 * Response: the request's 64-byte header (MAD, RMPP and DM headers) with
 * method GetResp and the status below; the 192-byte data area zeroed, then
 * filled for a successful Get. (The in-tree driver echoes the request's
 * data bytes around the attribute; a Get carries zeros there, and this
 * never reflects initiator bytes back.)
 *
 *   Get ClassPortInfo     base/class version 1, RespTimeValue 20
 *   Get IOUnitInfo        change_id 1, 16 controllers, slot 1 present
 *   Get IOControllerProfile(slot = attr_mod)
 *                         slot 0 or > 16: InvalidField; 3..16: NoIoc;
 *                         1, 2: the profile from DmDeviceInfo
 *   Get ServiceEntries(attr_mod = slot << 16 | hi << 8 | lo)
 *                         slot 0 or > 16: InvalidField; slot > 2, lo > hi
 *                         or hi > 1: NoIoc; else entry 0 =
 *                         "SRP.T10:<ioc_guid as 16 hex digits>", ioc_guid
 *   Get <other attribute> UnsupportedMethodAttr
 *   Set                   UnsupportedMethodAttr
 *   other methods         UnsupportedMethod
 * No response (respond == false): fewer than 24 bytes, a response method
 * (bit 0x80), base version != 1, class != device management (0x06) or
 * class version != 1 (the kernel MAD layer already filters these), or a
 * response buffer smaller than 256 bytes.
 */
#ifndef SRPT_MAD_PROTOCOL_HPP
#define SRPT_MAD_PROTOCOL_HPP

#include <span>
#include <stddef.h>
#include <stdint.h>

#include <srpt/wire/dm_mad.hpp>

namespace srpt
{

/* Values the IOControllerProfile and ServiceEntries are built from. */
struct DmDeviceInfo {
	uint64_t ioc_guid;	   /* srpt_service_guid */
	uint32_t vendor_id;	   /* ib_device_attr.vendor_id */
	uint32_t vendor_part_id;   /* ib_device_attr.vendor_part_id */
	uint32_t hw_ver;	   /* ib_device_attr.hw_ver (low 16 bits) */
	uint16_t send_queue_depth; /* use_srq ? srq_size
				      : min(128, max_qp_wr) */
	uint32_t max_req_size;	   /* srp_max_req_size -> send_size */
	uint32_t max_rdma_size;	   /* port srp_max_rdma_size, capped 16 MiB */
};

inline constexpr uint32_t kMaxIocRdmaSize = 1u << 24;
inline constexpr uint8_t kIocRdmaReadDepth = 4;
inline constexpr uint8_t kClassPortInfoRespTime = 20;
inline constexpr char kIocIdString[] = "Linux SRP target";
inline constexpr char kSrpServiceNamePrefix[] = "SRP.T10:";

struct MadResult {
	bool respond;		/* send response[0, len) */
	wire::MadStatus status; /* status written in the response */
	size_t len;		/* wire::kMadSize when respond */
};

MadResult handle_dm_mad(std::span<const uint8_t> request,
			const DmDeviceInfo &dev, std::span<uint8_t> response);

/* Attribute fillers, exposed for tests: each writes only its attribute. */
void fill_class_port_info(wire::ClassPortInfo &cpi);
void fill_iou_info(wire::IouInfo &iou);
wire::MadStatus fill_ioc_profile(wire::IocProfile &ioc, uint32_t slot,
				 const DmDeviceInfo &dev);
wire::MadStatus fill_svc_entries(wire::SvcEntries &svc, uint32_t attr_mod,
				 uint64_t ioc_guid);

} // namespace srpt

#endif
