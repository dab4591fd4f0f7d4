// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRP_LOGIN_REQ negotiation: every acceptance and rejection rule of
 * include/srpt/login.hpp, with requests hand-built at srp.h offsets.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <vector>

#include <srpt/iu_build.hpp>
#include <srpt/login.hpp>

namespace srpt
{

void PrintTo(LoginCheck c, std::ostream *os)
{
	*os << describe(c);
}

namespace
{

using wire::LoginRejReason;

constexpr uint64_t kGuid = 0x0002c90300a1b2c3ull;

void put_be(std::vector<uint8_t> &b, size_t off, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[off + i] = static_cast<uint8_t>(v);
}

/* IB/CM form, as ib_srp sends it. */
std::vector<uint8_t> login_req(uint32_t it_iu_len = 8260, uint8_t flags = 0x80,
			       uint16_t imm = 68, uint16_t fmt = 0x6,
			       uint64_t guid = kGuid)
{
	std::vector<uint8_t> b(64, 0);
	b[0] = 0x00;
	for (int i = 0; i < 8; i++)
		b[8 + i] = static_cast<uint8_t>(0xa0 + i); /* tag */
	put_be(b, 16, it_iu_len, 4);
	put_be(b, 24, fmt, 2);
	b[26] = flags;
	put_be(b, 28, imm, 2);
	for (int i = 0; i < 16; i++)
		b[32 + i] = static_cast<uint8_t>(i + 1);
	put_be(b, 48, guid, 8);
	put_be(b, 56, guid, 8);
	return b;
}

/* Same request in the RDMA/CM private-data form. */
std::vector<uint8_t> login_req_rdma(uint32_t it_iu_len = 8260,
				    uint8_t flags = 0x80, uint16_t imm = 68)
{
	std::vector<uint8_t> b(56, 0);
	for (int i = 0; i < 8; i++)
		b[i] = static_cast<uint8_t>(0xa0 + i);
	put_be(b, 8, 0x6, 2);
	b[10] = flags;
	b[11] = 0x00;
	put_be(b, 12, it_iu_len, 4);
	for (int i = 0; i < 16; i++)
		b[16 + i] = static_cast<uint8_t>(i + 1);
	put_be(b, 32, kGuid, 8);
	put_be(b, 40, kGuid, 8);
	put_be(b, 48, imm, 2);
	return b;
}

LoginConfig config()
{
	LoginConfig c{};
	c.service_guid = kGuid;
	c.max_req_size = 8276;
	c.req_lim = 128;
	c.port_enabled = true;
	c.use_srq = false;
	return c;
}

uint64_t expected_tag()
{
	const uint8_t t[8] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7};
	uint64_t v;
	std::memcpy(&v, t, 8);
	return v;
}

TEST(LoginNegotiation, AcceptsIbSrpLogin)
{
	const auto d = negotiate_login_ib_cm(login_req(), config());
	ASSERT_TRUE(d.accepted()) << describe(d.check);
	EXPECT_EQ(d.tag, expected_tag());
	EXPECT_EQ(d.params.it_iu_len, 8260u);
	EXPECT_EQ(d.params.max_it_iu_len, 8276u);
	EXPECT_EQ(d.params.max_ti_iu_len, 8260u);
	EXPECT_TRUE(d.params.immediate_data);
	EXPECT_EQ(d.params.imm_data_offset, 68);
	EXPECT_EQ(d.params.req_lim_delta, 128u);
	EXPECT_EQ(d.params.multichannel, wire::MultiChannelAction::Single);
	EXPECT_EQ(d.params.buf_fmt, 0x6);
}

TEST(LoginNegotiation, RdmaCmFormDecodesTheSameFields)
{
	const auto a = decode_login_req(login_req());
	const auto b = decode_login_req_rdma(login_req_rdma());
	ASSERT_TRUE(a && b);
	EXPECT_EQ(a->tag, b->tag);
	EXPECT_EQ(a->opcode, b->opcode);
	EXPECT_EQ(a->it_iu_len, b->it_iu_len);
	EXPECT_EQ(a->buf_fmt, b->buf_fmt);
	EXPECT_EQ(a->flags, b->flags);
	EXPECT_EQ(a->imm_data_offset, b->imm_data_offset);
	EXPECT_EQ(0,
		  std::memcmp(a->initiator_port_id, b->initiator_port_id, 16));
	EXPECT_EQ(0, std::memcmp(a->target_port_id, b->target_port_id, 16));
	EXPECT_TRUE(
	    negotiate_login_rdma_cm(login_req_rdma(), config()).accepted());
}

TEST(LoginNegotiation, ShortPrivateDataIsRejected)
{
	auto ib = login_req();
	ib.resize(63);
	auto d = negotiate_login_ib_cm(ib, config());
	EXPECT_EQ(d.check, LoginCheck::ShortPrivateData);
	EXPECT_EQ(d.reason, LoginRejReason::UnableToEstablishChannel);
	auto rd = login_req_rdma();
	rd.resize(55);
	d = negotiate_login_rdma_cm(rd, config());
	EXPECT_EQ(d.check, LoginCheck::ShortPrivateData);
	d = negotiate_login_ib_cm({}, config());
	EXPECT_EQ(d.check, LoginCheck::ShortPrivateData);
}

TEST(LoginNegotiation, WrongOpcodeIsRejected)
{
	auto b = login_req();
	b[0] = 0x02;
	const auto d = negotiate_login_ib_cm(b, config());
	EXPECT_EQ(d.check, LoginCheck::BadOpcode);
	EXPECT_EQ(d.reason, LoginRejReason::UnableToEstablishChannel);
	EXPECT_EQ(d.tag, expected_tag());
}

TEST(LoginNegotiation, ItIuLenBounds)
{
	auto d = negotiate_login_ib_cm(login_req(64, 0), config());
	EXPECT_TRUE(d.accepted());
	d = negotiate_login_ib_cm(login_req(63, 0), config());
	EXPECT_EQ(d.check, LoginCheck::ItIuLenTooSmall);
	EXPECT_EQ(d.reason, LoginRejReason::ItIuLengthTooLarge);
	d = negotiate_login_ib_cm(login_req(0, 0), config());
	EXPECT_EQ(d.check, LoginCheck::ItIuLenTooSmall);
	d = negotiate_login_ib_cm(login_req(8276, 0), config());
	EXPECT_TRUE(d.accepted());
	d = negotiate_login_ib_cm(login_req(8277, 0), config());
	EXPECT_EQ(d.check, LoginCheck::ItIuLenTooLarge);
	EXPECT_EQ(d.reason, LoginRejReason::ItIuLengthTooLarge);
	d = negotiate_login_ib_cm(login_req(0xffffffffu, 0), config());
	EXPECT_EQ(d.check, LoginCheck::ItIuLenTooLarge);
}

TEST(LoginNegotiation, DisabledPortIsRejected)
{
	auto c = config();
	c.port_enabled = false;
	const auto d = negotiate_login_ib_cm(login_req(), c);
	EXPECT_EQ(d.check, LoginCheck::PortDisabled);
	EXPECT_EQ(d.reason, LoginRejReason::InsufficientResources);
}

TEST(LoginNegotiation, TargetPortIdMustMatchServiceGuidInBothHalves)
{
	auto d = negotiate_login_ib_cm(login_req(8260, 0x80, 68, 6, kGuid + 1),
				       config());
	EXPECT_EQ(d.check, LoginCheck::TargetPortIdMismatch);
	EXPECT_EQ(d.reason, LoginRejReason::UnableToAssociateChannel);
	auto b = login_req();
	b[63] ^= 1; /* ioc_guid half only */
	d = negotiate_login_ib_cm(b, config());
	EXPECT_EQ(d.check, LoginCheck::TargetPortIdMismatch);
	b = login_req();
	b[48] ^= 0x80; /* id_ext half only */
	d = negotiate_login_ib_cm(b, config());
	EXPECT_EQ(d.check, LoginCheck::TargetPortIdMismatch);
}

TEST(LoginNegotiation, BufferFormats)
{
	for (uint16_t ok : {0x0, 0x2, 0x4, 0x6}) {
		const auto d = negotiate_login_ib_cm(
		    login_req(8260, 0x80, 68, ok), config());
		EXPECT_TRUE(d.accepted()) << ok;
		EXPECT_EQ(d.params.buf_fmt, 0x6);
	}
	for (uint16_t bad : {0x1, 0x8, 0x7, 0x8000, 0xffff}) {
		const auto d = negotiate_login_ib_cm(
		    login_req(8260, 0x80, 68, bad), config());
		EXPECT_EQ(d.check, LoginCheck::UnsupportedBufFmt) << bad;
		EXPECT_EQ(d.reason,
			  LoginRejReason::UnsupportedDescriptorFormat);
	}
}

TEST(LoginNegotiation, MultiChannelAction)
{
	auto d = negotiate_login_ib_cm(login_req(8260, 0x00), config());
	ASSERT_TRUE(d.accepted());
	EXPECT_EQ(d.params.multichannel, wire::MultiChannelAction::Single);
	d = negotiate_login_ib_cm(login_req(8260, 0x01), config());
	ASSERT_TRUE(d.accepted());
	EXPECT_EQ(d.params.multichannel, wire::MultiChannelAction::Multi);
	for (uint8_t reserved : {0x02, 0x03, 0x82}) {
		d = negotiate_login_ib_cm(login_req(8260, reserved), config());
		EXPECT_EQ(d.check, LoginCheck::ReservedMultiChannelAction);
		EXPECT_EQ(d.reason, LoginRejReason::UnableToEstablishChannel);
	}
}

TEST(LoginNegotiation, RspFlagsFollowMultiChannelAndImmediate)
{
	auto d = negotiate_login_ib_cm(login_req(8260, 0x00, 0), config());
	ASSERT_TRUE(d.accepted());
	EXPECT_EQ(login_rsp_flags(d.params, false), 0x00);
	EXPECT_EQ(login_rsp_flags(d.params, true), 0x01);
	d = negotiate_login_ib_cm(login_req(8260, 0x81, 68), config());
	ASSERT_TRUE(d.accepted());
	EXPECT_EQ(login_rsp_flags(d.params, true), 0x82);
}

TEST(LoginNegotiation, ImmediateDataNeedsTheFlag)
{
	const auto d =
	    negotiate_login_ib_cm(login_req(8260, 0x00, 68), config());
	ASSERT_TRUE(d.accepted());
	EXPECT_FALSE(d.params.immediate_data);
	EXPECT_EQ(d.params.imm_data_offset, 0);
}

TEST(LoginNegotiation, ImmediateDataDeclinedWithSrq)
{
	auto c = config();
	c.use_srq = true;
	const auto d = negotiate_login_ib_cm(login_req(), c);
	ASSERT_TRUE(d.accepted());
	EXPECT_FALSE(d.params.immediate_data);
	EXPECT_EQ(d.params.imm_data_offset, 0);
}

TEST(LoginNegotiation, ImmediateDataOffsetBounds)
{
	/* Below header + immediate descriptor: declined, login accepted. */
	for (uint16_t off : {0, 47, 48, 51}) {
		const auto d =
		    negotiate_login_ib_cm(login_req(8260, 0x80, off), config());
		ASSERT_TRUE(d.accepted()) << off;
		EXPECT_FALSE(d.params.immediate_data) << off;
		EXPECT_EQ(d.params.imm_data_offset, 0) << off;
	}
	auto d = negotiate_login_ib_cm(login_req(8260, 0x80, 52), config());
	EXPECT_TRUE(d.params.immediate_data);
	EXPECT_EQ(d.params.imm_data_offset, 52);
	d = negotiate_login_ib_cm(login_req(8260, 0x80, 8259), config());
	EXPECT_TRUE(d.params.immediate_data);
	/* At or beyond the IU: no byte of data could follow. */
	for (uint16_t off : {8260, 8261, 0xffff}) {
		d = negotiate_login_ib_cm(login_req(8260, 0x80, off), config());
		ASSERT_TRUE(d.accepted()) << off;
		EXPECT_FALSE(d.params.immediate_data) << off;
		EXPECT_EQ(d.params.imm_data_offset, 0) << off;
	}
}

TEST(LoginNegotiation, FirstFailingCheckDecides)
{
	auto c = config();
	c.port_enabled = false;
	/* it_iu_len is checked before the port state (in-tree order). */
	auto d = negotiate_login_ib_cm(login_req(10, 0x03, 0, 0x1, 1), c);
	EXPECT_EQ(d.check, LoginCheck::ItIuLenTooSmall);
	d = negotiate_login_ib_cm(login_req(8260, 0x03, 0, 0x1, 1), c);
	EXPECT_EQ(d.check, LoginCheck::PortDisabled);
	d = negotiate_login_ib_cm(login_req(8260, 0x03, 0, 0x1, 1), config());
	EXPECT_EQ(d.check, LoginCheck::TargetPortIdMismatch);
	d = negotiate_login_ib_cm(login_req(8260, 0x03, 0, 0x1), config());
	EXPECT_EQ(d.check, LoginCheck::UnsupportedBufFmt);
}

TEST(LoginNegotiation, DescribeCoversEveryCheck)
{
	for (int i = 0;
	     i <= static_cast<int>(LoginCheck::ReservedMultiChannelAction); i++)
		EXPECT_STRNE(describe(static_cast<LoginCheck>(i)), "unknown");
}

TEST(LoginBuild, LoginRspBytes)
{
	const auto d =
	    negotiate_login_ib_cm(login_req(8260, 0x80, 68), config());
	ASSERT_TRUE(d.accepted());
	uint8_t buf[64];
	std::memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(build_login_rsp(buf, d.tag, d.params, false), 52u);
	const uint8_t expect[52] = {
	    0xc0, 0,	0,    0,    0,	  0,	0,    128,  /* req_lim */
	    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, /* tag */
	    0,	  0,	0x20, 0x54, /* max_it_iu_len 8276 */
	    0,	  0,	0x20, 0x44, /* max_ti_iu_len 8260 */
	    0,	  0x06, 0x80,	    /* buf_fmt, rsp_flags */
	};
	EXPECT_EQ(0, std::memcmp(buf, expect, 52));
	EXPECT_EQ(buf[52], 0xee); /* nothing written past the IU */
	EXPECT_EQ(build_login_rsp({buf, 51}, d.tag, d.params, false), 0u);
}

TEST(LoginBuild, LoginRejBytes)
{
	uint8_t buf[32];
	std::memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(build_login_rej(buf, expected_tag(),
				  LoginRejReason::ItIuLengthTooLarge),
		  32u);
	const uint8_t expect[32] = {
	    0xc2, 0,	0,    0,    0,	  0x01, 0, 0x02, 0xa0, 0xa1, 0xa2,
	    0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0,	0, 0,	 0,    0,    0,
	    0,	  0,	0,    0x06, 0,	  0,	0, 0,	 0,    0,
	};
	EXPECT_EQ(0, std::memcmp(buf, expect, 32));
	EXPECT_EQ(
	    build_login_rej({buf, 31}, 0, LoginRejReason::ItIuLengthTooLarge),
	    0u);
}

} // namespace
} // namespace srpt
