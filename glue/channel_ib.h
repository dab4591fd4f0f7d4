/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The glue's half of a channel: what the kernel objects of one SRP channel
 * are (QP, CQ, cm_id, LIO session, per-context ib_cqe / se_cmd / rdma_rw
 * contexts). Shared by glue/channel_ib.c (verbs), glue/target_core.c (LIO)
 * and glue/rdma_cm.c (CM). C only. No policy here: every decision is made
 * by the C++ core (src/channel.cpp), which owns the channel.
 */
#ifndef SRPT_GLUE_CHANNEL_IB_H
#define SRPT_GLUE_CHANNEL_IB_H

#include <linux/scatterlist.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>

#include <srpt/datapath.h>

struct srpt_glue_device;

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
	struct scatterlist *sg;
	unsigned int nents;    /* entries allocated in sg */
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
	bool imm;                  /* data-out is immediate data */
	u8 dir;                    /* enum srpt_dp_dir */
	enum dma_data_direction rw_dir;
	struct srpt_glue_rw s_rw;  /* the single-descriptor case */
	struct srpt_glue_rw *rw;   /* s_rw or an array of n_rw */
	struct scatterlist *sg;    /* the chained lists of all rw contexts */
	u32 sg_cnt;
	u32 desc_len;              /* bytes all descriptors offer */
	u32 n_rw;
	u32 n_rdma;                /* WRs of all rw contexts */
	struct scatterlist imm_sg;
	u8 sense[TRANSPORT_SENSE_BUFFER];
};

struct srpt_dp_ch {
	void *core;                 /* the C++ Channel */
	struct srpt_glue_device *gdev;
	struct rdma_cm_id *cm_id;
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 cq_size;
	u32 port_num;
	struct ib_cqe zlw_cqe;
	struct se_session *sess;
	u32 n_recv;
	u32 n_send;
	struct srpt_glue_recv *recv;
	struct srpt_glue_send *send;
};

/* glue/srq.c: the ib_srq a channel's QP receives from. */
struct ib_srq *srpt_glue_ib_srq(struct srpt_dp_srq *srq);

/* glue/target_core.c: per-command resources, released by release_cmd. */
void srpt_glue_free_rw(struct srpt_dp_ch *ch, struct srpt_glue_send *s);

/* glue/debugfs.c */
int srpt_glue_dp_init(void);
void srpt_glue_dp_exit(void);

#endif
