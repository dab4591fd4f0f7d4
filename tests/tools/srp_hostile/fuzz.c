// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: --fuzz, IUs mutated from a seed (reproducible one by one). */

#include "hostile.h"

/* ---- fuzz ------------------------------------------------------------ */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Build fuzz IU number k into b (from seed and k only); returns length. */
uint32_t fuzz_iu(uint64_t seed, uint64_t k, uint8_t *b, uint32_t cap, uint64_t va, uint32_t rkey, uint64_t tag)
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

int run_fuzz(uint64_t seed, int seconds)
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
