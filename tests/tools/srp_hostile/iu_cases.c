// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: IUs of a wrong length or opcode, and SRP_CMD header fields
 * (LUN, task attribute, duplicate tag). */

#include "hostile.h"

/* ---- cases: IU framing and opcodes ------------------------------- */
static void raw_iu(struct conn *c, uint32_t len, uint8_t opcode)
{
	uint8_t *b = slot(c);
	if (len) b[0] = opcode;
	if (len >= 16) put64(b + 8, g_tag++);
	send_iu(c, b, len);
	finish_iu_case(c, 0, false, 1500);
}
void c_iu_len_0(struct conn *c) { raw_iu(c, 0, 0); }
void c_iu_len_1(struct conn *c) { raw_iu(c, 1, SRP_CMD); }
void c_iu_len_47(struct conn *c)
{
	/* a READ(10) CMD cut one byte short of its fixed part: stale buffer */
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 1);
	uint64_t tag = g_tag++;
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_DIRECT, 0, 1);
	direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, BLK);
	send_iu(c, b, 47);
	finish_iu_case(c, 0, false, 1500);
	if (find_rsp(c, tag)) detail("a 47-byte CMD was executed as a command");
}
void c_stale_short(struct conn *c)
{
	/* prime every receive buffer with a valid READ, then 1-byte IUs: a
	 * target that parses stale bytes executes the old READ again */
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 1);
	unsigned n = c->req_lim0 > 64 ? 64 : c->req_lim0 / 2;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *b = cmd_iu(c, g_tag++, cdb, DESC_DIRECT, 0, 1);
		direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, BLK);
		send_iu(c, b, 64);
	}
	wait_until(c, opt.timeout_ms, p_nrsp, n);
	unsigned before = c->nrsp;
	for (unsigned i = 0; i < 8; i++) { uint8_t *b = slot(c); b[0] = SRP_CMD; send_iu(c, b, 1); }
	finish_iu_case(c, 0, false, 1500);
	if (c->nrsp > before + 1) bad("1-byte IUs were answered as commands (%u extra responses: stale buffer parsed)", c->nrsp - before - 1);
}
void c_iu_over_negotiated(struct conn *c)
{
	/* a valid TUR padded to 8260+1024 bytes: larger than max_it_iu_len */
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	uint32_t len = c->max_it + 1024;
	if (len > c->sslot_sz) len = (uint32_t)c->sslot_sz;
	send_iu(c, cmd_iu(c, tag, cdb, 0, 0, 0), len);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	detail("sent %u bytes, max_it_iu_len %u", len, c->max_it);
	if (g_have_hr) detail("an IU longer than max_it_iu_len was accepted");
}
void c_iu_over_by_one(struct conn *c)
{
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	uint32_t len = c->max_it + 1;
	send_iu(c, cmd_iu(c, tag, cdb, 0, 0, 0), len);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	detail("sent %u bytes, max_it_iu_len %u", len, c->max_it);
}
void c_op_unknown(struct conn *c) { raw_iu(c, 64, 0x55); }
void c_op_login_req(struct conn *c) { raw_iu(c, 64, SRP_LOGIN_REQ); }
void c_op_rsp(struct conn *c) { raw_iu(c, 64, SRP_RSP); }
void c_op_login_rsp(struct conn *c) { raw_iu(c, 64, SRP_LOGIN_RSP); }
void c_op_login_rej(struct conn *c) { raw_iu(c, 64, SRP_LOGIN_REJ); }
void c_op_t_logout(struct conn *c) { raw_iu(c, 64, SRP_T_LOGOUT); }
void c_op_cred_req(struct conn *c) { raw_iu(c, 64, SRP_CRED_REQ); }
void c_op_aer_req(struct conn *c) { raw_iu(c, 64, SRP_AER_REQ); }
void c_op_cred_rsp(struct conn *c) { raw_iu(c, 16, SRP_CRED_RSP); }
void c_op_aer_rsp(struct conn *c) { raw_iu(c, 16, SRP_AER_RSP); }
void c_op_ff(struct conn *c) { raw_iu(c, 64, 0xff); }

/* ---- cases: SRP_CMD header fields ------------------------------- */
void c_unknown_lun(struct conn *c)
{
	unsigned save = opt.lun; opt.lun = 200;
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	send_iu(c, cmd_iu(c, tag, cdb, 0, 0, 0), CMD_LEN);
	opt.lun = save;
	finish_iu_case(c, tag, true, opt.timeout_ms);
}
void c_dup_tag(struct conn *c)
{
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 64);
	uint64_t tag = g_tag++;
	for (int i = 0; i < 2; i++) {
		uint8_t *b = cmd_iu(c, tag, cdb, DESC_DIRECT, 0, 1);
		direct(b + 48, (uintptr_t)c->dbuf + (uint64_t)i * 65536, c->dmr->rkey, 64 * BLK);
		send_iu(c, b, 64);
	}
	wait_until(c, opt.timeout_ms, p_nrsp, 2);
	finish_iu_case(c, tag, false, 100);
	unsigned n = 0; for (unsigned i = 0; i < c->nrsp; i++) if (c->rsps[i].tag == tag) n++;
	detail("%u response(s) for the duplicated tag", n);
}
void c_task_attr_bad(struct conn *c)
{
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	uint8_t *b = cmd_iu(c, tag, cdb, 0, 0, 0);
	b[29] = 0xff;
	send_iu(c, b, CMD_LEN);
	finish_iu_case(c, tag, true, opt.timeout_ms);
}
