// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The C entry points of include/srpt/core_api.h: convert, call the core,
 * convert back. No logic of their own.
 */
#include <srpt/core_api.h>
#include <srpt/device_registry.hpp>
#include <srpt/log.hpp>
#include <srpt/mad_protocol.hpp>
#include <srpt/module_params.hpp>
#include <srpt/module_state.hpp>
#include <srpt/rdma_glue.h>
#include <srpt/target_config.hpp>

namespace srpt
{

static constinit ModuleState g_module_state = {
    .params = {SRPT_DEFAULT_MAX_REQ_SIZE, SRPT_DEFAULT_SRQ_SIZE},
    .service_guid = 0,
    .registry = nullptr,
    .rdma_cm = nullptr,
};

ModuleState &GetModuleState()
{
	return g_module_state;
}

} // namespace srpt

using srpt::GetModuleState;
using srpt::Status;
using srpt::ToNegativeErrno;

extern "C" int srpt_core_init(const srpt_module_params *params)
{
	srpt::ModuleState &state = GetModuleState();

	if (SRPT_WARN_ON(state.registry))
		return -SRPT_EBUSY;
	const Status valid = srpt::ValidateModuleParams(*params);
	if (!srpt::IsOk(valid))
		return ToNegativeErrno(valid);

	state.registry = new (srpt::Gfp::kKernel) srpt::DeviceRegistry();
	state.rdma_cm = new (srpt::Gfp::kKernel) srpt::RdmaCmListener();
	if (!state.registry || !state.rdma_cm) {
		srpt_core_exit();
		return -SRPT_ENOMEM;
	}
	state.params = *params;
	return 0;
}

extern "C" void srpt_core_exit(void)
{
	srpt::ModuleState &state = GetModuleState();

	delete state.rdma_cm;
	state.rdma_cm = nullptr;
	delete state.registry;
	state.registry = nullptr;
}

extern "C" int srpt_core_set_service_guid(const char *text)
{
	const srpt::Result<uint64_t> guid = srpt::ParseHexU64(text);
	if (!guid.ok())
		return ToNegativeErrno(guid.status());
	GetModuleState().service_guid = *guid;
	return 0;
}

extern "C" uint64_t srpt_core_service_guid(void)
{
	return GetModuleState().service_guid;
}

/* ---- devices and ports ---------------------------------------------- */

static void RefreshPortWork(void *ctx)
{
	srpt::Port &port = *static_cast<srpt::Port *>(ctx);
	void *ib_device = port.device->ib_device();
	srpt_port_desc desc{};
	if (!ib_device || srpt_ib_query_port(ib_device, port.number, &desc))
		return;
	desc.port_num = port.number;
	GetModuleState().registry->RefreshPort(port, desc);
	SRPT_DEBUG(nullptr, "device %s port %u refreshed: %s",
		   port.device->name(), port.number, port.gid_name);
}

extern "C" int srpt_core_add_device(const srpt_device_desc *desc,
				    srpt_core_device **core_device)
{
	srpt::DeviceRegistry *registry = GetModuleState().registry;
	if (SRPT_WARN_ON(!registry))
		return -SRPT_ENODEV;
	srpt::Device *device = nullptr;
	const Status status = registry->Add(*desc, &device);
	if (!srpt::IsOk(status))
		return ToNegativeErrno(status);
	for (uint32_t n = 1; n <= device->port_count(); n++)
		srpt_work_init(device->port(n)->refresh_work, RefreshPortWork,
			       device->port(n), SRPT_WORK_PORT_REFRESH);
	*core_device = device;
	return 0;
}

extern "C" void srpt_core_remove_device(srpt_core_device *core_device)
{
	srpt::DeviceRegistry *registry = GetModuleState().registry;
	if (SRPT_WARN_ON(!registry || !core_device))
		return;
	srpt::Device *device = static_cast<srpt::Device *>(core_device);
	srpt_core_cancel_port_work(core_device);
	/*
	 * Normally done by srpt_core_dp_device_removing() already; the SRQ
	 * must go before the glue deallocates the PD in any case.
	 */
	device->srq().Shutdown(device->name());
	registry->Remove(device);
}

