/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Entry points of the C++ core. The rule of this header: implemented in
 * C++ (src/core_api.cpp: module, devices, ports, configfs;
 * src/datapath_api.cpp: logins, CM events, completions, LIO callbacks,
 * channel stats), called by the C glue; every function is srpt_core_*.
 * What C implements for the core is in platform.h and rdma_glue.h;
 * platform.h lists all four boundary headers. Plain C: fixed-width
 * integers and opaque handles. Errors are 0 or a negative Linux errno,
 * converted from the core's Status in those two files only.
 */
#ifndef SRPT_CORE_API_H
#define SRPT_CORE_API_H

#include <srpt/channel_stats_fields.h>
#include <srpt/platform.h>

/*
 * Handles of the core's objects: a device (srpt_core_add_device), a
 * configfs port (srpt_core_port_id_make) and a channel (handed to the glue
 * in struct srpt_dp_ch_args). Incomplete in C, so that one kind cannot be
 * passed for another; in C++ the empty base classes of srpt::Device,
 * srpt::PortId and srpt::Channel, so that the entry points get the object
 * back with a static_cast the compiler checks. (Outside extern "C": an
 * empty struct there is a C-compatibility warning for clang.)
 */
#ifdef __cplusplus
struct srpt_core_device {};
struct srpt_core_port_id {};
struct srpt_core_ch {};
#else
struct srpt_core_device;
struct srpt_core_port_id;
struct srpt_core_ch;
#endif

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

/* One entry per port (rdma_glue.h): what srpt_ib_query_port() fills in. */
struct srpt_port_desc;

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
			 struct srpt_core_device **core_device);
/*
 * The device goes away. Contract: process context (ib_client remove);
 * after it returns the core holds no reference to the ib_device.
 */
void srpt_core_remove_device(struct srpt_core_device *core_device);

/*
 * An asynchronous port event (ib_event_handler). Contract: any context;
 * a refresh is deferred to a work item that calls srpt_ib_query_port().
 */
enum srpt_port_event {
	SRPT_PORT_EVENT_ERR = 0,     /* IB_EVENT_PORT_ERR */
	SRPT_PORT_EVENT_CHANGE = 1,  /* ACTIVE, LID/PKEY/SM/GID change, rereg */
	SRPT_PORT_EVENT_OTHER = 2,
};
void srpt_core_port_event(struct srpt_core_device *core_device,
			  uint32_t port_num, enum srpt_port_event event,
			  int32_t raw_event);
/* Contract: process context; waits for deferred refreshes of @core_device. */
void srpt_core_cancel_port_work(struct srpt_core_device *core_device);

/*
 * A device-management MAD arrived on @port_num. Fills @response (256 bytes)
 * and returns true when it must be sent back. Contract: any context.
 */
bool srpt_core_handle_dm_mad(struct srpt_core_device *core_device,
			     uint32_t port_num, const uint8_t *request,
			     size_t request_len, uint8_t *response,
			     size_t response_len);

/* ---- configfs: /sys/kernel/config/target/srpt/ ---------------------- */

/*
 * mkdir <port>: @name is the GUID or GID form of a port. On success
 * *port_id is the core's handle and holds a device reference.
 * Returns -EINVAL for a name that designates no port.
 */
int srpt_core_port_id_make(const char *name,
			   struct srpt_core_port_id **port_id);
void srpt_core_port_id_drop(struct srpt_core_port_id *port_id);
/* The directory name, stable for the life of the handle. */
const char *srpt_core_port_id_name(struct srpt_core_port_id *port_id);

/* <port>/<tpg>/enable, and the TPG going away. Contract: process context. */
int srpt_core_tpg_enable(struct srpt_core_port_id *port_id, bool enable);
void srpt_core_tpg_drop(struct srpt_core_port_id *port_id);

enum srpt_port_attr {
	SRPT_ATTR_SRP_MAX_RDMA_SIZE = 0,
	SRPT_ATTR_SRP_MAX_RSP_SIZE = 1,
	SRPT_ATTR_SRP_SQ_SIZE = 2,
	SRPT_ATTR_USE_SRQ = 3,
};
uint32_t srpt_core_port_attr_get(struct srpt_core_port_id *port_id,
				 enum srpt_port_attr attr);
/* Returns 0 or -EINVAL/-ERANGE, and logs what was wrong, as in-tree. */
int srpt_core_port_attr_set(struct srpt_core_port_id *port_id,
			    enum srpt_port_attr attr, const char *text);

/* mkdir acls/<name>: 0 when @name is a valid initiator port ID. */
int srpt_core_acl_name_check(const char *name);

/* discovery_auth/rdma_cm_port. Contract: process context. */
uint16_t srpt_core_rdma_cm_port(void);
int srpt_core_rdma_cm_port_store(const char *text);
/* Module exit: the listener goes first, before the devices. */
void srpt_core_rdma_cm_shutdown(void);

