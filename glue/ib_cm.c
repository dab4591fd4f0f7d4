// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The IB/CM listener and IB/CM channels (InfiniBand link layer only).
 *
 * As in-tree (6.1 srpt_add_one): one listener per RDMA device, created
 * when port 1 has an InfiniBand link layer, listening on the service ID
 * srpt_service_guid. On RoCE (rdma_rxe included) there is none: logins
 * come through RDMA/CM only (glue/rdma_cm.c).
 *
 * The handler only dispatches, one core call per event: a REQ (its private
 * data is SRP_LOGIN_REQ) goes to the core's login (src/cm_handler.cpp,
 * the same login as RDMA/CM); every other event of a channel's id goes to
 * its channel, mapped to enum srpt_dp_cm_event. The "return non-zero and
 * IB/CM destroys the id" rule is applied here only, for a REQ the core
 * refused.
 *
 * What RDMA/CM does inside itself, IB/CM leaves to its user; the channel
 * operations below do it, so that the core sees the same contract for
 * both CMs: ib_create_qp() + INIT with the REQ's P_Key (in-tree
 * srpt_init_ch_qp), RTR from ib_cm_init_qp_attr() before the REP
 * (srpt_ch_qp_rtr), RTS from ib_cm_init_qp_attr() when the RTU arrives,
 * before the core hears ESTABLISHED (srpt_ch_qp_rts), and the DREP that
 * answers a DREQ.
 */
#include "pr_fmt.h"

#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include <srpt/core_api.h>
#include <srpt/rdma_glue.h>
#include "channel_ib.h"
#include "glue.h"

/* ---- the channel's CM operations (struct srpt_cm_ops) ---------------- */

static void srpt_ib_cm_attach(struct srpt_dp_ch *ch, void *cm_id)
{
	ch->ib_cm_id = cm_id;
	ch->device = ch->ib_cm_id->device;
}

static int srpt_ib_cm_create_qp(struct srpt_dp_ch *ch,
				struct ib_qp_init_attr *init)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
		.port_num = ch->port_num,
	};
	struct ib_qp *qp;
	int ret;

	qp = ib_create_qp(ch->gdev->pd, init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = ib_find_cached_pkey(ch->device, ch->port_num, ch->pkey,
				  &attr.pkey_index);
	if (ret < 0) {
		pr_err("translating pkey %#x failed (%d) - using index 0\n",
		       ch->pkey, ret);
		attr.pkey_index = 0;
	}
	ret = ib_modify_qp(qp, &attr,
			   IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PORT |
			   IB_QP_PKEY_INDEX);
	if (ret) {
		ib_destroy_qp(qp);
		return ret;
	}
	ch->qp = qp;
	ch->ib_cm_id->context = ch;
	return 0;
}

static void srpt_ib_cm_destroy_qp(struct srpt_dp_ch *ch)
{
	ib_destroy_qp(ch->qp);
}

/*
 * RTR or RTS with the attributes IB/CM derives from the REQ, plus the RDMA
 * READ depth in-tree sets (4 each way, as in the REP).
 */
static int srpt_ib_cm_modify_qp(struct srpt_dp_ch *ch,
				enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask;
	int ret;

	ret = ib_cm_init_qp_attr(ch->ib_cm_id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_RTR)
		attr.max_dest_rd_atomic = 4;
	else
		attr.max_rd_atomic = 4;
	return ib_modify_qp(ch->qp, &attr, mask);
}

static int srpt_ib_cm_accept(struct srpt_dp_ch *ch, const void *pdata,
			     u32 len)
{
	struct ib_cm_rep_param rep = {
		.private_data = pdata,
		.private_data_len = len,
		.rnr_retry_count = 7,
		.flow_control = 1,
		.failover_accepted = 0,
		.srq = 1,
		.responder_resources = 4,
		.initiator_depth = 4,
	};
	int ret;

	ret = srpt_ib_cm_modify_qp(ch, IB_QPS_RTR);
	if (ret) {
		pr_err("QP %u to RTR failed (%d)\n", ch->qp->qp_num,
		       ret);
		return ret;
	}
	rep.qp_num = ch->qp->qp_num;
	return ib_send_cm_rep(ch->ib_cm_id, &rep);
}

