// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A channel's way out on the host: the state machine's moves, DREQ/DREP,
 * the drain and the release in the work item, logout, a failed completion,
 * and what disconnects channels from the outside: disabling the port,
 * changing use_srq, dropping the TPG, removing the device.
 */
#include "datapath_fixture.hpp"

#include <string>
#include <vector>

#include <srpt/channel_registry.hpp>

namespace srpt
{
namespace
{

using namespace dp_test;

TEST(ChannelStateMachine, TransitionsAreExplicit)
{
	using S = ChannelState;
	EXPECT_TRUE(IsLegalTransition(S::kConnecting, S::kLive));
	EXPECT_TRUE(IsLegalTransition(S::kLive, S::kDisconnecting));
	EXPECT_TRUE(IsLegalTransition(S::kDisconnecting, S::kDraining));
	EXPECT_TRUE(IsLegalTransition(S::kDraining, S::kReleasing));
	EXPECT_TRUE(IsLegalTransition(S::kReleasing, S::kReleased));
	EXPECT_FALSE(IsLegalTransition(S::kLive, S::kConnecting));
	EXPECT_FALSE(IsLegalTransition(S::kDraining, S::kLive));
	EXPECT_FALSE(IsLegalTransition(S::kDisconnecting, S::kDisconnecting));
	EXPECT_FALSE(IsLegalTransition(S::kLive, S::kReleasing));
	for (size_t i = 0; i < kChannelStateCount; i++)
		EXPECT_FALSE(
		    IsLegalTransition(S::kReleased, static_cast<S>(i)));
	EXPECT_STREQ(ChannelStateName(S::kDraining), "draining");
}

TEST_F(DataPathFixture, CloseDrainsThenReleasesInTheWorkItem)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	EXPECT_EQ(ch->state(), ChannelState::kLive);
	/* DREQ from the initiator. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	EXPECT_TRUE(f.disconnected);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_TIMEWAIT_EXIT);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	EXPECT_TRUE(f.qp_error);
	EXPECT_EQ(f.zlw_posted, 1u);
	/* Events after the close change nothing. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_ESTABLISHED);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	EXPECT_EQ(f.zlw_posted, 1u);
	/* The flushed drain marker: release in process context. */
	srpt_core_dp_zlw_done(ch, false);
	EXPECT_FALSE(f.destroyed);
	host::RunPendingWork();
	EXPECT_TRUE(f.session_removed);
	EXPECT_TRUE(f.destroyed);
	EXPECT_TRUE(f.cm_id_destroyed);
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
}

/*
 * One state, kept by the core: the flushed drain marker, which the core
 * handles alone, shows in the channel's state at once, the debugfs state
 * and phase come from one snapshot, and the release work is queued once.
 */
TEST_F(DataPathFixture, FlushedDrainMarkerShowsInTheChannelState)
{
	host::SetTracing(true);
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	srpt_dp_stats st{};
	const auto expect_stats = [&](const char *state, const char *phase) {
		srpt_core_dp_get_stats(ch, &st);
		EXPECT_STREQ(st.state, state);
		EXPECT_STREQ(st.phase, phase);
	};
	expect_stats("live", "live");
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	expect_stats("disconnecting", "closing");
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	expect_stats("draining", "closing");
	EXPECT_EQ(host::PendingWork(), 0u);
	srpt_core_dp_zlw_done(ch, false);
	EXPECT_EQ(ch->state(), ChannelState::kReleasing);
	expect_stats("releasing", "closing");
	EXPECT_EQ(host::PendingWork(), 1u);
	/* Late events: absorbed, no second release. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_TIMEWAIT_EXIT);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	EXPECT_EQ(ch->state(), ChannelState::kReleasing);
	EXPECT_EQ(host::PendingWork(), 1u);
	const std::string s = ch->name(), id = std::to_string(ch->id());
	const std::string moves[] = {"connecting->live", "live->disconnecting",
				     "disconnecting->draining",
				     "draining->releasing",
				     "releasing->released"};
	EXPECT_EQ(host::RunPendingWork(), 1u);
	EXPECT_TRUE(f.destroyed);
	std::vector<std::string> seen;
	for (const std::string &e : host::TraceEvents())
		if (e.rfind("channel_state ", 0) == 0)
			seen.push_back(e);
	ASSERT_EQ(seen.size(), 5u);
	for (size_t i = 0; i < 5; i++)
		EXPECT_EQ(seen[i], "channel_state session=" + s + " ch=" + id +
				       " " + moves[i]);
	host::SetTracing(false);
}

/* hostile case logout_then_iu: nothing is served after I_LOGOUT. */
TEST_F(DataPathFixture, LogoutDisconnectsAndLaterIusAreNotServed)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> logout(16, 0);
	logout[0] = 0x03; /* SRP_I_LOGOUT */
	Receive(ch, logout, 0);
	EXPECT_TRUE(f.disconnected); /* DREQ sent */
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	Receive(ch, TestUnitReady(0x78), 1);
	EXPECT_TRUE(f.submitted.empty());
	EXPECT_TRUE(f.posted_send.empty());
	/* DREP, then the drain: the channel is released. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
}

/* hostile case qp_error_mid_rdma: the initiator's QP went to error. */
TEST_F(DataPathFixture, FailedCompletionOnALiveChannelDisconnectsIt)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	srpt::host::RecvDone(ch, 0, 0, false);
	EXPECT_TRUE(f.disconnected);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	/* The flushes of our own drain change nothing more. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	srpt::host::RecvDone(ch, 1, 0, false);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
}

TEST_F(DataPathFixture, DisablingThePortDisconnectsItsChannels)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	ASSERT_EQ(srpt_core_tpg_enable(gid_port_, false), 0);
	EXPECT_TRUE(host::FakeChannels()[0]->disconnected);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
}

TEST_F(DataPathFixture, ChangingUseSrqLogsInitiatorsOut)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	ASSERT_EQ(srpt_core_port_attr_set(gid_port_, SRPT_ATTR_USE_SRQ, "1"),
		  0);
	EXPECT_TRUE(host::FakeChannels()[0]->disconnected);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	EXPECT_EQ(srpt_core_port_attr_get(gid_port_, SRPT_ATTR_USE_SRQ), 1u);
}

TEST_F(DataPathFixture, DroppingTheTpgDisconnectsItsChannels)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	srpt_core_tpg_drop(gid_port_);
	EXPECT_TRUE(host::FakeChannels()[0]->disconnected);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
}

TEST_F(DataPathFixture, DeviceRemovalWaitsForRelease)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
	srpt_core_dp_device_removing(device_); /* returns: nothing left */
	EXPECT_EQ(
	    GetChannelRegistry()->CountDevice(static_cast<Device *>(device_)),
	    0u);
}

TEST_F(DataPathFixture, DeviceRemovalDrainsLiveChannelsWithoutThePeer)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	/* The kernel meanwhile: the flushed drain marker, the release work. */
	const size_t sleeps = RemoveDeviceWhileChannelCloses(device_, ch, f);
	EXPECT_TRUE(f.disconnected); /* DREQ sent */
	EXPECT_TRUE(f.qp_error);     /* but not waited for */
	EXPECT_TRUE(f.destroyed);
	EXPECT_GE(sleeps, 1u);
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
}

} // namespace
} // namespace srpt