/* ---- data path: logins, CM events, completions, LIO (datapath_api.cpp) */

/*
 * RDMA/CM connect request. @src_addr: "%pIS" of the cm_id's source
 * address (the session name on GUID-named ports). Returns 0 when the
 * channel took the cm_id (accepted, or rejected with the release work
 * owning it), negative when the glue must let RDMA/CM destroy it.
 * Contract: process context (RDMA/CM handler).
 */
int srpt_core_dp_rdma_cm_req(struct srpt_core_device *core_device,
			     uint32_t port_num, void *cm_id,
			     const uint8_t *pdata, uint32_t pdata_len,
			     const char *src_addr);
/*
 * IB/CM REQ (InfiniBand link layer). @pdata: the REQ's private data
 * (struct srp_login_req, 64 of its 92 bytes); @initiator_gid: the 16-byte
 * GID of the initiator's port (the REQ's primary path dgid, network byte
 * order), whose GUID half names the session on GUID-named ports; @pkey:
 * the primary path's P_Key (CPU order), for the QP's P_Key index.
 * Returns as srpt_core_dp_rdma_cm_req (negative: the IB/CM handler returns
 * it and IB/CM destroys the id). Contract: process context (IB/CM
 * handler of the REQ's new cm_id).
 */
int srpt_core_dp_ib_cm_req(struct srpt_core_device *core_device,
			   uint32_t port_num, void *cm_id, const uint8_t *pdata,
			   uint32_t pdata_len, const uint8_t *initiator_gid,
			   uint16_t pkey);

/* The events of both CMs, merged (the glue maps them). */
enum srpt_dp_cm_event {
	SRPT_DP_CM_ESTABLISHED = 0,  /* RTU / ESTABLISHED: the QP is in RTS */
	SRPT_DP_CM_DISCONNECTED = 1, /* RDMA/CM: DREQ received, DREP or
				        timeout; IB/CM: DREP received */
	SRPT_DP_CM_TIMEWAIT_EXIT = 2,
	SRPT_DP_CM_REJECTED = 3,     /* also UNREACHABLE, CONNECT_ERROR,
				        IB/CM REP_ERROR, a failed RTS */
	SRPT_DP_CM_DEVICE_REMOVAL = 4,
	SRPT_DP_CM_ADDR_CHANGE = 5,
	/*
	 * IB/CM: the peer's DREQ. Unlike RDMA/CM, IB/CM leaves the answer
	 * to the consumer: the core answers with srpt_dp_cm_drep() in every
	 * state, also when its own DREQ crossed the peer's.
	 */
	SRPT_DP_CM_DREQ_RECEIVED = 6,
};
/* Contract: process context (the CM handler of the channel's id). */
void srpt_core_dp_cm_event(struct srpt_core_ch *core_ch,
			   enum srpt_dp_cm_event event);

/*
 * Completions, and what the glue does next. Each call returns after the
 * core has dropped its lock; the glue then makes the target core's calls
 * that may call back into the core (submission, execution, the fabric
 * reference's put), so that no target core callback runs inside the core.
 */
struct srpt_dp_handoff; /* rdma_glue.h */
enum srpt_dp_next {
	SRPT_DP_NEXT_NONE = 0,
	SRPT_DP_NEXT_PUT = 1,     /* srpt_dp_put_cmd(): drop the fabric's ref */
	SRPT_DP_NEXT_EXECUTE = 2, /* target_execute_cmd(): data-out is here */
	SRPT_DP_NEXT_FAIL = 3,    /* the RDMA READ failed: fail the command */
	SRPT_DP_NEXT_REFUSED = 4, /* send_done_atomic: process context instead */
};
/*
 * A receive completed. True: submit @h, then call
 * srpt_core_dp_handoff_done() until it returns false.
 * Contract: the receive CQ's poll work; may sleep.
 */
bool srpt_core_dp_recv_done(struct srpt_core_ch *core_ch, uint32_t index,
			    uint32_t byte_len, bool ok,
			    struct srpt_dp_handoff *h);
/*
 * @h was submitted (its rc set). True: @h holds the next hand-off.
 * Contract: the context that got @h; may sleep.
 */
bool srpt_core_dp_handoff_done(struct srpt_core_ch *core_ch,
			       struct srpt_dp_handoff *h);
/*
 * The kick work item (srpt_dp_kick()): as srpt_core_dp_recv_done().
 * Contract: process context.
 */
bool srpt_core_dp_kick(struct srpt_core_ch *core_ch,
		       struct srpt_dp_handoff *h);
/*
 * A response's SEND completed: SRPT_DP_NEXT_PUT or _NONE. Contract:
 * process context (the send side's work item).
 */
