/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every difference between the kernels this module builds for, in one
 * place (C only; the C++ core never sees a kernel version). Supported:
 * Debian 12's 6.1 and 6.12 LTS (README.md, "Supported kernels").
 *
 * Each entry says what changed and what the glue does about it; the
 * thresholds are the upstream releases that made the change, and the two
 * kernels built and tested are on either side of each of them.
 */
#ifndef SRPT_GLUE_KCOMPAT_H
#define SRPT_GLUE_KCOMPAT_H

#include <linux/version.h>

/*
 * LIO 6.10 added a per-fabric submission type: a fabric that leaves
 * default_submit_type at 0 gets every command queued to a workqueue
 * before the backend sees it, and configfs shows
 * param/default_submit_type and param/direct_submit_supported as 0. The
 * in-tree ib_srpt submits in the caller's context (its receive
 * completion), as the port always did: say so, so that the command path
 * and the configfs tree match the in-tree driver on each kernel.
 * Used at the end of the fabric template (configfs/fabric.c).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define SRPT_FABRIC_SUBMIT_OPS \
	.default_submit_type = TARGET_DIRECT_SUBMIT, \
	.direct_submit_supp = 1,
#else
#define SRPT_FABRIC_SUBMIT_OPS
#endif

/*
 * Draining a QP that receives from an SRQ. Up to 6.10, ib_drain_qp()
 * drains only the send queue of such a QP, and rdma_rxe never raises
 * IB_EVENT_QP_LAST_WQE_REACHED (checked on 6.1.192). From 6.11 on,
 * ib_drain_qp() also waits for that event and then polls the QP's CQ in
 * the caller's thread (ib_process_cq_direct()); the port's CQs come from
 * the shared CQ pool and are polled by its work items, so completions of
 * other channels would run in the thread destroying this one, next to
 * their own poller. The glue therefore never calls ib_drain_qp() on an
 * SRQ QP: it moves the QP to ERR, waits for the last-WQE event where the
 * core guarantees providers raise it (SRPT_SRQ_LAST_WQE_EVENT), then
 * drains the send queue: that drain WR completes on the same CQ after
 * every receive completion the QP produced, and is processed by the
 * pool's poller like every other completion (glue/channel_ib.c).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define SRPT_SRQ_LAST_WQE_EVENT 1
#else
#define SRPT_SRQ_LAST_WQE_EVENT 0
#endif

/*
 * Tracepoints (glue/srpt_trace.h): __assign_str() takes only the field
 * from 6.10 on (the source is the one named in __string()).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define srpt_assign_str(dst, src) __assign_str(dst)
#else
#define srpt_assign_str(dst, src) __assign_str(dst, src)
#endif

#endif
