// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The put window of the send completion (SendCtx::put_window_): the target
 * core's last reference, dropped while OnSendDone hands the fabric's
 * reference back, leaves the context to OnSendDone, which frees it and
 * serves the wait list in the one lock hold it takes anyway. What each
 * order of the send completion and the last reference drop costs in lock
 * round trips, and that no IU is stranded or served twice in any of them.
 */
#include <thread>

#include "channel_harness.hpp"

namespace srpt::test
{
namespace
{

/* Answers and completes command @tag, then ends the channel. */
void FinishWith(FullChannel &h, uint64_t tag)
{
	h.refs_held.clear();
	h.put_releases = true;
	h.on_put = nullptr;
	ASSERT_EQ(h.Respond(h.CtxOf(tag)), Status::kOk);
	h.CompleteNext();
	h.Teardown();
}

/*
 * The usual order: the target core has dropped its reference, the
 * fabric's drop inside PutCmd is the last. Two round trips: the
 * completion, then the free with the wait-list check (it was three, with
 * ReleaseCmd's own).
 */
TEST(PutWindow, LastReferenceInsidePutCmdCostsTwoLockRoundTrips)
{
	FullChannel h(2);
	ASSERT_EQ(h.Respond(h.CtxOf(1)), Status::kOk);
	const uint32_t free_before = h.core.Stats().send_ctx_free;
	EXPECT_EQ(LocksOf([&h] { h.CompleteNext(); }), 2u);
	EXPECT_EQ(h.puts.size(), 1u);
	EXPECT_EQ(h.core.Stats().send_ctx_free, free_before + 1);
	EXPECT_EQ(h.kicks, 0);
	h.ExpectInvariants();
	FinishWith(h, 2);
}

/*
 * The target core still holds a reference: the completion takes one round
 * trip, and the later drop frees the context with one of its own.
 */
TEST(PutWindow, ReferenceStillHeldCostsOneRoundTripThenTheDropFrees)
{
	FullChannel h(1);
	h.put_releases = false;
	ASSERT_EQ(h.Respond(h.CtxOf(1)), Status::kOk);
	EXPECT_EQ(LocksOf([&h] { h.CompleteNext(); }), 1u);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 0u);
	h.ExpectInvariants();
	EXPECT_EQ(LocksOf([&h] { h.DropLastRef(h.CtxOf(1)); }), 1u);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 1u);
	h.ExpectInvariants();
	h.Teardown();
}

/*
 * Released before its send completion (release_cmd while the response was
 * posted): freed and the wait list served in the completion's one hold
 * (the drainer retakes the lock after its hand-off, as every drainer does).
 */
TEST(PutWindow, ReleasedBeforeCompletionIsFreedAndServedInOneHold)
{
	FullChannel h(1);
	h.put_releases = false;
	SendCtx *s = h.CtxOf(1);
	ASSERT_EQ(h.Respond(s), Status::kOk);
	h.core.ReleaseCmd(*s);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 0u) << "WR still posted";
	h.Deliver(kOpCmd, 2); /* waits: no context free */
	EXPECT_EQ(h.core.Stats().wait_depth, 1u);
	/* The completion's hold, and the drainer's retake after hand-off. */
	EXPECT_EQ(LocksOf([&h] { h.CompleteNext(); }), 2u);
	EXPECT_TRUE(h.puts.empty()) << "no fabric reference left to drop";
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	EXPECT_EQ(h.kicks, 0);
	h.ExpectInvariants();
	FinishWith(h, 2);
}

/*
 * With the held-completion knob the send completion runs from a work item,
 * beside the CQ: an IU may arrive inside the window, find no context and
 * wait, and the context is released inside the window after it. The
 * completion promised no drain (nothing waited when it took the lock); it
 * must serve the IU anyway once it frees the context, without a kick.
 */
TEST(PutWindow, IuArrivingInsideTheWindowIsServedByTheCompletion)
{
	FullChannel h(1);
	SendCtx *s = h.CtxOf(1);
	ASSERT_EQ(h.Respond(s), Status::kOk);
	h.on_put = [&h](SendCtx &ctx) {
		h.Deliver(kOpCmd, 2);
		EXPECT_EQ(h.core.Stats().wait_depth, 1u);
		h.core.ReleaseCmd(ctx);
		/* Taken by the window: not freed yet. */
		EXPECT_EQ(h.core.Stats().send_ctx_free, 0u);
		EXPECT_EQ(h.core.Stats().wait_depth, 1u);
	};
	h.CompleteNext();
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	EXPECT_EQ(h.core.Stats().wait_depth, 0u);
	EXPECT_EQ(h.kicks, 0);
	h.ExpectInvariants();
	FinishWith(h, 2);
}

/*
 * The target core drops its last reference on another CPU while the
 * window is open: that ReleaseCmd takes no lock, and the context is free
 * when the completion returns.
 */
TEST(PutWindow, ReleaseFromAnotherThreadInsideTheWindowTakesNoLock)
{
	FullChannel h(1);
	h.put_releases = false;
	ASSERT_EQ(h.Respond(h.CtxOf(1)), Status::kOk);
	uint64_t other_locks = ~0ull;
	h.on_put = [&h, &other_locks](SendCtx &ctx) {
		std::thread t([&h, &ctx, &other_locks] {
			other_locks =
			    LocksOf([&h, &ctx] { h.core.ReleaseCmd(ctx); });
		});
		t.join();
	};
	h.CompleteNext();
	h.on_put = nullptr;
	EXPECT_EQ(other_locks, 0u);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 1u);
	h.ExpectInvariants();
	h.put_releases = true;
	h.Teardown();
}

/*
 * A ReleaseCmd after the window closed (the target core's drop comes
 * later) takes the locked path: the window does not stay open.
 */
TEST(PutWindow, WindowClosesWhenPutCmdReturns)
{
	FullChannel h(1);
	h.put_releases = false;
	ASSERT_EQ(h.Respond(h.CtxOf(1)), Status::kOk);
	h.Deliver(kOpCmd, 2); /* waits for the context */
	h.CompleteNext();
	EXPECT_EQ(h.core.Stats().wait_depth, 1u);
	h.ExpectInvariants(); /* "put window left open" among them */
	h.DropLastRef(h.CtxOf(1));
	EXPECT_EQ(h.kicks, 1) << "freed outside the window: the kick";
	EXPECT_EQ(h.RunWork(), 1u);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	h.ExpectInvariants();
	FinishWith(h, 2);
}

} // namespace
} // namespace srpt::test
