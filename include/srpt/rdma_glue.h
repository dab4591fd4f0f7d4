/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMA and target-core services for the C++ core. The rule of this
 * header: implemented in C, called by C++; each function drives the RDMA
 * stack (verbs, RDMA/CM, IB/CM), the target core (LIO) or debugfs for the
 * core. Generic kernel services are in platform.h, the other direction
 * (what C++ implements) in core_api.h; platform.h lists all four boundary
 * headers.
 *
 *   glue/ib_client.c    srpt_ib_query_port
 *   glue/rdma_cm.c      srpt_rdma_cm_listen/destroy,
 *                       srpt_inet_pton_with_scope
 *   glue/channel_ib.c   channel (QP, CQ, DMA mapping), posts, CM actions
 *                       (through glue/rdma_cm.c and glue/ib_cm.c)
 *   glue/srq.c          srpt_dp_srq_*
 *   glue/target_core.c  LIO session and commands
 *   glue/debugfs.c      test knobs, per-channel stats directory
 *
 * On the host: tests/host/platform_dp_host.cpp, a recording, scriptable
 * fake of every srpt_dp_*, and tests/host/platform_host.cpp for the port
 * query, the listener and the address parser.
 *
 * Handles: a glue channel (struct srpt_dp_ch, owned by the C++ Channel:
 * created by srpt_dp_ch_create, freed by srpt_dp_ch_destroy), a device's
 * SRQ (struct srpt_dp_srq), the core's typed handles of core_api.h (a
 * core channel is stored in its glue channel), contexts named by their
 * ring index (SendCtx::index(), RecvCtx::index()), and void * for kernel
 * objects the core only hands back (ib_device, cm_id, listener, debugfs
 * dentry).
 */
#ifndef SRPT_RDMA_GLUE_H
#define SRPT_RDMA_GLUE_H

#include <srpt/platform.h>

