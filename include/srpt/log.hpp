/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Logging for the core. Every line about a login names its session, so the
 * helpers take the session name first (nullptr for module-wide lines).
 */
#ifndef SRPT_LOG_HPP
#define SRPT_LOG_HPP

#include <srpt/platform.h>
#include <stdint.h>

#define SRPT_LOG(level, session, ...) srpt_log(level, session, __VA_ARGS__)
#define SRPT_ERR(session, ...) SRPT_LOG(SRPT_LOG_ERR, session, __VA_ARGS__)
#define SRPT_WARNING(session, ...)                                             \
	SRPT_LOG(SRPT_LOG_WARNING, session, __VA_ARGS__)
#define SRPT_NOTICE(session, ...)                                              \
	SRPT_LOG(SRPT_LOG_NOTICE, session, __VA_ARGS__)
#define SRPT_INFO(session, ...) SRPT_LOG(SRPT_LOG_INFO, session, __VA_ARGS__)
#define SRPT_DEBUG(session, ...) SRPT_LOG(SRPT_LOG_DEBUG, session, __VA_ARGS__)

/*
 * Evaluates to @cond; when it is true the invariant is broken: a WARN in the
 * kernel, a failed test on the host. Use it where the code goes on safely.
 */
#define SRPT_WARN_ON(cond)                                                     \
	({                                                                     \
		const bool srpt_warn_cond_ = !!(cond);                         \
		if (__builtin_expect(srpt_warn_cond_, 0))                      \
			srpt_warn(__FILE__, __LINE__, #cond);                  \
		srpt_warn_cond_;                                               \
	})

namespace srpt
{

/*
 * A token bucket for log lines caused by the network: at most @burst lines
 * per @interval_ns, then silence with a count of what was suppressed. One
 * per call site or per session; not thread-safe by itself (callers hold the
 * lock of the object that owns it, or accept an approximate count).
 */
class LogRateLimit
{
public:
	constexpr LogRateLimit(uint64_t interval_ns = 5'000'000'000ull,
			       uint32_t burst = 10)
	    : interval_ns_(interval_ns), burst_(burst)
	{
	}

	/*
	 * True if a line may be printed now. When a new interval starts after
	 * lines were suppressed, *suppressed receives their number.
	 */
	bool Allow(uint64_t now_ns, uint32_t *suppressed);

private:
	uint64_t interval_ns_;
	uint32_t burst_;
	uint64_t window_start_ns_ = 0;
	uint32_t printed_ = 0;
	uint32_t missed_ = 0;
	bool started_ = false;
};

} // namespace srpt

#endif
