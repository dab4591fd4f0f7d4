/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One SRP channel in the kernel: an RDMA/CM or IB/CM connection, its QP and CQ
 * (in the glue, struct srpt_dp_ch), a LIO session, and the data path
 * (ChannelCore) bound to the kernel through KernelEnv.
 *
 * The channel has one state, ChannelState (datapath/channel_state.hpp), kept
 * by the core under the core's lock: every move below is one call of
 * ChannelCore::TransitionTo(), checked against kChannelTransitions, and the
 * data path stops serving IUs in that same move. The events that make the
 * moves:
 *
 *   kConnecting --RTU--> kLive
 *      |  \                 |  \
 *      |   \ Disconnect()   |   \ Disconnect(): rdma_disconnect, wait for
 *      |    v               |    v               DISCONNECTED/TIMEWAIT
 *      |   kDisconnecting <-+   (same)
 *      |        | Close()
 *      v        v
 *   kDraining: QP in ERR, zero-length write posted; its flushed completion
 *      |        (all earlier WRs completed) moves the core to kReleasing,
 *      v        and OnZlwDone() queues the release work
 *   kReleasing: release work: stop the session and wait for its commands,
 *      |        remove it, drain and destroy QP/CQ, destroy the cm_id,
 *      v        free rings
 *   kReleased: ChannelCore::Release() (then the Channel is freed)
 *
 * Close() from kConnecting/kLive/kDisconnecting; a failed drain post goes
 * straight to kReleasing. CM events arriving in kDraining or later change
 * nothing: the table absorbs them. Each move is traced (srpt_channel_state)
 * under the core's lock, through KernelEnv::StateChanged.
 */
#ifndef SRPT_CHANNEL_HPP
#define SRPT_CHANNEL_HPP

#include <srpt/alloc.hpp>
#include <srpt/datapath/channel_core.hpp>
#include <srpt/datapath/channel_state.hpp>
#include <srpt/datapath/iu_class.hpp>
#include <srpt/core_api.h>
#include <srpt/device_registry.hpp>
#include <srpt/intrusive_list.hpp>
#include <srpt/iu_build.hpp>
#include <srpt/iu_parse.hpp>
#include <srpt/lock.hpp>
#include <srpt/login.hpp>
#include <srpt/rdma_glue.h>
#include <srpt/send_done_hold.hpp>
#include <srpt/status.hpp>

namespace srpt
{

/*
 * @s as an LIO iSCSI connection state name (without TARG_CONN_STATE_),
 * the words rtslib parses from an ACL's info file for targetcli sessions.
 */
const char *LioConnStateName(ChannelState s);

/*
 * What a connection manager tells a channel. The glue merges the events of
 * RDMA/CM and IB/CM into the C enum srpt_dp_cm_event, and datapath_api.cpp
 * turns that into these, so that the channel's state machine switches on
 * a core type.
 */
enum class CmEvent : uint8_t {
	kEstablished,  /* RTU / ESTABLISHED: the QP is in RTS */
	kDisconnected, /* RDMA/CM: DREQ, DREP or timeout; IB/CM: DREP */
	kDreqReceived, /* IB/CM: the peer's DREQ, which we must answer */
	kTimewaitExit,
	kRejected, /* also unreachable, connect error, a failed RTS */
	kDeviceRemoval,
	kAddrChange,
};

/*
 * The target core's answer to a command: what its SRP_RSP says, and how
 * many data-in RDMA WRITEs go before it. @sense is only borrowed for the
 * call: the response is built into the send buffer at once.
 */
struct CmdResponse {
	ScsiStatus status;
	DataDir dir; /* residual flags only for ToDevice / FromDevice */
	Residual residual;
	uint32_t residual_count;
	std::span<const uint8_t> sense;
	uint32_t n_rdma_writes; /* 0: status only */
};

/* A channel's statistics: its data path's and what the channel adds. */
struct ChannelSnapshot {
	ChannelStats datapath;
	SRPT_CHANNEL_PROPERTIES(SRPT_STATS_FIELD)
};

class Channel;
class Nexus;

/* The kernel environment of ChannelCore: each hook is one glue call. */
class KernelEnv
{
public:
	explicit KernelEnv(Channel &ch) : ch_(&ch) {}

