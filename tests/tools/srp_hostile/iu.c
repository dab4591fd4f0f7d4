// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: building and sending IUs, the TEST UNIT READY probe and the
 * common judgement of an IU case (finish_iu_case). */

#include "hostile.h"

/* ---- IU sending ---------------------------------------------------- */
uint8_t *slot(struct conn *c) { uint8_t *p = c->sbuf + (size_t)(c->snext % c->sslots) * c->sslot_sz; memset(p, 0, c->sslot_sz); return p; }

int send_iu(struct conn *c, uint8_t *buf, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = c->smr->lkey };
	struct ibv_send_wr wr = { .wr_id = c->snext, .sg_list = &sge, .num_sge = len ? 1 : 0,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *badwr;
	c->snext++;
	if (c->state != 1) return -1;
	/* only SRP_CMD and SRP_TSK_MGMT cost a credit (as ib_srp counts);
	 * a truncated IU that starts with one of them still does */
	if (len && (buf[0] == SRP_CMD || buf[0] == SRP_TSK_MGMT))
		c->credits--;
	c->sent++;
	int r = ibv_post_send(c->id->qp, &wr, &badwr);
	if (r) { vlog("post_send: %s", strerror(r)); c->qp_error = true; }
	return r;
}

uint64_t g_tag = 0x1000;

uint8_t *cmd_iu(struct conn *c, uint64_t tag, const uint8_t cdb[16], uint8_t buf_fmt,
		       uint8_t out_cnt, uint8_t in_cnt)
{
	uint8_t *b = slot(c);
	b[0] = SRP_CMD; b[5] = buf_fmt; b[6] = out_cnt; b[7] = in_cnt;
	put64(b + 8, tag);
	if (opt.lun < 256) b[21] = (uint8_t)opt.lun;
	else { b[20] = 0x40 | (uint8_t)(opt.lun >> 8); b[21] = (uint8_t)opt.lun; }
	b[29] = 0; /* SIMPLE */
	memcpy(b + 32, cdb, 16);
	return b;
}
void direct(uint8_t *p, uint64_t va, uint32_t key, uint32_t len)
{
	put64(p, va); put32(p + 8, key); put32(p + 12, len);
}
void cdb_rw10(uint8_t cdb[16], bool write, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 16);
	cdb[0] = write ? 0x2a : 0x28; put32(cdb + 2, lba); put16(cdb + 7, blocks);
}
void cdb_tur(uint8_t cdb[16]) { memset(cdb, 0, 16); }

uint8_t *tm_iu(struct conn *c, uint64_t tag, uint8_t func, uint64_t task_tag, unsigned lun)
{
	uint8_t *b = slot(c);
	b[0] = SRP_TSK_MGMT; put64(b + 8, tag);
	if (lun < 256) b[21] = (uint8_t)lun; else { b[20] = 0x40 | (uint8_t)(lun >> 8); b[21] = (uint8_t)lun; }
	b[30] = func; put64(b + 32, task_tag);
	return b;
}

const char *rsp_str(const struct rsp *r, char *buf, size_t n)
{
	if (!r) { snprintf(buf, n, "none"); return buf; }
	if (r->flags & FLAG_RSPVALID)
		snprintf(buf, n, "rsp_code(%u)", r->rsp_code);
	else if (r->status == 0)
		snprintf(buf, n, "good");
	else if (r->status == 2)
		snprintf(buf, n, "check(%x/%02x/%02x)", r->sk, r->asc, r->ascq);
	else if (r->status == 8)
		snprintf(buf, n, "busy");
	else if (r->status == 0x28)
		snprintf(buf, n, "task_set_full");
	else
		snprintf(buf, n, "status(0x%02x)", r->status);
	return buf;
}
void rsp_detail(const char *what, const struct rsp *r)
{
	char s[48];
	if (!r) { detail("%s: no SRP_RSP", what); return; }
	detail("%s: SRP_RSP %s status=0x%02x flags=0x%02x req_lim_delta=%u di_res=%u do_res=%u sense_len=%u resp_len=%u",
	       what, rsp_str(r, s, sizeof(s)), r->status, r->flags, r->delta, r->di_res, r->do_res,
	       r->sense_len, r->resp_len);
}

