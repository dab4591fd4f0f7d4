// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ib_client: RDMA devices appear and disappear here. The glue reads
 * what the core needs from the ib_device (ports, link layers, GIDs,
 * attributes) into a plain description and hands it over; the core decides
 * and logs. Setup order: PD, core, IB/CM listener (glue/ib_cm.c), MAD
 * agents, and the async event handler last, once everything it may touch
 * exists. Teardown mirrors it.
 */
#include "pr_fmt.h"

#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include <srpt/core_api.h>
#include <srpt/rdma_glue.h>
#include "glue.h"

static struct ib_client srpt_client;

static u32 srpt_link_layer(struct ib_device *device, u32 port)
{
	switch (rdma_port_get_link_layer(device, port)) {
	case IB_LINK_LAYER_INFINIBAND:
		return SRPT_LINK_LAYER_INFINIBAND;
	case IB_LINK_LAYER_ETHERNET:
		return SRPT_LINK_LAYER_ETHERNET;
	default:
		return SRPT_LINK_LAYER_UNSPECIFIED;
	}
}

int srpt_ib_query_port(void *ib_device, uint32_t port_num,
		       struct srpt_port_desc *desc)
{
	struct ib_device *device = ib_device;
	struct ib_port_attr attr;
	union ib_gid gid;
	int ret;

	memset(desc, 0, sizeof(*desc));
	desc->port_num = port_num;
	desc->link_layer = srpt_link_layer(device, port_num);
	ret = ib_query_port(device, port_num, &attr);
	if (ret)
		return ret;
	desc->lid = attr.lid;
	desc->sm_lid = attr.sm_lid;
	if (!rdma_query_gid(device, port_num, 0, &gid)) {
		BUILD_BUG_ON(sizeof(desc->gid) != sizeof(gid.raw));
		memcpy(desc->gid, gid.raw, sizeof(desc->gid));
		desc->gid_valid = true;
	}
	return 0;
}

/**
 * srpt_event_handler() - asynchronous event of an RDMA device
 * @handler: the device's handler (in struct srpt_glue_device)
 * @event: port error, port active, LID, P_Key, SM or GID change
 *
 * A port error clears the port's LID and SM LID, as in-tree; the others
 * have a work item refresh them (and the MAD agent's port capabilities)
 * unless the port already knows them.
 *
 * Context: any, usually interrupt; never sleeps.
 */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_glue_device *gdev =
		container_of(handler, struct srpt_glue_device, event_handler);
	enum srpt_port_event kind;

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
		kind = SRPT_PORT_EVENT_ERR;
		break;
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		kind = SRPT_PORT_EVENT_CHANGE;
		break;
	default:
		kind = SRPT_PORT_EVENT_OTHER;
		break;
	}
	srpt_core_port_event(gdev->core, event->element.port_num, kind,
			     event->event);
}

static void srpt_glue_device_free(struct srpt_glue_device *gdev)
{
	kfree(gdev->mad_agents);
	kfree(gdev);
}

/**
 * srpt_add_one() - ib_client add callback: a new RDMA device
 * @device: the device
 *
 * Queries the ports, allocates the protection domain, registers the
 * device with the core (one target port per device port, named after its
 * GUID and GIDs, as in-tree), then the IB/CM listener, the MAD agents for
 * device management and the asynchronous event handler.
 *
 * Context: process (device registration or module load).
 * Return: 0 or a negative errno (the device is then not used).
 */
static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device_desc desc = {
		.name = dev_name(&device->dev),
		.node_guid = be64_to_cpu(device->node_guid),
		.port_count = device->phys_port_cnt,
		.ib_device = device,
		.vendor_id = device->attrs.vendor_id,
		.vendor_part_id = device->attrs.vendor_part_id,
		.hw_ver = device->attrs.hw_ver,
		.max_qp_wr = device->attrs.max_qp_wr,
		.max_srq_wr = device->attrs.max_srq_wr,
	};
	struct srpt_glue_device *gdev;
	struct srpt_port_desc *ports;
	u32 i;
	int ret;

	gdev = kzalloc(sizeof(*gdev), GFP_KERNEL);
	if (!gdev)
		return -ENOMEM;
	gdev->ib_device = device;
	gdev->mad_agents = kcalloc(device->phys_port_cnt,
				   sizeof(*gdev->mad_agents), GFP_KERNEL);
	ports = kcalloc(device->phys_port_cnt, sizeof(*ports), GFP_KERNEL);
	if (!gdev->mad_agents || !ports) {
		ret = -ENOMEM;
		goto free;
	}
	for (i = 0; i < device->phys_port_cnt; i++) {
		ret = srpt_ib_query_port(device, i + 1, &ports[i]);
		if (ret) {
			pr_err("querying %s port %u failed (%d)\n",
			       desc.name, i + 1, ret);
			goto free;
		}
	}
	desc.ports = ports;

	gdev->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(gdev->pd)) {
		ret = PTR_ERR(gdev->pd);
		goto free;
	}

	ret = srpt_core_add_device(&desc, &gdev->core);
	if (ret)
		goto dealloc_pd;
	kfree(ports);
	ports = NULL;

	/*
	 * After the core (it chose srpt_service_guid), before the MAD
	 * agents, as in-tree. A REQ before ib_set_client_data() below finds
	 * no glue device and is refused; no configfs port of a device that
	 * is being added can be enabled yet anyway.
	 */
	ret = srpt_ib_cm_listen(gdev);
	if (ret)
		goto remove_core;

	srpt_mad_agents_register(gdev);

	INIT_IB_EVENT_HANDLER(&gdev->event_handler, device, srpt_event_handler);
	ib_register_event_handler(&gdev->event_handler);
	gdev->event_handler_registered = true;

	ib_set_client_data(device, &srpt_client, gdev);
	return 0;

remove_core:
	srpt_core_remove_device(gdev->core);
dealloc_pd:
	ib_dealloc_pd(gdev->pd);
free:
	kfree(ports);
	srpt_glue_device_free(gdev);
	pr_info("adding %s failed (%d)\n", desc.name, ret);
	return ret;
}

struct srpt_glue_device *srpt_glue_device_of(struct ib_device *device)
{
	return ib_get_client_data(device, &srpt_client);
}

/**
 * srpt_remove_one() - ib_client remove callback: an RDMA device goes away
 * @device: the device
 * @client_data: our struct srpt_glue_device
 *
 * No new login first (event handler, MAD agents, listener), then every
 * channel of the device is disconnected and released, and the device's
 * core object is dropped; configfs may keep the target port directory,
 * but never the ib_device. Used by `rdma link delete` and rmmod of the
 * HCA driver.
 *
 * Context: process; sleeps until the channels are released.
 */
static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_glue_device *gdev = client_data;

	ib_unregister_event_handler(&gdev->event_handler);
	srpt_core_cancel_port_work(gdev->core);
	srpt_mad_agents_unregister(gdev);
	/* No new login: the listener goes before the channels (in-tree). */
	srpt_ib_cm_stop(gdev);
	ib_set_client_data(device, &srpt_client, NULL);
	/* Channels use the PD and the device: they go first. */
	srpt_core_dp_device_removing(gdev->core);
	/* Configfs may keep the core's device object; not the ib_device. */
	srpt_core_remove_device(gdev->core);
	ib_dealloc_pd(gdev->pd);
	srpt_glue_device_free(gdev);
}

static struct ib_client srpt_client = {
	.name = "ib_srpt",
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

int srpt_ib_client_register(void)
{
	return ib_register_client(&srpt_client);
}

void srpt_ib_client_unregister(void)
{
	ib_unregister_client(&srpt_client);
}
