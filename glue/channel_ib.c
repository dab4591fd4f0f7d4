// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verbs for a channel: CQ (its own receive CQ, a pool CQ for the send
 * queue; one pool CQ for both on an SRQ) and QP creation (through the
 * channel's CM, struct srpt_cm_ops), DMA mapping of the buffers the C++
 * core allocated, posting receives, responses, RDMA READs and the
 * zero-length write, and the QP's drain at teardown. The completion
 * callbacks, and the CQ polling that calls them, are glue/completion.c.
 */
#include "pr_fmt.h"

#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include "channel_ib.h"
#include "srpt_trace.h"
#include "glue.h"
#include "kcompat.h"

#define SRPT_MIN_SQ_SIZE 16

static struct ib_device *srpt_ch_dev(struct srpt_dp_ch *ch)
{
	return ch->device;
}

static const struct srpt_cm_ops *srpt_cm_ops_of(enum srpt_dp_cm cm)
{
	return cm == SRPT_DP_IB_CM ? &srpt_ib_cm_ops : &srpt_rdma_cm_ops;
}

/**
 * srpt_qp_event() - asynchronous event of a channel's queue pair
 * @event: the event; IB_EVENT_COMM_EST is passed to the connection manager
 *	(a SEND arrived before the RTU), others are logged
 * @ctx: the channel (struct srpt_dp_ch)
 *
 * Context: any; never sleeps.
 */
static void srpt_qp_event(struct ib_event *event, void *ctx)
{
	struct srpt_dp_ch *ch = ctx;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		ch->cm->notify(ch, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		complete(&ch->last_wqe);
		break;
	default:
		pr_err("QP event %s (%d)\n",
		       ib_event_msg(event->event), event->event);
		break;
	}
}

/* After the QP is gone: no completion, hence no event, can come. */
static void srpt_cqs_put(struct srpt_dp_ch *ch)
{
	if (ch->send_cq)
		ib_cq_pool_put(ch->send_cq, ch->send_cq_size);
	ch->send_cq = NULL;
	if (ch->cq && ch->split_cqs)
		ib_destroy_cq(ch->cq);
	else if (ch->cq)
		ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->cq = NULL;
}

/* Spreads the channels' own receive CQs over the device's vectors. */
static atomic_t srpt_rx_cq_vector = ATOMIC_INIT(0);

/*
 * The channel's receive CQ, its own (srpt_rx_cq_event() queues rx_work),
 * armed before any receive is posted.
 */
static struct ib_cq *srpt_rx_cq_create(struct srpt_dp_ch *ch, int size)
{
	struct ib_device *dev = ch->device;
	struct ib_cq_init_attr attr = {
		.cqe = size,
		.comp_vector = (u32)atomic_inc_return(&srpt_rx_cq_vector) %
			       max(dev->num_comp_vectors, 1),
	};
	struct ib_cq *cq;
	int ret;

	cq = ib_create_cq(dev, srpt_glue_rx_cq_event, NULL, ch, &attr);
	if (IS_ERR(cq))
		return cq;
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	if (ret) {
		ib_destroy_cq(cq);
		return ERR_PTR(ret);
	}
	return cq;
}

/*
 * The channel's CQs: receives on its own CQ, polled by rx_work, the send
 * queue's on a pool CQ polled in softirq; with an SRQ one pool CQ for
 * both, polled from ib_core's work item (see the top of this file).
 */
static int srpt_cqs_get(struct srpt_dp_ch *ch, int rq_size, int sq_size,
			bool srq)
{
	struct ib_device *dev = ch->device;
	int cq_size = srq ? rq_size + sq_size : rq_size;
	int ret;

	ch->split_cqs = !srq;
	if (srq)
		ch->cq = ib_cq_pool_get(dev, cq_size, -1, IB_POLL_WORKQUEUE);
	else
		ch->cq = srpt_rx_cq_create(ch, cq_size);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		pr_err("failed to create a CQ of %d entries: %d\n",
		       cq_size, ret);
		return ret;
	}
	ch->cq_size = cq_size;
	if (srq)
		return 0;
	ch->send_cq = ib_cq_pool_get(dev, sq_size, -1, IB_POLL_SOFTIRQ);
	if (IS_ERR(ch->send_cq)) {
		ret = PTR_ERR(ch->send_cq);
		ch->send_cq = NULL;
		pr_err("failed to create a send CQ of %d entries: %d\n",
		       sq_size, ret);
		srpt_cqs_put(ch);
		return ret;
	}
	ch->send_cq_size = sq_size;
	return 0;
}

static void srpt_dp_ch_free(struct srpt_dp_ch *ch)
{
	kvfree(ch->recv);
	if (ch->send)
		srpt_glue_free_spares(ch);
	kvfree(ch->send);
	kfree(ch);
}

