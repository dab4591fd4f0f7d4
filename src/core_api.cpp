// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The C entry points of include/srpt/core_api.h: convert, call the core,
 * convert back. No logic of their own.
 */
#include <srpt/core_api.h>
#include <srpt/device_registry.hpp>
#include <srpt/log.hpp>
#include <srpt/module_params.hpp>
#include <srpt/module_state.hpp>

namespace srpt {

static constinit ModuleState g_module_state = {
	.params = {SRPT_DEFAULT_MAX_REQ_SIZE, SRPT_DEFAULT_SRQ_SIZE},
	.service_guid = 0,
	.registry = nullptr,
};

ModuleState &GetModuleState() { return g_module_state; }

} // namespace srpt

using srpt::GetModuleState;
using srpt::Status;

extern "C" int srpt_core_init(const srpt_module_params *params)
{
	srpt::ModuleState &state = GetModuleState();

	if (SRPT_WARN_ON(state.registry))
		return -SRPT_EBUSY;
	const Status valid = srpt::ValidateModuleParams(*params);
	if (!srpt::IsOk(valid))
		return srpt::ToNegativeErrno(valid);

	state.registry = new (srpt::Gfp::kKernel) srpt::DeviceRegistry();
	if (!state.registry)
		return -SRPT_ENOMEM;
	state.params = *params;
	return 0;
}

extern "C" void srpt_core_exit(void)
{
	srpt::ModuleState &state = GetModuleState();

	delete state.registry;
	state.registry = nullptr;
}

extern "C" int srpt_core_set_service_guid(const char *text)
{
	const srpt::Result<uint64_t> guid = srpt::ParseHexU64(text);
	if (!guid.ok())
		return srpt::ToNegativeErrno(guid.status());
	GetModuleState().service_guid = *guid;
	return 0;
}

extern "C" uint64_t srpt_core_service_guid(void)
{
	return GetModuleState().service_guid;
}

extern "C" int srpt_core_add_device(const srpt_device_desc *desc,
				    void **core_device)
{
	srpt::DeviceRegistry *registry = GetModuleState().registry;
	if (SRPT_WARN_ON(!registry))
		return -SRPT_ENODEV;
	srpt::Device *device = nullptr;
	const Status status = registry->Add(*desc, &device);
	if (!srpt::IsOk(status))
		return srpt::ToNegativeErrno(status);
	*core_device = device;
	return 0;
}

extern "C" void srpt_core_remove_device(void *core_device)
{
	srpt::DeviceRegistry *registry = GetModuleState().registry;
	if (SRPT_WARN_ON(!registry || !core_device))
		return;
	registry->Remove(static_cast<srpt::Device *>(core_device));
}
