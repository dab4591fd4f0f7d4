/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the data-path tests send: the names of the loopback port and
 * initiator they log in with, big-endian field helpers, and the
 * RDMA/CM LOGIN_REQ, TEST UNIT READY and WRITE IUs as ib_srp builds them.
 */
#ifndef SRPT_TESTS_DATAPATH_TEST_IUS_HPP
#define SRPT_TESTS_DATAPATH_TEST_IUS_HPP

#include <cstdint>
#include <cstring>
#include <vector>

namespace srpt::dp_test
{

inline constexpr const char *kGidName = "0xfe80000000000000505400fffe123456";
inline constexpr uint64_t kNodeGuid = 0x505400fffe123456ull;
inline constexpr const char *kInitiator = "0x1122334455667788aabbccddeeff0011";
inline constexpr const char *kSrcAddr = "192.168.7.1";

inline void PutBe(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = static_cast<uint8_t>(v);
}

inline uint64_t GetBe(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* struct srp_login_req_rdma as ib_srp sends it (immediate data at 68). */
inline std::vector<uint8_t> LoginReqRdma(uint8_t flags = 0x80,
					 uint64_t guid = kNodeGuid,
					 uint64_t i_ext = 0x1122334455667788ull)
{
	std::vector<uint8_t> p(56, 0);
	PutBe(&p[0], 0x4242, 8); /* tag */
	PutBe(&p[8], 0x0006, 2); /* DIRECT | INDIRECT */
	p[10] = flags;		 /* immediate data, multichannel action */
	p[11] = 0x00;		 /* SRP_LOGIN_REQ */
	PutBe(&p[12], 8260, 4);	 /* req_it_iu_len */
	PutBe(&p[16], i_ext, 8);
	PutBe(&p[24], 0xaabbccddeeff0011ull, 8);
	PutBe(&p[32], guid, 8);
	PutBe(&p[40], guid, 8);
	PutBe(&p[48], 68, 2); /* imm_data_offset */
	return p;
}

/* SRP_CMD with an all-zero CDB: TEST UNIT READY. */
inline std::vector<uint8_t> TestUnitReady(uint64_t tag)
{
	std::vector<uint8_t> iu(48, 0);
	iu[0] = 0x02; /* SRP_CMD */
	std::memcpy(&iu[8], &tag, 8);
	return iu;
}

/*
 * SRP_CMD @opcode (READ(10) or WRITE(10)) of 8 blocks whose 4096 bytes are
 * one DIRECT descriptor (va @va, rkey @rkey): data-in (@data_in) or
 * data-out, moved by one RDMA WRITE chain or READ.
 */
inline std::vector<uint8_t> Direct4k(uint8_t opcode, bool data_in, uint64_t va,
				     uint32_t rkey, uint64_t tag = 0)
{
	std::vector<uint8_t> iu(64, 0);
	iu[0] = 0x02;			 /* SRP_CMD */
	iu[5] = data_in ? 0x01 : 0x10;	 /* data-in / data-out DIRECT */
	iu[data_in ? 7 : 6] = 1;	 /* its descriptor count */
	std::memcpy(&iu[8], &tag, 8);
	iu[32] = opcode;
	iu[39] = 0x08;
	PutBe(&iu[48], va, 8);
	PutBe(&iu[56], rkey, 4);
	PutBe(&iu[60], 4096, 4);
	return iu;
}

/* WRITE(10) of 4 KiB through one descriptor: one RDMA READ fetches it. */
inline std::vector<uint8_t> DirectWrite4k()
{
	return Direct4k(0x2a, false, 0x2000, 0x99);
}

/* READ(10) of 4 KiB into one descriptor (the instruction gate's command). */
inline std::vector<uint8_t> DirectRead4k(uint64_t tag)
{
	return Direct4k(0x28, true, 0x1000, 0x1234, tag);
}

/*
 * SRP_CMD WRITE(10) of @bytes (a multiple of 512) carried as immediate
 * data at offset 68, as ib_srp sends writes of up to 8 KiB (the data
 * bytes are zero).
 */
inline std::vector<uint8_t> ImmediateWrite(uint32_t bytes)
{
	std::vector<uint8_t> iu(68 + bytes, 0);
	iu[0] = 0x02;  /* SRP_CMD */
	iu[5] = 0x30;  /* data-out IMMEDIATE */
	iu[32] = 0x2a; /* WRITE(10) */
	PutBe(&iu[37], bytes / 512, 2);
	PutBe(&iu[48], bytes, 4); /* immediate descriptor: length */
	return iu;
}

} // namespace srpt::dp_test

#endif
