// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srp_hostile: an adversarial SRP initiator on librdmacm/libibverbs.
 *
 * Logs in to an SRP target over RDMA/CM (private data = srp_login_req_rdma,
 * LOGIN_RSP/LOGIN_REJ in the CM reply/reject private data) and sends ONE
 * named malformed login or IU per run, then reports what the target answered
 * on one machine-readable line:
 *
 *   case=NAME outcome=TOKEN verdict=ok|bad|error detail="..."
 *
 * verdict=bad means the answer is not one a careful target gives (command
 * never answered, credit lost, GOOD for a partial transfer, bytes written
 * beyond what the command moved, a malformed login accepted, ...). Crashes
 * and WARNs are judged by the guest scenario from dmesg.
 *
 *   srp_hostile --list
 *   srp_hostile --case NAME --addr IP [--port 5555] --ini HEX32 --tgt HEX32
 *               [--timeout MS] [--lun N] [--block-lun N]
 *   srp_hostile --fuzz SEED --seconds N --addr ... --ini ... --tgt ...
 *   srp_hostile --fuzz SEED --show K        (print fuzz IU number K as hex)
 *
 * A real memory region is registered; descriptors point into it with its
 * rkey, so legitimate RDMA READ/WRITE by the target land in our buffers.
 * Data-in buffers are filled with a canary first: any byte changed beyond
 * what the command moved is reported. Wire layouts: include/scsi/srp.h
 * (all fields big-endian; CMD and TSK_MGMT carry the LUN at 20, CDB at 32).
 * Exit status: 0 verdict ok, 1 verdict bad, 2 usage, 3 tool/setup error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* ---- wire ---------------------------------------------------------- */
enum {
	SRP_LOGIN_REQ = 0x00, SRP_TSK_MGMT = 0x01, SRP_CMD = 0x02,
	SRP_I_LOGOUT = 0x03, SRP_LOGIN_RSP = 0xc0, SRP_RSP = 0xc1,
	SRP_LOGIN_REJ = 0xc2, SRP_T_LOGOUT = 0x80, SRP_CRED_REQ = 0x81,
	SRP_AER_REQ = 0x82, SRP_CRED_RSP = 0x41, SRP_AER_RSP = 0x42,
	DESC_DIRECT = 1, DESC_INDIRECT = 2, DESC_IMM = 3,
	FLAG_RSPVALID = 1, FLAG_SNSVALID = 2, FLAG_DOOVER = 4,
	FLAG_DOUNDER = 8, FLAG_DIOVER = 0x10, FLAG_DIUNDER = 0x20,
	CMD_LEN = 48, IMM_OFFSET = 68, LOGIN_RDMA_LEN = 56,
	BLK = 512,
};

static void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

/* ---- options and result -------------------------------------------- */
static struct {
	const char *addr, *port;
	uint8_t ini[16], tgt[16];
	int timeout_ms;
	unsigned lun;
	unsigned block_lun; /* a LUN on a block device (iblock); default: lun */
	bool verbose;
} opt = { .port = "5555", .timeout_ms = 5000 };

static char g_outcome[128] = "none", g_detail[1024], g_verdict[16] = "ok";
static void outcome(const char *fmt, ...)
{
	va_list ap; va_start(ap, fmt);
	vsnprintf(g_outcome, sizeof(g_outcome), fmt, ap); va_end(ap);
}
static void detail(const char *fmt, ...)
{
	size_t n = strlen(g_detail);
	va_list ap; va_start(ap, fmt);
	if (n && n < sizeof(g_detail) - 2) { g_detail[n++] = ';'; g_detail[n++] = ' '; g_detail[n] = 0; }
	vsnprintf(g_detail + n, sizeof(g_detail) - n, fmt, ap); va_end(ap);
}
static void bad(const char *fmt, ...)
{
	char b[256]; va_list ap; va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap); va_end(ap);
	strcpy(g_verdict, "bad"); detail("BAD: %s", b);
}
static void tool_error(const char *fmt, ...)
{
	char b[256]; va_list ap; va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap); va_end(ap);
	strcpy(g_verdict, "error"); detail("ERROR: %s", b);
}
static void vlog(const char *fmt, ...)
{
	if (!opt.verbose) return;
	va_list ap; va_start(ap, fmt); vfprintf(stderr, fmt, ap); va_end(ap);
	fputc('\n', stderr);
}

static long now_ms(void)
{
	struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* ---- connection ---------------------------------------------------- */
struct rsp {
	uint8_t opcode, flags, status, sk, asc, ascq, rsp_code, sol_not;
	uint64_t tag;
	uint32_t delta, do_res, di_res, sense_len, resp_len, byte_len;
};
#define MAX_RSPS 1024

struct conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *rmr, *smr, *dmr;
	uint8_t *rbuf, *sbuf, *dbuf;
	size_t rslots, rslot_sz, sslots, sslot_sz, dlen;
	unsigned snext;
	int state;		/* 0 idle, 1 up, 2 rejected, 3 gone, 4 error */
	int cm_event, cm_status;	/* last terminal CM event */
	/* login answer */
	uint8_t lrsp[64]; int lrsp_len;
	uint32_t rej_reason; bool rej_srp;
	uint32_t req_lim0, max_it, max_ti; uint16_t lbuf_fmt; uint8_t lflags;
	/* accounting */
	int64_t credits;		/* login delta - requests + returned */
	unsigned sent, send_errs, recv_errs, unsolicited;
	int first_send_err;
	struct rsp rsps[MAX_RSPS]; unsigned nrsp;
	bool qp_error;
};

struct conn_opts {
	uint32_t it_iu_len; uint16_t buf_fmt; uint8_t flags; uint8_t opcode;
	uint16_t imm_off; uint64_t tag; const uint8_t *ini, *tgt;
	int pdata_len; bool reserved_junk;
	size_t rslots, sslots, sslot_sz, dlen;
};

static struct conn_opts default_login(void)
{
	struct conn_opts o = {
		.it_iu_len = 8260, .buf_fmt = 0x6, .flags = 0x80 | 1,
		.opcode = SRP_LOGIN_REQ, .imm_off = IMM_OFFSET, .tag = 0x10c1,
		.ini = opt.ini, .tgt = opt.tgt, .pdata_len = LOGIN_RDMA_LEN,
		.rslots = 256, .sslots = 320, .sslot_sz = 16384, .dlen = 4u << 20,
	};
	return o;
}

static const char *cm_ev(int e) { return e < 0 ? "none" : rdma_event_str(e); }

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
static void cm_poll(struct conn *c)
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
typedef bool (*pred_fn)(struct conn *, uint64_t);
static bool wait_until(struct conn *c, int ms, pred_fn pred, uint64_t arg)
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

static struct rsp *find_rsp(struct conn *c, uint64_t tag)
{
	for (unsigned i = 0; i < c->nrsp; i++)
		if (c->rsps[i].opcode == SRP_RSP && c->rsps[i].tag == tag) return &c->rsps[i];
	return NULL;
}
static bool p_tag_or_gone(struct conn *c, uint64_t tag) { return c->state != 1 || find_rsp(c, tag); }
static bool p_gone(struct conn *c, uint64_t a) { (void)a; return c->state != 1; }
static bool p_nrsp(struct conn *c, uint64_t n) { return c->state != 1 || c->nrsp >= n; }