#ifdef __cplusplus
extern "C" {
#endif

struct srpt_dp_ch;
struct srpt_dp_srq;
/* The core's handles (core_api.h). */
struct srpt_core_device;
struct srpt_core_ch;
struct srpt_core_port_id;

/* ---- ports, RDMA/CM listener (glue/ib_client.c, glue/rdma_cm.c) ------ */

enum srpt_link_layer {
	SRPT_LINK_LAYER_UNSPECIFIED = 0,
	SRPT_LINK_LAYER_INFINIBAND = 1,
	SRPT_LINK_LAYER_ETHERNET = 2,
};

/*
 * A port as srpt_ib_query_port() reads it; the glue fills one per port for
 * srpt_core_add_device() (struct srpt_device_desc, core_api.h) the same way.
 */
struct srpt_port_desc {
	uint32_t port_num;       /* 1-based, as the verbs API */
	uint32_t link_layer;     /* enum srpt_link_layer */
	bool gid_valid;          /* GID index 0 could be read */
	uint8_t gid[16];         /* GID index 0, network byte order */
	uint16_t lid;
	uint16_t sm_lid;
};

/*
 * Reads port @port_num of @ib_device (link layer, LIDs, GID 0).
 * Contract: process context. Returns 0 or a negative errno.
 */
int srpt_ib_query_port(void *ib_device, uint32_t port_num,
		       struct srpt_port_desc *desc);

/*
 * Creates the RDMA/CM listener on [::]:@port, else 0.0.0.0:@port, with a
 * backlog of 128. Contract: process context. Returns 0 and the listener
 * (an rdma_cm_id) or a negative errno.
 */
int srpt_rdma_cm_listen(uint16_t port, void **listener);
/* Contract: process context; waits for running CM handlers. */
void srpt_rdma_cm_destroy(void *listener);

/*
 * 0 when @text is an IPv4 or IPv6 literal (with an optional %scope), as
 * the kernel's inet_pton_with_scope(AF_UNSPEC) parses it; -EINVAL if not.
 */
int srpt_inet_pton_with_scope(const char *text);

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
	/* srpt_core_add_device() handle (for the PD) */
	struct srpt_core_device *core_device;
	void *cm_id;        /* the connect request's id, of kind @cm */
	uint8_t cm;         /* enum srpt_dp_cm */
	uint16_t pkey;      /* IB/CM: P_Key of the REQ's primary path */
	struct srpt_core_ch *core_ch; /* handed back by every completion */
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
int srpt_dp_session_setup(struct srpt_dp_ch *ch,
			  struct srpt_core_port_id *port_id, const char *name,
			  uint32_t tag_num);
/*
 * Waits for a submission in progress (the glue's receive and kick work,
 * srpt_glue_completions_quiesce()), then target_stop_session +
 * target_wait_for_sess_cmds + target_remove_session.
 * Contract: process context (the release work), the channel no longer
 * live; sleeps until every command of the session was released.
 */
void srpt_dp_session_remove(struct srpt_dp_ch *ch);

enum srpt_dp_dir {
	SRPT_DP_DIR_NONE = 0,
	SRPT_DP_DIR_WRITE = 1, /* data-out: RDMA READ from the initiator */
	SRPT_DP_DIR_READ = 2,  /* data-in: RDMA WRITE to the initiator */
};

/* The SAM task attribute of a command (the core maps SRP's codes). */
enum srpt_dp_task_attr {
	SRPT_DP_TASK_SIMPLE = 0,
	SRPT_DP_TASK_HEAD_OF_QUEUE = 1,
	SRPT_DP_TASK_ORDERED = 2,
	SRPT_DP_TASK_ACA = 3,
};

/* One data descriptor of a command, in CPU order. */
struct srpt_dp_desc {
	uint64_t va;
	uint32_t key; /* the initiator's rkey */
	uint32_t len; /* never 0: the core rejects empty descriptors */
};

struct srpt_dp_cmd {
	uint64_t tag;             /* opaque, as on the wire */
	uint64_t lun;             /* scsilun_to_int() */
	const uint8_t *cdb;
	uint32_t cdb_len;
	uint32_t data_len;        /* what the descriptors offer */
	enum srpt_dp_dir dir;
	enum srpt_dp_task_attr task_attr;
	/* the command's send context keeps them until its next command */
	const struct srpt_dp_desc *desc;
	uint32_t n_desc;
	const uint8_t *imm_data;  /* immediate data in the receive buffer */
	uint32_t imm_len;
	/*
	 * A block READ or WRITE (srpt::IsBlockReadWrite()), which moves every
	 * byte of its data: its pages may have held earlier data of the
	 * channel (the glue's spare data pages).
	 */
	bool reuse_data;
};

/* The task management functions LIO executes for SRP. */
enum srpt_dp_tmf {
	SRPT_DP_TMF_ABORT_TASK,
	SRPT_DP_TMF_ABORT_TASK_SET,
	SRPT_DP_TMF_CLEAR_TASK_SET,
	SRPT_DP_TMF_LUN_RESET,
	SRPT_DP_TMF_CLEAR_ACA,
};

struct srpt_dp_tmr {
	uint64_t tag;
	uint64_t lun;
	enum srpt_dp_tmf func;
	uint64_t task_tag;
};

enum srpt_dp_handoff_kind {
	SRPT_DP_SUBMIT_CMD = 1, /* target_init_cmd ... target_submit */
	SRPT_DP_SUBMIT_TMR = 2, /* target_submit_tmr */
};

/*
 * A received IU the core hands to the glue for the target core
 * (srpt_core_dp_recv_done(), srpt_core_dp_handoff_done(),
 * srpt_core_dp_kick() in core_api.h). The glue submits it with no lock
 * held, stores the result in @rc (0: the target core owns the command and
 * ends it with release_cmd; negative: nothing was handed over, the core
 * answers it), and gives the hand-off back to srpt_core_dp_handoff_done().
 */
struct srpt_dp_handoff {
	enum srpt_dp_handoff_kind kind;
	uint32_t index; /* the command's send context */
	int rc;
	union {
		struct srpt_dp_cmd cmd;
		struct srpt_dp_tmr tmr;
	};
	/* The core's own: which receive context, and how it was taken. */
	uint32_t recv_index;
	uint8_t iu_kind;
	bool held;
	bool direct;
};

/*
 * Drops the fabric's reference on command @index (transport_generic_free_cmd;
 * for a command the target core never saw, srpt_core_dp_cmd_release()
 * directly). The core calls it only on error paths, when a response could
 * not be posted; the usual put follows a send completion in the glue.
 * Contract: any context, no core lock held.
 */
void srpt_dp_put_cmd(struct srpt_dp_ch *ch, uint32_t index);

/*
 * Queues the channel's kick work item, which serves the wait list
 * (srpt_core_dp_kick()). Contract: any context; never sleeps.
 */
void srpt_dp_kick(struct srpt_dp_ch *ch);

/* ---- debugfs and test knobs (glue/debugfs.c) ------------------------ */

/* Test knob: debugfs ib_srpt/test_send_ctx_limit (0 = off). */
uint32_t srpt_dp_test_send_ctx_limit(void);
/*
 * Test knob: debugfs ib_srpt/test_send_done_delay_us (0 = off): channels
 * created afterwards hand each successful send completion to the data path
 * only after this delay (include/srpt/send_done_hold.hpp). Any context.
 */
uint32_t srpt_dp_test_send_done_delay_us(void);
/*
 * debugfs directory <name>-<id> of a channel with its "stats" file (the
 * core's counters and the glue channel's own); NULL when debugfs is off.
 * Removal waits for readers of the file.
 */
void *srpt_dp_debugfs_add(struct srpt_dp_ch *ch, const char *name,
			  uint32_t id);
void srpt_dp_debugfs_remove(void *dentry);

#ifdef __cplusplus
}
#endif

#endif /* SRPT_RDMA_GLUE_H */
