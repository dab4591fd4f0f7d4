// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lifetime of the device's shared receive queue (include/srpt/srq.hpp):
 * use_srq off retires it until its channels are released, on again reuses
 * a retired one, SrqRef counts its users, the last reference of a retired
 * SRQ destroys it, and device removal destroys it after its channels.
 */
#include <gtest/gtest.h>
#include <srpt/core_api.h>
#include <srpt/host_datapath.hpp>
#include <srpt/host_platform.hpp>
#include <srpt/srq.hpp>

#include "srq_fixture.hpp"

#include <utility>

namespace srpt
{
namespace
{

using namespace dp_test;

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

TEST_F(SrqFixture, DeviceRemovalDestroysTheSrqAfterItsChannels)
{
	Start(4095, 16);
	ASSERT_EQ(SetUseSrq("1"), 0);
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	(void)RemoveDeviceWhileChannelCloses(device_, ch, f);
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
