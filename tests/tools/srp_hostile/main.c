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
 *
 * The program is every *.c of this folder; hostile.h says which does what.
 */

#include "hostile.h"

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
		for (size_t i = 0; i < n_lcases; i++) printf("%-26s %s\n", lcases[i].name, lcases[i].desc);
		for (size_t i = 0; i < n_icases; i++) printf("%-26s %s\n", icases[i].name, icases[i].desc);
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

	for (size_t i = 0; i < n_lcases; i++)
		if (!strcmp(cname, lcases[i].name)) {
			run_login_case(&lcases[i]);
			goto report;
		}
	for (size_t i = 0; i < n_icases; i++)
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
