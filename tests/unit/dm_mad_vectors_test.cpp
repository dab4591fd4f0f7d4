// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The DM MAD answers of the port against byte vectors recorded from the
 * in-tree ib_srpt: tests/unit/data/dm_mad_intree_rxe.txt is the in-tree
 * half of the guest scenario `controlpath` (tests/vm/guest/scenarios/
 * controlpath.sh), which sends each probe with tests/tools/dm_mad_probe.c
 * from rxe0 to rxe1 over soft-RoCE and prints the response (TID zeroed).
 * The device description below is what `ibv_devinfo -v -d rxe1` printed in
 * the same guest. The request goes through srpt_core_handle_dm_mad(), the
 * entry point the MAD agent glue calls.
 */
#include <gtest/gtest.h>
#include <srpt/core_api.h>
#include <srpt/rdma_glue.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace
{

struct Probe {
	std::string what;
	unsigned method = 0;
	unsigned attr = 0;
	unsigned mod = 0;
	std::vector<uint8_t> response; /* empty: the driver did not answer */
};

std::string DataPath()
{
	std::string here = __FILE__;
	return here.substr(0, here.rfind('/') + 1) +
	       "data/dm_mad_intree_rxe.txt";
}

std::vector<Probe> LoadProbes()
{
	std::ifstream in(DataPath());
	std::vector<Probe> probes;
	std::string line;
	while (std::getline(in, line)) {
		if (line.rfind("## ", 0) == 0) {
			Probe p;
			const size_t paren = line.find(" (method ");
			p.what = line.substr(3, paren - 3);
			std::sscanf(line.c_str() + paren,
				    " (method %u attr %x mod %i)", &p.method,
				    &p.attr, &p.mod);
			probes.push_back(p);
		} else if (!probes.empty() && line.size() > 4 &&
			   line[3] == ':') {
			std::istringstream hex(line.substr(4));
			unsigned byte;
			while (hex >> std::hex >> byte)
				probes.back().response.push_back(
				    static_cast<uint8_t>(byte));
		}
	}
	return probes;
}

/* The request exactly as dm_mad_probe builds it. */
std::vector<uint8_t> Request(const Probe &p)
{
	std::vector<uint8_t> mad(256, 0);
	mad[0] = 1;
	mad[1] = 0x06;
	mad[2] = 1;
	mad[3] = static_cast<uint8_t>(p.method);
	mad[15] = 0x5a;
	mad[16] = static_cast<uint8_t>(p.attr >> 8);
	mad[17] = static_cast<uint8_t>(p.attr);
	for (int i = 0; i < 4; i++)
		mad[20 + i] = static_cast<uint8_t>(p.mod >> (24 - 8 * i));
	return mad;
}

class DmMadVectors : public testing::Test
{
protected:
	void SetUp() override
	{
		ASSERT_EQ(srpt_core_set_service_guid("0"), 0);
		const srpt_module_params params{8276, 4095};
		ASSERT_EQ(srpt_core_init(&params), 0);
		Add("rxe0", 0x505400fffeaa0001ull, 0x01, &rxe0_);
		Add("rxe1", 0x505400fffeaa0002ull, 0x02, &rxe1_);
	}
	void TearDown() override
	{
		srpt_core_remove_device(rxe1_);
		srpt_core_remove_device(rxe0_);
		srpt_core_exit();
	}

	void Add(const char *name, uint64_t guid, uint8_t last,
		 srpt_core_device **handle)
	{
		srpt_port_desc port{};
		port.port_num = 1;
		port.link_layer = SRPT_LINK_LAYER_ETHERNET;
		port.gid_valid = true;
		const uint8_t gid[16] = {0xfe, 0x80, 0,	   0,	 0, 0,
					 0,    0,    0x50, 0x54, 0, 0xff,
					 0xfe, 0xaa, 0,	   last};
		std::memcpy(port.gid, gid, 16);
		/* ibv_devinfo -v -d rxe1 in the guest. */
		const srpt_device_desc desc{name,    guid,     1, &port,
					    nullptr, 0xffffff, 0, 0,
					    1048576, 1048576};
		ASSERT_EQ(srpt_core_add_device(&desc, handle), 0);
	}

	srpt_core_device *rxe0_ = nullptr;
	srpt_core_device *rxe1_ = nullptr;
};

TEST_F(DmMadVectors, EveryRecordedProbeIsAnsweredByteForByte)
{
	const std::vector<Probe> probes = LoadProbes();
	ASSERT_GE(probes.size(), 14u) << "vectors missing: " << DataPath();
	for (const Probe &p : probes) {
		SCOPED_TRACE(p.what);
		const std::vector<uint8_t> request = Request(p);
		std::vector<uint8_t> response(256, 0xee);
		const bool respond = srpt_core_handle_dm_mad(
		    rxe1_, 1, request.data(), request.size(), response.data(),
		    response.size());
		ASSERT_EQ(respond, !p.response.empty());
		if (!respond)
			continue;
		std::memset(response.data() + 8, 0, 8); /* TID, as recorded */
		ASSERT_EQ(p.response.size(), 256u);
		for (size_t i = 0; i < 256; i++)
			EXPECT_EQ(response[i], p.response[i])
			    << "byte 0x" << std::hex << i;
	}
}

} // namespace
