// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRP information units, byte for byte as in include/scsi/srp.h (the layout
 * ib_srp and the in-tree ib_srpt exchange; SRP r16a / SRP-2 for semantics).
 *
 * Every struct here has alignment 1 (all fields are bytes or wire integers
 * from endian.hpp), so none of them has padding: each one is packed exactly
 * as on the wire, including the ones srp.h must mark __packed (LOGIN_RSP,
 * RSP, AER_REQ, the indirect descriptor header). Never cast a receive
 * buffer to these types: check the length, then copy with wire::load().
 */
#ifndef SRPT_WIRE_SRP_HPP
#define SRPT_WIRE_SRP_HPP

#include <stddef.h>
#include <stdint.h>
#include <type_traits>

#include <srpt/wire/endian.hpp>

namespace srpt::wire
{

/* IU type, byte 0 of every IU. */
enum class Opcode : uint8_t {
	/* initiator to target */
	LoginReq = 0x00,
	TskMgmt = 0x01,
	Cmd = 0x02,
	ILogout = 0x03,
	CredRsp = 0x41,
	AerRsp = 0x42,
	/* target to initiator */
	LoginRsp = 0xc0,
	Rsp = 0xc1,
	LoginRej = 0xc2,
	TLogout = 0x80,
	CredReq = 0x81,
	AerReq = 0x82,
};

/* LOGIN_REQ.req_buf_fmt / LOGIN_RSP.buf_fmt / LOGIN_REJ.buf_fmt bits. */
inline constexpr uint16_t kBufFormatDirect = 1u << 1;
inline constexpr uint16_t kBufFormatIndirect = 1u << 2;

/* One nibble of SRP_CMD.buf_fmt (high: data-out, low: data-in). */
enum class DescFormat : uint8_t {
	None = 0,
	Direct = 1,
	Indirect = 2,
	Immediate = 3, /* SRP-2, data-out only */
};

/* LOGIN_REQ.req_flags */
inline constexpr uint8_t kReqFlagMultiChannelMask = 0x03;
inline constexpr uint8_t kReqFlagImmediateRequested = 0x80;

/* LOGIN_REQ MULTI-CHANNEL ACTION (req_flags bits 0-1, 2 and 3 reserved). */
enum class MultiChannelAction : uint8_t {
	Single = 0, /* terminate other channels of the same I_T nexus */
	Multi = 1,  /* keep them */
};

/* LOGIN_RSP.rsp_flags */
inline constexpr uint8_t kRspFlagNoChannel = 0x00;
inline constexpr uint8_t kRspFlagChannelsTerminated = 0x01;
inline constexpr uint8_t kRspFlagChannelsMaintained = 0x02;
inline constexpr uint8_t kRspFlagImmediateSupported = 0x80;

/* LOGIN_REJ.reason */
enum class LoginRejReason : uint32_t {
	UnableToEstablishChannel = 0x00010000,
	InsufficientResources = 0x00010001,
	ItIuLengthTooLarge = 0x00010002,
	UnableToAssociateChannel = 0x00010003,
	UnsupportedDescriptorFormat = 0x00010004,
	MultiChannelUnsupported = 0x00010005,
	ChannelLimitReached = 0x00010006,
};

/* SRP_TSK_MGMT.tsk_mgmt_func */
enum class TskMgmtFunc : uint8_t {
	AbortTask = 0x01,
	AbortTaskSet = 0x02,
	ClearTaskSet = 0x04,
	LunReset = 0x08,
	ClearAca = 0x40,
};

/* RSP_CODE of a task management response (SRP r16a table 24). */
enum class TskMgmtRspCode : uint8_t {
	Complete = 0x00,
	FieldsInvalid = 0x02,
	NotSupported = 0x04,
	Failed = 0x05,
};

/* SRP_CMD.task_attr (bits 0-2; the other values are reserved). */
enum class TaskAttr : uint8_t {
	Simple = 0x0,
	HeadOfQueue = 0x1,
	Ordered = 0x2,
	Aca = 0x4,
};

/* SRP_RSP.flags */
inline constexpr uint8_t kRspValid = 1u << 0;
inline constexpr uint8_t kSnsValid = 1u << 1;
inline constexpr uint8_t kDoOver = 1u << 2;
inline constexpr uint8_t kDoUnder = 1u << 3;
inline constexpr uint8_t kDiOver = 1u << 4;
inline constexpr uint8_t kDiUnder = 1u << 5;

/* struct scsi_lun: 8 bytes, SAM order. */
struct Lun {
	uint8_t bytes[8];
};

/* Direct data buffer descriptor (SRP r16a 5.5.2.1). */
struct DirectBuf {
	Be64 va;
	Be32 key;
	Be32 len;
};

/*
 * Indirect data buffer descriptor header; desc_list (DirectBuf entries)
 * follows it. table_desc.len is the size in bytes of the whole list, len
 * the total data length.
 */
struct IndirectBufHeader {
	DirectBuf table_desc;
	Be32 len;
	/* DirectBuf desc_list[]; */
};

/* Immediate data descriptor (SRP-2): the data is at imm_data_offset. */
struct ImmBuf {
	Be32 len;
};

struct LoginReq {
	uint8_t opcode;
	uint8_t reserved1[7];
	Opaque64 tag;
	Be32 req_it_iu_len;
	uint8_t reserved2[4];
	Be16 req_buf_fmt;
	uint8_t req_flags;
	uint8_t reserved3;
	Be16 imm_data_offset;
	uint8_t reserved4[2];
	uint8_t initiator_port_id[16];
	uint8_t target_port_id[16];
};

/* RDMA/CM private-data form of LOGIN_REQ (ib_srp over RDMA/CM). */
struct LoginReqRdma {
	Opaque64 tag;
	Be16 req_buf_fmt;
	uint8_t req_flags;
	uint8_t opcode;
	Be32 req_it_iu_len;
	uint8_t initiator_port_id[16];
	uint8_t target_port_id[16];
	Be16 imm_data_offset;
	uint8_t reserved[6];
};

struct LoginRsp {
	uint8_t opcode;
	uint8_t reserved1[3];
	Be32 req_lim_delta;
	Opaque64 tag;
	Be32 max_it_iu_len;
	Be32 max_ti_iu_len;
	Be16 buf_fmt;
	uint8_t rsp_flags;
	uint8_t reserved2[25];
};

struct LoginRej {
	uint8_t opcode;
	uint8_t reserved1[3];
	Be32 reason;
	Opaque64 tag;
	uint8_t reserved2[8];
	Be16 buf_fmt;
	uint8_t reserved3[6];
};

struct ILogout {
	uint8_t opcode;
	uint8_t reserved[7];
	Opaque64 tag;
};

struct TLogout {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved[2];
	Be32 reason;
	Opaque64 tag;
};

struct TskMgmt {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved1[6];
	Opaque64 tag;
	uint8_t reserved2[4];
	Lun lun;
	uint8_t reserved3[2];
	uint8_t tsk_mgmt_func;
	uint8_t reserved4;
	Opaque64 task_tag;
	uint8_t reserved5[8];
};

/* Fixed part of SRP_CMD; additional CDB bytes and descriptors follow. */
struct Cmd {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved1[3];
	uint8_t buf_fmt;
	uint8_t data_out_desc_cnt;
	uint8_t data_in_desc_cnt;
	Opaque64 tag;
	uint8_t reserved2[4];
	Lun lun;
	uint8_t reserved3;
	uint8_t task_attr;
	uint8_t reserved4;
	uint8_t add_cdb_len;
	uint8_t cdb[16];
	/* uint8_t add_data[]; */
};

/* Fixed part of SRP_RSP; response data then sense data follow. */
struct Rsp {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved1[2];
	Be32 req_lim_delta;
	Opaque64 tag;
	uint8_t reserved2[2];
	uint8_t flags;
	uint8_t status;
	Be32 data_out_res_cnt;
	Be32 data_in_res_cnt;
	Be32 sense_data_len;
	Be32 resp_data_len;
	/* uint8_t data[]; */
};

struct CredReq {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved[2];
	Be32 req_lim_delta;
	Opaque64 tag;
};

struct CredRsp {
	uint8_t opcode;
	uint8_t reserved[7];
	Opaque64 tag;
};

/* Fixed part of SRP_AER_REQ; sense data follow. */
struct AerReq {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved[2];
	Be32 req_lim_delta;
	Opaque64 tag;
	uint8_t reserved2[4];
	Lun lun;
	Be32 sense_data_len;
	uint8_t reserved3[4];
	/* uint8_t sense_data[]; */
};

struct AerRsp {
	uint8_t opcode;
	uint8_t reserved[7];
	Opaque64 tag;
};

/* Sizes and offsets, from include/scsi/srp.h as compiled by the kernel. */
#define SRPT_WIRE_AT(T, f, off)                                                \
	static_assert(offsetof(T, f) == (off), #T "." #f)

static_assert(sizeof(Lun) == 8);
static_assert(sizeof(DirectBuf) == 16);
SRPT_WIRE_AT(DirectBuf, va, 0);
SRPT_WIRE_AT(DirectBuf, key, 8);
SRPT_WIRE_AT(DirectBuf, len, 12);
static_assert(sizeof(IndirectBufHeader) == 20);
SRPT_WIRE_AT(IndirectBufHeader, table_desc, 0);
SRPT_WIRE_AT(IndirectBufHeader, len, 16);
static_assert(sizeof(ImmBuf) == 4);

static_assert(sizeof(LoginReq) == 64);
SRPT_WIRE_AT(LoginReq, opcode, 0);
SRPT_WIRE_AT(LoginReq, tag, 8);
SRPT_WIRE_AT(LoginReq, req_it_iu_len, 16);
SRPT_WIRE_AT(LoginReq, req_buf_fmt, 24);
SRPT_WIRE_AT(LoginReq, req_flags, 26);
SRPT_WIRE_AT(LoginReq, imm_data_offset, 28);
SRPT_WIRE_AT(LoginReq, initiator_port_id, 32);
SRPT_WIRE_AT(LoginReq, target_port_id, 48);

static_assert(sizeof(LoginReqRdma) == 56);
SRPT_WIRE_AT(LoginReqRdma, tag, 0);
SRPT_WIRE_AT(LoginReqRdma, req_buf_fmt, 8);
SRPT_WIRE_AT(LoginReqRdma, req_flags, 10);
SRPT_WIRE_AT(LoginReqRdma, opcode, 11);
SRPT_WIRE_AT(LoginReqRdma, req_it_iu_len, 12);
SRPT_WIRE_AT(LoginReqRdma, initiator_port_id, 16);
SRPT_WIRE_AT(LoginReqRdma, target_port_id, 32);
SRPT_WIRE_AT(LoginReqRdma, imm_data_offset, 48);
SRPT_WIRE_AT(LoginReqRdma, reserved, 50);

static_assert(sizeof(LoginRsp) == 52);
SRPT_WIRE_AT(LoginRsp, opcode, 0);
SRPT_WIRE_AT(LoginRsp, req_lim_delta, 4);
SRPT_WIRE_AT(LoginRsp, tag, 8);
SRPT_WIRE_AT(LoginRsp, max_it_iu_len, 16);
SRPT_WIRE_AT(LoginRsp, max_ti_iu_len, 20);
SRPT_WIRE_AT(LoginRsp, buf_fmt, 24);
SRPT_WIRE_AT(LoginRsp, rsp_flags, 26);
SRPT_WIRE_AT(LoginRsp, reserved2, 27);

static_assert(sizeof(LoginRej) == 32);
SRPT_WIRE_AT(LoginRej, opcode, 0);
SRPT_WIRE_AT(LoginRej, reason, 4);
SRPT_WIRE_AT(LoginRej, tag, 8);
SRPT_WIRE_AT(LoginRej, reserved2, 16);
SRPT_WIRE_AT(LoginRej, buf_fmt, 24);
SRPT_WIRE_AT(LoginRej, reserved3, 26);

static_assert(sizeof(ILogout) == 16);
SRPT_WIRE_AT(ILogout, tag, 8);
static_assert(sizeof(TLogout) == 16);
SRPT_WIRE_AT(TLogout, sol_not, 1);
SRPT_WIRE_AT(TLogout, reason, 4);
SRPT_WIRE_AT(TLogout, tag, 8);

static_assert(sizeof(TskMgmt) == 48);
SRPT_WIRE_AT(TskMgmt, sol_not, 1);
SRPT_WIRE_AT(TskMgmt, tag, 8);
SRPT_WIRE_AT(TskMgmt, lun, 20);
SRPT_WIRE_AT(TskMgmt, tsk_mgmt_func, 30);
SRPT_WIRE_AT(TskMgmt, task_tag, 32);
SRPT_WIRE_AT(TskMgmt, reserved5, 40);

static_assert(sizeof(Cmd) == 48);
SRPT_WIRE_AT(Cmd, sol_not, 1);
SRPT_WIRE_AT(Cmd, buf_fmt, 5);
SRPT_WIRE_AT(Cmd, data_out_desc_cnt, 6);
SRPT_WIRE_AT(Cmd, data_in_desc_cnt, 7);
SRPT_WIRE_AT(Cmd, tag, 8);
SRPT_WIRE_AT(Cmd, lun, 20);
SRPT_WIRE_AT(Cmd, task_attr, 29);
SRPT_WIRE_AT(Cmd, add_cdb_len, 31);
SRPT_WIRE_AT(Cmd, cdb, 32);

static_assert(sizeof(Rsp) == 36);
SRPT_WIRE_AT(Rsp, sol_not, 1);
SRPT_WIRE_AT(Rsp, req_lim_delta, 4);
SRPT_WIRE_AT(Rsp, tag, 8);
SRPT_WIRE_AT(Rsp, flags, 18);
SRPT_WIRE_AT(Rsp, status, 19);
SRPT_WIRE_AT(Rsp, data_out_res_cnt, 20);
SRPT_WIRE_AT(Rsp, data_in_res_cnt, 24);
SRPT_WIRE_AT(Rsp, sense_data_len, 28);
SRPT_WIRE_AT(Rsp, resp_data_len, 32);

static_assert(sizeof(CredReq) == 16);
SRPT_WIRE_AT(CredReq, req_lim_delta, 4);
SRPT_WIRE_AT(CredReq, tag, 8);
static_assert(sizeof(CredRsp) == 16);
SRPT_WIRE_AT(CredRsp, tag, 8);
static_assert(sizeof(AerReq) == 36);
SRPT_WIRE_AT(AerReq, req_lim_delta, 4);
SRPT_WIRE_AT(AerReq, tag, 8);
SRPT_WIRE_AT(AerReq, lun, 20);
SRPT_WIRE_AT(AerReq, sense_data_len, 28);
SRPT_WIRE_AT(AerReq, reserved3, 32);
static_assert(sizeof(AerRsp) == 16);
SRPT_WIRE_AT(AerRsp, tag, 8);

#undef SRPT_WIRE_AT

/* All IU structs are copyable as bytes and have no padding. */
template <typename T>
inline constexpr bool kIsWireStruct = std::is_trivially_copyable_v<T> &&
					  std::is_standard_layout_v<T> &&
				      alignof(T) == 1;
static_assert(kIsWireStruct<LoginReq> && kIsWireStruct<LoginReqRdma> &&
	      kIsWireStruct<LoginRsp> && kIsWireStruct<LoginRej> &&
	      kIsWireStruct<ILogout> && kIsWireStruct<TLogout> &&
	      kIsWireStruct<TskMgmt> && kIsWireStruct<Cmd> &&
	      kIsWireStruct<Rsp> && kIsWireStruct<CredReq> &&
	      kIsWireStruct<CredRsp> && kIsWireStruct<AerReq> &&
	      kIsWireStruct<AerRsp> && kIsWireStruct<DirectBuf> &&
	      kIsWireStruct<IndirectBufHeader> && kIsWireStruct<ImmBuf>);

} // namespace srpt::wire

#endif
