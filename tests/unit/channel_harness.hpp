/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A fake environment for ChannelCore: an HCA with a receive queue (or a
 * shared SRQ) and an in-order send queue whose completions the test
 * delivers when it wants, a target core that records what it was handed,
 * and the host platform's deterministic work queue for the wait-list kick.
 *
 * IUs written by the tests: byte 0 is the SRP opcode, byte 5 the buf_fmt
 * of SRP_CMD (0x30 = immediate data-out), bytes 8..15 a tag (host order)
 * that the tests use to check the order of service.
 */
#ifndef SRPT_TEST_CHANNEL_HARNESS_HPP
#define SRPT_TEST_CHANNEL_HARNESS_HPP

#include <gtest/gtest.h>
#include <srpt/datapath/channel_core.hpp>
#include <srpt/datapath/iu_class.hpp>
#include <srpt/host_platform.hpp>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <ostream>
#include <vector>

namespace srpt
{
/* Readable Status values in gtest messages. */
inline void PrintTo(Status s, std::ostream *os)
{
	*os << "Status(" << static_cast<int>(s) << ")";
}
inline void PrintTo(ChannelState s, std::ostream *os)
{
	*os << ChannelStateName(s);
}
} // namespace srpt

namespace srpt::test
{

inline constexpr uint8_t kOpTskMgmt = 0x01;
inline constexpr uint8_t kOpCmd = 0x02;
inline constexpr uint8_t kOpILogout = 0x03;
inline constexpr uint8_t kOpCredRsp = 0x41;
inline constexpr uint8_t kOpAerRsp = 0x42;
inline constexpr uint8_t kOpUnknown = 0x77;

inline uint64_t IuTag(const RecvCtx &r)
{
	uint64_t tag = 0;
	if (r.byte_len() >= 16)
		std::memcpy(&tag, r.buf() + 8, sizeof(tag));
	return tag;
}

struct Harness;

/* The environment the core is instantiated with. */
struct FakeEnv {
	Harness *h;

	IuClass ClassifyIu(const RecvCtx &r);
	Status PostRecv(RecvCtx &r);
	Status PostResponse(SendCtx &s, uint32_t n_rdma, int32_t delta);
	Status PostRdmaRead(SendCtx &s, uint32_t n);
	Status PostZeroLengthWrite();
	void PutCmd(SendCtx &s);
	void KickWaitList();
	void ResponseLost();
	void StateChanged(ChannelState from, ChannelState to);
};

using TestCore = ChannelCore<FakeEnv>;

/* A device-wide shared receive queue. */
struct FakeSrq {
	RecvRing ring;
	std::deque<RecvCtx *> posted;

