// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rings of I/O contexts, the send-context pool, receive posting with and
 * without an SRQ, and the return of receive contexts at channel release.
 */
#include "channel_harness.hpp"
#include "test_support.hpp"

namespace srpt::test
{
namespace
{

TEST(IoctxRing, InitAllocatesZeroedBuffersAndDestroyFreesAll)
{
	const size_t before = host::OutstandingAllocations();
	RecvRing ring;
	ASSERT_EQ(ring.Init(8, 100, Gfp::kKernel), Status::kOk);
	EXPECT_EQ(ring.size(), 8u);
	EXPECT_EQ(host::OutstandingAllocations(), before + 9);
	for (uint32_t i = 0; i < ring.size(); i++) {
		EXPECT_EQ(ring[i].index(), i);
		EXPECT_EQ(ring[i].buf_size(), 100u);
		EXPECT_EQ(ring[i].state(), RecvState::kIdle);
		for (uint32_t b = 0; b < 100; b++)
			ASSERT_EQ(ring[i].buf()[b], 0);
		EXPECT_TRUE(ring.Contains(&ring[i]));
	}
	RecvCtx stranger;
	EXPECT_FALSE(ring.Contains(&stranger));
	ring.Destroy();
	EXPECT_TRUE(ring.empty());
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

/* ioctx_ring.hpp: why immediate data must start on a page boundary. */
TEST(IoctxRing, AlignedRingPlacesTheGivenByteOnTheBoundary)
{
	const size_t before = host::OutstandingAllocations();
	for (uint32_t off : {52u, 68u, 100u, 4095u, 4096u, 8000u}) {
		RecvRing ring;
		ASSERT_EQ(
		    ring.Init(16, 8276, Gfp::kKernel, {off, kImmDataAlignment}),
		    Status::kOk);
		for (uint32_t i = 0; i < ring.size(); i++) {
			uint8_t *buf = ring[i].buf();
			EXPECT_EQ(reinterpret_cast<uintptr_t>(buf + off) %
				      kImmDataAlignment,
				  0u)
			    << "offset " << off << " buffer " << i;
			EXPECT_EQ(ring[i].buf_size(), 8276u);
			/* The whole IU is inside the allocation and zeroed
			 * (ASan checks the bounds). */
			for (uint32_t b = 0; b < 8276; b++)
				ASSERT_EQ(buf[b], 0);
			std::memset(buf, 0xa5, 8276);
		}
		ring.Destroy();
	}
	EXPECT_EQ(host::OutstandingAllocations(), before);
	RecvRing bad;
	EXPECT_EQ(bad.Init(4, 64, Gfp::kKernel, {64, 4096}), Status::kInvalid);
	EXPECT_EQ(bad.Init(4, 64, Gfp::kKernel, {4, 3000}), Status::kInvalid);
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

TEST(IoctxRing, EveryAllocationFailureUnwindsCompletely)
{
	const size_t before = host::OutstandingAllocations();
	for (size_t nth = 1; nth <= 5; nth++) {
		SendRing ring;
		host::FailNthAllocation(nth);
		EXPECT_EQ(ring.Init(4, 64, Gfp::kKernel), Status::kNoMemory)
		    << "failure " << nth;
		host::FailNthAllocation(0);
		EXPECT_TRUE(ring.empty());
		EXPECT_EQ(host::OutstandingAllocations(), before);
	}
}

TEST(IoctxRing, SizeOverflowAndZeroAreRejected)
{
	SendRing ring;
	EXPECT_EQ(ring.Init(0, 64, Gfp::kKernel), Status::kInvalid);
	EXPECT_EQ(ring.Init(4, 0, Gfp::kKernel), Status::kInvalid);
	if constexpr (sizeof(size_t) == 4) {
		EXPECT_EQ(ring.Init(0xffffffffu, 64, Gfp::kKernel),
			  Status::kNoMemory);
	}
}

TEST(SendCtxPool, LifoGetPut)
{
	SendRing ring;
	ASSERT_EQ(ring.Init(3, 32, Gfp::kKernel), Status::kOk);
	SendCtxPool pool;
	pool.Init(ring, 0);
	EXPECT_EQ(pool.total(), 3u);
	EXPECT_EQ(pool.free_count(), 3u);
	SendCtx *a = pool.Get();
	SendCtx *b = pool.Get();
	SendCtx *c = pool.Get();
	EXPECT_EQ(a->index(), 0u);
	EXPECT_EQ(b->index(), 1u);
	EXPECT_EQ(c->index(), 2u);
	EXPECT_EQ(pool.Get(), nullptr);
	EXPECT_TRUE(pool.empty());
	pool.Put(*b);
	EXPECT_EQ(pool.Get(), b) << "most recently freed first";
	pool.Put(*a);
	pool.Put(*b);
	pool.Put(*c);
	EXPECT_EQ(pool.free_count(), 3u);
	ring.Destroy();
}

TEST(SendCtxPool, LimitShrinksThePool)
{
	SendRing ring;
	ASSERT_EQ(ring.Init(8, 32, Gfp::kKernel), Status::kOk);
	SendCtxPool pool;
	pool.Init(ring, 2);
	EXPECT_EQ(pool.total(), 2u);
	EXPECT_NE(pool.Get(), nullptr);
	EXPECT_NE(pool.Get(), nullptr);
	EXPECT_EQ(pool.Get(), nullptr);
	ring.Destroy();
}

TEST(IuClass, OpcodesAndImmediateData)
{
	uint8_t iu[16] = {};
	iu[0] = kOpCmd;
	EXPECT_EQ(ClassifySrpIu(iu, 16).kind, IuKind::kCmd);
	EXPECT_FALSE(ClassifySrpIu(iu, 16).keeps_buffer);
	iu[5] = 0x31; /* data-out immediate, data-in direct */
	EXPECT_TRUE(ClassifySrpIu(iu, 16).keeps_buffer);
	EXPECT_FALSE(ClassifySrpIu(iu, 5).keeps_buffer)
	    << "byte 5 not received";
	iu[5] = 0x13; /* data-in nibble 3 is not immediate data-out */
	EXPECT_FALSE(ClassifySrpIu(iu, 16).keeps_buffer);
	iu[0] = kOpTskMgmt;
	EXPECT_EQ(ClassifySrpIu(iu, 16).kind, IuKind::kTaskMgmt);
	iu[0] = kOpILogout;
	EXPECT_EQ(ClassifySrpIu(iu, 16).kind, IuKind::kLogout);
	iu[0] = kOpCredRsp;
	EXPECT_EQ(ClassifySrpIu(iu, 16).kind, IuKind::kCredRsp);
	iu[0] = kOpAerRsp;
	EXPECT_EQ(ClassifySrpIu(iu, 16).kind, IuKind::kAerRsp);
	iu[0] = 0xc1; /* SRP_RSP from an initiator */
	EXPECT_EQ(ClassifySrpIu(iu, 16).kind, IuKind::kOther);
	EXPECT_EQ(ClassifySrpIu(iu, 0).kind, IuKind::kOther);
	EXPECT_FALSE(ConsumesCredit(IuKind::kCredRsp));
	EXPECT_FALSE(ConsumesCredit(IuKind::kAerRsp));
	EXPECT_FALSE(ConsumesCredit(IuKind::kLogout));
	EXPECT_FALSE(ConsumesCredit(IuKind::kOther));
	EXPECT_TRUE(ConsumesCredit(IuKind::kCmd));
	EXPECT_TRUE(ConsumesCredit(IuKind::kTaskMgmt));
}

TEST(RecvRing, OwnRingPostedAtSetupAndRepostedAfterEachIu)
{
	Harness h(Harness::Config(4, 8));
	EXPECT_EQ(h.own_rq.size(), 4u);
	ASSERT_TRUE(h.core.OnRtu());
	RecvCtx *r = h.Deliver(kOpCmd, 1);
	EXPECT_EQ(r->state(), RecvState::kPosted);
	EXPECT_EQ(h.own_rq.size(), 4u);
	EXPECT_EQ(h.own_rq.back(), r);
	ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
	h.CompleteNext();
	h.Teardown();
}

TEST(RecvRing, FailedRepostIsCountedNotIgnored)
{
	Harness h(Harness::Config(4, 8));
	ASSERT_TRUE(h.core.OnRtu());
	h.fail_next_post_recv = Status::kIo;
	RecvCtx *r = h.Deliver(kOpILogout, 1);
	EXPECT_EQ(r->state(), RecvState::kIdle);
	EXPECT_EQ(h.core.Stats().post_recv_failures, 1u);
	h.Teardown();
}

TEST(RecvRing, FlushedReceivesOfOwnRingGoIdle)
{
	Harness h(Harness::Config(2, 8));
	ASSERT_TRUE(h.core.OnRtu());
	ASSERT_TRUE(h.core.Disconnect());
	RecvCtx *r = h.own_rq.front();
	h.own_rq.pop_front();
	h.RecvDone(*r, 0, false);
	EXPECT_EQ(r->state(), RecvState::kIdle);
	EXPECT_EQ(h.core.Stats().recv_errors, 1u);
	h.Teardown();
}

TEST(Srq, ChannelsShareTheRingAndFailedReceivesGoBack)
{
	FakeSrq srq(6);
	EXPECT_EQ(srq.posted.size(), 6u);
	{
		Harness a(Harness::Config(2, 8), &srq);
		Harness b(Harness::Config(2, 8), &srq);
		EXPECT_TRUE(a.core.use_srq());
		ASSERT_TRUE(a.core.OnRtu());
		ASSERT_TRUE(b.core.OnRtu());
		a.Deliver(kOpCmd, 1);
		b.Deliver(kOpCmd, 2);
		EXPECT_EQ(srq.posted.size(), 6u);
		RecvCtx *r = srq.posted.front();
		srq.posted.pop_front();
		b.RecvDone(*r, 0, false); /* flushed by b's QP */
		EXPECT_EQ(r->state(), RecvState::kPosted) << "lost to the SRQ";
		EXPECT_EQ(srq.posted.size(), 6u);
		ASSERT_EQ(a.Respond(a.served[0].s), Status::kOk);
		ASSERT_EQ(b.Respond(b.served[0].s), Status::kOk);
		a.CompleteNext();
		b.CompleteNext();
		a.Teardown();
		b.Teardown();
	}
	EXPECT_EQ(srq.posted.size(), 6u);
}

/* 6.1 leaves these on the dead channel's list: the SRQ shrinks for good. */
TEST(Srq, ReceiveContextsWaitingAtReleaseGoBackToTheSrq)
{
	FakeSrq srq(8);
	{
		Harness h(Harness::Config(4, 8, /*send_ctx_limit=*/1), &srq);
		ASSERT_TRUE(h.core.OnRtu());
		for (uint64_t t = 1; t <= 3; t++)
			h.Deliver(kOpCmd, t);
		h.Deliver(kOpILogout, 4);
		EXPECT_EQ(h.core.Stats().wait_depth, 3u);
		EXPECT_EQ(srq.posted.size(), 5u);
		/* The command finishes; the channel goes away. */
		ASSERT_EQ(h.core.Disconnect(), true);
		ASSERT_EQ(h.Respond(h.served[0].s), Status::kOk);
		h.Teardown();
		EXPECT_EQ(h.ServedTags(), (std::vector<uint64_t>{1}));
	}
	EXPECT_EQ(srq.posted.size(), 8u);
	for (uint32_t i = 0; i < srq.ring.size(); i++)
		EXPECT_EQ(srq.ring[i].state(), RecvState::kPosted) << i;
}

TEST(Srq, HeldImmediateDataBufferReturnsAtRelease)
{
	FakeSrq srq(4);
	{
		Harness h(Harness::Config(2, 8), &srq);
		ASSERT_TRUE(h.core.OnRtu());
		RecvCtx *r = h.Deliver(kOpCmd, 1, /*imm=*/true);
		EXPECT_EQ(r->state(), RecvState::kHeldByCmd);
		EXPECT_EQ(srq.posted.size(), 3u);
		ASSERT_EQ(h.core.Disconnect(), true);
		h.core.AbortedTask(*h.served[0].s);
		h.core.ReleaseCmd(*h.served[0].s);
		EXPECT_EQ(r->state(), RecvState::kPosted);
		h.Teardown();
	}
	EXPECT_EQ(srq.posted.size(), 4u);
}

TEST(ChannelCoreSetup, InitFailuresLeaveNothingAllocated)
{
	const size_t before = host::OutstandingAllocations();
	for (size_t nth = 1; nth <= 12; nth++) {
		TestCore core{FakeEnv{nullptr}};
		host::FailNthAllocation(nth);
		Status st = core.Init(Harness::Config(4, 8), Gfp::kKernel);
		host::FailNthAllocation(0);
		if (IsOk(st)) {
			EXPECT_GT(nth, 10u);
			core.Destroy();
			continue;
		}
		EXPECT_EQ(st, Status::kNoMemory);
		EXPECT_EQ(host::OutstandingAllocations(), before) << nth;
	}
}

TEST(ChannelCoreSetup, BadConfigIsRejected)
{
	TestCore core{FakeEnv{nullptr}};
	ChannelConfig cfg = Harness::Config(4, 8);
	cfg.credits = 0;
	EXPECT_EQ(core.Init(cfg, Gfp::kKernel), Status::kInvalid);
	cfg = Harness::Config(4, 2);
	EXPECT_EQ(core.Init(cfg, Gfp::kKernel), Status::kInvalid);
	cfg = Harness::Config(4, 8);
	cfg.req_buf_size = 0;
	EXPECT_EQ(core.Init(cfg, Gfp::kKernel), Status::kInvalid);
}

} // namespace
} // namespace srpt::test