static void conn_free(struct conn *c)
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
static struct conn *conn_start(const struct conn_opts *o)
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
static void conn_finish(struct conn *c, int ms)
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

static struct conn *conn_open(const struct conn_opts *o)
{
	struct conn *c = conn_start(o);
	if (c) conn_finish(c, opt.timeout_ms + 5000);
	return c;
}

/* describe the login answer into buf */
static const char *login_str(struct conn *c, char *buf, size_t n)
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

static void login_detail(struct conn *c)
{
	if (c->state == 1)
		detail("LOGIN_RSP req_lim=%u max_it=%u max_ti=%u buf_fmt=0x%x flags=0x%02x",
		       c->req_lim0, c->max_it, c->max_ti, c->lbuf_fmt, c->lflags);
	else if (c->state == 2)
		detail("REJECTED status=%d srp_reason=%s0x%x", c->cm_status, c->rej_srp ? "" : "none/", c->rej_reason);
	else
		detail("no login answer (event %s status %d)", cm_ev(c->cm_event), c->cm_status);
}

/* ---- IU sending ---------------------------------------------------- */
static uint8_t *slot(struct conn *c) { uint8_t *p = c->sbuf + (size_t)(c->snext % c->sslots) * c->sslot_sz; memset(p, 0, c->sslot_sz); return p; }

static int send_iu(struct conn *c, uint8_t *buf, uint32_t len)
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

static uint64_t g_tag = 0x1000;

static uint8_t *cmd_iu(struct conn *c, uint64_t tag, const uint8_t cdb[16], uint8_t buf_fmt,
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
static void direct(uint8_t *p, uint64_t va, uint32_t key, uint32_t len)
{
	put64(p, va); put32(p + 8, key); put32(p + 12, len);
}
static void cdb_rw10(uint8_t cdb[16], bool write, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 16);
	cdb[0] = write ? 0x2a : 0x28; put32(cdb + 2, lba); put16(cdb + 7, blocks);
}
static void cdb_tur(uint8_t cdb[16]) { memset(cdb, 0, 16); }

static uint8_t *tm_iu(struct conn *c, uint64_t tag, uint8_t func, uint64_t task_tag, unsigned lun)
{
	uint8_t *b = slot(c);
	b[0] = SRP_TSK_MGMT; put64(b + 8, tag);
	if (lun < 256) b[21] = (uint8_t)lun; else { b[20] = 0x40 | (uint8_t)(lun >> 8); b[21] = (uint8_t)lun; }
	b[30] = func; put64(b + 32, task_tag);
	return b;
}

static const char *rsp_str(const struct rsp *r, char *buf, size_t n)
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
static void rsp_detail(const char *what, const struct rsp *r)
{
	char s[48];
	if (!r) { detail("%s: no SRP_RSP", what); return; }
	detail("%s: SRP_RSP %s status=0x%02x flags=0x%02x req_lim_delta=%u di_res=%u do_res=%u sense_len=%u resp_len=%u",
	       what, rsp_str(r, s, sizeof(s)), r->status, r->flags, r->delta, r->di_res, r->do_res,
	       r->sense_len, r->resp_len);
}

/* send a TEST UNIT READY and wait; 1 answered, 0 no answer, -1 gone */
static int probe(struct conn *c, struct rsp *out)
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
static struct conn *login_or_error(void)
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
static struct rsp g_hr; static bool g_have_hr;
static void finish_iu_case(struct conn *c, uint64_t tag, bool must_answer, int wait_ms)
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

/* ---- cases: login ---------------------------------------------------- */
struct lcase { const char *name; const char *desc; void (*mut)(struct conn_opts *); bool may_accept; };
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

