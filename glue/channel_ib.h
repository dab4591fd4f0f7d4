/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The glue's half of a channel: what the kernel objects of one SRP channel
 * are (QP, CQ, cm_id, LIO session, per-context ib_cqe / se_cmd / rdma_rw
 * contexts). Shared by glue/channel_ib.c (verbs), glue/target_core.c (LIO)
 * and glue/rdma_cm.c, glue/ib_cm.c (the two CMs). C only. No policy here:
 * every decision is made by the C++ core (src/channel.cpp,
 * src/srp_command.cpp), which owns the channel.
 */
#ifndef SRPT_GLUE_CHANNEL_IB_H
#define SRPT_GLUE_CHANNEL_IB_H

#include <linux/completion.h>
#include <linux/llist.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>

#include <srpt/core_api.h>
#include <srpt/rdma_glue.h>

struct srpt_glue_device;

/* Completions rx_work takes from the receive CQ per ib_poll_cq() call. */
#define SRPT_RX_POLL_BATCH 16

struct srpt_glue_recv {
	struct ib_cqe cqe;
	struct srpt_dp_ch *ch;
	u32 index;
	u32 len;
	void *buf;
	u64 dma;
	bool mapped;
};

struct srpt_glue_rw {
	struct rdma_rw_ctx rw;
	/*
	 * Single descriptor: the command's data list itself. Several: a view
	 * over the descriptor's bytes of that list, entries of the command's
	 * view array (struct srpt_glue_send.views).
	 */
	struct scatterlist *sg;
	unsigned int nents;    /* entries of sg */
	unsigned int rw_nents; /* entries the rw context maps; 0: none */
	u64 va;                /* the descriptor */
	u32 key;
	u32 len;
};

struct srpt_glue_send {
	struct se_cmd cmd;
	struct ib_cqe send_cqe;
	struct ib_cqe rdma_cqe;
	struct srpt_dp_ch *ch;
	u32 index;
	u32 len;
	void *buf;
	u64 dma;
	bool mapped;
	/* Per command, reset by each submit. */
	bool in_lio;               /* the target core owns a reference */
	u64 t_submit_ns;           /* handed to LIO (srpt_cmd_rsp tracing) */
	bool imm;                  /* data-out is immediate data */
	u8 dir;                    /* enum srpt_dp_dir */
	enum dma_data_direction rw_dir;
	struct srpt_glue_rw s_rw;  /* the single-descriptor case */
	struct srpt_glue_rw *rw;   /* s_rw or an array of n_rw */
	struct scatterlist *sg;    /* what the target core gets */
	u32 sg_cnt;
	struct scatterlist *data_sg; /* the data as whole pages, for LIO */
	unsigned int data_nents;
	bool reuse_data;           /* a block READ/WRITE: its pages may be spare */
	/*
	 * Not reset per command: the scatterlist array of this context's
	 * block READs and WRITEs (keep_nents entries, at most SRPT_KEEP_SG),
	 * refilled with pages from the channel's spare pool for each
	 * (glue/target_core.c, "Spare data pages").
	 */
	struct scatterlist *keep_sg;
	unsigned int keep_nents;
	/*
	 * Spare pages attached to this context: entries [0, kept_pages) of
	 * keep_sg hold them between commands, and its next block command
	 * takes them first, with no lock (glue/spare_pages.c).
	 */
	unsigned int kept_pages;
	struct scatterlist *views; /* several descriptors: all their views */
	u32 desc_len;              /* bytes all descriptors offer */
	u32 n_rw;
	u32 n_rdma;                /* WRs of all rw contexts */
	struct scatterlist imm_sg;
	u8 sense[TRANSPORT_SENSE_BUFFER];
	/*
	 * Not reset per command: sense[] holds only zeros, because the
	 * command that used it last answered without sense (set by
	 * srpt_queue_rsp()); the next submit clears it only when not.
	 */
	bool sense_clean;
	/*
	 * A completion handed from the send CQ's softirq poller to process
	 * context (struct srpt_dp_ch.wc_work). A context has at most one
	 * RDMA READ chain and one SEND outstanding, never both at once.
	 */
	struct llist_node send_deferred;
	struct llist_node rdma_deferred;
	bool send_ok;
	bool rdma_ok;
};

