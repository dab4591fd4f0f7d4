// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * InfiniBand device-management MADs as the SRP target answers them:
 * the common MAD header (rdma/ib_mad.h), the DM MAD and its attributes
 * (ib_dm_mad.h; IBA 16.3.3, SRP r16a annex B.7). All fields big-endian.
 */
#ifndef SRPT_WIRE_DM_MAD_HPP
#define SRPT_WIRE_DM_MAD_HPP

#include <stddef.h>
#include <stdint.h>
#include <type_traits>

#include <srpt/wire/endian.hpp>

namespace srpt::wire
{

inline constexpr uint8_t kMgmtBaseVersion = 1;
inline constexpr uint8_t kMgmtClassDeviceMgmt = 0x06;
inline constexpr uint8_t kMgmtClassVersion = 1;

/* MAD methods (IBA 13.4.5). */
inline constexpr uint8_t kMethodGet = 0x01;
inline constexpr uint8_t kMethodSet = 0x02;
inline constexpr uint8_t kMethodResponseBit = 0x80;
inline constexpr uint8_t kMethodGetResp = 0x81;

/* MAD status (IBA 13.4.7 table 115, 16.3.1.1). */
enum class MadStatus : uint16_t {
	Success = 0x0000,
	UnsupportedMethod = 0x0008,
	UnsupportedMethodAttr = 0x000c,
	InvalidField = 0x001c,
	NoIoc = 0x0100,
};

/* Device management attributes (IBA 16.3.3 table 279). */
enum class DmAttr : uint16_t {
	ClassPortInfo = 0x01,
	IouInfo = 0x10,
	IocProfile = 0x11,
	SvcEntries = 0x12,
};

/* IOControllerProfile values for SRP (SRP r16a table B.7). */
inline constexpr uint16_t kSrpIoClassRev16a = 0x0100;
inline constexpr uint16_t kSrpIoClassRev10 = 0xff00;
inline constexpr uint16_t kSrpIoSubclass = 0x609e;
inline constexpr uint16_t kSrpProtocol = 0x0108;
inline constexpr uint16_t kSrpProtocolVersion = 0x0001;
inline constexpr uint8_t kOpCapSendToIoc = 0x01;
inline constexpr uint8_t kOpCapSendFromIoc = 0x02;
inline constexpr uint8_t kOpCapRdmaReadFromIoc = 0x08;
inline constexpr uint8_t kOpCapRdmaWriteFromIoc = 0x20;

struct MadHdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	Be16 status;
	Be16 class_specific;
	Be64 tid;
	Be16 attr_id;
	Be16 resv;
	Be32 attr_mod;
};

struct RmppHdr {
	uint8_t rmpp_version;
	uint8_t rmpp_type;
	uint8_t rmpp_rtime_flags;
	uint8_t rmpp_status;
	Be32 seg_num;
	Be32 paylen_newwin;
};

struct DmHdr {
	uint8_t reserved[28];
};

inline constexpr size_t kMadSize = 256;
inline constexpr size_t kDmHeaderSize = 64; /* IB_MGMT_DEVICE_HDR */
inline constexpr size_t kDmDataSize = 192;  /* IB_MGMT_DEVICE_DATA */

struct DmMad {
	MadHdr mad_hdr;
	RmppHdr rmpp_hdr;
	DmHdr dm_hdr;
	uint8_t data[kDmDataSize];
};

struct ClassPortInfo {
	uint8_t base_version;
	uint8_t class_version;
	Be16 capability_mask;
	Be32 cap_mask2_resp_time; /* 27 bits CapabilityMask2, 5 bits RespTime */
	uint8_t redirect_gid[16];
	Be32 redirect_tcslfl;
	Be16 redirect_lid;
	Be16 redirect_pkey;
	Be32 redirect_qp;
	Be32 redirect_qkey;
	uint8_t trap_gid[16];
	Be32 trap_tcslfl;
	Be16 trap_lid;
	Be16 trap_pkey;
	Be32 trap_hlqp;
	Be32 trap_qkey;
};

struct IouInfo {
	Be16 change_id;
	uint8_t max_controllers;
	uint8_t op_rom;
	uint8_t controller_list[128]; /* one nibble per slot, slot 1 high */
};

struct IocProfile {
	Be64 guid;
	Be32 vendor_id;
	Be32 device_id;
	Be16 device_version;
	Be16 reserved1;
	Be32 subsys_vendor_id;
	Be32 subsys_device_id;
	Be16 io_class;
	Be16 io_subclass;
	Be16 protocol;
	Be16 protocol_version;
	Be16 service_conn;
	Be16 initiators_supported;
	Be16 send_queue_depth;
	uint8_t reserved2;
	uint8_t rdma_read_depth;
	Be32 send_size;
	Be32 rdma_size;
	uint8_t op_cap_mask;
	uint8_t svc_cap_mask;
	uint8_t num_svc_entries;
	uint8_t reserved3[9];
	uint8_t id_string[64];
};

struct SvcEntry {
	uint8_t name[40];
	Be64 id;
};

struct SvcEntries {
	SvcEntry service_entries[4];
};

