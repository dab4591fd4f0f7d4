// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device's shared receive queue (attrib/use_srq, include/srpt/srq.hpp)
 * on the host: when it is created and with which size, channels that
 * receive from it, its retirement and destruction, failures while making
 * it, and the login rules that go with it, against the recording fake glue
 * of tests/host/platform_dp_host.cpp.
 */
#include <gtest/gtest.h>
#include <srpt/channel.hpp>
#include <srpt/cm_handler.hpp>
#include <srpt/core_api.h>
#include <srpt/host_datapath.hpp>
#include <srpt/host_platform.hpp>
#include <srpt/srq.hpp>

#include "datapath_test_ius.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace srpt
{
namespace
{

using namespace dp_test;

constexpr uint8_t kImmMulti = 0x81; /* immediate data requested, MULTI */

class SrqFixture : public testing::Test
{
protected:
	/* srpt_srq_size and the device's max_srq_wr of this test. */
	void Start(int32_t srpt_srq_size, uint32_t max_srq_wr)
	{
		host::ResetDataPath();
		ASSERT_EQ(srpt_core_set_service_guid("0"), 0);
		const srpt_module_params params{8276, srpt_srq_size};
		ASSERT_EQ(srpt_core_init(&params), 0);
		ASSERT_EQ(srpt_core_dp_init(), 0);
		srpt_port_desc port{};
		port.port_num = 1;
		port.link_layer = SRPT_LINK_LAYER_ETHERNET;
		port.gid_valid = true;
		const uint8_t gid[16] = {0xfe, 0x80, 0,	   0,	 0,    0,
					 0,    0,    0x50, 0x54, 0x00, 0xff,
					 0xfe, 0x12, 0x34, 0x56};
		std::memcpy(port.gid, gid, 16);
		port_ = port;
		desc_ = {"rxe0", kNodeGuid, 1, &port_, &ib_device_,
			 0x1111, 0x2222,    3, 16384,  max_srq_wr};
		ASSERT_EQ(srpt_core_add_device(&desc_, &device_), 0);
		ASSERT_EQ(srpt_core_port_id_make(kGidName, &port_id_), 0);
		ASSERT_EQ(srpt_core_tpg_enable(port_id_, true), 0);
		host::Script().acl_names = {kInitiator};
		started_ = true;
	}

	void TearDown() override
	{
		if (!started_)
			return;
		srpt_core_port_id_drop(port_id_);
		CloseAll();
		srpt_core_dp_device_removing(device_);
		srpt_core_remove_device(device_);
		srpt_core_dp_exit();
		srpt_core_rdma_cm_shutdown();
		srpt_core_exit();
		host::ResetDataPath();
	}

	DeviceSrq &Srq() { return static_cast<Device *>(device_)->srq(); }

	int SetUseSrq(const char *value)
	{
		return srpt_core_port_attr_set(port_id_, SRPT_ATTR_USE_SRQ,
					       value);
	}

	int Login(uint8_t flags = kImmMulti, uint64_t guid = kNodeGuid)
	{
		const std::vector<uint8_t> pdata = LoginReqRdma(flags, guid);
		return srpt_core_dp_rdma_cm_req(
		    device_, 1, &cm_ids_[next_cm_id_++ % 8], pdata.data(),
		    static_cast<uint32_t>(pdata.size()), kSrcAddr);
	}

	static Channel *ChannelOf(host::FakeCh *f)
	{
		return static_cast<Channel *>(f->args.core_ch);
	}

	/* Logs in and makes the channel live; nullptr on failure. */
	Channel *LiveChannel(uint8_t flags = kImmMulti)
	{
		const size_t n = host::FakeChannels().size();
		EXPECT_EQ(Login(flags), 0);
		if (host::FakeChannels().size() != n + 1)
			return nullptr;
		Channel *ch = ChannelOf(host::FakeChannels().back());
		srpt_core_dp_cm_event(ch, SRPT_DP_CM_ESTABLISHED);
		return ch;
	}

	/* DREQ/DREP, then the flushed drain marker and the release work. */
	static void Close(host::FakeCh *f)
	{
		if (f->destroyed)
			return;
		Channel *ch = ChannelOf(f);
		srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
		srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
		if (f->zlw_posted)
			srpt_core_dp_zlw_done(ch, false);
		host::RunPendingWork();
	}

	static void CloseAll()
	{
		for (host::FakeCh *f : host::FakeChannels())
			Close(f);
	}

	/* Writes @iu into receive context @index of the channel's ring. */
	static void Receive(Channel *ch, const std::vector<uint8_t> &iu,
			    uint32_t index)
	{
		RecvCtx &r = (*ch->core().recv_ring())[index];
		ASSERT_EQ(r.state(), RecvState::kPosted);
		std::memcpy(r.buf(), iu.data(), iu.size());
		srpt_core_dp_recv_done(ch, index,
				       static_cast<uint32_t>(iu.size()), true);
	}

	static void Answer(Channel *ch, uint32_t send_index)
	{
		srpt_dp_rsp rsp{};
		ASSERT_EQ(srpt_core_dp_queue_response(ch, send_index, &rsp), 0);
		srpt_core_dp_send_done(ch, send_index, true);
	}

	/* The IOC profile's send queue depth, as a DM MAD answers it. */
	uint32_t IocSendQueueDepth()
	{
		std::vector<uint8_t> req(256, 0);
		req[0] = 1;
		req[1] = 0x06; /* device management */
		req[2] = 1;
		req[3] = 0x01;	/* Get */
		req[17] = 0x11; /* IocProfile */
		req[23] = 1;	/* slot 1 */
		uint8_t rsp[256] = {};
		EXPECT_TRUE(srpt_core_handle_dm_mad(
		    device_, 1, req.data(), req.size(), rsp, sizeof(rsp)));
		return static_cast<uint32_t>(GetBe(&rsp[64 + 40], 2));
	}

	/* Every context of the SRQ's ring is posted (none was lost). */
	static bool AllPosted(SharedRecvQueue &q)
	{
		for (uint32_t i = 0; i < q.size(); i++)
			if (q.ring()[i].state() != RecvState::kPosted)
				return false;
		return true;
	}

	int ib_device_ = 0;
	srpt_port_desc port_{};
	srpt_device_desc desc_{};
	srpt_core_device *device_ = nullptr;
	srpt_core_port_id *port_id_ = nullptr;
	int cm_ids_[8] = {};
	size_t next_cm_id_ = 0;
	bool started_ = false;
};

TEST_F(SrqFixture, UseSrqCreatesTheSrqClampedToMaxSrqWr)
{
	Start(4095, 64);
	EXPECT_TRUE(host::FakeSrqs().empty());
	EXPECT_EQ(IocSendQueueDepth(), 128u); /* min(128, max_qp_wr) */
	ASSERT_EQ(SetUseSrq("1"), 0);
	ASSERT_EQ(host::FakeSrqs().size(), 1u);
	const host::FakeSrq &q = *host::FakeSrqs()[0];
	EXPECT_EQ(q.ib_device, &ib_device_);
	EXPECT_EQ(q.size, 64u); /* min(srpt_srq_size 4095, max_srq_wr 64) */
	std::vector<uint32_t> all(64);
	for (uint32_t i = 0; i < 64; i++)
		all[i] = i;
	EXPECT_EQ(q.mapped, all); /* every buffer mapped, then posted */
	EXPECT_EQ(q.posted, all);
	EXPECT_TRUE(Srq().exists());
	EXPECT_EQ(Srq().depth(), 64u);
	EXPECT_EQ(IocSendQueueDepth(), 64u); /* in-tree: sdev->srq_size */
	EXPECT_TRUE(host::LogsContain("shared receive queue of 64 entries"));
	/* Writing 1 again changes nothing. */
	ASSERT_EQ(SetUseSrq("1"), 0);
	EXPECT_EQ(host::FakeSrqs().size(), 1u);
}

TEST_F(SrqFixture, SrqSizeIsTheModuleParameterWhenTheDeviceAllowsMore)
{
	Start(16, 16384);
	ASSERT_EQ(SetUseSrq("1"), 0);
	ASSERT_EQ(host::FakeSrqs().size(), 1u);
	EXPECT_EQ(host::FakeSrqs()[0]->size, 16u);
	EXPECT_EQ(host::FakeSrqs()[0]->posted.size(), 16u);
}

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
	srpt_core_dp_recv_done(ch2, 9, 0, false);
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
	srpt_core_dp_recv_done(ch, 6, 0, false); /* flushed: reposted */
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
	srpt_core_dp_send_done(ch, f.posted_send[0], true);
	EXPECT_EQ(host::FakeSrqs()[0]->posted.back(), 5u);
	EXPECT_TRUE(AllPosted(*ch->srq()));
	/* Without the SRQ the same login gets immediate data. */
	ASSERT_EQ(SetUseSrq("0"), 0);
	CloseAll();
	ASSERT_NE(LiveChannel(kImmMulti), nullptr);
	EXPECT_EQ(host::FakeChannels().back()->accept_pdata[26] & 0x80, 0x80);
}

TEST_F(SrqFixture, UseSrqOffRetiresTheSrqUntilItsChannelsAreReleased)
{
	Start(4095, 64);
	const size_t before = host::OutstandingAllocations();
	ASSERT_EQ(SetUseSrq("1"), 0);
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	host::FakeSrq &q = *host::FakeSrqs()[0];
	Receive(ch, TestUnitReady(0x21), 21);
	const uint32_t cmd = f.submitted_index.at(0);

	ASSERT_EQ(SetUseSrq("0"), 0);
	/* The initiator is logged out; its channel still uses the SRQ. */
	EXPECT_TRUE(f.disconnected);
	EXPECT_FALSE(q.destroyed);
	EXPECT_TRUE(Srq().exists());
	EXPECT_EQ(Srq().depth(), 0u);
	EXPECT_EQ(IocSendQueueDepth(), 128u);
	EXPECT_EQ(srpt_core_port_attr_get(port_id_, SRPT_ATTR_USE_SRQ), 0u);

	/* A login meanwhile gets a receive ring of its own. */
	Channel *own = LiveChannel();
	ASSERT_NE(own, nullptr);
	host::FakeCh &f2 = *host::FakeChannels()[1];
	EXPECT_EQ(f2.args.srq, nullptr);
	EXPECT_EQ(f2.args.n_recv, 128u);
	EXPECT_EQ(f2.posted_recv.size(), 128u);
	EXPECT_EQ(own->srq(), nullptr);
	EXPECT_EQ(f2.accept_pdata[26] & 0x80, 0x80);

	/* The command ends, the old channel is released: the SRQ goes. */
	Answer(ch, cmd);
	Close(&f);
	EXPECT_TRUE(f.destroyed);
	EXPECT_TRUE(q.destroyed);
	EXPECT_EQ(q.channels_alive_at_destroy, 0u);
	EXPECT_FALSE(Srq().exists());
	EXPECT_EQ(Srq().users(), 0u);
	EXPECT_TRUE(host::LogsContain("shared receive queue destroyed"));
	Close(&f2);
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

TEST_F(SrqFixture, UseSrqOffWithoutChannelsDestroysAtOnce)
{
	Start(4095, 32);
	const size_t before = host::OutstandingAllocations();
	ASSERT_EQ(SetUseSrq("1"), 0);
	EXPECT_GT(host::OutstandingAllocations(), before + 32);
	ASSERT_EQ(SetUseSrq("0"), 0);
	ASSERT_EQ(host::FakeSrqs().size(), 1u);
	EXPECT_TRUE(host::FakeSrqs()[0]->destroyed);
	EXPECT_EQ(host::OutstandingAllocations(), before);
	/* And a new one next time. */
	ASSERT_EQ(SetUseSrq("1"), 0);
	ASSERT_EQ(host::FakeSrqs().size(), 2u);
	EXPECT_FALSE(host::FakeSrqs()[1]->destroyed);
}

TEST_F(SrqFixture, UseSrqOnAgainReusesARetiredSrq)
{
	Start(4095, 64);
	ASSERT_EQ(SetUseSrq("1"), 0);
	ASSERT_NE(LiveChannel(), nullptr);
	ASSERT_EQ(SetUseSrq("0"), 0); /* retired, one channel draining */
	ASSERT_EQ(SetUseSrq("1"), 0);
	/* As in-tree srpt_use_srq(): a new SRQ only if there is none. */
	ASSERT_EQ(host::FakeSrqs().size(), 1u);
	EXPECT_EQ(Srq().depth(), 64u);
	ASSERT_NE(LiveChannel(), nullptr);
	EXPECT_EQ(host::FakeSrqOf(host::FakeChannels()[1]->args.srq),
		  host::FakeSrqs()[0]);
	CloseAll();
	/* Still wanted: it stays without channels. */
	EXPECT_FALSE(host::FakeSrqs()[0]->destroyed);
	EXPECT_EQ(Srq().users(), 0u);
	const SrqRef q = Srq().Get(true);
	ASSERT_TRUE(q);
	EXPECT_TRUE(AllPosted(*q.get()));
}

TEST_F(SrqFixture, SrqCreationFailureFallsBackToOwnRings)
{
	Start(4095, 64);
	host::Script().srq_create_rc = -SRPT_EOPNOTSUPP;
	const size_t before = host::OutstandingAllocations();
	/* The write succeeds (in-tree ignores srpt_use_srq()'s result). */
	ASSERT_EQ(SetUseSrq("1"), 0);
	EXPECT_EQ(srpt_core_port_attr_get(port_id_, SRPT_ATTR_USE_SRQ), 1u);
	EXPECT_FALSE(Srq().exists());
	EXPECT_EQ(Srq().depth(), 0u);
	EXPECT_EQ(host::OutstandingAllocations(), before);
	EXPECT_TRUE(
	    host::LogsContain("creating a shared receive queue of 64 entries "
			      "failed (-95)"));
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	EXPECT_EQ(f.args.srq, nullptr);
	EXPECT_EQ(f.posted_recv.size(), 128u);
	EXPECT_EQ(f.accept_pdata[26] & 0x80, 0x80); /* immediate data */
}

TEST_F(SrqFixture, DeviceWithoutSrqSupportFallsBack)
{
	Start(4095, 0);
	ASSERT_EQ(SetUseSrq("1"), 0);
	EXPECT_TRUE(host::FakeSrqs().empty());
	EXPECT_TRUE(host::LogsContain("no shared receive queue"));
	ASSERT_NE(LiveChannel(), nullptr);
	EXPECT_EQ(host::FakeChannels()[0]->args.srq, nullptr);
}

TEST_F(SrqFixture, AllocationFailuresWhileCreatingTheSrqLeaveNothing)
{
	Start(4095, 8);
	/* SharedRecvQueue, the context array, 8 buffers: fail each. */
	for (size_t nth = 1; nth <= 11; nth++) {
		const size_t before = host::OutstandingAllocations();
		host::FailNthAllocation(nth);
		ASSERT_EQ(SetUseSrq("1"), 0);
		host::FailNthAllocation(0);
		if (nth <= 10) {
			EXPECT_FALSE(Srq().exists()) << nth;
			EXPECT_EQ(host::OutstandingAllocations(), before)
			    << nth;
			/* The glue's SRQ was destroyed if it was made. */
			for (host::FakeSrq *q : host::FakeSrqs())
				EXPECT_TRUE(q->destroyed) << nth;
		} else {
			EXPECT_TRUE(Srq().exists());
		}
		ASSERT_EQ(SetUseSrq("0"), 0);
		EXPECT_EQ(host::OutstandingAllocations(), before) << nth;
	}
}

TEST_F(SrqFixture, MapAndPostFailuresWhileCreatingTheSrqUndoEverything)
{
	Start(4095, 8);
	const size_t before = host::OutstandingAllocations();
	host::Script().srq_map_fail_index = 5;
	ASSERT_EQ(SetUseSrq("1"), 0);
	EXPECT_FALSE(Srq().exists());
	ASSERT_EQ(host::FakeSrqs().size(), 1u);
	EXPECT_TRUE(host::FakeSrqs()[0]->destroyed);
	EXPECT_EQ(host::FakeSrqs()[0]->mapped.size(), 5u);
	EXPECT_EQ(host::OutstandingAllocations(), before);

	host::Script().srq_map_fail_index = -1;
	host::Script().srq_post_fail_index = 3;
	ASSERT_EQ(SetUseSrq("0"), 0);
	ASSERT_EQ(SetUseSrq("1"), 0);
	EXPECT_FALSE(Srq().exists());
	ASSERT_EQ(host::FakeSrqs().size(), 2u);
	EXPECT_TRUE(host::FakeSrqs()[1]->destroyed);
	EXPECT_EQ(host::FakeSrqs()[1]->posted.size(), 3u);
	EXPECT_EQ(host::OutstandingAllocations(), before);
	ASSERT_NE(LiveChannel(), nullptr);
	EXPECT_EQ(host::FakeChannels()[0]->args.srq, nullptr);
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

TEST_F(SrqFixture, SrqRefHoldsOneUseAndGivesItBackOnce)
{
	Start(4095, 16);
	ASSERT_EQ(SetUseSrq("1"), 0);
	SrqRef a = Srq().Get(true);
	ASSERT_TRUE(a);
	EXPECT_EQ(Srq().users(), 1u);
	/* A port without use_srq gets none and counts nothing. */
	SrqRef none = Srq().Get(false);
	EXPECT_FALSE(none);
	EXPECT_TRUE(none == nullptr);
	EXPECT_EQ(Srq().users(), 1u);

	SharedRecvQueue *const q = a.get();
	SrqRef b(std::move(a));
	EXPECT_FALSE(a);
	EXPECT_EQ(b.get(), q);
	EXPECT_EQ(Srq().users(), 1u);
	SrqRef c = Srq().Get(true);
	EXPECT_EQ(Srq().users(), 2u);
	c = std::move(b); /* c's own use is given back */
	EXPECT_FALSE(b);
	EXPECT_EQ(c.get(), q);
	EXPECT_EQ(Srq().users(), 1u);
	{
		SrqRef d = Srq().Get(true);
		EXPECT_EQ(Srq().users(), 2u);
	}
	EXPECT_EQ(Srq().users(), 1u);
	c.reset();
	EXPECT_FALSE(c);
	c.reset(); /* empty: nothing to give back */
	EXPECT_EQ(Srq().users(), 0u);
}

TEST_F(SrqFixture, TheLastSrqRefOfARetiredSrqDestroysIt)
{
	Start(4095, 16);
	ASSERT_EQ(SetUseSrq("1"), 0);
	SrqRef ref = Srq().Get(true);
	ASSERT_TRUE(ref);
	ASSERT_EQ(SetUseSrq("0"), 0);
	EXPECT_TRUE(Srq().exists());
	EXPECT_FALSE(host::FakeSrqs()[0]->destroyed);
	/* Retired: nobody gets it any more. */
	EXPECT_FALSE(Srq().Get(true));
	ref.reset();
	EXPECT_FALSE(Srq().exists());
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

TEST_F(SrqFixture, DeviceRemovalDestroysTheSrqAfterItsChannels)
{
	Start(4095, 16);
	ASSERT_EQ(SetUseSrq("1"), 0);
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	host::Script().on_msleep = [&] {
		if (!f.destroyed && f.zlw_posted)
			srpt_core_dp_zlw_done(ch, false);
		host::RunPendingWork();
	};
	srpt_core_dp_device_removing(device_);
	host::Script().on_msleep = nullptr;
	EXPECT_TRUE(f.destroyed);
	ASSERT_EQ(host::FakeSrqs().size(), 1u);
	EXPECT_TRUE(host::FakeSrqs()[0]->destroyed);
	EXPECT_EQ(host::FakeSrqs()[0]->channels_alive_at_destroy, 0u);
	/* The configfs port outlives the device: no SRQ is made again. */
	ASSERT_EQ(SetUseSrq("0"), 0);
	ASSERT_EQ(SetUseSrq("1"), 0);
	EXPECT_EQ(host::FakeSrqs().size(), 1u);
	EXPECT_EQ(Srq().depth(), 0u);
}

} // namespace
} // namespace srpt