	IuClass ClassifyIu(const RecvCtx &r)
	{
		return ClassifySrpIu(r.buf(), r.byte_len());
	}
	Status PostRecv(RecvCtx &r);
	Status PostResponse(SendCtx &s, uint32_t n_rdma, int32_t delta);
	Status PostRdmaRead(SendCtx &s, uint32_t n_rdma);
	Status PostZeroLengthWrite();
	void PutCmd(SendCtx &s);
	void KickWaitList();
	void ResponseLost();
	/* Traces the move (srpt_channel_state). Core lock held. */
	void StateChanged(ChannelState from, ChannelState to);

private:
	Channel *ch_;
};

/*
 * What the C++ side keeps per send context besides SendCtx: the response's
 * tag and length, and the command's descriptors in CPU order for the glue
 * (srpt_dp_cmd.desc), which the glue reads while it submits.
 */
struct CmdExtra {
	static constexpr uint32_t kInlineDesc = 8; /* 128 bytes */
	uint64_t tag;	  /* SRP tag, opaque */
	uint32_t rsp_len; /* bytes of the response built in the buffer */
	uint32_t more_cap; /* entries of @more */
	srpt_dp_desc desc[kInlineDesc];
	/* A longer list (up to 255): kept for the context's next ones. */
	srpt_dp_desc *more;
};

struct ChannelParams {
	Device *device; /* a reference is taken for the channel */
	Port *port;
	void *cm_id;
	srpt_dp_cm cm; /* which CM @cm_id belongs to */
	uint16_t pkey; /* IB/CM: the REQ's P_Key */
	LoginParams login;
	uint32_t credits;
	uint32_t sq_size;      /* srp_sq_size */
	uint32_t rsp_buf_size; /* srp_max_rsp_size */
	uint32_t req_buf_size; /* srp_max_req_size */
	uint32_t max_data_len; /* bound of one command's data */
	uint32_t send_ctx_limit;
	const char *name; /* session name, copied */
};

class Channel final : public srpt_core_ch, public KernelAllocated
{
public:
	/*
	 * Rings, QP and CQ, buffers mapped, receives posted: everything but
	 * the session. @srq (empty: own receive ring) becomes the channel's.
	 * nullptr and *status on failure (nothing left behind).
	 */
	static Channel *Create(const ChannelParams &p, SrqRef srq,
			       Status *status);
	/*
	 * Frees a channel that never went through Close() (a failed login
	 * before it was published): session removed, QP/CQ destroyed, the
	 * cm_id left to RDMA/CM.
	 */
	void DestroyUnpublished();

	/* target_setup_session on the port's TPGs under @name. */
	Status SetupSession(srpt_core_port_id *port_id, const char *name);
	bool has_session() const;

	/* ---- state machine (process context unless noted) ---- */
	ChannelState state() { return core_.state(); }
	/* RTU / ESTABLISHED. */
	void OnEstablished();
	/*
	 * Initiates a disconnect; true if this call changed the state. @why
	 * goes to the srpt_disconnect tracepoint.
	 */
	bool Disconnect(const char *why);
	/* QP to ERR and drain; true if this call changed the state. */
	bool Close(const char *why);
	/* Any CM event for this channel. */
	void OnCmEvent(CmEvent event);
	/* IB/CM: the peer's DREQ, answered with a DREP in every state. */
	void OnDisconnectRequest();
	/* CQ context: the drain marker completed. */
	void OnZlwDone(bool ok);

	/*
	 * ---- data path, from the glue ----
	 * A true return of OnRecvDone, HandoffDone and Kick: @out is an IU
	 * for the glue to submit to the target core; it gives it back with
	 * HandoffDone (ChannelCore's Handoff, as the glue's C struct).
	 */
	bool OnRecvDone(uint32_t index, uint32_t byte_len, bool ok,
			srpt_dp_handoff &out);
	bool HandoffDone(srpt_dp_handoff &out);
	bool Kick(srpt_dp_handoff &out);
	SendDone OnSendDone(uint32_t index, bool ok);
	/* ChannelCore::OnSendDoneAtomic, for a successful SEND. */
	SendDone OnSendDoneAtomic(uint32_t index);
	DataOut OnRdmaReadDone(uint32_t index, bool ok);
	/* kQueueFull: LIO retries later. */
	Status QueueResponse(uint32_t index, const CmdResponse &rsp);
	void QueueTmResponse(uint32_t index, wire::TskMgmtRspCode code);
	Status WritePending(uint32_t index, uint32_t n_rdma_reads,
			    DataOut &out);
	void AbortedTask(uint32_t index);
	void ReleaseCmd(uint32_t index);
	int CmdStateOf(uint32_t index);
	/* State, phase and counters from one snapshot: they agree. */
	ChannelSnapshot Stats();