static const struct lcase lcases[] = {
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

static void run_login_case(const struct lcase *lc)
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

/* ---- cases: IUs --------------------------------------------------- */
struct icase { const char *name; const char *desc; void (*fn)(struct conn *); };

#define HOSTILE_LBA 65536u /* 32 MiB into LUN 0: away from the scenario's dd area */

static void raw_iu(struct conn *c, uint32_t len, uint8_t opcode)
{
	uint8_t *b = slot(c);
	if (len) b[0] = opcode;
	if (len >= 16) put64(b + 8, g_tag++);
	send_iu(c, b, len);
	finish_iu_case(c, 0, false, 1500);
}
static void c_iu_len_0(struct conn *c) { raw_iu(c, 0, 0); }
static void c_iu_len_1(struct conn *c) { raw_iu(c, 1, SRP_CMD); }
static void c_iu_len_47(struct conn *c)
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
static void c_stale_short(struct conn *c)
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
static void c_iu_over_negotiated(struct conn *c)
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
static void c_iu_over_by_one(struct conn *c)
{
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	uint32_t len = c->max_it + 1;
	send_iu(c, cmd_iu(c, tag, cdb, 0, 0, 0), len);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	detail("sent %u bytes, max_it_iu_len %u", len, c->max_it);
}
static void c_op_unknown(struct conn *c) { raw_iu(c, 64, 0x55); }
static void c_op_login_req(struct conn *c) { raw_iu(c, 64, SRP_LOGIN_REQ); }
static void c_op_rsp(struct conn *c) { raw_iu(c, 64, SRP_RSP); }
static void c_op_login_rsp(struct conn *c) { raw_iu(c, 64, SRP_LOGIN_RSP); }
static void c_op_login_rej(struct conn *c) { raw_iu(c, 64, SRP_LOGIN_REJ); }
static void c_op_t_logout(struct conn *c) { raw_iu(c, 64, SRP_T_LOGOUT); }
static void c_op_cred_req(struct conn *c) { raw_iu(c, 64, SRP_CRED_REQ); }
static void c_op_aer_req(struct conn *c) { raw_iu(c, 64, SRP_AER_REQ); }
static void c_op_cred_rsp(struct conn *c) { raw_iu(c, 16, SRP_CRED_RSP); }
static void c_op_aer_rsp(struct conn *c) { raw_iu(c, 16, SRP_AER_RSP); }
static void c_op_ff(struct conn *c) { raw_iu(c, 64, 0xff); }

/* GOOD for a READ must mean data arrived: a GOOD (without a data-in
 * residual) that left the whole canary in place reports a transfer that
 * never happened. */
static void judge_read_good(struct conn *c, size_t expect)
{
	if (!g_have_hr || g_hr.status != 0 || (g_hr.flags & FLAG_RSPVALID) || !expect)
		return;
	size_t changed = 0;
	for (size_t i = 0; i < expect && i < c->dlen; i++)
		if (c->dbuf[i] != 0xa5) changed++;
	if (changed) return;
	if (g_hr.flags & (FLAG_DIUNDER | FLAG_DIOVER))
		detail("GOOD with data-in residual %u and no data delivered", g_hr.di_res);
	else
		bad("GOOD without residual for a %zu-byte READ that delivered no data", expect);
}

/* READ(10) of `blocks` with one direct descriptor of `dlen` bytes; checks the
 * canary beyond min(CDB length, descriptor length). */
static void read_direct(struct conn *c, uint16_t blocks, uint32_t dlen, uint32_t key, uint64_t va, bool must_answer)
{
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, blocks);
	uint64_t tag = g_tag++;
	memset(c->dbuf, 0xa5, c->dlen);
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_DIRECT, 0, 1);
	direct(b + 48, va, key, dlen);
	send_iu(c, b, 64);
	finish_iu_case(c, tag, must_answer, opt.timeout_ms);
	uint64_t moved = (uint64_t)blocks * BLK;
	uint64_t allowed = moved < dlen ? moved : dlen;
	size_t lim = dlen < c->dlen ? dlen : c->dlen;
	size_t beyond = 0, within = 0, first = 0;
	for (size_t i = 0; i < lim; i++)
		if (c->dbuf[i] != 0xa5) { if (i >= allowed) { if (!beyond++) first = i; } else within++; }
	if (beyond) bad("data-in wrote %zu byte(s) beyond the %" PRIu64 " the command moved (first at offset %zu)", beyond, allowed, first);
	detail("buffer: %zu of %" PRIu64 " allowed bytes changed, %zu beyond", within, allowed, beyond);
	if (g_have_hr && g_hr.status == 0 && !(g_hr.flags & FLAG_RSPVALID) && moved > dlen && !(g_hr.flags & FLAG_DIOVER))
		bad("GOOD without DIOVER although the descriptor (%u) is shorter than the CDB's %" PRIu64 " bytes", dlen, moved);
	if (g_have_hr && g_hr.status == 0 && dlen > moved && !(g_hr.flags & FLAG_DIUNDER))
		detail("GOOD without DIUNDER for a descriptor longer than the transfer");
	judge_read_good(c, allowed);
}
static void c_desc_len_0(struct conn *c) { read_direct(c, 1, 0, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
static void c_desc_1g(struct conn *c) { read_direct(c, 1, 1u << 30, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
static void c_desc_4g(struct conn *c) { read_direct(c, 1, 0xffffffffu, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
static void c_desc_over_max(struct conn *c) { read_direct(c, 1, (16u << 20) + 4096, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
static void c_desc_over_cdb(struct conn *c) { read_direct(c, 1, 1u << 20, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
static void c_desc_under_cdb(struct conn *c) { read_direct(c, 8, BLK, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
static void c_bogus_rkey_read(struct conn *c) { read_direct(c, 8, 8 * BLK, c->dmr->rkey ^ 0x5a5a5a00u, (uintptr_t)c->dbuf, false); }
static void c_bogus_va_read(struct conn *c) { read_direct(c, 8, 8 * BLK, c->dmr->rkey, 0x10000ull, false); }
static void c_read_ok(struct conn *c)
{
	read_direct(c, 8, 8 * BLK, c->dmr->rkey, (uintptr_t)c->dbuf, true);
	if (!g_have_hr || g_hr.status) bad("a valid READ(10) was not answered GOOD");
}

static void write_direct(struct conn *c, uint16_t blocks, uint32_t dlen, uint32_t key, uint64_t va, bool must_answer)
{
	uint8_t cdb[16]; cdb_rw10(cdb, true, HOSTILE_LBA, blocks);
	uint64_t tag = g_tag++;
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_DIRECT << 4, 1, 0);
	direct(b + 48, va, key, dlen);
	send_iu(c, b, 64);
	finish_iu_case(c, tag, must_answer, opt.timeout_ms);
}
static void c_bogus_rkey_write(struct conn *c)
{
	write_direct(c, 8, 8 * BLK, c->dmr->rkey ^ 0x5a5a5a00u, (uintptr_t)c->dbuf, false);
	if (g_have_hr && g_hr.status == 0) bad("WRITE with a bogus rkey answered GOOD");
}
static void c_wdesc_len_0(struct conn *c) { write_direct(c, 1, 0, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
static void c_wdesc_1g(struct conn *c) { write_direct(c, 1, 1u << 30, c->dmr->rkey, (uintptr_t)c->dbuf, false); }

/* Indirect descriptor table at offset 48 (+add_cdb). */
static uint32_t indirect(struct conn *c, uint8_t *b, unsigned ndesc, unsigned table_desc_len,
			 uint32_t each, uint32_t total, unsigned iu_ndesc)
{
	uint8_t *t = b + 48;
	direct(t, (uintptr_t)c->sbuf, c->smr->lkey, table_desc_len); /* table_desc (external table va) */
	put32(t + 16, total);
	for (unsigned i = 0; i < iu_ndesc; i++)
		direct(t + 20 + 16 * i, (uintptr_t)c->dbuf + (uint64_t)i * each, c->dmr->rkey, each);
	(void)ndesc;
	return 48 + 20 + 16 * iu_ndesc;
}
static void ind_read(struct conn *c, uint8_t in_cnt, uint8_t out_cnt, uint8_t fmt, unsigned table_ndesc,
		     unsigned iu_ndesc, uint32_t each, uint32_t total, uint16_t blocks, uint32_t send_len)
{
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, blocks);
	uint64_t tag = g_tag++;
	memset(c->dbuf, 0xa5, c->dlen);
	uint8_t *b = cmd_iu(c, tag, cdb, fmt, out_cnt, in_cnt);
	uint32_t len = indirect(c, b, table_ndesc, table_ndesc * 16, each, total, iu_ndesc);
	send_iu(c, b, send_len ? send_len : len);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	size_t moved = (size_t)blocks * BLK, beyond = 0;
	size_t lim = (size_t)iu_ndesc * each; if (lim > c->dlen) lim = c->dlen;
	for (size_t i = moved; i < lim; i++) if (c->dbuf[i] != 0xa5) beyond++;
	if (beyond) bad("data-in wrote %zu byte(s) beyond the %zu the command moved", beyond, moved);
	judge_read_good(c, moved < lim ? moved : lim);
}
static void c_ind_count_gt_table(struct conn *c) { ind_read(c, 8, 0, DESC_INDIRECT, 1, 1, BLK, BLK, 1, 0); }
static void c_ind_table_gt_count(struct conn *c) { ind_read(c, 1, 0, DESC_INDIRECT, 4, 4, BLK, 4 * BLK, 4, 0); }
static void c_ind_table_len_0(struct conn *c) { ind_read(c, 1, 0, DESC_INDIRECT, 0, 1, BLK, BLK, 1, 0); }
static void c_ind_table_past_iu(struct conn *c) { ind_read(c, 255, 0, DESC_INDIRECT, 255, 2, BLK, 255 * BLK, 2, 0); }
static void c_ind_total_mismatch(struct conn *c) { ind_read(c, 2, 0, DESC_INDIRECT, 2, 2, BLK, 64 * BLK, 2, 0); }
static void c_ind_past_received(struct conn *c) { ind_read(c, 4, 0, DESC_INDIRECT, 4, 4, BLK, 4 * BLK, 4, 48 + 20 + 16); }
static void c_ind_desc_len_0(struct conn *c) { ind_read(c, 2, 0, DESC_INDIRECT, 2, 2, 0, 0, 1, 0); }

/* WRITE the pattern with one direct descriptor, then READ with ndesc
 * descriptors of one block each (counts in+out = ndesc, buf_fmt 0x22). */
static void many_descs(struct conn *c, unsigned ndesc, uint8_t out_cnt, uint8_t in_cnt)
{
	size_t n = (size_t)ndesc * BLK;
	for (size_t i = 0; i < n; i++) c->dbuf[i] = (uint8_t)(i * 7 + i / 512 + 13);
	uint8_t cdb[16]; cdb_rw10(cdb, true, HOSTILE_LBA, (uint16_t)ndesc);
	uint64_t wtag = g_tag++;
	uint8_t *b = cmd_iu(c, wtag, cdb, DESC_DIRECT << 4, 1, 0);
	direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, (uint32_t)n);
	send_iu(c, b, 64);
	wait_until(c, opt.timeout_ms, p_tag_or_gone, wtag);
	struct rsp *wr = find_rsp(c, wtag);
	if (!wr || wr->status) { tool_error("pattern WRITE of %zu bytes failed", n); outcome("tool_error"); return; }
	memset(c->dbuf, 0xa5, c->dlen);
	cdb_rw10(cdb, false, HOSTILE_LBA, (uint16_t)ndesc);
	uint64_t tag = g_tag++;
	/* data-in only when the count fits the data-in count; above 255 the
	 * table can only be announced by splitting it over both counts */
	b = cmd_iu(c, tag, cdb, (uint8_t)(out_cnt ? DESC_INDIRECT << 4 | DESC_INDIRECT : DESC_INDIRECT),
		   out_cnt, in_cnt);
	uint32_t len = indirect(c, b, ndesc, ndesc * 16, BLK, (uint32_t)n, ndesc);
	send_iu(c, b, len);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	size_t wrong = 0, first = 0;
	for (size_t i = 0; i < n; i++)
		if (c->dbuf[i] != (uint8_t)(i * 7 + i / 512 + 13)) { if (!wrong++) first = i; }
	detail("%u descriptors (IU %u bytes): %zu of %zu bytes not delivered/wrong", ndesc, len, wrong, n);
	if (g_have_hr && g_hr.status == 0 && !(g_hr.flags & (FLAG_DIOVER | FLAG_DIUNDER)) && wrong)
		bad("GOOD but %zu of %zu bytes never arrived (first at %zu): silent data loss", wrong, n, first);
}
/*
 * WRITE and READ 8 blocks through three descriptors that split the data
 * inside sectors (1000, 2000 and 1096 bytes), on the block-device LUN
 * (--block-lun): the target must store and return the bytes where they
 * belong, or refuse the command. A target that hands the block layer one
 * scatterlist entry per descriptor misplaces the data on iblock (GOOD
 * with wrong bytes); rd_mcp and fileio hide it.
 */
static const uint32_t odd_split[] = { 1000, 2000, 8 * BLK - 3000 };
static uint32_t odd_split_table(struct conn *c, uint8_t *b)
{
	uint8_t *t = b + 48;
	uint32_t off = 0;
	direct(t, (uintptr_t)c->sbuf, c->smr->lkey, 3 * 16);
	put32(t + 16, 8 * BLK);
	for (unsigned i = 0; i < 3; i++) {
		direct(t + 20 + 16 * i, (uintptr_t)c->dbuf + off, c->dmr->rkey, odd_split[i]);
		off += odd_split[i];
	}
	return 48 + 20 + 3 * 16;
}
static uint8_t odd_pattern(size_t i) { return (uint8_t)(i * 13 + i / 512 + 5); }
static void odd_split_case(struct conn *c, bool split_write)
{
	unsigned save = opt.lun;
	opt.lun = opt.block_lun;
	size_t n = 8 * BLK, wrong = 0, first = 0;
	for (size_t i = 0; i < n; i++) c->dbuf[i] = odd_pattern(i);
	uint8_t cdb[16]; cdb_rw10(cdb, true, HOSTILE_LBA, 8);
	uint64_t tag = g_tag++;
	uint8_t *b;
	uint32_t len = 64;
	if (split_write) {
		b = cmd_iu(c, tag, cdb, DESC_INDIRECT << 4, 3, 0);
		len = odd_split_table(c, b);
	} else {
		b = cmd_iu(c, tag, cdb, DESC_DIRECT << 4, 1, 0);
		direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, (uint32_t)n);
	}
	send_iu(c, b, len);
	finish_iu_case(c, tag, true, opt.timeout_ms);
	if (!g_have_hr || g_hr.status) {
		detail("WRITE (%s) refused: status %#x", split_write ? "split" : "one descriptor", g_have_hr ? g_hr.status : 0xff);
		if (!split_write) tool_error("pattern WRITE failed");
		opt.lun = save;
		return;
	}
	memset(c->dbuf, 0xa5, c->dlen);
	cdb_rw10(cdb, false, HOSTILE_LBA, 8);
	tag = g_tag++;
	if (split_write) {
		b = cmd_iu(c, tag, cdb, DESC_DIRECT, 0, 1);
		direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, (uint32_t)n);
		len = 64;
	} else {
		b = cmd_iu(c, tag, cdb, DESC_INDIRECT, 0, 3);
		len = odd_split_table(c, b);
	}
	send_iu(c, b, len);
	finish_iu_case(c, tag, true, opt.timeout_ms);
	opt.lun = save;
	if (!g_have_hr || g_hr.status) {
		detail("READ (%s) refused", split_write ? "one descriptor" : "split");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (c->dbuf[i] != odd_pattern(i)) { if (!wrong++) first = i; }
	detail("LUN %u: %zu of %zu bytes wrong after the round trip", opt.block_lun, wrong, n);
	if (wrong)
		bad("GOOD but %zu of %zu bytes wrong (first at %zu): descriptors split inside a sector corrupt the data",
		    wrong, n, first);
}
static void c_odd_split_write(struct conn *c) { odd_split_case(c, true); }
static void c_odd_split_read(struct conn *c) { odd_split_case(c, false); }
static void c_descs_256(struct conn *c) { many_descs(c, 256, 128, 128); }
static void c_descs_300(struct conn *c) { many_descs(c, 300, 150, 150); }
static void c_descs_255(struct conn *c) { many_descs(c, 255, 0, 255); }

static void c_add_cdb_past_iu(struct conn *c)
{
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 1);
	uint64_t tag = g_tag++;
	memset(c->dbuf, 0xa5, c->dlen);
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_DIRECT, 0, 1);
	b[31] = 0xfc; /* 252 bytes of additional CDB */
	direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, BLK);
	send_iu(c, b, 64);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	judge_read_good(c, BLK);
}
static void c_add_cdb_reserved_bits(struct conn *c)
{
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 1);
	uint64_t tag = g_tag++;
	memset(c->dbuf, 0xa5, c->dlen);
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_DIRECT, 0, 1);
	b[31] = 0x03; /* reserved low bits only */
	direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, BLK);
	send_iu(c, b, 64);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	judge_read_good(c, BLK);
}

static void imm_write(struct conn *c, uint32_t imm_len, uint32_t send_len, uint16_t blocks)
{
	uint8_t cdb[16]; cdb_rw10(cdb, true, HOSTILE_LBA, blocks);
	uint64_t tag = g_tag++;
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_IMM << 4, 0, 0);
	put32(b + 48, imm_len);
	for (uint32_t i = IMM_OFFSET; i < send_len && i < c->sslot_sz; i++) b[i] = (uint8_t)i;
	send_iu(c, b, send_len);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	if (g_have_hr && g_hr.status == 0 && imm_len != (uint32_t)blocks * BLK && !(g_hr.flags & (FLAG_DOOVER | FLAG_DOUNDER)))
		bad("GOOD without residual for immediate length %u vs CDB %u bytes", imm_len, blocks * BLK);
}
static void c_imm_ffffffff(struct conn *c) { imm_write(c, 0xffffffffu, IMM_OFFSET + BLK, 1); }
static void c_imm_past_recv(struct conn *c) { imm_write(c, 4096, IMM_OFFSET + BLK, 8); }
static void c_imm_past_iu(struct conn *c) { imm_write(c, 16384, IMM_OFFSET + 8192, 32); }
static void c_imm_len_0(struct conn *c) { imm_write(c, 0, IMM_OFFSET, 1); }
static void c_imm_ok(struct conn *c)
{
	imm_write(c, BLK, IMM_OFFSET + BLK, 1);
	if (!g_have_hr || g_hr.status) bad("a valid immediate-data WRITE was not answered GOOD");
}
static void c_buf_fmt_reserved(struct conn *c)
{
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 1);
	uint64_t tag = g_tag++;
	memset(c->dbuf, 0xa5, c->dlen);
	uint8_t *b = cmd_iu(c, tag, cdb, 0x0f, 0, 1);
	direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, BLK);
	send_iu(c, b, 64);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	judge_read_good(c, BLK);
}
static void c_imm_data_in(struct conn *c)
{
	/* data-in format IMM (3): only valid for data-out */
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 1);
	uint64_t tag = g_tag++;
	memset(c->dbuf, 0xa5, c->dlen);
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_IMM, 0, 1);
	put32(b + 48, BLK);
	send_iu(c, b, IMM_OFFSET + BLK);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	judge_read_good(c, BLK);
}
static void c_bidi(struct conn *c)
{
	uint8_t cdb[16]; cdb_rw10(cdb, false, HOSTILE_LBA, 1);
	uint64_t tag = g_tag++;
	memset(c->dbuf, 0xa5, c->dlen);
	uint8_t *b = cmd_iu(c, tag, cdb, DESC_DIRECT << 4 | DESC_DIRECT, 1, 1);
	direct(b + 48, (uintptr_t)c->dbuf, c->dmr->rkey, BLK);
	direct(b + 64, (uintptr_t)c->dbuf + BLK, c->dmr->rkey, BLK);
	send_iu(c, b, 80);
	finish_iu_case(c, tag, false, opt.timeout_ms);
	judge_read_good(c, 2 * BLK);
}
static void c_unknown_lun(struct conn *c)
{
	unsigned save = opt.lun; opt.lun = 200;
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	send_iu(c, cmd_iu(c, tag, cdb, 0, 0, 0), CMD_LEN);
	opt.lun = save;
	finish_iu_case(c, tag, true, opt.timeout_ms);
}
static void c_dup_tag(struct conn *c)
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
static void c_task_attr_bad(struct conn *c)
{
	uint8_t cdb[16]; cdb_tur(cdb);
	uint64_t tag = g_tag++;
	uint8_t *b = cmd_iu(c, tag, cdb, 0, 0, 0);
	b[29] = 0xff;
	send_iu(c, b, CMD_LEN);
	finish_iu_case(c, tag, true, opt.timeout_ms);
}

