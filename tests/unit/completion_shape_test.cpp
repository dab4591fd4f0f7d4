// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shape of a command's path through the channel core: one lock hold
 * per entry point, every post made after the lock is dropped, and no call
 * into the target core from inside the core (a send completion returns
 * kPutCmd, a data-out returns kExecute, a received IU is a Handoff: the
 * caller, the glue, makes those calls after the core has returned).
 */
#include <gtest/gtest-spi.h>

#include "channel_harness.hpp"

namespace srpt::test
{
namespace
{

/* A live channel with room: every IU is served on arrival. */
struct Live : Harness {
	explicit Live(uint32_t credits = 4) : Harness(Config(credits, 16))
	{
		EXPECT_TRUE(core.OnRtu());
		RunWork();
	}
};

TEST(CompletionShape, ReadCommandTakesOneLockHoldPerEntryPoint)
{
	Live h;
	/* Receive: one hold; served on arrival, its buffer reposted unlocked. */
	EXPECT_EQ(LocksOf([&] { h.Deliver(kOpCmd, 1); }), 1u);
	ASSERT_EQ(h.served.size(), 1u);
	SendCtx *s = h.served[0].s;
	EXPECT_EQ(h.core.Stats().ius_waited, 0u);
	/* Response (data-in and status): one hold, the post after it. */
	EXPECT_EQ(LocksOf([&] { ASSERT_EQ(h.Respond(s, 2), Status::kOk); }),
		  1u);
	/* Send completion: one hold; then the glue's put and LIO's release. */
	h.put_releases = false;
	EXPECT_EQ(LocksOf([&] { h.CompleteNext(); }), 1u);
	ASSERT_EQ(h.puts.size(), 1u);
	EXPECT_EQ(LocksOf([&] { h.DropLastRef(s); }), 1u);
	EXPECT_EQ(s->state(), CmdState::kFree);
	EXPECT_EQ(h.kicks, 0) << "nothing waited";
	h.ExpectInvariants();
	h.Teardown();
}

TEST(CompletionShape, ImmediateDataWriteTakesOneLockHoldPerEntryPoint)
{
	Live h;
	EXPECT_EQ(LocksOf([&] { h.Deliver(kOpCmd, 1, /*imm=*/true); }), 1u);
	SendCtx *s = h.served[0].s;
	ASSERT_NE(s->recv(), nullptr) << "the command keeps its buffer";
	const size_t posted = h.own_rq.size();
	EXPECT_EQ(LocksOf([&] {
			  ASSERT_EQ(h.WritePending(*s, 0), Status::kOk);
		  }),
		  1u);
	ASSERT_EQ(h.executed.size(), 1u) << "the caller executes it";
	EXPECT_EQ(LocksOf([&] { ASSERT_EQ(h.Respond(s), Status::kOk); }), 1u);
	h.put_releases = false;
	EXPECT_EQ(LocksOf([&] { h.CompleteNext(); }), 1u);
	/* The release frees the context and reposts the buffer, unlocked. */
	EXPECT_EQ(LocksOf([&] { h.DropLastRef(s); }), 1u);
	EXPECT_EQ(h.own_rq.size(), posted + 1);
	h.ExpectInvariants();
	h.Teardown();
}

/*
 * The core never calls the target core on a command's usual path: the
 * send completion leaves the fabric's reference to its caller.
 */
TEST(CompletionShape, SendCompletionReturnsThePutToItsCaller)
{
	Live h;
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served[0].s;
	ASSERT_EQ(h.Respond(s), Status::kOk);
	h.sq.pop_front(); /* completed by hand below, not by the harness */
	EXPECT_EQ(h.core.OnSendDone(*s, true), SendDone::kPutCmd);
	EXPECT_TRUE(h.puts.empty()) << "the core dropped a reference itself";
	EXPECT_EQ(s->state(), CmdState::kDone);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 3u) << "freed before release";
	h.core.ReleaseCmd(*s);
	EXPECT_EQ(s->state(), CmdState::kFree);
	h.ExpectInvariants();
	h.Teardown();
}

/*
 * Released before its response completed (no LIO path does this; the
 * core copes): the completion is the last owner, frees the context and
 * serves the wait list through the kick.
 */
TEST(CompletionShape, ReleasedBeforeCompletionIsFreedByTheCompletion)
{
	Harness h(Harness::Config(2, 16, /*send_ctx_limit=*/1));
	ASSERT_TRUE(h.core.OnRtu());
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2); /* waits: no send context */
	SendCtx *s = h.served[0].s;
	ASSERT_EQ(h.Respond(s), Status::kOk);
	h.core.ReleaseCmd(*s);
	EXPECT_EQ(s->state(), CmdState::kCmdRspSent);
	h.sq.pop_front();
	EXPECT_EQ(h.core.OnSendDone(*s, true), SendDone::kDone);
	EXPECT_TRUE(h.puts.empty());
	EXPECT_EQ(h.core.Stats().kick_pending, true);
	h.RunWork();
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	h.ExpectInvariants();
	ASSERT_EQ(h.Respond(h.served[1].s), Status::kOk);
	h.CompleteNext();
	h.Teardown();
}

/* What every post's check (ExpectUnlockedPost) catches. */
Harness *g_posting;

void PostUnderALock()
{
	SpinLock lock(LockClass::kTest);
	SpinLockGuard guard(lock);
	ExpectUnlockedPost(g_posting, "ib_post_send");
}

TEST(CompletionShape, HarnessCatchesAPostUnderTheLock)
{
	Live h;
	g_posting = &h;
	EXPECT_NONFATAL_FAILURE(PostUnderALock(), "under the channel lock");
	g_posting = nullptr;
	h.Teardown();
}

} // namespace
} // namespace srpt::test
