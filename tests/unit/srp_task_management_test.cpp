// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRP_TSK_MGMT on a live channel: each function as the glue gets it, an
 * unsupported one, ABORT TASK and the aborted command's credit, and the
 * answers when the target core refuses or the response cannot be posted.
 */
#include "datapath_fixture.hpp"

#include <vector>

namespace srpt
{
namespace
{

using namespace dp_test;

TEST_F(DataPathFixture, TaskManagementResponseThatCannotBePostedDisconnects)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;  /* SRP_TSK_MGMT */
	tm[8] = 0x21;  /* tag */
	tm[30] = 0x08; /* LUN RESET */
	Receive(ch, tm, 0);
	ASSERT_EQ(f.tmr_index.size(), 1u);
	const uint32_t tmr = f.tmr_index[0];
	host::Script().put_releases = true;
	host::Script().post_send_rc = -SRPT_EIO;
	srpt_core_dp_queue_tm_rsp(ch, tmr, SRPT_DP_TMR_COMPLETE);
	host::Script().post_send_rc = 0;
	EXPECT_TRUE(f.posted_send.empty());
	EXPECT_EQ(f.put, (std::vector<uint32_t>{tmr}));
	EXPECT_EQ(f.disconnect_calls, 1u);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.responses_lost, 1u);
	ExpectSendContextsFree(ch);
}

TEST_F(DataPathFixture, TaskManagementAndAbortedTaskCredit)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(0x10), 0);
	ASSERT_EQ(f.submitted_index.size(), 1u);
	const uint32_t cmd = f.submitted_index[0];
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;  /* SRP_TSK_MGMT */
	tm[8] = 0x20;  /* tag */
	tm[30] = 0x01; /* ABORT TASK */
	tm[32] = 0x10; /* task tag */
	Receive(ch, tm, 1);
	ASSERT_EQ(f.tmr_func,
		  (std::vector<srpt_dp_tmf>{SRPT_DP_TMF_ABORT_TASK}));
	const uint32_t tmr = f.tmr_index[0];
	/* The target core aborts the command: no response, credit owed. */
	srpt_core_dp_aborted_task(ch, cmd);
	srpt_core_dp_cmd_release(ch, cmd);
	srpt_core_dp_queue_tm_rsp(ch, tmr, SRPT_DP_TMR_COMPLETE);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[tmr];
	EXPECT_EQ(GetBe(s.buf() + 4, 4), 2u); /* its own + the aborted one */
	srpt::host::SendDone(ch, tmr, true);
	ExpectCreditsAndSendContextsBack(ch);
}

TEST_F(DataPathFixture, UnsupportedTaskManagementFunctionIsNotSubmitted)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;
	tm[30] = 0x20; /* not a function */
	Receive(ch, tm, 0);
	EXPECT_TRUE(f.tmr_func.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[39], 0x04); /* RSP_CODE NOT SUPPORTED */
	srpt::host::SendDone(ch, f.posted_send[0], true);
}

TEST_F(DataPathFixture, TaskManagementLioRefusesIsAnsweredFailed)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	host::Script().submit_tmr_rc = -108;
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;
	tm[30] = 0x08; /* LUN RESET */
	Receive(ch, tm, 0);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[39], 0x05); /* RSP_CODE FAILED */
	srpt::host::SendDone(ch, f.posted_send[0], true);
}

/* Each supported function reaches LIO as its own enum value. */
TEST_F(DataPathFixture, TaskManagementFunctionReachesTheGlueAsEnum)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const struct {
		uint8_t srp;
		srpt_dp_tmf tmf;
	} cases[] = {{0x01, SRPT_DP_TMF_ABORT_TASK},
		     {0x02, SRPT_DP_TMF_ABORT_TASK_SET},
		     {0x04, SRPT_DP_TMF_CLEAR_TASK_SET},
		     {0x08, SRPT_DP_TMF_LUN_RESET},
		     {0x40, SRPT_DP_TMF_CLEAR_ACA}};
	uint32_t index = 0;
	for (const auto &c : cases) {
		std::vector<uint8_t> tm(48, 0);
		tm[0] = 0x01;
		tm[8] = static_cast<uint8_t>(index);
		tm[30] = c.srp;
		Receive(ch, tm, index++);
		ASSERT_EQ(f.tmr_func.size(), index);
		EXPECT_EQ(f.tmr_func.back(), c.tmf) << int{c.srp};
	}
	for (const uint32_t idx : f.tmr_index) {
		srpt_core_dp_queue_tm_rsp(ch, idx, SRPT_DP_TMR_COMPLETE);
		srpt::host::SendDone(ch, idx, true);
	}
}

} // namespace
} // namespace srpt
