// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SendDoneHold on its own: the FIFO of held send completions behind the
 * test knob test_send_done_delay_us (the channel-level behaviour is in
 * send_done_hold_channel_test.cpp).
 */
#include <gtest/gtest.h>
#include <srpt/send_done_hold.hpp>

#include <vector>

#include "test_support.hpp"

namespace srpt
{
namespace
{

struct Sink {
	std::vector<uint32_t> delivered;
	SendDoneHold *hold = nullptr;
	/* Hold() called from inside a delivery (another CQ completion). */
	int hold_during_delivery = -1;

	static void Deliver(void *ctx, uint32_t index)
	{
		auto *s = static_cast<Sink *>(ctx);
		s->delivered.push_back(index);
		if (s->hold_during_delivery >= 0) {
			const uint32_t i =
			    static_cast<uint32_t>(s->hold_during_delivery);
			s->hold_during_delivery = -1;
			EXPECT_TRUE(s->hold->Hold(i));
		}
	}
};

TEST(SendDoneHold, DisabledHoldsNothingAndAllocatesNothing)
{
	const size_t before = host::OutstandingAllocations();
	Sink sink;
	{
		SendDoneHold hold;
		ASSERT_EQ(hold.Init(0, 8, Sink::Deliver, &sink, Gfp::kKernel),
			  Status::kOk);
		EXPECT_EQ(hold.delay_us(), 0u);
		EXPECT_FALSE(hold.Hold(3));
		EXPECT_EQ(host::OutstandingAllocations(), before);
		hold.StopAndFlush();
	}
	EXPECT_TRUE(sink.delivered.empty());
	EXPECT_EQ(host::PendingDelayedWork(), 0u);
}

TEST(SendDoneHold, AllocationFailureIsReported)
{
	Sink sink;
	SendDoneHold hold;
	host::FailNthAllocation(1);
	EXPECT_EQ(hold.Init(100, 8, Sink::Deliver, &sink, Gfp::kKernel),
		  Status::kNoMemory);
	host::FailNthAllocation(0);
	EXPECT_FALSE(hold.Hold(1)); /* not enabled */
}

/* A completion held while the work delivers is due its own delay later. */
TEST(SendDoneHold, HoldDuringDeliveryIsDueLater)
{
	Sink sink;
	SendDoneHold hold;
	sink.hold = &hold;
	ASSERT_EQ(hold.Init(100, 4, Sink::Deliver, &sink, Gfp::kKernel),
		  Status::kOk);
	EXPECT_TRUE(hold.Hold(0));
	sink.hold_during_delivery = 1;
	host::AdvanceClock(100'000);
	EXPECT_EQ(host::RunDueDelayedWork(), 1u);
	EXPECT_EQ(sink.delivered, (std::vector<uint32_t>{0}));
	EXPECT_EQ(hold.held(), 1u);
	EXPECT_EQ(host::PendingDelayedWork(), 1u);
	host::AdvanceClock(100'000);
	EXPECT_EQ(host::RunDueDelayedWork(), 1u);
	EXPECT_EQ(sink.delivered, (std::vector<uint32_t>{0, 1}));
	EXPECT_EQ(hold.held(), 0u);
	EXPECT_EQ(hold.held_total(), 2u);
	hold.StopAndFlush();
}

/*
 * StopAndFlush: what is held is delivered at once, in order, the work is
 * cancelled, and later completions are not held. Idempotent. The FIFO
 * wraps around its capacity.
 */
TEST(SendDoneHold, StopAndFlushDeliversInOrderAndStopsHolding)
{
	const size_t before = host::OutstandingAllocations();
	Sink sink;
	{
		SendDoneHold hold;
		ASSERT_EQ(
		    hold.Init(2000, 3, Sink::Deliver, &sink, Gfp::kKernel),
		    Status::kOk);
		EXPECT_TRUE(hold.Hold(5));
		EXPECT_TRUE(hold.Hold(6));
		host::AdvanceClock(2'000'000);
		EXPECT_EQ(host::RunDueDelayedWork(), 1u);
		EXPECT_TRUE(hold.Hold(7));
		EXPECT_TRUE(hold.Hold(8));
		EXPECT_TRUE(hold.Hold(9)); /* wrapped */
		EXPECT_EQ(hold.held(), 3u);
		EXPECT_EQ(host::PendingDelayedWork(), 1u);
		hold.StopAndFlush();
		EXPECT_EQ(sink.delivered,
			  (std::vector<uint32_t>{5, 6, 7, 8, 9}));
		EXPECT_EQ(host::PendingDelayedWork(), 0u);
		EXPECT_FALSE(hold.Hold(1));
		hold.StopAndFlush();
		EXPECT_EQ(sink.delivered.size(), 5u);
	}
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

} // namespace
} // namespace srpt
