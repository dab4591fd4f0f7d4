// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verbs for a channel: CQ (shared pool) and QP creation (through the
 * channel's CM, struct srpt_cm_ops), DMA mapping of the
 * buffers the C++ core allocated, posting receives, responses, RDMA READs
 * and the zero-length write, and the ib_cqe.done trampolines that hand each
 * completion to the core. Every completion callback has the same shape:
 * recover the context from wc->wr_cqe, quiet on flush errors, one call.
 *
 * Two CQs per channel. Receives complete on the channel's own CQ, whose
 * event queues rx_work on srpt_wc_wq, which polls it and submits each IU
 * to the target core (which sleeps). srpt_wc_wq is a bound queue of
 * normal priority, as LIO's completion queue is: the response work that
 * a submission queues on this CPU (target_complete_cmd()) then runs in
 * the same worker right after rx_work, without waking another one.
 * In-tree's receives run in ib_core's CQ poll work, whose pool is high
 * priority, so each command wakes a second worker for its response; a
 * pool CQ cannot be polled from another queue, hence the own CQ.
 *
 * The send queue's completions (responses, RDMA READ chains, the
 * zero-length write) complete on a pool CQ polled in softirq
 * (IB_POLL_SOFTIRQ): a successful response's completion, the usual one,
 * only returns its context and credit (srpt_core_dp_send_done_atomic),
 * and saves the wake-up of a poll work per command. What may sleep goes
 * to the channel's wc_work on srpt_wc_wq, in arrival order: RDMA READ
 * completions (the command executes), failed completions (they
 * disconnect), the zero-length write, and a response completion the core
 * refuses to finish atomically (responses wait for send-queue room).
 *
 * A QP that receives from the device's SRQ keeps one CQ for both, polled
 * from a work item, and its completions go to the core there: its
 * teardown needs the send queue's drain to complete after every receive
 * completion of the QP, which only one CQ orders (srpt_drain_qp()).
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include "channel_ib.h"
#include "srpt_trace.h"
#include "glue.h"
#include "kcompat.h"

#define SRPT_MIN_SQ_SIZE 16

/*
 * Where receives are polled (struct srpt_dp_ch.rx_work), send-side
 * completions that may sleep run (wc_work), and the channels' kicks.
 * Per-CPU and of normal priority, like LIO's target_completion queue, so
 * that both share the CPU's worker pool: the response work a command's
 * submission queues is run by the same worker once rx_work returns, with
 * no wake-up (see the top of this file). With a rescuer, since executing
 * a command may be what frees memory.
 */
static struct workqueue_struct *srpt_wc_wq;

int srpt_glue_wc_init(void)
{
	srpt_wc_wq = alloc_workqueue("ib_srpt_wc", WQ_MEM_RECLAIM, 0);
	return srpt_wc_wq ? 0 : -ENOMEM;
}

struct workqueue_struct *srpt_glue_wc_wq(void)
{
	return srpt_wc_wq;
}

/* After every channel is gone (each one flushed its work). */
void srpt_glue_wc_exit(void)
{
	destroy_workqueue(srpt_wc_wq);
	srpt_wc_wq = NULL;
}

/* struct srpt_dp_ch.zlw_deferred */
#define SRPT_ZLW_FLUSHED 1
#define SRPT_ZLW_OK 2

static struct ib_device *srpt_ch_dev(struct srpt_dp_ch *ch)
{
	return ch->device;
}

static const struct srpt_cm_ops *srpt_cm_ops_of(enum srpt_dp_cm cm)
{
	return cm == SRPT_DP_IB_CM ? &srpt_ib_cm_ops : &srpt_rdma_cm_ops;
}

static void srpt_log_wc(const char *what, struct ib_wc *wc)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info_ratelimited("ib_srpt: %s failed: %s (%d)\n", what,
				    ib_wc_status_msg(wc->status), wc->status);
}

