// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completion callbacks of a channel: the ib_cqe.done trampolines, the
 * receive CQ's poll work, the work item of the send side's completions
 * that sleep, the kick work of the wait list, and what follows each call
 * into the core. The decisions are the core's (src/datapath_api.cpp ->
 * ChannelCore); this unit only makes the kernel calls the core returns.
 *
 * Contract of the unit (docs/architecture.md, "Follow one I/O"):
 *  1. Every completion makes one call into the core, which returns after
 *     dropping its lock. Then, and only then, this unit makes the target
 *     core's calls that may call back into the core: submitting a received
 *     IU (target_submit, whose rd_mcp backend calls queue_data_in at
 *     once), executing a command whose data arrived, dropping the fabric's
 *     reference after a response's send completion
 *     (transport_generic_free_cmd, which calls release_cmd). So no target
 *     core callback ever runs inside the core.
 *  2. A received IU goes through hand-offs: the core returns one, this
 *     unit submits it, and gives it back (srpt_core_dp_handoff_done())
 *     for the next, until the core says there is none.
 *  3. Contexts: receives in rx_work (an SRQ channel: the pool CQ's poll
 *     work), send completions in softirq (the atomic path only returns a
 *     context; what may sleep goes to wc_work in CQ order), the kick in
 *     kick_work. rx_work, wc_work and kick_work share srpt_wc_wq, bound
 *     and of normal priority (see srpt_glue_wc_init()).
 *  4. Teardown (srpt_glue_completions_quiesce()): the kick is cancelled
 *     and rx_work flushed before the session's removal, so that no
 *     submission reaches the target core after it, and again before the
 *     QP's drain, so that no receive is posted behind the drain's marker;
 *     after the drain both are cancelled (rx_work may have queued itself
 *     again) and wc_work flushed.
 *
 * Receives complete on the channel's own CQ, whose event queues rx_work:
 * srpt_wc_wq is a bound queue of normal priority, as LIO's completion
 * queue is, so the response work that a submission queues on this CPU
 * (target_complete_cmd()) runs in the same worker right after rx_work,
 * without waking another one. In-tree's receives run in ib_core's CQ poll
 * work, whose pool is high priority, so each command wakes a second
 * worker for its response; a pool CQ cannot be polled from another queue,
 * hence the own CQ.
 *
 * The send queue's completions complete on a pool CQ polled in softirq
 * (IB_POLL_SOFTIRQ): a successful response's completion, the usual one,
 * only returns its context and credit (srpt_core_dp_send_done_atomic()),
 * and saves the wake-up of a poll work per command. What may sleep goes
 * to wc_work, in arrival order: RDMA READ completions (the command
 * executes), failed completions (they disconnect), the zero-length write,
 * and a response completion the core refuses to finish atomically
 * (responses wait for send-queue room).
 *
 * A QP that receives from the device's SRQ keeps one CQ for both, polled
 * from ib_core's work item, and its completions go to the core there:
 * its teardown needs the send queue's drain to complete after every
 * receive completion of the QP, which only one CQ orders.
 */
#include "pr_fmt.h"

#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "channel_ib.h"
#include "srpt_trace.h"
#include "glue.h"

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

/* After every channel is gone (each one flushed its work). */
void srpt_glue_wc_exit(void)
{
	destroy_workqueue(srpt_wc_wq);
	srpt_wc_wq = NULL;
}

/* struct srpt_dp_ch.zlw_deferred */
#define SRPT_ZLW_FLUSHED 1
#define SRPT_ZLW_OK 2

void srpt_glue_log_wc(const char *what, struct ib_wc *wc)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info_ratelimited("%s failed: %s (%d)\n", what,
				    ib_wc_status_msg(wc->status), wc->status);
}

/*
 * What follows the core's answer, the hand-off loop and the target core's
 * next call, is <srpt/dp_next.h> (srpt_dp_run_handoffs(),
 * srpt_dp_do_next()), shared with the host tests' fake of this unit.
 */

