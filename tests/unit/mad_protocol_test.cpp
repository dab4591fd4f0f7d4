// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device-management MADs: response bytes for every Get attribute, the
 * status of unsupported methods/attributes/slots, and the requests that
 * get no response. Field values as the in-tree srpt_get_* helpers set them.
 */
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include <srpt/mad_protocol.hpp>

namespace srpt
{
namespace
{

using wire::MadStatus;

constexpr uint64_t kGuid = 0x0002c90300a1b2c3ull;

uint32_t be(const uint8_t *p, int n)
{
	uint32_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

std::vector<uint8_t> mad(uint8_t method, uint16_t attr, uint32_t mod = 0)
{
	std::vector<uint8_t> b(256, 0);
	b[0] = 1;    /* base version */
	b[1] = 0x06; /* device management */
	b[2] = 1;
	b[3] = method;
	for (int i = 0; i < 8; i++)
		b[8 + i] = static_cast<uint8_t>(0xb0 + i); /* TID */
	b[16] = static_cast<uint8_t>(attr >> 8);
	b[17] = static_cast<uint8_t>(attr);
	b[20] = static_cast<uint8_t>(mod >> 24);
	b[21] = static_cast<uint8_t>(mod >> 16);
	b[22] = static_cast<uint8_t>(mod >> 8);
	b[23] = static_cast<uint8_t>(mod);
	return b;
}

DmDeviceInfo device()
{
	DmDeviceInfo d{};
	d.ioc_guid = kGuid;
	d.vendor_id = 0x02c9;
	d.vendor_part_id = 0x1003;
	d.hw_ver = 0x10001b0;
	d.send_queue_depth = 128;
	d.max_req_size = 8276;
	d.max_rdma_size = 65536;
	return d;
}

struct Answer {
	MadResult res;
	std::array<uint8_t, 256> rsp;
};

Answer handle(const std::vector<uint8_t> &req,
	      const DmDeviceInfo &dev = device())
{
	Answer a{};
	a.rsp.fill(0xee);
	a.res = handle_dm_mad(req, dev, a.rsp);
	return a;
}

void expect_header_echoed(const Answer &a, const std::vector<uint8_t> &req,
			  uint16_t status)
{
	ASSERT_TRUE(a.res.respond);
	EXPECT_EQ(a.res.len, 256u);
	EXPECT_EQ(static_cast<uint16_t>(a.res.status), status);
	EXPECT_EQ(a.rsp[0], 1);
	EXPECT_EQ(a.rsp[1], 0x06);
	EXPECT_EQ(a.rsp[2], 1);
	EXPECT_EQ(a.rsp[3], 0x81); /* GetResp */
	EXPECT_EQ(be(&a.rsp[4], 2), status);
	EXPECT_EQ(0, std::memcmp(&a.rsp[8], &req[8], 8));   /* TID */
	EXPECT_EQ(0, std::memcmp(&a.rsp[16], &req[16], 8)); /* attr */
}

TEST(MadProtocol, ClassPortInfo)
{
	const auto req = mad(0x01, 0x01);
	const auto a = handle(req);
	expect_header_echoed(a, req, 0);
	EXPECT_EQ(a.rsp[64], 1);	       /* base version */
	EXPECT_EQ(a.rsp[65], 1);	       /* class version */
	EXPECT_EQ(be(&a.rsp[64 + 4], 4), 20u); /* resp time */
	for (size_t i = 64 + 8; i < 256; i++)
		EXPECT_EQ(a.rsp[i], 0) << i;
}

TEST(MadProtocol, IouInfo)
{
	const auto req = mad(0x01, 0x10);
	const auto a = handle(req);
	expect_header_echoed(a, req, 0);
	EXPECT_EQ(be(&a.rsp[64], 2), 1u); /* change id */
	EXPECT_EQ(a.rsp[66], 16);	  /* max controllers */
	EXPECT_EQ(a.rsp[67], 0);	  /* op rom */
	EXPECT_EQ(a.rsp[68], 0x10);	  /* slot 1 present, slot 2 empty */
	for (size_t i = 69; i < 256; i++)
		EXPECT_EQ(a.rsp[i], 0) << i;
}

TEST(MadProtocol, IocProfile)
{
	for (uint32_t slot : {1u, 2u}) {
		const auto req = mad(0x01, 0x11, slot);
		const auto a = handle(req);
		expect_header_echoed(a, req, 0);
		const uint8_t *p = &a.rsp[64];
		EXPECT_EQ(be(p, 4), uint32_t(kGuid >> 32));
		EXPECT_EQ(be(p + 4, 4), uint32_t(kGuid));
		EXPECT_EQ(be(p + 8, 4), 0x02c9u);  /* vendor id */
		EXPECT_EQ(be(p + 12, 4), 0x1003u); /* device id */
		EXPECT_EQ(be(p + 16, 2), 0x01b0u); /* device version */
		EXPECT_EQ(be(p + 20, 4), 0x02c9u); /* subsys vendor */
		EXPECT_EQ(be(p + 24, 4), 0u);	   /* subsys device */
		EXPECT_EQ(be(p + 28, 2), 0x0100u); /* io class rev 16a */
		EXPECT_EQ(be(p + 30, 2), 0x609eu); /* io subclass */
		EXPECT_EQ(be(p + 32, 2), 0x0108u); /* protocol */
		EXPECT_EQ(be(p + 34, 2), 0x0001u); /* protocol version */
		EXPECT_EQ(be(p + 36, 2), 0u);
		EXPECT_EQ(be(p + 38, 2), 0u);
		EXPECT_EQ(be(p + 40, 2), 128u);	  /* send queue depth */
		EXPECT_EQ(p[43], 4);		  /* rdma read depth */
		EXPECT_EQ(be(p + 44, 4), 8276u);  /* send size */
		EXPECT_EQ(be(p + 48, 4), 65536u); /* rdma size */
		EXPECT_EQ(p[52], 0x2b);		  /* op cap mask */
		EXPECT_EQ(p[53], 0);
		EXPECT_EQ(p[54], 1); /* service entries */
		EXPECT_STREQ(reinterpret_cast<const char *>(p + 64),
			     "Linux SRP target");
		for (size_t i = 64 + 128; i < 256; i++)
			EXPECT_EQ(a.rsp[i], 0) << i;
	}
}

TEST(MadProtocol, IocProfileRdmaSizeCappedAt16MiB)
{
	auto dev = device();
	dev.max_rdma_size = 1u << 30;
	const auto a = handle(mad(0x01, 0x11, 1), dev);
	EXPECT_EQ(be(&a.rsp[64 + 48], 4), 1u << 24);
}

TEST(MadProtocol, IocProfileSlots)
{
	for (uint32_t slot : {0u, 17u, 0xffffffffu}) {
		const auto req = mad(0x01, 0x11, slot);
		const auto a = handle(req);
		expect_header_echoed(a, req, 0x001c);
		for (size_t i = 64; i < 256; i++)
			EXPECT_EQ(a.rsp[i], 0) << i;
	}
	for (uint32_t slot : {3u, 16u}) {
		const auto req = mad(0x01, 0x11, slot);
		expect_header_echoed(handle(req), req, 0x0100);
	}
}

TEST(MadProtocol, ServiceEntries)
{
	for (uint32_t mod :
	     {0x00010000u, 0x00010100u, 0x00010101u, 0x00020000u}) {
		const auto req = mad(0x01, 0x12, mod);
		const auto a = handle(req);
		expect_header_echoed(a, req, 0);
		EXPECT_STREQ(reinterpret_cast<const char *>(&a.rsp[64]),
			     "SRP.T10:0002c90300a1b2c3");
		EXPECT_EQ(be(&a.rsp[64 + 40], 4), uint32_t(kGuid >> 32));
		EXPECT_EQ(be(&a.rsp[64 + 44], 4), uint32_t(kGuid));
		for (size_t i = 64 + 48; i < 256; i++)
			EXPECT_EQ(a.rsp[i], 0) << i;
	}
}

TEST(MadProtocol, ServiceEntriesOutOfRange)
{
	/* slot 0 or > 16 */
	for (uint32_t mod : {0x00000000u, 0x00110000u, 0xffff0000u}) {
		const auto req = mad(0x01, 0x12, mod);
		expect_header_echoed(handle(req), req, 0x001c);
	}
	/* slot > 2, lo > hi, hi > 1 */
	for (uint32_t mod :
	     {0x00030000u, 0x00010001u, 0x00010200u, 0x0001ff00u}) {
		const auto req = mad(0x01, 0x12, mod);
		expect_header_echoed(handle(req), req, 0x0100);
	}
}

TEST(MadProtocol, UnsupportedAttributeAndMethods)
{
	auto req = mad(0x01, 0x13);
	expect_header_echoed(handle(req), req, 0x000c);
	req = mad(0x01, 0x0000);
	expect_header_echoed(handle(req), req, 0x000c);
	req = mad(0x02, 0x11, 1); /* Set */
	expect_header_echoed(handle(req), req, 0x000c);
	for (uint8_t m : {0x00, 0x03, 0x05, 0x06, 0x07, 0x12, 0x7f}) {
		req = mad(m, 0x11, 1);
		expect_header_echoed(handle(req), req, 0x0008);
	}
}

TEST(MadProtocol, RequestDataIsNotReflected)
{
	auto req = mad(0x01, 0x99);
	for (size_t i = 64; i < 256; i++)
		req[i] = 0xa5;
	const auto a = handle(req);
	for (size_t i = 64; i < 256; i++)
		EXPECT_EQ(a.rsp[i], 0) << i;
}

TEST(MadProtocol, NoResponse)
{
	/* responses are never answered */
	for (uint8_t m : {0x81, 0x86, 0x80, 0xff})
		EXPECT_FALSE(handle(mad(m, 0x10)).res.respond) << int(m);
	auto req = mad(0x01, 0x10);
	req[0] = 2;
	EXPECT_FALSE(handle(req).res.respond);
	req = mad(0x01, 0x10);
	req[1] = 0x03;
	EXPECT_FALSE(handle(req).res.respond);
	req = mad(0x01, 0x10);
	req[2] = 2;
	EXPECT_FALSE(handle(req).res.respond);
	req = mad(0x01, 0x10);
	req.resize(23);
	EXPECT_FALSE(handle(req).res.respond);
	/* the response buffer must hold a whole MAD */
	std::array<uint8_t, 255> small;
	small.fill(0xee);
	EXPECT_FALSE(handle_dm_mad(mad(0x01, 0x10), device(), small).respond);
	EXPECT_EQ(small[0], 0xee);
}

TEST(MadProtocol, ShortRequestStillAnswered)
{
	/* Only the 24-byte MAD header is needed; the rest reads as zero. */
	auto req = mad(0x01, 0x10);
	req.resize(24);
	const auto a = handle(req);
	ASSERT_TRUE(a.res.respond);
	EXPECT_EQ(a.rsp[66], 16);
	for (size_t i = 24; i < 64; i++)
		EXPECT_EQ(a.rsp[i], 0) << i;
}

} // namespace
} // namespace srpt