static void tm_case(struct conn *c, uint8_t func, uint64_t task_tag, unsigned lun)
{
	uint64_t tag = g_tag++;
	send_iu(c, tm_iu(c, tag, func, task_tag, lun), 48);
	finish_iu_case(c, tag, true, opt.timeout_ms);
}
static void c_tm_func_0(struct conn *c) { tm_case(c, 0, 0, 0); }
static void c_tm_func_invalid(struct conn *c) { tm_case(c, 0x77, 0, 0); }
static void c_tm_func_ff(struct conn *c) { tm_case(c, 0xff, 0, 0); }
static void c_tm_abort_unknown_tag(struct conn *c) { tm_case(c, 0x01, 0xdeadbeefcafeull, 0); }
static void c_tm_lun_reset_unknown_lun(struct conn *c) { tm_case(c, 0x08, 0, 200); }
static void c_tm_abort_unknown_lun(struct conn *c) { tm_case(c, 0x01, 0x1234, 16000); }
static void c_tm_clear_aca(struct conn *c) { tm_case(c, 0x40, 0, 0); }
static void c_tm_short(struct conn *c)
{
	uint64_t tag = g_tag++;
	send_iu(c, tm_iu(c, tag, 0x08, 0, 0), 20);
	finish_iu_case(c, 0, false, 1500);
}
static void c_tm_abort_self(struct conn *c)
{
	uint64_t tag = g_tag++;
	send_iu(c, tm_iu(c, tag, 0x01, tag, 0), 48);
	finish_iu_case(c, tag, true, opt.timeout_ms);
}

