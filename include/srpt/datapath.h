/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The data-path part of the boundary between the C++ core and the kernel:
 * channels (QP, CQ, RDMA/CM or IB/CM id, LIO session) and commands
 * (se_cmd, rdma_rw contexts). Same rules as platform.h and core_api.h:
 * plain C, fixed-width integers, opaque handles, a Contract per function.
 *
 *   srpt_dp_*        implemented in C (glue/channel_ib.c, glue/target_core.c,
 *                    glue/rdma_cm.c, glue/ib_cm.c), on the host by
 *                    tests/host/platform_dp_host.cpp;
 *   srpt_core_dp_*   implemented in C++ (src/datapath_api.cpp), called by
 *                    the glue's callbacks (trampolines).
 *
 * Handles: a glue channel (struct srpt_dp_ch, owned by the C++ Channel:
 * created by srpt_dp_ch_create, freed by srpt_dp_ch_destroy), a core channel
 * (void *, the C++ Channel, stored in the glue channel), and contexts named
 * by their ring index (SendCtx::index(), RecvCtx::index()).
 */
#ifndef SRPT_DATAPATH_H
#define SRPT_DATAPATH_H

#include <srpt/platform.h>

#ifdef __cplusplus
extern "C" {
#endif

struct srpt_dp_ch;
struct srpt_dp_srq;

/* ---- shared receive queue of a device (glue/srq.c) ------------------- */

/*
 * ib_create_srq() of @size WRs of one SGE on the PD of @ib_device
 * (Device::ib_device()), and room for @size receive contexts, all unmapped.
 * The receive completions of its contexts arrive on the CQ of the QP that
 * consumed the WR and go to srpt_core_dp_recv_done() of that QP's channel
 * with the context's SRQ index. Returns 0 or a negative errno (-ENODEV:
 * the device is going away). Contract: process context; sleeps.
 */
int srpt_dp_srq_create(void *ib_device, uint32_t size,
		       struct srpt_dp_srq **srq);
/*
 * DMA-maps receive buffer @index of the core's SRQ ring (from device).
 * Contract: process context, before the first post of @index.
 */
int srpt_dp_srq_map_recv(struct srpt_dp_srq *srq, uint32_t index, void *buf,
			 uint32_t len);
/*
 * ib_post_srq_recv() of context @index. Contract: any context (the core
 * holds the lock of the channel that returns the context, or none while it
 * creates the SRQ); concurrent posts from several channels are allowed.
 */
int srpt_dp_srq_post_recv(struct srpt_dp_srq *srq, uint32_t index);
/*
 * ib_destroy_srq(), then unmaps every mapped buffer and frees @srq. WRs
 * still posted are dropped without completions.
 * Contract: process context; no QP uses the SRQ any more.
 */
void srpt_dp_srq_destroy(struct srpt_dp_srq *srq);

/*
 * The connection manager a login arrived through, and with it what a
 * channel's cm_id handle is: RDMA/CM (struct rdma_cm_id *, glue/rdma_cm.c)
 * or IB/CM (struct ib_cm_id *, glue/ib_cm.c, InfiniBand link layer only).
 * The core never looks inside; it hands the pair back to the glue.
 */
enum srpt_dp_cm {
	SRPT_DP_RDMA_CM = 0,
	SRPT_DP_IB_CM = 1,
};

/* ---- channel: QP, CQ, buffers (glue/channel_ib.c) -------------------- */

struct srpt_dp_ch_args {
	void *core_device;  /* srpt_core_add_device() handle (for the PD) */
	void *cm_id;        /* the connect request's id, of kind @cm */
	uint8_t cm;         /* enum srpt_dp_cm */
	uint16_t pkey;      /* IB/CM: P_Key of the REQ's primary path */
	void *core_ch;      /* handed back by every completion */
	const char *name;   /* the session's name, for tracepoints; lives as
			     * long as the channel */
	/*
	 * The device's SRQ: the QP receives from it (qp_init.srq) and has no
	 * receive queue of its own; NULL: a receive queue of rq_size WRs.
	 */
	struct srpt_dp_srq *srq;
	uint32_t port_num;
	uint32_t rq_size;   /* receive WRs = credits = send contexts */
	uint32_t sq_size;   /* srp_sq_size: halved down to 16 on failure */
	uint32_t n_recv;    /* receive contexts to map (0 with an SRQ) */
	uint32_t n_send;    /* send contexts to map */
};

/*
 * Creates the CQ (shared pool) and the RC QP for @args->cm_id, retrying with
 * half the send queue down to 16 WRs. *max_send_wr: the send queue depth
 * the QP got (RDMA R/W WRs included). RDMA/CM: rdma_create_qp(). IB/CM:
 * ib_create_qp() on the device's PD, then INIT with the P_Key index of
 * @args->pkey (as in-tree srpt_init_ch_qp). On success the cm_id's context
 * is the glue channel. Contract: process context; sleeps.
 */
int srpt_dp_ch_create(const struct srpt_dp_ch_args *args,
		      struct srpt_dp_ch **ch, uint32_t *max_send_wr);
/*
 * DMA-maps a buffer of the core (receive: from device; send: to device).
 * Contract: process context, before the first post for that index.
 */
int srpt_dp_map_recv(struct srpt_dp_ch *ch, uint32_t index, void *buf,
		     uint32_t len);
int srpt_dp_map_send(struct srpt_dp_ch *ch, uint32_t index, void *buf,
		     uint32_t len);
/*
 * Completes every WR still on the QP (ib_drain_qp), destroys QP and CQ,
 * unmaps every buffer, and (when @destroy_cm_id) destroys the cm_id
 * (rdma_destroy_id after the QP; ib_destroy_cm_id before it, as in-tree,
 * because IB/CM handlers modify the QP), which waits for running CM
 * handlers of the id: no CM event arrives afterwards. Frees the glue
 * channel last. Without @destroy_cm_id the CM destroys the id itself (a
 * refused connect request: its handler returns non-zero).
 * Contract: process context, never from the id's CM handler when
 * @destroy_cm_id; no post may run concurrently.
 */
void srpt_dp_ch_destroy(struct srpt_dp_ch *ch, bool destroy_cm_id);

/* ---- posting (any context; the core holds its channel lock) ---------- */

int srpt_dp_post_recv(struct srpt_dp_ch *ch, uint32_t index);
/*
 * Posts the first @len bytes of send buffer @index as one signalled SEND,
 * behind the data-in RDMA WRITEs of that command when @n_rdma_writes != 0.
 */
int srpt_dp_post_send(struct srpt_dp_ch *ch, uint32_t index, uint32_t len,
		      uint32_t n_rdma_writes);
/* Posts the RDMA READs of command @index; the last one is signalled. */
int srpt_dp_post_rdma_read(struct srpt_dp_ch *ch, uint32_t index);
/* Posts a signalled zero-length RDMA WRITE (the drain marker). */
int srpt_dp_post_zlw(struct srpt_dp_ch *ch);
/* Moves the QP to the error state: every posted WR completes flushed. */
int srpt_dp_qp_error(struct srpt_dp_ch *ch);

/* ---- connection management (glue/rdma_cm.c, glue/ib_cm.c) ----------- */

/*
 * Accepts with @pdata (LOGIN_RSP) as private data, on the CM the channel
 * was created for: rdma_accept(), or for IB/CM the QP to RTR
 * (ib_cm_init_qp_attr) and ib_send_cm_rep() (the QP goes to RTS when the
 * RTU arrives, before the core sees SRPT_DP_CM_ESTABLISHED). Contract:
 * process context, inside the CM handler of the connect request.
 */
int srpt_dp_cm_accept(struct srpt_dp_ch *ch, const void *pdata,
		      uint32_t len);
/*
 * rdma_reject() / ib_send_cm_rej() (IB_CM_REJ_CONSUMER_DEFINED) with
 * @pdata (LOGIN_REJ) on @cm_id of kind @cm. Contract: as accept.
 */
void srpt_dp_cm_reject(enum srpt_dp_cm cm, void *cm_id, const void *pdata,
		       uint32_t len);
/*
 * Starts a disconnect: a DREQ, or the DREP when the peer's DREQ came
 * first (rdma_disconnect(); IB/CM: ib_send_cm_dreq(), else
 * ib_send_cm_drep(), as in-tree srpt_disconnect_ch). Contract: process
 * context.
 */
int srpt_dp_cm_disconnect(struct srpt_dp_ch *ch);
/*
 * Answers a received DREQ (SRPT_DP_CM_DREQ_RECEIVED) with a DREP:
 * ib_send_cm_drep(). Only touches the cm_id, so it may be called in any
 * channel state while the id's CM handler runs. Contract: process
 * context, inside the CM handler.
 */
int srpt_dp_cm_drep(struct srpt_dp_ch *ch);

/* ---- LIO session and commands (glue/target_core.c) ------------------ */

/*
 * target_setup_session() on the TPGs of configfs port @port_id (a PortId
 * handle), in their order, with @tag_num tags, until one accepts @name
 * (ACL lookup). Returns 0, -ENOENT when no TPG exists, or the error of the
 * last attempt (-EINVAL: no ACL matches). Contract: process context.
 */
int srpt_dp_session_setup(struct srpt_dp_ch *ch, void *port_id,
			  const char *name, uint32_t tag_num);
/*
 * target_stop_session + target_wait_for_sess_cmds + target_remove_session.
 * Contract: process context (the release work); sleeps until every command
 * of the session was released.
 */
void srpt_dp_session_remove(struct srpt_dp_ch *ch);

enum srpt_dp_dir {
	SRPT_DP_DIR_NONE = 0,
	SRPT_DP_DIR_WRITE = 1, /* data-out: RDMA READ from the initiator */
	SRPT_DP_DIR_READ = 2,  /* data-in: RDMA WRITE to the initiator */
};

struct srpt_dp_cmd {
	uint64_t tag;             /* opaque, as on the wire */
	uint64_t lun;             /* scsilun_to_int() */
	const uint8_t *cdb;
	uint32_t cdb_len;
	uint32_t data_len;        /* what the descriptors offer */
	uint8_t dir;              /* enum srpt_dp_dir */
	uint8_t task_attr;        /* SRP task attribute */
	const uint8_t *desc;      /* n_desc 16-byte direct descriptors (BE) */
	uint32_t n_desc;
	const uint8_t *imm_data;  /* immediate data in the receive buffer */
	uint32_t imm_len;
};

/*
 * target_init_cmd + rdma_rw_ctx_init for each descriptor + target_submit.
 * 0: the target core owns the command (it ends in release_cmd). Negative:
 * nothing was handed over; the core answers the command itself.
 * Contract: process context (CQ work or the kick work item).
 */
int srpt_dp_submit_cmd(struct srpt_dp_ch *ch, uint32_t index,
		       const struct srpt_dp_cmd *cmd);
/* target_submit_tmr; same convention. @func is the SRP function code. */
int srpt_dp_submit_tmr(struct srpt_dp_ch *ch, uint32_t index, uint64_t tag,
		       uint64_t lun, uint8_t func, uint64_t task_tag);
/* target_execute_cmd: the data-out is in place. */
void srpt_dp_execute_cmd(struct srpt_dp_ch *ch, uint32_t index);
/* The RDMA READ failed: the target core fails the command. */
void srpt_dp_fail_cmd(struct srpt_dp_ch *ch, uint32_t index);
/*
 * Drops the fabric's reference after the response went out
 * (transport_generic_free_cmd); for a command the target core never saw,
 * calls srpt_core_dp_cmd_release() directly.
 */
void srpt_dp_put_cmd(struct srpt_dp_ch *ch, uint32_t index);

/* ---- C++ entry points called by the glue ---------------------------- */

/*
 * RDMA/CM connect request. @src_addr: "%pIS" of the cm_id's source
 * address (the session name on GUID-named ports). Returns 0 when the
 * channel took the cm_id (accepted, or rejected with the release work
 * owning it), negative when the glue must let RDMA/CM destroy it.
 * Contract: process context (RDMA/CM handler).
 */
int srpt_core_dp_rdma_cm_req(void *core_device, uint32_t port_num,
			     void *cm_id, const uint8_t *pdata,
			     uint32_t pdata_len, const char *src_addr);
/*
 * IB/CM REQ (InfiniBand link layer). @pdata: the REQ's private data
 * (struct srp_login_req, 64 of its 92 bytes); @initiator_gid: the 16-byte
 * GID of the initiator's port (the REQ's primary path dgid, network byte
 * order), whose GUID half names the session on GUID-named ports; @pkey:
 * the primary path's P_Key (CPU order), for the QP's P_Key index.
 * Returns as srpt_core_dp_rdma_cm_req (negative: the IB/CM handler returns
 * it and IB/CM destroys the id). Contract: process context (IB/CM
 * handler of the REQ's new cm_id).
 */
int srpt_core_dp_ib_cm_req(void *core_device, uint32_t port_num,
			   void *cm_id, const uint8_t *pdata,
			   uint32_t pdata_len, const uint8_t *initiator_gid,
			   uint16_t pkey);

/* The events of both CMs, merged (the glue maps them). */
enum srpt_dp_cm_event {
	SRPT_DP_CM_ESTABLISHED = 0,  /* RTU / ESTABLISHED: the QP is in RTS */
	SRPT_DP_CM_DISCONNECTED = 1, /* RDMA/CM: DREQ received, DREP or
				        timeout; IB/CM: DREP received */
	SRPT_DP_CM_TIMEWAIT_EXIT = 2,
	SRPT_DP_CM_REJECTED = 3,     /* also UNREACHABLE, CONNECT_ERROR,
				        IB/CM REP_ERROR, a failed RTS */
	SRPT_DP_CM_DEVICE_REMOVAL = 4,
	SRPT_DP_CM_ADDR_CHANGE = 5,
	/*
	 * IB/CM: the peer's DREQ. Unlike RDMA/CM, IB/CM leaves the answer
	 * to the consumer: the core answers with srpt_dp_cm_drep() in every
	 * state, also when its own DREQ crossed the peer's.
	 */
	SRPT_DP_CM_DREQ_RECEIVED = 6,
};
/* Contract: process context (the CM handler of the channel's id). */
void srpt_core_dp_cm_event(void *core_ch, enum srpt_dp_cm_event event);

/* Completions: CQ context (IB_POLL_WORKQUEUE), one at a time per channel. */
void srpt_core_dp_recv_done(void *core_ch, uint32_t index, uint32_t byte_len,
			    bool ok);
void srpt_core_dp_send_done(void *core_ch, uint32_t index, bool ok);
void srpt_core_dp_rdma_read_done(void *core_ch, uint32_t index, bool ok);
void srpt_core_dp_zlw_done(void *core_ch, bool ok);

/* The target core's fabric callbacks for command @index (any context). */
struct srpt_dp_rsp {
	uint8_t scsi_status;
	uint8_t dir;              /* enum srpt_dp_dir of the command */
	bool underflow;
	bool overflow;
	uint32_t residual;
	const uint8_t *sense;
	uint32_t sense_len;
	uint32_t n_rdma_writes;   /* data-in WRs to chain (0: status only) */
};
/* queue_data_in / queue_status. Returns 0 or -EAGAIN (LIO retries). */
int srpt_core_dp_queue_response(void *core_ch, uint32_t index,
				const struct srpt_dp_rsp *rsp);
enum srpt_dp_tmr_result {
	SRPT_DP_TMR_COMPLETE = 0,
	SRPT_DP_TMR_REJECTED = 1,  /* function not supported */
	SRPT_DP_TMR_FAILED = 2,
};
void srpt_core_dp_queue_tm_rsp(void *core_ch, uint32_t index,
			       enum srpt_dp_tmr_result result);
/* write_pending: @n_rdma_reads == 0 means the data is already here. */
int srpt_core_dp_write_pending(void *core_ch, uint32_t index,
			       uint32_t n_rdma_reads);
void srpt_core_dp_aborted_task(void *core_ch, uint32_t index);
/* release_cmd, after the glue released its per-command resources. */
void srpt_core_dp_cmd_release(void *core_ch, uint32_t index);
int srpt_core_dp_cmd_state(void *core_ch, uint32_t index);
/* close_session: disconnect the channel (asynchronously). */
void srpt_core_dp_close_session(void *core_ch);

/*
 * ib_client remove: close the channels on @core_device and wait until they
 * are released. Contract: process context, before the PD goes away.
 */
void srpt_core_dp_device_removing(void *core_device);

/* Module init / exit of the data path (channel registry, debugfs). */
int srpt_core_dp_init(void);
void srpt_core_dp_exit(void);

/* A snapshot of a channel for debugfs (ChannelStats + channel state). */
struct srpt_dp_stats {
	const char *state;       /* channel state name */
	const char *phase;       /* data-path phase name */
	int32_t req_lim;
	int32_t in_flight;
	int32_t req_lim_delta;   /* credits owed to the next response */
	uint64_t granted_total;
	uint64_t consumed_total;
	uint64_t credit_violations;
	uint32_t send_ctx_total;
	uint32_t send_ctx_free;
	uint32_t sq_capacity;
	uint32_t sq_avail;
	uint32_t wait_depth;
	uint32_t wait_max_depth;
	uint32_t deferred_responses;
	uint64_t ius_received;
	uint64_t ius_waited;
	uint64_t ius_no_send_ctx; /* arrived while every send context was busy */
	uint64_t queue_full;
	uint64_t responses_deferred;
	uint64_t kicks;
	uint64_t post_recv_failures;
	uint64_t send_errors;
	uint64_t recv_errors;
	uint64_t responses_lost; /* not posted: the channel disconnected */
	uint32_t credits;
	uint32_t it_iu_len;
	uint16_t imm_data_offset;
	bool use_srq;            /* receives come from the device's SRQ */
	uint32_t recv_ring_size; /* contexts of the ring it receives into */
	/* Test knob test_send_done_delay_us of this channel (0: off). */
	uint32_t send_done_delay_us;
	uint32_t send_done_held;       /* send completions held now */
	uint64_t send_done_held_total; /* held since the login */
};
void srpt_core_dp_get_stats(void *core_ch, struct srpt_dp_stats *out);

/* One channel of a node ACL's session (configfs acls/<name>/info). */
struct srpt_acl_channel {
	uint32_t id;
	bool rdma_cm;            /* logged in through RDMA/CM, else IB/CM */
	bool logged_in;          /* the channel serves I/O (state "live") */
	/*
	 * The channel's state in the words of LIO's iSCSI connection states,
	 * which rtslib parses: LOGGED_IN, IN_LOGIN, IN_LOGOUT, CLEANUP_WAIT.
	 */
	const char *conn_state;
	char source[64];         /* the initiator's address or port GID */
	struct srpt_dp_stats stats;
};
/*
 * The channels whose LIO session was set up under the node ACL @acl_name
 * of the configfs port @port_id, in channel id order (the order of their
 * logins): fills up to @max and returns how many there are.
 * Contract: process context (configfs).
 */
uint32_t srpt_core_acl_channels(void *port_id, const char *acl_name,
				struct srpt_acl_channel *out, uint32_t max);

/* ---- kernel services of the data path (glue) ------------------------ */

/* Test knob: debugfs ib_srpt/test_send_ctx_limit (0 = off). */
uint32_t srpt_dp_test_send_ctx_limit(void);
/*
 * Test knob: debugfs ib_srpt/test_send_done_delay_us (0 = off): channels
 * created afterwards hand each successful send completion to the data path
 * only after this delay (include/srpt/send_done_hold.hpp). Any context.
 */
uint32_t srpt_dp_test_send_done_delay_us(void);
/*
 * debugfs directory <name>-<id> of a channel with its "stats" file; NULL
 * when debugfs is off. Removal waits for readers of the file.
 */
void *srpt_dp_debugfs_add(void *core_ch, const char *name, uint32_t id);
void srpt_dp_debugfs_remove(void *dentry);
/* Contract: process context. */
void srpt_dp_msleep(uint32_t ms);

#ifdef __cplusplus
}
#endif

#endif