static void srpt_ib_cm_reject(void *cm_id, const void *pdata, u32 len)
{
	ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, pdata, len);
}

/* In-tree srpt_disconnect_ch: DREQ, or the DREP if a DREQ came first. */
static int srpt_ib_cm_disconnect(struct srpt_dp_ch *ch)
{
	int ret = ib_send_cm_dreq(ch->ib_cm_id, NULL, 0);

	if (ret < 0)
		ret = ib_send_cm_drep(ch->ib_cm_id, NULL, 0);
	return ret;
}

static int srpt_ib_cm_drep(struct srpt_dp_ch *ch)
{
	return ib_send_cm_drep(ch->ib_cm_id, NULL, 0);
}

static void srpt_ib_cm_notify(struct srpt_dp_ch *ch, enum ib_event_type event)
{
	ib_cm_notify(ch->ib_cm_id, event);
}

static void srpt_ib_cm_destroy_id(struct srpt_dp_ch *ch)
{
	ib_destroy_cm_id(ch->ib_cm_id);
}

static void srpt_ib_cm_detach_id(struct srpt_dp_ch *ch)
{
	ch->ib_cm_id->context = NULL;
}

const struct srpt_cm_ops srpt_ib_cm_ops = {
	.name = "IB/CM",
	.destroy_id_first = true,
	.attach = srpt_ib_cm_attach,
	.create_qp = srpt_ib_cm_create_qp,
	.destroy_qp = srpt_ib_cm_destroy_qp,
	.accept = srpt_ib_cm_accept,
	.reject = srpt_ib_cm_reject,
	.disconnect = srpt_ib_cm_disconnect,
	.drep = srpt_ib_cm_drep,
	.notify = srpt_ib_cm_notify,
	.destroy_id = srpt_ib_cm_destroy_id,
	.detach_id = srpt_ib_cm_detach_id,
};

/* ---- the handler ------------------------------------------------------ */

/*
 * A REQ arrives on a new id whose context IB/CM copied from the listener
 * (the glue device). The listener's destruction waits for this handler,
 * so gdev->core is valid here. The context is cleared until a channel
 * takes the id (create_qp sets it): every later event then finds either
 * its channel or nothing.
 */
static int srpt_ib_cm_req(struct ib_cm_id *cm_id,
			  const struct ib_cm_req_event_param *param,
			  const void *private_data)
{
	struct srpt_glue_device *gdev = cm_id->context;
	const struct sa_path_rec *path = param->primary_path;

	cm_id->context = NULL;
	/*
	 * The path as the REQ describes it from the initiator's side: its
	 * dgid is the initiator's port GID (in-tree srpt_ib_cm_req_recv).
	 */
	return srpt_core_dp_ib_cm_req(gdev ? gdev->core : NULL, param->port,
				      cm_id, private_data,
				      IB_CM_REQ_PRIVATE_DATA_SIZE,
				      path->dgid.raw, be16_to_cpu(path->pkey));
}

static void srpt_ib_cm_log_rej(const struct ib_cm_event *event)
{
	pr_info("received IB/CM REJ, reason %d\n",
		event->param.rej_rcvd.reason);
}

/**
 * srpt_ib_cm_handler() - IB/CM event callback (InfiniBand logins)
 * @cm_id: the listener's id for a REQ, else a channel's id
 * @event: REQ, RTU, DREQ, DREP, TIMEWAIT_EXIT, REJ and errors
 *
 * A REQ carries an SRP_LOGIN_REQ: the core negotiates it and creates the
 * channel or answers SRP_LOGIN_REJ with the reason. The other events move
 * the channel's state machine (connecting, live, disconnecting, released).
 *
 * Context: IB/CM work item; may sleep.
 * Return: non-zero for a refused REQ (IB/CM then destroys @cm_id), else 0.
 */
