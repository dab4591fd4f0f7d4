/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A seeded, randomized interleaving checker for the channel core.
 *
 * Each schedule models one channel with an initiator, an RC queue pair (in
 * order delivery both ways, send completions in posting order and only
 * after the peer received the response), and a target core that executes,
 * answers, aborts and drops references at random moments. Every step picks
 * one enabled event at random: the initiator sends an IU, an IU lands in a
 * receive buffer, the initiator receives a response, a send/RDMA/zero-
 * length-write completion, the target core moves a command on or aborts
 * it or drops a reference, the kick work item runs, the channel is
 * disconnected. After every step the invariants are checked:
 *   - credits are conserved: initiator-held + IUs on the wire + REQ_LIM_DELTA
 *     on the wire + in flight at the target + owed == login grant
 *     (and the core's own ledger identity);
 *   - IUs are handed to the target core in arrival order (FIFO);
 *   - no IU is stranded (live channel, IU waiting, send context free, no
 *     drainer running and no kick pending);
 *   - send contexts in use == commands the target core holds; the send-
 *     queue budget matches the WRs posted;
 *   - every command-state move is legal;
 *   - the channel state is the model's (connecting, live, or closing once
 *     disconnected), and no IU is handed to the target core after the
 *     disconnect: the data path stops in the same move, also when the
 *     disconnect comes while a drainer has dropped the lock.
 * At the end the channel is driven to quiescence, released and freed: no
 * command, context, receive buffer or allocation may be left, and the
 * channel must have reached kReleased through a chain of legal moves.
 *
 * Checker runs one schedule; ParamsFor() draws a schedule's parameters from
 * its seed. The test: interleaving_checker_test.cpp.
 */
#ifndef SRPT_TEST_INTERLEAVING_CHECKER_HPP
#define SRPT_TEST_INTERLEAVING_CHECKER_HPP

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
};
inline Coverage g_cov;

struct WireIu {
	uint8_t opcode;
	uint64_t tag;
	bool imm;
};

class Checker
{
public:
	Checker(uint64_t seed, const Params &p) : seed_(seed), p_(p), rng_(seed)
	{
	}

	/* Runs the schedule; returns an empty string or what went wrong. */
	std::string Run()
	{
		host::SetWarnHandler(
		    [this](const char *file, int line, const char *what) {
			    Fail(std::string("srpt_warn at ") + file + ":" +
				 std::to_string(line) + ": " + what);
		    });
		const size_t allocs = host::OutstandingAllocations();
		Setup();
		for (step_ = 0; step_ < p_.steps && error_.empty(); step_++) {
			if (!RandomStep(/*settling=*/false))
				break;
			Check();
		}
		if (error_.empty())
			Settle();
		if (error_.empty())
			Finish();
		g_cov.schedules++;
		g_cov.steps += step_;
		h_.reset();
		srq_.reset();
		host::SetWarnHandler(FailOnWarn);
		if (error_.empty() && host::OutstandingAllocations() != allocs)
			Fail("allocations leaked: " +
			     std::to_string(host::OutstandingAllocations() -
					    allocs));
		return error_;
	}

