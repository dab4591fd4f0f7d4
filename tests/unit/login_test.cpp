// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Logins through the RDMA/CM entry point (srpt_core_dp_rdma_cm_req) on
 * the host: the ACL names tried, the LOGIN_RSP, the early rejects and
 * their reasons, multichannel, and the failures during a login (accept,
 * QP creation, each allocation) that must leave nothing behind.
 * IB/CM logins: ib_cm_test.cpp.
 */
#include "datapath_fixture.hpp"

#include <string>
#include <vector>

namespace srpt
{
namespace
{

using namespace dp_test;

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

} // namespace
} // namespace srpt