/**
 * srpt_recv_done() - receive completion callback: an IU arrived
 * @cq: the channel's receive CQ (its own; SRQ: a pool CQ, IB_POLL_WORKQUEUE)
 * @wc: work completion; wr_cqe is the receive context's ib_cqe
 *
 * Makes the received bytes visible to the CPU and hands the receive context
 * to the C++ core (ChannelCore::OnRecvDone), which counts the credit the
 * initiator spent, classifies the IU and serves it, or queues it on the
 * channel's wait list when no send context is free. A failed completion
 * (flush on disconnect, or a transport error, logged rate-limited) only
 * returns the context to the ring.
 *
 * Context: rx_work on srpt_wc_wq (SRQ: the pool CQ's poll work);
 * submitting to the target core may sleep.
 */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_glue_recv *r =
		container_of(wc->wr_cqe, struct srpt_glue_recv, cqe);
	bool ok = wc->status == IB_WC_SUCCESS;
	u32 len = 0;

	if (ok) {
		len = min(wc->byte_len, r->len);
		ib_dma_sync_single_for_cpu(srpt_ch_dev(r->ch), r->dma, len,
					   DMA_FROM_DEVICE);
	} else {
		srpt_log_wc("receive", wc);
	}
	srpt_core_dp_recv_done(r->ch->core, r->index, len, ok);
}

/*
 * The receive CQ's event: completions are waiting (the CQ was armed).
 * Context: the device's completion context (softirq, hardirq, or rdma_rxe's
 * task); never sleeps.
 */
static void srpt_rx_cq_event(struct ib_cq *cq, void *ctx)
{
	struct srpt_dp_ch *ch = ctx;

	queue_work(srpt_wc_wq, &ch->rx_work);
}

/* At most this many receive completions per run of rx_work. */
#define SRPT_RX_POLL_BUDGET 64

/*
 * Polls the receive CQ and hands each completion to its wr_cqe (a receive,
 * or ib_drain_rq()'s marker), then arms the CQ, polling again for what
 * arrived before the arming. A batch shorter than asked for means the CQ
 * was empty when polled, so it is armed at once rather than polled for
 * nothing; IB_CQ_REPORT_MISSED_EVENTS says whether anything came since.
 * Past the budget it queues itself again, so that the work LIO queued
 * behind it (responses) runs in between. As ib_core's poll work does it,
 * on this module's queue.
 *
 * Context: srpt_wc_wq; may sleep.
 */
static void srpt_rx_work(struct work_struct *work)
{
	struct srpt_dp_ch *ch = container_of(work, struct srpt_dp_ch, rx_work);
	struct ib_wc *wc = ch->rx_wc;
	int done = 0;
	int n, i;

	do {
		while ((n = ib_poll_cq(ch->cq, SRPT_RX_POLL_BATCH, wc)) > 0) {
			for (i = 0; i < n; i++)
				wc[i].wr_cqe->done(ch->cq, &wc[i]);
			done += n;
			if (done >= SRPT_RX_POLL_BUDGET) {
				queue_work(srpt_wc_wq, &ch->rx_work);
				return;
			}
			/* Short batch: empty when polled; arm it. */
			if (n < SRPT_RX_POLL_BATCH)
				break;
		}
	} while (ib_req_notify_cq(ch->cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0);
}

/* A send-side completion for wc_work (process context), in CQ order. */
static void srpt_defer_wc(struct srpt_dp_ch *ch, struct llist_node *node,
			  struct llist_head *list)
{
	llist_add(node, list);
	queue_work(srpt_wc_wq, &ch->wc_work);
}

/**
 * srpt_send_done() - send completion callback: a response left the HCA
 * @cq: the channel's send CQ (IB_POLL_SOFTIRQ)
 * @wc: work completion of the SEND that carried an SRP_RSP; wr_cqe is the
 *	send context's send_cqe
 *
 * Returns the send context of the completed response and its send-queue
 * slots; IUs that wait for a send context are then served in arrival
 * order (ChannelCore::OnSendDone, docs/protocol-core-credits.md).
 *
 * Every response grants the initiator credit (req_lim_delta), so the
 * initiator may send its next request as soon as it has seen a response,
 * possibly before the target has processed the completion of that very
 * response. The in-tree driver's page of this function calls that case
 * possible "at least in theory": the new IU finds no free send context.
 * In-tree queues it on cmd_wait_list, which only its send completions
 * serve, without a lock: an IU may wait until the next response completes,
 * and a send context that the target core frees later does not restart it.
 * The port closes the race: such an IU waits on the channel's wait list
 * (under the channel lock), holding its receive buffer and the credit it
 * spent, and whichever context returns a send context makes sure the list
 * is served: from here and from the target core's last reference drop,
 * through the kick work item (serving it submits to the target core, which
 * sleeps). IUs are served one at a time, in arrival order; none is dropped
 * or answered BUSY, none overtakes an earlier one. A context whose command
 * the target core already released is freed here; one still held by the
 * target core goes back when the core drops it.
 *
 * A failed completion disconnects the channel, and the core refuses the
 * atomic path while responses wait for send-queue room (posting them may
 * fail, which disconnects): both go to wc_work.
 *
 * Context: softirq; takes the channel lock, never sleeps. On a QP that
 * receives from the SRQ (one CQ, polled from a work item) the completion
 * goes to the core in that work, as every other completion there.
 */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_glue_send *s =
		container_of(wc->wr_cqe, struct srpt_glue_send, send_cqe);
	struct srpt_dp_ch *ch = s->ch;

	trace_srpt_send_done(ch->name, ch->qp->qp_num, s->index, wc->status);
	s->send_ok = wc->status == IB_WC_SUCCESS;
	if (!ch->split_cqs) {
		if (!s->send_ok)
			srpt_log_wc("sending a response", wc);
		srpt_core_dp_send_done(ch->core, s->index, s->send_ok);
		return;
	}
	if (s->send_ok) {
		if (srpt_core_dp_send_done_atomic(ch->core, s->index))
			return;
	} else {
		srpt_log_wc("sending a response", wc);
	}
	srpt_defer_wc(ch, &s->send_deferred, &ch->send_deferred);
}

