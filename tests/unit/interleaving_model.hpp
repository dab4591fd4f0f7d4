/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The model of the interleaving checker (interleaving_checker.hpp): one
 * channel with an initiator, an RC queue pair (in order delivery both
 * ways, send completions in posting order and only after the peer received
 * the response), and a target core that executes, answers, aborts and
 * drops references. Model holds what each side holds and the events that
 * move it: the initiator sends an IU, an IU lands in a receive buffer, the
 * initiator receives a response, a send/RDMA/zero-length-write completion,
 * the target core moves a command on or aborts it or drops a reference,
 * the channel is disconnected. Which event runs when, and what must hold
 * after each, is the Checker's.
 */
#ifndef SRPT_TEST_INTERLEAVING_MODEL_HPP
#define SRPT_TEST_INTERLEAVING_MODEL_HPP

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "channel_harness.hpp"
#include "test_support.hpp"

namespace srpt::test::interleaving
{

struct Params {
	uint32_t credits;
	uint32_t send_ctx_limit;
	uint32_t sq_size;
	bool use_srq;
	uint32_t steps;
	unsigned p_imm;	      /* % of commands with immediate data */
	unsigned p_write;     /* % of commands that need an RDMA READ */
	unsigned p_abort;     /* weight of aborts */
	unsigned p_fail_post; /* % of response posts that fail */
	bool disconnect;      /* disconnect at a random step */
	/*
	 * ... preferably while a drainer has dropped the lock (if none does
	 * within a few steps, at a step of its own)
	 */
	bool disconnect_in_handoff;
	/* % of hand-offs during which another context runs an event */
	unsigned p_concurrent;
};

enum class Phase {
	kSubmitted, /* waits for write_pending (writes) or execution */
	kNeedData,
	kExecuting, /* waits for queue_status */
	/*
	 * LIO is inside write_pending or queue_status for it (the core may
	 * post after dropping its lock, and others act meanwhile): LIO does
	 * not call either again for the same command until it returns.
	 */
	kInCall,
	kResponded, /* response queued */
	kAborted,
};

struct Cmd {
	uint64_t tag;
	IuKind kind;
	Phase phase = Phase::kSubmitted;
	bool is_write = false;
	bool imm = false;
	int refs = 2; /* the target core's and the fabric's (ACK_KREF) */
	bool lio_ref = true;
	bool ack_ref = true;
};

/* What the schedules exercised, summed over all of them. */
struct Coverage {
	uint64_t schedules = 0, steps = 0, ius = 0, waited = 0, kicks = 0,
		 queue_full = 0, deferred = 0, aborts = 0, disconnects = 0,
		 post_failures = 0, release_before_completion = 0,
		 max_wait_depth = 0, concurrent = 0, concurrent_disconnects = 0;
	/*
	 * Last references dropped while the glue's put after a send
	 * completion ran (the core has returned), and how many of them
	 * another context dropped.
	 */
	uint64_t releases_in_put = 0, concurrent_releases_in_put = 0;
	/*
	 * Successful response completions taken as the kernel's softirq
	 * poller takes them (OnSendDoneAtomic), and how many of those it
	 * refused to process context (responses waited for room).
	 */
	uint64_t atomic_send_done = 0, atomic_refused = 0;
};
inline Coverage g_cov;

struct WireIu {
	uint8_t opcode;
	uint64_t tag;
	bool imm;
};

class Model
{
public:
	Model(uint64_t seed, const Params &p) : seed_(seed), p_(p), rng_(seed)
	{
	}

	std::string Trace() const
	{
		std::ostringstream os;
		for (const std::string &e : trace_)
			os << "    " << e << "\n";
		return os.str();
	}

protected:
	/*
	 * Set by the checker while the glue's put after a send completion
	 * runs, and while another context runs an event inside it.
	 */
	int in_put_ = 0;
	int in_put_concurrent_ = 0;
	/* The context whose send completion runs (its PutCmd is the window). */
	SendCtx *completing_ = nullptr;