enum srpt_dp_next srpt_core_dp_send_done(struct srpt_core_ch *core_ch,
					 uint32_t index, bool ok);
/*
 * A successful SEND completed, in a context that must not sleep (the send
 * CQ's softirq poller): as srpt_core_dp_send_done(), or
 * SRPT_DP_NEXT_REFUSED: nothing was done, call srpt_core_dp_send_done()
 * from process context.
 */
enum srpt_dp_next srpt_core_dp_send_done_atomic(struct srpt_core_ch *core_ch,
						uint32_t index);
/* SRPT_DP_NEXT_EXECUTE, _FAIL or _NONE. Contract: process context. */
enum srpt_dp_next srpt_core_dp_rdma_read_done(struct srpt_core_ch *core_ch,
					      uint32_t index, bool ok);
void srpt_core_dp_zlw_done(struct srpt_core_ch *core_ch, bool ok);

/* The target core's fabric callbacks for command @index (any context). */
struct srpt_dp_rsp {
	uint8_t scsi_status;
	uint8_t dir;              /* enum srpt_dp_dir (rdma_glue.h) */
	bool underflow;
	bool overflow;
	uint32_t residual;
	const uint8_t *sense;
	uint32_t sense_len;
	uint32_t n_rdma_writes;   /* data-in WRs to chain (0: status only) */
};
/* queue_data_in / queue_status. Returns 0 or -EAGAIN (LIO retries). */
int srpt_core_dp_queue_response(struct srpt_core_ch *core_ch, uint32_t index,
				const struct srpt_dp_rsp *rsp);
enum srpt_dp_tmr_result {
	SRPT_DP_TMR_COMPLETE = 0,
	SRPT_DP_TMR_REJECTED = 1,  /* function not supported */
	SRPT_DP_TMR_FAILED = 2,
};
void srpt_core_dp_queue_tm_rsp(struct srpt_core_ch *core_ch, uint32_t index,
			       enum srpt_dp_tmr_result result);
/*
 * write_pending: @n_rdma_reads == 0 means the data is already here.
 * Returns SRPT_DP_NEXT_EXECUTE (the glue executes the command),
 * SRPT_DP_NEXT_NONE (RDMA READs posted) or a negative errno.
 */
int srpt_core_dp_write_pending(struct srpt_core_ch *core_ch, uint32_t index,
			       uint32_t n_rdma_reads);
void srpt_core_dp_aborted_task(struct srpt_core_ch *core_ch, uint32_t index);
/* release_cmd, after the glue released its per-command resources. */
void srpt_core_dp_cmd_release(struct srpt_core_ch *core_ch, uint32_t index);
int srpt_core_dp_cmd_state(struct srpt_core_ch *core_ch, uint32_t index);
/* close_session: disconnect the channel (asynchronously). */
void srpt_core_dp_close_session(struct srpt_core_ch *core_ch);

/*
 * ib_client remove: close the channels on @core_device and wait until they
 * are released. Contract: process context, before the PD goes away.
 */
void srpt_core_dp_device_removing(struct srpt_core_device *core_device);

/* Module init / exit of the data path (channel registry, debugfs). */
int srpt_core_dp_init(void);
void srpt_core_dp_exit(void);

/*
 * A snapshot of a channel for debugfs and configfs: ChannelStats and what
 * the channel adds (the fields are listed in channel_stats_fields.h).
 */
struct srpt_dp_stats {
	const char *state;       /* channel state name */
	const char *phase;       /* data-path phase name */
	SRPT_DATAPATH_COUNTERS(SRPT_STATS_FIELD)
	SRPT_CHANNEL_PROPERTIES(SRPT_STATS_FIELD)
};
void srpt_core_dp_get_stats(struct srpt_core_ch *core_ch,
			    struct srpt_dp_stats *out);

/* One channel of a node ACL's session (configfs acls/<name>/info). */
struct srpt_acl_channel {
	uint32_t id;
	bool rdma_cm;            /* logged in through RDMA/CM, else IB/CM */
	bool logged_in;          /* the channel serves I/O (state "live") */
	/*
	 * The channel's state in the words of LIO's iSCSI connection states,
	 * which rtslib parses: LOGGED_IN, IN_LOGIN, IN_LOGOUT, CLEANUP_WAIT.
	 */
	const char *conn_state;
	char source[64];         /* the initiator's address or port GID */
	struct srpt_dp_stats stats;
};
/*
 * The channels whose LIO session was set up under the node ACL @acl_name
 * of the configfs port @port_id, in channel id order (the order of their
 * logins): fills up to @max and returns how many there are.
 * Contract: process context (configfs).
 */
uint32_t srpt_core_acl_channels(struct srpt_core_port_id *port_id,
				const char *acl_name,
				struct srpt_acl_channel *out, uint32_t max);

#ifdef __cplusplus
}
#endif

#endif
