// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: data-buffer descriptors (direct, indirect tables, formats,
 * rkeys and addresses, the additional CDB length that places them) and
 * immediate data. */

#include "hostile.h"

/* ---- cases: data descriptors and immediate data ----------------- */
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
void c_desc_len_0(struct conn *c) { read_direct(c, 1, 0, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
void c_desc_1g(struct conn *c) { read_direct(c, 1, 1u << 30, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
void c_desc_4g(struct conn *c) { read_direct(c, 1, 0xffffffffu, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
void c_desc_over_max(struct conn *c) { read_direct(c, 1, (16u << 20) + 4096, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
void c_desc_over_cdb(struct conn *c) { read_direct(c, 1, 1u << 20, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
void c_desc_under_cdb(struct conn *c) { read_direct(c, 8, BLK, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
void c_bogus_rkey_read(struct conn *c) { read_direct(c, 8, 8 * BLK, c->dmr->rkey ^ 0x5a5a5a00u, (uintptr_t)c->dbuf, false); }
void c_bogus_va_read(struct conn *c) { read_direct(c, 8, 8 * BLK, c->dmr->rkey, 0x10000ull, false); }
void c_read_ok(struct conn *c)
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
void c_bogus_rkey_write(struct conn *c)
{
	write_direct(c, 8, 8 * BLK, c->dmr->rkey ^ 0x5a5a5a00u, (uintptr_t)c->dbuf, false);
	if (g_have_hr && g_hr.status == 0) bad("WRITE with a bogus rkey answered GOOD");
}
void c_wdesc_len_0(struct conn *c) { write_direct(c, 1, 0, c->dmr->rkey, (uintptr_t)c->dbuf, false); }
void c_wdesc_1g(struct conn *c) { write_direct(c, 1, 1u << 30, c->dmr->rkey, (uintptr_t)c->dbuf, false); }

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
void c_ind_count_gt_table(struct conn *c) { ind_read(c, 8, 0, DESC_INDIRECT, 1, 1, BLK, BLK, 1, 0); }
void c_ind_table_gt_count(struct conn *c) { ind_read(c, 1, 0, DESC_INDIRECT, 4, 4, BLK, 4 * BLK, 4, 0); }
void c_ind_table_len_0(struct conn *c) { ind_read(c, 1, 0, DESC_INDIRECT, 0, 1, BLK, BLK, 1, 0); }
void c_ind_table_past_iu(struct conn *c) { ind_read(c, 255, 0, DESC_INDIRECT, 255, 2, BLK, 255 * BLK, 2, 0); }
void c_ind_total_mismatch(struct conn *c) { ind_read(c, 2, 0, DESC_INDIRECT, 2, 2, BLK, 64 * BLK, 2, 0); }
void c_ind_past_received(struct conn *c) { ind_read(c, 4, 0, DESC_INDIRECT, 4, 4, BLK, 4 * BLK, 4, 48 + 20 + 16); }
void c_ind_desc_len_0(struct conn *c) { ind_read(c, 2, 0, DESC_INDIRECT, 2, 2, 0, 0, 1, 0); }

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
void c_odd_split_write(struct conn *c) { odd_split_case(c, true); }
void c_odd_split_read(struct conn *c) { odd_split_case(c, false); }
void c_descs_256(struct conn *c) { many_descs(c, 256, 128, 128); }
void c_descs_300(struct conn *c) { many_descs(c, 300, 150, 150); }
void c_descs_255(struct conn *c) { many_descs(c, 255, 0, 255); }

void c_add_cdb_past_iu(struct conn *c)
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
void c_add_cdb_reserved_bits(struct conn *c)
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
void c_imm_ffffffff(struct conn *c) { imm_write(c, 0xffffffffu, IMM_OFFSET + BLK, 1); }
void c_imm_past_recv(struct conn *c) { imm_write(c, 4096, IMM_OFFSET + BLK, 8); }
void c_imm_past_iu(struct conn *c) { imm_write(c, 16384, IMM_OFFSET + 8192, 32); }
void c_imm_len_0(struct conn *c) { imm_write(c, 0, IMM_OFFSET, 1); }
void c_imm_ok(struct conn *c)
{
	imm_write(c, BLK, IMM_OFFSET + BLK, 1);
	if (!g_have_hr || g_hr.status) bad("a valid immediate-data WRITE was not answered GOOD");
}
void c_buf_fmt_reserved(struct conn *c)
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
void c_imm_data_in(struct conn *c)
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
void c_bidi(struct conn *c)
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
