// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The conversions between the data path's C boundary types (core_api.h)
 * and the core's. They are defined in src/datapath_api.cpp, the only code
 * that uses them: the core past the srpt_core_dp_* entry points sees core
 * types and returns Status. Declared here so that the unit tests can check
 * each mapping on its own.
 */
#ifndef SRPT_DATAPATH_API_HPP
#define SRPT_DATAPATH_API_HPP

#include <srpt/channel.hpp>
#include <srpt/core_api.h>
#include <srpt/status.hpp>
#include <srpt/wire/srp.hpp>

namespace srpt
{

/* kInvalid for a value the glue does not send. */
Result<CmEvent> CmEventFromC(srpt_dp_cm_event event);
CmdResponse CmdResponseFromC(const srpt_dp_rsp &rsp);
wire::TskMgmtRspCode TskMgmtRspCodeFromC(srpt_dp_tmr_result result);
/* Every field of @in, the state and phase as their names. */
void StatsToC(const ChannelSnapshot &in, srpt_dp_stats *out);

} // namespace srpt

#endif
