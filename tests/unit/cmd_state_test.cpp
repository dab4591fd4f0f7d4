// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The command state machine: the table of legal moves, TransitionTo(), and
 * the sequence of states each kind of command goes through in the channel.
 */
#include <set>
#include <utility>

#include "channel_harness.hpp"
#include "test_support.hpp"

namespace srpt::test
{
namespace
{

using S = CmdState;

constexpr S kAll[] = {S::kFree,	      S::kNew,	S::kNeedData,	 S::kDataIn,
		      S::kCmdRspSent, S::kMgmt, S::kMgmtRspSent, S::kDone};

/* The machine as documented in cmd_state.hpp, written independently. */
const std::set<std::pair<S, S>> kExpectedLegal = {
    {S::kFree, S::kNew},	  {S::kFree, S::kMgmt},
    {S::kNew, S::kNeedData},	  {S::kNew, S::kDataIn},
    {S::kNew, S::kCmdRspSent},	  {S::kNew, S::kDone},
    {S::kNeedData, S::kDataIn},	  {S::kNeedData, S::kDone},
    {S::kDataIn, S::kCmdRspSent}, {S::kDataIn, S::kDone},
    {S::kCmdRspSent, S::kDone},	  {S::kMgmt, S::kMgmtRspSent},
    {S::kMgmt, S::kDone},	  {S::kMgmtRspSent, S::kDone},
    {S::kDone, S::kFree},
};

TEST(CmdState, TableIsExactlyTheDocumentedMachine)
{
	for (S from : kAll)
		for (S to : kAll)
			EXPECT_EQ(IsLegalTransition(from, to),
				  kExpectedLegal.count({from, to}) == 1)
			    << CmdStateName(from) << " -> " << CmdStateName(to);
}

TEST(CmdState, NoSelfLoopsAndDoneOnlyLeadsToFree)
{
	for (S s : kAll)
		EXPECT_FALSE(IsLegalTransition(s, s)) << CmdStateName(s);
	for (S to : kAll)
		EXPECT_EQ(IsLegalTransition(S::kDone, to), to == S::kFree);
}

TEST(CmdState, TransitionToReturnsPreviousState)
{
	CmdStateMachine m;
	EXPECT_EQ(m.state(), S::kFree);
	EXPECT_EQ(m.TransitionTo(S::kNew), S::kFree);
	EXPECT_EQ(m.TransitionTo(S::kDataIn), S::kNew);
	EXPECT_EQ(m.TransitionTo(S::kCmdRspSent), S::kDataIn);
	EXPECT_EQ(m.TransitionTo(S::kDone), S::kCmdRspSent);
	EXPECT_EQ(m.state(), S::kDone);
}

TEST(CmdState, IllegalMoveIsReportedAndRefused)
{
	CmdStateMachine m;
	(void)m.TransitionTo(S::kNew);
	(void)m.TransitionTo(S::kCmdRspSent);
	ScopedExpectWarn warn;
	/* A second response for the same command (6.1 WARNs and goes on). */
	EXPECT_EQ(m.TransitionTo(S::kCmdRspSent), S::kCmdRspSent);
	/* Leaving a sent response backwards. */
	EXPECT_EQ(m.TransitionTo(S::kDataIn), S::kCmdRspSent);
	EXPECT_EQ(m.state(), S::kCmdRspSent);
	EXPECT_EQ(warn.warnings().size(), 2u);
}

struct Recorder {
	std::vector<std::pair<S, S>> moves;
	int illegal = 0;
	static void Observe(void *cookie, S from, S to, bool legal)
	{
		auto *r = static_cast<Recorder *>(cookie);
		r->moves.push_back({from, to});
		if (!legal)
			r->illegal++;
	}
	std::vector<std::pair<S, S>> Take()
	{
		auto m = moves;
		moves.clear();
		return m;
	}
};

struct ObservedChannel : Harness {
	static ChannelConfig Cfg(Recorder *rec)
	{
		ChannelConfig cfg = Config(2, 16);
		cfg.state_observer = &Recorder::Observe;
		cfg.state_observer_cookie = rec;
		return cfg;
	}
	explicit ObservedChannel(Recorder *rec) : Harness(Cfg(rec))
	{
		EXPECT_TRUE(core.OnRtu());
	}
};

using Moves = std::vector<std::pair<S, S>>;

/* Every move of a command with data-out, from receive to a free context. */
const Moves kDataOutLifecycle = {
    {S::kFree, S::kNew},	{S::kNew, S::kNeedData},
    {S::kNeedData, S::kDataIn}, {S::kDataIn, S::kCmdRspSent},
    {S::kCmdRspSent, S::kDone}, {S::kDone, S::kFree}};

TEST(CmdState, ReadCommandPath)
{
	Recorder rec;
	ObservedChannel h(&rec);
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served.back().s;
	ASSERT_EQ(h.Respond(s, 2), Status::kOk); /* 2 RDMA WRITEs + SEND */
	EXPECT_EQ(h.core.Stats().sq_avail, h.core.Stats().sq_capacity - 3);
	h.CompleteNext();
	EXPECT_EQ(rec.Take(), (Moves{{S::kFree, S::kNew},
				     {S::kNew, S::kCmdRspSent},
				     {S::kCmdRspSent, S::kDone},
				     {S::kDone, S::kFree}}));
	EXPECT_EQ(h.core.Stats().sq_avail, h.core.Stats().sq_capacity);
	h.Teardown();
	EXPECT_EQ(rec.illegal, 0);
}

TEST(CmdState, WriteCommandPathWithRdmaRead)
{
	Recorder rec;
	ObservedChannel h(&rec);
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served.back().s;
	ASSERT_EQ(h.WritePending(*s, 3), Status::kOk);
	EXPECT_EQ(s->state(), S::kNeedData);
	EXPECT_EQ(s->posted_wrs(), 3u);
	h.CompleteNext(); /* RDMA READ done */
	ASSERT_EQ(h.executed.size(), 1u);
	ASSERT_EQ(h.Respond(s), Status::kOk);
	h.CompleteNext();
	EXPECT_EQ(rec.Take(), kDataOutLifecycle);
	h.Teardown();
}

TEST(CmdState, ImmediateDataExecutesAtOnceAndKeepsBuffer)
{
	Recorder rec;
	ObservedChannel h(&rec);
	RecvCtx *r = h.Deliver(kOpCmd, 1, /*imm=*/true);
	SendCtx *s = h.served.back().s;
	EXPECT_EQ(s->recv(), r);
	EXPECT_EQ(r->state(), RecvState::kHeldByCmd);
	size_t posted = h.rq().size();
	ASSERT_EQ(h.WritePending(*s, 0), Status::kOk);
	EXPECT_EQ(h.executed.size(), 1u);
	ASSERT_EQ(h.Respond(s), Status::kOk);
	EXPECT_EQ(h.rq().size(), posted) << "buffer reposted while in use";
	h.CompleteNext();
	EXPECT_EQ(r->state(), RecvState::kPosted);
	EXPECT_EQ(h.rq().size(), posted + 1);
	EXPECT_EQ(rec.Take(), (Moves{{S::kFree, S::kNew},
				     {S::kNew, S::kDataIn},
				     {S::kDataIn, S::kCmdRspSent},
				     {S::kCmdRspSent, S::kDone},
				     {S::kDone, S::kFree}}));
	h.Teardown();
}

TEST(CmdState, TaskManagementPath)
{
	Recorder rec;
	ObservedChannel h(&rec);
	h.Deliver(kOpTskMgmt, 1);
	ASSERT_EQ(h.served.back().kind, IuKind::kTaskMgmt);
	SendCtx *s = h.served.back().s;
	ASSERT_EQ(h.Respond(s, 0, QueueFullPolicy::kDefer), Status::kOk);
	h.CompleteNext();
	EXPECT_EQ(rec.Take(), (Moves{{S::kFree, S::kMgmt},
				     {S::kMgmt, S::kMgmtRspSent},
				     {S::kMgmtRspSent, S::kDone},
				     {S::kDone, S::kFree}}));
	h.Teardown();
}

TEST(CmdState, AbortedTaskPath)
{
	Recorder rec;
	ObservedChannel h(&rec);
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served.back().s;
	h.core.AbortedTask(*s);
	h.core.ReleaseCmd(*s);
	EXPECT_EQ(rec.Take(), (Moves{{S::kFree, S::kNew},
				     {S::kNew, S::kDone},
				     {S::kDone, S::kFree}}));
	EXPECT_EQ(h.core.Stats().owed, 1);
	h.Teardown();
}

TEST(CmdState, RdmaReadErrorFailsTheCommandWhichStillAnswers)
{
	Recorder rec;
	ObservedChannel h(&rec);
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served.back().s;
	ASSERT_EQ(h.WritePending(*s, 1), Status::kOk);
	h.CompleteNext(false);
	EXPECT_EQ(h.executed.size(), 0u);
	ASSERT_EQ(h.failed.size(), 1u);
	ASSERT_EQ(h.Respond(s), Status::kOk); /* CHECK CONDITION */
	h.CompleteNext();
	EXPECT_EQ(rec.Take(), kDataOutLifecycle);
	h.Teardown();
}

TEST(CmdState, AbortWhileRdmaReadPostedWaitsForTheCompletion)
{
	Recorder rec;
	ObservedChannel h(&rec);
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served.back().s;
	ASSERT_EQ(h.WritePending(*s, 2), Status::kOk);
	h.core.AbortedTask(*s);
	h.core.ReleaseCmd(*s);
	/* The READ may still write into our buffers: not free yet. */
	EXPECT_EQ(s->state(), S::kDone);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 1u);
	h.CompleteNext();
	EXPECT_EQ(h.executed.size(), 0u);
	EXPECT_EQ(s->state(), S::kFree);
	EXPECT_EQ(h.core.Stats().send_ctx_free, 2u);
	h.ExpectInvariants();
	h.Teardown();
}

TEST(CmdState, SecondResponseForOneCommandIsRefused)
{
	Recorder rec;
	ObservedChannel h(&rec);
	h.Deliver(kOpCmd, 1);
	SendCtx *s = h.served.back().s;
	ASSERT_EQ(h.Respond(s), Status::kOk);
	{
		ScopedExpectWarn warn;
		EXPECT_EQ(h.Respond(s), Status::kInvalid);
		EXPECT_EQ(warn.warnings().size(), 1u);
	}
	EXPECT_EQ(h.sq.size(), 1u);
	h.CompleteNext();
	h.ExpectInvariants();
	h.Teardown();
}

/*
 * The phase has no table of its own: its moves are those of the channel
 * state table seen through PhaseOf(). They are the data path's old ones.
 */
bool PhaseCanMove(ChannelPhase from, ChannelPhase to)
{
	for (size_t i = 0; i < kChannelStateCount; i++)
		for (size_t j = 0; j < kChannelStateCount; j++) {
			const auto a = static_cast<ChannelState>(i);
			const auto b = static_cast<ChannelState>(j);
			if (IsLegalTransition(a, b) && PhaseOf(a) == from &&
			    PhaseOf(b) == to)
				return true;
		}
	return false;
}

TEST(ChannelPhase, Table)
{
	using P = ChannelPhase;
	EXPECT_TRUE(PhaseCanMove(P::kConnecting, P::kLive));
	EXPECT_TRUE(PhaseCanMove(P::kConnecting, P::kClosing));
	EXPECT_TRUE(PhaseCanMove(P::kLive, P::kClosing));
	EXPECT_TRUE(PhaseCanMove(P::kClosing, P::kReleased));
	EXPECT_FALSE(PhaseCanMove(P::kLive, P::kConnecting));
	EXPECT_FALSE(PhaseCanMove(P::kClosing, P::kLive));
	EXPECT_FALSE(PhaseCanMove(P::kReleased, P::kLive));
	EXPECT_FALSE(PhaseCanMove(P::kLive, P::kLive));
}

TEST(ChannelPhase, RtuAfterDisconnectIsRefused)
{
	Harness h(Harness::Config(2, 8));
	EXPECT_TRUE(h.core.Disconnect());
	EXPECT_FALSE(h.core.Disconnect());
	EXPECT_FALSE(h.core.OnRtu());
	EXPECT_EQ(h.core.Stats().phase, ChannelPhase::kClosing);
	h.Teardown();
}

} // namespace
} // namespace srpt::test
