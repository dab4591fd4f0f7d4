// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LIO fabric "srpt": the target_core_fabric_ops template and the
 * configfs attributes under /sys/kernel/config/target/srpt/. Each callback
 * recovers the core's handle with container_of and forwards; names, limits,
 * messages and errors come from the C++ core (src/target_config.cpp), so
 * this file decides nothing.
 */
#include "pr_fmt.h"

#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include <srpt/core_api.h>
#include "glue.h"
#include "kcompat.h"

/* configfs <port>/ : a port in GUID or GID form. */
struct srpt_fabric_port {
	struct se_wwn wwn;
	struct srpt_core_port_id *core; /* srpt_core_port_id_make() handle */
	struct list_head entry;    /* srpt_fabric_ports */
	struct list_head tpgs;     /* srpt_fabric_tpg.entry, under mutex */
	struct mutex mutex;
};

/* configfs <port>/<tpg>/ */
struct srpt_fabric_tpg {
	struct se_portal_group tpg;
	struct srpt_fabric_port *port;
	struct list_head entry;
};

/* Every port directory, so that a login finds the TPGs of its port. */
static LIST_HEAD(srpt_fabric_ports);
static DEFINE_MUTEX(srpt_fabric_ports_mutex);

/*
 * target_setup_session() on each TPG of the port directory whose core
 * handle is @port_id, until one succeeds (its ACLs accept @name).
 * Contract: process context (a login). Returns 0, -ENOENT (no such
 * directory or no TPG) or the last error.
 */
int srpt_fabric_setup_session(struct srpt_core_port_id *port_id,
			      const char *name, u32 tag_num, u32 tag_size,
			      void *fabric_sess_ptr, struct se_session **out)
{
	struct srpt_fabric_port *port;
	struct srpt_fabric_tpg *stpg;
	int ret = -ENOENT;

	mutex_lock(&srpt_fabric_ports_mutex);
	list_for_each_entry(port, &srpt_fabric_ports, entry) {
		if (port->core != port_id)
			continue;
		mutex_lock(&port->mutex);
		list_for_each_entry(stpg, &port->tpgs, entry) {
			struct se_session *sess;

			sess = target_setup_session(&stpg->tpg, tag_num,
						    tag_size,
						    TARGET_PROT_NORMAL, name,
						    fabric_sess_ptr, NULL);
			if (!IS_ERR(sess)) {
				*out = sess;
				ret = 0;
				break;
			}
			ret = PTR_ERR(sess);
		}
		mutex_unlock(&port->mutex);
		break;
	}
	mutex_unlock(&srpt_fabric_ports_mutex);
	return ret;
}

static struct srpt_fabric_port *srpt_wwn_port(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_fabric_port, wwn);
}

static struct srpt_fabric_tpg *srpt_tpg(struct se_portal_group *tpg)
{
	return container_of(tpg, struct srpt_fabric_tpg, tpg);
}

static struct srpt_core_port_id *
srpt_tpg_core_port(struct se_portal_group *tpg)
{
	return srpt_tpg(tpg)->port->core;
}

/* ---- TPG identity: fixed, as in-tree (tag 1, no demo mode) ---- */

static char *srpt_get_fabric_wwn(struct se_portal_group *tpg)
{
	return (char *)srpt_core_port_id_name(srpt_tpg_core_port(tpg));
}

static u16 srpt_get_tag(struct se_portal_group *tpg)
{
	return 1;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *tpg)
{
	return 1;
}

static int srpt_check_true(struct se_portal_group *tpg)
{
	return 1;
}

static int srpt_check_false(struct se_portal_group *tpg)
{
	return 0;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

/*
 * Command callbacks (release_cmd, write_pending, queue_*, aborted_task,
 * close_session ...) are in glue/target_core.c, next to the commands.
 */

/* ---- configfs: ports, TPGs, ACLs ---- */

static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_fabric_port *port;
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return ERR_PTR(-ENOMEM);
	ret = srpt_core_port_id_make(name, &port->core);
	if (ret) {
		kfree(port);
		return ERR_PTR(ret);
	}
	INIT_LIST_HEAD(&port->tpgs);
	mutex_init(&port->mutex);
	mutex_lock(&srpt_fabric_ports_mutex);
	list_add_tail(&port->entry, &srpt_fabric_ports);
	mutex_unlock(&srpt_fabric_ports_mutex);
	return &port->wwn;
}

static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_fabric_port *port = srpt_wwn_port(wwn);

	mutex_lock(&srpt_fabric_ports_mutex);
	list_del(&port->entry);
	mutex_unlock(&srpt_fabric_ports_mutex);
	srpt_core_port_id_drop(port->core);
	kfree(port);
}

