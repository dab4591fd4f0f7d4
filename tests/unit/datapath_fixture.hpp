/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fixture of the host data-path tests (DataPathFixture and the
 * fixtures derived from it): the kernel data path's C++ half on the host,
 * a device with one RoCE port brought up through the same C entry points
 * the kernel calls, logins through the one the RDMA/CM handler calls
 * (srpt_core_dp_rdma_cm_req), against the recording fake glue of
 * tests/host/platform_dp_host.cpp. TearDown closes what a test left open.
 *
 * In a named namespace: every test file's TEST_F(DataPathFixture, ...)
 * must see one fixture class (GoogleTest checks the type per suite).
 */
#ifndef SRPT_TESTS_DATAPATH_FIXTURE_HPP
#define SRPT_TESTS_DATAPATH_FIXTURE_HPP

#include <gtest/gtest.h>
#include <srpt/channel.hpp>
#include <srpt/cm_handler.hpp>
#include <srpt/core_api.h>
#include <srpt/host_datapath.hpp>
#include <srpt/host_platform.hpp>
#include <srpt/module_state.hpp>
#include <srpt/wire/srp.hpp>

#include "datapath_test_ius.hpp"
#include "host_device.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace srpt::dp_test
{

inline constexpr const char *kGuidName = "5054:00ff:fe12:3456";

class DataPathFixture : public testing::Test
{
protected:
	void SetUp() override
	{
		host_.Start(4095, 8192);
		if (HasFatalFailure())
			return;
		device_ = host_.device;
		baseline_ = host::OutstandingAllocations();
	}

	void TearDown() override
	{
		if (gid_port_)
			srpt_core_port_id_drop(gid_port_);
		if (guid_port_)
			srpt_core_port_id_drop(guid_port_);
		CloseAll();
		host_.Stop();
		host::SetTracing(false);
	}

	/* What the kernel would deliver: DREQ/DREP, then the flushed ZLW. */
	static void CloseAll()
	{
		for (host::FakeCh *f : host::FakeChannels()) {
			if (f->destroyed)
				continue;
			auto *ch = static_cast<Channel *>(f->args.core_ch);
			srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
			srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
			if (f->zlw_posted)
				srpt_core_dp_zlw_done(ch, false);
		}
		host::RunPendingWork();
	}

	void EnableGidPort()
	{
		ASSERT_EQ(srpt_core_port_id_make(kGidName, &gid_port_), 0);
		ASSERT_EQ(srpt_core_tpg_enable(gid_port_, true), 0);
	}

	int Login(const std::vector<uint8_t> &pdata, void *cm_id)
	{
		return srpt_core_dp_rdma_cm_req(
		    device_, 1, cm_id, pdata.data(),
		    static_cast<uint32_t>(pdata.size()), kSrcAddr);
	}

	/*
	 * Fails the nth allocation of a login for every n the login makes:
	 * each failed login leaves nothing behind and is rejected on the CM
	 * it came from; a login that made it is closed again.
	 */
	template <typename LoginFn>
	void FailEachLoginAllocation(LoginFn &&login, srpt_dp_cm cm)
	{
		for (size_t nth = 1; nth < 12; nth++) {
			const size_t before = host::OutstandingAllocations();
			host::FailNthAllocation(nth);
			const int rc = login(&cm_ids_[nth % 4]);
			host::FailNthAllocation(0);
			if (rc == 0) {
				CloseAll();
				continue;
			}
			EXPECT_EQ(host::OutstandingAllocations(), before)
			    << nth;
			ASSERT_FALSE(host::Rejections().empty()) << nth;
			EXPECT_EQ(host::Rejections().back().cm, cm) << nth;
		}
	}

	/* A logged-in, live channel. */
	Channel *LiveChannel(uint8_t flags = 0x80)
	{
		EnableGidPort();
		host::Script().acl_names = {kInitiator};
		EXPECT_EQ(Login(LoginReqRdma(flags), &cm_ids_[0]), 0);
		EXPECT_EQ(host::FakeChannels().size(), 1u);
		if (host::FakeChannels().empty())
			return nullptr;
		auto *ch = static_cast<Channel *>(
		    host::FakeChannels().back()->args.core_ch);
		srpt_core_dp_cm_event(ch, SRPT_DP_CM_ESTABLISHED);
		return ch;
	}

	static uint32_t LoginRejReasonOf(const std::vector<uint8_t> &rej)
	{
		return rej.size() >= 8
			   ? static_cast<uint32_t>(GetBe(&rej[4], 4))
			   : 0;
	}

	/* Writes @iu into a posted receive buffer and completes it. */
	static void Receive(Channel *ch, const std::vector<uint8_t> &iu,
			    uint32_t index)
	{
		RecvCtx &r = (*ch->core().recv_ring())[index];
		std::memcpy(r.buf(), iu.data(), iu.size());
		srpt::host::RecvDone(ch, index,
				       static_cast<uint32_t>(iu.size()), true);
	}

	/*
	 * Answers every command glue channel @f submitted GOOD; then every
	 * send context is back.
	 */
	static void AnswerAllGood(Channel *ch, const host::FakeCh &f)
	{
		for (const uint32_t idx : f.submitted_index)
			AnswerGood(ch, idx);
		ExpectSendContextsFree(ch);
	}

	/* Answers command @index GOOD and completes the response's send. */
	static void AnswerGood(Channel *ch, uint32_t index)
	{
		srpt_dp_rsp rsp{};
		ASSERT_EQ(srpt_core_dp_queue_response(ch, index, &rsp), 0);
		srpt::host::SendDone(ch, index, true);
	}

	/* Every send context is back in the pool. */
	static void ExpectSendContextsFree(Channel *ch)
	{
		srpt_dp_stats st{};
		srpt_core_dp_get_stats(ch, &st);
		EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
	}

	/* Every answer completed: all 128 credits and send contexts back. */
	static void ExpectCreditsAndSendContextsBack(Channel *ch)
	{
		srpt_dp_stats st{};
		srpt_core_dp_get_stats(ch, &st);
		EXPECT_EQ(st.req_lim, 128);
		ExpectSendContextsFree(ch);
	}

	/*
	 * One send context: a live channel gets two commands, the second
	 * waits for the first's send completion, both are answered, then
	 * the port is disabled. nullptr if a step went wrong (reported).
	 */
	Channel *TwoCommandsThroughOneSendContext()
	{
		host::Script().send_ctx_limit = 1;
		Channel *ch = LiveChannel();
		if (!ch)
			return nullptr;
		host::FakeCh &f = *host::FakeChannels()[0];
		Receive(ch, TestUnitReady(1), 0);
		Receive(ch, TestUnitReady(2), 1); /* no send context: waits */
		srpt_dp_rsp rsp{};
		for (size_t i = 0; i < 2; i++) {
			EXPECT_EQ(f.submitted.size(), i + 1);
			if (f.submitted.size() != i + 1)
				return nullptr;
			EXPECT_EQ(srpt_core_dp_queue_response(
				      ch, f.submitted_index[i], &rsp),
				  0);
			srpt::host::SendDone(ch, f.submitted_index[i], true);
			(void)host::RunPendingWork(); /* the kick */
		}
		EXPECT_EQ(srpt_core_tpg_enable(gid_port_, false), 0);
		return ch;
	}

	HostDevice host_;
	srpt_core_device *device_ = nullptr;
	srpt_core_port_id *gid_port_ = nullptr;
	srpt_core_port_id *guid_port_ = nullptr;
	int cm_ids_[4] = {};
	size_t baseline_ = 0;
};

} // namespace srpt::dp_test

#endif
