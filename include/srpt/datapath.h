/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The data-path part of the boundary between the C++ core and the kernel:
 * channels (QP, CQ, RDMA/CM id, LIO session) and commands (se_cmd, rdma_rw
 * contexts). Same rules as platform.h and core_api.h: plain C, fixed-width
 * integers, opaque handles, a Contract per function.
 *
 *   srpt_dp_*        implemented in C (glue/channel_ib.c, glue/target_core.c,
 *                    glue/rdma_cm.c), on the host by tests/host/platform_dp_host.cpp;
 *   srpt_core_dp_*   implemented in C++ (src/channel.cpp, src/cm_handler.cpp),
 *                    called by the glue's callbacks (trampolines).
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

/* ---- channel: QP, CQ, buffers (glue/channel_ib.c) -------------------- */

struct srpt_dp_ch_args {
	void *core_device;  /* srpt_core_add_device() handle (for the PD) */
	void *cm_id;        /* struct rdma_cm_id * of the connect request */
	void *core_ch;      /* handed back by every completion */
	uint32_t port_num;
	uint32_t rq_size;   /* receive WRs = credits = send contexts */
	uint32_t sq_size;   /* srp_sq_size: halved down to 16 on failure */
	uint32_t n_recv;    /* receive contexts to map */
	uint32_t n_send;    /* send contexts to map */
};

/*
 * Creates the CQ (shared pool) and the RC QP on @args->cm_id, retrying with
 * half the send queue down to 16 WRs. *max_send_wr: the send queue depth
 * the QP got (RDMA R/W WRs included). Contract: process context; sleeps.
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
 * unmaps every buffer, then (when @destroy_cm_id) destroys the RDMA/CM id,
 * which waits for running CM handlers of the id: no CM event arrives
 * afterwards. Frees the glue channel last. Without @destroy_cm_id the
 * RDMA/CM core destroys the id (a failed connect request).
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

/* ---- connection management (glue/rdma_cm.c) ------------------------- */

/*
 * rdma_accept() with @pdata (LOGIN_RSP) as private data; the cm_id's
 * context becomes the glue channel. Contract: process context, inside the
 * CM handler of the connect request.
 */
int srpt_dp_cm_accept(struct srpt_dp_ch *ch, const void *pdata,
		      uint32_t len);
/* rdma_reject() with @pdata (LOGIN_REJ). Contract: as accept. */
void srpt_dp_cm_reject(void *cm_id, const void *pdata, uint32_t len);
/* rdma_disconnect(). Contract: process context. */
int srpt_dp_cm_disconnect(struct srpt_dp_ch *ch);

/* ---- LIO session and commands (glue/target_core.c) ------------------ */

/*
 * target_setup_session() on the TPGs of configfs port @port_id (a PortId
 * handle), in their order, with @tag_num tags, until one accepts @name
 * (ACL lookup). Returns 0, -ENOENT when no TPG exists, or the error of the
 * last attempt (-EINVAL: no ACL matches). Contract: process context.
 */
int srpt_dp_session_setup(struct srpt_dp_ch *ch, void *port_id,
			  const char *name, uint32_t tag_num);
bool srpt_dp_session_active(struct srpt_dp_ch *ch);
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

enum srpt_dp_cm_event {
	SRPT_DP_CM_ESTABLISHED = 0,  /* RTU */
	SRPT_DP_CM_DISCONNECTED = 1, /* DREQ received / DREP or timeout */
	SRPT_DP_CM_TIMEWAIT_EXIT = 2,
	SRPT_DP_CM_REJECTED = 3,     /* also UNREACHABLE, CONNECT_ERROR */
	SRPT_DP_CM_DEVICE_REMOVAL = 4,
	SRPT_DP_CM_ADDR_CHANGE = 5,
};
/* Contract: process context (RDMA/CM handler). */
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
	uint32_t credits;
	uint32_t it_iu_len;
	uint16_t imm_data_offset;
	/* Test knob test_send_done_delay_us of this channel (0: off). */
	uint32_t send_done_delay_us;
	uint32_t send_done_held;       /* send completions held now */
	uint64_t send_done_held_total; /* held since the login */
};
void srpt_core_dp_get_stats(void *core_ch, struct srpt_dp_stats *out);

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
