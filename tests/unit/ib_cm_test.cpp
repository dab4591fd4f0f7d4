// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * IB/CM logins (InfiniBand link layer; not reachable on rxe) through
 * srpt_core_dp_ib_cm_req: the LOGIN_RSP and LOGIN_REJ on the IB/CM id,
 * the ACL names tried per port name, DREQ/DREP/timewait, REP errors and
 * accept failures, and IB/CM and RDMA/CM channels of one initiator.
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
