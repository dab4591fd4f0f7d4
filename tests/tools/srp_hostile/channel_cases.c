// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: the channel as a whole: credit overrun, I_LOGOUT, teardown
 * in the middle of RDMA transfers, many logins. */

#include "hostile.h"

/* ---- cases: credits, logout, teardown, many logins --------------- */
void c_credit_overrun(struct conn *c)
{
	uint8_t cdb[16]; cdb_tur(cdb);
	unsigned n = c->req_lim0 + 32;
	if (n + 8 > c->sslots) n = (unsigned)c->sslots - 8;
	unsigned before = c->nrsp;
	for (unsigned i = 0; i < n; i++) send_iu(c, cmd_iu(c, g_tag++, cdb, 0, 0, 0), CMD_LEN);
	wait_until(c, opt.timeout_ms * 2, p_nrsp, before + n);
	unsigned got = c->nrsp - before;
	detail("sent %u TURs with req_lim %u: %u answered", n, c->req_lim0, got);
	finish_iu_case(c, 0, false, 500);
	if (!strcmp(g_outcome, "dropped")) outcome(got == n ? "all_answered" : "partial(%u/%u)", got, n);
	if (!strcmp(g_verdict, "bad") && strstr(g_detail, "credit")) {
		/* over-credit IUs need not return credits: judge only stuck */
		strcpy(g_verdict, "ok");
	}
}

void c_logout_then_iu(struct conn *c)
{
	uint8_t *b = slot(c);
	b[0] = SRP_I_LOGOUT; put64(b + 8, g_tag++);
	send_iu(c, b, 16);
	wait_until(c, 1500, p_gone, 0);
	if (c->state != 1) { outcome("disconnect"); detail("target closed the channel after I_LOGOUT"); return; }
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	send_iu(c, cmd_iu(c, tag, cdb, 0, 0, 0), CMD_LEN);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	if (g_have_hr) { strcat(g_outcome, "(served_after_logout)"); detail("commands still served after I_LOGOUT"); }
	else if (strcmp(g_verdict, "bad") == 0 && strstr(g_detail, "never answered")) {
		/* ignoring IUs after I_LOGOUT is a careful answer only if the
		 * channel then goes away */
	}
}

/* Queue RDMA-heavy commands, then tear the connection down mid-transfer. */
static unsigned queue_rdma(struct conn *c, bool write, unsigned n)
{
	uint8_t cdb[16];
	unsigned blocks = 128; /* 64 KiB each */
	if (n * blocks * BLK > c->dlen) n = (unsigned)(c->dlen / (blocks * BLK));
	for (unsigned i = 0; i < n; i++) {
		cdb_rw10(cdb, write, HOSTILE_LBA + i * blocks, (uint16_t)blocks);
		uint8_t *b = cmd_iu(c, g_tag++, cdb, write ? DESC_DIRECT << 4 : DESC_DIRECT, write, !write);
		direct(b + 48, (uintptr_t)c->dbuf + (uint64_t)i * blocks * BLK, c->dmr->rkey, blocks * BLK);
		send_iu(c, b, 64);
	}
	return n;
}
static void disc_mid(struct conn *c, bool write, int how)
{
	unsigned n = queue_rdma(c, write, 48);
	usleep(how == 2 ? 1000 : 0);
	unsigned got0 = c->nrsp;
	if (how == 0) {		/* disconnect */
		rdma_disconnect(c->id);
	} else if (how == 1) {	/* local QP to error, no disconnect */
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
		ibv_modify_qp(c->id->qp, &a, IBV_QP_STATE);
	} else {		/* deregister the data MR under the target's RDMA */
		ibv_dereg_mr(c->dmr); c->dmr = NULL;
	}
	wait_until(c, how == 0 ? 2000 : opt.timeout_ms * 2, p_gone, 0);
	outcome(c->state == 1 ? "still_connected" : "disconnect");
	detail("%u %s commands queued, %u answered before the teardown, %u after", n,
	       write ? "WRITE" : "READ", got0, c->nrsp - got0);
	if (how == 1 && c->state == 1) { rdma_disconnect(c->id); wait_until(c, 2000, p_gone, 0); }
	if (how == 2 && c->state == 1) {
		detail("target kept the channel after RDMA errors; local QP error %d", c->qp_error);
		rdma_disconnect(c->id); wait_until(c, 2000, p_gone, 0);
	}
}
void c_disc_mid_read(struct conn *c) { disc_mid(c, false, 0); }
void c_disc_mid_write(struct conn *c) { disc_mid(c, true, 0); }
void c_qp_err_mid_read(struct conn *c) { disc_mid(c, false, 1); }
void c_qp_err_mid_write(struct conn *c) { disc_mid(c, true, 1); }
void c_dereg_mid_read(struct conn *c) { disc_mid(c, false, 2); }
void c_exit_mid_write(struct conn *c)
{
	unsigned n = queue_rdma(c, true, 48);
	printf("case=exit_mid_write outcome=exited verdict=ok detail=\"%u WRITEs queued, process exits without disconnect\"\n", n);
	fflush(stdout);
	_exit(0);
}

static void many_logins(bool multi, unsigned n)
{
	struct conn **cs = calloc(n, sizeof(*cs));
	unsigned ok = 0, rej = 0, other = 0, tur = 0, disc = 0;
	uint32_t reasons[8] = { 0 }; unsigned nreasons = 0;
	for (unsigned i = 0; i < n; i++) {
		struct conn_opts o = default_login();
		o.flags = 0x80 | (multi ? 1 : 0);
		o.tag = 0x5000 + i;
		o.rslots = 16; o.sslots = 16; o.sslot_sz = 4096; o.dlen = 65536;
		cs[i] = conn_start(&o);
		if (!cs[i]) { other++; continue; }
		if (!multi) conn_finish(cs[i], opt.timeout_ms + 5000);
	}
	for (unsigned i = 0; i < n; i++) {
		struct conn *c = cs[i];
		if (!c) continue;
		if (multi) conn_finish(c, opt.timeout_ms + 5000);
		if (c->state == 1) ok++;
		else if (c->state == 2) { rej++; if (nreasons < 8) reasons[nreasons++] = c->rej_srp ? c->rej_reason : 0; }
		else other++;
	}
	for (unsigned i = 0; i < n; i++) {
		struct conn *c = cs[i];
		if (!c) continue;
		cm_poll(c);
		if (c->state != 1) { if (c->state == 3) disc++; continue; }
		if (probe(c, NULL) == 1) tur++;
	}
	outcome("accepted(%u)+rejected(%u)+failed(%u)", ok, rej, other);
	detail("%u %s logins without logout: %u accepted, %u rejected (first reasons 0x%x 0x%x), %u failed; %u later disconnected by the target; %u answered a TUR",
	       n, multi ? "multichannel" : "single-channel", ok, rej, nreasons > 0 ? reasons[0] : 0,
	       nreasons > 1 ? reasons[1] : 0, other, disc, tur);
	if (multi && ok && tur < ok - disc) bad("%u accepted channels did not answer a TUR", ok - disc - tur);
	if (!multi && tur != 1 && ok) detail("single-channel relogins: %u channels still serve (expected only the last)", tur);
	if (!ok) bad("no login accepted");
	/* exit without logout: the kernel tears the ids down at close */
	printf("case=%s outcome=%s verdict=%s detail=\"%s\"\n", multi ? "many_logins" : "many_relogins_single",
	       g_outcome, g_verdict, g_detail);
	fflush(stdout);
	_exit(strcmp(g_verdict, "ok") ? 1 : 0);
}
void c_many_logins(struct conn *c) { (void)c; many_logins(true, 32); }
void c_many_relogins_single(struct conn *c) { (void)c; many_logins(false, 16); }
