// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The test knob test_send_done_delay_us (include/srpt/send_done_hold.hpp)
 * on a channel: a successful send completion reaches the data path only
 * after the delay. SendDoneHold on its own: send_done_hold_test.cpp.
 */
#include "datapath_fixture.hpp"

#include <vector>

#include <srpt/channel_registry.hpp>

namespace srpt
{
namespace
{

using namespace dp_test;

constexpr uint32_t kHoldUs = 2000;

class SendDoneHoldFixture : public DataPathFixture
{
protected:
	void SetUp() override
	{
		DataPathFixture::SetUp();
		host::Script().send_done_delay_us = kHoldUs;
	}

	/* LiveChannel(), with the allocations before the login in *before. */
	Channel *LiveChannelCounted(size_t *before)
	{
		EnableGidPort();
		*before = host::OutstandingAllocations();
		host::Script().acl_names = {kInitiator};
		EXPECT_EQ(Login(LoginReqRdma(), &cm_ids_[0]), 0);
		if (host::FakeChannels().size() != 1)
			return nullptr;
		auto *ch = static_cast<Channel *>(
		    host::FakeChannels().back()->args.core_ch);
		srpt_core_dp_cm_event(ch, SRPT_DP_CM_ESTABLISHED);
		return ch;
	}
};

/*
 * The heart of the seed's race, with one send context per credit: every
 * credit is in use, a response goes out (its credit with it) and its send
 * completion is held; the initiator spends that credit at once. The new IU
 * finds no free send context: it waits, and so does the next one, until
 * the held completions run; then they are served in arrival order.
 */
TEST_F(SendDoneHoldFixture, HeldSendCompletionMakesTheNextIuWaitInOrder)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	ASSERT_EQ(st.credits, 128u);
	ASSERT_EQ(st.send_ctx_total, 128u); /* no pool limit */
	EXPECT_EQ(st.send_done_delay_us, kHoldUs);
	for (uint32_t tag = 0; tag < 128; tag++)
		Receive(ch, TestUnitReady(tag), tag);
	ASSERT_EQ(f.submitted.size(), 128u);
	srpt_dp_rsp rsp{};
	/* Two responses go out; their completions are held. */
	for (uint32_t i = 0; i < 2; i++) {
		const uint32_t idx = f.submitted_index[i];
		ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
		srpt::host::SendDone(ch, idx, true);
	}
	EXPECT_TRUE(f.put.empty());
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.send_done_held, 2u);
	EXPECT_EQ(st.send_ctx_free, 0u);
	EXPECT_EQ(st.req_lim, 2); /* the initiator holds both credits */
	/* It spends them before the target saw either completion. */
	Receive(ch, TestUnitReady(128), 0);
	Receive(ch, TestUnitReady(129), 1);
	EXPECT_EQ(f.submitted.size(), 128u);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.wait_depth, 2u);
	EXPECT_EQ(st.ius_waited, 2u);
	EXPECT_EQ(st.ius_no_send_ctx, 2u); /* no context was free */
	EXPECT_EQ(st.credit_violations, 0u);
	/* Not due yet: nothing runs. */
	EXPECT_EQ(host::RunDueDelayedWork(), 0u);
	host::AdvanceClock(uint64_t{kHoldUs} * 1000 - 1);
	EXPECT_EQ(host::RunDueDelayedWork(), 0u);
	EXPECT_EQ(f.submitted.size(), 128u);
	host::AdvanceClock(1);
	EXPECT_EQ(host::RunDueDelayedWork(), 1u); /* one work, both entries */
	EXPECT_EQ(f.put, (std::vector<uint32_t>{f.submitted_index[0],
						f.submitted_index[1]}));
	EXPECT_EQ(host::RunPendingWork(), 1u); /* the kick serves both */
	ASSERT_EQ(f.submitted.size(), 130u);
	EXPECT_EQ(f.submitted[128].tag, 128u); /* served in arrival order */
	EXPECT_EQ(f.submitted[129].tag, 129u);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.wait_depth, 0u);
	EXPECT_EQ(st.send_done_held, 0u);
	/* Every command answered: every credit and context comes back. */
	for (uint32_t i = 2; i < f.submitted_index.size(); i++) {
		const uint32_t idx = f.submitted_index[i];
		ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
		srpt::host::SendDone(ch, idx, true);
	}
	host::AdvanceClock(uint64_t{kHoldUs} * 1000);
	host::RunDueDelayedWork();
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
	EXPECT_EQ(st.in_flight, 0);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
	EXPECT_EQ(st.send_done_held, 0u);
	EXPECT_EQ(st.send_done_held_total, 130u);
	EXPECT_EQ(ch->core().CheckInvariants(), nullptr);
}

