// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RDMA/CM listener behind configfs discovery_auth/rdma_cm_port: bound
 * to [::]:port (IPv4 and IPv6 where the stack allows), else 0.0.0.0:port.
 *
 * The handler only dispatches, one core call per event: a connect request
 * (SRP_LOGIN_REQ in its private data) goes to the core's login
 * (src/cm_handler.cpp); every other event of a child id goes to its
 * channel (cm_id->context is the glue channel once the QP exists). The
 * "return non-zero and RDMA/CM destroys the id" rule is applied here only,
 * for a login the core refused.
 */
#include "pr_fmt.h"

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include <srpt/core_api.h>
#include <srpt/rdma_glue.h>
#include "channel_ib.h"
#include "glue.h"

/**
 * srpt_rdma_cm_handler() - RDMA/CM event callback (RoCE and iWARP logins)
 * @cm_id: the listener's child id for a CONNECT_REQUEST, else a channel's
 * @event: connect request, established, disconnected, timewait exit,
 *	rejected, device removal, address change
 *
 * As srpt_ib_cm_handler(), for logins through the RDMA/CM port
 * (configfs discovery_auth/rdma_cm_port); the initiator's address names
 * the session in logs.
 *
 * Context: RDMA/CM work item; may sleep.
 * Return: non-zero for a refused request (RDMA/CM destroys @cm_id), else 0.
 */
static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct srpt_dp_ch *ch = cm_id->context;
	enum srpt_dp_cm_event ev;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST: {
		struct srpt_glue_device *gdev = srpt_glue_device_of(cm_id->device);
		char src_addr[64];

		snprintf(src_addr, sizeof(src_addr), "%pIS",
			 &cm_id->route.addr.src_addr);
		/* Non-zero: the RDMA/CM core destroys the child cm_id. */
		return srpt_core_dp_rdma_cm_req(gdev ? gdev->core : NULL,
						cm_id->port_num, cm_id,
						event->param.conn.private_data,
						event->param.conn.private_data_len,
						src_addr) ? 1 : 0;
	}
	case RDMA_CM_EVENT_ESTABLISHED:
		ev = SRPT_DP_CM_ESTABLISHED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		ev = SRPT_DP_CM_DISCONNECTED;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		ev = SRPT_DP_CM_TIMEWAIT_EXIT;
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		ev = SRPT_DP_CM_REJECTED;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		ev = SRPT_DP_CM_DEVICE_REMOVAL;
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		ev = SRPT_DP_CM_ADDR_CHANGE;
		break;
	default:
		pr_info("RDMA/CM event %s (%d) ignored\n",
			rdma_event_msg(event->event), event->event);
		return 0;
	}
	/* The listener itself has no channel. */
	if (ch)
		srpt_core_dp_cm_event(ch->core, ev);
	return 0;
}

/* ---- the channel's CM operations (struct srpt_cm_ops) ---------------- */

static void srpt_rdma_cm_attach(struct srpt_dp_ch *ch, void *cm_id)
{
	ch->cm_id = cm_id;
	ch->device = ch->cm_id->device;
}

static int srpt_rdma_cm_create_qp(struct srpt_dp_ch *ch,
				  struct ib_qp_init_attr *init)
{
	/* RDMA/CM moves the QP through INIT, RTR and RTS itself. */
	int ret = rdma_create_qp(ch->cm_id, ch->gdev->pd, init);

	if (ret)
		return ret;
	ch->qp = ch->cm_id->qp;
	ch->cm_id->context = ch;
	return 0;
}

static void srpt_rdma_cm_destroy_qp(struct srpt_dp_ch *ch)
{
	rdma_destroy_qp(ch->cm_id);
}

static int srpt_rdma_cm_accept(struct srpt_dp_ch *ch, const void *pdata,
			       u32 len)
{
	struct rdma_conn_param param = {
		.private_data = pdata,
		.private_data_len = len,
		.rnr_retry_count = 7,
		.flow_control = 1,
		.responder_resources = 4,
		.initiator_depth = 4,
	};

	return rdma_accept(ch->cm_id, &param);
}

static void srpt_rdma_cm_reject(void *cm_id, const void *pdata, u32 len)
{
	rdma_reject(cm_id, pdata, len, IB_CM_REJ_CONSUMER_DEFINED);
}

/* DREQ, or the DREP when the peer's DREQ came first. */
static int srpt_rdma_cm_disconnect(struct srpt_dp_ch *ch)
{
	return rdma_disconnect(ch->cm_id);
}

static void srpt_rdma_cm_notify(struct srpt_dp_ch *ch,
				enum ib_event_type event)
{
	rdma_notify(ch->cm_id, event);
}

static void srpt_rdma_cm_destroy_id(struct srpt_dp_ch *ch)
{
	rdma_destroy_id(ch->cm_id);
}

static void srpt_rdma_cm_detach_id(struct srpt_dp_ch *ch)
{
	ch->cm_id->context = NULL;
}

const struct srpt_cm_ops srpt_rdma_cm_ops = {
	.name = "RDMA/CM",
	.attach = srpt_rdma_cm_attach,
	.create_qp = srpt_rdma_cm_create_qp,
	.destroy_qp = srpt_rdma_cm_destroy_qp,
	.accept = srpt_rdma_cm_accept,
	.reject = srpt_rdma_cm_reject,
	.disconnect = srpt_rdma_cm_disconnect,
	/* RDMA/CM answers a DREQ itself; never asked (no DREQ_RECEIVED). */
	.drep = srpt_rdma_cm_disconnect,
	.notify = srpt_rdma_cm_notify,
	.destroy_id = srpt_rdma_cm_destroy_id,
	.detach_id = srpt_rdma_cm_detach_id,
};

static struct rdma_cm_id *srpt_rdma_cm_bind(struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_err("RDMA/CM ID creation failed: %ld\n",
		       PTR_ERR(id));
		return id;
	}
	ret = rdma_bind_addr(id, addr);
	if (ret) {
		pr_err("binding RDMA/CM ID to address %pISp failed: %d\n",
		       addr, ret);
		goto destroy;
	}
	ret = rdma_listen(id, 128);
	if (ret) {
		pr_err("rdma_listen() failed: %d\n", ret);
		goto destroy;
	}
	return id;

destroy:
	rdma_destroy_id(id);
	return ERR_PTR(ret);
}

int srpt_rdma_cm_listen(uint16_t port, void **listener)
{
	struct sockaddr_in6 addr6 = {
		.sin6_family = AF_INET6,
		.sin6_port = cpu_to_be16(port),
	};
	struct sockaddr_in addr4 = {
		.sin_family = AF_INET,
		.sin_port = cpu_to_be16(port),
	};
	struct rdma_cm_id *id;

	id = srpt_rdma_cm_bind((struct sockaddr *)&addr6);
	if (IS_ERR(id))
		id = srpt_rdma_cm_bind((struct sockaddr *)&addr4);
	if (IS_ERR(id))
		return PTR_ERR(id);
	*listener = id;
	return 0;
}

void srpt_rdma_cm_destroy(void *listener)
{
	rdma_destroy_id(listener);
}

int srpt_inet_pton_with_scope(const char *text)
{
	struct sockaddr_storage addr;

	return inet_pton_with_scope(&init_net, AF_UNSPEC, text, NULL, &addr);
}
