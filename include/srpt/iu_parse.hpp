// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Parsing of the IUs an initiator sends on an established channel.
 *
 * parse_iu() takes the bytes the receive completion reported (wc.byte_len,
 * nothing more) and returns what to do with them. It never reads a byte
 * outside that span, checks a length before reading any struct, does all
 * size arithmetic in 64 bits, allocates nothing and returns views into the
 * caller's buffer: the buffer must stay untouched (not reposted) while the
 * ParsedCmd is in use.
 *
 * Outcomes (IuAction):
 *   ExecuteCmd      SRP_CMD is valid: submit ParsedCmd to the target core.
 *   RejectCmd       SRP_CMD readable but invalid: answer SRP_RSP CHECK
 *                   CONDITION with sense_for(cmd_check) (tag known). The
 *                   command never reaches the target core.
 *   TaskMgmt        SRP_TSK_MGMT valid; if !tm.supported answer RSP_CODE
 *                   NotSupported without calling the target core.
 *   RejectTaskMgmt  SRP_TSK_MGMT readable but longer than it_iu_len:
 *                   answer RSP_CODE FieldsInvalid.
 *   Logout          SRP_I_LOGOUT: the initiator ends the channel.
 *   Ignore          SRP_CRED_RSP, SRP_AER_RSP: nothing to send.
 *   Drop            nothing can be answered (no tag, or not an IU the
 *                   target accepts): repost the buffer, send nothing. If
 *                   consumes_credit, the initiator spent a credit on it:
 *                   return it with the next req_lim_delta.
 * needs_send_context() is true for the first four: each is answered with
 * exactly one SRP_RSP carrying req_lim_delta >= 1, so no credit is lost.
 *
 * SRP_CMD rules, in this order (CmdCheck; sense_for() gives the sense):
 *   IU longer than it_iu_len                               IuTooLong
 *   task attribute not SIMPLE/HEAD/ORDERED/ACA              ReservedTaskAttr
 *   add_cdb_len bits 0-1 set (reserved)                     ReservedAddCdbLen
 *   additional CDB past the received bytes                  AddCdbBeyondIu
 *   format nibble > 3, or IMMEDIATE as data-in format       ReservedBufFmt
 *   both data-out and data-in formats                       Bidirectional
 *   descriptor (or its header) past the received bytes      DescBeyondIu
 *   indirect: table length 0 or not a multiple of 16        IndirectTableLen
 *   indirect: table entries != that direction's desc count  IndirectCount
 *   more descriptors than max_desc (<= 255)                 TooManyDescriptors
 *   indirect: table past the received bytes                 TableBeyondIu
 *   a descriptor / immediate length of 0                    ZeroLengthDesc
 *   total (or any) length > max_data_len                    DataTooLong
 *   indirect: header total != sum of descriptor lengths     TotalLenMismatch
 *   immediate: not granted at login                         ImmNotNegotiated
 *   immediate: descriptor ends after imm_data_offset        ImmDescAfterData
 *   immediate: offset + length past the received bytes      ImmDataBeyondIu
 * The CDB's own transfer length is the target core's business: compare it
 * with ParsedCmd::data_length and move exactly what the CDB says.
 */
#ifndef SRPT_IU_PARSE_HPP
#define SRPT_IU_PARSE_HPP

#include <span>
#include <stddef.h>
#include <stdint.h>

#include <srpt/login.hpp>
#include <srpt/scsi.hpp>
#include <srpt/wire/srp.hpp>

namespace srpt
{

/* Per-channel limits the parser enforces. */
struct ChannelLimits {
	uint32_t it_iu_len;	  /* negotiated IU length (LoginParams) */
	uint16_t imm_data_offset; /* 0: immediate data not granted */
	uint32_t max_data_len;	  /* max data bytes per command (>0) */
	uint8_t max_desc;	  /* max data descriptors per command */
};

/*
 * A per-command bound for ChannelLimits::max_data_len when nothing tighter
 * is configured: 16 MiB, the largest srp_max_rdma_size. The in-tree driver
 * has no bound at all (1 GiB and 4 GiB descriptors reach the allocator).
 */
inline constexpr uint32_t kDefaultMaxDataLen = 1u << 24;

/* Limits of a channel from its login and the port's transfer bound. */
constexpr ChannelLimits channel_limits(const LoginParams &p,
				       uint32_t max_data_len,
				       uint8_t max_desc = 255)
{
	return ChannelLimits{p.it_iu_len, p.imm_data_offset, max_data_len,
			     max_desc};
}

enum class DataDir : uint8_t {
	None,
	ToDevice,   /* data-out: WRITE, RDMA READ from the initiator */
	FromDevice, /* data-in: READ, RDMA WRITE to the initiator */
};

/* One data descriptor, in host order. */
struct DataDescriptor {
	uint64_t va;
	uint32_t key;
	uint32_t len;
};

/* View of n consecutive 16-byte direct descriptors inside an IU. */
class DescriptorList
{
public:
	constexpr DescriptorList() = default;
	explicit constexpr DescriptorList(std::span<const uint8_t> raw)
	    : raw_(raw)
	{
	}