extern "C" void srpt_core_port_event(srpt_core_device *core_device,
				     uint32_t port_num,
				     enum srpt_port_event event,
				     int32_t raw_event)
{
	srpt::Device *device = static_cast<srpt::Device *>(core_device);
	srpt::Port *port = device->port(port_num);
	if (!port) {
		SRPT_ERR(nullptr, "device %s: event %d for port %u of 1..%u",
			 device->name(), raw_event, port_num,
			 device->port_count());
		return;
	}
	switch (event) {
	case SRPT_PORT_EVENT_ERR:
		__atomic_store_n(&port->lid, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&port->sm_lid, 0, __ATOMIC_RELAXED);
		break;
	case SRPT_PORT_EVENT_CHANGE:
		/* As in-tree: refresh unless the SM already gave us LIDs. */
		if (!__atomic_load_n(&port->lid, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&port->sm_lid, __ATOMIC_RELAXED))
			srpt_work_queue(port->refresh_work);
		break;
	case SRPT_PORT_EVENT_OTHER:
		SRPT_ERR(nullptr, "received unrecognized IB event %d",
			 raw_event);
		break;
	}
}

extern "C" void srpt_core_cancel_port_work(srpt_core_device *core_device)
{
	srpt::Device *device = static_cast<srpt::Device *>(core_device);
	for (uint32_t n = 1; n <= device->port_count(); n++)
		srpt_work_cancel_sync(device->port(n)->refresh_work);
}

extern "C" bool srpt_core_handle_dm_mad(srpt_core_device *core_device,
					uint32_t port_num,
					const uint8_t *request,
					size_t request_len, uint8_t *response,
					size_t response_len)
{
	srpt::Device *device = static_cast<srpt::Device *>(core_device);
	srpt::Port *port = device->port(port_num);
	if (!port)
		return false;
	const srpt::ModuleState &state = GetModuleState();
	const srpt::DeviceAttributes &attrs = device->attributes();
	srpt::DmDeviceInfo info{};
	info.ioc_guid = state.service_guid;
	info.vendor_id = attrs.vendor_id;
	info.vendor_part_id = attrs.vendor_part_id;
	info.hw_ver = attrs.hw_ver;
	/*
	 * As in-tree: the SRQ's size when the port's channels use it, else
	 * the receive ring of one channel, min(128, max_qp_wr).
	 */
	const uint32_t srq_depth = device->srq().depth();
	uint32_t depth = attrs.max_qp_wr < 128 ? attrs.max_qp_wr : 128;
	if (__atomic_load_n(&port->attrib.use_srq, __ATOMIC_RELAXED) &&
	    srq_depth != 0)
		depth = srq_depth;
	info.send_queue_depth = static_cast<uint16_t>(depth);
	info.max_req_size =
	    static_cast<uint32_t>(state.params.srp_max_req_size);
	info.max_rdma_size =
	    __atomic_load_n(&port->attrib.srp_max_rdma_size, __ATOMIC_RELAXED);
	const srpt::MadResult result = srpt::handle_dm_mad(
	    {request, request_len}, info, {response, response_len});
	return result.respond;
}

/* ---- configfs ------------------------------------------------------- */

extern "C" int srpt_core_port_id_make(const char *name,
				      srpt_core_port_id **port_id)
{
	Status status;
	srpt::PortId *id =
	    srpt::PortId::Make(*GetModuleState().registry, name, &status);
	if (!id)
		return ToNegativeErrno(status);
	*port_id = id;
	return 0;
}

extern "C" void srpt_core_port_id_drop(srpt_core_port_id *port_id)
{
	static_cast<srpt::PortId *>(port_id)->Drop();
}

extern "C" const char *srpt_core_port_id_name(srpt_core_port_id *port_id)
{
	return static_cast<srpt::PortId *>(port_id)->name();
}

extern "C" int srpt_core_tpg_enable(srpt_core_port_id *port_id, bool enable)
{
	return ToNegativeErrno(
	    static_cast<srpt::PortId *>(port_id)->SetEnabled(enable));
}

extern "C" void srpt_core_tpg_drop(srpt_core_port_id *port_id)
{
	static_cast<srpt::PortId *>(port_id)->TpgDropped();
}

extern "C" uint32_t srpt_core_port_attr_get(srpt_core_port_id *port_id,
					    enum srpt_port_attr attr)
{
	return static_cast<srpt::PortId *>(port_id)->GetAttribute(attr);
}

extern "C" int srpt_core_port_attr_set(srpt_core_port_id *port_id,
				       enum srpt_port_attr attr,
				       const char *text)
{
	return ToNegativeErrno(
	    static_cast<srpt::PortId *>(port_id)->SetAttribute(attr, text));
}

extern "C" int srpt_core_acl_name_check(const char *name)
{
	return ToNegativeErrno(srpt::CheckAclName(name));
}

extern "C" uint16_t srpt_core_rdma_cm_port(void)
{
	return GetModuleState().rdma_cm->port();
}

extern "C" int srpt_core_rdma_cm_port_store(const char *text)
{
	return ToNegativeErrno(GetModuleState().rdma_cm->Store(text));
}

extern "C" void srpt_core_rdma_cm_shutdown(void)
{
	GetModuleState().rdma_cm->Shutdown();
}