	explicit FakeSrq(uint32_t size, uint32_t buf_size = 64)
	{
		EXPECT_EQ(ring.Init(size, buf_size, Gfp::kKernel), Status::kOk);
		EXPECT_EQ(PostIdleReceives(ring,
					   [this](RecvCtx &r) {
						   posted.push_back(&r);
						   return Status::kOk;
					   }),
			  Status::kOk);
	}
	~FakeSrq() { ring.Destroy(); }
};

enum class WrKind { kResponse, kRdmaRead, kZlw };

struct PostedWr {
	WrKind kind;
	SendCtx *s;
	uint32_t n;		/* RDMA WRs (chained writes or reads) */
	int32_t delta;		/* REQ_LIM_DELTA of a response */
	uint64_t tag;		/* tag of the command it belongs to */
	bool delivered = false; /* the initiator has seen the response */
};

struct Served {
	IuKind kind;
	uint64_t tag;
	SendCtx *s;
};

/* A move of the channel state, as the core reported it. */
struct StateMove {
	ChannelState from;
	ChannelState to;
	bool operator==(const StateMove &) const = default;
};

struct Harness {
	TestCore core{FakeEnv{this}};
	FakeSrq *srq = nullptr;
	std::deque<RecvCtx *> own_rq;
	std::deque<PostedWr> sq;
	std::vector<Served> served;
	std::vector<SendCtx *> executed, failed, puts;
	std::vector<uint64_t> tag_of; /* tag of the IU behind each send ctx */
	/* PutCmd drops the last reference (LIO calls release_cmd inside). */
	bool put_releases = true;
	std::vector<SendCtx *> refs_held; /* PutCmd done, last ref not yet */
	/* Next post_send / post_recv fails with this status (once). */
	Status fail_next_post_send = Status::kOk;
	Status fail_next_post_recv = Status::kOk;
	std::function<void(SendCtx &, RecvCtx &)> on_submit;
	std::function<void(RecvCtx &)> on_other;
	std::function<void(SendCtx &)> on_execute, on_fail;
	/*
	 * Runs first in every hand-off (SubmitCmd, SubmitTaskMgmt,
	 * HandleOtherIu), before it is recorded: the core has dropped its
	 * lock, other contexts may act.
	 */
	std::function<void()> on_handoff;
	/*
	 * Runs first in every post (receive, response, RDMA READ), which the
	 * core makes after dropping its lock: other contexts may act.
	 */
	std::function<void()> on_post;
	/* Replaces the default PutCmd behaviour (put_releases). */
	std::function<void(SendCtx &)> on_put;
	int kicks = 0;
	int responses_lost = 0; /* ResponseLost calls (the channel disconnects) */
	/* Every state move, in order (StateChanged, under the core's lock). */
	std::vector<StateMove> state_moves;
	/*
	 * Runs in StateChanged, with the core's lock held: it may look at the
	 * harness, not call into the core.
	 */
	std::function<void(ChannelState, ChannelState)> on_state_change;
	alignas(SRPT_WORK_ALIGN) unsigned char work[SRPT_WORK_SIZE];
	bool destroyed = false;

	static constexpr uint32_t kReqBuf = 64;
	static constexpr uint32_t kRspBuf = 64;

	static ChannelConfig Config(uint32_t credits, uint32_t sq_size,
				    uint32_t send_ctx_limit = 0)
	{
		ChannelConfig cfg;
		cfg.credits = credits;
		cfg.send_ctx_limit = send_ctx_limit;
		cfg.rsp_buf_size = kRspBuf;
		cfg.req_buf_size = kReqBuf;
		cfg.sq_size = sq_size;
		cfg.name = "test";
		return cfg;
	}

	explicit Harness(ChannelConfig cfg, FakeSrq *shared = nullptr)
	    : srq(shared)
	{
		srpt_work_init(work, &Harness::WorkFn, this, SRPT_WORK_TEST);
		if (srq)
			cfg.srq_ring = &srq->ring;
		EXPECT_EQ(core.Init(cfg, Gfp::kKernel), Status::kOk);
		tag_of.assign(core.send_ring().size(), 0);
		EXPECT_EQ(core.PostInitialReceives(), Status::kOk);
	}

	~Harness()
	{
		srpt_work_cancel_sync(work);
		if (!destroyed)
			core.Destroy();
	}

	/* The kick work item, as the glue's: the core's hand-offs. */
	static void WorkFn(void *ctx)
	{
		Harness *h = static_cast<Harness *>(ctx);
		Handoff ho;
		if (h->core.ProcessWaitList(ho))
			h->RunHandoffs(ho);
	}

	/*
	 * What the glue does: hands each IU the core returns to the target
	 * core (or its own answer), then gives it back, until none is left.
	 */
	void RunHandoffs(Handoff &ho)
	{
		bool next;
		do {
			HandOff(ho);
			/*
			 * HandoffDone takes the next IU under the lock, then
			 * posts the receive buffer it got back without it.
			 */
			in_handoff_done++;
			next = core.HandoffDone(ho);
			in_handoff_done--;
		} while (next);
	}
	/* Inside HandoffDone: an IU it returns was taken already. */
	int in_handoff_done = 0;
	void HandOff(const Handoff &ho)
	{
		switch (ho.kind) {
		case IuKind::kCmd:
			SubmitCmd(*ho.s, *ho.r);
			break;
		case IuKind::kTaskMgmt:
			SubmitTaskMgmt(*ho.s, *ho.r);
			break;
		default:
			HandleOtherIu(*ho.r);
			break;
		}
	}
	void SubmitCmd(SendCtx &s, RecvCtx &r);
	void SubmitTaskMgmt(SendCtx &s, RecvCtx &r);
	void HandleOtherIu(RecvCtx &r);
	void ExecuteCmd(SendCtx &s);
	void FailCmd(SendCtx &s);
	/* The fabric's reference dropped (transport_generic_free_cmd). */
	void PutCmd(SendCtx &s);

