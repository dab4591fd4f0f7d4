// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The channel core under real threads: a CQ thread (receive and send
 * completions), two target-core threads (responses, reference drops), the
 * kick work thread and an initiator thread that uses every credit it gets
 * back at once. The deterministic tests cover the interleavings one by
 * one; this one checks that the locking holds when they really overlap
 * (run it under ASan, or TSan by hand). Invariants at the end: every IU
 * served once and in order, every credit back, nothing leaked.
 */
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <srpt/datapath/channel_core.hpp>
#include <srpt/datapath/iu_class.hpp>

namespace srpt::test
{
namespace
{

template <typename T>
class Queue
{
public:
	void Push(T v)
	{
		{
			std::lock_guard<std::mutex> g(m_);
			q_.push_back(v);
		}
		cv_.notify_one();
	}
	/* Waits for an element; false once closed and empty. */
	bool Pop(T &out)
	{
		std::unique_lock<std::mutex> g(m_);
		cv_.wait(g, [this] { return !q_.empty() || closed_; });
		if (q_.empty())
			return false;
		out = q_.front();
		q_.pop_front();
		return true;
	}
	bool TryPop(T &out)
	{
		std::lock_guard<std::mutex> g(m_);
		if (q_.empty())
			return false;
		out = q_.front();
		q_.pop_front();
		return true;
	}
	void Close()
	{
		{
			std::lock_guard<std::mutex> g(m_);
			closed_ = true;
		}
		cv_.notify_all();
	}

private:
	std::mutex m_;
	std::condition_variable cv_;
	std::deque<T> q_;
	bool closed_ = false;
};

struct World;

struct ThreadEnv {
	World *w;
	IuClass ClassifyIu(const RecvCtx &r)
	{
		return ClassifySrpIu(r.buf(), r.byte_len());
	}
	Status PostRecv(RecvCtx &r);
	Status PostResponse(SendCtx &s, uint32_t n, int32_t delta);
	Status PostRdmaRead(SendCtx &, uint32_t) { return Status::kIo; }
	Status PostZeroLengthWrite() { return Status::kOk; }
	void PutCmd(SendCtx &s);
	void KickWaitList();
	/* PostResponse never fails here. */
	void ResponseLost() { ADD_FAILURE() << "a response was lost"; }
	void StateChanged(ChannelState, ChannelState) {}
};

struct CqEvent {
	bool recv;
	RecvCtx *r;
	SendCtx *s;
};

struct Rsp {
	SendCtx *s;
	int32_t delta;
};

struct World {
	static constexpr uint32_t kCredits = 8;
	ChannelCore<ThreadEnv> core{ThreadEnv{this}};
	std::mutex rq_mutex;
	std::deque<RecvCtx *> rq;
	Queue<CqEvent> cq;
	/* Split CQs (the kernel's): the ACKs, and what softirq refused. */
	Queue<SendCtx *> send_cq, wc;
	Queue<SendCtx *> lio;
	Queue<Rsp> to_initiator;
	Queue<int> kicks;
	std::mutex served_mutex;
	std::vector<uint64_t> served;
	std::vector<uint64_t> tag_of = std::vector<uint64_t>(kCredits);
	std::atomic<int> refs[kCredits];
	std::atomic<int32_t> held{kCredits};
	std::atomic<uint64_t> answered{0};

