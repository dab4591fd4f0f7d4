// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sg_sense: sends one SCSI command through SG_IO and prints its status and
 * the sense data the initiator received, every byte as hex, so that a
 * scenario can check bytes sg_raw's decoder does not show (a fixed-format
 * sense's INFORMATION field and VALID bit).
 *
 *   sg_sense DEV CDB [COMPARE_OFFSET]
 *     DEV             a SCSI disk or its sg node (/dev/sdc)
 *     CDB             the command, hex digits without spaces (ff0000000000)
 *     COMPARE_OFFSET  send data-out: two 512-byte blocks, the first zero up
 *                     to this offset and 0xa5 from there (COMPARE AND
 *                     WRITE of one block against a zeroed one miscompares
 *                     at that offset), the second 0x5a
 *
 * Prints one line: "status 0xSS sense XX XX ..." (no sense: "sense -").
 * Exit status: 0 when the command got a SCSI status, 2 on usage errors, 1
 * when SG_IO failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scsi/sg.h>
#include <sys/ioctl.h>

enum {
	MAX_CDB = 32,
	BLOCK = 512,
	SENSE_MAX = 96,
};

static int parse_cdb(const char *hex, unsigned char *cdb)
{
	size_t n = strlen(hex);

	if (n == 0 || n % 2 || n / 2 > MAX_CDB)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		char byte[3] = {hex[2 * i], hex[2 * i + 1], 0};
		char *end;

		cdb[i] = (unsigned char)strtoul(byte, &end, 16);
		if (*end)
			return -1;
	}
	return (int)(n / 2);
}

int main(int argc, char **argv)
{
	unsigned char cdb[MAX_CDB], sense[SENSE_MAX], data[2 * BLOCK];
	struct sg_io_hdr io;
	int cdb_len, fd;

	if (argc < 3 || argc > 4 || (cdb_len = parse_cdb(argv[2], cdb)) < 0) {
		fprintf(stderr, "usage: sg_sense DEV CDB [COMPARE_OFFSET]\n");
		return 2;
	}
	memset(&io, 0, sizeof(io));
	io.interface_id = 'S';
	io.dxfer_direction = SG_DXFER_NONE;
	if (argc == 4) {
		long off = strtol(argv[3], NULL, 0);

		if (off < 0 || off >= BLOCK) {
			fprintf(stderr, "sg_sense: offset %ld\n", off);
			return 2;
		}
		memset(data, 0, (size_t)off);
		memset(data + off, 0xa5, (size_t)(BLOCK - off));
		memset(data + BLOCK, 0x5a, BLOCK);
		io.dxfer_direction = SG_DXFER_TO_DEV;
		io.dxfer_len = sizeof(data);
		io.dxferp = data;
	}
	io.cmd_len = (unsigned char)cdb_len;
	io.cmdp = cdb;
	io.mx_sb_len = sizeof(sense);
	io.sbp = sense;
	io.timeout = 30000;
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || ioctl(fd, SG_IO, &io) < 0) {
		fprintf(stderr, "sg_sense: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	close(fd);
	printf("status 0x%02x sense", io.status);
	if (!io.sb_len_wr)
		printf(" -");
	for (unsigned int i = 0; i < io.sb_len_wr; i++)
		printf(" %02x", sense[i]);
	printf("\n");
	return 0;
}
