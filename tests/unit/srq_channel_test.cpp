// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Channels on the device's shared receive queue (include/srpt/srq.hpp):
 * they receive from it and repost on it, contexts are posted before they
 * can complete, immediate data is not granted on it, a released channel
 * returns its waiting contexts, and failed or refused logins give back
 * the SRQ use and the device reference they took.
 */
#include <gtest/gtest.h>
#include <srpt/core_api.h>
#include <srpt/host_datapath.hpp>
#include <srpt/host_platform.hpp>
#include <srpt/srq.hpp>

#include "srq_fixture.hpp"

#include <vector>

namespace srpt
{
namespace
{

using namespace dp_test;

TEST_F(SrqFixture, ChannelsReceiveFromTheSrqAndRepostOnIt)
{
	Start(4095, 64);
	ASSERT_EQ(SetUseSrq("1"), 0);
	host::FakeSrq &q = *host::FakeSrqs()[0];
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	/* The QP gets the SRQ and no receive queue, nothing to map or post. */
	EXPECT_EQ(host::FakeSrqOf(f.args.srq), &q);
	EXPECT_EQ(f.args.n_recv, 0u);
	EXPECT_TRUE(f.posted_recv.empty());
	ASSERT_NE(ch->srq(), nullptr);
	EXPECT_EQ(ch->core().recv_ring(), &ch->srq()->ring());
	EXPECT_EQ(Srq().users(), 1u);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_TRUE(st.use_srq);
	EXPECT_EQ(st.recv_ring_size, 64u);
	EXPECT_EQ(st.credits, 128u); /* credits do not depend on the SRQ */
	EXPECT_TRUE(host::LogsContain("shared receive queue"));

	/*
	 * An IU lands in SRQ context 17: handed to the target core, then the
	 * buffer (no immediate data) goes back to the SRQ at once.
	 */
	Receive(ch, TestUnitReady(0x17), 17);
	ASSERT_EQ(f.submitted.size(), 1u);
	ASSERT_EQ(q.posted.size(), 65u);
	EXPECT_EQ(q.posted.back(), 17u);
	Answer(ch, f.submitted_index[0]);
	EXPECT_EQ(q.posted.size(), 65u);
	EXPECT_TRUE(f.posted_recv.empty());
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);

	/* A second channel shares it; its IUs come from the same ring. */
	Channel *ch2 = LiveChannel();
	ASSERT_NE(ch2, nullptr);
	host::FakeCh &f2 = *host::FakeChannels()[1];
	EXPECT_EQ(f2.args.srq, f.args.srq);
	EXPECT_EQ(ch2->srq(), ch->srq());
	EXPECT_EQ(Srq().users(), 2u);
	Receive(ch2, TestUnitReady(0x3), 3);
	ASSERT_EQ(f2.submitted.size(), 1u);
	Answer(ch2, f2.submitted_index[0]);
	EXPECT_EQ(q.posted.back(), 3u);
	/* A flushed receive goes back to the SRQ as well. */
	srpt::host::RecvDone(ch2, 9, 0, false);
	EXPECT_EQ(q.posted.back(), 9u);
	EXPECT_TRUE(f2.posted_recv.empty());
	EXPECT_TRUE(AllPosted(*ch->srq()));
}

TEST_F(SrqFixture, AContextIsPostedBeforeItCanComplete)
{
	Start(4095, 16);
	ASSERT_EQ(SetUseSrq("1"), 0);
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	SharedRecvQueue &q = *ch->srq();
	/*
	 * On an SRQ the WR may complete on another channel's CQ before
	 * ib_post_srq_recv() returns: the context must already be "posted".
	 */
	size_t checked = 0;
	host::Script().on_srq_post = [&](uint32_t index) {
		EXPECT_EQ(q.ring()[index].state(), RecvState::kPosted) << index;
		checked++;
	};
	Receive(ch, TestUnitReady(0x5), 5);
	srpt::host::RecvDone(ch, 6, 0, false); /* flushed: reposted */
	host::Script().on_srq_post = nullptr;
	EXPECT_EQ(checked, 2u);
	Answer(ch, host::FakeChannels()[0]->submitted_index.at(0));
}

TEST_F(SrqFixture, ImmediateDataIsNotGrantedOnTheSrq)
{
	Start(4095, 64);
	ASSERT_EQ(SetUseSrq("1"), 0);
	Channel *ch = LiveChannel(kImmMulti);
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	/* Accepted, as in-tree, but LOGIN_RSP does not offer immediate data. */
	ASSERT_TRUE(f.accepted);
	EXPECT_EQ(f.accept_pdata[26] & 0x80, 0);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.imm_data_offset, 0u);
	/* An initiator that sends immediate data anyway is answered. */
	std::vector<uint8_t> iu(68 + 512, 0);
	iu[0] = 0x02;
	iu[5] = 0x30;  /* data-out IMMEDIATE */
	iu[32] = 0x2a; /* WRITE(10), 1 block */
	iu[39] = 0x01;
	PutBe(&iu[48], 512, 4);
	Receive(ch, iu, 5);
	EXPECT_TRUE(f.submitted.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[19], 0x02); /* CHECK CONDITION */
	/* The buffer goes back to the SRQ with the command's context. */
	srpt::host::SendDone(ch, f.posted_send[0], true);
	EXPECT_EQ(host::FakeSrqs()[0]->posted.back(), 5u);
	EXPECT_TRUE(AllPosted(*ch->srq()));
	/* Without the SRQ the same login gets immediate data. */
	ASSERT_EQ(SetUseSrq("0"), 0);
	CloseAll();
	ASSERT_NE(LiveChannel(kImmMulti), nullptr);
	EXPECT_EQ(host::FakeChannels().back()->accept_pdata[26] & 0x80, 0x80);
}

