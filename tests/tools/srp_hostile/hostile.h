/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * srp_hostile (main.c says what it does and how to run it): what its files
 * share. The files, by job:
 *   result.c         the options and the result line (outcome, verdict, detail)
 *   conn.c           one RDMA/CM connection, its SRP login and its responses
 *   iu.c             building and sending IUs, the TUR probe, finish_iu_case()
 *   login_cases.c    malformed logins (lcases[])
 *   iu_cases.c       IU length and opcode; LUN, task attribute, duplicate tag
 *   desc_cases.c     data descriptors (and the additional CDB length that
 *                    places them), immediate data
 *   tm_cases.c       task management
 *   channel_cases.c  credits, logout, teardown mid-transfer, many logins
 *   cases.c          the IU case table (icases[]), in --list order
 *   fuzz.c           --fuzz
 *   main.c           the command line
 * Built as one program: gcc -O2 -Wall -Wextra -Werror -o srp_hostile *.c
 * -lrdmacm -libverbs (tests/vm/harness/common.sh builds it into the guest payload).
 */
#ifndef SRP_HOSTILE_H
#define SRP_HOSTILE_H

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

static inline void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static inline void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static inline void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static inline uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }
static inline uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static inline uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

/* ---- options and result (result.c) ---------------------------------- */
struct hostile_opts {
	const char *addr, *port;
	uint8_t ini[16], tgt[16];
	int timeout_ms;
	unsigned lun;
	unsigned block_lun; /* a LUN on a block device (iblock); default: lun */
	bool verbose;
};
extern struct hostile_opts opt;

extern char g_outcome[128], g_detail[1024], g_verdict[16];
void outcome(const char *fmt, ...);
void detail(const char *fmt, ...);
void bad(const char *fmt, ...);
void tool_error(const char *fmt, ...);
void vlog(const char *fmt, ...);
long now_ms(void);

/* ---- connection (conn.c) -------------------------------------------- */
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

struct conn_opts default_login(void);
const char *cm_ev(int e);
void cm_poll(struct conn *c);
/* wait up to ms for progress; returns when pred(c, arg) true or timeout */
typedef bool (*pred_fn)(struct conn *, uint64_t);
bool wait_until(struct conn *c, int ms, pred_fn pred, uint64_t arg);
struct rsp *find_rsp(struct conn *c, uint64_t tag);
bool p_tag_or_gone(struct conn *c, uint64_t tag);
bool p_gone(struct conn *c, uint64_t a);
bool p_nrsp(struct conn *c, uint64_t n);
void conn_free(struct conn *c);
struct conn *conn_start(const struct conn_opts *o);
void conn_finish(struct conn *c, int ms);
struct conn *conn_open(const struct conn_opts *o);
const char *login_str(struct conn *c, char *buf, size_t n);
void login_detail(struct conn *c);

/* ---- IU sending (iu.c) ---------------------------------------------- */
extern uint64_t g_tag;
uint8_t *slot(struct conn *c);
int send_iu(struct conn *c, uint8_t *buf, uint32_t len);
uint8_t *cmd_iu(struct conn *c, uint64_t tag, const uint8_t cdb[16], uint8_t buf_fmt,
	       uint8_t out_cnt, uint8_t in_cnt);
void direct(uint8_t *p, uint64_t va, uint32_t key, uint32_t len);
void cdb_rw10(uint8_t cdb[16], bool write, uint32_t lba, uint16_t blocks);
void cdb_tur(uint8_t cdb[16]);
uint8_t *tm_iu(struct conn *c, uint64_t tag, uint8_t func, uint64_t task_tag, unsigned lun);
const char *rsp_str(const struct rsp *r, char *buf, size_t n);
void rsp_detail(const char *what, const struct rsp *r);
/* send a TEST UNIT READY and wait; 1 answered, 0 no answer, -1 gone */
int probe(struct conn *c, struct rsp *out);
struct conn *login_or_error(void);
/* the hostile IU's response, as finish_iu_case() found it */
extern struct rsp g_hr;
extern bool g_have_hr;
void finish_iu_case(struct conn *c, uint64_t tag, bool must_answer, int wait_ms);

/* ---- cases ----------------------------------------------------------- */
struct lcase { const char *name; const char *desc; void (*mut)(struct conn_opts *); bool may_accept; };
extern const struct lcase lcases[];
extern const size_t n_lcases;
void run_login_case(const struct lcase *lc);

typedef void case_fn(struct conn *c);
struct icase { const char *name; const char *desc; case_fn *fn; };
extern const struct icase icases[];
extern const size_t n_icases;

#define HOSTILE_LBA 65536u /* 32 MiB into LUN 0: away from the scenario's dd area */

/* iu_cases.c */
case_fn c_iu_len_0, c_iu_len_1, c_iu_len_47, c_stale_short,
	c_iu_over_negotiated, c_iu_over_by_one, c_op_unknown, c_op_login_req,
	c_op_rsp, c_op_login_rsp, c_op_login_rej, c_op_t_logout, c_op_cred_req,
	c_op_aer_req, c_op_cred_rsp, c_op_aer_rsp, c_op_ff, c_unknown_lun,
	c_dup_tag, c_task_attr_bad;
/* desc_cases.c */
case_fn c_desc_len_0, c_desc_1g, c_desc_4g, c_desc_over_max, c_desc_over_cdb,
	c_desc_under_cdb, c_bogus_rkey_read, c_bogus_va_read, c_read_ok,
	c_bogus_rkey_write, c_wdesc_len_0, c_wdesc_1g, c_ind_count_gt_table,
	c_ind_table_gt_count, c_ind_table_len_0, c_ind_table_past_iu,
	c_ind_total_mismatch, c_ind_past_received, c_ind_desc_len_0, c_odd_split_write,
	c_odd_split_read, c_descs_256, c_descs_300, c_descs_255,
	c_add_cdb_past_iu, c_add_cdb_reserved_bits, c_imm_ffffffff,
	c_imm_past_recv, c_imm_past_iu, c_imm_len_0, c_imm_ok, c_buf_fmt_reserved,
	c_imm_data_in, c_bidi;
/* tm_cases.c */
case_fn c_tm_func_0, c_tm_func_invalid, c_tm_func_ff, c_tm_abort_unknown_tag,
	c_tm_lun_reset_unknown_lun, c_tm_abort_unknown_lun, c_tm_clear_aca, c_tm_short,
	c_tm_abort_self;
/* channel_cases.c */
case_fn c_credit_overrun, c_logout_then_iu, c_disc_mid_read, c_disc_mid_write,
	c_qp_err_mid_read, c_qp_err_mid_write, c_dereg_mid_read, c_exit_mid_write,
	c_many_logins, c_many_relogins_single;
/* fuzz.c */
/* Build fuzz IU number k into b (from seed and k only); returns length. */
uint32_t fuzz_iu(uint64_t seed, uint64_t k, uint8_t *b, uint32_t cap,
		 uint64_t va, uint32_t rkey, uint64_t tag);
int run_fuzz(uint64_t seed, int seconds);

#endif