static void c_credit_overrun(struct conn *c)
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

static void c_logout_then_iu(struct conn *c)
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
static void c_disc_mid_read(struct conn *c) { disc_mid(c, false, 0); }
static void c_disc_mid_write(struct conn *c) { disc_mid(c, true, 0); }
static void c_qp_err_mid_read(struct conn *c) { disc_mid(c, false, 1); }
static void c_qp_err_mid_write(struct conn *c) { disc_mid(c, true, 1); }
static void c_dereg_mid_read(struct conn *c) { disc_mid(c, false, 2); }
static void c_exit_mid_write(struct conn *c)
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
static void c_many_logins(struct conn *c) { (void)c; many_logins(true, 32); }
static void c_many_relogins_single(struct conn *c) { (void)c; many_logins(false, 16); }

static const struct icase icases[] = {
	{ "read_ok", "control: valid READ(10) 8 blocks, direct descriptor: GOOD, 4096 bytes", c_read_ok },
	{ "imm_ok", "control: valid WRITE(10) 1 block with 512 bytes immediate data: GOOD", c_imm_ok },
	{ "iu_len_0", "zero-length SEND: drop (returning the credit) or disconnect", c_iu_len_0 },
	{ "iu_len_1", "1-byte IU (0x02): drop or disconnect; stale bytes never parsed", c_iu_len_1 },
	{ "iu_len_47", "READ(10) CMD cut to 47 bytes: drop or disconnect", c_iu_len_47 },
	{ "iu_stale_short", "receive buffers primed with READs, then 1-byte IUs: not executed", c_stale_short },
	{ "iu_over_negotiated", "TUR padded to max_it_iu_len+1024 bytes: drop/reject or disconnect", c_iu_over_negotiated },
	{ "iu_over_by_one", "TUR padded to max_it_iu_len+1 bytes: drop/reject or disconnect", c_iu_over_by_one },
	{ "op_unknown", "opcode 0x55: drop (credit returned) or disconnect", c_op_unknown },
	{ "op_ff", "opcode 0xff: drop or disconnect", c_op_ff },
	{ "op_login_req", "in-band SRP_LOGIN_REQ (0x00): drop or disconnect", c_op_login_req },
	{ "op_rsp", "target-to-initiator SRP_RSP (0xc1): drop or disconnect", c_op_rsp },
	{ "op_login_rsp", "target-to-initiator LOGIN_RSP (0xc0): drop or disconnect", c_op_login_rsp },
	{ "op_login_rej", "target-to-initiator LOGIN_REJ (0xc2): drop or disconnect", c_op_login_rej },
	{ "op_t_logout", "target-to-initiator T_LOGOUT (0x80): drop or disconnect", c_op_t_logout },
	{ "op_cred_req", "target-to-initiator CRED_REQ (0x81): drop or disconnect", c_op_cred_req },
	{ "op_aer_req", "target-to-initiator AER_REQ (0x82): drop or disconnect", c_op_aer_req },
	{ "op_cred_rsp", "unsolicited SRP_CRED_RSP (0x41, no credit): ignore", c_op_cred_rsp },
	{ "op_aer_rsp", "unsolicited SRP_AER_RSP (0x42, no credit): ignore", c_op_aer_rsp },
	{ "buf_fmt_reserved", "READ with data-in format 0xf (reserved): CHECK CONDITION or disconnect", c_buf_fmt_reserved },
	{ "imm_data_in", "data-in descriptor format IMM (3): CHECK CONDITION or disconnect", c_imm_data_in },
	{ "bidi", "bidirectional READ(10) with data-out and data-in direct descriptors: CHECK CONDITION", c_bidi },
	{ "ind_count_gt_table", "indirect: counts say 8, table holds 1: CHECK CONDITION", c_ind_count_gt_table },
	{ "ind_table_gt_count", "indirect: table holds 4, counts say 1: CHECK CONDITION", c_ind_table_gt_count },
	{ "ind_table_len_0", "indirect: table length 0: CHECK CONDITION (never unanswered)", c_ind_table_len_0 },
	{ "ind_table_past_iu", "indirect: 255 descriptors announced, 2 in the IU (external table): CHECK CONDITION or fetch", c_ind_table_past_iu },
	{ "ind_total_mismatch", "indirect: total length 32 KiB, descriptors 2 x 512: CHECK CONDITION or transfer what the CDB says", c_ind_total_mismatch },
	{ "ind_past_received", "indirect: 4 descriptors announced, IU truncated after 1: CHECK CONDITION", c_ind_past_received },
	{ "ind_desc_len_0", "indirect: two descriptors of length 0: CHECK CONDITION", c_ind_desc_len_0 },
	{ "odd_split_write", "WRITE 8 blocks through descriptors of 1000/2000/1096 bytes to the block LUN, READ back: same bytes (or refused)", c_odd_split_write },
	{ "odd_split_read", "WRITE 8 blocks to the block LUN, READ back through descriptors of 1000/2000/1096 bytes: same bytes (or refused)", c_odd_split_read },
	{ "descs_255", "255 one-block descriptors, data-in only (READ 255 blocks): GOOD with every byte (or CHECK CONDITION)", c_descs_255 },
	{ "descs_256", "256 descriptors (counts 128+128, fmt 0x22): every byte or CHECK CONDITION", c_descs_256 },
	{ "descs_300", "300 descriptors (counts 150+150): every byte or CHECK CONDITION", c_descs_300 },
	{ "add_cdb_past_iu", "additional CDB length 252 in a 64-byte IU: CHECK CONDITION", c_add_cdb_past_iu },
	{ "add_cdb_reserved_bits", "additional CDB length 3 (reserved low bits): ignore bits or CHECK CONDITION", c_add_cdb_reserved_bits },
	{ "imm_len_ffffffff", "immediate data length 0xffffffff: CHECK CONDITION", c_imm_ffffffff },
	{ "imm_past_recv", "immediate data length 4096, 512 bytes received: CHECK CONDITION", c_imm_past_recv },
	{ "imm_past_iu", "immediate data length 16384 (> max_it_iu_len): CHECK CONDITION", c_imm_past_iu },
	{ "imm_len_0", "immediate data length 0 for a 1-block WRITE: CHECK CONDITION or residual", c_imm_len_0 },
	{ "desc_len_0", "READ(10) 1 block, direct descriptor length 0: CHECK CONDITION or residual", c_desc_len_0 },
	{ "wdesc_len_0", "WRITE(10) 1 block, direct descriptor length 0: CHECK CONDITION or residual", c_wdesc_len_0 },
	{ "desc_over_max", "READ(10) 1 block, direct descriptor 16 MiB + 4 KiB: CHECK CONDITION or 512 bytes", c_desc_over_max },
	{ "desc_1g", "READ(10) 1 block, direct descriptor 1 GiB: no allocation, CHECK CONDITION or 512 bytes", c_desc_1g },
	{ "wdesc_1g", "WRITE(10) 1 block, direct descriptor 1 GiB: CHECK CONDITION", c_wdesc_1g },
	{ "desc_4g", "READ(10) 1 block, direct descriptor 0xffffffff: CHECK CONDITION", c_desc_4g },
	{ "desc_over_cdb", "READ(10) 1 block with a 1 MiB descriptor: exactly 512 bytes written", c_desc_over_cdb },
	{ "desc_under_cdb", "READ(10) 8 blocks with a 512-byte descriptor: DIOVER/CHECK, never GOOD", c_desc_under_cdb },
	{ "bogus_rkey_read", "READ with a wrong rkey: never GOOD; disconnect or CHECK CONDITION", c_bogus_rkey_read },
	{ "bogus_rkey_write", "WRITE with a wrong rkey: never GOOD; disconnect or CHECK CONDITION", c_bogus_rkey_write },
	{ "bogus_va_read", "READ to an address outside the MR: never GOOD", c_bogus_va_read },
	{ "unknown_lun", "TUR to LUN 200: CHECK CONDITION (LOGICAL UNIT NOT SUPPORTED)", c_unknown_lun },
	{ "task_attr_bad", "TUR with task attribute 0xff: answered", c_task_attr_bad },
	{ "dup_tag", "two READs with the same tag outstanding: both answered or rejected, no hang", c_dup_tag },
	{ "tm_func_0", "TSK_MGMT function 0: FUNCTION NOT SUPPORTED (rsp_code 4)", c_tm_func_0 },
	{ "tm_func_invalid", "TSK_MGMT function 0x77: FUNCTION NOT SUPPORTED", c_tm_func_invalid },
	{ "tm_func_ff", "TSK_MGMT function 0xff: FUNCTION NOT SUPPORTED", c_tm_func_ff },
	{ "tm_abort_unknown_tag", "ABORT TASK of a tag never sent: answered (complete)", c_tm_abort_unknown_tag },
	{ "tm_abort_self", "ABORT TASK naming its own tag: answered", c_tm_abort_self },
	{ "tm_lun_reset_unknown_lun", "LUN RESET of LUN 200: answered (incorrect LUN)", c_tm_lun_reset_unknown_lun },
	{ "tm_abort_unknown_lun", "ABORT TASK on LUN 16000: answered", c_tm_abort_unknown_lun },
	{ "tm_clear_aca", "CLEAR ACA: answered", c_tm_clear_aca },
	{ "tm_short", "TSK_MGMT IU of 20 bytes: drop or disconnect", c_tm_short },
	{ "credit_overrun", "req_lim + 32 TURs at once: all answered, or extra dropped/disconnect; never stuck", c_credit_overrun },
	{ "logout_then_iu", "I_LOGOUT, then a TUR: channel closed (or IU ignored), no hang", c_logout_then_iu },
	{ "disc_mid_read", "48 x 64 KiB READs then rdma_disconnect: clean release", c_disc_mid_read },
	{ "disc_mid_write", "48 x 64 KiB WRITEs then rdma_disconnect: clean release", c_disc_mid_write },
	{ "qp_err_mid_read", "48 READs then initiator QP to ERROR (no disconnect): target notices, releases", c_qp_err_mid_read },
	{ "qp_err_mid_write", "48 WRITEs then initiator QP to ERROR: target notices, releases", c_qp_err_mid_write },
	{ "dereg_mid_read", "48 READs then the data MR deregistered: RDMA errors handled", c_dereg_mid_read },
	{ "exit_mid_write", "48 WRITEs then the process exits without disconnect", c_exit_mid_write },
	{ "many_logins", "32 multichannel logins at once, no logout: each served or rejected; released at exit", c_many_logins },
	{ "many_relogins_single", "16 single-channel logins in a row, no logout: older channels terminated", c_many_relogins_single },
};

