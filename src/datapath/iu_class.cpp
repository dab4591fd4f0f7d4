// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/datapath/iu_class.hpp>
#include <srpt/wire/srp.hpp>
#include <stddef.h>

namespace srpt
{
namespace
{

/* Only the opcode and, for SRP_CMD, the data-out format are looked at. */
constexpr uint32_t kCmdBufFmtOffset = offsetof(wire::Cmd, buf_fmt);
constexpr uint8_t kImmediate =
    static_cast<uint8_t>(wire::DescFormat::Immediate);

} // namespace

IuClass ClassifySrpIu(const uint8_t *iu, uint32_t len)
{
	IuClass c;
	if (len < 1)
		return c;
	switch (static_cast<wire::Opcode>(iu[0])) {
	case wire::Opcode::Cmd:
		c.kind = IuKind::kCmd;
		c.keeps_buffer = len > kCmdBufFmtOffset &&
				 (iu[kCmdBufFmtOffset] >> 4) == kImmediate;
		break;
	case wire::Opcode::TskMgmt:
		c.kind = IuKind::kTaskMgmt;
		break;
	case wire::Opcode::ILogout:
		c.kind = IuKind::kLogout;
		break;
	case wire::Opcode::CredRsp:
		c.kind = IuKind::kCredRsp;
		break;
	case wire::Opcode::AerRsp:
		c.kind = IuKind::kAerRsp;
		break;
	default:
		break;
	}
	return c;
}

} // namespace srpt
