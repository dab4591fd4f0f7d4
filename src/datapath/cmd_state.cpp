// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/datapath/cmd_state.hpp>
#include <srpt/datapath/ioctx_ring.hpp>

namespace srpt
{

const char *CmdStateName(CmdState s)
{
	switch (s) {
	case CmdState::kFree:
		return "free";
	case CmdState::kNew:
		return "new";
	case CmdState::kNeedData:
		return "need-data";
	case CmdState::kDataIn:
		return "data-in";
	case CmdState::kCmdRspSent:
		return "cmd-rsp-sent";
	case CmdState::kMgmt:
		return "mgmt";
	case CmdState::kMgmtRspSent:
		return "mgmt-rsp-sent";
	case CmdState::kDone:
		return "done";
	}
	return "?";
}

const char *RecvStateName(RecvState s)
{
	switch (s) {
	case RecvState::kIdle:
		return "idle";
	case RecvState::kPosted:
		return "posted";
	case RecvState::kWaiting:
		return "waiting";
	case RecvState::kHandling:
		return "handling";
	case RecvState::kHeldByCmd:
		return "held-by-cmd";
	}
	return "?";
}

} // namespace srpt
