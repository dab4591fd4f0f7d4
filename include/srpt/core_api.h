/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Entry points of the C++ core called by the C glue (the other direction
 * of include/srpt/platform.h). Plain C: fixed-width integers and opaque
 * handles. Errors are 0 or a negative Linux errno.
 */
#ifndef SRPT_CORE_API_H
#define SRPT_CORE_API_H

#include <srpt/platform.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Module parameters (names, types and limits as the in-tree driver) */

#define SRPT_DEFAULT_MAX_REQ_SIZE 8276 /* srp_max_req_size default */
#define SRPT_MIN_MAX_REQ_SIZE 996      /* smallest srp_max_req_size */
#define SRPT_DEFAULT_SRQ_SIZE 4095     /* srpt_srq_size default */
#define SRPT_MIN_SRQ_SIZE 4
#define SRPT_MAX_SRQ_SIZE 65535

struct srpt_module_params {
	int32_t srp_max_req_size;
	int32_t srpt_srq_size;
};

/*
 * Validates the parameters, logs what is wrong with them, and sets up the
 * core. Contract: module init (process context), once.
 * Returns 0, -EINVAL for a bad parameter, -ENOMEM.
 */
int srpt_core_init(const struct srpt_module_params *params);
/* Contract: module exit, after every device was removed. */
void srpt_core_exit(void);

/*
 * srpt_service_guid: set from the module parameter (before init, or never),
 * read back for the parameter's sysfs file. Parsing follows kstrtou64 with
 * base 16 ("0x" prefix optional, one trailing newline allowed).
 * Returns 0, -EINVAL (not a number) or -ERANGE (more than 64 bits).
 */
int srpt_core_set_service_guid(const char *text);
uint64_t srpt_core_service_guid(void);

/* ---- RDMA devices and ports (from the ib_client callbacks) ---------- */

enum srpt_link_layer {
	SRPT_LINK_LAYER_UNSPECIFIED = 0,
	SRPT_LINK_LAYER_INFINIBAND = 1,
	SRPT_LINK_LAYER_ETHERNET = 2,
};

struct srpt_port_desc {
	uint32_t port_num;       /* 1-based, as the verbs API */
	uint32_t link_layer;     /* enum srpt_link_layer */
	bool gid_valid;          /* GID index 0 could be read */
	uint8_t gid[16];         /* GID index 0, network byte order */
	uint16_t lid;
	uint16_t sm_lid;
};

struct srpt_device_desc {
	const char *name;        /* dev_name() of the ib_device */
	uint64_t node_guid;      /* CPU byte order */
	uint32_t port_count;
	const struct srpt_port_desc *ports; /* port_count entries */
	void *ib_device;         /* opaque handle, owned by the glue */
	/* From ib_device->attrs, for the DM MADs and queue sizing. */
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	uint32_t max_qp_wr;
	uint32_t max_srq_wr;
};

/*
 * A device appeared. On success *core_device is the core's handle for it.
 * Contract: process context (ib_client add); may sleep.
 */
int srpt_core_add_device(const struct srpt_device_desc *desc,
			 void **core_device);
/*
 * The device goes away. Contract: process context (ib_client remove);
 * after it returns the core holds no reference to the ib_device.
 */
void srpt_core_remove_device(void *core_device);

/*
 * An asynchronous port event (ib_event_handler). Contract: any context;
 * a refresh is deferred to a work item that calls srpt_ib_query_port().
 */
enum srpt_port_event {
	SRPT_PORT_EVENT_ERR = 0,     /* IB_EVENT_PORT_ERR */
	SRPT_PORT_EVENT_CHANGE = 1,  /* ACTIVE, LID/PKEY/SM/GID change, rereg */
	SRPT_PORT_EVENT_OTHER = 2,
};
void srpt_core_port_event(void *core_device, uint32_t port_num,
			  enum srpt_port_event event, int32_t raw_event);
/* Contract: process context; waits for deferred refreshes of @core_device. */
void srpt_core_cancel_port_work(void *core_device);

/*
 * A device-management MAD arrived on @port_num. Fills @response (256 bytes)
 * and returns true when it must be sent back. Contract: any context.
 */
bool srpt_core_handle_dm_mad(void *core_device, uint32_t port_num,
			     const uint8_t *request, size_t request_len,
			     uint8_t *response, size_t response_len);

/* ---- configfs: /sys/kernel/config/target/srpt/ ---------------------- */

/*
 * mkdir <port>: @name is the GUID or GID form of a port. On success
 * *port_id is the core's handle and holds a device reference.
 * Returns -EINVAL for a name that designates no port.
 */
int srpt_core_port_id_make(const char *name, void **port_id);
void srpt_core_port_id_drop(void *port_id);
/* The directory name, stable for the life of the handle. */
const char *srpt_core_port_id_name(void *port_id);

/* <port>/<tpg>/enable, and the TPG going away. Contract: process context. */
int srpt_core_tpg_enable(void *port_id, bool enable);
void srpt_core_tpg_drop(void *port_id);

enum srpt_port_attr {
	SRPT_ATTR_SRP_MAX_RDMA_SIZE = 0,
	SRPT_ATTR_SRP_MAX_RSP_SIZE = 1,
	SRPT_ATTR_SRP_SQ_SIZE = 2,
	SRPT_ATTR_USE_SRQ = 3,
};
uint32_t srpt_core_port_attr_get(void *port_id, enum srpt_port_attr attr);
/* Returns 0 or -EINVAL/-ERANGE, and logs what was wrong, as in-tree. */
int srpt_core_port_attr_set(void *port_id, enum srpt_port_attr attr,
			    const char *text);

/* mkdir acls/<name>: 0 when @name is a valid initiator port ID. */
int srpt_core_acl_name_check(const char *name);

/* discovery_auth/rdma_cm_port. Contract: process context. */
uint16_t srpt_core_rdma_cm_port(void);
int srpt_core_rdma_cm_port_store(const char *text);
/* Module exit: the listener goes first, before the devices. */
void srpt_core_rdma_cm_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif
