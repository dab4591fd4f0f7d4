// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RDMA/CM listener behind configfs discovery_auth/rdma_cm_port: bound
 * to [::]:port (IPv4 and IPv6 where the stack allows), else 0.0.0.0:port.
 *
 * Logins (SRP_LOGIN_REQ in the connect request's private data) are the data
 * path's job; until the channel layer is wired in, this listener refuses
 * every connect request with a reject and a log line naming the initiator,
 * so an initiator fails fast instead of timing out.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include <srpt/platform.h>
#include "glue.h"

static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		pr_info_ratelimited("ib_srpt: refusing RDMA/CM login from %pIS: channels are not implemented by this build\n",
				    &cm_id->route.addr.dst_addr);
		rdma_reject(cm_id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		/* Non-zero: the RDMA/CM core destroys the child cm_id. */
		return 1;
	}
	return 0;
}

static struct rdma_cm_id *srpt_rdma_cm_bind(struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_err("ib_srpt: RDMA/CM ID creation failed: %ld\n",
		       PTR_ERR(id));
		return id;
	}
	ret = rdma_bind_addr(id, addr);
	if (ret) {
		pr_err("ib_srpt: binding RDMA/CM ID to address %pISp failed: %d\n",
		       addr, ret);
		goto destroy;
	}
	ret = rdma_listen(id, 128);
	if (ret) {
		pr_err("ib_srpt: rdma_listen() failed: %d\n", ret);
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
