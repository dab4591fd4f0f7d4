// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel data path's C++ half on the host: logins through the same C
 * entry point the RDMA/CM handler calls (srpt_core_dp_rdma_cm_req), the
 * channel state machine driven by CM events and completions, commands
 * through the fabric callbacks, and teardown, against the recording fake
 * glue of tests/host/platform_dp_host.cpp.
 */
#include "datapath_fixture.hpp"

#include <cstring>
#include <string>
#include <vector>

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

TEST(CmHandler, Helpers)
{
	EXPECT_EQ(ChannelCredits(16384), 128u);
	EXPECT_EQ(ChannelCredits(64), 64u);
	const uint8_t id[16] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11};
	char name[kHexIdSize];
	FormatHexId(id, name);
	EXPECT_STREQ(name, kInitiator);
	EXPECT_EQ(SessionRejectReason(Status::kNoMemory),
		  wire::LoginRejReason::InsufficientResources);
	EXPECT_EQ(SessionRejectReason(Status::kInvalid),
		  wire::LoginRejReason::ChannelLimitReached);
}

TEST_F(DataPathFixture, LoginWithAclIsAcceptedAndNamedByPortId)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator + 2}; /* without "0x" */
	ASSERT_EQ(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::FakeChannels().size(), 1u);
	host::FakeCh &f = *host::FakeChannels()[0];
	EXPECT_EQ(f.session_attempts,
		  (std::vector<std::string>{kInitiator, kInitiator + 2}));
	EXPECT_TRUE(f.accepted);
	ASSERT_EQ(f.accept_pdata.size(), sizeof(wire::LoginRsp));
	EXPECT_EQ(f.accept_pdata[0], 0xc0);	       /* SRP_LOGIN_RSP */
	EXPECT_EQ(GetBe(&f.accept_pdata[4], 4), 128u); /* req_lim_delta */
	EXPECT_EQ(f.accept_pdata[26] & 0x80, 0x80);    /* immediate data */
	EXPECT_EQ(f.args.rq_size, 128u);
	EXPECT_EQ(f.posted_recv.size(), 128u); /* own receive ring */
	EXPECT_TRUE(host::Rejections().empty());
	auto *ch = static_cast<Channel *>(f.args.core_ch);
	EXPECT_EQ(ch->state(), ChannelState::kConnecting);
	EXPECT_STREQ(ch->name(), kInitiator + 2);
}

TEST_F(DataPathFixture, LoginWithoutAclIsRejectedAndLeavesNothing)
{
	EnableGidPort();
	const size_t before = host::OutstandingAllocations();
	EXPECT_NE(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::Rejections().size(), 1u);
	EXPECT_EQ(host::Rejections()[0].cm_id, &cm_ids_[0]);
	EXPECT_EQ(host::Rejections()[0].pdata[0], 0xc2); /* SRP_LOGIN_REJ */
	EXPECT_EQ(
	    LoginRejReasonOf(host::Rejections()[0].pdata),
	    static_cast<uint32_t>(wire::LoginRejReason::ChannelLimitReached));
	ASSERT_EQ(host::FakeChannels().size(), 1u);
	EXPECT_TRUE(host::FakeChannels()[0]->destroyed);
	/* RDMA/CM destroys a refused id itself. */
	EXPECT_FALSE(host::FakeChannels()[0]->cm_id_destroyed);
	EXPECT_EQ(host::OutstandingAllocations(), before);
	EXPECT_TRUE(host::LogsContain("rejected login for initiator"));
}

TEST_F(DataPathFixture, DisabledPortAndWrongTargetAreRejectedEarly)
{
	ASSERT_EQ(srpt_core_port_id_make(kGidName, &gid_port_), 0);
	host::Script().acl_names = {kInitiator};
	EXPECT_NE(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::Rejections().size(), 1u);
	EXPECT_EQ(
	    LoginRejReasonOf(host::Rejections()[0].pdata),
	    static_cast<uint32_t>(wire::LoginRejReason::InsufficientResources));
	ASSERT_EQ(srpt_core_tpg_enable(gid_port_, true), 0);
	EXPECT_NE(Login(LoginReqRdma(0x80, 0x1234), &cm_ids_[1]), 0);
	ASSERT_EQ(host::Rejections().size(), 2u);
	EXPECT_EQ(LoginRejReasonOf(host::Rejections()[1].pdata),
		  static_cast<uint32_t>(
		      wire::LoginRejReason::UnableToAssociateChannel));
	EXPECT_TRUE(host::FakeChannels().empty());
}

TEST_F(DataPathFixture, GuidNamedPortUsesTheSourceAddress)
{
	ASSERT_EQ(srpt_core_port_id_make(kGuidName, &guid_port_), 0);
	ASSERT_EQ(srpt_core_tpg_enable(guid_port_, true), 0);
	host::Script().acl_names = {kSrcAddr};
	ASSERT_EQ(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	EXPECT_EQ(host::FakeChannels()[0]->session_attempts,
		  (std::vector<std::string>{kSrcAddr}));
}

TEST_F(DataPathFixture, MultichannelSingleTerminatesMultiKeeps)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	ASSERT_EQ(Login(LoginReqRdma(0x81), &cm_ids_[0]), 0); /* MULTI */
	ASSERT_EQ(Login(LoginReqRdma(0x81), &cm_ids_[1]), 0); /* MULTI */
	auto &fakes = host::FakeChannels();
	ASSERT_EQ(fakes.size(), 2u);
	EXPECT_FALSE(fakes[0]->disconnected);
	EXPECT_EQ(fakes[1]->accept_pdata[26] & 0x03, 0x02);   /* maintained */
	ASSERT_EQ(Login(LoginReqRdma(0x80), &cm_ids_[2]), 0); /* SINGLE */
	ASSERT_EQ(fakes.size(), 3u);
	EXPECT_TRUE(fakes[0]->disconnected);
	EXPECT_TRUE(fakes[1]->disconnected);
	EXPECT_EQ(fakes[2]->accept_pdata[26] & 0x03, 0x01); /* terminated */
	/* Another initiator is another nexus: untouched. */
	host::Script().acl_names.push_back(
	    "0x0000000000000099aabbccddeeff0011");
	ASSERT_EQ(Login(LoginReqRdma(0x80, kNodeGuid, 0x99), &cm_ids_[3]), 0);
	EXPECT_FALSE(fakes[2]->disconnected);
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

TEST_F(DataPathFixture, CommandRoundTripReturnsTheCredit)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(0x77), 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].tag, 0x77u);
	EXPECT_EQ(f.submitted[0].dir, SRPT_DP_DIR_NONE);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 127);
	const uint32_t idx = f.submitted_index[0];
	EXPECT_EQ(srpt_core_dp_cmd_state(ch, idx),
		  static_cast<int>(CmdState::kNew));
	srpt_dp_rsp rsp{};
	EXPECT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[idx];
	EXPECT_EQ(s.buf()[0], 0xc1);	      /* SRP_RSP */
	EXPECT_EQ(GetBe(s.buf() + 4, 4), 1u); /* req_lim_delta */
	host::Script().put_releases = true;
	srpt_core_dp_send_done(ch, idx, true);
	EXPECT_EQ(f.put, (std::vector<uint32_t>{idx}));
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
	EXPECT_EQ(f.posted_recv.size(), 129u); /* the buffer was reposted */
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
	srpt_core_dp_recv_done(ch, 0, 0, false);
	EXPECT_TRUE(f.disconnected);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	/* The flushes of our own drain change nothing more. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_recv_done(ch, 1, 0, false);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
}

/*
 * A response that cannot be posted: LIO's reference is dropped, the credit
 * is owed, and the channel disconnects (the initiator would otherwise wait
 * for its SCSI timeout); later IUs are not served.
 */
