/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The types of the channel core's interface, used by ChannelCore
 * (channel_core.hpp) and by its callers and environments: the queue-full
 * policy of a response, the outcome of a drain marker's completion, the
 * configuration and the statistics of a channel, and the ChannelEnv
 * concept (the hooks an environment provides). The channel's state and its
 * table of moves are in channel_state.hpp.
 */
#ifndef SRPT_DATAPATH_CHANNEL_TYPES_HPP
#define SRPT_DATAPATH_CHANNEL_TYPES_HPP

#include <concepts>
#include <srpt/channel_stats_fields.h>
#include <srpt/datapath/channel_state.hpp>
#include <srpt/datapath/cmd_state.hpp>
#include <srpt/datapath/ioctx_ring.hpp>
#include <srpt/status.hpp>
#include <stdint.h>

namespace srpt
{

/* What QueueResponse does when the send queue has no room. */
enum class QueueFullPolicy : uint8_t {
	/* Return kQueueFull: the glue returns -EAGAIN and LIO retries. */
	kReturnQueueFull,
	/*
	 * Keep the response and post it, in order, when completions return
	 * send-queue slots (queue_tm_rsp returns void: LIO cannot retry it).
	 */
	kDefer,
};

/* Status that the glue turns into -EAGAIN so that LIO retries later. */
inline constexpr Status kQueueFull = Status::kAgain;

enum class ZlwOutcome : uint8_t {
	kNothing,
	/* The drain marker came back flushed: schedule the channel release. */
	kReleaseChannel,
};

struct ChannelConfig {
	/* Credits granted at login; also the number of send contexts. */
	uint32_t credits = 0;
	/*
	 * Test knob: put only this many send contexts in the pool (0 = as
	 * many as credits), so that IUs must wait for send contexts.
	 */
	uint32_t send_ctx_limit = 0;
	uint32_t rsp_buf_size = 0; /* srp_max_rsp_size */
	/*
	 * Send-queue depth in WRs. One slot is kept for the zero-length
	 * write that marks the end of the drain at close.
	 */
	uint32_t sq_size = 0;
	/* Receive buffer size (srp_max_req_size), for a per-channel ring. */
	uint32_t req_buf_size = 0;
	/*
	 * The negotiated imm_data_offset (0: no immediate data): the
	 * per-channel ring places every buffer so that immediate data starts
	 * on a kImmDataAlignment boundary (ioctx_ring.hpp says why).
	 */
	uint32_t imm_data_offset = 0;
	/* The device's shared receive ring when using an SRQ, else nullptr. */
	RecvRing *srq_ring = nullptr;
	/* Name for log lines (the session name); may be nullptr. */
	const char *name = nullptr;
	/* Tests: sees every command-state move of every send context. */
	CmdStateMachine::Observer state_observer = nullptr;
	void *state_observer_cookie = nullptr;
};

/* A consistent snapshot for sysfs/debugfs and the tests. */
struct ChannelStats {
	ChannelState state;
	ChannelPhase phase; /* PhaseOf(state) */
	SRPT_DATAPATH_COUNTERS(SRPT_STATS_FIELD)
	bool drain_running;
	bool kick_pending;
};

/*
 * The environment. No hook is called with the channel lock held but
 * StateChanged; none calls back into the core on a command's usual path.
 * References passed to hooks stay valid for the call only.
 */
/* clang-format off */
template <typename E>
concept ChannelEnv = requires(E &e, SendCtx &s, RecvCtx &r, const RecvCtx &cr,
			      uint32_t n, int32_t delta, ChannelState cs) {
	/* What the IU in @cr is (see ClassifySrpIu). */
	{ e.ClassifyIu(cr) } -> std::same_as<IuClass>;
	/*
	 * ib_post_recv / ib_post_srq_recv of @r's buffer. @r is kPosted
	 * already: it may complete before the hook returns.
	 */
	{ e.PostRecv(r) } -> std::same_as<Status>;
	/*
	 * Posts the response built in @s's buffer, with REQ_LIM_DELTA set to
	 * @delta, behind @n chained RDMA WRITEs (data-in), as one signalled
	 * SEND. It may complete before the hook returns.
	 */
	{ e.PostResponse(s, n, delta) } -> std::same_as<Status>;
	/* Posts @n RDMA READ WRs for the data-out of @s (signalled last). */
	{ e.PostRdmaRead(s, n) } -> std::same_as<Status>;
	/* Posts the signalled zero-length RDMA WRITE (drain marker). */
	{ e.PostZeroLengthWrite() } -> std::same_as<Status>;
	/*
	 * Error path only: a deferred response could not be posted and
	 * nobody can retry it; drops the fabric's reference on its command
	 * (transport_generic_free_cmd), which may call ReleaseCmd() from
	 * inside. No lock held.
	 */
	{ e.PutCmd(s) } -> std::same_as<void>;
	/*
	 * Schedules ProcessWaitList() in process context (a work item whose
	 * caller runs the hand-offs).
	 */
	{ e.KickWaitList() } -> std::same_as<void>;
	/*
	 * A response could not be posted and nobody can retry it: its
	 * command ended without one, and the initiator would wait for its
	 * SCSI timeout. The channel disconnects. Called without the lock,
	 * from any context.
	 */
	{ e.ResponseLost() } -> std::same_as<void>;
	/*
	 * The channel moved from @from to the state @to (once per move, in
	 * order; refused moves are not reported). Locked: record or trace,
	 * nothing more.
	 */
	{ e.StateChanged(cs, cs) } -> std::same_as<void>;
};
/* clang-format on */

} // namespace srpt

#endif
