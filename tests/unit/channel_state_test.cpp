// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one channel state, kept by the core under its lock: the table, the
 * projection the data path reads, TransitionTo() and the core's own moves
 * (a flushed drain marker, Release()), each reported to the environment.
 */
#include <vector>

#include "channel_harness.hpp"
#include "test_support.hpp"

namespace srpt::test
{
namespace
{

using S = ChannelState;

constexpr S kAllStates[] = {S::kConnecting, S::kLive,	   S::kDisconnecting,
			    S::kDraining,   S::kReleasing, S::kReleased};

TEST(ChannelState, PhaseIsAProjectionOfTheState)
{
	EXPECT_EQ(PhaseOf(S::kConnecting), ChannelPhase::kConnecting);
	EXPECT_EQ(PhaseOf(S::kLive), ChannelPhase::kLive);
	EXPECT_EQ(PhaseOf(S::kDisconnecting), ChannelPhase::kClosing);
	EXPECT_EQ(PhaseOf(S::kDraining), ChannelPhase::kClosing);
	EXPECT_EQ(PhaseOf(S::kReleasing), ChannelPhase::kClosing);
	EXPECT_EQ(PhaseOf(S::kReleased), ChannelPhase::kReleased);
	EXPECT_STREQ(ChannelPhaseName(PhaseOf(S::kDraining)), "closing");
}

TEST(ChannelState, TableIsExactlyTheDocumentedMachine)
{
	const std::vector<std::pair<S, S>> legal = {
	    {S::kConnecting, S::kLive},
	    {S::kConnecting, S::kDisconnecting},
	    {S::kConnecting, S::kDraining},
	    {S::kConnecting, S::kReleasing},
	    {S::kLive, S::kDisconnecting},
	    {S::kLive, S::kDraining},
	    {S::kDisconnecting, S::kDraining},
	    {S::kDraining, S::kReleasing},
	    {S::kReleasing, S::kReleased},
	};
	for (S from : kAllStates)
		for (S to : kAllStates) {
			bool want = false;
			for (const auto &m : legal)
				want |= m.first == from && m.second == to;
			EXPECT_EQ(IsLegalTransition(from, to), want)
			    << ChannelStateName(from) << " -> "
			    << ChannelStateName(to);
		}
}

/* Drives a fresh channel to @s through legal moves only. */
void DriveTo(Harness &h, S s)
{
	if (s == S::kConnecting)
		return;
	ASSERT_TRUE(h.core.OnRtu());
	switch (s) {
	case S::kConnecting:
	case S::kLive:
		return;
	case S::kDisconnecting:
		ASSERT_TRUE(h.core.Disconnect());
		return;
	case S::kDraining:
	case S::kReleasing:
	case S::kReleased:
		break;
	}
	ASSERT_EQ(h.core.TransitionTo(S::kDraining), S::kLive);
	if (s == S::kDraining)
		return;
	ASSERT_EQ(h.core.PostDrainWrite(), Status::kOk);
	h.CompleteNext(false);
	ASSERT_EQ(h.last_zlw, ZlwOutcome::kReleaseChannel);
	if (s == S::kReleasing)
		return;
	ASSERT_EQ(h.core.Release(), 0u);
}

void EndChannel(Harness &h)
{
	EXPECT_EQ(h.core.Release(), 0u);
	EXPECT_EQ(h.core.state(), S::kReleased);
	h.core.Destroy();
	h.destroyed = true;
}

/*
 * From every state, toward every other but kReleased: TransitionTo()
 * returns the previous state, moves iff the table allows it, and reports
 * exactly the move it made.
 */
TEST(ChannelState, TransitionToReturnsThePreviousStateAndMovesOnlyWhenLegal)
{
	for (S from : kAllStates)
		for (S to : kAllStates) {
			if (to == S::kReleased)
				continue;
			SCOPED_TRACE(std::string(ChannelStateName(from)) +
				     " -> " + ChannelStateName(to));
			Harness h(Harness::Config(2, 8));
			DriveTo(h, from);
			ASSERT_EQ(h.core.state(), from);
			h.state_moves.clear();
			const bool legal = IsLegalTransition(from, to);
			EXPECT_EQ(h.core.TransitionTo(to), from);
			EXPECT_EQ(h.core.state(), legal ? to : from);
			EXPECT_EQ(h.core.Stats().state, legal ? to : from);
			if (legal)
				EXPECT_EQ(h.state_moves,
					  (std::vector<StateMove>{{from, to}}));
			else
				EXPECT_TRUE(h.state_moves.empty());
			if (h.core.state() != S::kReleased)
				EndChannel(h);
		}
}

TEST(ChannelState, OnlyReleaseMovesToReleased)
{
	Harness h(Harness::Config(2, 8));
	DriveTo(h, S::kReleasing);
	h.state_moves.clear();
	{
		ScopedExpectWarn warn;
		EXPECT_EQ(h.core.TransitionTo(S::kReleased), S::kReleasing);
		EXPECT_EQ(warn.warnings().size(), 1u);
	}
	EXPECT_EQ(h.core.state(), S::kReleasing);
	EXPECT_TRUE(h.state_moves.empty());
	EndChannel(h);
	EXPECT_EQ(h.state_moves,
		  (std::vector<StateMove>{{S::kReleasing, S::kReleased}}));
}

/* Release() gets there from anywhere, through legal moves only. */
TEST(ChannelState, ReleaseEndsInReleasedThroughLegalMoves)
{
	for (S from : kAllStates) {
		SCOPED_TRACE(ChannelStateName(from));
		Harness h(Harness::Config(2, 8));
		DriveTo(h, from);
		h.state_moves.clear();
		EndChannel(h);
		S at = from;
		for (const StateMove &m : h.state_moves) {
			EXPECT_EQ(m.from, at);
			EXPECT_TRUE(IsLegalTransition(m.from, m.to));
			at = m.to;
		}
		EXPECT_EQ(at, S::kReleased);
	}
	Harness h(Harness::Config(2, 8)); /* a login that never connected */
	EndChannel(h);
	EXPECT_EQ(h.state_moves,
		  (std::vector<StateMove>{{S::kConnecting, S::kReleasing},
					  {S::kReleasing, S::kReleased}}));
}

/*
 * The drain marker's flushed completion is a move of the channel state,
 * made by the core and reported like any other, once.
 */
TEST(ChannelState, FlushedDrainMarkerMovesTheChannelToReleasingOnce)
{
	Harness h(Harness::Config(2, 8));
	DriveTo(h, S::kDraining);
	h.state_moves.clear();
	ASSERT_EQ(h.core.PostDrainWrite(), Status::kOk);
	h.CompleteNext(false);
	EXPECT_EQ(h.last_zlw, ZlwOutcome::kReleaseChannel);
	EXPECT_EQ(h.core.state(), S::kReleasing);
	EXPECT_EQ(h.core.Stats().phase, ChannelPhase::kClosing);
	EXPECT_EQ(h.state_moves,
		  (std::vector<StateMove>{{S::kDraining, S::kReleasing}}));
	/* Another marker: the release is scheduled already. */
	ASSERT_EQ(h.core.PostDrainWrite(), Status::kOk);
	h.CompleteNext(false);
	EXPECT_EQ(h.last_zlw, ZlwOutcome::kNothing);
	EXPECT_EQ(h.state_moves.size(), 1u);
	EndChannel(h);
}

/* A failed drain post: the caller moved to kReleasing itself. */
TEST(ChannelState, FlushedDrainMarkerAfterAScheduledReleaseDoesNothing)
{
	Harness h(Harness::Config(2, 8));
	DriveTo(h, S::kDraining);
	ASSERT_EQ(h.core.PostDrainWrite(), Status::kOk);
	EXPECT_EQ(h.core.TransitionTo(S::kReleasing), S::kDraining);
	h.CompleteNext(false);
	EXPECT_EQ(h.last_zlw, ZlwOutcome::kNothing);
	EXPECT_EQ(h.core.state(), S::kReleasing);
	EndChannel(h);
}

/* Without a close first (the host tests' Teardown): walked, not skipped. */
TEST(ChannelState, FlushedDrainMarkerWhileLiveWalksThroughDraining)
{
	Harness h(Harness::Config(2, 8));
	DriveTo(h, S::kLive);
	h.state_moves.clear();
	ASSERT_EQ(h.core.PostDrainWrite(), Status::kOk);
	h.CompleteNext(false);
	EXPECT_EQ(h.last_zlw, ZlwOutcome::kReleaseChannel);
	EXPECT_EQ(h.state_moves,
		  (std::vector<StateMove>{{S::kLive, S::kDraining},
					  {S::kDraining, S::kReleasing}}));
	EndChannel(h);
}

/*
 * No moment exists where the channel is disconnecting while the data path
 * still serves: a drainer hands IU 2 to the target core (lock dropped),
 * another context disconnects meanwhile, and IU 3, which needs no send
 * context, is not handed off after the move although nothing else holds
 * it back.
 */
TEST(ChannelState, LeavingLiveStopsTheDataPathInTheSameMove)
{
	Harness h(Harness::Config(3, 8, /*send_ctx_limit=*/1));
	ASSERT_TRUE(h.core.OnRtu());
	h.Deliver(kOpCmd, 1);
	h.Deliver(kOpCmd, 2);	  /* waits: no send context */
	h.Deliver(kOpUnknown, 3); /* waits behind it (FIFO) */
	ASSERT_EQ(h.ServedTags(), (std::vector<uint64_t>{1}));
	size_t handoffs = 1, handoffs_at_move = 0;
	bool disconnected = false;
	h.on_handoff = [&] {
		handoffs++;
		if (disconnected)
			return;
		disconnected = true;
		EXPECT_TRUE(h.core.Disconnect()); /* the CM, another CPU */
	};
	h.on_state_change = [&](S from, S to) {
		if (from == S::kLive)
			handoffs_at_move = handoffs;
		/* The data path's phase moves with the state, not later. */
		EXPECT_EQ(PhaseOf(to), ChannelPhase::kClosing);
	};
	ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
	h.CompleteNext(); /* frees the context: the kick is queued */
	EXPECT_EQ(h.kicks, 1);
	h.RunWork(); /* the drain hands IU 2 off */
	ASSERT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	EXPECT_EQ(handoffs_at_move, 2u);
	EXPECT_EQ(handoffs, 2u) << "an IU was handed off after the move";
	const ChannelStats st = h.core.Stats();
	EXPECT_EQ(st.state, S::kDisconnecting);
	EXPECT_EQ(st.phase, ChannelPhase::kClosing);
	EXPECT_EQ(st.wait_depth, 1u);
	EXPECT_EQ(h.kicks, 1);
	h.on_state_change = nullptr;
	h.core.AbortedTask(*h.served[1].s);
	h.core.ReleaseCmd(*h.served[1].s);
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1, 2}));
	h.ExpectInvariants();
	h.Teardown();
}

