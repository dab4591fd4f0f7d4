// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Device-management MAD handling: see include/srpt/mad_protocol.hpp. */
#include <srpt/mad_protocol.hpp>

namespace srpt
{

using wire::MadStatus;

namespace
{

constexpr uint32_t kIouSlots = 16;
constexpr uint32_t kPopulatedIocSlots = 2;

/* Slot (1-based) of the IOUnitInfo controller list: one nibble each. */
void set_slot(uint8_t *list, uint32_t slot, uint8_t value)
{
	uint8_t &b = list[(slot - 1) / 2];
	if (slot & 1)
		b = static_cast<uint8_t>((b & 0x0f) | (value << 4));
	else
		b = static_cast<uint8_t>((b & 0xf0) | (value & 0x0f));
}

void put_hex64(uint8_t *dst, uint64_t v)
{
	constexpr char digits[] = "0123456789abcdef";
	for (int i = 15; i >= 0; i--) {
		dst[i] = static_cast<uint8_t>(digits[v & 0xf]);
		v >>= 4;
	}
}

} // namespace

void fill_class_port_info(wire::ClassPortInfo &cpi)
{
	cpi = wire::ClassPortInfo{};
	cpi.base_version = 1;
	cpi.class_version = 1;
	cpi.cap_mask2_resp_time.set(kClassPortInfoRespTime & 0x1f);
}

void fill_iou_info(wire::IouInfo &iou)
{
	iou = wire::IouInfo{};
	iou.change_id.set(1);
	iou.max_controllers = kIouSlots;
	set_slot(iou.controller_list, 1, 1);
	for (uint32_t slot = 2; slot <= kIouSlots; slot++)
		set_slot(iou.controller_list, slot, 0);
}

MadStatus fill_ioc_profile(wire::IocProfile &ioc, uint32_t slot,
			   const DmDeviceInfo &dev)
{
	if (slot == 0 || slot > kIouSlots)
		return MadStatus::InvalidField;
	if (slot > kPopulatedIocSlots)
		return MadStatus::NoIoc;

	ioc = wire::IocProfile{};
	static_assert(sizeof(kIocIdString) <= sizeof(ioc.id_string));
	__builtin_memcpy(ioc.id_string, kIocIdString, sizeof(kIocIdString));
	ioc.guid.set(dev.ioc_guid);
	ioc.vendor_id.set(dev.vendor_id);
	ioc.device_id.set(dev.vendor_part_id);
	ioc.device_version.set(static_cast<uint16_t>(dev.hw_ver));
	ioc.subsys_vendor_id.set(dev.vendor_id);
	ioc.subsys_device_id.set(0);
	ioc.io_class.set(wire::kSrpIoClassRev16a);
	ioc.io_subclass.set(wire::kSrpIoSubclass);
	ioc.protocol.set(wire::kSrpProtocol);
	ioc.protocol_version.set(wire::kSrpProtocolVersion);
	ioc.send_queue_depth.set(dev.send_queue_depth);
	ioc.rdma_read_depth = kIocRdmaReadDepth;
	ioc.send_size.set(dev.max_req_size);
	ioc.rdma_size.set(dev.max_rdma_size < kMaxIocRdmaSize
			      ? dev.max_rdma_size
			      : kMaxIocRdmaSize);
	ioc.num_svc_entries = 1;
	ioc.op_cap_mask = wire::kOpCapSendToIoc | wire::kOpCapSendFromIoc |
			  wire::kOpCapRdmaReadFromIoc |
			  wire::kOpCapRdmaWriteFromIoc;
	return MadStatus::Success;
}

MadStatus fill_svc_entries(wire::SvcEntries &svc, uint32_t attr_mod,
			   uint64_t ioc_guid)
{
	const uint32_t slot = attr_mod >> 16;
	const uint8_t hi = static_cast<uint8_t>(attr_mod >> 8);
	const uint8_t lo = static_cast<uint8_t>(attr_mod);

	if (slot == 0 || slot > kIouSlots)
		return MadStatus::InvalidField;
	if (slot > kPopulatedIocSlots || lo > hi || hi > 1)
		return MadStatus::NoIoc;

	svc = wire::SvcEntries{};
	wire::SvcEntry &e = svc.service_entries[0];
	e.id.set(ioc_guid);
	constexpr size_t prefix = sizeof(kSrpServiceNamePrefix) - 1;
	static_assert(prefix + 16 < sizeof(e.name));
	__builtin_memcpy(e.name, kSrpServiceNamePrefix, prefix);
	put_hex64(e.name + prefix, ioc_guid);
	return MadStatus::Success;
}

MadResult handle_dm_mad(std::span<const uint8_t> request,
			const DmDeviceInfo &dev, std::span<uint8_t> response)
{
	constexpr MadResult no_response{false, MadStatus::Success, 0};

	if (request.size() < sizeof(wire::MadHdr) ||
	    response.size() < wire::kMadSize)
		return no_response;
	const auto hdr = wire::load<wire::MadHdr>(request.data());
	if (hdr.base_version != wire::kMgmtBaseVersion ||
	    hdr.mgmt_class != wire::kMgmtClassDeviceMgmt ||
	    hdr.class_version != wire::kMgmtClassVersion ||
	    (hdr.method & wire::kMethodResponseBit))
		return no_response;

	wire::DmMad rsp{};
	const size_t hdr_len = request.size() < wire::kDmHeaderSize
				   ? request.size()
				   : wire::kDmHeaderSize;
	__builtin_memcpy(&rsp, request.data(), hdr_len);
	rsp.mad_hdr.method = wire::kMethodGetResp;

	MadStatus status;
	switch (hdr.method) {
	case wire::kMethodGet:
		switch (static_cast<wire::DmAttr>(hdr.attr_id.get())) {
		case wire::DmAttr::ClassPortInfo: {
			wire::ClassPortInfo cpi;
			fill_class_port_info(cpi);
			wire::store(rsp.data, cpi);
			status = MadStatus::Success;
			break;
		}
		case wire::DmAttr::IouInfo: {
			wire::IouInfo iou;
			fill_iou_info(iou);
			wire::store(rsp.data, iou);
			status = MadStatus::Success;
			break;
		}
		case wire::DmAttr::IocProfile: {
			wire::IocProfile ioc{};
			status = fill_ioc_profile(ioc, hdr.attr_mod.get(), dev);
			if (status == MadStatus::Success)
				wire::store(rsp.data, ioc);
			break;
		}
		case wire::DmAttr::SvcEntries: {
			wire::SvcEntries svc{};
			status = fill_svc_entries(svc, hdr.attr_mod.get(),
						  dev.ioc_guid);
			if (status == MadStatus::Success)
				wire::store(rsp.data, svc);
			break;
		}
		default:
			status = MadStatus::UnsupportedMethodAttr;
			break;
		}
		break;
	case wire::kMethodSet:
		status = MadStatus::UnsupportedMethodAttr;
		break;
	default:
		status = MadStatus::UnsupportedMethod;
		break;
	}

	rsp.mad_hdr.status.set(static_cast<uint16_t>(status));
	wire::store(response.data(), rsp);
	return MadResult{true, status, wire::kMadSize};
}

} // namespace srpt