TEST_F(DataPathFixture, ResponseThatCannotBePostedDisconnects)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(0x31), 0);
	ASSERT_EQ(f.submitted_index.size(), 1u);
	const uint32_t idx = f.submitted_index[0];
	host::Script().put_releases = true;
	host::Script().post_send_rc = -SRPT_ENOMEM;
	srpt_dp_rsp rsp{};
	EXPECT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	host::Script().post_send_rc = 0;
	EXPECT_TRUE(f.posted_send.empty());
	EXPECT_EQ(f.put, (std::vector<uint32_t>{idx}));
	EXPECT_EQ(f.disconnect_calls, 1u);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.responses_lost, 1u);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
	Receive(ch, TestUnitReady(0x32), 1);
	EXPECT_EQ(f.submitted_index.size(), 1u);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
}

TEST_F(DataPathFixture, TaskManagementResponseThatCannotBePostedDisconnects)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;  /* SRP_TSK_MGMT */
	tm[8] = 0x21;  /* tag */
	tm[30] = 0x08; /* LUN RESET */
	Receive(ch, tm, 0);
	ASSERT_EQ(f.tmr_index.size(), 1u);
	const uint32_t tmr = f.tmr_index[0];
	host::Script().put_releases = true;
	host::Script().post_send_rc = -SRPT_EIO;
	srpt_core_dp_queue_tm_rsp(ch, tmr, SRPT_DP_TMR_COMPLETE);
	host::Script().post_send_rc = 0;
	EXPECT_TRUE(f.posted_send.empty());
	EXPECT_EQ(f.put, (std::vector<uint32_t>{tmr}));
	EXPECT_EQ(f.disconnect_calls, 1u);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.responses_lost, 1u);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

TEST_F(DataPathFixture, MalformedCommandIsAnsweredByTheTransport)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> iu = TestUnitReady(0x55);
	iu[5] = 0x20; /* data-in format INDIRECT, but no table */
	Receive(ch, iu, 0);
	EXPECT_TRUE(f.submitted.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	const uint32_t idx = f.posted_send[0];
	SendCtx &s = ch->core().send_ring()[idx];
	EXPECT_EQ(s.buf()[0], 0xc1);
	EXPECT_EQ(s.buf()[19], 0x02);	     /* status CHECK CONDITION */
	EXPECT_EQ(s.buf()[18] & 0x02, 0x02); /* SNSVALID */
	srpt_core_dp_send_done(ch, idx, true);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

TEST_F(DataPathFixture, TaskManagementAndAbortedTaskCredit)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(0x10), 0);
	ASSERT_EQ(f.submitted_index.size(), 1u);
	const uint32_t cmd = f.submitted_index[0];
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;  /* SRP_TSK_MGMT */
	tm[8] = 0x20;  /* tag */
	tm[30] = 0x01; /* ABORT TASK */
	tm[32] = 0x10; /* task tag */
	Receive(ch, tm, 1);
	ASSERT_EQ(f.tmr_func,
		  (std::vector<srpt_dp_tmf>{SRPT_DP_TMF_ABORT_TASK}));
	const uint32_t tmr = f.tmr_index[0];
	/* The target core aborts the command: no response, credit owed. */
	srpt_core_dp_aborted_task(ch, cmd);
	srpt_core_dp_cmd_release(ch, cmd);
	srpt_core_dp_queue_tm_rsp(ch, tmr, SRPT_DP_TMR_COMPLETE);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[tmr];
	EXPECT_EQ(GetBe(s.buf() + 4, 4), 2u); /* its own + the aborted one */
	srpt_core_dp_send_done(ch, tmr, true);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

TEST_F(DataPathFixture, UnsupportedTaskManagementFunctionIsNotSubmitted)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;
	tm[30] = 0x20; /* not a function */
	Receive(ch, tm, 0);
	EXPECT_TRUE(f.tmr_func.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[39], 0x04); /* RSP_CODE NOT SUPPORTED */
	srpt_core_dp_send_done(ch, f.posted_send[0], true);
}

TEST_F(DataPathFixture, SendContextLimitMakesIusWait)
{
	host::Script().send_ctx_limit = 1;
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(1), 0);
	Receive(ch, TestUnitReady(2), 1);
	ASSERT_EQ(f.submitted.size(), 1u);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.wait_depth, 1u);
	EXPECT_EQ(st.ius_waited, 1u);
	EXPECT_EQ(st.ius_no_send_ctx, 1u);
	srpt_dp_rsp rsp{};
	ASSERT_EQ(srpt_core_dp_queue_response(ch, f.submitted_index[0], &rsp),
		  0);
	srpt_core_dp_send_done(ch, f.submitted_index[0], true);
	ASSERT_EQ(f.submitted.size(), 2u);
	EXPECT_EQ(f.submitted[1].tag, 2u);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.wait_depth, 0u);
	ASSERT_EQ(srpt_core_dp_queue_response(ch, f.submitted_index[1], &rsp),
		  0);
	srpt_core_dp_send_done(ch, f.submitted_index[1], true);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
}