/* ---- the wait list ----------------------------------------------------- */

/*
 * Serves the wait list: queued by the core (srpt_dp_kick()) when a send
 * context was freed, or the channel went live, while IUs wait.
 * Context: srpt_wc_wq; may sleep.
 */
static void srpt_kick_work(struct work_struct *work)
{
	struct srpt_dp_ch *ch = container_of(work, struct srpt_dp_ch,
					     kick_work);
	struct srpt_dp_handoff h;

	if (srpt_core_dp_kick(ch->core, &h))
		srpt_dp_run_handoffs(ch, ch->core, &h);
}

void srpt_dp_kick(struct srpt_dp_ch *ch)
{
	queue_work(srpt_wc_wq, &ch->kick_work);
}

/* ---- receives ---------------------------------------------------------- */

void srpt_glue_recv_done(struct srpt_dp_ch *ch, u32 index, u32 len, bool ok)
{
	struct srpt_dp_handoff h;

	if (srpt_core_dp_recv_done(ch->core, index, len, ok, &h))
		srpt_dp_run_handoffs(ch, ch->core, &h);
}

/**
 * srpt_recv_done() - receive completion callback: an IU arrived
 * @cq: the channel's receive CQ (its own; SRQ: glue/srq.c's callback)
 * @wc: work completion; wr_cqe is the receive context's ib_cqe
 *
 * Makes the received bytes visible to the CPU and hands the receive context
 * to the C++ core (ChannelCore::OnRecvDone), which counts the credit the
 * initiator spent, classifies the IU and returns it to be submitted, or
 * queues it on the channel's wait list when no send context is free. A
 * failed completion (flush on disconnect, or a transport error, logged
 * rate-limited) only returns the context to the ring.
 *
 * Context: rx_work on srpt_wc_wq; submitting to the target core may sleep.
 */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_glue_recv *r =
		container_of(wc->wr_cqe, struct srpt_glue_recv, cqe);
	bool ok = wc->status == IB_WC_SUCCESS;
	u32 len = 0;

	if (ok) {
		len = min(wc->byte_len, r->len);
		ib_dma_sync_single_for_cpu(r->ch->device, r->dma, len,
					   DMA_FROM_DEVICE);
	} else {
		srpt_glue_log_wc("receive", wc);
	}
	srpt_glue_recv_done(r->ch, r->index, len, ok);
}

/*
 * The receive CQ's event: completions are waiting (the CQ was armed).
 * Context: the device's completion context (softirq, hardirq, or rdma_rxe's
 * task); never sleeps.
 */
void srpt_glue_rx_cq_event(struct ib_cq *cq, void *ctx)
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

