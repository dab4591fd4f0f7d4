/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tracepoints of ib_srpt (system "ib_srpt"). Those the C++ core emits
 * (through <srpt/trace.h>) carry a registration callback that keeps
 * srpt_trace_enabled counting the enabled ones; the glue's own (command
 * received, answered, send completion) are plain TRACE_EVENTs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_srpt

#if !defined(SRPT_TRACE_H_GLUE) || defined(TRACE_HEADER_MULTI_READ)
#define SRPT_TRACE_H_GLUE

#include <linux/tracepoint.h>
#include "kcompat.h"

int srpt_trace_reg(void);
void srpt_trace_unreg(void);

TRACE_EVENT_FN(srpt_login,
	TP_PROTO(const char *session, const char *initiator, bool accepted,
		 const char *why, u32 rej_reason, u32 it_iu_len, u32 credits),
	TP_ARGS(session, initiator, accepted, why, rej_reason, it_iu_len,
		credits),
	TP_STRUCT__entry(
		__string(session, session)
		__string(initiator, initiator)
		__string(why, why)
		__field(bool, accepted)
		__field(u32, rej_reason)
		__field(u32, it_iu_len)
		__field(u32, credits)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		srpt_assign_str(initiator, initiator);
		srpt_assign_str(why, why);
		__entry->accepted = accepted;
		__entry->rej_reason = rej_reason;
		__entry->it_iu_len = it_iu_len;
		__entry->credits = credits;
	),
	TP_printk("session=%s initiator=%s %s reason=\"%s\" rej=0x%x it_iu_len=%u credits=%u",
		  __get_str(session), __get_str(initiator),
		  __entry->accepted ? "accepted" : "rejected", __get_str(why),
		  __entry->rej_reason, __entry->it_iu_len, __entry->credits),
	srpt_trace_reg, srpt_trace_unreg);

TRACE_EVENT_FN(srpt_channel_state,
	TP_PROTO(const char *session, u32 ch_id, const char *from,
		 const char *to),
	TP_ARGS(session, ch_id, from, to),
	TP_STRUCT__entry(
		__string(session, session)
		__string(from, from)
		__string(to, to)
		__field(u32, ch_id)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		srpt_assign_str(from, from);
		srpt_assign_str(to, to);
		__entry->ch_id = ch_id;
	),
	TP_printk("session=%s ch=%u %s -> %s", __get_str(session),
		  __entry->ch_id, __get_str(from), __get_str(to)),
	srpt_trace_reg, srpt_trace_unreg);

TRACE_EVENT_FN(srpt_disconnect,
	TP_PROTO(const char *session, u32 ch_id, const char *why),
	TP_ARGS(session, ch_id, why),
	TP_STRUCT__entry(
		__string(session, session)
		__string(why, why)
		__field(u32, ch_id)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		srpt_assign_str(why, why);
		__entry->ch_id = ch_id;
	),
	TP_printk("session=%s ch=%u why=\"%s\"", __get_str(session),
		  __entry->ch_id, __get_str(why)),
	srpt_trace_reg, srpt_trace_unreg);

DECLARE_EVENT_CLASS(srpt_wait_class,
	TP_PROTO(const char *session, u32 depth),
	TP_ARGS(session, depth),
	TP_STRUCT__entry(
		__string(session, session)
		__field(u32, depth)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		__entry->depth = depth;
	),
	TP_printk("session=%s depth=%u", __get_str(session), __entry->depth)
);

DEFINE_EVENT_FN(srpt_wait_class, srpt_iu_wait,
	TP_PROTO(const char *session, u32 depth),
	TP_ARGS(session, depth),
	srpt_trace_reg, srpt_trace_unreg);

DEFINE_EVENT_FN(srpt_wait_class, srpt_iu_resume,
	TP_PROTO(const char *session, u32 depth),
	TP_ARGS(session, depth),
	srpt_trace_reg, srpt_trace_unreg);

TRACE_EVENT_FN(srpt_credits,
	TP_PROTO(const char *session, s32 granted, s32 req_lim),
	TP_ARGS(session, granted, req_lim),
	TP_STRUCT__entry(
		__string(session, session)
		__field(s32, granted)
		__field(s32, req_lim)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		__entry->granted = granted;
		__entry->req_lim = req_lim;
	),
	TP_printk("session=%s granted=%d req_lim=%d", __get_str(session),
		  __entry->granted, __entry->req_lim),
	srpt_trace_reg, srpt_trace_unreg);

/* ---- the glue's own ---- */

TRACE_EVENT(srpt_cmd_recv,
	TP_PROTO(const char *session, u32 qp, u64 tag, u64 lun, u8 opcode,
		 u8 dir, u32 data_len, bool imm),
	TP_ARGS(session, qp, tag, lun, opcode, dir, data_len, imm),
	TP_STRUCT__entry(
		__string(session, session)
		__field(u64, tag)
		__field(u64, lun)
		__field(u32, qp)
		__field(u32, data_len)
		__field(u8, opcode)
		__field(u8, dir)
		__field(bool, imm)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		__entry->tag = tag;
		__entry->lun = lun;
		__entry->qp = qp;
		__entry->data_len = data_len;
		__entry->opcode = opcode;
		__entry->dir = dir;
		__entry->imm = imm;
	),
	TP_printk("session=%s qp=%u tag=%#llx lun=%llu opcode=0x%02x dir=%s data_len=%u%s",
		  __get_str(session), __entry->qp, __entry->tag, __entry->lun,
		  __entry->opcode,
		  __print_symbolic(__entry->dir, { 0, "none" }, { 1, "write" },
				   { 2, "read" }),
		  __entry->data_len, __entry->imm ? " immediate" : "")
);

TRACE_EVENT(srpt_cmd_rsp,
	TP_PROTO(const char *session, u32 qp, u64 tag, u64 lun, u8 opcode,
		 u8 status, u32 residual, u64 latency_ns),
	TP_ARGS(session, qp, tag, lun, opcode, status, residual, latency_ns),
	TP_STRUCT__entry(
		__string(session, session)
		__field(u64, tag)
		__field(u64, lun)
		__field(u64, latency_ns)
		__field(u32, qp)
		__field(u32, residual)
		__field(u8, opcode)
		__field(u8, status)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		__entry->tag = tag;
		__entry->lun = lun;
		__entry->latency_ns = latency_ns;
		__entry->qp = qp;
		__entry->residual = residual;
		__entry->opcode = opcode;
		__entry->status = status;
	),
	TP_printk("session=%s qp=%u tag=%#llx lun=%llu opcode=0x%02x status=0x%02x residual=%u latency_us=%llu",
		  __get_str(session), __entry->qp, __entry->tag, __entry->lun,
		  __entry->opcode, __entry->status, __entry->residual,
		  __entry->latency_ns / 1000)
);

TRACE_EVENT(srpt_send_done,
	TP_PROTO(const char *session, u32 qp, u32 index, int status),
	TP_ARGS(session, qp, index, status),
	TP_STRUCT__entry(
		__string(session, session)
		__field(u32, qp)
		__field(u32, index)
		__field(int, status)
	),
	TP_fast_assign(
		srpt_assign_str(session, session);
		__entry->qp = qp;
		__entry->index = index;
		__entry->status = status;
	),
	TP_printk("session=%s qp=%u send_ctx=%u status=%d", __get_str(session),
		  __entry->qp, __entry->index, __entry->status)
);

#endif /* SRPT_TRACE_H_GLUE */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE srpt_trace
#include <trace/define_trace.h>