/*
 * The core's tracepoints (srpt_login, srpt_channel_state, srpt_iu_wait,
 * srpt_iu_resume, srpt_credits, srpt_disconnect) along one channel's life,
 * in order and with their fields.
 */
TEST_F(DataPathFixture, TracepointsFollowLoginWaitListCreditsAndDisconnect)
{
	host::SetTracing(true);
	Channel *ch = TwoCommandsThroughOneSendContext();
	ASSERT_NE(ch, nullptr);

	const std::string s = ch->name(), id = std::to_string(ch->id());
	const std::vector<std::string> want = {
	    "login session=" + s + " initiator=" + kInitiator +
		" accepted why=accepted rej=0 it_iu_len=8260 credits=128",
	    "channel_state session=" + s + " ch=" + id + " connecting->live",
	    "iu_wait session=" + s + " depth=1",
	    "credits session=" + s + " granted=1 req_lim=127",
	    "iu_resume session=" + s + " depth=0",
	    "credits session=" + s + " granted=1 req_lim=128",
	    "channel_state session=" + s + " ch=" + id + " live->disconnecting",
	    "disconnect session=" + s + " ch=" + id +
		" why=target port disabled",
	};
	EXPECT_EQ(host::TraceEvents(), want);
	host::SetTracing(false);
}

TEST_F(DataPathFixture, RefusedLoginIsTracedWithItsReason)
{
	host::SetTracing(true);
	EnableGidPort(); /* no ACL */
	EXPECT_NE(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	const std::vector<std::string> want = {
	    std::string("login session=") + kSrcAddr +
		" initiator=" + kInitiator +
		" rejected why=the target core refused the session (no ACL?)"
		" rej=65542 it_iu_len=8260 credits=0",
	};
	EXPECT_EQ(host::TraceEvents(), want);
	host::SetTracing(false);
}

TEST_F(DataPathFixture, NothingIsTracedWhileTracingIsOff)
{
	host::SetTracing(false);
	ASSERT_NE(TwoCommandsThroughOneSendContext(), nullptr);
	EXPECT_TRUE(host::TraceEvents().empty());
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

} // namespace
} // namespace srpt

namespace srpt
{
namespace
{

TEST_F(DataPathFixture, AcceptFailureClosesThroughTheReleaseWork)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	host::Script().accept_rc = -SRPT_EIO;
	/* 0: the channel owns the cm_id now, RDMA/CM must not destroy it. */
	EXPECT_EQ(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::Rejections().size(), 1u);
	EXPECT_EQ(
	    LoginRejReasonOf(host::Rejections()[0].pdata),
	    static_cast<uint32_t>(wire::LoginRejReason::InsufficientResources));
	host::FakeCh &f = *host::FakeChannels()[0];
	auto *ch = static_cast<Channel *>(f.args.core_ch);
	EXPECT_EQ(ch->state(), ChannelState::kDraining);
	EXPECT_TRUE(f.qp_error);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
	EXPECT_TRUE(f.cm_id_destroyed);
	EXPECT_TRUE(f.session_removed);
}

TEST_F(DataPathFixture, QpCreationFailureIsAResourceReject)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	host::Script().create_rc = -SRPT_ENOMEM;
	const size_t before = host::OutstandingAllocations();
	EXPECT_NE(Login(LoginReqRdma(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::Rejections().size(), 1u);
	EXPECT_EQ(
	    LoginRejReasonOf(host::Rejections()[0].pdata),
	    static_cast<uint32_t>(wire::LoginRejReason::InsufficientResources));
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

TEST_F(DataPathFixture, AllocationFailuresDuringLoginLeaveNothing)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	FailEachLoginAllocation(
	    [&](void *cm_id) { return Login(LoginReqRdma(0x81), cm_id); },
	    SRPT_DP_RDMA_CM);
}

TEST_F(DataPathFixture, CommandLioRefusesIsAnsweredBusy)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	host::Script().submit_rc = -108; /* -ESHUTDOWN: session stopping */
	Receive(ch, TestUnitReady(0x31), 0);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[19], 0x08); /* BUSY */
	srpt_core_dp_send_done(ch, f.posted_send[0], true);
	EXPECT_EQ(f.put.size(), 1u); /* released without the target core */
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

TEST_F(DataPathFixture, TaskManagementLioRefusesIsAnsweredFailed)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	host::Script().submit_tmr_rc = -108;
	std::vector<uint8_t> tm(48, 0);
	tm[0] = 0x01;
	tm[30] = 0x08; /* LUN RESET */
	Receive(ch, tm, 0);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[39], 0x05); /* RSP_CODE FAILED */
	srpt_core_dp_send_done(ch, f.posted_send[0], true);
}

TEST_F(DataPathFixture, ReadCommandChainsItsRdmaWrites)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> iu(64, 0);
	iu[0] = 0x02;
	iu[5] = 0x01;		   /* data-in DIRECT */
	iu[7] = 1;		   /* data_in_desc_cnt */
	iu[8] = 0x44;		   /* tag */
	iu[32] = 0x28;		   /* READ(10) */
	iu[39] = 0x08;		   /* 8 blocks */
	PutBe(&iu[48], 0x1000, 8); /* va */
	PutBe(&iu[56], 0x1234, 4); /* rkey */
	PutBe(&iu[60], 4096, 4);   /* len */
	Receive(ch, iu, 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].dir, SRPT_DP_DIR_READ);
	EXPECT_EQ(f.submitted[0].n_desc, 1u);
	EXPECT_EQ(f.submitted[0].data_len, 4096u);
	srpt_dp_rsp rsp{};
	rsp.dir = SRPT_DP_DIR_READ;
	rsp.n_rdma_writes = 1;
	ASSERT_EQ(srpt_core_dp_queue_response(ch, f.submitted_index[0], &rsp),
		  0);
	ASSERT_EQ(f.posted_send_rdma, (std::vector<uint32_t>{1}));
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity - 2);
	srpt_core_dp_send_done(ch, f.submitted_index[0], true);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity);
}

/*
 * The glue gets the descriptors in CPU order and never decodes SRP: a
 * direct one, and indirect lists short enough for the stack copy and long
 * enough to need an allocated one.
 */
