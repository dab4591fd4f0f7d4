// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: SRP_TSK_MGMT requests. */

#include "hostile.h"

/* ---- cases: task management --------------------------------------- */
static void tm_case(struct conn *c, uint8_t func, uint64_t task_tag, unsigned lun)
{
	uint64_t tag = g_tag++;
	send_iu(c, tm_iu(c, tag, func, task_tag, lun), 48);
	finish_iu_case(c, tag, true, opt.timeout_ms);
}
void c_tm_func_0(struct conn *c) { tm_case(c, 0, 0, 0); }
void c_tm_func_invalid(struct conn *c) { tm_case(c, 0x77, 0, 0); }
void c_tm_func_ff(struct conn *c) { tm_case(c, 0xff, 0, 0); }
void c_tm_abort_unknown_tag(struct conn *c) { tm_case(c, 0x01, 0xdeadbeefcafeull, 0); }
void c_tm_lun_reset_unknown_lun(struct conn *c) { tm_case(c, 0x08, 0, 200); }
void c_tm_abort_unknown_lun(struct conn *c) { tm_case(c, 0x01, 0x1234, 16000); }
void c_tm_clear_aca(struct conn *c) { tm_case(c, 0x40, 0, 0); }
void c_tm_short(struct conn *c)
{
	uint64_t tag = g_tag++;
	send_iu(c, tm_iu(c, tag, 0x08, 0, 0), 20);
	finish_iu_case(c, 0, false, 1500);
}
void c_tm_abort_self(struct conn *c)
{
	uint64_t tag = g_tag++;
	send_iu(c, tm_iu(c, tag, 0x01, tag, 0), 48);
	finish_iu_case(c, tag, true, opt.timeout_ms);
}