/* ---- fuzz ------------------------------------------------------------ */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Build fuzz IU number k into b (from seed and k only); returns length. */
static uint32_t fuzz_iu(uint64_t seed, uint64_t k, uint8_t *b, uint32_t cap, uint64_t va, uint32_t rkey, uint64_t tag)
{
	uint64_t s = seed ^ (k * 0xd1342543de82ef95ull);
	uint32_t len = 64;
	uint8_t cdb[16];
	memset(b, 0, cap);
	unsigned t = (unsigned)(splitmix(&s) % 8);
	switch (t) {
	case 0: cdb_tur(cdb); b[0] = SRP_CMD; memcpy(b + 32, cdb, 16); len = 48; break;
	case 1: cdb_rw10(cdb, false, HOSTILE_LBA + (uint32_t)(splitmix(&s) % 4096), 8);
		b[0] = SRP_CMD; b[5] = DESC_DIRECT; b[7] = 1; memcpy(b + 32, cdb, 16);
		direct(b + 48, va, rkey, 4096); break;
	case 2: cdb_rw10(cdb, true, HOSTILE_LBA + (uint32_t)(splitmix(&s) % 4096), 8);
		b[0] = SRP_CMD; b[5] = DESC_DIRECT << 4; b[6] = 1; memcpy(b + 32, cdb, 16);
		direct(b + 48, va, rkey, 4096); break;
	case 3: cdb_rw10(cdb, true, HOSTILE_LBA + (uint32_t)(splitmix(&s) % 4096), 1);
		b[0] = SRP_CMD; b[5] = DESC_IMM << 4; memcpy(b + 32, cdb, 16);
		put32(b + 48, BLK); len = IMM_OFFSET + BLK; break;
	case 4: cdb_rw10(cdb, false, HOSTILE_LBA + (uint32_t)(splitmix(&s) % 4096), 4);
		b[0] = SRP_CMD; b[5] = DESC_INDIRECT; b[7] = 4; memcpy(b + 32, cdb, 16);
		direct(b + 48, 0, 0, 64); put32(b + 64, 4 * BLK);
		for (int i = 0; i < 4; i++) direct(b + 68 + 16 * i, va + (uint64_t)i * BLK, rkey, BLK);
		len = 68 + 64; break;
	case 5: b[0] = SRP_TSK_MGMT; b[30] = (uint8_t)(1u << (splitmix(&s) % 7));
		put64(b + 32, splitmix(&s) % 64); len = 48; break;
	case 6: memset(cdb, 0, 16); cdb[0] = 0x12; cdb[4] = 96;
		b[0] = SRP_CMD; b[5] = DESC_DIRECT; b[7] = 1; memcpy(b + 32, cdb, 16);
		direct(b + 48, va, rkey, 96); break;
	default: b[0] = (uint8_t)splitmix(&s); len = 16 + (uint32_t)(splitmix(&s) % 100); break;
	}
	put64(b + 8, tag);
	unsigned nm = 1 + (unsigned)(splitmix(&s) % 4);
	for (unsigned m = 0; m < nm; m++) {
		uint64_t r = splitmix(&s);
		uint32_t off = (uint32_t)((r >> 8) % (len + 16 < cap ? len + 16 : cap));
		switch (r % 8) {
		case 0: b[off] ^= (uint8_t)(1u << ((r >> 40) % 8));
			break;
		case 1: b[off] = (uint8_t)(r >> 32); break;
		case 2: if (off + 4 <= cap)
				put32(b + off, (uint32_t)(r >> 32) & ((r >> 20) & 1 ? 0xffffffffu : 0xffffu));
			break;
		case 3: { static const uint32_t edge[] = { 0, 1, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000u, 0xffffffffu, 8260, 8277 };
			if ((off & ~3u) + 4 <= cap)
				put32(b + (off & ~3u), edge[(r >> 32) % 11]);
			break; }
		case 4: len = (uint32_t)((r >> 32) % (cap + 1));
			if (len > 9000)
				len = (uint32_t)((r >> 16) % 200);
			break;
		case 5: b[5] = (uint8_t)(r >> 32); b[6] = (uint8_t)(r >> 40); b[7] = (uint8_t)(r >> 48); break;
		case 6: b[31] = (uint8_t)(r >> 32); break;
		default: if (len < cap)
				len += (uint32_t)((r >> 32) % 64);
			if (len > cap)
				len = cap;
			break;
		}
	}
	put64(b + 8, tag);	/* keep the tag ours so responses are matched */
	return len;
}