/* send a TEST UNIT READY and wait; 1 answered, 0 no answer, -1 gone */
int probe(struct conn *c, struct rsp *out)
{
	uint8_t cdb[16]; cdb_tur(cdb);
	if (c->state != 1) return -1;
	uint64_t tag = g_tag++;
	send_iu(c, cmd_iu(c, tag, cdb, 0, 0, 0), CMD_LEN);
	wait_until(c, opt.timeout_ms, p_tag_or_gone, tag);
	struct rsp *r = find_rsp(c, tag);
	if (r) { if (out) *out = *r; return 1; }
	return c->state == 1 ? 0 : -1;
}

static bool g_logged_in_ok;
struct conn *login_or_error(void)
{
	struct conn_opts o = default_login();
	struct conn *c = conn_open(&o);
	if (!c) { tool_error("local RDMA/CM setup failed (%s)", strerror(errno)); outcome("tool_error"); return NULL; }
	if (c->state != 1) {
		char b[64]; login_str(c, b, sizeof(b));
		tool_error("baseline login not accepted: %s", b); login_detail(c);
		outcome("login_failed_%s", b);
		conn_free(c); return NULL;
	}
	g_logged_in_ok = true;
	vlog("logged in: req_lim %u max_it %u flags 0x%x", c->req_lim0, c->max_it, c->lflags);
	return c;
}

/* Common tail for IU cases: one hostile IU (or several) already sent with
 * tag `tag` (0 = no response expected for a specific tag). Waits, probes,
 * judges. must_answer: disconnecting is not acceptable (valid-but-unusual
 * request). */
struct rsp g_hr; bool g_have_hr;
void finish_iu_case(struct conn *c, uint64_t tag, bool must_answer, int wait_ms)
{
	struct rsp *r = NULL;
	if (tag) {
		wait_until(c, wait_ms, p_tag_or_gone, tag);
		r = find_rsp(c, tag);
	} else {
		wait_until(c, wait_ms, p_gone, 0); /* give the target time to react */
	}
	g_have_hr = r != NULL; if (r) g_hr = *r;
	char s[48];
	rsp_detail("hostile IU", r);
	int64_t cred_before_probe = c->credits;
	if (c->state != 1) {
		outcome(r ? "%s+disconnect" : "disconnect", rsp_str(r, s, sizeof(s)));
		detail("target disconnected (%s) after %u IU(s)", cm_ev(c->cm_event), c->sent);
		if (must_answer) bad("disconnect for a request a careful target answers");
		return;
	}
	if (c->qp_error) {
		outcome(r ? "%s+qp_error" : "qp_error", rsp_str(r, s, sizeof(s)));
		detail("local QP error: send_errs=%u recv_errs=%u first wc status %d", c->send_errs, c->recv_errs, c->first_send_err);
		return;
	}
	struct rsp pr;
	int p = probe(c, &pr);
	if (p == 1) {
		detail("probe TUR answered (%s, delta %u)", rsp_str(&pr, s, sizeof(s)), pr.delta);
		int64_t expect = c->req_lim0;
		if (c->credits < expect)
			detail("credits %" PRId64 "/%" PRId64 " after the probe", c->credits, expect);
		if (tag && !r) {
			outcome("no_rsp");
			bad("command tag 0x%" PRIx64 " never answered (stuck command / lost credit)", tag);
		} else if (!tag) {
			outcome("dropped");
			if (c->credits < expect)
				bad("dropped IU(s) never returned their credit (credits %" PRId64 " of %" PRId64 ")", c->credits, expect);
		} else {
			outcome("%s", rsp_str(r, s, sizeof(s)));
		}
	} else if (p == 0) {
		outcome(r ? "%s+stuck" : "stuck", rsp_str(r, s, sizeof(s)));
		bad("channel still connected but a TEST UNIT READY probe got no answer in %d ms", opt.timeout_ms);
	} else {
		outcome(r ? "%s+disconnect" : "disconnect", rsp_str(r, s, sizeof(s)));
		detail("target disconnected during the probe (%s)", cm_ev(c->cm_event));
		if (must_answer) bad("disconnect for a request a careful target answers");
	}
	(void)cred_before_probe;
}