int srpt_dp_ch_create(const struct srpt_dp_ch_args *args,
		      struct srpt_dp_ch **out, uint32_t *max_send_wr)
{
	const struct ib_device_attr *attrs;
	struct ib_qp_init_attr qp_init;
	struct ib_device *dev;
	struct srpt_dp_ch *ch;
	int sq_size = args->sq_size;
	u32 i;
	int ret;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return -ENOMEM;
	ch->core = args->core_ch;
	ch->name = args->name;
	ch->cm = srpt_cm_ops_of(args->cm);
	ch->cm->attach(ch, args->cm_id);
	ch->pkey = args->pkey;
	dev = ch->device;
	attrs = &dev->attrs;
	ch->port_num = args->port_num;
	ch->gdev = srpt_glue_device_of(dev);
	ch->n_recv = args->n_recv;
	ch->n_send = args->n_send;
	spin_lock_init(&ch->spare_lock);
	init_completion(&ch->last_wqe);
	ch->recv = kvcalloc(args->n_recv, sizeof(*ch->recv), GFP_KERNEL);
	ch->send = kvcalloc(args->n_send, sizeof(*ch->send), GFP_KERNEL);
	ret = -ENOMEM;
	if (!ch->recv || !ch->send || srpt_glue_alloc_spares(ch))
		goto free;
	ret = -ENODEV;
	if (!ch->gdev)
		goto free;
	for (i = 0; i < ch->n_recv; i++) {
		ch->recv[i].ch = ch;
		ch->recv[i].index = i;
	}
	for (i = 0; i < ch->n_send; i++) {
		ch->send[i].ch = ch;
		ch->send[i].index = i;
	}
	srpt_glue_completions_init(ch);

retry:
	ret = srpt_cqs_get(ch, args->rq_size, sq_size, args->srq != NULL);
	if (ret)
		goto free;

	memset(&qp_init, 0, sizeof(qp_init));
	qp_init.qp_context = ch;
	qp_init.event_handler = srpt_qp_event;
	qp_init.send_cq = ch->send_cq ? ch->send_cq : ch->cq;
	qp_init.recv_cq = ch->cq;
	qp_init.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_init.qp_type = IB_QPT_RC;
	/* Half SENDs for responses, half R/W contexts (as in-tree). */
	qp_init.cap.max_send_wr = min(sq_size / 2, attrs->max_qp_wr);
	qp_init.cap.max_rdma_ctxs = sq_size / 2;
	qp_init.cap.max_send_sge = attrs->max_send_sge;
	qp_init.cap.max_recv_sge = 1;
	if (args->srq)
		qp_init.srq = srpt_glue_ib_srq(args->srq);
	else
		qp_init.cap.max_recv_wr = args->rq_size;
	qp_init.port_num = args->port_num;

	ret = ch->cm->create_qp(ch, &qp_init);
	if (ret) {
		srpt_cqs_put(ch);
		if (sq_size > SRPT_MIN_SQ_SIZE) {
			pr_debug("QP with sq_size %d failed (%d), retrying\n",
				 sq_size, ret);
			sq_size = max(sq_size / 2, SRPT_MIN_SQ_SIZE);
			goto retry;
		}
		pr_err("failed to create a QP with sq_size %d: %d\n",
		       sq_size, ret);
		goto free;
	}
	*max_send_wr = qp_init.cap.max_send_wr;
	*out = ch;
	return 0;

free:
	srpt_dp_ch_free(ch);
	return ret;
}

int srpt_glue_dma_map(struct ib_device *dev, void *buf, u32 len,
		      enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(dev, buf, len, dir);
	return ib_dma_mapping_error(dev, *dma) ? -ENOMEM : 0;
}

int srpt_dp_map_recv(struct srpt_dp_ch *ch, uint32_t index, void *buf,
		     uint32_t len)
{
	struct srpt_glue_recv *r = &ch->recv[index];
	int ret = srpt_glue_dma_map(srpt_ch_dev(ch), buf, len, DMA_FROM_DEVICE,
				    &r->dma);

	if (ret)
		return ret;
	r->buf = buf;
	r->len = len;
	r->mapped = true;
	return 0;
}

int srpt_dp_map_send(struct srpt_dp_ch *ch, uint32_t index, void *buf,
		     uint32_t len)
{
	struct srpt_glue_send *s = &ch->send[index];
	int ret = srpt_glue_dma_map(srpt_ch_dev(ch), buf, len, DMA_TO_DEVICE,
				    &s->dma);

	if (ret)
		return ret;
	s->buf = buf;
	s->len = len;
	s->mapped = true;
	return 0;
}

/*
 * ib_drain_qp() for a QP without SRQ. With an SRQ, see kcompat.h: QP to
 * ERR, the last-WQE event where the core promises one (it is latched:
 * the QP may have reached ERR long before), then a send-queue drain whose
 * completion follows every completion of this QP on the shared CQ; the
 * pool's poller runs them all, never this thread.
 */
static void srpt_drain_qp(struct srpt_dp_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	if (!ch->qp->srq) {
		ib_drain_qp(ch->qp);
		return;
	}
	ret = ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	if (ret)
		pr_warn("moving QP %u to ERR failed: %d\n",
			ch->qp->qp_num, ret);
	if (SRPT_SRQ_LAST_WQE_EVENT && !ret &&
	    !wait_for_completion_timeout(&ch->last_wqe, 60 * HZ))
		pr_warn("no last-WQE event for QP %u in 60 s\n",
			ch->qp->qp_num);
	ib_drain_sq(ch->qp);
}

