// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The InfiniBand device-management agent: receives DM MADs (Get and Set of
 * the DM class) on every port with MAD support and sends back what the core
 * (src/mad_protocol.cpp) builds. The glue only owns the MAD layer objects:
 * agent, address handle, send buffer.
 */
#include "pr_fmt.h"

#include <linux/err.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include <srpt/core_api.h>
#include "glue.h"

/* The MAD agent's context: the device and the 1-based port number. */
struct srpt_mad_ctx {
	struct srpt_glue_device *gdev;
	u32 port_num;
};

/**
 * srpt_mad_send_handler() - a device management MAD response was sent
 * @agent: the port's MAD agent
 * @mad_wc: send completion; frees the address handle and the buffer
 *
 * Context: MAD completion work item.
 */
static void srpt_mad_send_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_wc *mad_wc)
{
	rdma_destroy_ah(mad_wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(mad_wc->send_buf);
}

/**
 * srpt_mad_recv_handler() - a device management (DM) MAD arrived
 * @agent: the port's MAD agent (class IB_MGMT_CLASS_DEVICE_MGT)
 * @send_buf: unused
 * @mad_wc: the received MAD
 *
 * The C++ core parses the request (IOUnitInfo, IOControllerProfile,
 * ServiceEntries) and builds the response, or a status for an unsupported
 * attribute, with the in-tree driver's bytes; the glue addresses and posts
 * it. Malformed MADs are answered with an error status, never trusted.
 *
 * Context: MAD receive work item.
 */
static void srpt_mad_recv_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_buf *send_buf,
				  struct ib_mad_recv_wc *mad_wc)
{
	struct srpt_mad_ctx *ctx = agent->context;
	struct ib_mad_send_buf *rsp;
	struct ib_ah *ah;

	if (!mad_wc || !mad_wc->recv_buf.mad)
		return;

	ah = ib_create_ah_from_wc(agent->qp->pd, mad_wc->wc,
				  mad_wc->recv_buf.grh, agent->port_num);
	if (IS_ERR(ah))
		goto free_recv;

	rsp = ib_create_send_mad(agent, mad_wc->wc->src_qp,
				 mad_wc->wc->pkey_index, 0, IB_MGMT_DEVICE_HDR,
				 IB_MGMT_DEVICE_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp))
		goto destroy_ah;
	rsp->ah = ah;

	if (!srpt_core_handle_dm_mad(ctx->gdev->core, ctx->port_num,
				     (const u8 *)mad_wc->recv_buf.mad,
				     sizeof(struct ib_mad), rsp->mad,
				     IB_MGMT_DEVICE_HDR + IB_MGMT_DEVICE_DATA))
		goto free_rsp;

	if (!ib_post_send_mad(rsp, NULL)) {
		/* The send handler destroys the AH and frees the buffer. */
		ib_free_recv_mad(mad_wc);
		return;
	}
free_rsp:
	ib_free_send_mad(rsp);
destroy_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
free_recv:
	ib_free_recv_mad(mad_wc);
}

static void srpt_mad_port_cap(struct ib_device *device, u32 port, bool set)
{
	struct ib_port_modify modify = {};

	if (set)
		modify.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	else
		modify.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	ib_modify_port(device, port, 0, &modify);
}

static void srpt_mad_agent_register(struct srpt_glue_device *gdev, u32 port)
{
	struct ib_device *device = gdev->ib_device;
	struct ib_port_modify modify = {
		.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};
	struct ib_mad_reg_req reg_req = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = IB_MGMT_BASE_VERSION,
	};
	struct ib_mad_agent *agent;
	struct srpt_mad_ctx *ctx;
	int ret;

	if (!rdma_cap_ib_mad(device, port) || rdma_protocol_iwarp(device, port))
		return;

	ret = ib_modify_port(device, port, 0, &modify);
	if (ret) {
		pr_warn("%s-%u: enabling device management failed (%d). Note: this is expected if SR-IOV is enabled.\n",
			dev_name(&device->dev), port, ret);
		return;
	}

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		goto clear_cap;
	ctx->gdev = gdev;
	ctx->port_num = port;
	set_bit(IB_MGMT_METHOD_GET, reg_req.method_mask);
	set_bit(IB_MGMT_METHOD_SET, reg_req.method_mask);
	agent = ib_register_mad_agent(device, port, IB_QPT_GSI, &reg_req, 0,
				      srpt_mad_send_handler,
				      srpt_mad_recv_handler, ctx, 0);
	if (IS_ERR(agent)) {
		pr_err("%s-%u: MAD agent registration failed (%ld). Note: this is expected if SR-IOV is enabled.\n",
		       dev_name(&device->dev), port, PTR_ERR(agent));
		kfree(ctx);
		goto clear_cap;
	}
	/* Never an ERR_PTR here: remove_one trusts what it finds. */
	gdev->mad_agents[port - 1] = agent;
	return;

clear_cap:
	srpt_mad_port_cap(device, port, false);
}

void srpt_mad_agents_register(struct srpt_glue_device *gdev)
{
	u32 port;

	rdma_for_each_port(gdev->ib_device, port)
		srpt_mad_agent_register(gdev, port);
}

void srpt_mad_agents_unregister(struct srpt_glue_device *gdev)
{
	struct ib_mad_agent *agent;
	void *ctx;
	u32 port;

	rdma_for_each_port(gdev->ib_device, port) {
		agent = gdev->mad_agents[port - 1];
		if (!agent)
			continue;
		srpt_mad_port_cap(gdev->ib_device, port, false);
		ctx = agent->context;
		ib_unregister_mad_agent(agent);
		kfree(ctx);
		gdev->mad_agents[port - 1] = NULL;
	}
}
