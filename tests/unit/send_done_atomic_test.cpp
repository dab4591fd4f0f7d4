// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The send completion in softirq (ChannelCore::OnSendDoneAtomic): the
 * kernel polls the send CQ there, where nothing may sleep. It returns the
 * context and its slots as OnSendDone does, but a wait list that can move
 * is served by the kick work item, never inline (serving it submits to
 * the target core, which sleeps), and a completion that would post
 * deferred responses is refused untouched and finished in process context
 * (a failed post disconnects, which sleeps). IUs still wait in arrival
 * order, hold their credit, and are served once each.
 */
#include "channel_harness.hpp"

namespace srpt::test
{
namespace
{

/* The usual completion: nothing waits, the context is back, two holds. */
TEST(SendDoneAtomic, NothingWaitingReturnsTheContextWithoutAKick)
{
	FullChannel h(2);
	ASSERT_EQ(h.Respond(h.CtxOf(1)), Status::kOk);
	const uint32_t free_before = h.core.Stats().send_ctx_free;
	EXPECT_EQ(LocksOf([&h] { EXPECT_TRUE(h.CompleteNextAtomic()); }), 2u);
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.send_ctx_free, free_before + 1);
	EXPECT_EQ(st.req_lim, 1);
	EXPECT_EQ(st.send_done_deferred, 0u);
	EXPECT_EQ(h.puts.size(), 1u);
	EXPECT_EQ(h.kicks, 0);
	EXPECT_EQ(h.CtxOf(1)->state(), CmdState::kFree);
	h.ExpectInvariants();
	ASSERT_EQ(h.Respond(h.CtxOf(2)), Status::kOk);
	EXPECT_TRUE(h.CompleteNextAtomic());
	h.Teardown();
}

/*
 * The race of send_completion_race_test.cpp in softirq: the IU that came
 * before the completion of the response that granted its credit is not
 * served inside the completion; the completion kicks the work item, which
 * serves it.
 */
TEST(SendDoneAtomic, WaitingIuIsServedByTheWorkItemNotInline)
{
	FullChannel h(2);
	ASSERT_EQ(h.RespondThenDeliver(1, 3), Status::kOk);
	EXPECT_EQ(h.core.Stats().wait_depth, 1u);
	EXPECT_TRUE(h.CompleteNextAtomic());
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}))
	    << "served inside the softirq completion";
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.wait_depth, 1u);
	EXPECT_EQ(st.send_ctx_free, 1u);
	EXPECT_TRUE(st.kick_pending);
	EXPECT_EQ(h.kicks, 1);
	h.ExpectInvariants();
	EXPECT_EQ(h.RunWork(), 1u);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2, 3}));
	st = h.core.Stats();
	EXPECT_EQ(st.wait_depth, 0u);
	EXPECT_FALSE(st.kick_pending);
	h.ExpectInvariants();
	for (uint64_t t = 2; t <= 3; t++)
		ASSERT_EQ(h.Respond(h.CtxOf(t)), Status::kOk);
	EXPECT_TRUE(h.CompleteNextAtomic());
	EXPECT_TRUE(h.CompleteNextAtomic());
	EXPECT_EQ(h.kicks, 1) << "nothing waits: no kick";
	EXPECT_EQ(h.core.Stats().req_lim, 2);
	h.Teardown();
}

/*
 * Three contexts come back in softirq before the work item runs: one kick
 * is pending for all of them, and the work item serves the three waiting
 * IUs in arrival order, each with a context of its own.
 */
TEST(SendDoneAtomic, IusFreedInABurstAreServedInArrivalOrderByOneKick)
{
	FullChannel h(3);
	ASSERT_EQ(h.RespondAllThenSpendTheCredits(), Status::kOk);
	for (int i = 0; i < 3; i++) {
		EXPECT_TRUE(h.CompleteNextAtomic());
		h.ExpectInvariants();
	}
	EXPECT_EQ(h.kicks, 1);
	EXPECT_EQ(h.core.Stats().wait_depth, 3u);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 3u);
	EXPECT_EQ(h.RunWork(), 1u);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
	EXPECT_EQ(h.core.Stats().send_ctx_free, 0u);
	h.ExpectInvariants();
	for (uint64_t t = 4; t <= 6; t++)
		ASSERT_EQ(h.Respond(h.CtxOf(t)), Status::kOk);
	while (!h.sq.empty())
		EXPECT_TRUE(h.CompleteNextAtomic());
	EXPECT_EQ(h.core.Stats().req_lim, 3);
	h.Teardown();
}