TEST_F(DataPathFixture, GlueGetsEveryDescriptorInCpuOrder)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> direct(64, 0);
	direct[0] = 0x02;
	direct[5] = 0x01; /* data-in DIRECT */
	direct[7] = 1;
	direct[32] = 0x28;
	PutBe(&direct[48], 0x1122334455667788ull, 8);
	PutBe(&direct[56], 0x8899aabb, 4);
	PutBe(&direct[60], 512, 4);
	Receive(ch, direct, 0);
	ASSERT_EQ(f.submitted_desc.size(), 1u);
	ASSERT_EQ(f.submitted_desc[0].size(), 1u);
	EXPECT_EQ(f.submitted_desc[0][0].va, 0x1122334455667788ull);
	EXPECT_EQ(f.submitted_desc[0][0].key, 0x8899aabbu);
	EXPECT_EQ(f.submitted_desc[0][0].len, 512u);

	for (const uint32_t n : {3u, 8u, 9u, 31u}) {
		SCOPED_TRACE(n);
		/* data-out INDIRECT: header (table descriptor, total), list */
		std::vector<uint8_t> iu(68 + 16 * n, 0);
		iu[0] = 0x02;
		iu[5] = 0x20;
		iu[6] = static_cast<uint8_t>(n);
		iu[32] = 0x2a;
		PutBe(&iu[60], 16 * n, 4); /* table length */
		PutBe(&iu[64], 512 * n, 4);
		for (uint32_t i = 0; i < n; i++) {
			PutBe(&iu[68 + 16 * i], 0x10000ull * (i + 1) + i, 8);
			PutBe(&iu[76 + 16 * i], 0x100 + i, 4);
			PutBe(&iu[80 + 16 * i], 512, 4);
		}
		const size_t before = f.submitted_desc.size();
		Receive(ch, iu, 1 + (n & 1));
		ASSERT_EQ(f.submitted_desc.size(), before + 1);
		EXPECT_EQ(f.submitted.back().n_desc, n);
		EXPECT_EQ(f.submitted.back().dir, SRPT_DP_DIR_WRITE);
		EXPECT_EQ(f.submitted.back().data_len, 512 * n);
		const auto &d = f.submitted_desc.back();
		ASSERT_EQ(d.size(), n);
		for (uint32_t i = 0; i < n; i++) {
			EXPECT_EQ(d[i].va, 0x10000ull * (i + 1) + i);
			EXPECT_EQ(d[i].key, 0x100 + i);
			EXPECT_EQ(d[i].len, 512u);
		}
	}
	/* The allocated copies were freed: nothing but the channel's own. */
	for (const uint32_t idx : f.submitted_index) {
		srpt_dp_rsp rsp{};
		ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
		srpt_core_dp_send_done(ch, idx, true);
	}
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

/* A long list whose copy cannot be allocated is answered BUSY. */
TEST_F(DataPathFixture, DescriptorListWithoutMemoryIsAnsweredBusy)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const uint32_t n = 16;
	std::vector<uint8_t> iu(68 + 16 * n, 0);
	iu[0] = 0x02;
	iu[5] = 0x02; /* data-in INDIRECT */
	iu[7] = static_cast<uint8_t>(n);
	iu[8] = 0x77;
	iu[32] = 0x28;
	PutBe(&iu[60], 16 * n, 4);
	PutBe(&iu[64], 4096 * n, 4);
	for (uint32_t i = 0; i < n; i++) {
		PutBe(&iu[68 + 16 * i], 0x1000 * i, 8);
		PutBe(&iu[80 + 16 * i], 4096, 4);
	}
	host::FailNthAllocation(1);
	Receive(ch, iu, 0);
	host::FailNthAllocation(0);
	EXPECT_TRUE(f.submitted.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[8], 0x77);  /* its tag */
	EXPECT_EQ(s.buf()[19], 0x08); /* BUSY */
	srpt_core_dp_send_done(ch, f.posted_send[0], true);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

/* SRP's task attribute codes reach the glue as SAM attributes. */
TEST_F(DataPathFixture, TaskAttributeReachesTheGlueAsSamAttribute)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const struct {
		uint8_t srp;
		srpt_dp_task_attr sam;
	} cases[] = {{0, SRPT_DP_TASK_SIMPLE},
		     {1, SRPT_DP_TASK_HEAD_OF_QUEUE},
		     {2, SRPT_DP_TASK_ORDERED},
		     {4, SRPT_DP_TASK_ACA}};
	uint32_t index = 0;
	for (const auto &c : cases) {
		std::vector<uint8_t> iu = TestUnitReady(index);
		iu[29] = c.srp;
		Receive(ch, iu, index++);
		ASSERT_EQ(f.submitted.size(), index);
		EXPECT_EQ(f.submitted.back().task_attr, c.sam) << int{c.srp};
	}
	for (const uint32_t idx : f.submitted_index) {
		srpt_dp_rsp rsp{};
		ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
		srpt_core_dp_send_done(ch, idx, true);
	}
}

/* Each supported function reaches LIO as its own enum value. */
TEST_F(DataPathFixture, TaskManagementFunctionReachesTheGlueAsEnum)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const struct {
		uint8_t srp;
		srpt_dp_tmf tmf;
	} cases[] = {{0x01, SRPT_DP_TMF_ABORT_TASK},
		     {0x02, SRPT_DP_TMF_ABORT_TASK_SET},
		     {0x04, SRPT_DP_TMF_CLEAR_TASK_SET},
		     {0x08, SRPT_DP_TMF_LUN_RESET},
		     {0x40, SRPT_DP_TMF_CLEAR_ACA}};
	uint32_t index = 0;
	for (const auto &c : cases) {
		std::vector<uint8_t> tm(48, 0);
		tm[0] = 0x01;
		tm[8] = static_cast<uint8_t>(index);
		tm[30] = c.srp;
		Receive(ch, tm, index++);
		ASSERT_EQ(f.tmr_func.size(), index);
		EXPECT_EQ(f.tmr_func.back(), c.tmf) << int{c.srp};
	}
	for (const uint32_t idx : f.tmr_index) {
		srpt_core_dp_queue_tm_rsp(ch, idx, SRPT_DP_TMR_COMPLETE);
		srpt_core_dp_send_done(ch, idx, true);
	}
}