static int srpt_ib_cm_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	struct srpt_dp_ch *ch;
	enum srpt_dp_cm_event ev;

	if (event->event == IB_CM_REQ_RECEIVED)
		/* Non-zero: IB/CM destroys the id (a refused login). */
		return srpt_ib_cm_req(cm_id, &event->param.req_rcvd,
				      event->private_data);

	ch = cm_id->context;
	if (!ch)
		return 0;
	switch (event->event) {
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		/* RDMA/CM moves to RTS before ESTABLISHED: so do we. */
		if (srpt_ib_cm_modify_qp(ch, IB_QPS_RTS)) {
			pr_err("QP %u to RTS failed\n",
			       ch->qp->qp_num);
			ev = SRPT_DP_CM_REJECTED;
		} else {
			ev = SRPT_DP_CM_ESTABLISHED;
		}
		break;
	case IB_CM_DREQ_RECEIVED:
		ev = SRPT_DP_CM_DREQ_RECEIVED;
		break;
	case IB_CM_DREP_RECEIVED:
		ev = SRPT_DP_CM_DISCONNECTED;
		break;
	case IB_CM_TIMEWAIT_EXIT:
		ev = SRPT_DP_CM_TIMEWAIT_EXIT;
		break;
	case IB_CM_REJ_RECEIVED:
		srpt_ib_cm_log_rej(event);
		ev = SRPT_DP_CM_REJECTED;
		break;
	case IB_CM_REP_ERROR:
		/* The REP was never answered: no connection, nothing follows. */
		pr_info("IB/CM REP error\n");
		ev = SRPT_DP_CM_REJECTED;
		break;
	case IB_CM_DREQ_ERROR:
		/* Our DREQ timed out: timewait, then TIMEWAIT_EXIT. */
		pr_info("IB/CM DREQ error\n");
		return 0;
	case IB_CM_MRA_RECEIVED:
		return 0;
	default:
		pr_err("IB/CM event %d ignored\n", event->event);
		return 0;
	}
	srpt_core_dp_cm_event(ch->core, ev);
	return 0;
}

/* ---- the listener ------------------------------------------------------ */

int srpt_ib_cm_listen(struct srpt_glue_device *gdev)
{
	struct ib_device *device = gdev->ib_device;
	u64 service_id = srpt_core_service_guid();
	struct ib_cm_id *id;
	int ret;

	/* As in-tree 6.1: port 1's link layer decides for the device. */
	if (rdma_port_get_link_layer(device, 1) != IB_LINK_LAYER_INFINIBAND)
		return 0;
	id = ib_create_cm_id(device, srpt_ib_cm_handler, gdev);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		pr_info("ib_create_cm_id() failed: %d\n", ret);
		/* In-tree goes on when an RDMA/CM listener exists. */
		return srpt_core_rdma_cm_port() ? 0 : ret;
	}
	ret = ib_cm_listen(id, cpu_to_be64(service_id));
	if (ret < 0) {
		pr_err("ib_cm_listen() failed: %d (cm_id state = %d)\n",
		       ret, id->state);
		ib_destroy_cm_id(id);
		return ret;
	}
	pr_debug("%s: IB/CM listening on service id %016llx\n",
		 dev_name(&device->dev), service_id);
	gdev->ib_cm_listener = id;
	return 0;
}

void srpt_ib_cm_stop(struct srpt_glue_device *gdev)
{
	/* Waits for running REQ handlers: no new login after this. */
	if (gdev->ib_cm_listener)
		ib_destroy_cm_id(gdev->ib_cm_listener);
	gdev->ib_cm_listener = NULL;
}