/* ---- the send queue ---------------------------------------------------- */

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
 * Returns the send context's send-queue slots (ChannelCore::OnSendDone,
 * docs/protocol-core-credits.md), then drops the fabric's reference on the
 * command (transport_generic_free_cmd()): LIO's release_cmd, usually from
 * inside that call, returns the send context to the channel
 * (srpt_fabric_release_cmd()), after the core has returned from the
 * completion.
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
 * spent, and whichever context returns a send context while IUs wait
 * queues the kick work, which serves them (serving submits to the target
 * core, which sleeps). IUs are served one at a time, in arrival order;
 * none is dropped or answered BUSY, none overtakes an earlier one.
 *
 * A failed completion disconnects the channel, and the core refuses the
 * atomic path while responses wait for send-queue room (posting them may
 * fail, which disconnects): both go to wc_work.
 *
 * Context: softirq; never sleeps. On a QP that receives from the SRQ (one
 * CQ, polled from a work item) the completion goes to the core in that
 * work, as every other completion there.
 */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_glue_send *s =
		container_of(wc->wr_cqe, struct srpt_glue_send, send_cqe);
	struct srpt_dp_ch *ch = s->ch;
	enum srpt_dp_next next;

	trace_srpt_send_done(ch->name, ch->qp->qp_num, s->index, wc->status);
	s->send_ok = wc->status == IB_WC_SUCCESS;
	if (!s->send_ok)
		srpt_glue_log_wc("sending a response", wc);
	if (!ch->split_cqs) {
		srpt_dp_do_next(ch, s->index,
				srpt_core_dp_send_done(ch->core, s->index,
						       s->send_ok));
		return;
	}
	if (s->send_ok) {
		next = srpt_core_dp_send_done_atomic(ch->core, s->index);
		if (next != SRPT_DP_NEXT_REFUSED) {
			srpt_dp_do_next(ch, s->index, next);
			return;
		}
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
 * wc_work, where the core returns the send-queue slots of the chain; then
 * the command executes (target_execute_cmd()), or on failure ends with
 * CHECK CONDITION.
 *
 * Context: softirq (SRQ: the CQ's poll work, which calls the core itself).
 */
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_glue_send *s =
		container_of(wc->wr_cqe, struct srpt_glue_send, rdma_cqe);

	if (wc->status != IB_WC_SUCCESS)
		srpt_glue_log_wc("RDMA READ", wc);
	s->rdma_ok = wc->status == IB_WC_SUCCESS;
	if (s->ch->split_cqs)
		srpt_defer_wc(s->ch, &s->rdma_deferred, &s->ch->rdma_deferred);
	else
		srpt_dp_do_next(s->ch, s->index,
				srpt_core_dp_rdma_read_done(s->ch->core,
							    s->index,
							    s->rdma_ok));
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
		srpt_dp_do_next(ch, s->index,
				srpt_core_dp_rdma_read_done(ch->core, s->index,
							    s->rdma_ok));
	list = llist_reverse_order(llist_del_all(&ch->send_deferred));
	llist_for_each_entry_safe(s, next, list, send_deferred)
		srpt_dp_do_next(ch, s->index,
				srpt_core_dp_send_done(ch->core, s->index,
						       s->send_ok));
	if (zlw)
		srpt_core_dp_zlw_done(ch->core, zlw == SRPT_ZLW_OK);
}

/* ---- a channel's completion state -------------------------------------- */

void srpt_glue_completions_init(struct srpt_dp_ch *ch)
{
	u32 i;

	ch->zlw_cqe.done = srpt_zlw_done;
	INIT_WORK(&ch->wc_work, srpt_wc_work);
	INIT_WORK(&ch->rx_work, srpt_rx_work);
	INIT_WORK(&ch->kick_work, srpt_kick_work);
	init_llist_head(&ch->send_deferred);
	init_llist_head(&ch->rdma_deferred);
	atomic_set(&ch->zlw_deferred, 0);
	for (i = 0; i < ch->n_recv; i++)
		ch->recv[i].cqe.done = srpt_recv_done;
	for (i = 0; i < ch->n_send; i++) {
		ch->send[i].send_cqe.done = srpt_send_done;
		ch->send[i].rdma_cqe.done = srpt_rdma_read_done;
	}
}

void srpt_glue_completions_quiesce(struct srpt_dp_ch *ch)
{
	/*
	 * The channel left kLive before its release: a kick or a receive
	 * hand-off that decided to repost a buffer while it was live has
	 * done so once these return, before the drain posts its marker.
	 */
	cancel_work_sync(&ch->kick_work);
	flush_work(&ch->rx_work);
}

void srpt_glue_completions_flush(struct srpt_dp_ch *ch)
{
	/*
	 * ib_drain_qp() returns once rx_work handed its marker over, maybe
	 * before the rest of that poll; wc_work has the send side's that
	 * may sleep; a completion of the drain may have kicked. rx_work is
	 * cancelled, not flushed: a run that reached its budget queues
	 * itself again, maybe after a flush began, and that instance would
	 * run on a freed channel. The marker was the receive CQ's last
	 * completion, so a queued run has nothing left to poll.
	 */
	cancel_work_sync(&ch->rx_work);
	flush_work(&ch->wc_work);
	cancel_work_sync(&ch->kick_work);
}