	/* A receive completion, as the glue takes it. */
	void RecvDone(RecvCtx &r, uint32_t byte_len, bool ok)
	{
		Handoff ho;
		if (core.OnRecvDone(r, byte_len, ok, ho))
			RunHandoffs(ho);
	}
	/* A send completion in process context, as the glue takes it. */
	void SendDone(SendCtx &s, bool ok)
	{
		if (core.OnSendDone(s, ok) == srpt::SendDone::kPutCmd)
			PutCmd(s);
	}
	/* False: refused (the caller goes on in process context). */
	bool SendDoneAtomic(SendCtx &s)
	{
		const srpt::SendDone next = core.OnSendDoneAtomic(s);
		if (next == srpt::SendDone::kPutCmd)
			PutCmd(s);
		return next != srpt::SendDone::kRefused;
	}
	void RdmaReadDone(SendCtx &s, bool ok)
	{
		switch (core.OnRdmaReadDone(s, ok)) {
		case DataOut::kExecute:
			ExecuteCmd(s);
			break;
		case DataOut::kFail:
			FailCmd(s);
			break;
		case DataOut::kNothing:
			break;
		}
	}
	/* LIO's write_pending, as the glue takes it. */
	Status WritePending(SendCtx &s, uint32_t n)
	{
		DataOut next;
		const Status st = core.WritePending(s, n, next);
		if (next == DataOut::kExecute)
			ExecuteCmd(s);
		return st;
	}

	std::deque<RecvCtx *> &rq() { return srq ? srq->posted : own_rq; }

	/* The initiator's IU lands in the next posted receive buffer. */
	RecvCtx *Deliver(uint8_t opcode, uint64_t tag, bool imm = false,
			 uint32_t len = 32)
	{
		EXPECT_FALSE(rq().empty()) << "no receive posted (RNR)";
		if (rq().empty())
			return nullptr;
		RecvCtx *r = rq().front();
		rq().pop_front();
		std::memset(r->buf(), 0, r->buf_size());
		if (len > 0)
			r->buf()[0] = opcode;
		r->buf()[5] = imm ? 0x30 : 0x00;
		std::memcpy(r->buf() + 8, &tag, sizeof(tag));
		RecvDone(*r, len, true);
		return r;
	}

	/* Completes the oldest posted WR (an RC send queue completes in order).
	 */
	PostedWr CompleteNext(bool ok = true)
	{
		EXPECT_FALSE(sq.empty()) << "no WR posted";
		if (sq.empty())
			return {WrKind::kZlw, nullptr, 0, 0, 0};
		PostedWr wr = sq.front();
		sq.pop_front();
		switch (wr.kind) {
		case WrKind::kResponse:
			SendDone(*wr.s, ok);
			break;
		case WrKind::kRdmaRead:
			RdmaReadDone(*wr.s, ok);
			break;
		case WrKind::kZlw:
			last_zlw = core.OnZeroLengthWriteDone(ok);
			break;
		}
		return wr;
	}

	/*
	 * Completes the oldest posted WR, a successful response, as the
	 * kernel's send CQ does in softirq (OnSendDoneAtomic). A completion
	 * the core refuses there goes to process context, as the glue's
	 * wc_work takes it (OnSendDone). Returns whether the atomic path
	 * took it.
	 */
	bool CompleteNextAtomic()
	{
		EXPECT_FALSE(sq.empty()) << "no WR posted";
		if (sq.empty())
			return false;
		PostedWr wr = sq.front();
		EXPECT_EQ(wr.kind, WrKind::kResponse) << "not a response";
		if (wr.kind != WrKind::kResponse)
			return false;
		sq.pop_front();
		if (SendDoneAtomic(*wr.s))
			return true;
		SendDone(*wr.s, true);
		return false;
	}