	static void ObserveState(void *cookie, CmdState from, CmdState to,
				 bool legal)
	{
		if (!legal)
			static_cast<Model *>(cookie)->Fail(
			    std::string("illegal command state move ") +
			    CmdStateName(from) + " -> " + CmdStateName(to));
	}

	void Fail(const std::string &why)
	{
		if (error_.empty())
			error_ = "step " + std::to_string(step_) + ": " + why;
	}

	void Log(const std::string &e)
	{
		trace_.push_back(e);
		if (trace_.size() > 40)
			trace_.erase(trace_.begin());
	}

	unsigned Rand(unsigned n) { return static_cast<unsigned>(rng_() % n); }
	/* Send-queue slots for data: the queue less the drain write's. */
	unsigned Cap() const { return p_.sq_size - 1; }
	bool Percent(unsigned p) { return Rand(100) < p; }

	void Setup()
	{
		if (p_.use_srq)
			srq_ = std::make_unique<FakeSrq>(p_.credits + 2);
		ChannelConfig cfg =
		    Harness::Config(p_.credits, p_.sq_size, p_.send_ctx_limit);
		cfg.state_observer = &Model::ObserveState;
		cfg.state_observer_cookie = this;
		h_ = std::make_unique<Harness>(cfg, srq_.get());
		held_ = static_cast<int32_t>(p_.credits);
		h_->on_submit = [this](SendCtx &s, RecvCtx &r) {
			Cmd c{IuTag(r), r.iu_class().kind};
			c.imm = r.iu_class().keeps_buffer;
			c.is_write = c.imm || Percent(p_.p_write);
			if (cmds_.count(&s))
				Fail("send context handed out twice");
			cmds_[&s] = c;
		};
		/* Under the core's lock: only the model is touched. */
		h_->on_state_change = [this](ChannelState from,
					     ChannelState to) {
			Log(std::string("  state ") + ChannelStateName(from) +
			    " -> " + ChannelStateName(to));
		};
		h_->on_execute = [this](SendCtx &s) {
			cmds_[&s].phase = Phase::kExecuting;
		};
		h_->on_fail = [this](SendCtx &s) {
			cmds_[&s].phase = Phase::kExecuting;
		};
		h_->on_put = [this](SendCtx &s) {
			auto it = cmds_.find(&s);
			if (it == cmds_.end()) {
				Fail("PutCmd on a command the target core "
				     "does not hold");
				return;
			}
			if (!it->second.ack_ref)
				Fail("fabric reference dropped twice");
			it->second.ack_ref = false;
			DropRef(s);
		};
	}

	void DropRef(SendCtx &s)
	{
		Cmd &c = cmds_[&s];
		if (--c.refs > 0)
			return;
		Log("  last reference of tag " + std::to_string(c.tag));
		if (s.posted_wrs() != 0)
			g_cov.release_before_completion++;
		if (in_put_ > 0) {
			g_cov.releases_in_put++;
			if (in_put_concurrent_ > 0)
				g_cov.concurrent_releases_in_put++;
		}
		cmds_.erase(&s);
		h_->core.ReleaseCmd(s);
	}

	/* ---- events ---- */

	bool CanSend() const
	{
		return !closing_ && held_ > 0 &&
		       to_target_.size() < 2 * p_.credits;
	}
	void Send()
	{
		unsigned pick = Rand(100);
		uint8_t op = kOpCmd;
		if (pick < 6)
			op = kOpTskMgmt;
		else if (pick < 8)
			op = kOpUnknown;
		else if (pick < 9)
			op = kOpILogout;
		else if (pick < 11 && p_.use_srq)
			op = kOpCredRsp; /* needs a spare receive buffer */
		const bool imm = op == kOpCmd && Percent(p_.p_imm);
		if (op == kOpCmd || op == kOpTskMgmt)
			held_--;
		to_target_.push_back({op, next_tag_++, imm});
		Log("initiator sends tag " + std::to_string(next_tag_ - 1) +
		    " op " + std::to_string(op));
	}

