// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The freestanding runtime of the core: allocation, lists, locks, work. */
#include <gtest/gtest.h>
#include <srpt/alloc.hpp>
#include <srpt/hex_format.hpp>
#include <srpt/intrusive_list.hpp>
#include <srpt/lock.hpp>
#include <srpt/log.hpp>
#include <srpt/status.hpp>

#include "test_support.hpp"

namespace srpt
{
namespace
{

struct Widget : KernelAllocated {
	explicit Widget(int v) : value(v) {}
	int value;
	ListNode node;
	ListNode other_node;
};

TEST(Alloc, NewGoesThroughThePlatformAndIsFreed)
{
	const size_t before = host::OutstandingAllocations();
	Widget *w = new (Gfp::kKernel) Widget(7);
	ASSERT_NE(w, nullptr);
	EXPECT_EQ(w->value, 7);
	EXPECT_EQ(host::OutstandingAllocations(), before + 1);
	delete w;
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

/* A failed allocation yields nullptr and the constructor never runs. */
TEST(Alloc, FailedNewIsNullNotAWriteThroughNull)
{
	host::FailNthAllocation(1);
	Widget *w = new (Gfp::kAtomic) Widget(7);
	EXPECT_EQ(w, nullptr);
}

TEST(Alloc, ArrayIsZeroedAndOverflowIsRefused)
{
	uint32_t *a = AllocateArray<uint32_t>(16, Gfp::kKernel);
	ASSERT_NE(a, nullptr);
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(a[i], 0u);
	FreeArray(a);
	const size_t calls = host::AllocationCalls();
	EXPECT_EQ(AllocateArray<uint64_t>(SIZE_MAX / 4, Gfp::kKernel), nullptr);
	/* Refused before reaching the allocator. */
	EXPECT_EQ(host::AllocationCalls(), calls);
}

TEST(Alloc, SleepingAllocationUnderSpinlockIsReported)
{
	SpinLock lock(LockClass::kTest);
	test::ScopedExpectWarn expect;
	{
		SpinLockGuard guard(lock);
		Free(Allocate(8, Gfp::kKernel));
		Free(Allocate(8, Gfp::kAtomic));
	}
	ASSERT_EQ(expect.warnings().size(), 1u);
	EXPECT_EQ(expect.warnings()[0],
		  "GFP_KERNEL allocation while holding a spinlock");
}

TEST(IntrusiveList, FifoOrderAndMembership)
{
	Widget a(1), b(2), c(3);
	IntrusiveList<Widget, &Widget::node> list;
	EXPECT_TRUE(list.empty());
	list.push_back(a);
	list.push_back(b);
	list.push_front(c);
	EXPECT_EQ(list.size(), 3u);
	EXPECT_TRUE(b.node.InContainer());
	EXPECT_FALSE(b.other_node.InContainer());
	EXPECT_EQ(list.pop_front(), &c);
	list.erase(b);
	EXPECT_FALSE(b.node.InContainer());
	EXPECT_EQ(list.front(), &a);
	EXPECT_EQ(list.back(), &a);
	EXPECT_EQ(list.pop_front(), &a);
	EXPECT_EQ(list.pop_front(), nullptr);
}

TEST(IntrusiveList, OneObjectOnTwoListsThroughTwoNodes)
{
	Widget a(1), b(2);
	IntrusiveList<Widget, &Widget::node> first;
	IntrusiveList<Widget, &Widget::other_node> second;
	first.push_back(a);
	first.push_back(b);
	second.push_back(b);
	second.push_back(a);
	int sum = 0;
	first.ForEach([&](Widget &w) { sum = sum * 10 + w.value; });
	EXPECT_EQ(sum, 12);
	EXPECT_EQ(second.front(), &b);
	first.erase(a);
	first.erase(b);
	second.erase(a);
	second.erase(b);
}

TEST(IntrusiveList, DoubleInsertAndForeignEraseAreCaught)
{
	Widget a(1), b(2);
	IntrusiveList<Widget, &Widget::node> list;
	list.push_back(a);
	{
		test::ScopedExpectWarn expect;
		list.push_back(a);
		list.erase(b);
		EXPECT_EQ(expect.warnings().size(), 2u);
	}
	EXPECT_EQ(list.size(), 1u);
	list.erase(a);
}

TEST(IntrusiveList, SpliceKeepsOrder)
{
	Widget a(1), b(2), c(3);
	IntrusiveList<Widget, &Widget::node> x, y;
	x.push_back(a);
	y.push_back(b);
	y.push_back(c);
	x.splice_back(y);
	EXPECT_TRUE(y.empty());
	EXPECT_EQ(x.pop_front(), &a);
	EXPECT_EQ(x.pop_front(), &b);
	EXPECT_EQ(x.pop_front(), &c);
}

TEST(Locks, GuardReleasesAndCallUnlockedRelocks)
{
	SpinLock lock(LockClass::kTest);
	{
		SpinLockGuard guard(lock);
		EXPECT_EQ(host::SpinLocksHeld(), 1);
		guard.CallUnlocked([] { EXPECT_EQ(host::SpinLocksHeld(), 0); });
		EXPECT_EQ(host::SpinLocksHeld(), 1);
		guard.Release();
		EXPECT_EQ(host::SpinLocksHeld(), 0);
	}
	EXPECT_EQ(host::SpinLocksHeld(), 0);
	Mutex m(LockClass::kTest);
	{
		MutexGuard g(m);
	}
}

TEST(Locks, MutexUnderSpinlockIsReported)
{
	SpinLock lock(LockClass::kTest);
	Mutex m(LockClass::kTest);
	test::ScopedExpectWarn expect;
	{
		SpinLockGuard guard(lock);
		MutexGuard g(m);
	}
	EXPECT_EQ(expect.warnings().size(), 1u);
}

TEST(Work, RunsOnceWhenQueuedTwiceAndCancelStopsIt)
{
	alignas(SRPT_WORK_ALIGN) unsigned char work[SRPT_WORK_SIZE];
	int runs = 0;
	srpt_work_init(
	    work, [](void *ctx) { ++*static_cast<int *>(ctx); }, &runs,
	    SRPT_WORK_TEST);
	EXPECT_TRUE(srpt_work_queue(work));
	EXPECT_FALSE(srpt_work_queue(work));
	EXPECT_EQ(host::RunPendingWork(), 1u);
	EXPECT_EQ(runs, 1);
	EXPECT_TRUE(srpt_work_queue(work));
	EXPECT_TRUE(srpt_work_cancel_sync(work));
	EXPECT_EQ(host::RunPendingWork(), 0u);
	EXPECT_EQ(runs, 1);
}

/*
 * What lockdep reports on the check-debug kernel: a work item that cancels
 * one of its own class. The channel's release work cancels its kick work,
 * so the two need classes of their own.
 */
struct TwoWorks {
	alignas(SRPT_WORK_ALIGN) unsigned char outer[SRPT_WORK_SIZE];
	alignas(SRPT_WORK_ALIGN) unsigned char inner[SRPT_WORK_SIZE];
	alignas(SRPT_DELAYED_WORK_ALIGN) unsigned char delayed
	    [SRPT_DELAYED_WORK_SIZE];
	int cancels = 0;
};

TEST(Work, CancellingAWorkOfTheRunningWorksClassIsReported)
{
	TwoWorks w;
	auto cancel_inner = [](void *ctx) {
		auto *t = static_cast<TwoWorks *>(ctx);
		srpt_work_cancel_sync(t->inner);
		srpt_delayed_work_cancel_sync(t->delayed);
		t->cancels++;
	};
	srpt_work_init(w.outer, cancel_inner, &w, SRPT_WORK_TEST);
	srpt_work_init(
	    w.inner, [](void *) {}, nullptr, SRPT_WORK_TEST);
	srpt_delayed_work_init(
	    w.delayed, [](void *) {}, nullptr, SRPT_WORK_TEST_OTHER);
	{
		test::ScopedExpectWarn expect;
		srpt_work_queue(w.outer);
		EXPECT_EQ(host::RunPendingWork(), 1u);
		ASSERT_EQ(expect.warnings().size(), 1u);
		EXPECT_NE(
		    expect.warnings()[0].find("possible recursive locking"),
		    std::string::npos);
	}
	/* Another class each: nothing to report. */
	srpt_work_init(
	    w.inner, [](void *) {}, nullptr, SRPT_WORK_TEST_OTHER);
	srpt_work_queue(w.outer);
	EXPECT_EQ(host::RunPendingWork(), 1u);
	EXPECT_EQ(w.cancels, 2);
	/* Outside any work, a cancel is never reported. */
	srpt_work_init(
	    w.inner, [](void *) {}, nullptr, SRPT_WORK_TEST);
	srpt_work_cancel_sync(w.inner);
}

TEST(RateLimit, BurstThenSilenceThenCountOfSuppressed)
{
	LogRateLimit limit(1000, 3);
	uint32_t suppressed = 0;
	int allowed = 0;
	for (int i = 0; i < 10; i++)
		allowed += limit.Allow(5000, &suppressed);
	EXPECT_EQ(allowed, 3);
	EXPECT_TRUE(limit.Allow(6000, &suppressed));
	EXPECT_EQ(suppressed, 7u);
	EXPECT_TRUE(limit.Allow(6001, &suppressed));
	EXPECT_EQ(suppressed, 0u);
}

TEST(TextBuilder, TruncatesAndSaysSo)
{
	char buf[6];
	TextBuilder<6> t(buf);
	t.Str("0x").Hex(0xabcd, 4);
	EXPECT_STREQ(buf, "0xabc");
	EXPECT_TRUE(t.truncated());
}

TEST(Status, ResultCarriesValueOrError)
{
	Result<int> ok(5);
	Result<int> bad(Status::kRange);
	EXPECT_TRUE(ok.ok());
	EXPECT_EQ(*ok, 5);
	EXPECT_FALSE(bad.ok());
	EXPECT_EQ(ToNegativeErrno(bad.status()), -34);
	/* A Result cannot be "ok" without a value. */
	Result<int> odd(Status::kOk);
	EXPECT_FALSE(odd.ok());
}

} // namespace
} // namespace srpt
