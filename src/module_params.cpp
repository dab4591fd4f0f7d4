// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/kstrto.hpp>
#include <srpt/log.hpp>
#include <srpt/module_params.hpp>

namespace srpt
{

Status ValidateModuleParams(const srpt_module_params &params)
{
	if (params.srp_max_req_size < SRPT_MIN_MAX_REQ_SIZE) {
		SRPT_ERR(nullptr,
			 "invalid value %d for kernel module parameter "
			 "srp_max_req_size -- must be at least %d.",
			 params.srp_max_req_size, SRPT_MIN_MAX_REQ_SIZE);
		return Status::kInvalid;
	}
	if (params.srpt_srq_size < SRPT_MIN_SRQ_SIZE ||
	    params.srpt_srq_size > SRPT_MAX_SRQ_SIZE) {
		SRPT_ERR(nullptr,
			 "invalid value %d for kernel module parameter "
			 "srpt_srq_size -- must be in the range [%d..%d].",
			 params.srpt_srq_size, SRPT_MIN_SRQ_SIZE,
			 SRPT_MAX_SRQ_SIZE);
		return Status::kInvalid;
	}
	return Status::kOk;
}

Result<uint64_t> ParseHexU64(const char *text)
{
	return ParseU64(text, 16);
}

} // namespace srpt
