/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The three module parameters of the in-tree driver: names, defaults,
 * limits and the parsing of srpt_service_guid. The glue declares them with
 * module_param(); the rules live here so they are tested.
 */
#ifndef SRPT_MODULE_PARAMS_HPP
#define SRPT_MODULE_PARAMS_HPP

#include <srpt/core_api.h>
#include <srpt/status.hpp>

namespace srpt
{

/* Checks srp_max_req_size and srpt_srq_size; logs the first violation. */
Status ValidateModuleParams(const srpt_module_params &params);

/* kstrtou64(text, 16) semantics. */
Result<uint64_t> ParseHexU64(const char *text);

} // namespace srpt

#endif