/*
 * The target core released the command before its response completed
 * (release_pending_): the softirq completion frees the context itself and
 * kicks for the waiting IU.
 */
TEST(SendDoneAtomic, ReleasedBeforeCompletionIsFreedAndKicks)
{
	FullChannel h(1);
	h.put_releases = false;
	SendCtx *s = h.CtxOf(1);
	ASSERT_EQ(h.Respond(s), Status::kOk);
	h.core.ReleaseCmd(*s);
	h.Deliver(kOpCmd, 2);
	EXPECT_EQ(LocksOf([&h] { EXPECT_TRUE(h.CompleteNextAtomic()); }), 1u);
	EXPECT_TRUE(h.puts.empty()) << "no fabric reference left to drop";
	EXPECT_EQ(s->state(), CmdState::kFree);
	EXPECT_EQ(h.kicks, 1);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1}));
	h.ExpectInvariants();
	EXPECT_EQ(h.RunWork(), 1u);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	h.put_releases = true;
	h.refs_held.clear();
	ASSERT_EQ(h.Respond(h.CtxOf(2)), Status::kOk);
	EXPECT_TRUE(h.CompleteNextAtomic());
	h.Teardown();
}

/*
 * The target core still holds the command after the fabric's reference
 * went: nothing is freed in softirq; its last reference drop frees the
 * context later and kicks, as in process context.
 */
TEST(SendDoneAtomic, ReferenceStillHeldLeavesTheFreeToTheLastDrop)
{
	FullChannel h(1);
	h.put_releases = false;
	ASSERT_EQ(h.RespondThenDeliver(1, 2), Status::kOk);
	EXPECT_TRUE(h.CompleteNextAtomic());
	EXPECT_EQ(h.core.Stats().send_ctx_free, 0u);
	EXPECT_EQ(h.kicks, 0);
	h.ExpectInvariants();
	h.DropLastRef(h.CtxOf(1));
	EXPECT_EQ(h.kicks, 1);
	EXPECT_EQ(h.RunWork(), 1u);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	h.put_releases = true;
	ASSERT_EQ(h.Respond(h.CtxOf(2)), Status::kOk);
	EXPECT_TRUE(h.CompleteNextAtomic());
	h.Teardown();
}

/*
 * Responses wait for send-queue room (a command's response with two RDMA
 * WRITEs fills the queue of 4, one slot being the drain's, and a
 * task-management response is deferred behind it). Posting the deferred
 * one may fail, which disconnects: the softirq path refuses the
 * completion and changes nothing; process context then finishes it and
 * posts the deferred response, in order.
 */
TEST(SendDoneAtomic, RefusedUntouchedWhileResponsesWaitForRoom)
{
	FullChannel h(2, 4);
	ASSERT_EQ(h.Respond(h.CtxOf(1), 2), Status::kOk);
	ASSERT_EQ(h.Respond(h.CtxOf(2), 0, QueueFullPolicy::kDefer),
		  Status::kOk);
	EXPECT_EQ(h.core.Stats().deferred_responses, 1u);
	SendCtx *s = h.CtxOf(1);
	const ChannelStats before = h.core.Stats();
	ASSERT_EQ(h.sq.size(), 1u);
	EXPECT_EQ(h.core.OnSendDoneAtomic(*h.sq.front().s), SendDone::kRefused);
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.send_done_deferred, 1u);
	EXPECT_EQ(st.sq_avail, before.sq_avail) << "slots returned";
	EXPECT_EQ(st.send_ctx_free, before.send_ctx_free);
	EXPECT_EQ(st.deferred_responses, 1u);
	EXPECT_EQ(s->state(), CmdState::kCmdRspSent);
	EXPECT_TRUE(h.puts.empty());
	/* wc_work: the same completion, in process context. */
	EXPECT_FALSE(h.CompleteNextAtomic());
	EXPECT_EQ(h.core.Stats().send_done_deferred, 2u)
	    << "the helper asked the atomic path again first";
	EXPECT_EQ(s->state(), CmdState::kFree);
	ASSERT_EQ(h.sq.size(), 1u);
	EXPECT_EQ(h.sq.front().tag, 2u);
	EXPECT_EQ(h.core.Stats().deferred_responses, 0u);
	h.ExpectInvariants();
	/* Nothing deferred any more: softirq takes the next one. */
	EXPECT_TRUE(h.CompleteNextAtomic());
	EXPECT_EQ(h.core.Stats().send_done_deferred, 2u);
	EXPECT_EQ(h.core.Stats().req_lim, 2);
	h.ExpectInvariants();
	h.Teardown();
}

} // namespace
} // namespace srpt::test