	/* The target core drops its last reference on a command. */
	void DropLastRef(SendCtx *s)
	{
		for (auto it = refs_held.begin(); it != refs_held.end(); ++it) {
			if (*it == s) {
				refs_held.erase(it);
				core.ReleaseCmd(*s);
				return;
			}
		}
		ADD_FAILURE() << "no reference held on send ctx " << s->index();
	}

	size_t RunWork() { return host::RunPendingWork(); }

	std::vector<uint64_t> ServedTags() const
	{
		std::vector<uint64_t> tags;
		for (const Served &sv : served)
			tags.push_back(sv.tag);
		return tags;
	}

	/* Responds to the command of @s (status only). */
	Status Respond(SendCtx *s, uint32_t n_rdma = 0,
		       QueueFullPolicy p = QueueFullPolicy::kReturnQueueFull)
	{
		EXPECT_NE(s, nullptr) << "no such command";
		if (!s)
			return Status::kInvalid;
		return core.QueueResponse(*s, n_rdma, p);
	}

	void ExpectInvariants()
	{
		const char *broken = core.CheckInvariants();
		EXPECT_TRUE(broken == nullptr) << broken;
	}

	/*
	 * Orderly end of the channel: disconnect, flush the QP, release and
	 * free. Every command must have been released by then.
	 */
	void Teardown()
	{
		core.Disconnect();
		EXPECT_EQ(core.PostDrainWrite(), Status::kOk);
		while (!sq.empty())
			CompleteNext(false);
		EXPECT_EQ(last_zlw, ZlwOutcome::kReleaseChannel);
		if (!srq) {
			while (!own_rq.empty()) {
				RecvCtx *r = own_rq.front();
				own_rq.pop_front();
				RecvDone(*r, 0, false);
			}
		}
		srpt_work_cancel_sync(work);
		EXPECT_EQ(core.Release(), 0u);
		core.Destroy();
		destroyed = true;
	}

