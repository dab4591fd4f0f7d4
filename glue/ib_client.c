// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ib_client: RDMA devices appear and disappear here. The glue reads
 * what the core needs from the ib_device (ports, link layers, GIDs) into a
 * plain description and hands it over; the core decides and logs.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>

#include <srpt/core_api.h>
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

static void srpt_describe_port(struct ib_device *device, u32 port,
			       struct srpt_port_desc *desc)
{
	struct ib_port_attr attr;
	union ib_gid gid;

	desc->port_num = port;
	desc->link_layer = srpt_link_layer(device, port);
	if (!ib_query_port(device, port, &attr)) {
		desc->lid = attr.lid;
		desc->sm_lid = attr.sm_lid;
	}
	if (!rdma_query_gid(device, port, 0, &gid)) {
		BUILD_BUG_ON(sizeof(desc->gid) != sizeof(gid.raw));
		memcpy(desc->gid, gid.raw, sizeof(desc->gid));
		desc->gid_valid = true;
	}
}

static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device_desc desc = {
		.name = dev_name(&device->dev),
		.node_guid = be64_to_cpu(device->node_guid),
		.port_count = device->phys_port_cnt,
		.ib_device = device,
	};
	struct srpt_port_desc *ports;
	void *core_device = NULL;
	u32 i;
	int ret;

	ports = kcalloc(device->phys_port_cnt, sizeof(*ports), GFP_KERNEL);
	if (!ports)
		return -ENOMEM;
	for (i = 0; i < device->phys_port_cnt; i++)
		srpt_describe_port(device, i + 1, &ports[i]);
	desc.ports = ports;

	ret = srpt_core_add_device(&desc, &core_device);
	kfree(ports);
	if (ret) {
		pr_info("ib_srpt: adding %s failed (%d)\n", desc.name, ret);
		return ret;
	}
	ib_set_client_data(device, &srpt_client, core_device);
	return 0;
}

static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	ib_set_client_data(device, &srpt_client, NULL);
	srpt_core_remove_device(client_data);
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