/*
 * What differs between the two connection managers for a channel, one
 * table each (glue/rdma_cm.c, glue/ib_cm.c): channel_ib.c calls through
 * it and never asks which CM it has. Control path only (no I/O goes
 * through these indirect calls).
 */
struct srpt_cm_ops {
	const char *name;
	/*
	 * Destroy the id before the QP (IB/CM, as in-tree): its handler
	 * modifies the QP (RTS on an RTU) and ib_destroy_cm_id() waits for
	 * it. RDMA/CM's QP hangs off the id and must go first.
	 */
	bool destroy_id_first;
	/* Takes @cm_id (ch->cm_id or ch->ib_cm_id) and ch->device. */
	void (*attach)(struct srpt_dp_ch *ch, void *cm_id);
	/*
	 * Creates ch->qp on the device's PD, ready for receives; on success
	 * the id's context is @ch.
	 */
	int (*create_qp)(struct srpt_dp_ch *ch, struct ib_qp_init_attr *init);
	void (*destroy_qp)(struct srpt_dp_ch *ch);
	int (*accept)(struct srpt_dp_ch *ch, const void *pdata, u32 len);
	void (*reject)(void *cm_id, const void *pdata, u32 len);
	int (*disconnect)(struct srpt_dp_ch *ch);
	int (*drep)(struct srpt_dp_ch *ch);
	/* IB_EVENT_COMM_EST on the QP: the CM takes it as an RTU. */
	void (*notify)(struct srpt_dp_ch *ch, enum ib_event_type event);
	/* Destroys the id (waits for its handlers) or leaves it to the CM. */
	void (*destroy_id)(struct srpt_dp_ch *ch);
	void (*detach_id)(struct srpt_dp_ch *ch);
};

extern const struct srpt_cm_ops srpt_rdma_cm_ops; /* glue/rdma_cm.c */
extern const struct srpt_cm_ops srpt_ib_cm_ops;   /* glue/ib_cm.c */

struct srpt_dp_ch {
	struct srpt_core_ch *core;  /* the C++ Channel */
	const char *name;           /* the session, for tracepoints */
	struct srpt_glue_device *gdev;
	const struct srpt_cm_ops *cm;
	struct rdma_cm_id *cm_id;   /* RDMA/CM channels */
	struct ib_cm_id *ib_cm_id;  /* IB/CM channels */
	struct ib_device *device;
	u16 pkey;                   /* IB/CM: the REQ's P_Key */
	struct ib_qp *qp;
	/*
	 * Receives: the channel's own CQ, polled by rx_work on srpt_wc_wq
	 * (glue/channel_ib.c). SRQ: a pool CQ for both queues, polled from
	 * ib_core's work item.
	 */
	struct ib_cq *cq;
	u32 cq_size;
	struct ib_cq *send_cq;      /* SENDs, RDMA READs: softirq; NULL: cq */
	u32 send_cq_size;
	bool split_cqs;             /* cq is the channel's own, send_cq set */
	struct work_struct rx_work;
	struct ib_wc rx_wc[SRPT_RX_POLL_BATCH];
	/*
	 * Send-side completions that need process context, in the order the
	 * send CQ delivered them: the core serves them from wc_work (on
	 * srpt_wc_wq, glue/channel_ib.c).
	 */
	struct work_struct wc_work;
	/* Serves the wait list (srpt_dp_kick(), glue/completion.c). */
	struct work_struct kick_work;
	struct llist_head send_deferred;
	struct llist_head rdma_deferred;
	atomic_t zlw_deferred;      /* 0, or SRPT_ZLW_FLUSHED / SRPT_ZLW_OK */
	u32 port_num;
	struct ib_cqe zlw_cqe;
	struct completion last_wqe; /* SRQ QPs: IB_EVENT_QP_LAST_WQE_REACHED */
	struct se_session *sess;
	u32 n_recv;
	u32 n_send;
	struct srpt_glue_recv *recv;
	struct srpt_glue_send *send;
	/* Spare data pages (glue/spare_pages.c): a stack of spare_max. */
	spinlock_t spare_lock;
	struct page **spare;
	u32 spare_pages;            /* in spare[]; written under spare_lock */
	u32 spare_max;              /* bound of spare_held, set at creation */
	/* Spare pages: the pool's and those attached to send contexts. */
	atomic_t spare_held;
	atomic64_t spare_misses;    /* new pages for block commands */
};

