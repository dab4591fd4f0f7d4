// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: malformed logins (the RDMA/CM private data of
 * SRP_LOGIN_REQ), one field at a time. */

#include "hostile.h"

/* ---- cases: login ---------------------------------------------------- */
static uint8_t bad_tgt[16], bad_ini[16];
static void m_none(struct conn_opts *o) { (void)o; }
static void m_short(struct conn_opts *o) { o->pdata_len = 40; }
static void m_opcode(struct conn_opts *o) { o->opcode = SRP_CMD; }
static void m_opcode_rsp(struct conn_opts *o) { o->opcode = SRP_LOGIN_RSP; }
static void m_iu0(struct conn_opts *o) { o->it_iu_len = 0; }
static void m_iu63(struct conn_opts *o) { o->it_iu_len = 63; }
static void m_iu_big(struct conn_opts *o) { o->it_iu_len = 8277; }
static void m_iu_max(struct conn_opts *o) { o->it_iu_len = 0xffffffff; }
static void m_fmt0(struct conn_opts *o) { o->buf_fmt = 0; }
static void m_fmt_res(struct conn_opts *o) { o->buf_fmt = 0xfff9; }
static void m_mca3(struct conn_opts *o) { o->flags = 0x80 | 3; }
static void m_mca2(struct conn_opts *o) { o->flags = 0x80 | 2; }
static void m_flags_res(struct conn_opts *o) { o->flags = 0x7c | 1; }
static void m_imm_small(struct conn_opts *o) { o->imm_off = 20; }
static void m_imm_odd(struct conn_opts *o) { o->imm_off = 69; }
static void m_imm_past(struct conn_opts *o) { o->imm_off = 8260; }
static void m_imm_ffff(struct conn_opts *o) { o->imm_off = 0xffff; }
static void m_imm_small_iu(struct conn_opts *o) { o->it_iu_len = 64; o->imm_off = 68; }
static void m_tgt(struct conn_opts *o) { memcpy(bad_tgt, opt.tgt, 16); bad_tgt[15] ^= 0x5a; o->tgt = bad_tgt; }
static void m_tgt_half(struct conn_opts *o) { memcpy(bad_tgt, opt.tgt, 16); memset(bad_tgt + 8, 0, 8); o->tgt = bad_tgt; }
static void m_ini(struct conn_opts *o) { memset(bad_ini, 0x11, 16); o->ini = bad_ini; }
static void m_res(struct conn_opts *o) { o->reserved_junk = true; }

const struct lcase lcases[] = {
	{ "login_ok", "valid login (control): LOGIN_RSP, then a TUR is answered", m_none, true },
	{ "login_short_pdata", "RDMA/CM private data 40 bytes: the CM pads to 56 with zeros, target_port_id tail 0: LOGIN_REJ 0x10003", m_short, false },
	{ "login_bad_opcode", "login opcode 0x02 (SRP_CMD): reject", m_opcode, false },
	{ "login_opcode_t2i", "login opcode 0xc0 (LOGIN_RSP): reject", m_opcode_rsp, false },
	{ "login_iu_len_0", "req_it_iu_len 0: LOGIN_REJ 0x10002", m_iu0, false },
	{ "login_iu_len_63", "req_it_iu_len 63 (< 64): LOGIN_REJ 0x10002", m_iu63, false },
	{ "login_iu_len_over", "req_it_iu_len 8277 (max 8276): LOGIN_REJ 0x10002", m_iu_big, false },
	{ "login_iu_len_ffffffff", "req_it_iu_len 0xffffffff: LOGIN_REJ 0x10002", m_iu_max, false },
	{ "login_buf_fmt_0", "req_buf_fmt 0 (no descriptor format): LOGIN_REJ 0x10004 (or accept)", m_fmt0, true },
	{ "login_buf_fmt_reserved", "req_buf_fmt 0xfff9 (reserved bits): reject or ignore", m_fmt_res, true },
	{ "login_mca_3", "multichannel action 3 (reserved): reject", m_mca3, false },
	{ "login_mca_2", "multichannel action 2 (reserved): reject", m_mca2, false },
	{ "login_flags_reserved", "reserved req_flags bits 0x7c: reject or ignore", m_flags_res, true },
	{ "login_imm_offset_small", "immediate data requested at offset 20 (< 48): reject or no IMMED_SUPP", m_imm_small, true },
	{ "login_imm_offset_odd", "immediate data offset 69 (unaligned): accept (data realigned), reject, or no IMMED_SUPP", m_imm_odd, true },
	{ "login_imm_offset_past_iu", "immediate data offset 8260 = it_iu_len: reject or no IMMED_SUPP", m_imm_past, true },
	{ "login_imm_offset_ffff", "immediate data offset 0xffff: reject or no IMMED_SUPP", m_imm_ffff, true },
	{ "login_imm_small_iu", "it_iu_len 64 with immediate data offset 68: reject or no IMMED_SUPP", m_imm_small_iu, true },
	{ "login_bad_target_id", "target_port_id with a wrong id_ext: LOGIN_REJ 0x10003", m_tgt, false },
	{ "login_target_id_half", "target_port_id second half zero: LOGIN_REJ 0x10003", m_tgt_half, false },
	{ "login_no_acl", "initiator_port_id without an ACL: LOGIN_REJ 0x10006", m_ini, false },
	{ "login_reserved_nonzero", "reserved bytes 50..55 of the RDMA login = 0xff: ignore", m_res, true },
};
const size_t n_lcases = sizeof(lcases) / sizeof(lcases[0]);

void run_login_case(const struct lcase *lc)
{
	struct conn_opts o = default_login();
	lc->mut(&o);
	struct conn *c = conn_open(&o);
	if (!c) { tool_error("local RDMA/CM setup failed"); outcome("tool_error"); return; }
	char b[64];
	login_str(c, b, sizeof(b));
	outcome("%s", b);
	login_detail(c);
	if (c->state == 1) {
		bool imm = c->lflags & 0x80;
		if (!lc->may_accept) bad("login with an invalid field accepted");
		if (imm && (o.imm_off < CMD_LEN || o.imm_off >= o.it_iu_len))
			bad("IMMED_SUPP granted for an impossible immediate data offset %u (it_iu_len %u)", o.imm_off, o.it_iu_len);
		if (c->max_ti != 0 && c->max_ti < 64 && o.it_iu_len >= 64)
			detail("max_ti_iu_len %u", c->max_ti);
		struct rsp pr; char s[48];
		int p = probe(c, &pr);
		if (p == 1) { detail("probe TUR %s", rsp_str(&pr, s, sizeof(s))); strcat(g_outcome, "+tur_ok"); }
		else if (p == 0) { strcat(g_outcome, "+tur_stuck"); bad("accepted channel does not answer a TUR"); }
		else { strcat(g_outcome, "+disconnect"); if (!strcmp(lc->name, "login_ok")) bad("control channel disconnected"); }
		if (!strcmp(lc->name, "login_ok") && p != 1) bad("control login does not serve commands");
		rdma_disconnect(c->id);
		wait_until(c, 2000, p_gone, 0);
	} else if (!strcmp(lc->name, "login_ok")) {
		bad("control login refused");
	} else if (c->state != 2) {
		bad("no LOGIN_RSP or reject within the timeout");
	}
	conn_free(c);
}
