/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoints of the C++ core. The rule of this header: implemented in C,
 * called by C++ (platform.h lists the four boundary headers).
 *
 *   - glue/trace.c: TRACE_EVENTs of the system "ib_srpt" (tracefs
 *     events/ib_srpt/, trace-cmd record -e ib_srpt), defined in
 *     glue/srpt_trace.h next to the events only the glue emits (command
 *     received and answered, send completion);
 *   - tests/host/trace_host.cpp: records the calls for the unit tests.
 *
 * The core calls srpt_trace_*() only while srpt_tracing() is true, i.e.
 * while at least one of these tracepoints is enabled (the glue counts them
 * from the tracepoints' registration callbacks): disabled, a trace site
 * costs one load and a branch. Strings are copied into the event. Contract:
 * any context, spinlocks may be held; never sleeps.
 */
#ifndef SRPT_TRACE_H
#define SRPT_TRACE_H

#if defined(__cplusplus) || !defined(__KERNEL__)
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#else
#include <linux/types.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Tracepoints of the core currently enabled. */
extern int srpt_trace_enabled;

static inline bool srpt_tracing(void)
{
	return __atomic_load_n(&srpt_trace_enabled, __ATOMIC_RELAXED) != 0;
}

/*
 * A login was decided. @why: "accepted" or the reason it was refused;
 * @rej_reason: the SRP_LOGIN_REJ reason sent (0 when accepted); @credits:
 * the initial req_lim granted (0 when refused).
 */
void srpt_trace_login(const char *session, const char *initiator,
		      bool accepted, const char *why, uint32_t rej_reason,
		      uint32_t it_iu_len, uint32_t credits);

/* A channel changed state (ChannelStateName() strings). */
void srpt_trace_channel_state(const char *session, uint32_t ch_id,
			      const char *from, const char *to);

/* A channel is being disconnected or closed, and why. */
void srpt_trace_disconnect(const char *session, uint32_t ch_id,
			   const char *why);

/*
 * An IU could not be served on arrival and waits (no send context free);
 * @depth: IUs waiting, this one included.
 */
void srpt_trace_iu_wait(const char *session, uint32_t depth);

/* A waiting IU is served; @depth: IUs still waiting. */
void srpt_trace_iu_resume(const char *session, uint32_t depth);

/*
 * A response was posted granting @granted credits (req_lim_delta);
 * @req_lim: the credits the target now believes the initiator holds.
 */
void srpt_trace_credits(const char *session, int32_t granted,
			int32_t req_lim);

#ifdef __cplusplus
}
#endif

#endif
