// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: one RDMA/CM connection and its SRP login; completions and
 * CM events; the responses it received. */

#include "hostile.h"

/* ---- connection ---------------------------------------------------- */
struct conn_opts default_login(void)
{
	struct conn_opts o = {
		.it_iu_len = 8260, .buf_fmt = 0x6, .flags = 0x80 | 1,
		.opcode = SRP_LOGIN_REQ, .imm_off = IMM_OFFSET, .tag = 0x10c1,
		.ini = opt.ini, .tgt = opt.tgt, .pdata_len = LOGIN_RDMA_LEN,
		.rslots = 256, .sslots = 320, .sslot_sz = 16384, .dlen = 4u << 20,
	};
	return o;
}

const char *cm_ev(int e) { return e < 0 ? "none" : rdma_event_str(e); }

static int post_recv(struct conn *c, size_t i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(c->rbuf + i * c->rslot_sz),
		.length = (uint32_t)c->rslot_sz, .lkey = c->rmr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *badwr;
	return ibv_post_recv(c->id->qp, &wr, &badwr);
}

static void parse_rsp(struct conn *c, const uint8_t *b, uint32_t len)
{
	uint8_t op = len ? b[0] : 0xff;
	if (op != SRP_RSP) {
		c->unsolicited++;
		vlog("unsolicited IU opcode 0x%02x len %u", op, len);
		if (c->nrsp < MAX_RSPS) {
			struct rsp *r = &c->rsps[c->nrsp++];
			memset(r, 0, sizeof(*r)); r->opcode = op; r->byte_len = len;
			if (len >= 16) r->tag = get64(b + 8);
			if (len >= 8 && (op == SRP_CRED_REQ || op == SRP_AER_REQ))
				c->credits += get32(b + 4);
		}
		return;
	}
	if (c->nrsp >= MAX_RSPS) return;
	struct rsp *r = &c->rsps[c->nrsp++];
	memset(r, 0, sizeof(*r));
	r->opcode = op; r->byte_len = len;
	if (len < 36) return;
	r->sol_not = b[1];
	r->delta = get32(b + 4); r->tag = get64(b + 8);
	r->flags = b[18]; r->status = b[19];
	r->do_res = get32(b + 20); r->di_res = get32(b + 24);
	r->sense_len = get32(b + 28); r->resp_len = get32(b + 32);
	c->credits += r->delta;
	const uint8_t *d = b + 36;
	uint32_t avail = len - 36;
	if (r->flags & FLAG_RSPVALID) {
		if (r->resp_len >= 4 && r->resp_len <= avail) r->rsp_code = d[3];
		uint32_t skip = r->resp_len <= avail ? r->resp_len : avail;
		d += skip; avail -= skip;
	}
	if ((r->flags & FLAG_SNSVALID) && avail >= 4) {
		if ((d[0] & 0x7f) >= 0x72) {
			r->sk = d[1] & 0xf; r->asc = d[2]; r->ascq = d[3];
		} else if (avail >= 14) {
			r->sk = d[2] & 0xf; r->asc = d[12]; r->ascq = d[13];
		}
	}
	vlog("SRP_RSP tag 0x%" PRIx64 " status 0x%02x flags 0x%02x delta %u sk %x asc %02x ascq %02x",
	     r->tag, r->status, r->flags, r->delta, r->sk, r->asc, r->ascq);
}

/* drain the CQ; returns number of completions */
static int drain_cq(struct conn *c)
{
	struct ibv_wc wc[32];
	int n, total = 0;
	while ((n = ibv_poll_cq(c->cq, 32, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			total++;
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].opcode & IBV_WC_RECV) c->recv_errs++;
				else if (!c->send_errs++) c->first_send_err = wc[i].status;
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR) c->qp_error = true;
				else c->qp_error = true;
				continue;
			}
			if (wc[i].opcode == IBV_WC_RECV) {
				size_t s = wc[i].wr_id;
				parse_rsp(c, c->rbuf + s * c->rslot_sz, wc[i].byte_len);
				if (c->state == 1) post_recv(c, s);
			}
		}
	}
	return total;
}