	bool CanDeliver() const
	{
		return !to_target_.empty() && !h_->rq().empty();
	}
	void Deliver()
	{
		WireIu iu = to_target_.front();
		to_target_.pop_front();
		Log("IU tag " + std::to_string(iu.tag) + " received");
		const bool counted = !closing_;
		if (counted)
			received_.push_back(iu.tag);
		h_->Deliver(iu.opcode, iu.tag, iu.imm);
	}

	PostedWr *FirstUndelivered()
	{
		for (PostedWr &wr : h_->sq)
			if (wr.kind == WrKind::kResponse && !wr.delivered)
				return &wr;
		return nullptr;
	}
	bool CanReceiveResponse() { return !closing_ && FirstUndelivered(); }
	void ReceiveResponse()
	{
		PostedWr *wr = FirstUndelivered();
		wr->delivered = true;
		held_ += wr->delta;
		Log("initiator gets response tag " + std::to_string(wr->tag) +
		    " delta " + std::to_string(wr->delta));
	}

	bool CanComplete() const
	{
		if (h_->sq.empty())
			return false;
		const PostedWr &wr = h_->sq.front();
		if (closing_)
			return true;
		switch (wr.kind) {
		case WrKind::kResponse:
			return wr.delivered; /* the ACK follows the data */
		case WrKind::kRdmaRead:
			return true;
		case WrKind::kZlw:
			return false;
		}
		return false;
	}
	void Complete()
	{
		const PostedWr &wr = h_->sq.front();
		const bool ok =
		    !closing_ && !(wr.kind == WrKind::kRdmaRead && Percent(2));
		Log(std::string(wr.kind == WrKind::kResponse   ? "send"
				: wr.kind == WrKind::kRdmaRead ? "rdma read"
							       : "zlw") +
		    " completion tag " + std::to_string(wr.tag) +
		    (ok ? "" : " (error)"));
		SendCtx *const outer = completing_;
		completing_ = wr.kind == WrKind::kResponse ? wr.s : nullptr;
		/*
		 * Half the successful responses complete as in the kernel,
		 * in softirq; a refusal goes on in process context.
		 */
		if (wr.kind == WrKind::kResponse && ok && Percent(50)) {
			Log("  (softirq)");
			g_cov.atomic_send_done++;
			if (!h_->CompleteNextAtomic())
				g_cov.atomic_refused++;
			completing_ = outer;
			return;
		}
		PostedWr done = h_->CompleteNext(ok);
		completing_ = outer;
		if (done.kind == WrKind::kZlw &&
		    h_->last_zlw == ZlwOutcome::kReleaseChannel)
			release_ready_ = true;
	}

	bool CanFlushRecv() const
	{
		return closing_ && !p_.use_srq && !h_->own_rq.empty();
	}
	void FlushRecv()
	{
		RecvCtx *r = h_->own_rq.front();
		h_->own_rq.pop_front();
		Log("receive flushed");
		h_->RecvDone(*r, 0, false);
	}