static int run_fuzz(uint64_t seed, int seconds)
{
	long end = now_ms() + seconds * 1000L, last = now_ms();
	uint64_t k = 0, ius = 0, rsps = 0, unanswered = 0, reconnects = 0, login_fail = 0, consec_fail = 0;
	struct conn *c = NULL;
	struct { uint64_t tag, k; long t; } out[32]; unsigned nout = 0;
	while (now_ms() < end) {
		if (!c || c->state != 1 || c->qp_error) {
			if (c) { if (c->state == 1) rdma_disconnect(c->id); conn_free(c); c = NULL; reconnects++; nout = 0; }
			struct conn_opts o = default_login();
			o.rslots = 64; o.sslots = 64;
			c = conn_open(&o);
			if (!c || c->state != 1) {
				login_fail++; consec_fail++;
				if (c) { conn_free(c); c = NULL; }
				if (consec_fail >= 5) {
					printf("fuzz seed=%" PRIu64 " aborted: 5 logins in a row failed after %" PRIu64 " IUs (target dead?)\n", seed, ius);
					return 1;
				}
				sleep(1);
				continue;
			}
			consec_fail = 0;
		}
		while (nout < 16 && c->state == 1) {
			uint8_t *b = slot(c);
			uint64_t tag = 0xf0000000ull + k;
			uint32_t len = fuzz_iu(seed, k, b, (uint32_t)c->sslot_sz, (uintptr_t)c->dbuf, c->dmr->rkey, tag);
			if (opt.verbose) fprintf(stderr, "iu %" PRIu64 " len %u op 0x%02x\n", k, len, b[0]);
			send_iu(c, b, len);
			out[nout].tag = tag; out[nout].k = k; out[nout].t = now_ms(); nout++;
			k++; ius++;
		}
		unsigned before = c->nrsp;
		wait_until(c, 200, p_nrsp, before + 1);
		for (unsigned i = before; i < c->nrsp; i++) {
			rsps++;
			for (unsigned j = 0; j < nout; j++)
				if (out[j].tag == c->rsps[i].tag) { out[j] = out[--nout]; break; }
		}
		if (c->nrsp > MAX_RSPS - 64) c->nrsp = 0;
		for (unsigned j = 0; j < nout;) {
			if (now_ms() - out[j].t > opt.timeout_ms) {
				unanswered++;
				if (opt.verbose) fprintf(stderr, "iu %" PRIu64 " unanswered\n", out[j].k);
				out[j] = out[--nout];
			} else j++;
		}
		if (now_ms() - last > 10000) {
			last = now_ms();
			printf("fuzz seed=%" PRIu64 " progress ius=%" PRIu64 " rsps=%" PRIu64 " unanswered=%" PRIu64 " reconnects=%" PRIu64 "\n",
			       seed, ius, rsps, unanswered, reconnects);
			fflush(stdout);
		}
	}
	if (c) { if (c->state == 1) rdma_disconnect(c->id); conn_free(c); }
	printf("fuzz seed=%" PRIu64 " seconds=%d ius=%" PRIu64 " rsps=%" PRIu64 " unanswered=%" PRIu64 " reconnects=%" PRIu64 " login_failures=%" PRIu64 "\n",
	       seed, seconds, ius, rsps, unanswered, reconnects, login_fail);
	return 0;
}

