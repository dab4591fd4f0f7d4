// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wait list: a FIFO that never allocates, and the channel's use of it
 * for IUs that arrive before the channel is live or when no send context
 * is free.
 */
#include "channel_harness.hpp"

namespace srpt::test
{
namespace
{

struct Item {
	int id = 0;
	ListNode node;
};

TEST(WaitList, FifoWithoutAllocation)
{
	Item items[5];
	for (int i = 0; i < 5; i++)
		items[i].id = i;
	WaitList<Item, &Item::node> wl;
	const size_t calls = host::AllocationCalls();
	for (Item &it : items)
		wl.Push(it);
	EXPECT_EQ(host::AllocationCalls(), calls);
	EXPECT_EQ(wl.size(), 5u);
	EXPECT_EQ(wl.Front()->id, 0);
	for (int i = 0; i < 5; i++) {
		Item *it = wl.Pop();
		ASSERT_NE(it, nullptr);
		EXPECT_EQ(it->id, i);
		EXPECT_FALSE(it->node.InContainer());
	}
	EXPECT_EQ(wl.Pop(), nullptr);
	EXPECT_TRUE(wl.empty());
	EXPECT_EQ(wl.total_pushed(), 5u);
	EXPECT_EQ(wl.max_depth(), 5u);
}

TEST(WaitList, InterleavedPushPopKeepsOrder)
{
	Item items[8];
	for (int i = 0; i < 8; i++)
		items[i].id = i;
	WaitList<Item, &Item::node> wl;
	std::vector<int> out;
	wl.Push(items[0]);
	wl.Push(items[1]);
	out.push_back(wl.Pop()->id);
	wl.Push(items[2]);
	wl.Push(items[3]);
	out.push_back(wl.Pop()->id);
	out.push_back(wl.Pop()->id);
	for (int i = 4; i < 8; i++)
		wl.Push(items[i]);
	while (Item *it = wl.Pop())
		out.push_back(it->id);
	EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
	EXPECT_EQ(wl.max_depth(), 5u);
}

TEST(ChannelWaitList, IusWaitWhileConnectingThenServedInOrder)
{
	Harness h(Harness::Config(4, 16));
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpTskMgmt, 2);
	h.Deliver(kOpCmd, 3);
	EXPECT_TRUE(h.served.empty()) << "served before RTU";
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.wait_depth, 3u);
	EXPECT_EQ(st.ius_waited, 3u);
	EXPECT_EQ(st.send_ctx_free, 4u);
	h.ExpectInvariants();
	ASSERT_TRUE(h.core.OnRtu());
	/* RTU comes from the CM: the wait list is run from the work item. */
	EXPECT_EQ(h.kicks, 1);
	EXPECT_TRUE(h.served.empty());
	h.ExpectInvariants();
	h.RunWork();
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2, 3}));
	EXPECT_EQ(h.core.Stats().wait_depth, 0u);
	for (const Served &sv : h.served)
		ASSERT_EQ(h.Respond(sv.s, 0,
				    sv.kind == IuKind::kTaskMgmt
					? QueueFullPolicy::kDefer
					: QueueFullPolicy::kReturnQueueFull),
			  Status::kOk);
	while (!h.sq.empty())
		h.CompleteNext();
	EXPECT_EQ(h.core.Stats().req_lim, 4);
	h.Teardown();
}

TEST(ChannelWaitList, IuArrivingDuringPendingKickQueuesBehind)
{
	Harness h(Harness::Config(4, 16));
	h.Deliver(kOpCmd, 1);
	ASSERT_TRUE(h.core.OnRtu());
	/* Before the work item runs, a new IU completes in CQ context. */
	h.Deliver(kOpCmd, 2);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	h.RunWork();
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	for (const Served &sv : h.served)
		ASSERT_EQ(h.Respond(sv.s), Status::kOk);
	while (!h.sq.empty())
		h.CompleteNext();
	h.Teardown();
}

TEST(ChannelWaitList, RtuWithNothingWaitingDoesNotKick)
{
	Harness h(Harness::Config(2, 8));
	ASSERT_TRUE(h.core.OnRtu());
	EXPECT_EQ(h.kicks, 0);
	h.Teardown();
}

TEST(ChannelWaitList, DrainWriteSuccessServesWaitingIus)
{
	/* 6.1's way: a zero-length write completion runs the wait list. */
	Harness h(Harness::Config(2, 8));
	h.Deliver(kOpCmd, 1);
	ASSERT_TRUE(h.core.OnRtu());
	ASSERT_EQ(h.core.PostDrainWrite(), Status::kOk);
	EXPECT_EQ(h.core.PostDrainWrite(), Status::kBusy);
	h.CompleteNext(true);
	EXPECT_EQ(h.last_zlw, ZlwOutcome::kNothing);
	h.RunWork(); /* the kick the RTU queued */
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1}));
	ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
	h.CompleteNext();
	h.Teardown();
}

TEST(ChannelWaitList, IusNotServedOnceClosing)
{
	Harness h(Harness::Config(2, 8));
	ASSERT_TRUE(h.core.OnRtu());
	ASSERT_TRUE(h.core.Disconnect());
	RecvCtx *r = h.Deliver(kOpCmd, 1);
	EXPECT_TRUE(h.served.empty());
	EXPECT_EQ(r->state(), RecvState::kIdle) << "own ring: not reposted";
	h.Teardown();
}

TEST(ChannelWaitList, NoKickWhenNothingWaits)
{
	Harness h(Harness::Config(1, 8));
	ASSERT_TRUE(h.core.OnRtu());
	h.Deliver(kOpCmd, 1);
	h.core.AbortedTask(*h.served[0].s);
	h.core.ReleaseCmd(*h.served[0].s);
	EXPECT_EQ(h.kicks, 0);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 1u);
	h.Teardown();
}

TEST(ChannelWaitList, ReleaseWithIusStillWaitingReturnsTheirBuffers)
{
	Harness h(Harness::Config(2, 8));
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2);
	EXPECT_EQ(h.core.Stats().wait_depth, 2u);
	h.Teardown(); /* never went live */
	for (uint32_t i = 0; i < 2; i++)
		EXPECT_TRUE(h.served.empty());
}

} // namespace
} // namespace srpt::test