#define SRPT_WIRE_AT(T, f, off)                                                \
	static_assert(offsetof(T, f) == (off), #T "." #f)

static_assert(sizeof(MadHdr) == 24);
SRPT_WIRE_AT(MadHdr, mgmt_class, 1);
SRPT_WIRE_AT(MadHdr, class_version, 2);
SRPT_WIRE_AT(MadHdr, method, 3);
SRPT_WIRE_AT(MadHdr, status, 4);
SRPT_WIRE_AT(MadHdr, class_specific, 6);
SRPT_WIRE_AT(MadHdr, tid, 8);
SRPT_WIRE_AT(MadHdr, attr_id, 16);
SRPT_WIRE_AT(MadHdr, resv, 18);
SRPT_WIRE_AT(MadHdr, attr_mod, 20);
static_assert(sizeof(RmppHdr) == 12);
SRPT_WIRE_AT(RmppHdr, seg_num, 4);
SRPT_WIRE_AT(RmppHdr, paylen_newwin, 8);
static_assert(sizeof(DmHdr) == 28);
static_assert(sizeof(DmMad) == kMadSize);
SRPT_WIRE_AT(DmMad, rmpp_hdr, 24);
SRPT_WIRE_AT(DmMad, dm_hdr, 36);
SRPT_WIRE_AT(DmMad, data, kDmHeaderSize);

static_assert(sizeof(ClassPortInfo) == 72);
SRPT_WIRE_AT(ClassPortInfo, capability_mask, 2);
SRPT_WIRE_AT(ClassPortInfo, cap_mask2_resp_time, 4);
SRPT_WIRE_AT(ClassPortInfo, redirect_gid, 8);
SRPT_WIRE_AT(ClassPortInfo, redirect_tcslfl, 24);
SRPT_WIRE_AT(ClassPortInfo, redirect_lid, 28);
SRPT_WIRE_AT(ClassPortInfo, redirect_pkey, 30);
SRPT_WIRE_AT(ClassPortInfo, redirect_qp, 32);
SRPT_WIRE_AT(ClassPortInfo, redirect_qkey, 36);
SRPT_WIRE_AT(ClassPortInfo, trap_gid, 40);
SRPT_WIRE_AT(ClassPortInfo, trap_tcslfl, 56);
SRPT_WIRE_AT(ClassPortInfo, trap_lid, 60);
SRPT_WIRE_AT(ClassPortInfo, trap_pkey, 62);
SRPT_WIRE_AT(ClassPortInfo, trap_hlqp, 64);
SRPT_WIRE_AT(ClassPortInfo, trap_qkey, 68);

static_assert(sizeof(IouInfo) == 132);
SRPT_WIRE_AT(IouInfo, max_controllers, 2);
SRPT_WIRE_AT(IouInfo, op_rom, 3);
SRPT_WIRE_AT(IouInfo, controller_list, 4);

static_assert(sizeof(IocProfile) == 128);
SRPT_WIRE_AT(IocProfile, vendor_id, 8);
SRPT_WIRE_AT(IocProfile, device_id, 12);
SRPT_WIRE_AT(IocProfile, device_version, 16);
SRPT_WIRE_AT(IocProfile, subsys_vendor_id, 20);
SRPT_WIRE_AT(IocProfile, subsys_device_id, 24);
SRPT_WIRE_AT(IocProfile, io_class, 28);
SRPT_WIRE_AT(IocProfile, io_subclass, 30);
SRPT_WIRE_AT(IocProfile, protocol, 32);
SRPT_WIRE_AT(IocProfile, protocol_version, 34);
SRPT_WIRE_AT(IocProfile, service_conn, 36);
SRPT_WIRE_AT(IocProfile, initiators_supported, 38);
SRPT_WIRE_AT(IocProfile, send_queue_depth, 40);
SRPT_WIRE_AT(IocProfile, rdma_read_depth, 43);
SRPT_WIRE_AT(IocProfile, send_size, 44);
SRPT_WIRE_AT(IocProfile, rdma_size, 48);
SRPT_WIRE_AT(IocProfile, op_cap_mask, 52);
SRPT_WIRE_AT(IocProfile, svc_cap_mask, 53);
SRPT_WIRE_AT(IocProfile, num_svc_entries, 54);
SRPT_WIRE_AT(IocProfile, reserved3, 55);
SRPT_WIRE_AT(IocProfile, id_string, 64);

static_assert(sizeof(SvcEntry) == 48);
SRPT_WIRE_AT(SvcEntry, id, 40);
static_assert(sizeof(SvcEntries) == 192);
static_assert(sizeof(SvcEntries) <= kDmDataSize &&
	      sizeof(IocProfile) <= kDmDataSize &&
	      sizeof(IouInfo) <= kDmDataSize &&
	      sizeof(ClassPortInfo) <= kDmDataSize);

#undef SRPT_WIRE_AT

static_assert(std::is_trivially_copyable_v<DmMad> &&
	      std::is_standard_layout_v<DmMad> && alignof(DmMad) == 1);
static_assert(alignof(IocProfile) == 1 && alignof(SvcEntries) == 1 &&
	      alignof(IouInfo) == 1 && alignof(ClassPortInfo) == 1);

} // namespace srpt::wire

#endif