TEST_F(SrqFixture, FailedLoginsGiveTheirSrqReferenceBack)
{
	Start(4095, 16);
	ASSERT_EQ(SetUseSrq("1"), 0);
	/* Negotiation refuses (wrong target port id). */
	EXPECT_NE(Login(kImmMulti, 0x1234), 0);
	EXPECT_EQ(Srq().users(), 0u);
	/* No ACL. */
	host::Script().acl_names.clear();
	EXPECT_NE(Login(), 0);
	EXPECT_EQ(Srq().users(), 0u);
	host::Script().acl_names = {kInitiator};
	/* QP creation fails. */
	host::Script().create_rc = -SRPT_ENOMEM;
	EXPECT_NE(Login(), 0);
	EXPECT_EQ(Srq().users(), 0u);
	host::Script().create_rc = 0;
	/* Every allocation of the login fails in turn. */
	for (size_t nth = 1; nth < 8; nth++) {
		const size_t before = host::OutstandingAllocations();
		host::FailNthAllocation(nth);
		const int rc = Login();
		host::FailNthAllocation(0);
		if (rc == 0) {
			CloseAll();
		} else {
			EXPECT_EQ(host::OutstandingAllocations(), before)
			    << nth;
		}
		EXPECT_EQ(Srq().users(), 0u) << nth;
		EXPECT_EQ(static_cast<Device *>(device_)->ref_count(), 2)
		    << nth;
	}
	/* Nobody holds it: turning use_srq off destroys it at once. */
	ASSERT_EQ(SetUseSrq("0"), 0);
	EXPECT_TRUE(host::FakeSrqs()[0]->destroyed);
}

/*
 * Every exit of a refused login, one by one: the SRQ's users and the
 * device's references are where they were before the login.
 */
TEST_F(SrqFixture, RefusedLoginsLeaveSrqAndDeviceCountsUnchanged)
{
	Start(4095, 16);
	ASSERT_EQ(SetUseSrq("1"), 0);
	Device &dev = *static_cast<Device *>(device_);
	/* The registry's and the configfs port directory's. */
	const int32_t device_refs = dev.ref_count();
	ASSERT_EQ(device_refs, 2);
	auto unchanged = [&](const char *exit) {
		EXPECT_EQ(Srq().users(), 0u) << exit;
		EXPECT_EQ(dev.ref_count(), device_refs) << exit;
	};

	/* No such port: before any reference is taken. */
	const std::vector<uint8_t> pdata = LoginReqRdma(kImmMulti, kNodeGuid);
	EXPECT_NE(srpt_core_dp_rdma_cm_req(
		      device_, 2, &cm_ids_[0], pdata.data(),
		      static_cast<uint32_t>(pdata.size()), kSrcAddr),
		  0);
	unchanged("no such port");
	/* Negotiation refuses (wrong target port id). */
	EXPECT_NE(Login(kImmMulti, 0x1234), 0);
	unchanged("negotiation");
	/* Channel::Create fails (QP creation). */
	host::Script().create_rc = -SRPT_ENOMEM;
	EXPECT_NE(Login(), 0);
	host::Script().create_rc = 0;
	unchanged("channel creation");
	/* No session (no ACL). */
	host::Script().acl_names.clear();
	EXPECT_NE(Login(), 0);
	host::Script().acl_names = {kInitiator};
	unchanged("session");
	/* Accepting fails: the release work gives the references back. */
	host::Script().accept_rc = -SRPT_EIO;
	EXPECT_EQ(Login(), 0);
	host::Script().accept_rc = 0;
	EXPECT_EQ(Srq().users(), 1u);
	EXPECT_EQ(dev.ref_count(), device_refs + 1);
	host::FakeCh *f = host::FakeChannels().back();
	srpt_core_dp_zlw_done(ChannelOf(f), false);
	host::RunPendingWork();
	ASSERT_TRUE(f->destroyed);
	unchanged("accept");
	/* A live channel holds one of each until it is released. */
	ASSERT_NE(LiveChannel(), nullptr);
	EXPECT_EQ(Srq().users(), 1u);
	EXPECT_EQ(dev.ref_count(), device_refs + 1);
	CloseAll();
	unchanged("release");
}

TEST_F(SrqFixture, ReleaseReturnsWaitingSrqContextsToTheSrq)
{
	Start(4095, 32);
	ASSERT_EQ(SetUseSrq("1"), 0);
	host::Script().send_ctx_limit = 1;
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(1), 10);
	Receive(ch, TestUnitReady(2), 11); /* waits for the send context */
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.wait_depth, 1u);
	SharedRecvQueue &q = *ch->srq();
	EXPECT_EQ(q.ring()[11].state(), RecvState::kWaiting);
	/* The initiator goes away; the command in LIO is released. */
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_cmd_release(ch, f.submitted_index.at(0));
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	ASSERT_TRUE(f.destroyed);
	/* 6.1 never reposted waiting contexts: here none is lost. */
	EXPECT_TRUE(AllPosted(q));
	EXPECT_EQ(host::FakeSrqs()[0]->posted.back(), 11u);
	EXPECT_FALSE(host::FakeSrqs()[0]->destroyed);
}

} // namespace
} // namespace srpt