	const char *name() const { return name_; }
	/* Who logged in: RDMA/CM source address or IB/CM port GID name. */
	const char *source() const { return source_; }
	/* The configfs port whose TPG holds the session (nullptr: none). */
	srpt_core_port_id *session_port_id() const { return session_port_id_; }
	srpt_dp_cm cm_kind() const { return cm_; }
	uint32_t id() const { return id_; }
	Device *device() const { return device_.get(); }
	Port *port() const { return port_; }
	srpt_dp_ch *dp() const { return dp_; }
	const LoginParams &login() const { return login_; }
	uint32_t credits() const { return credits_; }
	/* Receives come from the device's SRQ (nullptr: own ring). */
	SharedRecvQueue *srq() const { return srq_.get(); }
	ChannelCore<KernelEnv> &core() { return core_; }

	/* Intrusive links: the nexus's channel list, the registry's list. */
	ListNode nexus_node;
	ListNode registry_node;
	Nexus *nexus = nullptr;
	void *debugfs = nullptr;

private:
	friend class KernelEnv;
	friend class ChannelRegistry;

	Channel(const ChannelParams &p, SrqRef srq);
	~Channel();

	/* The move to kReleasing, then the release work (a failed drain). */
	void ScheduleRelease();
	static void ReleaseWork(void *ctx);
	/* A send completion the test knob held (SendDoneHold). */
	static void DeliverHeldSendDone(void *ctx, uint32_t index);
	void Release();
	/* A failed completion: the QP is in error, end the channel. */
	void OnCompletionError(const char *what);
	void OnResponseLost();
	/* Hand-offs (srp_command.cpp): the core's, as the glue's work. */
	bool NextGlueHandoff(bool have, Handoff &h, srpt_dp_handoff &out);
	/*
	 * Parses @h's IU. True: @out is a submission for the glue. False:
	 * answered or handled here (a reject, logout, ...).
	 */
	bool PrepareHandoff(const Handoff &h, srpt_dp_handoff &out);
	bool PrepareCmd(SendCtx &s, RecvCtx &r, srpt_dp_handoff &out);
	bool PrepareTaskMgmt(SendCtx &s, RecvCtx &r, srpt_dp_handoff &out);
	void HandleOtherIu(RecvCtx &r);
	/* The glue could not submit @h: answer it (BUSY, TMR failed). */
	void SubmitFailed(const Handoff &h, const srpt_dp_handoff &out);
	/* Resets what the channel keeps for @s's command, tagged @tag. */
	void ResetExtra(SendCtx &s, uint64_t tag);
	/* A response built by the transport itself (not by LIO). */
	void SendOwnResponse(SendCtx &s, size_t len);
	void AnswerStatus(SendCtx &s, uint64_t tag, ScsiStatus status);
	void AnswerTaskMgmt(SendCtx &s, uint64_t tag,
			    wire::TskMgmtRspCode code);
	bool Valid(uint32_t index) { return index < core_.send_ring().size(); }

	/* The data path, and the channel's state under its lock. */
	ChannelCore<KernelEnv> core_;
	srpt_dp_ch *dp_ = nullptr;
	DeviceRef device_;
	SrqRef srq_; /* empty: the channel's own receive ring */
	Port *port_;
	void *cm_id_;
	srpt_dp_cm cm_;
	LoginParams login_;
	ChannelLimits limits_;
	uint32_t credits_;
	uint32_t id_;
	bool session_ = false;
	CmdExtra *extra_ = nullptr;
	LogRateLimit drop_log_;
	/* Test knob test_send_done_delay_us (disabled: never holds). */
	SendDoneHold send_done_hold_;
	char name_[64];
	char source_[64];
	srpt_core_port_id *session_port_id_ = nullptr;
	alignas(SRPT_WORK_ALIGN) unsigned char release_work_[SRPT_WORK_SIZE];
};

} // namespace srpt

/* The per-command entry points and hooks, inline. */
#include <srpt/channel_datapath.hpp>

#endif