static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_fabric_tpg *stpg;
	int ret;

	stpg = kzalloc(sizeof(*stpg), GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->port = srpt_wwn_port(wwn);
	ret = core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}
	mutex_lock(&stpg->port->mutex);
	list_add_tail(&stpg->entry, &stpg->port->tpgs);
	mutex_unlock(&stpg->port->mutex);
	return &stpg->tpg;
}

static void srpt_drop_tpg(struct se_portal_group *tpg)
{
	struct srpt_fabric_tpg *stpg = srpt_tpg(tpg);

	mutex_lock(&stpg->port->mutex);
	list_del(&stpg->entry);
	mutex_unlock(&stpg->port->mutex);
	srpt_core_tpg_drop(stpg->port->core);
	core_tpg_deregister(tpg);
	kfree(stpg);
}

static int srpt_enable_tpg(struct se_portal_group *tpg, bool enable)
{
	return srpt_core_tpg_enable(srpt_tpg_core_port(tpg), enable);
}

static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	return srpt_core_acl_name_check(name);
}

/* ---- <port>/<tpg>/attrib/: four per-port attributes ---- */

static ssize_t srpt_attr_show(struct config_item *item, char *page,
			      enum srpt_port_attr attr)
{
	struct srpt_core_port_id *port =
		srpt_tpg_core_port(attrib_to_tpg(item));

	return sysfs_emit(page, attr == SRPT_ATTR_USE_SRQ ? "%d\n" : "%u\n",
			  srpt_core_port_attr_get(port, attr));
}

static ssize_t srpt_attr_store(struct config_item *item, const char *page,
			       size_t count, enum srpt_port_attr attr)
{
	struct srpt_core_port_id *port =
		srpt_tpg_core_port(attrib_to_tpg(item));
	int ret = srpt_core_port_attr_set(port, attr, page);

	return ret ? ret : count;
}

#define SRPT_PORT_ATTR(_name, _attr)                                          \
	static ssize_t srpt_tpg_attrib_##_name##_show(struct config_item *item, \
						      char *page)            \
	{                                                                     \
		return srpt_attr_show(item, page, _attr);                     \
	}                                                                     \
	static ssize_t srpt_tpg_attrib_##_name##_store(                       \
		struct config_item *item, const char *page, size_t count)     \
	{                                                                     \
		return srpt_attr_store(item, page, count, _attr);             \
	}                                                                     \
	CONFIGFS_ATTR(srpt_tpg_attrib_, _name)

SRPT_PORT_ATTR(srp_max_rdma_size, SRPT_ATTR_SRP_MAX_RDMA_SIZE);
SRPT_PORT_ATTR(srp_max_rsp_size, SRPT_ATTR_SRP_MAX_RSP_SIZE);
SRPT_PORT_ATTR(srp_sq_size, SRPT_ATTR_SRP_SQ_SIZE);
SRPT_PORT_ATTR(use_srq, SRPT_ATTR_USE_SRQ);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};

/* ---- discovery_auth/rdma_cm_port ---- */

static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", srpt_core_rdma_cm_port());
}

static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	int ret = srpt_core_rdma_cm_port_store(page);

	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_, rdma_cm_port);

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_attr_rdma_cm_port,
	NULL,
};

/* ---- version: an empty line, as in-tree ---- */

static ssize_t srpt_wwn_version_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "\n");
}

CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

/*
 * ---- <port>/<tpg>/acls/<initiator>/info: the ACL's session ----
 *
 * rtslib (targetcli sessions) reads every node ACL's "info" file and
 * parses the format LIO's iSCSI fabric writes; the in-tree ib_srpt has no
 * such file, so targetcli shows no SRP session. With auth/
 * authenticate_target below, the two additions to the in-tree configfs
 * tree (README, "Where the port behaves differently"; the controlpath
 * scenario allows exactly them). It lists the channels
 * logged in under the ACL, one "connection" each, in that format, plus the
 * channel's credits on a line rtslib does not parse.
 */
#define SRPT_ACL_INFO_MAX_CHANNELS 16

