// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Making the device's shared receive queue (attrib/use_srq,
 * include/srpt/srq.hpp): its size from srpt_srq_size and max_srq_wr, and
 * every failure while making it (the glue refuses, the device has no SRQ,
 * an allocation, a mapping or a post fails): nothing is left behind and
 * logins fall back to receive rings of their own.
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

TEST_F(SrqFixture, UseSrqCreatesTheSrqClampedToMaxSrqWr)
{
	Start(4095, 64);
	EXPECT_TRUE(host::FakeSrqs().empty());
	EXPECT_EQ(IocSendQueueDepth(), 128u); /* min(128, max_qp_wr) */
	ASSERT_EQ(SetUseSrq("1"), 0);
	ASSERT_EQ(host::FakeSrqs().size(), 1u);
	const host::FakeSrq &q = *host::FakeSrqs()[0];
	EXPECT_EQ(q.ib_device, &host_.ib_device);
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

} // namespace
} // namespace srpt
