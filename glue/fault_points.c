// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fault-injection points (docs/debug-kernel.md): every fallible
 * call the C++ core makes into the kernel goes through one of these C entry
 * points of the glue, so whitelisting them lets fail_function
 * (/sys/kernel/debug/fail_function, CONFIG_FAIL_FUNCTION of the check-debug
 * kernel) make exactly the module's calls fail, with a probability and an
 * interval, and nothing else in the kernel. On a kernel without
 * CONFIG_FUNCTION_ERROR_INJECTION (Debian's) the macro is empty.
 *
 * ERRNO: the function is skipped and returns the injected -errno; NULL:
 * the allocator is skipped and returns NULL.
 */
#include "pr_fmt.h"

#include <linux/build_bug.h>
#include <linux/error-injection.h>

#include <srpt/dp_next.h>
#include <srpt/platform.h>
#include <srpt/rdma_glue.h>

/*
 * Without CONFIG_FUNCTION_ERROR_INJECTION (Debian's stock kernels) the
 * whitelist entry is empty: a point whose declaration this file lost would
 * fail only the debug kernel's build (it did, when srpt_dp_submit_cmd()
 * moved to dp_next.h). There, each point names its function instead.
 */
#ifndef CONFIG_FUNCTION_ERROR_INJECTION
#undef ALLOW_ERROR_INJECTION
#define ALLOW_ERROR_INJECTION(fn, etype) static_assert(__same_type(&fn, &fn))
#endif

/* memory the core allocates (channels, IU rings, sessions, SRQ rings) */
ALLOW_ERROR_INJECTION(srpt_kzalloc, NULL);
ALLOW_ERROR_INJECTION(srpt_kvzalloc, NULL);
/* channel: QP (ib_create_qp / rdma_create_qp), CQ pool, DMA mapping */
ALLOW_ERROR_INJECTION(srpt_dp_ch_create, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_map_recv, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_map_send, ERRNO);
/* shared receive queue: ib_create_srq, mapping, ib_post_srq_recv */
ALLOW_ERROR_INJECTION(srpt_dp_srq_create, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_srq_map_recv, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_srq_post_recv, ERRNO);
/* posting: ib_post_recv, ib_post_send, rdma_rw_ctx_post */
ALLOW_ERROR_INJECTION(srpt_dp_post_recv, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_post_send, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_post_rdma_read, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_post_zlw, ERRNO);
/* connection: accepting a login (REP / rdma_accept) */
ALLOW_ERROR_INJECTION(srpt_dp_cm_accept, ERRNO);
/* LIO: session setup, target_init_cmd + rdma_rw_ctx_init, TMR submission */
ALLOW_ERROR_INJECTION(srpt_dp_session_setup, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_submit_cmd, ERRNO);
ALLOW_ERROR_INJECTION(srpt_dp_submit_tmr, ERRNO);