/* handle one CM event if available (non-blocking) */
void cm_poll(struct conn *c)
{
	struct rdma_cm_event *ev;
	for (;;) {
		struct pollfd p = { .fd = c->ec->fd, .events = POLLIN };
		if (poll(&p, 1, 0) <= 0) return;
		if (rdma_get_cm_event(c->ec, &ev)) return;
		vlog("cm event %s status %d", rdma_event_str(ev->event), ev->status);
		switch (ev->event) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			if (c->state == 1) { c->state = 3; c->cm_event = ev->event; }
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

/* wait up to ms for progress; returns when pred(c, arg) true or timeout */
bool wait_until(struct conn *c, int ms, pred_fn pred, uint64_t arg)
{
	long end = now_ms() + ms;
	for (;;) {
		drain_cq(c);
		cm_poll(c);
		if (pred(c, arg)) return true;
		long left = end - now_ms();
		if (left <= 0) return false;
		struct pollfd p[2] = { { .fd = c->cc->fd, .events = POLLIN },
				       { .fd = c->ec->fd, .events = POLLIN } };
		ibv_req_notify_cq(c->cq, 0);
		drain_cq(c);
		if (pred(c, arg)) return true;
		if (poll(p, 2, left > 100 ? 100 : (int)left) > 0 && (p[0].revents & POLLIN)) {
			struct ibv_cq *cq; void *ctx;
			if (!ibv_get_cq_event(c->cc, &cq, &ctx)) ibv_ack_cq_events(cq, 1);
		}
	}
}

struct rsp *find_rsp(struct conn *c, uint64_t tag)
{
	for (unsigned i = 0; i < c->nrsp; i++)
		if (c->rsps[i].opcode == SRP_RSP && c->rsps[i].tag == tag) return &c->rsps[i];
	return NULL;
}
bool p_tag_or_gone(struct conn *c, uint64_t tag) { return c->state != 1 || find_rsp(c, tag); }
bool p_gone(struct conn *c, uint64_t a) { (void)a; return c->state != 1; }
bool p_nrsp(struct conn *c, uint64_t n) { return c->state != 1 || c->nrsp >= n; }

void conn_free(struct conn *c)
{
	if (!c) return;
	if (c->id) {
		if (c->id->qp) rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
	}
	if (c->rmr) ibv_dereg_mr(c->rmr);
	if (c->smr) ibv_dereg_mr(c->smr);
	if (c->dmr) ibv_dereg_mr(c->dmr);
	if (c->cq) ibv_destroy_cq(c->cq);
	if (c->cc) ibv_destroy_comp_channel(c->cc);
	if (c->pd) ibv_dealloc_pd(c->pd);
	if (c->ec) rdma_destroy_event_channel(c->ec);
	free(c->rbuf); free(c->sbuf); free(c->dbuf);
	free(c);
}

static int wait_cm(struct conn *c, int ms, struct rdma_cm_event **out)
{
	struct pollfd p = { .fd = c->ec->fd, .events = POLLIN };
	int r = poll(&p, 1, ms);
	if (r <= 0) return -1;
	return rdma_get_cm_event(c->ec, out);
}

/* Set up id/QP and start connecting; conn_finish() waits for the answer.
 * Returns NULL on a local setup failure (tool error). */
struct conn *conn_start(const struct conn_opts *o)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct rdma_cm_event *ev = NULL;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	if (!c) return NULL;
	c->cm_event = -1;
	c->ec = rdma_create_event_channel();
	if (!c->ec || rdma_create_id(c->ec, &c->id, c, RDMA_PS_TCP)) goto fail;
	if (getaddrinfo(opt.addr, opt.port, &hints, &ai)) goto fail;
	if (rdma_resolve_addr(c->id, NULL, ai->ai_addr, 2000)) goto fail;
	freeaddrinfo(ai); ai = NULL;
	if (wait_cm(c, 5000, &ev) || ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) goto fail_ev;
	rdma_ack_cm_event(ev); ev = NULL;
	if (rdma_resolve_route(c->id, 2000)) goto fail;
	if (wait_cm(c, 5000, &ev) || ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) goto fail_ev;
	rdma_ack_cm_event(ev); ev = NULL;

	c->rslots = o->rslots; c->rslot_sz = 8192;
	c->sslots = o->sslots; c->sslot_sz = o->sslot_sz; c->dlen = o->dlen;
	if (posix_memalign((void **)&c->rbuf, 4096, c->rslots * c->rslot_sz) ||
	    posix_memalign((void **)&c->sbuf, 4096, c->sslots * c->sslot_sz) ||
	    posix_memalign((void **)&c->dbuf, 4096, c->dlen)) goto fail;
	memset(c->rbuf, 0, c->rslots * c->rslot_sz);
	memset(c->sbuf, 0, c->sslots * c->sslot_sz);
	memset(c->dbuf, 0xa5, c->dlen);
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cc = ibv_create_comp_channel(c->id->verbs);
	if (!c->pd || !c->cc) goto fail;
	fcntl(c->cc->fd, F_SETFL, fcntl(c->cc->fd, F_GETFL) | O_NONBLOCK);
	c->cq = ibv_create_cq(c->id->verbs, (int)(c->rslots + c->sslots + 16), c, c->cc, 0);
	if (!c->cq) goto fail;
	c->rmr = ibv_reg_mr(c->pd, c->rbuf, c->rslots * c->rslot_sz, IBV_ACCESS_LOCAL_WRITE);
	c->smr = ibv_reg_mr(c->pd, c->sbuf, c->sslots * c->sslot_sz, 0);
	c->dmr = ibv_reg_mr(c->pd, c->dbuf, c->dlen, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!c->rmr || !c->smr || !c->dmr) goto fail;
	struct ibv_qp_init_attr qa = {
		.send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = (uint32_t)c->sslots, .max_recv_wr = (uint32_t)c->rslots,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if (rdma_create_qp(c->id, c->pd, &qa)) goto fail;
	for (size_t i = 0; i < c->rslots; i++)
		if (post_recv(c, i)) goto fail;

	uint8_t pd[64] = { 0 };
	put64(pd + 0, o->tag);
	put16(pd + 8, o->buf_fmt);
	pd[10] = o->flags;
	pd[11] = o->opcode;
	put32(pd + 12, o->it_iu_len);
	memcpy(pd + 16, o->ini, 16);
	memcpy(pd + 32, o->tgt, 16);
	put16(pd + 48, o->imm_off);
	if (o->reserved_junk) memset(pd + 50, 0xff, 6);
	struct rdma_conn_param cp = {
		.private_data = pd, .private_data_len = (uint8_t)o->pdata_len,
		.responder_resources = 4, .initiator_depth = 4, .flow_control = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	if (rdma_connect(c->id, &cp)) goto fail;
	return c;
fail_ev:
	if (ev) { vlog("setup: cm event %s status %d", rdma_event_str(ev->event), ev->status); rdma_ack_cm_event(ev); }
fail:
	if (ai) freeaddrinfo(ai);
	vlog("connection setup failed: %s", strerror(errno));
	conn_free(c);
	return NULL;
}

/* wait for ESTABLISHED / REJECTED / error; fills login fields */
void conn_finish(struct conn *c, int ms)
{
	struct rdma_cm_event *ev;
	long end = now_ms() + ms;
	while (c->state == 0) {
		long left = end - now_ms();
		if (left <= 0 || wait_cm(c, (int)left, &ev)) { c->state = 4; c->cm_event = -1; break; }
		c->cm_event = ev->event; c->cm_status = ev->status;
		const uint8_t *p = ev->param.conn.private_data;
		int plen = ev->param.conn.private_data_len;
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			c->state = 1;
			c->lrsp_len = plen > 64 ? 64 : plen;
			if (p && plen) memcpy(c->lrsp, p, c->lrsp_len);
			if (c->lrsp_len >= 27 && c->lrsp[0] == SRP_LOGIN_RSP) {
				c->req_lim0 = get32(c->lrsp + 4);
				c->max_it = get32(c->lrsp + 16);
				c->max_ti = get32(c->lrsp + 20);
				c->lbuf_fmt = get16(c->lrsp + 24);
				c->lflags = c->lrsp[26];
				c->credits = c->req_lim0;
			}
		} else if (ev->event == RDMA_CM_EVENT_REJECTED) {
			c->state = 2;
			if (p && plen >= 8 && p[0] == SRP_LOGIN_REJ) {
				c->rej_srp = true; c->rej_reason = get32(p + 4);
			}
		} else if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ||
			   ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
			/* stale; ignore */
		} else {
			c->state = 4;
		}
		rdma_ack_cm_event(ev);
	}
}

struct conn *conn_open(const struct conn_opts *o)
{
	struct conn *c = conn_start(o);
	if (c) conn_finish(c, opt.timeout_ms + 5000);
	return c;
}

/* describe the login answer into buf */
const char *login_str(struct conn *c, char *buf, size_t n)
{
	switch (c->state) {
	case 1:
		snprintf(buf, n, "login_rsp");
		break;
	case 2:
		if (c->rej_srp) snprintf(buf, n, "login_rej(0x%05x)", c->rej_reason);
		else snprintf(buf, n, "cm_rej(%d)", c->cm_status);
		break;
	default:
		snprintf(buf, n, "cm_%s(%d)", c->cm_event < 0 ? "timeout" : cm_ev(c->cm_event), c->cm_status);
		for (char *q = buf; *q; q++) if (*q == ' ') *q = '_';
	}
	return buf;
}

void login_detail(struct conn *c)
{
	if (c->state == 1)
		detail("LOGIN_RSP req_lim=%u max_it=%u max_ti=%u buf_fmt=0x%x flags=0x%02x",
		       c->req_lim0, c->max_it, c->max_ti, c->lbuf_fmt, c->lflags);
	else if (c->state == 2)
		detail("REJECTED status=%d srp_reason=%s0x%x", c->cm_status, c->rej_srp ? "" : "none/", c->rej_reason);
	else
		detail("no login answer (event %s status %d)", cm_ev(c->cm_event), c->cm_status);
}