static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	struct se_node_acl *nacl = acl_to_nacl(item);
	struct srpt_acl_channel *chs;
	bool live = false;
	ssize_t len = 0;
	u32 n, i;

	chs = kcalloc(SRPT_ACL_INFO_MAX_CHANNELS, sizeof(*chs), GFP_KERNEL);
	if (!chs)
		return -ENOMEM;
	n = srpt_core_acl_channels(srpt_tpg_core_port(nacl->se_tpg),
				   nacl->initiatorname, chs,
				   SRPT_ACL_INFO_MAX_CHANNELS);
	if (!n) {
		len = sysfs_emit(page,
				 "No active SRP session for Initiator Endpoint: %s\n",
				 nacl->initiatorname);
		goto out;
	}
	n = min_t(u32, n, SRPT_ACL_INFO_MAX_CHANNELS);
	for (i = 0; i < n; i++)
		live |= chs[i].logged_in;
	len += sysfs_emit_at(page, len, "InitiatorName: %s\n",
			     nacl->initiatorname);
	len += sysfs_emit_at(page, len, "InitiatorAlias: \n");
	len += sysfs_emit_at(page, len,
			     "LIO Session ID: %u   SessionType: Normal\n",
			     chs[0].id);
	len += sysfs_emit_at(page, len, "Session State: TARG_SESS_STATE_%s\n",
			     live ? "LOGGED_IN" : "IN_SHUTDOWN");
	len += sysfs_emit_at(page, len,
			     "---------------------[SRP Channels for Session]---------------------\n");
	for (i = 0; i < n; i++) {
		const struct srpt_dp_stats *st = &chs[i].stats;

		len += sysfs_emit_at(page, len,
				     "CID: %u  Connection State: TARG_CONN_STATE_%s\n",
				     chs[i].id, chs[i].conn_state);
		len += sysfs_emit_at(page, len, "   Address %s %s\n",
				     chs[i].source,
				     chs[i].rdma_cm ? "RDMA/CM" : "IB/CM");
		len += sysfs_emit_at(page, len,
				     "   Credits: req_lim %d, in flight %d, send contexts %u of %u free, IUs waiting %u%s\n",
				     st->req_lim, st->in_flight,
				     st->send_ctx_free, st->send_ctx_total,
				     st->wait_depth,
				     st->use_srq ? ", shared receive queue" : "");
	}
out:
	kfree(chs);
	return len;
}
CONFIGFS_ATTR_RO(srpt_nacl_, info);

static struct configfs_attribute *srpt_nacl_base_attrs[] = {
	&srpt_nacl_attr_info,
	NULL,
};

/*
 * acls/<initiator>/auth/authenticate_target: SRP logins carry no
 * authentication, so always 0. `targetcli sessions detail` reads it for
 * every session (and stops with ENOENT without it); read-only, and rtslib
 * saves and restores no auth attribute for srpt (no "auth" feature).
 */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "0\n");
}
CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

static struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

static const struct target_core_fabric_ops srpt_template = {
	.module = THIS_MODULE,
	.fabric_name = "srpt",
	.tpg_get_wwn = srpt_get_fabric_wwn,
	.tpg_get_tag = srpt_get_tag,
	.tpg_check_demo_mode = srpt_check_false,
	.tpg_check_demo_mode_cache = srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index = srpt_tpg_get_inst_index,
	.release_cmd = srpt_fabric_release_cmd,
	.check_stop_free = srpt_fabric_check_stop_free,
	.close_session = srpt_fabric_close_session,
	.sess_get_index = srpt_sess_get_index,
	.write_pending = srpt_fabric_write_pending,
	.set_default_node_attributes = srpt_set_default_node_attrs,
	.get_cmd_state = srpt_fabric_get_cmd_state,
	.queue_data_in = srpt_fabric_queue_data_in,
	.queue_status = srpt_fabric_queue_status,
	.queue_tm_rsp = srpt_fabric_queue_tm_rsp,
	.aborted_task = srpt_fabric_aborted_task,
	.fabric_make_wwn = srpt_make_tport,
	.fabric_drop_wwn = srpt_drop_tport,
	.fabric_make_tpg = srpt_make_tpg,
	.fabric_enable_tpg = srpt_enable_tpg,
	.fabric_drop_tpg = srpt_drop_tpg,
	.fabric_init_nodeacl = srpt_init_nodeacl,
	.tfc_discovery_attrs = srpt_da_attrs,
	.tfc_wwn_attrs = srpt_wwn_attrs,
	.tfc_tpg_attrib_attrs = srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs = srpt_nacl_base_attrs,
	.tfc_tpg_nacl_auth_attrs = srpt_nacl_auth_attrs,
	SRPT_FABRIC_SUBMIT_OPS
};

int srpt_fabric_register(void)
{
	return target_register_template(&srpt_template);
}

void srpt_fabric_unregister(void)
{
	target_unregister_template(&srpt_template);
}