/*
 * glue/completion.c: the completion callbacks and what follows each call
 * into the core (its contract is at the top of that file).
 */
void srpt_glue_completions_init(struct srpt_dp_ch *ch);
/* Before the QP's drain: no kick, no receive hand-off left running. */
void srpt_glue_completions_quiesce(struct srpt_dp_ch *ch);
/* After it: every completion handed to the core. */
void srpt_glue_completions_flush(struct srpt_dp_ch *ch);
void srpt_glue_rx_cq_event(struct ib_cq *cq, void *ctx);
/* A receive completed (own ring or SRQ): the core, then the hand-offs. */
void srpt_glue_recv_done(struct srpt_dp_ch *ch, u32 index, u32 len, bool ok);
/* Logs a failed completion, rate-limited; flushes are quiet. */
void srpt_glue_log_wc(const char *what, struct ib_wc *wc);

/*
 * glue/target_core.c implements the target core's calls that
 * glue/completion.c makes after the core returned: <srpt/dp_next.h>.
 */
#include <srpt/dp_next.h>

/*
 * glue/channel_ib.c, for a channel's own buffers and the SRQ's
 * (glue/srq.c) alike: DMA-maps @len bytes at @buf (0 or -ENOMEM); posts
 * one receive of the mapped buffer @dma, @len, completing on @cqe, to @srq
 * when not NULL, else to @qp, after syncing it for the device.
 */
int srpt_glue_dma_map(struct ib_device *dev, void *buf, u32 len,
		      enum dma_data_direction dir, u64 *dma);
int srpt_glue_post_recv(struct ib_device *dev, struct ib_qp *qp,
			struct ib_srq *srq, struct ib_cqe *cqe, u64 dma,
			u32 len, u32 lkey);

/* glue/srq.c: the ib_srq a channel's QP receives from. */
struct ib_srq *srpt_glue_ib_srq(struct srpt_dp_srq *srq);

/* glue/target_core.c: per-command resources, released by release_cmd. */
void srpt_glue_free_rw(struct srpt_dp_ch *ch, struct srpt_glue_send *s);
/* A channel's default bound of spare data pages: 4 MiB, QD32 at 128 KiB. */
#define SRPT_SPARE_PAGES 1024
/* The largest bound a channel takes: 1 GiB of pages, a 2 MiB array. */
#define SRPT_SPARE_PAGES_LIMIT (1U << 18)
/*
 * glue/spare_pages.c: a channel's spare data pages (its contract is at the
 * top of that file).
 */
/* Allocates the channel's spare page array (channel creation). */
int srpt_glue_alloc_spares(struct srpt_dp_ch *ch);
/* Frees the spare data pages and kept arrays (channel teardown). */
void srpt_glue_free_spares(struct srpt_dp_ch *ch);
/*
 * The data list of @s's command, @len bytes: for a block READ or WRITE,
 * pages from the channel's spare pool in the context's kept array;
 * otherwise target_alloc_sgl()'s. Process context.
 */
int srpt_glue_get_data_sgl(struct srpt_dp_ch *ch, struct srpt_glue_send *s,
			   u32 len);
/* Gives the command's data pages back to the pool, or frees them. */
void srpt_glue_put_data_sgl(struct srpt_dp_ch *ch, struct srpt_glue_send *s);

#endif
