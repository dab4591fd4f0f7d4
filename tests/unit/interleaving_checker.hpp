/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A seeded, randomized interleaving checker for the channel core: its
 * schedule driver and its invariants, over the model of
 * interleaving_model.hpp.
 *
 * Every step picks one enabled event at random: a model event, the kick
 * work item runs, the RTU arrives, the channel is disconnected; while a
 * drainer has dropped the core's lock, another context may run an event.
 * After every step the invariants are checked:
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
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "interleaving_model.hpp"

namespace srpt::test::interleaving
{

class Checker : public Model
{
public:
	Checker(uint64_t seed, const Params &p) : Model(seed, p) {}

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

private:
	/* Steps a disconnect_in_handoff schedule waits for a hand-off. */
	static constexpr unsigned kHandoffWait = 30;

	/* The model, the hand-off hook and when the RTU and disconnect come. */
	void Setup()
	{
		Model::Setup();
		/*
		 * An IU is served only if it was taken off the wait list while
		 * the channel was live: a disconnect may come after the take
		 * (in HandoffDone's post of the previous receive buffer), not
		 * before it.
		 */
		h_->on_handoff = [this] {
			if (closing_ && !disconnected_after_take_)
				Fail("IU handed to the target core after the "
				     "disconnect");
			disconnected_after_take_ = false;
			MaybeConcurrent();
		};
		/*
		 * Every post is made after the core dropped its lock: other
		 * contexts act between the decision and the post.
		 */
		h_->on_post = [this] { MaybeConcurrent(); };
		/*
		 * The glue drops the fabric's reference after the send
		 * completion returned from the core: the target core may drop
		 * the other reference, answer or abort another command, the
		 * initiator send, before and after the fabric's drop. (Other
		 * PutCmd calls end a command whose model state the caller
		 * updates after the call: no events inside those.)
		 */
		h_->on_put = [this, put = h_->on_put](SendCtx &s) {
			const bool window = &s == completing_;
			if (window)
				completing_ = nullptr;
			in_put_ += window;
			if (window)
				ConcurrentInPut();
			put(s);
			if (window)
				ConcurrentInPut();
			in_put_ -= window;
		};
		rtu_at_ = Rand(6);
		disconnect_at_ = p_.disconnect ? Rand(p_.steps) : ~0u;
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
			disconnected_after_take_ = h_->in_handoff_done > 0;
			Disconnect();
			break;
		}
		nesting_--;
	}

	void ConcurrentInPut()
	{
		in_put_concurrent_++;
		MaybeConcurrent();
		in_put_concurrent_--;
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

	unsigned rtu_at_ = 0;
	unsigned disconnect_at_ = ~0u;
	int nesting_ = 0;
	bool in_work_ = false;
	/* A disconnect came inside HandoffDone, after it took the next IU. */
	bool disconnected_after_take_ = false;
	bool rtu_done_ = false;
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