	size_t size() const { return raw_.size() / sizeof(wire::DirectBuf); }
	bool empty() const { return raw_.empty(); }
	/* i < size() */
	DataDescriptor operator[](size_t i) const
	{
		const auto d = wire::load<wire::DirectBuf>(
		    raw_.data() + i * sizeof(wire::DirectBuf));
		return DataDescriptor{d.va.get(), d.key.get(), d.len.get()};
	}
	std::span<const uint8_t> bytes() const { return raw_; }

private:
	std::span<const uint8_t> raw_{};
};

struct ParsedCmd {
	uint64_t tag; /* opaque, echo in SRP_RSP */
	wire::Lun lun;
	uint8_t sol_not;
	wire::TaskAttr task_attr;
	std::span<const uint8_t> cdb; /* 16 + additional CDB bytes */
	DataDir dir;
	wire::DescFormat format;    /* format of the direction in use */
	DescriptorList descriptors; /* Direct: 1, Indirect: n, else none */
	std::span<const uint8_t> imm_data; /* Immediate only */
	uint32_t data_length; /* bytes the initiator offers to move */
};

struct ParsedTskMgmt {
	uint64_t tag; /* opaque, echo in SRP_RSP */
	wire::Lun lun;
	uint8_t sol_not;
	uint8_t func_raw;
	bool supported;		/* func_raw is one of wire::TskMgmtFunc */
	wire::TskMgmtFunc func; /* valid when supported */
	uint64_t task_tag;	/* ABORT TASK: tag of the task to abort */
};

enum class CmdCheck : uint8_t {
	Ok,
	IuTooLong,
	ReservedTaskAttr,
	ReservedAddCdbLen,
	AddCdbBeyondIu,
	ReservedBufFmt,
	Bidirectional,
	DescBeyondIu,
	IndirectTableLen,
	IndirectCount,
	TooManyDescriptors,
	TableBeyondIu,
	ZeroLengthDesc,
	DataTooLong,
	TotalLenMismatch,
	ImmNotNegotiated,
	ImmDescAfterData,
	ImmDataBeyondIu,
	ShortIu, /* parse_cmd() given fewer than 48 bytes */
};

/*
 * Sense for a rejected command (status CHECK CONDITION):
 *   IuTooLong                              INFORMATION UNIT TOO LONG 0e/02
 *   *BeyondIu, ShortIu                     INFORMATION UNIT TOO SHORT 0e/01
 *   Bidirectional, TooManyDescriptors, DataTooLong
 *                                          INVALID FIELD IN CDB 24/00
 *   everything else                        INVALID FIELD IN COMMAND IU 0e/03
 * all with sense key ILLEGAL REQUEST.
 */
SenseCode sense_for(CmdCheck check);
const char *describe(CmdCheck check);

enum class IuAction : uint8_t {
	ExecuteCmd,
	RejectCmd,
	TaskMgmt,
	RejectTaskMgmt,
	Logout,
	Ignore,
	Drop,
};

enum class DropReason : uint8_t {
	None,
	Empty,	      /* zero bytes received */
	ShortIu,      /* shorter than the fixed part of its opcode */
	TooLong,      /* non-command IU longer than it_iu_len */
	LoginReq,     /* SRP_LOGIN_REQ on an established channel */
	TargetOpcode, /* a target-to-initiator IU type */
	UnknownOpcode,
};

const char *describe(DropReason reason);

struct IuParseResult {
	IuAction action;
	uint8_t opcode;	      /* byte 0, 0 when Empty */
	bool consumes_credit; /* SRP_CMD / SRP_TSK_MGMT */
	uint64_t tag;	      /* 0 when Drop */
	ParsedCmd cmd;	      /* ExecuteCmd */
	CmdCheck cmd_check;   /* RejectCmd (Ok otherwise) */
	ParsedTskMgmt tm;     /* TaskMgmt, RejectTaskMgmt */
	DropReason drop;      /* Drop (None otherwise) */

	bool needs_send_context() const
	{
		return action == IuAction::ExecuteCmd ||
		       action == IuAction::RejectCmd ||
		       action == IuAction::TaskMgmt ||
		       action == IuAction::RejectTaskMgmt;
	}
};

IuParseResult parse_iu(std::span<const uint8_t> received,
		       const ChannelLimits &limits);

/*
 * The SRP_CMD part of parse_iu() (opcode not checked), inline
 * (<srpt/iu_parse_cmd_impl.hpp>, included below). Fewer than
 * sizeof(wire::Cmd) bytes give ShortIu with @out zeroed; otherwise
 * out.tag/lun/sol_not are filled even when a later check fails.
 */
inline CmdCheck parse_cmd(std::span<const uint8_t> received,
			  const ChannelLimits &limits, ParsedCmd &out);

/* scsilun_to_int(): the LUN as the target core wants it. */
inline uint64_t lun_to_u64(const wire::Lun &lun);

} // namespace srpt

#include <srpt/iu_parse_cmd_impl.hpp>

#endif