TEST_F(DataPathFixture, WriteCommandReadsThenExecutes)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> iu(64, 0);
	iu[0] = 0x02;
	iu[5] = 0x10;  /* data-out DIRECT */
	iu[6] = 1;     /* data_out_desc_cnt */
	iu[32] = 0x2a; /* WRITE(10) */
	iu[39] = 0x08;
	PutBe(&iu[48], 0x2000, 8);
	PutBe(&iu[56], 0x99, 4);
	PutBe(&iu[60], 4096, 4);
	Receive(ch, iu, 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].dir, SRPT_DP_DIR_WRITE);
	const uint32_t idx = f.submitted_index[0];
	EXPECT_EQ(srpt_core_dp_write_pending(ch, idx, 1), 0);
	EXPECT_EQ(f.posted_read, (std::vector<uint32_t>{idx}));
	EXPECT_TRUE(f.executed.empty());
	srpt_core_dp_rdma_read_done(ch, idx, true);
	EXPECT_EQ(f.executed, (std::vector<uint32_t>{idx}));
	srpt_dp_rsp rsp{};
	ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	srpt_core_dp_send_done(ch, idx, true);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

TEST_F(DataPathFixture, ImmediateDataExecutesWithoutRdmaRead)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> iu(68 + 512, 0);
	iu[0] = 0x02;
	iu[5] = 0x30;  /* data-out IMMEDIATE */
	iu[32] = 0x2a; /* WRITE(10), 1 block */
	iu[39] = 0x01;
	PutBe(&iu[48], 512, 4); /* immediate descriptor: length */
	Receive(ch, iu, 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].imm_len, 512u);
	const uint32_t idx = f.submitted_index[0];
	EXPECT_EQ(srpt_core_dp_write_pending(ch, idx, 0), 0);
	EXPECT_TRUE(f.posted_read.empty());
	EXPECT_EQ(f.executed, (std::vector<uint32_t>{idx}));
	/* The receive buffer stays with the command until it is released. */
	EXPECT_EQ(f.posted_recv.size(), 128u);
	srpt_dp_rsp rsp{};
	ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	srpt_core_dp_send_done(ch, idx, true);
	EXPECT_EQ(f.posted_recv.size(), 129u);
}

/*
 * Immediate data goes to the target core as a scatterlist entry over the
 * receive buffer, and LIO's iblock builds bio segments from it as they
 * are: a block driver advances by whole sectors per segment, so data that
 * does not start on a sector (here: page) boundary lands in the wrong
 * place. Seen as fio verify failures on iblock/null_blk LUNs with ib_srp's
 * imm_data_offset 68 before the receive buffers were placed for it.
 */
TEST_F(DataPathFixture, ImmediateDataStartsOnAPageBoundaryInEveryReceiveBuffer)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	ASSERT_EQ(ch->login().imm_data_offset, 68u);
	host::FakeCh &f = *host::FakeChannels()[0];
	const uint32_t n = ch->core().recv_ring()->size();
	for (uint32_t i = 0; i < n; i++) {
		/* An 8 KiB WRITE as ib_srp sends it: data at offset 68. */
		std::vector<uint8_t> iu(68 + 8192, 0);
		iu[0] = 0x02;
		PutBe(&iu[8], 0x1000 + i, 8);
		iu[5] = 0x30;  /* data-out IMMEDIATE */
		iu[32] = 0x2a; /* WRITE(10), 16 blocks */
		iu[38] = 0x10;
		PutBe(&iu[48], 8192, 4);
		for (uint32_t b = 0; b < 8192; b++)
			iu[68 + b] = static_cast<uint8_t>(b * 7 + i);
		Receive(ch, iu, i);
		ASSERT_EQ(f.submitted.size(), 1u) << "receive context " << i;
		const srpt_dp_cmd &c = f.submitted[0];
		EXPECT_EQ(reinterpret_cast<uintptr_t>(c.imm_data) %
			      kImmDataAlignment,
			  0u)
		    << "receive context " << i;
		ASSERT_EQ(c.imm_len, 8192u);
		EXPECT_EQ(std::memcmp(c.imm_data, &iu[68], 8192), 0);
		const uint32_t idx = f.submitted_index[0];
		EXPECT_EQ(srpt_core_dp_write_pending(ch, idx, 0), 0);
		srpt_dp_rsp rsp{};
		ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
		srpt_core_dp_send_done(ch, idx, true);
		f.submitted.clear();
		f.submitted_index.clear();
	}
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
}

} // namespace
} // namespace srpt

namespace srpt
{
namespace
{

TEST_F(DataPathFixture, DeviceRemovalDrainsLiveChannelsWithoutThePeer)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	size_t sleeps = 0;
	/* The kernel meanwhile: the flushed drain marker, the release work. */
	host::Script().on_msleep = [&] {
		sleeps++;
		if (!f.destroyed && f.zlw_posted)
			srpt_core_dp_zlw_done(ch, false);
		host::RunPendingWork();
	};
	srpt_core_dp_device_removing(device_);
	EXPECT_TRUE(f.disconnected); /* DREQ sent */
	EXPECT_TRUE(f.qp_error);     /* but not waited for */
	EXPECT_TRUE(f.destroyed);
	EXPECT_GE(sleeps, 1u);
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
	host::Script().on_msleep = nullptr;
}

} // namespace
} // namespace srpt

/* ---- IB/CM logins (InfiniBand link layer; not reachable on rxe) ------- */