/* ---- main ------------------------------------------------------------ */
static int parse_hex16(const char *s, uint8_t out[16])
{
	if (!strncmp(s, "0x", 2)) s += 2;
	if (strlen(s) != 32) return -1;
	for (int i = 0; i < 16; i++) { unsigned v; if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1; out[i] = (uint8_t)v; }
	return 0;
}
static void usage(void)
{
	fprintf(stderr, "usage: srp_hostile --list\n"
		"       srp_hostile --case NAME --addr IP [--port P] --ini HEX32 --tgt HEX32 [--timeout MS] [--lun N] [--block-lun N] [-v]\n"
		"       srp_hostile --fuzz SEED --seconds N --addr IP --ini HEX32 --tgt HEX32\n"
		"       srp_hostile --fuzz SEED --show K\n");
}

int main(int argc, char **argv)
{
	const char *cname = NULL; bool list = false, have_ini = false, have_tgt = false, fuzz = false, have_block_lun = false;
	uint64_t seed = 0; int seconds = 60; long long show = -1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED() do { if (!v) { usage(); return 2; } i++; } while (0)
		if (!strcmp(a, "--list")) list = true;
		else if (!strcmp(a, "-v")) opt.verbose = true;
		else if (!strcmp(a, "--case")) { NEED(); cname = v; }
		else if (!strcmp(a, "--addr")) { NEED(); opt.addr = v; }
		else if (!strcmp(a, "--port")) { NEED(); opt.port = v; }
		else if (!strcmp(a, "--timeout")) { NEED(); opt.timeout_ms = atoi(v); }
		else if (!strcmp(a, "--lun")) { NEED(); opt.lun = (unsigned)atoi(v); }
		else if (!strcmp(a, "--block-lun")) { NEED(); opt.block_lun = (unsigned)atoi(v); have_block_lun = true; }
		else if (!strcmp(a, "--ini")) { NEED(); if (parse_hex16(v, opt.ini)) { usage(); return 2; } have_ini = true; }
		else if (!strcmp(a, "--tgt")) { NEED(); if (parse_hex16(v, opt.tgt)) { usage(); return 2; } have_tgt = true; }
		else if (!strcmp(a, "--fuzz")) { NEED(); fuzz = true; seed = strtoull(v, NULL, 0); }
		else if (!strcmp(a, "--seconds")) { NEED(); seconds = atoi(v); }
		else if (!strcmp(a, "--show")) { NEED(); show = atoll(v); }
		else { usage(); return 2; }
	}
	if (list) {
		for (size_t i = 0; i < sizeof(lcases) / sizeof(lcases[0]); i++) printf("%-26s %s\n", lcases[i].name, lcases[i].desc);
		for (size_t i = 0; i < sizeof(icases) / sizeof(icases[0]); i++) printf("%-26s %s\n", icases[i].name, icases[i].desc);
		return 0;
	}
	if (fuzz && show >= 0) {
		uint8_t b[16384]; uint32_t len = fuzz_iu(seed, (uint64_t)show, b, sizeof(b), 0x1000, 0x1234, 0xf0000000ull + (uint64_t)show);
		printf("fuzz seed=%" PRIu64 " iu=%lld len=%u (va 0x1000 rkey 0x1234 stand for the MR)\n", seed, show, len);
		for (uint32_t i = 0; i < len && i < 256; i++) printf("%02x%s", b[i], (i % 16 == 15) ? "\n" : " ");
		printf("\n");
		return 0;
	}
	if ((!cname && !fuzz) || !opt.addr || !have_ini || !have_tgt) { usage(); return 2; }
	if (!have_block_lun) opt.block_lun = opt.lun;
	if (fuzz) return run_fuzz(seed, seconds);

	for (size_t i = 0; i < sizeof(lcases) / sizeof(lcases[0]); i++)
		if (!strcmp(cname, lcases[i].name)) {
			run_login_case(&lcases[i]);
			goto report;
		}
	for (size_t i = 0; i < sizeof(icases) / sizeof(icases[0]); i++)
		if (!strcmp(cname, icases[i].name)) {
			struct conn *c = NULL;
			if (icases[i].fn != c_many_logins && icases[i].fn != c_many_relogins_single) {
				c = login_or_error();
				if (!c) goto report;
			}
			icases[i].fn(c);
			if (c) {
				if (c->state == 1) { rdma_disconnect(c->id); wait_until(c, 2000, p_gone, 0); }
				detail("sent=%u responses=%u unsolicited=%u credits_end=%" PRId64 "/%u", c->sent, c->nrsp, c->unsolicited, c->credits, c->req_lim0);
				conn_free(c);
			}
			goto report;
		}
	fprintf(stderr, "unknown case '%s' (--list)\n", cname);
	return 2;
report:
	for (char *q = g_detail; *q; q++) if (*q == '"') *q = '\'';
	printf("case=%s outcome=%s verdict=%s detail=\"%s\"\n", cname, g_outcome, g_verdict, g_detail);
	return !strcmp(g_verdict, "ok") ? 0 : !strcmp(g_verdict, "bad") ? 1 : 3;
}
