// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Credits (req_lim / req_lim_delta) and the send-queue budget, alone and
 * through the channel: what each response returns, what is owed, and what
 * happens when the send queue is full.
 */
#include "channel_harness.hpp"
#include "test_support.hpp"

namespace srpt::test
{
namespace
{

TEST(CreditLedger, GrantConsumeRespond)
{
	CreditLedger l;
	l.Grant(4);
	EXPECT_TRUE(l.Conserved());
	EXPECT_TRUE(l.Consume());
	EXPECT_TRUE(l.Consume());
	EXPECT_EQ(l.req_lim(), 2);
	EXPECT_EQ(l.in_flight(), 2);
	EXPECT_TRUE(l.Conserved());
	EXPECT_EQ(l.TakeResponseDelta(true), 1);
	EXPECT_EQ(l.req_lim(), 3);
	EXPECT_TRUE(l.Conserved());
}

TEST(CreditLedger, WriteOffGoesToTheNextResponse)
{
	CreditLedger l;
	l.Grant(4);
	(void)l.Consume();
	(void)l.Consume();
	(void)l.Consume();
	l.WriteOff();
	l.WriteOff();
	EXPECT_EQ(l.owed(), 2);
	EXPECT_TRUE(l.Conserved());
	EXPECT_EQ(l.TakeResponseDelta(true), 3);
	EXPECT_EQ(l.owed(), 0);
	EXPECT_EQ(l.req_lim(), 4);
	EXPECT_TRUE(l.Conserved());
}

TEST(CreditLedger, UndoRestoresEverything)
{
	CreditLedger l;
	l.Grant(3);
	(void)l.Consume();
	(void)l.Consume();
	l.WriteOff();
	const int32_t delta = l.TakeResponseDelta(true);
	EXPECT_EQ(delta, 2);
	l.UndoResponseDelta(delta, true);
	EXPECT_EQ(l.owed(), 1);
	EXPECT_EQ(l.in_flight(), 1);
	EXPECT_EQ(l.req_lim(), 1);
	EXPECT_EQ(l.granted_total(), 3u);
	EXPECT_TRUE(l.Conserved());
}

TEST(CreditLedger, ConsumingWithoutCreditIsAViolation)
{
	CreditLedger l;
	l.Grant(1);
	EXPECT_TRUE(l.Consume());
	EXPECT_FALSE(l.Consume());
	EXPECT_EQ(l.violations(), 1u);
	EXPECT_EQ(l.req_lim(), -1);
	EXPECT_TRUE(l.Conserved());
}

TEST(SqBudget, ReserveReturn)
{
	SqBudget b;
	b.Init(4);
	EXPECT_TRUE(b.TryReserve(3));
	EXPECT_FALSE(b.TryReserve(2));
	EXPECT_EQ(b.avail(), 1u);
	EXPECT_TRUE(b.TryReserve(1));
	EXPECT_EQ(b.in_use(), 4u);
	b.Return(4);
	EXPECT_EQ(b.avail(), 4u);
	EXPECT_FALSE(b.Fits(5));
	EXPECT_TRUE(b.Fits(4));
}

TEST(SqBudget, ReturningMoreThanTakenIsReported)
{
	SqBudget b;
	b.Init(4);
	EXPECT_TRUE(b.TryReserve(1));
	ScopedExpectWarn warn;
	b.Return(2);
	EXPECT_EQ(warn.warnings().size(), 1u);
	EXPECT_EQ(b.avail(), 4u);
}

struct Live : Harness {
	explicit Live(uint32_t credits, uint32_t sq = 16)
	    : Harness(Config(credits, sq))
	{
		EXPECT_TRUE(core.OnRtu());
	}
};

TEST(Credits, LoginGrantAndOneCreditPerResponse)
{
	Live h(4);
	EXPECT_EQ(h.core.login_credits(), 4);
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2);
	EXPECT_EQ(h.core.Stats().req_lim, 2);
	ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
	ASSERT_EQ(h.Respond(h.served[1].s), Status::kOk);
	EXPECT_EQ(h.sq[0].delta, 1);
	EXPECT_EQ(h.sq[1].delta, 1);
	EXPECT_EQ(h.core.Stats().req_lim, 4);
	h.CompleteNext();
	h.CompleteNext();
	h.ExpectInvariants();
	h.Teardown();
}

TEST(Credits, AbortedTaskCreditReturnedWithNextResponse)
{
	Live h(4);
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2);
	h.Deliver(kOpCmd, 3);
	h.core.AbortedTask(*h.served[0].s);
	h.core.ReleaseCmd(*h.served[0].s);
	h.core.AbortedTask(*h.served[1].s);
	h.core.ReleaseCmd(*h.served[1].s);
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.owed, 2);
	EXPECT_EQ(st.req_lim, 1);
	ASSERT_EQ(h.Respond(h.served[2].s), Status::kOk);
	EXPECT_EQ(h.sq.back().delta, 3);
	EXPECT_EQ(h.core.Stats().req_lim, 4);
	EXPECT_EQ(h.core.Stats().owed, 0);
	h.CompleteNext();
	h.ExpectInvariants();
	h.Teardown();
}

