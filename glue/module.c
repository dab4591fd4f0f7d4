// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Module init/exit and the module parameters, with the in-tree driver's
 * names, types, permissions and defaults. The rules (limits, GUID parsing)
 * are in the C++ core (src/module_params.cpp).
 */
#include "pr_fmt.h"

#include <linux/module.h>
#include <linux/moduleparam.h>

#include <srpt/core_api.h>
#include "glue.h"

MODULE_AUTHOR("ib_srpt C++ port");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(SRPT_VERSION);

static int srp_max_req_size = SRPT_DEFAULT_MAX_REQ_SIZE;
module_param(srp_max_req_size, int, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Maximum size of SRP request messages in bytes.");

static int srpt_srq_size = SRPT_DEFAULT_SRQ_SIZE;
module_param(srpt_srq_size, int, 0444);
MODULE_PARM_DESC(srpt_srq_size, "Shared receive queue (SRQ) size.");

/* The value lives in the core: the first device may fill it in later. */
static int srpt_service_guid_set(const char *buffer,
				 const struct kernel_param *kp)
{
	return srpt_core_set_service_guid(buffer);
}

static int srpt_service_guid_get(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "0x%016llx\n",
		       (unsigned long long)srpt_core_service_guid());
}

static const struct kernel_param_ops srpt_service_guid_ops = {
	.set = srpt_service_guid_set,
	.get = srpt_service_guid_get,
};
module_param_cb(srpt_service_guid, &srpt_service_guid_ops, NULL, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Using this value for ioc_guid, id_ext, and cm_listen_id instead of using the node_guid of the first HCA.");

/**
 * srpt_init_module() - load ib_srpt
 *
 * Validates the module parameters in the C++ core (srp_max_req_size,
 * srpt_srq_size; a bad value fails the load with -EINVAL and a log line,
 * as in-tree), creates the debugfs directory, registers the "srpt" fabric
 * with the LIO target core and then the IB client, whose add callback runs
 * for every RDMA device already present. Each step is undone on failure.
 *
 * Context: process (modprobe).
 * Return: 0 or a negative errno.
 */
static int __init srpt_init_module(void)
{
	const struct srpt_module_params params = {
		.srp_max_req_size = srp_max_req_size,
		.srpt_srq_size = srpt_srq_size,
	};
	int ret;

	ret = srpt_core_init(&params);
	if (ret)
		return ret;
	ret = srpt_glue_wc_init();
	if (ret)
		goto exit_core;
	ret = srpt_glue_dp_init();
	if (ret)
		goto exit_wc;

	/*
	 * The fabric first: adding a device may already involve the target
	 * core (as in-tree).
	 */
	ret = srpt_fabric_register();
	if (ret)
		goto exit_dp;

	ret = srpt_ib_client_register();
	if (ret) {
		pr_err("couldn't register IB client (%d)\n", ret);
		goto unregister_fabric;
	}
	return 0;

unregister_fabric:
	srpt_fabric_unregister();
exit_dp:
	srpt_glue_dp_exit();
exit_wc:
	srpt_glue_wc_exit();
exit_core:
	srpt_core_exit();
	return ret;
}

/**
 * srpt_cleanup_module() - unload ib_srpt
 *
 * Stops the RDMA/CM listener first (no new logins), removes every RDMA
 * device (each channel is disconnected and released), unregisters the
 * fabric and frees the core. The module cannot be unloaded while configfs
 * holds a target port (rmmod reports it in use, as in-tree).
 *
 * Context: process (rmmod).
 */
static void __exit srpt_cleanup_module(void)
{
	/* No new logins first, then devices, then the fabric. */
	srpt_core_rdma_cm_shutdown();
	srpt_ib_client_unregister();
	srpt_fabric_unregister();
	srpt_glue_dp_exit();
	srpt_glue_wc_exit();
	srpt_core_exit();
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);
