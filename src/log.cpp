// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/log.hpp>

namespace srpt
{

bool LogRateLimit::Allow(uint64_t now_ns, uint32_t *suppressed)
{
	*suppressed = 0;
	if (!started_ || now_ns - window_start_ns_ >= interval_ns_) {
		*suppressed = missed_;
		started_ = true;
		window_start_ns_ = now_ns;
		printed_ = 0;
		missed_ = 0;
	}
	if (printed_ < burst_) {
		printed_++;
		return true;
	}
	missed_++;
	return false;
}

} // namespace srpt