TEST(Credits, ReleasedWithoutResponseIsOwedOnce)
{
	Live h(2);
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served[0].s;
	h.core.AbortedTask(*s); /* owed once ... */
	h.core.ReleaseCmd(*s);	/* ... not twice */
	EXPECT_EQ(h.core.Stats().owed, 1);
	h.ExpectInvariants();
	h.Deliver(kOpCmd, 2);
	/* Released by the target core without aborted_task: still owed. */
	h.core.ReleaseCmd(*h.served[1].s);
	EXPECT_EQ(h.core.Stats().owed, 2);
	h.ExpectInvariants();
	h.Teardown();
}

TEST(Credits, LogoutAndUnknownIusCostNoCredit)
{
	Live h(4);
	h.Deliver(kOpILogout, 1);
	h.Deliver(kOpUnknown, 2);
	h.Deliver(0, 3, false, /*len=*/0); /* empty IU */
	EXPECT_EQ(h.served.size(), 3u);
	EXPECT_EQ(h.served[0].kind, IuKind::kLogout);
	EXPECT_EQ(h.served[1].kind, IuKind::kOther);
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.req_lim, 4);
	EXPECT_EQ(st.owed, 0) << "credit handed back that was never paid";
	EXPECT_EQ(st.in_flight, 0);
	EXPECT_EQ(h.rq().size(), 4u) << "buffers reposted";
	h.ExpectInvariants();
	h.Deliver(kOpCmd, 4);
	ASSERT_EQ(h.Respond(h.served.back().s), Status::kOk);
	EXPECT_EQ(h.sq.back().delta, 1);
	h.CompleteNext();
	h.Teardown();
}

TEST(Credits, ResponsesToTargetRequestsCostNoCredit)
{
	Live h(2);
	h.Deliver(kOpCredRsp, 1);
	h.Deliver(kOpAerRsp, 2);
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.req_lim, 2);
	EXPECT_EQ(st.owed, 0);
	EXPECT_EQ(st.consumed_total, 0u);
	h.ExpectInvariants();
	h.Teardown();
}

TEST(Credits, InitiatorOverrunIsCounted)
{
	/* 1 credit, but 2 receive buffers thanks to an SRQ. */
	FakeSrq srq(4);
	Harness h(Harness::Config(1, 8), &srq);
	ASSERT_TRUE(h.core.OnRtu());
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2);
	ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.credit_violations, 1u);
	EXPECT_EQ(st.req_lim, -1);
	EXPECT_TRUE(host::LogsContain("without credit"));
	h.ExpectInvariants();
	ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
	h.CompleteNext();
	h.RunWork();
	ASSERT_EQ(h.served.size(), 2u);
	ASSERT_EQ(h.Respond(h.served[1].s), Status::kOk);
	h.CompleteNext();
	EXPECT_EQ(h.core.Stats().req_lim, 1);
	h.Teardown();
}

