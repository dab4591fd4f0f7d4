/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Declarations shared by the C glue files (glue/, configfs/): private to
 * the glue, never seen by C++. What the core and the glue say to each
 * other is in include/srpt/ (platform.h lists those headers). C only.
 */
#ifndef SRPT_GLUE_H
#define SRPT_GLUE_H

#include <rdma/ib_verbs.h>

#include <srpt/core_api.h>

struct ib_cm_id;
struct ib_mad_agent;

/* What the glue keeps per RDMA device; ib_client data points here. */
struct srpt_glue_device {
	struct ib_device *ib_device;
	struct ib_pd *pd;
	struct srpt_core_device *core;    /* srpt_core_add_device() handle */
	struct ib_event_handler event_handler;
	bool event_handler_registered;
	struct ib_mad_agent **mad_agents; /* one per port, may be NULL */
	struct ib_cm_id *ib_cm_listener;  /* InfiniBand link layer only */
};

int srpt_ib_client_register(void);
void srpt_ib_client_unregister(void);

/* glue/mad_agent.c: the device-management class on each MAD port. */
void srpt_mad_agents_register(struct srpt_glue_device *gdev);
void srpt_mad_agents_unregister(struct srpt_glue_device *gdev);

/*
 * glue/ib_cm.c: the device's IB/CM listener on srpt_service_guid, created
 * only when port 1's link layer is InfiniBand (0 and no listener
 * otherwise); stop waits for running REQ handlers.
 */
int srpt_ib_cm_listen(struct srpt_glue_device *gdev);
void srpt_ib_cm_stop(struct srpt_glue_device *gdev);

/*
 * configfs/fabric.c: the LIO fabric template, and target_setup_session()
 * on the TPGs of the configfs port @port_id (for srpt_dp_session_setup).
 */
struct se_cmd;
struct se_session;
int srpt_fabric_register(void);
void srpt_fabric_unregister(void);
int srpt_fabric_setup_session(struct srpt_core_port_id *port_id,
			      const char *name, u32 tag_num, u32 tag_size,
			      void *fabric_sess_ptr, struct se_session **out);

/* glue/ib_client.c: the glue device of an ib_device, or NULL. */
struct srpt_glue_device *srpt_glue_device_of(struct ib_device *device);

/* glue/target_core.c: the fabric template's command callbacks. */
void srpt_fabric_release_cmd(struct se_cmd *cmd);
int srpt_fabric_check_stop_free(struct se_cmd *cmd);
int srpt_fabric_write_pending(struct se_cmd *cmd);
int srpt_fabric_get_cmd_state(struct se_cmd *cmd);
int srpt_fabric_queue_data_in(struct se_cmd *cmd);
int srpt_fabric_queue_status(struct se_cmd *cmd);
void srpt_fabric_queue_tm_rsp(struct se_cmd *cmd);
void srpt_fabric_aborted_task(struct se_cmd *cmd);
void srpt_fabric_close_session(struct se_session *sess);

/*
 * glue/completion.c: the workqueue of the channels' receive polling, their
 * send-side completions that sleep, and their kicks.
 */
int srpt_glue_wc_init(void);
void srpt_glue_wc_exit(void);

/* glue/debugfs.c: data-path init/exit (the core's registry, debugfs). */
int srpt_glue_dp_init(void);
void srpt_glue_dp_exit(void);
/*
 * debugfs spare_pages_max: the spare data pages a channel created now may
 * keep (glue/target_core.c, "Spare data pages"; 0: none).
 */
u32 srpt_glue_spare_pages_max(void);

#endif
