// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dm_mad_probe: sends one InfiniBand device-management MAD (class 0x06) from
 * a local RDMA port to the GSI QP of a target port and prints the response
 * MAD as hex, 16 bytes per line. Used in the guest to compare what the
 * in-tree ib_srpt and the port answer, byte for byte; it works over
 * soft-RoCE (rxe), where srptools' ibsrpdm refuses Ethernet link layers.
 *
 *   dm_mad_probe CA PORT DGID METHOD ATTR_ID ATTR_MOD
 *     CA, PORT   local device and port (e.g. rxe0 1)
 *     DGID       target GID, 32 hex digits (routes over the GRH; LID 0)
 *     METHOD     1 Get, 2 Set, or any other value to probe the error path
 *     ATTR_ID    0x0001 ClassPortInfo, 0x0010 IOUnitInfo,
 *                0x0011 IOControllerProfile, 0x0012 ServiceEntries, ...
 *     ATTR_MOD   attribute modifier (slot, or slot<<16|hi<<8|lo)
 *
 * The transaction ID is printed as zeros: the kernel rewrites its high half
 * per agent, so it would differ between two otherwise identical runs.
 * Exit status: 0 with a response, 2 on usage errors, 1 on failure/timeout.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

enum {
	MAD_SIZE = 256,
	DM_CLASS = 0x06,
	DM_CLASS_VERSION = 1,
	QP1_QKEY = 0x80010000,
	TIMEOUT_MS = 2000,
	RETRIES = 3,
};

static int parse_gid(const char *text, uint8_t gid[16])
{
	if (strlen(text) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned int byte;
		if (sscanf(text + 2 * i, "%2x", &byte) != 1)
			return -1;
		gid[i] = (uint8_t)byte;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr,
			"usage: %s CA PORT DGID METHOD ATTR_ID ATTR_MOD\n",
			argv[0]);
		return 2;
	}
	const char *ca = argv[1];
	int port = atoi(argv[2]);
	uint8_t dgid[16];
	if (parse_gid(argv[3], dgid)) {
		fprintf(stderr, "bad GID '%s'\n", argv[3]);
		return 2;
	}
	unsigned long method = strtoul(argv[4], NULL, 0);
	unsigned long attr_id = strtoul(argv[5], NULL, 0);
	unsigned long attr_mod = strtoul(argv[6], NULL, 0);

	if (umad_init() < 0) {
		fprintf(stderr, "umad_init failed\n");
		return 1;
	}
	int fd = umad_open_port(ca, port);
	if (fd < 0) {
		fprintf(stderr, "umad_open_port(%s, %d): %s\n", ca, port,
			strerror(-fd));
		return 1;
	}
	/* No methods: this agent only sends requests and gets responses. */
	int agent = umad_register(fd, DM_CLASS, DM_CLASS_VERSION, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "umad_register: %s\n", strerror(-agent));
		return 1;
	}

	size_t len = umad_size() + MAD_SIZE;
	ib_user_mad_t *umad = calloc(1, len);
	if (!umad)
		return 1;
	uint8_t *mad = umad_get_mad(umad);
	mad[0] = 1; /* base version */
	mad[1] = DM_CLASS;
	mad[2] = DM_CLASS_VERSION;
	mad[3] = (uint8_t)method;
	mad[15] = 0x5a; /* transaction id, low byte */
	mad[16] = (uint8_t)(attr_id >> 8);
	mad[17] = (uint8_t)attr_id;
	mad[20] = (uint8_t)(attr_mod >> 24);
	mad[21] = (uint8_t)(attr_mod >> 16);
	mad[22] = (uint8_t)(attr_mod >> 8);
	mad[23] = (uint8_t)attr_mod;

	umad_set_addr(umad, 0, 1, 0, QP1_QKEY);
	umad->addr.grh_present = 1;
	umad->addr.gid_index = 0;
	umad->addr.hop_limit = 64;
	memcpy(umad->addr.gid, dgid, 16);

	if (umad_send(fd, agent, umad, MAD_SIZE, TIMEOUT_MS, RETRIES) < 0) {
		fprintf(stderr, "umad_send: %s\n", strerror(errno));
		return 1;
	}
	int rlen = (int)len;
	int ret = umad_recv(fd, umad, &rlen, TIMEOUT_MS * (RETRIES + 1));
	if (ret < 0) {
		fprintf(stderr, "umad_recv: %s\n", strerror(-ret));
		return 1;
	}
	if (umad->status) {
		fprintf(stderr, "no response (status %u: %s)\n", umad->status,
			umad->status == ETIMEDOUT ? "timed out" : "error");
		return 1;
	}
	memset(mad + 8, 0, 8); /* transaction id: differs per agent */
	for (int i = 0; i < MAD_SIZE; i += 16) {
		printf("%03x:", i);
		for (int j = 0; j < 16; j++)
			printf(" %02x", mad[i + j]);
		printf("\n");
	}
	umad_unregister(fd, agent);
	umad_close_port(fd);
	free(umad);
	return 0;
}
