// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/core/iu_class.hpp>

namespace srpt
{
namespace
{

/* The opcodes of include/scsi/srp.h that the core tells apart. */
enum class CoreOpcode : uint8_t {
	kTskMgmt = 0x01,
	kCmd = 0x02,
	kILogout = 0x03,
	kCredRsp = 0x41,
	kAerRsp = 0x42,
};

constexpr uint32_t kCmdBufFmtOffset = 5;
constexpr uint8_t kDescFormatImmediate = 3;

} // namespace

IuClass ClassifySrpIu(const uint8_t *iu, uint32_t len)
{
	IuClass c;
	if (len < 1)
		return c;
	switch (static_cast<CoreOpcode>(iu[0])) {
	case CoreOpcode::kCmd:
		c.kind = IuKind::kCmd;
		c.keeps_buffer =
		    len > kCmdBufFmtOffset &&
		    (iu[kCmdBufFmtOffset] >> 4) == kDescFormatImmediate;
		break;
	case CoreOpcode::kTskMgmt:
		c.kind = IuKind::kTaskMgmt;
		break;
	case CoreOpcode::kILogout:
		c.kind = IuKind::kLogout;
		break;
	case CoreOpcode::kCredRsp:
		c.kind = IuKind::kCredRsp;
		break;
	case CoreOpcode::kAerRsp:
		c.kind = IuKind::kAerRsp;
		break;
	default:
		break;
	}
	return c;
}

} // namespace srpt