	ZlwOutcome last_zlw = ZlwOutcome::kNothing;
};

/* Lock round trips the calling thread takes in @fn. */
template <typename Fn>
uint64_t LocksOf(Fn &&fn)
{
	const uint64_t before = host::SpinLockAcquisitions();
	fn();
	return host::SpinLockAcquisitions() - before;
}

/*
 * A live channel with @credits credits, all used by commands 1..credits
 * (tags 1..credits), none answered yet.
 */
struct FullChannel : Harness {
	explicit FullChannel(uint32_t credits, uint32_t sq = 16)
	    : Harness(Config(credits, sq))
	{
		EXPECT_TRUE(core.OnRtu());
		for (uint32_t i = 1; i <= credits; i++)
			Deliver(kOpCmd, i);
		EXPECT_EQ(served.size(), credits);
		EXPECT_EQ(core.Stats().send_ctx_free, 0u);
		EXPECT_EQ(core.Stats().req_lim, 0);
	}
	SendCtx *CtxOf(uint64_t tag)
	{
		for (const Served &sv : served)
			if (sv.tag == tag)
				return sv.s;
		return nullptr;
	}
	/*
	 * The send-completion race: answers command @tag, and when that
	 * response is posted the initiator spends the credit it returned on
	 * command @next at once, before the send completes (@next waits
	 * when no send context is free). Respond()'s status.
	 */
	Status RespondThenDeliver(uint64_t tag, uint64_t next)
	{
		const Status st = Respond(CtxOf(tag));
		if (st == Status::kOk)
			Deliver(kOpCmd, next);
		return st;
	}
	/*
	 * Answers commands 1..credits, then the initiator spends every
	 * credit the responses returned at once, on commands credits+1 ..
	 * 2 * credits: they wait, no send context being free until a send
	 * completes. Respond()'s first failure, before any delivery.
	 */
	Status RespondAllThenSpendTheCredits()
	{
		const uint64_t n = static_cast<uint64_t>(core.login_credits());
		for (uint64_t t = 1; t <= n; t++) {
			const Status st = Respond(CtxOf(t));
			if (st != Status::kOk)
				return st;
		}
		for (uint64_t t = n + 1; t <= 2 * n; t++)
			Deliver(kOpCmd, t);
		return Status::kOk;
	}
};

inline IuClass FakeEnv::ClassifyIu(const RecvCtx &r)
{
	return ClassifySrpIu(r.buf(), r.byte_len());
}

/* Every post is made with the channel lock dropped (no ib_post_* under it). */
inline void ExpectUnlockedPost(Harness *h, const char *what)
{
	EXPECT_EQ(host::SpinLocksHeld(), 0) << what << " under the channel lock";
	if (h->on_post)
		h->on_post();
}

/* Takes the one-shot failure a test asked for (kOk: none). */
inline Status TakeFailure(Status &fail)
{
	const Status st = fail;
	fail = Status::kOk;
	return st;
}

/*
 * Each post decides its failure first, then lets other contexts run (the
 * post is made without the lock), then records the work request.
 */
inline Status FakeEnv::PostRecv(RecvCtx &r)
{
	const Status st = TakeFailure(h->fail_next_post_recv);
	ExpectUnlockedPost(h, "ib_post_recv");
	if (st != Status::kOk)
		return st;
	h->rq().push_back(&r);
	return Status::kOk;
}

inline Status FakeEnv::PostResponse(SendCtx &s, uint32_t n_rdma, int32_t delta)
{
	const Status st = TakeFailure(h->fail_next_post_send);
	ExpectUnlockedPost(h, "ib_post_send (response)");
	if (st != Status::kOk)
		return st;
	h->sq.push_back(
	    {WrKind::kResponse, &s, n_rdma, delta, h->tag_of[s.index()]});
	return Status::kOk;
}

inline Status FakeEnv::PostRdmaRead(SendCtx &s, uint32_t n)
{
	const Status st = TakeFailure(h->fail_next_post_send);
	ExpectUnlockedPost(h, "ib_post_send (RDMA READ)");
	if (st != Status::kOk)
		return st;
	h->sq.push_back({WrKind::kRdmaRead, &s, n, 0, h->tag_of[s.index()]});
	return Status::kOk;
}

inline Status FakeEnv::PostZeroLengthWrite()
{
	EXPECT_EQ(host::SpinLocksHeld(), 0) << "drain write under the lock";
	h->sq.push_back({WrKind::kZlw, nullptr, 0, 0, 0});
	return Status::kOk;
}

inline void Harness::SubmitCmd(SendCtx &s, RecvCtx &r)
{
	if (on_handoff)
		on_handoff();
	tag_of[s.index()] = IuTag(r);
	served.push_back({IuKind::kCmd, IuTag(r), &s});
	if (on_submit)
		on_submit(s, r);
}

inline void Harness::SubmitTaskMgmt(SendCtx &s, RecvCtx &r)
{
	if (on_handoff)
		on_handoff();
	tag_of[s.index()] = IuTag(r);
	served.push_back({IuKind::kTaskMgmt, IuTag(r), &s});
	if (on_submit)
		on_submit(s, r);
}

inline void Harness::HandleOtherIu(RecvCtx &r)
{
	if (on_handoff)
		on_handoff();
	served.push_back({r.iu_class().kind, IuTag(r), nullptr});
	if (on_other)
		on_other(r);
}

inline void Harness::ExecuteCmd(SendCtx &s)
{
	executed.push_back(&s);
	if (on_execute)
		on_execute(s);
}

inline void Harness::FailCmd(SendCtx &s)
{
	failed.push_back(&s);
	if (on_fail)
		on_fail(s);
}

inline void Harness::PutCmd(SendCtx &s)
{
	puts.push_back(&s);
	if (on_put)
		on_put(s);
	else if (put_releases)
		core.ReleaseCmd(s);
	else
		refs_held.push_back(&s);
}

inline void FakeEnv::PutCmd(SendCtx &s)
{
	h->PutCmd(s);
}

inline void FakeEnv::KickWaitList()
{
	h->kicks++;
	srpt_work_queue(h->work);
}

inline void FakeEnv::ResponseLost()
{
	h->responses_lost++;
}

inline void FakeEnv::StateChanged(ChannelState from, ChannelState to)
{
	h->state_moves.push_back({from, to});
	if (h->on_state_change)
		h->on_state_change(from, to);
}

} // namespace srpt::test

#endif
