/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Declarations shared by the C glue files. C only. */
#ifndef SRPT_GLUE_H
#define SRPT_GLUE_H

#include <rdma/ib_verbs.h>

struct ib_mad_agent;

/* What the glue keeps per RDMA device; ib_client data points here. */
struct srpt_glue_device {
	struct ib_device *ib_device;
	struct ib_pd *pd;
	void *core;                       /* srpt_core_add_device() handle */
	struct ib_event_handler event_handler;
	bool event_handler_registered;
	struct ib_mad_agent **mad_agents; /* one per port, may be NULL */
};

int srpt_ib_client_register(void);
void srpt_ib_client_unregister(void);

/* glue/mad_agent.c: the device-management class on each MAD port. */
void srpt_mad_agents_register(struct srpt_glue_device *gdev);
void srpt_mad_agents_unregister(struct srpt_glue_device *gdev);

/* configfs/fabric.c: the LIO fabric template. */
int srpt_fabric_register(void);
void srpt_fabric_unregister(void);

#endif
