// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host implementation of <srpt/trace.h>: every event the core emits while
 * tracing is on is recorded as one line, for the unit tests to read.
 */
#include <mutex>
#include <srpt/host_platform.hpp>
#include <srpt/trace.h>
#include <string>
#include <vector>

int srpt_trace_enabled;

namespace
{
std::mutex g_trace_mutex;
std::vector<std::string> g_trace_events;

void Record(const std::string &line)
{
	std::lock_guard<std::mutex> lock(g_trace_mutex);
	g_trace_events.push_back(line);
}

std::string Str(const char *s)
{
	return s ? s : "(null)";
}
} // namespace

namespace srpt::host
{
void SetTracing(bool on)
{
	__atomic_store_n(&srpt_trace_enabled, on ? 1 : 0, __ATOMIC_RELAXED);
	std::lock_guard<std::mutex> lock(g_trace_mutex);
	g_trace_events.clear();
}

std::vector<std::string> TraceEvents()
{
	std::lock_guard<std::mutex> lock(g_trace_mutex);
	return g_trace_events;
}
} // namespace srpt::host

extern "C" {

void srpt_trace_login(const char *session, const char *initiator, bool accepted,
		      const char *why, uint32_t rej_reason, uint32_t it_iu_len,
		      uint32_t credits)
{
	Record("login session=" + Str(session) + " initiator=" +
	       Str(initiator) + (accepted ? " accepted" : " rejected") +
	       " why=" + Str(why) + " rej=" + std::to_string(rej_reason) +
	       " it_iu_len=" + std::to_string(it_iu_len) +
	       " credits=" + std::to_string(credits));
}

void srpt_trace_channel_state(const char *session, uint32_t ch_id,
			      const char *from, const char *to)
{
	Record("channel_state session=" + Str(session) + " ch=" +
	       std::to_string(ch_id) + " " + Str(from) + "->" + Str(to));
}

void srpt_trace_disconnect(const char *session, uint32_t ch_id, const char *why)
{
	Record("disconnect session=" + Str(session) +
	       " ch=" + std::to_string(ch_id) + " why=" + Str(why));
}

void srpt_trace_iu_wait(const char *session, uint32_t depth)
{
	Record("iu_wait session=" + Str(session) +
	       " depth=" + std::to_string(depth));
}

void srpt_trace_iu_resume(const char *session, uint32_t depth)
{
	Record("iu_resume session=" + Str(session) +
	       " depth=" + std::to_string(depth));
}

void srpt_trace_credits(const char *session, int32_t granted, int32_t req_lim)
{
	Record("credits session=" + Str(session) + " granted=" +
	       std::to_string(granted) + " req_lim=" + std::to_string(req_lim));
}
}