	void DropRef(SendCtx &s)
	{
		if (refs[s.index()].fetch_sub(1) == 1)
			core.ReleaseCmd(s);
	}
	/* The glue's part: the hand-offs the core returns, one by one. */
	void Submit(Handoff &h);
	void RunHandoffs(bool have, Handoff &h)
	{
		while (have) {
			Submit(h);
			have = core.HandoffDone(h);
		}
	}
	void SendDone(SendCtx &s)
	{
		if (core.OnSendDone(s, true) == srpt::SendDone::kPutCmd)
			DropRef(s);
	}
};

Status ThreadEnv::PostRecv(RecvCtx &r)
{
	std::lock_guard<std::mutex> g(w->rq_mutex);
	w->rq.push_back(&r);
	return Status::kOk;
}

Status ThreadEnv::PostResponse(SendCtx &s, uint32_t, int32_t delta)
{
	w->to_initiator.Push({&s, delta});
	return Status::kOk;
}

void World::Submit(Handoff &h)
{
	uint64_t tag;
	std::memcpy(&tag, h.r->buf() + 8, sizeof(tag));
	{
		std::lock_guard<std::mutex> g(served_mutex);
		served.push_back(tag);
	}
	refs[h.s->index()].store(2);
	lio.Push(h.s);
}

void ThreadEnv::PutCmd(SendCtx &s)
{
	w->DropRef(s);
}

void ThreadEnv::KickWaitList()
{
	w->kicks.Push(1);
}

/*
 * @split_cqs false: one CQ thread runs every completion in process context
 * (OnSendDone). true, as the kernel does: a receive CQ thread, a send CQ
 * thread standing for the softirq poller (OnSendDoneAtomic, never serving
 * the wait list itself), and a thread for what it refuses (the glue's
 * wc_work, OnSendDone), all beside each other.
 */
void RunRealConcurrency(bool split_cqs)
{
	constexpr uint64_t kIus = 20000;
	World w;
	ChannelConfig cfg;
	cfg.credits = World::kCredits;
	cfg.send_ctx_limit = 3; /* IUs must wait for send contexts */
	cfg.rsp_buf_size = 64;
	cfg.req_buf_size = 64;
	cfg.sq_size = 3; /* and responses for send-queue slots */
	ASSERT_EQ(w.core.Init(cfg, Gfp::kKernel), Status::kOk);
	ASSERT_EQ(w.core.PostInitialReceives(), Status::kOk);
	ASSERT_TRUE(w.core.OnRtu());

	std::thread cq_thread([&] {
		CqEvent ev;
		while (w.cq.Pop(ev)) {
			if (ev.recv) {
				Handoff h;
				w.RunHandoffs(w.core.OnRecvDone(*ev.r, 16, true, h),
					      h);
			} else {
				w.SendDone(*ev.s);
			}
		}
	});
	auto lio_fn = [&] {
		SendCtx *s;
		unsigned n = 0;
		while (w.lio.Pop(s)) {
			while (w.core.QueueResponse(
				   *s, 0, QueueFullPolicy::kReturnQueueFull) ==
			       kQueueFull)
				std::this_thread::yield(); /* LIO's qf retry */
			/* Sometimes the last reference goes after the ACK. */
			if (++n % 3 == 0)
				std::this_thread::sleep_for(
				    std::chrono::microseconds(20));
			w.DropRef(*s);
		}
	};
	std::thread send_cq_thread([&] {
		SendCtx *s;
		while (w.send_cq.Pop(s)) {
			const srpt::SendDone next = w.core.OnSendDoneAtomic(*s);
			if (next == srpt::SendDone::kRefused)
				w.wc.Push(s);
			else if (next == srpt::SendDone::kPutCmd)
				w.DropRef(*s);
		}
	});
	std::thread wc_thread([&] {
		SendCtx *s;
		while (w.wc.Pop(s))
			w.SendDone(*s);
	});
	std::thread lio1(lio_fn), lio2(lio_fn);
	std::thread kick_thread([&] {
		int k;
		while (w.kicks.Pop(k)) {
			Handoff h;
			w.RunHandoffs(w.core.ProcessWaitList(h), h);
		}
	});
	std::thread initiator([&] {
		uint64_t next = 1;
		while (w.answered.load() < kIus) {
			Rsp rsp;
			while (w.to_initiator.TryPop(rsp)) {
				w.held += rsp.delta;
				w.answered++;
				/* The ACK. */
				if (split_cqs)
					w.send_cq.Push(rsp.s);
				else
					w.cq.Push({false, nullptr, rsp.s});
			}
			if (next > kIus || w.held.load() == 0) {
				std::this_thread::yield();
				continue;
			}
			RecvCtx *r = nullptr;
			{
				std::lock_guard<std::mutex> g(w.rq_mutex);
				if (!w.rq.empty()) {
					r = w.rq.front();
					w.rq.pop_front();
				}
			}
			if (!r) {
				std::this_thread::yield(); /* RNR */
				continue;
			}
			w.held--;
			std::memset(r->buf(), 0, 16);
			r->buf()[0] = 0x02;
			std::memcpy(r->buf() + 8, &next, sizeof(next));
			next++;
			w.cq.Push({true, r, nullptr});
		}
	});
	initiator.join();
	/* Let the last completions and reference drops settle. */
	for (int i = 0; i < 2000; i++) {
		const ChannelStats st = w.core.Stats();
		if (st.send_ctx_free == st.send_ctx_total &&
		    st.sq_avail == st.sq_capacity)
			break;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	w.cq.Close();
	w.send_cq.Close();
	w.wc.Close();
	w.lio.Close();
	w.kicks.Close();
	cq_thread.join();
	send_cq_thread.join();
	wc_thread.join();
	lio1.join();
	lio2.join();
	kick_thread.join();

	const ChannelStats st = w.core.Stats();
	EXPECT_EQ(w.held.load(), static_cast<int32_t>(World::kCredits));
	EXPECT_EQ(st.req_lim, static_cast<int32_t>(World::kCredits));
	EXPECT_EQ(st.in_flight, 0);
	EXPECT_EQ(st.owed, 0);
	EXPECT_EQ(st.send_ctx_free, st.send_ctx_total);
	EXPECT_EQ(st.sq_avail, st.sq_capacity);
	EXPECT_EQ(st.wait_depth, 0u);
	EXPECT_GT(st.ius_waited, 0u);
	EXPECT_GT(st.kicks, 0u);
	EXPECT_GT(st.queue_full, 0u);
	EXPECT_TRUE(w.core.CheckInvariants() == nullptr)
	    << w.core.CheckInvariants();
	ASSERT_EQ(w.served.size(), kIus);
	for (uint64_t i = 0; i < kIus; i++)
		ASSERT_EQ(w.served[i], i + 1) << "served out of order";
	std::printf("[ threads  ] %s: %llu IUs, %llu waited, %llu kicks, %llu "
		    "queue-full retries\n",
		    split_cqs ? "split CQs" : "one CQ",
		    (unsigned long long)kIus, (unsigned long long)st.ius_waited,
		    (unsigned long long)st.kicks,
		    (unsigned long long)st.queue_full);
	(void)w.core.Disconnect();
	EXPECT_EQ(w.core.Release(), 0u);
	w.core.Destroy();
}

TEST(ChannelThreads, CreditsContextsAndOrderSurviveRealConcurrency)
{
	RunRealConcurrency(false);
}

TEST(ChannelThreads, SoftirqSendCompletionsKeepCreditsContextsAndOrder)
{
	RunRealConcurrency(true);
}

} // namespace
} // namespace srpt::test