/**
 * srpt_rdma_read_done() - RDMA READ completion: write data has arrived
 * @cq: the channel's send CQ (IB_POLL_SOFTIRQ)
 * @wc: work completion of the last RDMA READ of a command's chain
 *
 * The data-out of a WRITE command is in the target's pages. Executing the
 * command sleeps (the backend's submission), so the completion goes to
 * wc_work, where the core returns the send-queue slots of the chain and
 * lets the target core execute the command (target_execute_cmd()); on
 * failure the command ends with CHECK CONDITION.
 *
 * Context: softirq (SRQ: the CQ's poll work, which calls the core itself).
 */
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_glue_send *s =
		container_of(wc->wr_cqe, struct srpt_glue_send, rdma_cqe);

	if (wc->status != IB_WC_SUCCESS)
		srpt_log_wc("RDMA READ", wc);
	s->rdma_ok = wc->status == IB_WC_SUCCESS;
	if (s->ch->split_cqs)
		srpt_defer_wc(s->ch, &s->rdma_deferred, &s->ch->rdma_deferred);
	else
		srpt_core_dp_rdma_read_done(s->ch->core, s->index, s->rdma_ok);
}

/**
 * srpt_zlw_done() - completion of the zero-length write posted at close
 * @cq: the channel's send CQ (IB_POLL_SOFTIRQ)
 * @wc: work completion (normally flushed)
 *
 * Every work request posted before it has completed. Handed to wc_work,
 * which gives it to the core after the completions that came before it:
 * flushed (the QP is in the error state), the core schedules the
 * channel's release, once; still successful, the QP is usable and the
 * wait list is served.
 *
 * Context: softirq (SRQ: the CQ's poll work, which calls the core itself).
 */
static void srpt_zlw_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_dp_ch *ch = container_of(wc->wr_cqe, struct srpt_dp_ch,
					     zlw_cqe);

	if (!ch->split_cqs) {
		srpt_core_dp_zlw_done(ch->core, wc->status == IB_WC_SUCCESS);
		return;
	}
	atomic_set(&ch->zlw_deferred, wc->status == IB_WC_SUCCESS ?
					      SRPT_ZLW_OK : SRPT_ZLW_FLUSHED);
	queue_work(srpt_wc_wq, &ch->wc_work);
}

/*
 * The send-side completions that need process context, each as the CQ
 * would have delivered it. The zero-length write's flag is read first:
 * every completion the send CQ delivered before it is then on the lists
 * (llist_add() and atomic_xchg() order the two), so the core sees it last.
 * A context may be handed over again once the core returned it (a new
 * command's completion): the _safe walk reads the next node first.
 *
 * Context: srpt_wc_wq; may sleep.
 */
