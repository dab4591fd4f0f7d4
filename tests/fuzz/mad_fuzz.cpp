// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: device-management MAD requests.
 *
 * Input: 8 bytes of IOC GUID (be64), 4 of max_rdma_size (be32), then the
 * received MAD (any length; the kernel delivers 256 bytes).
 */
#include <stddef.h>
#include <stdint.h>

#include <srpt/mad_protocol.hpp>

using namespace srpt;

#define CHECK(x)                                                               \
	do {                                                                   \
		if (!(x))                                                      \
			__builtin_trap();                                      \
	} while (0)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 12)
		return 0;
	DmDeviceInfo dev{};
	for (int i = 0; i < 8; i++)
		dev.ioc_guid = dev.ioc_guid << 8 | data[i];
	dev.max_rdma_size = static_cast<uint32_t>(data[8]) << 24 |
			    data[9] << 16 | data[10] << 8 | data[11];
	dev.vendor_id = 0x02c9;
	dev.vendor_part_id = 0x1003;
	dev.hw_ver = 0xb0;
	dev.send_queue_depth = 128;
	dev.max_req_size = 8276;

	const uint8_t *req = data + 12;
	const size_t n = size - 12;
	uint8_t rsp[wire::kMadSize];
	const MadResult r =
	    handle_dm_mad(std::span<const uint8_t>(req, n), dev, rsp);
	if (!r.respond)
		return 0;
	CHECK(n >= sizeof(wire::MadHdr));
	CHECK(r.len == wire::kMadSize);
	CHECK(req[0] == 1 && req[1] == 0x06 && req[2] == 1);
	CHECK((req[3] & 0x80) == 0);
	CHECK(rsp[3] == 0x81);
	CHECK((rsp[4] << 8 | rsp[5]) == static_cast<uint16_t>(r.status));
	for (size_t i = 6; i < 24; i++)
		CHECK(rsp[i] == req[i]);
	if (r.status != wire::MadStatus::Success)
		for (size_t i = wire::kDmHeaderSize; i < wire::kMadSize; i++)
			CHECK(rsp[i] == 0);
	if (r.status == wire::MadStatus::Success &&
	    (req[16] << 8 | req[17]) == 0x11) {
		const uint32_t rdma =
		    static_cast<uint32_t>(rsp[64 + 48]) << 24 |
		    rsp[64 + 49] << 16 | rsp[64 + 50] << 8 | rsp[64 + 51];
		CHECK(rdma <= kMaxIocRdmaSize);
	}
	return 0;
}