	std::vector<SendCtx *> Actionable()
	{
		std::vector<SendCtx *> v;
		for (auto &[s, c] : cmds_)
			if (c.phase == Phase::kSubmitted ||
			    c.phase == Phase::kExecuting ||
			    ((c.phase == Phase::kResponded ||
			      c.phase == Phase::kAborted) &&
			     c.lio_ref))
				v.push_back(s);
		return v;
	}
	void Progress(SendCtx *s)
	{
		Cmd &c = cmds_[s];
		const std::string tag = std::to_string(c.tag);
		switch (c.phase) {
		case Phase::kSubmitted:
			if (c.kind == IuKind::kTaskMgmt) {
				Respond(s, c, 0, QueueFullPolicy::kDefer);
				return;
			}
			if (!c.is_write) {
				Log("target core executes tag " + tag);
				c.phase = Phase::kExecuting;
				return;
			}
			{
				const uint32_t n =
				    c.imm ? 0 : 1 + Rand(std::min(3u, Cap()));
				Log("write_pending tag " + tag + " n " +
				    std::to_string(n));
				c.phase = Phase::kInCall;
				Status st = h_->WritePending(*s, n);
				auto it = cmds_.find(s);
				if (it == cmds_.end())
					return;
				if (st == kQueueFull) {
					Log("  queue full");
					it->second.phase = Phase::kSubmitted;
					return;
				}
				if (st != Status::kOk)
					Fail("write_pending failed");
				/* Executed at once (immediate data) or reading. */
				if (it->second.phase == Phase::kInCall)
					it->second.phase = Phase::kNeedData;
			}
			return;
		case Phase::kExecuting:
			Respond(s, c,
				c.is_write ? 0 : Rand(std::min(3u, Cap())),
				QueueFullPolicy::kReturnQueueFull);
			return;
		case Phase::kResponded:
		case Phase::kAborted:
			Log("target core drops its reference on tag " + tag);
			c.lio_ref = false;
			DropRef(*s);
			return;
		case Phase::kNeedData:
		case Phase::kInCall:
			return;
		}
	}
	void Respond(SendCtx *s, Cmd &c, uint32_t n, QueueFullPolicy pol)
	{
		const bool fail = Percent(p_.p_fail_post);
		if (fail) {
			h_->fail_next_post_send = Status::kIo;
			g_cov.post_failures++;
		}
		Log("queue response tag " + std::to_string(c.tag) + " n " +
		    std::to_string(n) + (fail ? " (post fails)" : ""));
		const uint64_t tag = c.tag;
		const Phase before = c.phase;
		c.phase = Phase::kInCall;
		Status st = h_->core.QueueResponse(*s, n, pol);
		h_->fail_next_post_send = Status::kOk;
		auto it = cmds_.find(s);
		/* A failed post: the core dropped the fabric's reference. */
		if (it == cmds_.end() || it->second.tag != tag)
			return;
		if (st == kQueueFull) {
			Log("  queue full");
			it->second.phase = before; /* LIO retries later */
			return;
		}
		/*
		 * Posted, deferred, or lost (the core finished the command and
		 * dropped the fabric's reference): nothing more to answer.
		 */
		it->second.phase = Phase::kResponded;
	}

	std::vector<SendCtx *> Abortable()
	{
		std::vector<SendCtx *> v;
		for (auto &[s, c] : cmds_)
			if (c.kind == IuKind::kCmd &&
			    (c.phase == Phase::kSubmitted ||
			     c.phase == Phase::kNeedData ||
			     c.phase == Phase::kExecuting))
				v.push_back(s);
		return v;
	}
	void Abort(SendCtx *s)
	{
		Cmd &c = cmds_[s];
		Log("abort tag " + std::to_string(c.tag));
		g_cov.aborts++;
		c.phase = Phase::kAborted;
		h_->core.AbortedTask(*s);
		/* LIO drops the ACK_KREF reference of an aborted command. */
		c.ack_ref = false;
		DropRef(*s);
	}

	void Disconnect()
	{
		Log("disconnect");
		g_cov.disconnects++;
		closing_ = true;
		to_target_.clear();
		if (h_->core.Disconnect() &&
		    h_->core.PostDrainWrite() != Status::kOk)
			Fail("drain write not posted");
	}

	[[maybe_unused]] uint64_t seed_; /* kept for debugging */
	Params p_;
	std::mt19937_64 rng_;
	std::unique_ptr<FakeSrq> srq_;
	std::unique_ptr<Harness> h_;
	std::map<SendCtx *, Cmd> cmds_;
	std::deque<WireIu> to_target_;
	std::vector<uint64_t> received_;
	std::vector<std::string> trace_;
	std::string error_;
	int32_t held_ = 0;
	uint64_t next_tag_ = 1;
	unsigned step_ = 0;
	bool closing_ = false;
	bool release_ready_ = false;
};

} // namespace srpt::test::interleaving

#endif
