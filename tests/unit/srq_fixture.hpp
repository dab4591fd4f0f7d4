/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fixture of the shared receive queue tests (srq_*_test.cpp): a
 * device with one RoCE port, made per test with the srpt_srq_size module
 * parameter and the device's max_srq_wr it needs, the port enabled for
 * the test initiator; logins through the RDMA/CM entry point, against the
 * recording fake glue of tests/host/platform_dp_host.cpp.
 *
 * Not DataPathFixture (datapath_fixture.hpp): that one sets the device up
 * in SetUp() with fixed sizes. In a named namespace: every test file's
 * TEST_F(SrqFixture, ...) must see one fixture class (GoogleTest checks
 * the type per suite).
 */
#ifndef SRPT_TESTS_SRQ_FIXTURE_HPP
#define SRPT_TESTS_SRQ_FIXTURE_HPP

#include <gtest/gtest.h>
#include <srpt/channel.hpp>
#include <srpt/cm_handler.hpp>
#include <srpt/core_api.h>
#include <srpt/host_datapath.hpp>
#include <srpt/host_platform.hpp>
#include <srpt/srq.hpp>

#include "datapath_test_ius.hpp"
#include "host_device.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace srpt::dp_test
{

inline constexpr uint8_t kImmMulti = 0x81; /* immediate data requested, MULTI */

class SrqFixture : public testing::Test
{
protected:
	/* srpt_srq_size and the device's max_srq_wr of this test. */
	void Start(int32_t srpt_srq_size, uint32_t max_srq_wr)
	{
		host_.Start(srpt_srq_size, max_srq_wr);
		if (HasFatalFailure())
			return;
		device_ = host_.device;
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
		host_.Stop();
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
		srpt::host::RecvDone(ch, index,
				       static_cast<uint32_t>(iu.size()), true);
	}

	static void Answer(Channel *ch, uint32_t send_index)
	{
		srpt_dp_rsp rsp{};
		ASSERT_EQ(srpt_core_dp_queue_response(ch, send_index, &rsp), 0);
		srpt::host::SendDone(ch, send_index, true);
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

	HostDevice host_;
	srpt_core_device *device_ = nullptr;
	srpt_core_port_id *port_id_ = nullptr;
	int cm_ids_[8] = {};
	size_t next_cm_id_ = 0;
	bool started_ = false;
};

} // namespace srpt::dp_test

#endif
