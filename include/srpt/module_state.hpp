/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Module-wide state of the core. A global with constant initialization
 * only: the module loader never runs C++ constructors of globals, so what
 * needs construction is allocated in srpt_core_init().
 */
#ifndef SRPT_MODULE_STATE_HPP
#define SRPT_MODULE_STATE_HPP

#include <srpt/core_api.h>

namespace srpt
{

class DeviceRegistry;
class RdmaCmListener;

struct ModuleState {
	srpt_module_params params;
	/* 0 until set by the parameter or taken from the first device. */
	uint64_t service_guid;
	DeviceRegistry *registry;
	RdmaCmListener *rdma_cm;
};

ModuleState &GetModuleState();

} // namespace srpt

#endif
