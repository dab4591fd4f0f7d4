// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The core's tracepoints as the host records them: along one channel's
 * life, for a refused login, and none while tracing is off.
 */
#include "datapath_fixture.hpp"

#include <string>
#include <vector>

namespace srpt
{
namespace
{

using namespace dp_test;

/*
 * The core's tracepoints (srpt_login, srpt_channel_state, srpt_iu_wait,
 * srpt_iu_resume, srpt_credits, srpt_disconnect) along one channel's life,
 * in order and with their fields.
 */
TEST_F(DataPathFixture, TracepointsFollowLoginWaitListCreditsAndDisconnect)
{
	host::SetTracing(true);
	Channel *ch = TwoCommandsThroughOneSendContext();
	ASSERT_NE(ch, nullptr);

	const std::string s = ch->name(), id = std::to_string(ch->id());
	const std::vector<std::string> want = {
	    "login session=" + s + " initiator=" + kInitiator +
		" accepted why=accepted rej=0 it_iu_len=8260 credits=128",
	    "channel_state session=" + s + " ch=" + id + " connecting->live",
	    "iu_wait session=" + s + " depth=1",
	    "credits session=" + s + " granted=1 req_lim=127",
	    "iu_resume session=" + s + " depth=0",
	    "credits session=" + s + " granted=1 req_lim=128",
	    "channel_state session=" + s + " ch=" + id + " live->disconnecting",
	    "disconnect session=" + s + " ch=" + id +
		" why=target port disabled",
	};
	EXPECT_EQ(host::TraceEvents(), want);
	host::SetTracing(false);
}

TEST_F(DataPathFixture, RefusedLoginIsTracedWithItsReason)
{
	host::SetTracing(true);
	EnableGidPort(); /* no ACL */
	EXPECT_NE(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	const std::vector<std::string> want = {
	    std::string("login session=") + kSrcAddr +
		" initiator=" + kInitiator +
		" rejected why=the target core refused the session (no ACL?)"
		" rej=65542 it_iu_len=8260 credits=0",
	};
	EXPECT_EQ(host::TraceEvents(), want);
	host::SetTracing(false);
}

TEST_F(DataPathFixture, NothingIsTracedWhileTracingIsOff)
{
	host::SetTracing(false);
	ASSERT_NE(TwoCommandsThroughOneSendContext(), nullptr);
	EXPECT_TRUE(host::TraceEvents().empty());
}

} // namespace
} // namespace srpt