static void srpt_wc_work(struct work_struct *work)
{
	struct srpt_dp_ch *ch = container_of(work, struct srpt_dp_ch, wc_work);
	int zlw = atomic_xchg(&ch->zlw_deferred, 0);
	struct srpt_glue_send *s, *next;
	struct llist_node *list;

	list = llist_reverse_order(llist_del_all(&ch->rdma_deferred));
	llist_for_each_entry_safe(s, next, list, rdma_deferred)
		srpt_core_dp_rdma_read_done(ch->core, s->index, s->rdma_ok);
	list = llist_reverse_order(llist_del_all(&ch->send_deferred));
	llist_for_each_entry_safe(s, next, list, send_deferred)
		srpt_core_dp_send_done(ch->core, s->index, s->send_ok);
	if (zlw)
		srpt_core_dp_zlw_done(ch->core, zlw == SRPT_ZLW_OK);
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
		pr_err("ib_srpt: QP event %s (%d)\n",
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

	cq = ib_create_cq(dev, srpt_rx_cq_event, NULL, ch, &attr);
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
		pr_err("ib_srpt: failed to create a CQ of %d entries: %d\n",
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
		pr_err("ib_srpt: failed to create a send CQ of %d entries: %d\n",
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
	ch->zlw_cqe.done = srpt_zlw_done;
	INIT_WORK(&ch->wc_work, srpt_wc_work);
	INIT_WORK(&ch->rx_work, srpt_rx_work);
	init_llist_head(&ch->send_deferred);
	init_llist_head(&ch->rdma_deferred);
	atomic_set(&ch->zlw_deferred, 0);
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
		ch->recv[i].cqe.done = srpt_recv_done;
		ch->recv[i].ch = ch;
		ch->recv[i].index = i;
	}
	for (i = 0; i < ch->n_send; i++) {
		ch->send[i].send_cqe.done = srpt_send_done;
		ch->send[i].rdma_cqe.done = srpt_rdma_read_done;
		ch->send[i].ch = ch;
		ch->send[i].index = i;
	}

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
			pr_debug("ib_srpt: QP with sq_size %d failed (%d), retrying\n",
				 sq_size, ret);
			sq_size = max(sq_size / 2, SRPT_MIN_SQ_SIZE);
			goto retry;
		}
		pr_err("ib_srpt: failed to create a QP with sq_size %d: %d\n",
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

static int srpt_map(struct srpt_dp_ch *ch, void *buf, u32 len,
		    enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(srpt_ch_dev(ch), buf, len, dir);
	return ib_dma_mapping_error(srpt_ch_dev(ch), *dma) ? -ENOMEM : 0;
}

int srpt_dp_map_recv(struct srpt_dp_ch *ch, uint32_t index, void *buf,
		     uint32_t len)
{
	struct srpt_glue_recv *r = &ch->recv[index];
	int ret = srpt_map(ch, buf, len, DMA_FROM_DEVICE, &r->dma);

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
	int ret = srpt_map(ch, buf, len, DMA_TO_DEVICE, &s->dma);

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
		pr_warn("ib_srpt: moving QP %u to ERR failed: %d\n",
			ch->qp->qp_num, ret);
	if (SRPT_SRQ_LAST_WQE_EVENT && !ret &&
	    !wait_for_completion_timeout(&ch->last_wqe, 60 * HZ))
		pr_warn("ib_srpt: no last-WQE event for QP %u in 60 s\n",
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
		/* Every posted WR completes before the QP goes. */
		srpt_drain_qp(ch);
		/*
		 * ...and the core has seen them: ib_drain_qp() returns once
		 * rx_work handed its marker over, maybe before the rest of
		 * that poll; wc_work has the send side's that may sleep.
		 */
		flush_work(&ch->rx_work);
		flush_work(&ch->wc_work);
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

int srpt_dp_post_recv(struct srpt_dp_ch *ch, uint32_t index)
{
	struct srpt_glue_recv *r = &ch->recv[index];
	struct ib_sge sge = {
		.addr = r->dma,
		.length = r->len,
		.lkey = ch->gdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(srpt_ch_dev(ch), r->dma, r->len,
				      DMA_FROM_DEVICE);
	return ib_post_recv(ch->qp, &wr, NULL);
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