/* 6.1 drops the response and its credit here; we return queue-full. */
TEST(Credits, SendQueueFullOnResponseKeepsResponseAndCredit)
{
	/* SQ of 4 WRs: 1 kept for the drain write, 3 for data. */
	Live h(2, 4);
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2);
	SendCtx *a = h.served[0].s, *b = h.served[1].s;
	ASSERT_EQ(h.Respond(a, 2), Status::kOk); /* 3 WRs: SQ full */
	const ChannelStats before = h.core.Stats();
	EXPECT_EQ(before.sq_avail, 0u);
	EXPECT_EQ(h.Respond(b), kQueueFull);
	const ChannelStats after = h.core.Stats();
	EXPECT_EQ(after.queue_full, 1u);
	EXPECT_EQ(after.req_lim, before.req_lim) << "credit given away";
	EXPECT_EQ(after.in_flight, 1) << "credit lost";
	EXPECT_EQ(b->state(), CmdState::kNew) << "state moved";
	EXPECT_TRUE(b->holds_credit());
	EXPECT_EQ(h.sq.size(), 1u);
	h.ExpectInvariants();
	/* LIO retries after the completion returned the slots. */
	h.CompleteNext();
	ASSERT_EQ(h.Respond(b), Status::kOk);
	EXPECT_EQ(h.sq.back().delta, 1);
	h.CompleteNext();
	EXPECT_EQ(h.core.Stats().req_lim, 2);
	h.ExpectInvariants();
	h.Teardown();
}

/*
 * A command (tag 1) whose response with two RDMA WRITEs fills the send
 * queue of 4 (one slot is the drain's), then two task-management responses
 * (tags 2 and 3) that must wait for its completion.
 */
void DeferTwoTaskManagementResponses(Live &h)
{
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpTskMgmt, 2);
	h.Deliver(kOpTskMgmt, 3);
	ASSERT_EQ(h.Respond(h.served[0].s, 2), Status::kOk);
	/* queue_tm_rsp cannot fail: the core keeps the responses. */
	ASSERT_EQ(h.Respond(h.served[1].s, 0, QueueFullPolicy::kDefer),
		  Status::kOk);
	ASSERT_EQ(h.Respond(h.served[2].s, 0, QueueFullPolicy::kDefer),
		  Status::kOk);
}

TEST(Credits, TaskManagementResponseDeferredOnFullQueuePostedInOrder)
{
	Live h(3, 4);
	ASSERT_NO_FATAL_FAILURE(DeferTwoTaskManagementResponses(h));
	EXPECT_EQ(h.core.Stats().deferred_responses, 2u);
	EXPECT_EQ(h.sq.size(), 1u);
	h.ExpectInvariants();
	h.CompleteNext(); /* 3 slots back: both go out, in order */
	ASSERT_EQ(h.sq.size(), 2u);
	EXPECT_EQ(h.sq[0].tag, 2u);
	EXPECT_EQ(h.sq[1].tag, 3u);
	EXPECT_EQ(h.core.Stats().deferred_responses, 0u);
	h.CompleteNext();
	h.CompleteNext();
	EXPECT_EQ(h.core.Stats().req_lim, 3);
	h.ExpectInvariants();
	h.Teardown();
}

TEST(Credits, CommandResponseDoesNotOvertakeDeferredOnes)
{
	Live h(3, 4);
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpTskMgmt, 2);
	h.Deliver(kOpCmd, 3);
	ASSERT_EQ(h.Respond(h.served[0].s, 2), Status::kOk);
	ASSERT_EQ(h.Respond(h.served[1].s, 0, QueueFullPolicy::kDefer),
		  Status::kOk);
	h.CompleteNext();
	/* The deferred one went out first; the next fits too. */
	ASSERT_EQ(h.Respond(h.served[2].s), Status::kOk);
	EXPECT_EQ(h.sq[0].tag, 2u);
	EXPECT_EQ(h.sq[1].tag, 3u);
	h.CompleteNext();
	h.CompleteNext();
	h.Teardown();
}

TEST(Credits, RdmaReadOnFullQueueReturnsQueueFull)
{
	Live h(2, 4);
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2);
	ASSERT_EQ(h.WritePending(*h.served[0].s, 3), Status::kOk);
	EXPECT_EQ(h.WritePending(*h.served[1].s, 1), kQueueFull);
	EXPECT_EQ(h.served[1].s->state(), CmdState::kNew);
	h.CompleteNext();
	ASSERT_EQ(h.WritePending(*h.served[1].s, 1), Status::kOk);
	{
		ScopedExpectWarn warn;
		EXPECT_EQ(h.WritePending(*h.served[1].s, 1),
			  Status::kInvalid)
		    << "second write_pending";
		EXPECT_EQ(warn.warnings().size(), 1u);
	}
	h.CompleteNext();
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(h.Respond(h.served[i].s), Status::kOk);
	h.CompleteNext();
	h.CompleteNext();
	h.ExpectInvariants();
	h.Teardown();
}