namespace srpt
{
namespace
{

/* The initiator's port GID (the REQ's primary path dgid). */
constexpr uint8_t kInitiatorGid[16] = {0xfe, 0x80, 0,	 0,    0,    0,
				       0,    0,	   0x00, 0x02, 0xc9, 0x03,
				       0x00, 0xab, 0xcd, 0xef};
constexpr const char *kInitiatorGuidName = "0002:c903:00ab:cdef";
constexpr uint16_t kPkey = 0xffff;

/*
 * struct srp_login_req (64 bytes) at the start of the REQ's 92 bytes of
 * private data, as ib_srp sends it over IB/CM.
 */
std::vector<uint8_t> LoginReqIb(uint8_t flags = 0x80, uint64_t guid = kNodeGuid,
				uint64_t i_ext = 0x1122334455667788ull)
{
	std::vector<uint8_t> p(92, 0);
	p[0] = 0x00;		  /* SRP_LOGIN_REQ */
	PutBe(&p[8], 0x4343, 8);  /* tag */
	PutBe(&p[16], 8260, 4);	  /* req_it_iu_len */
	PutBe(&p[24], 0x0006, 2); /* DIRECT | INDIRECT */
	p[26] = flags;
	PutBe(&p[28], 68, 2); /* imm_data_offset */
	PutBe(&p[32], i_ext, 8);
	PutBe(&p[40], 0xaabbccddeeff0011ull, 8);
	PutBe(&p[48], guid, 8);
	PutBe(&p[56], guid, 8);
	return p;
}

class IbCmFixture : public DataPathFixture
{
protected:
	int LoginIb(const std::vector<uint8_t> &pdata, void *cm_id)
	{
		return srpt_core_dp_ib_cm_req(
		    device_, 1, cm_id, pdata.data(),
		    static_cast<uint32_t>(pdata.size()), kInitiatorGid, kPkey);
	}

	/* A logged-in IB/CM channel after the RTU. */
	Channel *LiveIbChannel()
	{
		EnableGidPort();
		host::Script().acl_names = {kInitiator};
		before_login_ = host::OutstandingAllocations();
		EXPECT_EQ(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
		EXPECT_EQ(host::FakeChannels().size(), 1u);
		if (host::FakeChannels().size() != 1)
			return nullptr;
		auto *ch = static_cast<Channel *>(
		    host::FakeChannels()[0]->args.core_ch);
		srpt_core_dp_cm_event(ch, SRPT_DP_CM_ESTABLISHED);
		EXPECT_EQ(ch->state(), ChannelState::kLive);
		return ch;
	}

	/* Allocations before the login: the channel must give all back. */
	size_t before_login_ = 0;
};

TEST_F(IbCmFixture, LoginIsAcceptedWithLoginRspOnTheIbCmId)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	ASSERT_EQ(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::FakeChannels().size(), 1u);
	host::FakeCh &f = *host::FakeChannels()[0];
	/* The glue creates an IB/CM QP: ib_create_qp + INIT with the P_Key. */
	EXPECT_EQ(f.args.cm, SRPT_DP_IB_CM);
	EXPECT_EQ(f.args.cm_id, &cm_ids_[0]);
	EXPECT_EQ(f.args.pkey, kPkey);
	EXPECT_EQ(f.args.port_num, 1u);
	EXPECT_TRUE(f.accepted);
	ASSERT_EQ(f.accept_pdata.size(), sizeof(wire::LoginRsp));
	EXPECT_EQ(f.accept_pdata[0], 0xc0);		  /* SRP_LOGIN_RSP */
	EXPECT_EQ(GetBe(&f.accept_pdata[4], 4), 128u);	  /* req_lim_delta */
	EXPECT_EQ(GetBe(&f.accept_pdata[8], 8), 0x4343u); /* tag echoed */
	EXPECT_EQ(GetBe(&f.accept_pdata[16], 4), 8276u);  /* max_it_iu_len */
	EXPECT_EQ(GetBe(&f.accept_pdata[20], 4), 8260u);  /* max_ti_iu_len */
	EXPECT_EQ(f.accept_pdata[26] & 0x80, 0x80);	  /* immediate data */
	EXPECT_EQ(f.posted_recv.size(), 128u);
	EXPECT_TRUE(host::Rejections().empty());
	auto *ch = static_cast<Channel *>(f.args.core_ch);
	EXPECT_EQ(ch->state(), ChannelState::kConnecting);
	EXPECT_EQ(ch->login().imm_data_offset, 68u);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_ESTABLISHED); /* RTU */
	EXPECT_EQ(ch->state(), ChannelState::kLive);
	EXPECT_TRUE(host::LogsContain("IB/CM REQ on rxe0 port 1, pkey 0xffff"));
}

TEST_F(IbCmFixture, LoginWithoutAclIsRejectedOnTheIbCmIdAndLeavesNothing)
{
	EnableGidPort();
	const size_t before = host::OutstandingAllocations();
	EXPECT_NE(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::Rejections().size(), 1u);
	const host::Rejection &rej = host::Rejections()[0];
	EXPECT_EQ(rej.cm, SRPT_DP_IB_CM); /* ib_send_cm_rej, not rdma_reject */
	EXPECT_EQ(rej.cm_id, &cm_ids_[0]);
	ASSERT_EQ(rej.pdata.size(), sizeof(wire::LoginRej));
	EXPECT_EQ(rej.pdata[0], 0xc2); /* SRP_LOGIN_REJ */
	EXPECT_EQ(GetBe(&rej.pdata[8], 8), 0x4343u);
	EXPECT_EQ(
	    LoginRejReasonOf(rej.pdata),
	    static_cast<uint32_t>(wire::LoginRejReason::ChannelLimitReached));
	ASSERT_EQ(host::FakeChannels().size(), 1u);
	host::FakeCh &f = *host::FakeChannels()[0];
	EXPECT_EQ(f.destroy_calls, 1u);
	/* Non-zero return: IB/CM destroys the id, the channel must not. */
	EXPECT_FALSE(f.cm_id_destroyed);
	EXPECT_FALSE(f.accepted);
	EXPECT_EQ(host::OutstandingAllocations(), before);
	EXPECT_TRUE(host::LogsContain("rejected login for initiator " +
				      std::string(kInitiatorGuidName)));
}

TEST_F(IbCmFixture, GidNamedPortTriesThePortIdWithAndWithoutPrefix)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator + 2};
	ASSERT_EQ(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
	host::FakeCh &f = *host::FakeChannels()[0];
	EXPECT_EQ(f.session_attempts,
		  (std::vector<std::string>{kInitiator, kInitiator + 2}));
	EXPECT_EQ(f.session, kInitiator + 2);
	EXPECT_STREQ(static_cast<Channel *>(f.args.core_ch)->name(),
		     kInitiator + 2);
}

