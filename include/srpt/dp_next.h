/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What follows the core's answer to a completion: the target core's calls
 * the core returned, made after it returned (its lock dropped), so that no
 * target core callback ever runs inside the core. One copy of that logic
 * for the module's completion unit (glue/completion.c) and for the host
 * tests' fake of the glue (tests/host/platform_dp_host.cpp), so that the
 * unit tests drive the loop the module runs. Included by those two only,
 * never by the core (which only returns what to do: core_api.h).
 *
 * The calls it makes are the glue's target-core unit (glue/target_core.c;
 * on the host, the recording fake), declared here once:
 *  - srpt_dp_submit_cmd/_tmr: a received IU to the target core. 0: the
 *    target core owns it (it ends in release_cmd); negative: nothing was
 *    handed over, and the core answers it (srpt_core_dp_handoff_done()
 *    reads h->rc). Process context.
 *  - srpt_dp_execute_cmd: target_execute_cmd, the data-out is in place.
 *  - srpt_dp_fail_cmd: the RDMA READ failed; the target core fails it.
 *  - srpt_dp_put_cmd (rdma_glue.h): the fabric's reference dropped.
 */
#ifndef SRPT_DP_NEXT_H
#define SRPT_DP_NEXT_H

#include <srpt/core_api.h>
#include <srpt/rdma_glue.h>

#ifdef __cplusplus
extern "C" {
#endif

int srpt_dp_submit_cmd(struct srpt_dp_ch *ch, uint32_t index,
		       const struct srpt_dp_cmd *cmd);
int srpt_dp_submit_tmr(struct srpt_dp_ch *ch, uint32_t index,
		       const struct srpt_dp_tmr *tmr);
void srpt_dp_execute_cmd(struct srpt_dp_ch *ch, uint32_t index);
void srpt_dp_fail_cmd(struct srpt_dp_ch *ch, uint32_t index);

/*
 * Submits each IU the core hands over (@h, filled by
 * srpt_core_dp_recv_done() or srpt_core_dp_kick()), giving each back,
 * until the core has no more. Process context.
 */
static inline void srpt_dp_run_handoffs(struct srpt_dp_ch *ch,
					struct srpt_core_ch *core,
					struct srpt_dp_handoff *h)
{
	do {
		if (h->kind == SRPT_DP_SUBMIT_CMD)
			h->rc = srpt_dp_submit_cmd(ch, h->index, &h->cmd);
		else
			h->rc = srpt_dp_submit_tmr(ch, h->index, &h->tmr);
	} while (srpt_core_dp_handoff_done(core, h));
}

/* The target core's call the core returned for command @index. */
static inline void srpt_dp_do_next(struct srpt_dp_ch *ch, uint32_t index,
				   enum srpt_dp_next next)
{
	switch (next) {
	case SRPT_DP_NEXT_PUT:
		srpt_dp_put_cmd(ch, index);
		break;
	case SRPT_DP_NEXT_EXECUTE:
		srpt_dp_execute_cmd(ch, index);
		break;
	case SRPT_DP_NEXT_FAIL:
		srpt_dp_fail_cmd(ch, index);
		break;
	case SRPT_DP_NEXT_NONE:
	case SRPT_DP_NEXT_REFUSED:
		break;
	}
}

#ifdef __cplusplus
}
#endif

#endif /* SRPT_DP_NEXT_H */