	std::string Trace() const
	{
		std::ostringstream os;
		for (const std::string &e : trace_)
			os << "    " << e << "\n";
		return os.str();
	}

private:
	static void ObserveState(void *cookie, CmdState from, CmdState to,
				 bool legal)
	{
		if (!legal)
			static_cast<Checker *>(cookie)->Fail(
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

	/* Steps a disconnect_in_handoff schedule waits for a hand-off. */
	static constexpr unsigned kHandoffWait = 30;

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
		cfg.state_observer = &Checker::ObserveState;
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
		h_->on_handoff = [this] {
			if (closing_)
				Fail("IU handed to the target core after the "
				     "disconnect");
			MaybeConcurrent();
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
		rtu_at_ = Rand(6);
		disconnect_at_ = p_.disconnect ? Rand(p_.steps) : ~0u;
	}

	void DropRef(SendCtx &s)
	{
		Cmd &c = cmds_[&s];
		if (--c.refs > 0)
			return;
		Log("  last reference of tag " + std::to_string(c.tag));
		if (s.posted_wrs() != 0)
			g_cov.release_before_completion++;
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
		PostedWr done = h_->CompleteNext(ok);
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
		h_->core.OnRecvDone(*r, 0, false);
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
				Status st = h_->core.WritePending(*s, n);
				if (st == kQueueFull) {
					Log("  queue full");
					return;
				}
				if (st != Status::kOk)
					Fail("write_pending failed");
				if (cmds_.count(s) &&
				    cmds_[s].phase == Phase::kSubmitted)
					cmds_[s].phase = Phase::kNeedData;
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
		Status st = h_->core.QueueResponse(*s, n, pol);
		h_->fail_next_post_send = Status::kOk;
		if (st == kQueueFull) {
			Log("  queue full");
			return;
		}
		if (st == Status::kOk) {
			cmds_[s].phase = Phase::kResponded;
			return;
		}
		if (pol == QueueFullPolicy::kDefer) {
			/* The core finished it and dropped the fabric's ref. */
			auto it = cmds_.find(s);
			if (it != cmds_.end() && it->second.tag == tag)
				it->second.phase = Phase::kResponded;
		}
		/* kReturnQueueFull: LIO retries later (phase unchanged). */
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

	/*
	 * The core drops its lock while it hands an IU to the target core:
	 * other contexts run meanwhile. The target core (other CPUs) and the
	 * initiator can always act; CQ events only when the hand-off runs in
	 * the kick work item (the CQ context itself is not re-entered).
	 */
	void MaybeConcurrent()
	{
		if (nesting_ >= 2 || !Percent(p_.p_concurrent) ||
		    !error_.empty())
			return;
		enum { kProg, kAbrt, kSnd, kRsp, kDlv, kCpl, kDsc };
		std::vector<int> ev;
		if (!Actionable().empty())
			ev.push_back(kProg);
		if (p_.p_abort && !Abortable().empty())
			ev.push_back(kAbrt);
		if (CanSend())
			ev.push_back(kSnd);
		if (CanReceiveResponse())
			ev.push_back(kRsp);
		if (in_work_ && CanDeliver())
			ev.push_back(kDlv);
		if (in_work_ && CanComplete())
			ev.push_back(kCpl);
		/* The CM disconnects while a drainer has dropped the lock. */
		if (!closing_ && p_.disconnect_in_handoff &&
		    step_ >= disconnect_at_)
			ev.push_back(kDsc);
		if (ev.empty())
			return;
		nesting_++;
		g_cov.concurrent++;
		Log("  [concurrently, lock dropped]");
		switch (ev[Rand(static_cast<unsigned>(ev.size()))]) {
		case kProg: {
			auto v = Actionable();
			Progress(v[Rand(static_cast<unsigned>(v.size()))]);
			break;
		}
		case kAbrt: {
			auto v = Abortable();
			Abort(v[Rand(static_cast<unsigned>(v.size()))]);
			break;
		}
		case kSnd:
			Send();
			break;
		case kRsp:
			ReceiveResponse();
			break;
		case kDlv:
			Deliver();
			break;
		case kCpl:
			Complete();
			break;
		case kDsc:
			g_cov.concurrent_disconnects++;
			Disconnect();
			break;
		}
		nesting_--;
	}

	/* Picks and runs one enabled event; false if none is enabled. */
	bool RandomStep(bool settling)
	{
		enum Ev {
			kSend,
			kDeliver,
			kRecvRsp,
			kComplete,
			kFlush,
			kProgress,
			kAbort,
			kWork,
			kRtu,
			kDisc,
		};
		std::vector<std::pair<Ev, unsigned>> ev;
		if (!rtu_done_ && (step_ >= rtu_at_ || settling))
			ev.push_back({kRtu, 20});
		if (!settling && CanSend())
			ev.push_back({kSend, 30});
		if (CanDeliver())
			ev.push_back({kDeliver, 30});
		if (CanReceiveResponse())
			ev.push_back({kRecvRsp, 20});
		if (CanComplete())
			ev.push_back({kComplete, 20});
		if (CanFlushRecv())
			ev.push_back({kFlush, 10});
		if (!Actionable().empty())
			ev.push_back({kProgress, 30});
		if ((!settling || closing_) && !Abortable().empty() &&
		    (p_.p_abort || closing_))
			ev.push_back({kAbort, closing_ ? 20 : p_.p_abort});
		if (host::PendingWork() > 0)
			ev.push_back({kWork, 15});
		if (!settling && !closing_ &&
		    step_ >= disconnect_at_ +
				 (p_.disconnect_in_handoff ? kHandoffWait : 0))
			ev.push_back({kDisc, 100});
		if (ev.empty())
			return false;
		unsigned total = 0;
		for (auto &e : ev)
			total += e.second;
		unsigned pick = Rand(total);
		Ev chosen = ev.back().first;
		for (auto &e : ev) {
			if (pick < e.second) {
				chosen = e.first;
				break;
			}
			pick -= e.second;
		}
		switch (chosen) {
		case kSend:
			Send();
			break;
		case kDeliver:
			Deliver();
			break;
		case kRecvRsp:
			ReceiveResponse();
			break;
		case kComplete:
			Complete();
			break;
		case kFlush:
			FlushRecv();
			break;
		case kProgress: {
			auto v = Actionable();
			Progress(v[Rand(static_cast<unsigned>(v.size()))]);
			break;
		}
		case kAbort: {
			auto v = Abortable();
			Abort(v[Rand(static_cast<unsigned>(v.size()))]);
			break;
		}
		case kWork:
			Log("kick work runs");
			in_work_ = true;
			h_->RunWork();
			in_work_ = false;
			break;
		case kRtu:
			Log("RTU");
			rtu_done_ = true;
			if (!h_->core.OnRtu() && !closing_)
				Fail("RTU refused");
			break;
		case kDisc:
			Disconnect();
			break;
		}
		return true;
	}

	/* ---- invariants ---- */

	void Check()
	{
		if (!error_.empty())
			return;
		if (const char *broken = h_->core.CheckInvariants())
			return Fail(broken);
		const ChannelStats st = h_->core.Stats();
		const ChannelPhase want = closing_ ? ChannelPhase::kClosing
					  : rtu_done_
					      ? ChannelPhase::kLive
					      : ChannelPhase::kConnecting;
		if (st.phase != PhaseOf(st.state) || st.phase != want)
			return Fail(std::string("channel state ") +
				    ChannelStateName(st.state) + " in phase " +
				    ChannelPhaseName(st.phase) + ", expected " +
				    ChannelPhaseName(want));
		if (!closing_) {
			int64_t wire_ius = 0, wire_delta = 0;
			for (const WireIu &iu : to_target_)
				if (iu.opcode == kOpCmd ||
				    iu.opcode == kOpTskMgmt)
					wire_ius++;
			for (const PostedWr &wr : h_->sq)
				if (wr.kind == WrKind::kResponse &&
				    !wr.delivered)
					wire_delta += wr.delta;
			const int64_t sum = held_ + wire_ius + wire_delta +
					    st.in_flight + st.owed;
			if (sum != p_.credits)
				return Fail(
				    "credits not conserved: held " +
				    std::to_string(held_) + " wire IUs " +
				    std::to_string(wire_ius) + " wire delta " +
				    std::to_string(wire_delta) + " in flight " +
				    std::to_string(st.in_flight) + " owed " +
				    std::to_string(st.owed));
			if (st.req_lim != held_ + wire_ius + wire_delta)
				return Fail("target's req_lim " +
					    std::to_string(st.req_lim) +
					    " != initiator's view");
		}
		/* FIFO: what the target core got is a prefix of arrivals. */
		const auto served = h_->ServedTags();
		if (!rtu_done_ && !served.empty())
			return Fail(
			    "IU served while the channel is connecting");
		if (served.size() > received_.size())
			return Fail("served an IU that never arrived");
		for (size_t i = 0; i < served.size(); i++)
			if (served[i] != received_[i])
				return Fail("IU tag " +
					    std::to_string(served[i]) +
					    " served out of order (expected " +
					    std::to_string(received_[i]) + ")");
		if (const char *why = ContextsMatchCommands())
			return Fail(why);
		uint32_t wrs = 0;
		for (const PostedWr &wr : h_->sq)
			wrs += wr.kind == WrKind::kResponse   ? 1 + wr.n
			       : wr.kind == WrKind::kRdmaRead ? wr.n
							      : 0;
		if (wrs != st.sq_capacity - st.sq_avail)
			return Fail("send-queue budget does not match the "
				    "WRs on the queue");
	}

	/*
	 * Every command the target core holds has a busy send context; a busy
	 * context the target core released waits for its last WR.
	 */
	const char *ContextsMatchCommands()
	{
		SendRing &ring = h_->core.send_ring();
		for (uint32_t i = 0; i < ring.size(); i++) {
			SendCtx &s = ring[i];
			const bool held = cmds_.count(&s) != 0;
			if (held && s.state() == CmdState::kFree)
				return "command held on a free send context";
			if (!held && s.state() != CmdState::kFree &&
			    s.posted_wrs() == 0)
				return "send context leaked (busy, released, "
				       "nothing posted)";
		}
		return nullptr;
	}

	/* Runs everything but new work until nothing is left to do. */
	void Settle()
	{
		for (unsigned i = 0; i < 100000 && error_.empty(); i++) {
			if (!RandomStep(/*settling=*/true))
				break;
			Check();
		}
		if (!error_.empty())
			return;
		if (!closing_) {
			const ChannelStats st = h_->core.Stats();
			if (!to_target_.empty())
				return Fail("IUs never received (RNR forever)");
			if (st.wait_depth != 0)
				return Fail("IU stranded at quiescence");
			if (!cmds_.empty())
				return Fail("commands never finished");
			if (h_->served.size() != received_.size())
				return Fail("IUs received but never served");
			if (held_ + st.owed != static_cast<int32_t>(p_.credits))
				return Fail("credits lost at quiescence");
			if (st.send_ctx_free != st.send_ctx_total)
				return Fail("send context leaked");
			Disconnect();
			Settle();
		}
	}

	void Finish()
	{
		const ChannelStats st = h_->core.Stats();
		g_cov.ius += st.ius_received;
		g_cov.waited += st.ius_waited;
		g_cov.kicks += st.kicks;
		g_cov.queue_full += st.queue_full;
		g_cov.deferred += st.responses_deferred;
		g_cov.max_wait_depth =
		    std::max<uint64_t>(g_cov.max_wait_depth, st.wait_max_depth);
		if (!cmds_.empty())
			return Fail("commands left at release");
		if (!release_ready_)
			return Fail("drain write never came back");
		srpt_work_cancel_sync(h_->work);
		if (h_->core.Release() != 0)
			return Fail("send contexts not returned at release");
		if (srq_) {
			if (srq_->posted.size() != srq_->ring.size())
				return Fail("SRQ lost receive buffers");
			for (uint32_t i = 0; i < srq_->ring.size(); i++)
				if (srq_->ring[i].state() != RecvState::kPosted)
					return Fail("SRQ receive context not "
						    "returned");
		} else {
			RecvRing *ring = h_->core.recv_ring();
			for (uint32_t i = 0; i < ring->size(); i++)
				if ((*ring)[i].state() != RecvState::kIdle)
					return Fail("receive context busy at "
						    "release");
		}
		h_->core.Destroy();
		h_->destroyed = true;
		ChannelState at = ChannelState::kConnecting;
		for (const StateMove &m : h_->state_moves) {
			if (m.from != at || !IsLegalTransition(m.from, m.to))
				return Fail(std::string("state move ") +
					    ChannelStateName(m.from) + " -> " +
					    ChannelStateName(m.to) + " from " +
					    ChannelStateName(at));
			at = m.to;
		}
		if (at != ChannelState::kReleased)
			return Fail(std::string("channel ends in ") +
				    ChannelStateName(at));
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
	unsigned rtu_at_ = 0;
	unsigned disconnect_at_ = ~0u;
	int nesting_ = 0;
	bool in_work_ = false;
	bool rtu_done_ = false;
	bool closing_ = false;
	bool release_ready_ = false;
};

inline Params ParamsFor(uint64_t seed)
{
	std::mt19937_64 r(seed ^ 0x9e3779b97f4a7c15ull);
	Params p;
	p.credits = 1 + static_cast<uint32_t>(r() % 6);
	p.send_ctx_limit =
	    r() % 3 == 0 ? 1 + static_cast<uint32_t>(r() % p.credits) : 0;
	p.sq_size = 3 + static_cast<uint32_t>(r() % 8);
	p.use_srq = r() % 2 == 0;
	p.steps = 100 + static_cast<uint32_t>(r() % 300);
	p.p_imm = static_cast<unsigned>(r() % 40);
	p.p_write = static_cast<unsigned>(r() % 60);
	p.p_abort = static_cast<unsigned>(r() % 4);
	p.p_fail_post = r() % 4 == 0 ? 3 : 0;
	p.disconnect = r() % 3 == 0;
	p.p_concurrent = r() % 2 ? 0 : 10 + static_cast<unsigned>(r() % 30);
	p.disconnect_in_handoff =
	    p.disconnect && p.p_concurrent != 0 && r() % 2 == 0;
	return p;
}

inline std::string Describe(const Params &p)
{
	std::ostringstream os;
	os << "credits " << p.credits << " send_ctx_limit " << p.send_ctx_limit
	   << " sq " << p.sq_size << (p.use_srq ? " srq" : " own-rq")
	   << " steps " << p.steps << " imm% " << p.p_imm << " write% "
	   << p.p_write << " abort " << p.p_abort << " failpost% "
	   << p.p_fail_post << (p.disconnect ? " disconnect" : "")
	   << (p.disconnect_in_handoff ? " (in a hand-off)" : "")
	   << " concurrent% " << p.p_concurrent;
	return os.str();
}

} // namespace srpt::test::interleaving

#endif