TEST_F(IbCmFixture, GuidNamedPortUsesTheInitiatorPortGuid)
{
	/* In-tree srpt_ib_cm_req_recv: srpt_format_guid() of the dgid. */
	ASSERT_EQ(srpt_core_port_id_make(kGuidName, &guid_port_), 0);
	ASSERT_EQ(srpt_core_tpg_enable(guid_port_, true), 0);
	host::Script().acl_names = {kInitiatorGuidName};
	ASSERT_EQ(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
	host::FakeCh &f = *host::FakeChannels()[0];
	EXPECT_EQ(f.session_attempts,
		  (std::vector<std::string>{kInitiatorGuidName}));
	EXPECT_TRUE(f.accepted);
	EXPECT_STREQ(static_cast<Channel *>(f.args.core_ch)->name(),
		     kInitiatorGuidName);
}

TEST_F(IbCmFixture, BothPortNamesTryGuidNameFirstThenThePortId)
{
	ASSERT_EQ(srpt_core_port_id_make(kGuidName, &guid_port_), 0);
	ASSERT_EQ(srpt_core_tpg_enable(guid_port_, true), 0);
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	ASSERT_EQ(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
	EXPECT_EQ(host::FakeChannels()[0]->session_attempts,
		  (std::vector<std::string>{kInitiatorGuidName, kInitiator}));
}

TEST_F(IbCmFixture, RdmaCmLayoutOrShortPrivateDataIsRejected)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	/* 56 bytes: the RDMA/CM form is too short for the IB/CM layout. */
	EXPECT_NE(LoginIb(LoginReqRdma(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::Rejections().size(), 1u);
	EXPECT_EQ(host::Rejections()[0].cm, SRPT_DP_IB_CM);
	EXPECT_EQ(LoginRejReasonOf(host::Rejections()[0].pdata),
		  static_cast<uint32_t>(
		      wire::LoginRejReason::UnableToEstablishChannel));
	/* Wrong target port id in the IB/CM layout. */
	EXPECT_NE(LoginIb(LoginReqIb(0x80, 0x1234), &cm_ids_[1]), 0);
	ASSERT_EQ(host::Rejections().size(), 2u);
	EXPECT_EQ(LoginRejReasonOf(host::Rejections()[1].pdata),
		  static_cast<uint32_t>(
		      wire::LoginRejReason::UnableToAssociateChannel));
	EXPECT_TRUE(host::FakeChannels().empty());
	/* No device handle (the glue device is going away). */
	const std::vector<uint8_t> req = LoginReqIb();
	EXPECT_NE(srpt_core_dp_ib_cm_req(nullptr, 1, &cm_ids_[2], req.data(),
					 92, kInitiatorGid, kPkey),
		  0);
	ASSERT_EQ(host::Rejections().size(), 3u);
	EXPECT_EQ(host::Rejections()[2].cm, SRPT_DP_IB_CM);
	EXPECT_EQ(host::Rejections()[2].cm_id, &cm_ids_[2]);
}

TEST_F(IbCmFixture, DreqIsAnsweredWithDrepThenTimewaitReleasesOnce)
{
	Channel *ch = LiveIbChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	/* The initiator's DREQ: DREP at once, no DREQ of ours. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DREQ_RECEIVED);
	EXPECT_EQ(f.drep_sent, 1u);
	EXPECT_EQ(f.disconnect_calls, 0u);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	EXPECT_FALSE(f.qp_error); /* waits for the CM's timewait */
	/* A retransmitted DREQ (our DREP lost) is answered again. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DREQ_RECEIVED);
	EXPECT_EQ(f.drep_sent, 2u);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	EXPECT_TRUE(f.qp_error);
	EXPECT_EQ(f.zlw_posted, 1u);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_TIMEWAIT_EXIT);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	EXPECT_EQ(f.zlw_posted, 1u);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.session_removed);
	EXPECT_EQ(f.destroy_calls, 1u);
	EXPECT_TRUE(f.cm_id_destroyed); /* ib_destroy_cm_id by the release */
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
	EXPECT_EQ(host::OutstandingAllocations(), before_login_);
	/* The fixture's teardown must not release it a second time. */
}

TEST_F(IbCmFixture, DreqThenTimewaitExitClosesAndReleasesOnce)
{
	Channel *ch = LiveIbChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DREQ_RECEIVED);
	EXPECT_EQ(f.drep_sent, 1u);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_TIMEWAIT_EXIT);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	EXPECT_TRUE(f.qp_error);
	srpt_core_dp_zlw_done(ch, false);
	/* Late events are absorbed. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_TIMEWAIT_EXIT);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	host::RunPendingWork();
	EXPECT_EQ(f.destroy_calls, 1u);
	EXPECT_TRUE(f.cm_id_destroyed);
	EXPECT_EQ(GetChannelRegistry()->Count(), 0u);
	EXPECT_EQ(host::OutstandingAllocations(), before_login_);
}

TEST_F(IbCmFixture, TargetDisconnectSendsDreqAndCrossingDreqGetsDrep)
{
	Channel *ch = LiveIbChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	/* Target side: the TPG is disabled, ib_send_cm_dreq. */
	ASSERT_EQ(srpt_core_tpg_enable(gid_port_, false), 0);
	EXPECT_EQ(f.disconnect_calls, 1u);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	/* The initiator's DREQ crossed ours: it still gets its DREP. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DREQ_RECEIVED);
	EXPECT_EQ(f.drep_sent, 1u);
	EXPECT_EQ(f.disconnect_calls, 1u);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_EQ(f.destroy_calls, 1u);
	EXPECT_EQ(host::OutstandingAllocations(), before_login_);
}

TEST_F(IbCmFixture, DrepAfterOurDreqClosesTheChannel)
{
	Channel *ch = LiveIbChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	ASSERT_EQ(srpt_core_tpg_enable(gid_port_, false), 0);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	/* IB_CM_DREP_RECEIVED maps to DISCONNECTED. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	EXPECT_EQ(f.drep_sent, 0u);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_EQ(f.destroy_calls, 1u);
	EXPECT_TRUE(f.cm_id_destroyed);
}

TEST_F(IbCmFixture, FailedDrepClosesAtOnce)
{
	Channel *ch = LiveIbChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	host::Script().drep_rc = -SRPT_EINVAL;
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DREQ_RECEIVED);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_EQ(f.destroy_calls, 1u);
}

TEST_F(IbCmFixture, RepErrorOrRejClosesAConnectingChannel)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	before_login_ = host::OutstandingAllocations();
	ASSERT_EQ(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
	host::FakeCh &f = *host::FakeChannels()[0];
	auto *ch = static_cast<Channel *>(f.args.core_ch);
	/* IB_CM_REP_ERROR / IB_CM_REJ_RECEIVED / a failed RTS. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_REJECTED);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_ESTABLISHED); /* late RTU */
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_EQ(f.destroy_calls, 1u);
	EXPECT_TRUE(f.cm_id_destroyed);
	EXPECT_EQ(host::OutstandingAllocations(), before_login_);
}

TEST_F(IbCmFixture, AcceptFailureRejectsOnTheIbCmIdAndReleasesOnce)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	host::Script().accept_rc = -SRPT_EIO; /* RTR or ib_send_cm_rep */
	before_login_ = host::OutstandingAllocations();
	EXPECT_EQ(LoginIb(LoginReqIb(), &cm_ids_[0]), 0);
	ASSERT_EQ(host::Rejections().size(), 1u);
	EXPECT_EQ(host::Rejections()[0].cm, SRPT_DP_IB_CM);
	EXPECT_EQ(
	    LoginRejReasonOf(host::Rejections()[0].pdata),
	    static_cast<uint32_t>(wire::LoginRejReason::InsufficientResources));
	host::FakeCh &f = *host::FakeChannels()[0];
	auto *ch = static_cast<Channel *>(f.args.core_ch);
	ASSERT_EQ(ch->state(), ChannelState::kDraining);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_EQ(f.destroy_calls, 1u);
	EXPECT_TRUE(f.cm_id_destroyed);
	EXPECT_EQ(host::OutstandingAllocations(), before_login_);
}