/* RTU after IUs arrived: the move to kLive serves them (kick work). */
TEST(ChannelState, MovingToLiveServesWhatArrivedWhileConnecting)
{
	Harness h(Harness::Config(2, 8));
	h.Deliver(kOpCmd, 1);
	EXPECT_TRUE(h.served.empty());
	EXPECT_EQ(h.core.TransitionTo(S::kLive), S::kConnecting);
	EXPECT_EQ(h.kicks, 1);
	h.RunWork();
	EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1}));
	/* A refused RTU kicks nothing. */
	EXPECT_EQ(h.core.TransitionTo(S::kLive), S::kLive);
	EXPECT_EQ(h.kicks, 1);
	ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
	h.CompleteNext();
	h.Teardown();
}

/* A whole life, as the environment heard it. */
TEST(ChannelState, EveryMoveIsReportedInOrder)
{
	Harness h(Harness::Config(2, 8));
	ASSERT_TRUE(h.core.OnRtu());
	h.Teardown();
	EXPECT_EQ(h.state_moves, (std::vector<StateMove>{
				     {S::kConnecting, S::kLive},
				     {S::kLive, S::kDisconnecting},
				     {S::kDisconnecting, S::kDraining},
				     {S::kDraining, S::kReleasing},
				     {S::kReleasing, S::kReleased},
				 }));
}

} // namespace
} // namespace srpt::test
