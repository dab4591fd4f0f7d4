// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verbs of a device's shared receive queue: ib_create_srq() on the
 * device's PD, DMA mapping of the receive buffers the C++ core allocated,
 * ib_post_srq_recv(), and the receive completion trampoline of SRQ
 * contexts. When the SRQ exists and who uses it is decided by the core
 * (src/srq.cpp).
 */
#include "pr_fmt.h"

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "channel_ib.h"
#include "glue.h"

struct srpt_glue_srq_recv {
	struct ib_cqe cqe;
	u32 index;
	u32 len;
	u64 dma;
	bool mapped;
};

struct srpt_dp_srq {
	struct ib_device *dev;
	struct ib_srq *srq;
	u32 lkey;
	u32 size;
	struct srpt_glue_srq_recv *recv;
};

struct ib_srq *srpt_glue_ib_srq(struct srpt_dp_srq *srq)
{
	return srq->srq;
}

static void srpt_srq_event(struct ib_event *event, void *ctx)
{
	pr_debug("SRQ event %s (%d)\n", ib_event_msg(event->event),
		 event->event);
}

/*
 * The WR was consumed by some channel's QP and completes on that QP's CQ:
 * the channel is the QP's context (as in-tree srpt_recv_done()).
 */
static void srpt_srq_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_glue_srq_recv *r =
		container_of(wc->wr_cqe, struct srpt_glue_srq_recv, cqe);
	struct srpt_dp_ch *ch = wc->qp->qp_context;
	bool ok = wc->status == IB_WC_SUCCESS;
	u32 len = 0;

	if (ok) {
		len = min(wc->byte_len, r->len);
		ib_dma_sync_single_for_cpu(cq->device, r->dma, len,
					   DMA_FROM_DEVICE);
	} else {
		srpt_glue_log_wc("receive", wc);
	}
	srpt_glue_recv_done(ch, r->index, len, ok);
}

static void srpt_dp_srq_free(struct srpt_dp_srq *q)
{
	kvfree(q->recv);
	kfree(q);
}

int srpt_dp_srq_create(void *ib_device, uint32_t size,
		       struct srpt_dp_srq **out)
{
	struct ib_device *dev = ib_device;
	struct srpt_glue_device *gdev = srpt_glue_device_of(dev);
	struct ib_srq_init_attr attr = {
		.event_handler = srpt_srq_event,
		.attr.max_wr = size,
		.attr.max_sge = 1,
		.srq_type = IB_SRQT_BASIC,
	};
	struct srpt_dp_srq *q;
	u32 i;
	int ret;

	if (!gdev)
		return -ENODEV;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->recv = kvcalloc(size, sizeof(*q->recv), GFP_KERNEL);
	if (!q->recv) {
		ret = -ENOMEM;
		goto free;
	}
	for (i = 0; i < size; i++) {
		q->recv[i].cqe.done = srpt_srq_recv_done;
		q->recv[i].index = i;
	}
	attr.srq_context = q;
	q->srq = ib_create_srq(gdev->pd, &attr);
	if (IS_ERR(q->srq)) {
		ret = PTR_ERR(q->srq);
		goto free;
	}
	q->dev = dev;
	q->lkey = gdev->pd->local_dma_lkey;
	q->size = size;
	*out = q;
	return 0;

free:
	srpt_dp_srq_free(q);
	return ret;
}

int srpt_dp_srq_map_recv(struct srpt_dp_srq *q, uint32_t index, void *buf,
			 uint32_t len)
{
	struct srpt_glue_srq_recv *r;

	if (WARN_ON_ONCE(index >= q->size))
		return -EINVAL;
	r = &q->recv[index];
	if (srpt_glue_dma_map(q->dev, buf, len, DMA_FROM_DEVICE, &r->dma))
		return -ENOMEM;
	r->len = len;
	r->mapped = true;
	return 0;
}

int srpt_dp_srq_post_recv(struct srpt_dp_srq *q, uint32_t index)
{
	struct srpt_glue_srq_recv *r = &q->recv[index];

	return srpt_glue_post_recv(q->dev, NULL, q->srq, &r->cqe, r->dma,
				   r->len, q->lkey);
}

void srpt_dp_srq_destroy(struct srpt_dp_srq *q)
{
	u32 i;

	ib_destroy_srq(q->srq);
	for (i = 0; i < q->size; i++)
		if (q->recv[i].mapped)
			ib_dma_unmap_single(q->dev, q->recv[i].dma,
					    q->recv[i].len, DMA_FROM_DEVICE);
	srpt_dp_srq_free(q);
}