TEST(Credits, ChainLongerThanTheQueueIsRefused)
{
	Live h(2, 4);
	h.Deliver(kOpCmd, 1);
	EXPECT_EQ(h.WritePending(*h.served[0].s, 4), Status::kNoSpace);
	{
		ScopedExpectWarn warn;
		EXPECT_EQ(h.Respond(h.served[0].s, 3), Status::kNoSpace);
	}
	ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
	h.CompleteNext();
	h.Teardown();
}

TEST(Credits, FailedPostOfTaskManagementResponseFinishesTheCommand)
{
	Live h(2);
	h.Deliver(kOpTskMgmt, 1);
	SendCtx *s = h.served[0].s;
	h.fail_next_post_send = Status::kIo;
	EXPECT_EQ(h.Respond(s, 0, QueueFullPolicy::kDefer), Status::kIo);
	/*
	 * Nobody can retry it: the reference is dropped, credit owed, and
	 * the channel told once that a response was lost (it disconnects).
	 */
	EXPECT_EQ(h.puts.size(), 1u);
	EXPECT_EQ(s->state(), CmdState::kFree);
	EXPECT_EQ(h.core.Stats().owed, 1);
	EXPECT_EQ(h.core.Stats().responses_lost, 1u);
	EXPECT_EQ(h.responses_lost, 1);
	h.ExpectInvariants();
	h.Teardown();
}

TEST(Credits, DeferredResponseWhosePostFailsIsLostAndTheNextGoesOut)
{
	Live h(3, 4);
	ASSERT_NO_FATAL_FAILURE(DeferTwoTaskManagementResponses(h));
	EXPECT_EQ(h.responses_lost, 0);
	h.fail_next_post_send = Status::kIo;
	h.CompleteNext(); /* tag 2's post fails, tag 3's goes out */
	ASSERT_EQ(h.sq.size(), 1u);
	EXPECT_EQ(h.sq[0].tag, 3u);
	EXPECT_EQ(h.served[1].s->state(), CmdState::kFree);
	EXPECT_EQ(h.core.Stats().responses_lost, 1u);
	EXPECT_EQ(h.responses_lost, 1);
	/*
	 * Both deltas were taken in the completion's one lock hold, before
	 * either post: tag 2's credit, given back when its post failed, is
	 * owed to the next response.
	 */
	EXPECT_EQ(h.sq[0].delta, 1);
	EXPECT_EQ(h.core.Stats().owed, 1);
	h.ExpectInvariants();
	h.CompleteNext();
	EXPECT_EQ(h.core.Stats().req_lim, 2);
	EXPECT_EQ(h.core.Stats().owed, 1);
	EXPECT_EQ(h.responses_lost, 1);
	h.ExpectInvariants();
	h.Teardown();
}

/*
 * A response whose post fails (after the lock, as every post is made) is
 * lost: its credit is owed, the fabric's reference is dropped and the
 * channel disconnects, whatever the queue-full policy.
 */
TEST(Credits, FailedPostIsLostItsCreditOwedAndItsReferencePut)
{
	Live h(2);
	h.put_releases = false;
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served[0].s;
	h.fail_next_post_send = Status::kIo;
	EXPECT_EQ(h.Respond(s, 0), Status::kIo);
	EXPECT_EQ(s->state(), CmdState::kDone);
	EXPECT_EQ(s->posted_wrs(), 0u);
	EXPECT_EQ(h.core.Stats().responses_lost, 1u);
	EXPECT_EQ(h.core.Stats().owed, 1);
	EXPECT_EQ(h.core.Stats().sq_avail, h.core.Stats().sq_capacity);
	EXPECT_EQ(h.responses_lost, 1);
	ASSERT_EQ(h.puts.size(), 1u);
	EXPECT_EQ(h.puts[0], s);
	h.DropLastRef(s);
	EXPECT_EQ(s->state(), CmdState::kFree);
	h.ExpectInvariants();
	h.Teardown();
}

} // namespace
} // namespace srpt::test