/* Completions arrive spaced out: each is due its own delay later. */
TEST_F(SendDoneHoldFixture, HeldSendCompletionsRunEachAfterItsOwnDelay)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(1), 0);
	Receive(ch, TestUnitReady(2), 1);
	srpt_dp_rsp rsp{};
	const uint32_t a = f.submitted_index[0], b = f.submitted_index[1];
	ASSERT_EQ(srpt_core_dp_queue_response(ch, a, &rsp), 0);
	ASSERT_EQ(srpt_core_dp_queue_response(ch, b, &rsp), 0);
	srpt::host::SendDone(ch, a, true);
	host::AdvanceClock(1'500'000);
	srpt::host::SendDone(ch, b, true);
	host::AdvanceClock(500'000);
	EXPECT_EQ(host::RunDueDelayedWork(), 1u);
	EXPECT_EQ(f.put, (std::vector<uint32_t>{a}));
	EXPECT_EQ(host::PendingDelayedWork(), 1u); /* re-armed for b */
	host::AdvanceClock(1'499'999);
	EXPECT_EQ(host::RunDueDelayedWork(), 0u);
	host::AdvanceClock(1);
	EXPECT_EQ(host::RunDueDelayedWork(), 1u);
	EXPECT_EQ(f.put, (std::vector<uint32_t>{a, b}));
	EXPECT_EQ(host::PendingDelayedWork(), 0u);
}

/* A failed (flushed) completion is never held: nothing to race with. */
TEST_F(SendDoneHoldFixture, FailedSendCompletionIsNotHeld)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(1), 0);
	srpt_dp_rsp rsp{};
	const uint32_t idx = f.submitted_index[0];
	ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	srpt::host::SendDone(ch, idx, false);
	EXPECT_EQ(f.put, (std::vector<uint32_t>{idx}));
	EXPECT_EQ(host::PendingDelayedWork(), 0u);
}

/*
 * Release with completions still held: they are delivered first, while
 * the session and the glue channel exist, the work item is cancelled, and
 * everything is freed.
 */
TEST_F(SendDoneHoldFixture, ReleaseDeliversHeldCompletionsBeforeFreeing)
{
	size_t before = 0;
	Channel *ch = LiveChannelCounted(&before);
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	for (uint32_t tag = 0; tag < 3; tag++)
		Receive(ch, TestUnitReady(tag), tag);
	srpt_dp_rsp rsp{};
	for (uint32_t idx : f.submitted_index) {
		ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
		srpt::host::SendDone(ch, idx, true);
	}
	EXPECT_TRUE(f.put.empty());
	EXPECT_EQ(host::PendingDelayedWork(), 1u);
	/* DREQ, DREP, the flushed drain marker: the release work. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_zlw_done(ch, false);
	EXPECT_TRUE(f.put.empty()); /* still held: the delay has not passed */
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
	EXPECT_EQ(f.put, f.submitted_index); /* delivered, in order */
	EXPECT_EQ(f.put_after_session_removed, 0u);
	EXPECT_EQ(f.put_after_destroy, 0u);
	EXPECT_EQ(host::PendingDelayedWork(), 0u); /* cancelled */
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
	EXPECT_EQ(host::OutstandingAllocations(), before);
	/* Nothing of the channel runs later. */
	host::AdvanceClock(uint64_t{kHoldUs} * 1000);
	EXPECT_EQ(host::RunDueDelayedWork(), 0u);
}

/* Device removal (and so rmmod) with completions held. */
TEST_F(SendDoneHoldFixture, DeviceRemovalWithHeldCompletionsFreesEverything)
{
	size_t before = 0;
	Channel *ch = LiveChannelCounted(&before);
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(7), 0);
	srpt_dp_rsp rsp{};
	const uint32_t idx = f.submitted_index[0];
	ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	srpt::host::SendDone(ch, idx, true);
	(void)RemoveDeviceWhileChannelCloses(device_, ch, f);
	EXPECT_TRUE(f.destroyed);
	EXPECT_EQ(f.put, (std::vector<uint32_t>{idx}));
	EXPECT_EQ(f.put_after_destroy, 0u);
	EXPECT_EQ(host::PendingDelayedWork(), 0u);
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

/*
 * The hold costs one allocation per channel (its FIFO), made at login;
 * every allocation failure of a login with the knob on leaves nothing.
 */
TEST_F(SendDoneHoldFixture, HoldAllocationFailureAtLoginLeavesNothing)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	auto calls_of_one_login = [&](uint32_t delay_us) {
		host::Script().send_done_delay_us = delay_us;
		host::ResetAllocationStats();
		EXPECT_EQ(Login(LoginReqRdma(0x81), &cm_ids_[0]), 0);
		const size_t calls = host::AllocationCalls();
		CloseAll();
		return calls;
	};
	const size_t without = calls_of_one_login(0);
	const size_t with = calls_of_one_login(kHoldUs);
	EXPECT_EQ(with, without + 1);
	size_t refused = 0;
	for (size_t nth = 1; nth <= with; nth++) {
		const size_t before = host::OutstandingAllocations();
		host::FailNthAllocation(nth);
		const int rc = Login(LoginReqRdma(0x81), &cm_ids_[nth % 4]);
		host::FailNthAllocation(0);
		if (rc == 0) {
			CloseAll();
			continue;
		}
		refused++;
		EXPECT_EQ(host::OutstandingAllocations(), before) << nth;
	}
	EXPECT_GT(refused, 0u);
	EXPECT_EQ(host::PendingDelayedWork(), 0u);
}

} // namespace
} // namespace srpt