void srpt_dp_ch_destroy(struct srpt_dp_ch *ch, bool destroy_cm_id)
{
	struct ib_device *dev = srpt_ch_dev(ch);
	bool id_first = destroy_cm_id && ch->cm->destroy_id_first;
	u32 i;

	/* The QP is in ERR already (Close), or was never connected. */
	if (id_first)
		ch->cm->destroy_id(ch);
	if (ch->qp) {
		/* No receive is posted behind the drain's marker... */
		srpt_glue_completions_quiesce(ch);
		/* ...every posted WR completes before the QP goes... */
		srpt_drain_qp(ch);
		/* ...and the core has seen them. */
		srpt_glue_completions_flush(ch);
		ch->cm->destroy_qp(ch);
		ch->qp = NULL;
		srpt_cqs_put(ch);
	}
	for (i = 0; i < ch->n_recv; i++)
		if (ch->recv[i].mapped)
			ib_dma_unmap_single(dev, ch->recv[i].dma,
					    ch->recv[i].len, DMA_FROM_DEVICE);
	for (i = 0; i < ch->n_send; i++)
		if (ch->send[i].mapped)
			ib_dma_unmap_single(dev, ch->send[i].dma,
					    ch->send[i].len, DMA_TO_DEVICE);
	if (!destroy_cm_id)
		ch->cm->detach_id(ch);
	else if (!id_first)
		ch->cm->destroy_id(ch);
	srpt_dp_ch_free(ch);
}

/* ---- connection management: the channel's CM decides how ------------- */

int srpt_dp_cm_accept(struct srpt_dp_ch *ch, const void *pdata, uint32_t len)
{
	return ch->cm->accept(ch, pdata, len);
}

void srpt_dp_cm_reject(enum srpt_dp_cm cm, void *cm_id, const void *pdata,
		       uint32_t len)
{
	srpt_cm_ops_of(cm)->reject(cm_id, pdata, len);
}

int srpt_dp_cm_disconnect(struct srpt_dp_ch *ch)
{
	return ch->cm->disconnect(ch);
}

int srpt_dp_cm_drep(struct srpt_dp_ch *ch)
{
	return ch->cm->drep(ch);
}

int srpt_glue_post_recv(struct ib_device *dev, struct ib_qp *qp,
			struct ib_srq *srq, struct ib_cqe *cqe, u64 dma,
			u32 len, u32 lkey)
{
	struct ib_sge sge = {
		.addr = dma,
		.length = len,
		.lkey = lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(dev, dma, len, DMA_FROM_DEVICE);
	return srq ? ib_post_srq_recv(srq, &wr, NULL) :
		     ib_post_recv(qp, &wr, NULL);
}

int srpt_dp_post_recv(struct srpt_dp_ch *ch, uint32_t index)
{
	struct srpt_glue_recv *r = &ch->recv[index];

	return srpt_glue_post_recv(srpt_ch_dev(ch), ch->qp, NULL, &r->cqe,
				   r->dma, r->len,
				   ch->gdev->pd->local_dma_lkey);
}

int srpt_dp_post_send(struct srpt_dp_ch *ch, uint32_t index, uint32_t len,
		      uint32_t n_rdma_writes)
{
	struct srpt_glue_send *s = &ch->send[index];
	struct ib_sge sge = {
		.addr = s->dma,
		.length = len,
		.lkey = ch->gdev->pd->local_dma_lkey,
	};
	struct ib_send_wr send_wr = {
		.wr_cqe = &s->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_send_wr *first = &send_wr;
	int i;

	if (WARN_ON_ONCE(len > s->len))
		return -EINVAL;
	/* Data-in: RDMA WRITEs chained, unsignalled, before the response. */
	if (n_rdma_writes)
		for (i = s->n_rw - 1; i >= 0; i--)
			if (s->rw[i].rw_nents)
				first = rdma_rw_ctx_wrs(&s->rw[i].rw, ch->qp,
							ch->port_num, NULL,
							first);
	ib_dma_sync_single_for_device(srpt_ch_dev(ch), s->dma, len,
				      DMA_TO_DEVICE);
	return ib_post_send(ch->qp, first, NULL);
}

int srpt_dp_post_rdma_read(struct srpt_dp_ch *ch, uint32_t index)
{
	struct srpt_glue_send *s = &ch->send[index];
	struct ib_send_wr *first = NULL;
	struct ib_cqe *cqe = &s->rdma_cqe;
	int i;

	if (WARN_ON_ONCE(s->n_rw == 0))
		return -EINVAL;
	for (i = s->n_rw - 1; i >= 0; i--) {
		first = rdma_rw_ctx_wrs(&s->rw[i].rw, ch->qp, ch->port_num,
					cqe, first);
		cqe = NULL;
	}
	return ib_post_send(ch->qp, first, NULL);
}

int srpt_dp_post_zlw(struct srpt_dp_ch *ch)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &ch->zlw_cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};

	return ib_post_send(ch->qp, &wr.wr, NULL);
}

int srpt_dp_qp_error(struct srpt_dp_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
}