/* configfs acls/<name>/info (targetcli sessions) reads this. */
TEST_F(IbCmFixture, AclChannelsListsTheSessionsChannelsInLoginOrder)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	ASSERT_EQ(Login(LoginReqRdma(0x81), &cm_ids_[0]), 0); /* MULTI */
	ASSERT_EQ(LoginIb(LoginReqIb(0x81), &cm_ids_[1]), 0); /* MULTI */
	auto &fakes = host::FakeChannels();
	ASSERT_EQ(fakes.size(), 2u);
	auto *first = static_cast<Channel *>(fakes[0]->args.core_ch);
	auto *second = static_cast<Channel *>(fakes[1]->args.core_ch);
	srpt_core_dp_cm_event(second, SRPT_DP_CM_ESTABLISHED);

	srpt_acl_channel out[3]{};
	ASSERT_EQ(srpt_core_acl_channels(gid_port_, kInitiator, out, 3), 2u);
	EXPECT_EQ(out[0].id, first->id());
	EXPECT_LT(out[0].id, out[1].id);
	EXPECT_TRUE(out[0].rdma_cm);
	EXPECT_FALSE(out[0].logged_in);
	EXPECT_STREQ(out[0].conn_state, "IN_LOGIN");
	EXPECT_STREQ(out[0].stats.state, "connecting");
	EXPECT_EQ(out[1].id, second->id());
	EXPECT_FALSE(out[1].rdma_cm);
	EXPECT_TRUE(out[1].logged_in);
	EXPECT_STREQ(out[1].conn_state, "LOGGED_IN");
	EXPECT_EQ(out[2].id, 0u); /* nothing written past the count */

	/* Fewer slots than channels: the count, the first ones filled. */
	srpt_acl_channel one[1]{};
	EXPECT_EQ(srpt_core_acl_channels(gid_port_, kInitiator, one, 1), 2u);
	EXPECT_EQ(one[0].id, first->id());
	/* Another ACL name or another port: none. */
	EXPECT_EQ(srpt_core_acl_channels(gid_port_, "0x00", out, 3), 0u);
	EXPECT_EQ(srpt_core_acl_channels(nullptr, kInitiator, out, 3), 0u);

	EXPECT_STREQ(LioConnStateName(ChannelState::kDisconnecting),
		     "IN_LOGOUT");
	EXPECT_STREQ(LioConnStateName(ChannelState::kDraining), "IN_LOGOUT");
	EXPECT_STREQ(LioConnStateName(ChannelState::kReleasing),
		     "CLEANUP_WAIT");
	EXPECT_STREQ(LioConnStateName(ChannelState::kReleased), "CLEANUP_WAIT");
}

TEST_F(IbCmFixture, IbAndRdmaChannelsOfOneInitiatorShareTheNexus)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	ASSERT_EQ(Login(LoginReqRdma(0x81), &cm_ids_[0]), 0); /* MULTI */
	ASSERT_EQ(LoginIb(LoginReqIb(0x80), &cm_ids_[1]), 0); /* SINGLE */
	auto &fakes = host::FakeChannels();
	ASSERT_EQ(fakes.size(), 2u);
	EXPECT_EQ(fakes[0]->args.cm, SRPT_DP_RDMA_CM);
	EXPECT_EQ(fakes[1]->args.cm, SRPT_DP_IB_CM);
	EXPECT_TRUE(fakes[0]->disconnected);
	EXPECT_EQ(fakes[1]->accept_pdata[26] & 0x03, 0x01); /* terminated */
}

TEST_F(IbCmFixture, AllocationFailuresDuringIbCmLoginLeaveNothing)
{
	EnableGidPort();
	host::Script().acl_names = {kInitiator};
	FailEachLoginAllocation(
	    [&](void *cm_id) { return LoginIb(LoginReqIb(0x81), cm_id); },
	    SRPT_DP_IB_CM);
}

} // namespace
} // namespace srpt

/*
 * The test knob test_send_done_delay_us (include/srpt/send_done_hold.hpp):
 * a successful send completion reaches the data path only after the delay.
 */
namespace srpt
{
namespace
{

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
		srpt_core_dp_send_done(ch, idx, true);
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
		srpt_core_dp_send_done(ch, idx, true);
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
	srpt_core_dp_send_done(ch, a, true);
	host::AdvanceClock(1'500'000);
	srpt_core_dp_send_done(ch, b, true);
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
	srpt_core_dp_send_done(ch, idx, false);
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
		srpt_core_dp_send_done(ch, idx, true);
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
	srpt_core_dp_send_done(ch, idx, true);
	host::Script().on_msleep = [&] {
		if (!f.destroyed && f.zlw_posted)
			srpt_core_dp_zlw_done(ch, false);
		host::RunPendingWork();
	};
	srpt_core_dp_device_removing(device_);
	host::Script().on_msleep = nullptr;
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
