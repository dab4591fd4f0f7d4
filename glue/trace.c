// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tracepoints of ib_srpt (glue/srpt_trace.h) and the C++ core's calls
 * into them (<srpt/trace.h>). srpt_trace_enabled counts the core's
 * tracepoints that are enabled, so that the core builds no event while
 * none is.
 */
#include "pr_fmt.h"

#include <linux/atomic.h>

#include <srpt/trace.h>

#define CREATE_TRACE_POINTS
#include "srpt_trace.h"

int srpt_trace_enabled;

int srpt_trace_reg(void)
{
	__atomic_add_fetch(&srpt_trace_enabled, 1, __ATOMIC_RELAXED);
	return 0;
}

void srpt_trace_unreg(void)
{
	__atomic_sub_fetch(&srpt_trace_enabled, 1, __ATOMIC_RELAXED);
}

void srpt_trace_login(const char *session, const char *initiator,
		      bool accepted, const char *why, uint32_t rej_reason,
		      uint32_t it_iu_len, uint32_t credits)
{
	trace_srpt_login(session, initiator, accepted, why, rej_reason,
			 it_iu_len, credits);
}

void srpt_trace_channel_state(const char *session, uint32_t ch_id,
			      const char *from, const char *to)
{
	trace_srpt_channel_state(session, ch_id, from, to);
}

void srpt_trace_disconnect(const char *session, uint32_t ch_id,
			   const char *why)
{
	trace_srpt_disconnect(session, ch_id, why);
}

void srpt_trace_iu_wait(const char *session, uint32_t depth)
{
	trace_srpt_iu_wait(session, depth);
}

void srpt_trace_iu_resume(const char *session, uint32_t depth)
{
	trace_srpt_iu_resume(session, depth);
}

void srpt_trace_credits(const char *session, int32_t granted,
			int32_t req_lim)
{
	trace_srpt_credits(session, granted, req_lim);
}
