// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: SRP_LOGIN_REQ negotiation in both CM forms, and the
 * LOGIN_RSP / LOGIN_REJ built from the decision.
 *
 * Input: 11 bytes of target configuration, then the CM private data:
 *   [0]     bit 0: RDMA/CM form, bit 1: use_srq, bit 2: port disabled,
 *           bit 3: channels terminated (LOGIN_RSP flags)
 *   [1..2]  max_req_size = 996 + be16
 *   [3..10] service GUID (be64)
 */
#include <stddef.h>
#include <stdint.h>

#include <srpt/iu_build.hpp>
#include <srpt/login.hpp>

using namespace srpt;

#define CHECK(x)                                                               \
	do {                                                                   \
		if (!(x))                                                      \
			__builtin_trap();                                      \
	} while (0)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 11)
		return 0;
	const bool rdma = data[0] & 1;
	LoginConfig cfg{};
	cfg.use_srq = data[0] & 2;
	cfg.port_enabled = !(data[0] & 4);
	const bool terminated = data[0] & 8;
	cfg.max_req_size = 996 + (data[1] << 8 | data[2]);
	cfg.req_lim = 128;
	for (int i = 0; i < 8; i++)
		cfg.service_guid = cfg.service_guid << 8 | data[3 + i];

	const std::span<const uint8_t> pdata(data + 11, size - 11);
	const LoginDecision d = rdma ? negotiate_login_rdma_cm(pdata, cfg)
				     : negotiate_login_ib_cm(pdata, cfg);

	uint8_t out[64];
	if (!d.accepted()) {
		CHECK(pdata.size() >= (rdma ? 56u : 64u) ||
		      d.check == LoginCheck::ShortPrivateData);
		CHECK(build_login_rej(out, d.tag, d.reason) == 32);
		CHECK(out[0] == 0xc2);
		return 0;
	}
	const LoginParams &p = d.params;
	CHECK(cfg.port_enabled);
	CHECK(p.it_iu_len >= kMinItIuLen && p.it_iu_len <= cfg.max_req_size);
	CHECK(p.max_it_iu_len == cfg.max_req_size);
	CHECK(p.max_ti_iu_len == p.it_iu_len);
	CHECK(p.req_lim_delta == cfg.req_lim);
	if (p.immediate_data) {
		CHECK(!cfg.use_srq);
		CHECK(p.imm_data_offset >= kMinImmDataOffset &&
		      p.imm_data_offset < p.it_iu_len);
	} else {
		CHECK(p.imm_data_offset == 0);
	}
	CHECK(p.multichannel == wire::MultiChannelAction::Single ||
	      p.multichannel == wire::MultiChannelAction::Multi);
	CHECK(build_login_rsp(out, d.tag, p, terminated) == 52);
	CHECK(out[0] == 0xc0);
	const uint8_t flags = out[26];
	CHECK(((flags & 0x80) != 0) == p.immediate_data);
	CHECK((flags & 0x7c) == 0);
	CHECK((flags & 3) != 3);
	return 0;
}
