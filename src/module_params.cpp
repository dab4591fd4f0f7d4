// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/log.hpp>
#include <srpt/module_params.hpp>

namespace srpt {

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

static int HexDigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

Result<uint64_t> ParseHexU64(const char *text)
{
	const char *p = text;

	/* kstrtoull: an optional '+', then "0x" for base 16. */
	if (*p == '+')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && HexDigit(p[2]) >= 0)
		p += 2;

	uint64_t value = 0;
	bool overflow = false;
	const char *digits = p;
	for (int d; (d = HexDigit(*p)) >= 0; p++) {
		if (value >> 60)
			overflow = true;
		value = (value << 4) | static_cast<uint64_t>(d);
	}
	if (p == digits)
		return Status::kInvalid;
	/* One trailing newline is accepted, as sysfs writes carry one. */
	if (*p == '\n')
		p++;
	if (*p != '\0')
		return Status::kInvalid;
	if (overflow)
		return Status::kRange;
	return value;
}

} // namespace srpt
