// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * parse_iu() of hostile SRP_CMDs: every rule a command must pass, with
 * the inputs that crash or corrupt the in-tree 6.1 driver (lengths past
 * the received bytes, reserved fields, descriptor tables that lie about
 * their size, immediate data out of bounds) and every truncation of a
 * valid command.
 */
#include <gtest/gtest.h>

#include <vector>

#include "iu_parse_support.hpp"

namespace srpt
{
namespace
{

using namespace iu_parse_test;

TEST(IuParseHostile, IuLongerThanNegotiated)
{
	CmdIu c;
	c.pad_to(8261);
	expect_reject(c.b, CmdCheck::IuTooLong);
	CmdIu ok;
	ok.pad_to(8260);
	EXPECT_EQ(parse(ok.b).action, IuAction::ExecuteCmd);
}

TEST(IuParseHostile, ShortCommandIsDroppedButItsCreditReturned)
{
	CmdIu c;
	c.b.resize(47);
	const auto r = parse(c.b);
	EXPECT_EQ(r.action, IuAction::Drop);
	EXPECT_EQ(r.drop, DropReason::ShortIu);
	EXPECT_TRUE(r.consumes_credit);
	EXPECT_FALSE(r.needs_send_context());
}

TEST(IuParseHostile, OneByteIuDoesNotParseStaleBufferBytes)
{
	/* A valid command sits in the buffer, but only 1 byte was received. */
	CmdIu c;
	c.fmt(0, 1).direct(0x10, 1, 512);
	const auto r =
	    parse_iu(std::span<const uint8_t>(c.b.data(), 1), limits());
	EXPECT_EQ(r.action, IuAction::Drop);
	EXPECT_EQ(r.drop, DropReason::ShortIu);
}

TEST(IuParseHostile, ParseCmdChecksLengthItself)
{
	CmdIu c;
	ParsedCmd out;
	out.tag = 1;
	EXPECT_EQ(
	    parse_cmd(std::span<const uint8_t>(c.b.data(), 47), limits(), out),
	    CmdCheck::ShortIu);
	EXPECT_EQ(out.tag, 0u);
	EXPECT_EQ(parse_cmd(c.b, limits(), out), CmdCheck::Ok);
	EXPECT_EQ(out.tag, tag_value());
}

TEST(IuParseHostile, EmptyIu)
{
	const auto r = parse_iu({}, limits());
	EXPECT_EQ(r.action, IuAction::Drop);
	EXPECT_EQ(r.drop, DropReason::Empty);
	EXPECT_FALSE(r.consumes_credit);
}

TEST(IuParseHostile, AddCdbLenReservedBits)
{
	for (uint8_t v : {1, 2, 3, 17}) {
		CmdIu c;
		c.add_cdb(v, 20);
		expect_reject(c.b, CmdCheck::ReservedAddCdbLen);
	}
}

TEST(IuParseHostile, AddCdbPastReceivedBytes)
{
	CmdIu c;
	c.add_cdb(252, 0);
	expect_reject(c.b, CmdCheck::AddCdbBeyondIu);
	CmdIu d;
	d.add_cdb(16, 15);
	expect_reject(d.b, CmdCheck::AddCdbBeyondIu);
}

TEST(IuParseHostile, AddCdbPushesDescriptorPastIu)
{
	CmdIu c;
	c.fmt(0, 1).add_cdb(16, 16).direct(0x10, 1, 512);
	c.b.resize(c.b.size() - 1);
	expect_reject(c.b, CmdCheck::DescBeyondIu);
}

TEST(IuParseHostile, ReservedBufferFormats)
{
	for (auto [o, i] : {std::pair{4, 0},
			    {0, 4},
			    {0xf, 0},
			    {0, 0xf},
			    {0, 3} /* immediate data-in */}) {
		CmdIu c;
		c.fmt(static_cast<uint8_t>(o), static_cast<uint8_t>(i))
		    .direct(0, 0, 512);
		expect_reject(c.b, CmdCheck::ReservedBufFmt);
	}
}

TEST(IuParseHostile, Bidirectional)
{
	CmdIu c;
	c.fmt(1, 1).direct(0, 0, 512).direct(0, 0, 512);
	expect_reject(c.b, CmdCheck::Bidirectional);
}

TEST(IuParseHostile, DirectDescriptorTruncated)
{
	CmdIu c;
	c.fmt(1, 0).direct(0x10, 1, 512);
	c.b.resize(63);
	expect_reject(c.b, CmdCheck::DescBeyondIu);
}

TEST(IuParseHostile, IndirectHeaderTruncated)
{
	CmdIu c;
	c.fmt(0, 2).counts(0, 1).indirect_hdr(16, 512);
	c.b.resize(67);
	expect_reject(c.b, CmdCheck::DescBeyondIu);
}

TEST(IuParseHostile, IndirectCountLargerThanTable)
{
	CmdIu c;
	c.fmt(0, 2).counts(0, 3).indirect_hdr(32, 1024);
	c.direct(1, 1, 512).direct(2, 2, 512);
	expect_reject(c.b, CmdCheck::IndirectCount);
}

TEST(IuParseHostile, IndirectTableLongerThanCount)
{
	CmdIu c;
	c.fmt(0, 2).counts(0, 1).indirect_hdr(32, 1024);
	c.direct(1, 1, 512).direct(2, 2, 512);
	expect_reject(c.b, CmdCheck::IndirectCount);
	/* The other direction's count does not make up for it. */
	CmdIu d;
	d.fmt(0, 2).counts(1, 1).indirect_hdr(32, 1024);
	d.direct(1, 1, 512).direct(2, 2, 512);
	expect_reject(d.b, CmdCheck::IndirectCount);
}

TEST(IuParseHostile, IndirectTableOfLengthZero)
{
	CmdIu c;
	c.fmt(0, 2).counts(0, 0).indirect_hdr(0, 0);
	expect_reject(c.b, CmdCheck::IndirectTableLen);
}

TEST(IuParseHostile, IndirectTableLengthNotMultipleOf16)
{
	CmdIu c;
	c.fmt(0, 2).counts(0, 1).indirect_hdr(24, 512).direct(1, 1, 512);
	c.pad_to(c.b.size() + 8);
	expect_reject(c.b, CmdCheck::IndirectTableLen);
}

TEST(IuParseHostile, IndirectTablePastReceivedBytes)
{
	CmdIu c;
	c.fmt(0, 2).counts(0, 4).indirect_hdr(64, 2048);
	c.direct(1, 1, 512).direct(2, 2, 512);
	expect_reject(c.b, CmdCheck::TableBeyondIu);
}

TEST(IuParseHostile, DescriptorLimit)
{
	std::vector<uint32_t> lens(255, 512);
	CmdIu c;
	c.fmt(0, 2).indirect(lens, false);
	auto r = parse(c.b);
	ASSERT_EQ(r.action, IuAction::ExecuteCmd) << describe(r.cmd_check);
	EXPECT_EQ(r.cmd.descriptors.size(), 255u);

	/* 256 entries cannot match an 8-bit count */
	CmdIu d;
	d.fmt(0, 2).counts(0, 0).indirect_hdr(256 * 16, 256 * 512);
	for (int i = 0; i < 256; i++)
		d.direct(i, i, 512);
	expect_reject(d.b, CmdCheck::IndirectCount);

	/* a configured lower limit */
	auto lim = limits();
	lim.max_desc = 2;
	CmdIu e;
	e.fmt(0, 2).indirect({512, 512, 512}, false);
	expect_reject(e.b, CmdCheck::TooManyDescriptors, lim);
	CmdIu f;
	f.fmt(0, 2).indirect({512, 512}, false);
	EXPECT_EQ(parse(f.b, lim).action, IuAction::ExecuteCmd);
}

TEST(IuParseHostile, ZeroLengthDescriptors)
{
	CmdIu c;
	c.fmt(0, 1).direct(0x10, 1, 0);
	expect_reject(c.b, CmdCheck::ZeroLengthDesc);
	CmdIu d;
	d.fmt(2, 0).indirect({512, 0, 512}, true);
	expect_reject(d.b, CmdCheck::ZeroLengthDesc);
	CmdIu e;
	e.fmt(3, 0).add_cdb(16, 16).imm(0).pad_to(100);
	expect_reject(e.b, CmdCheck::ZeroLengthDesc);
}

TEST(IuParseHostile, HugeDirectDescriptors)
{
	for (uint32_t len : {0xffffffffu, 0x40000000u, (1u << 20) + 1}) {
		CmdIu c;
		c.fmt(0, 1).direct(0x10, 1, len);
		expect_reject(c.b, CmdCheck::DataTooLong);
	}
	CmdIu ok;
	ok.fmt(0, 1).direct(0x10, 1, 1u << 20);
	EXPECT_EQ(parse(ok.b).action, IuAction::ExecuteCmd);
}

TEST(IuParseHostile, IndirectSumDoesNotWrap)
{
	auto lim = limits();
	lim.max_data_len = 0xffffffffu;
	CmdIu c;
	/* 0x80000000 * 2 wraps to 0 in 32 bits; header total says 0 */
	c.fmt(0, 2).counts(0, 2).indirect_hdr(32, 0);
	c.direct(1, 1, 0x80000000u).direct(2, 2, 0x80000000u);
	expect_reject(c.b, CmdCheck::DataTooLong, lim);
	CmdIu d;
	d.fmt(0, 2).indirect({1u << 19, (1u << 19) + 1}, false);
	expect_reject(d.b, CmdCheck::DataTooLong);
}

TEST(IuParseHostile, IndirectTotalMustEqualDescriptorSum)
{
	CmdIu c;
	c.fmt(0, 2).counts(0, 2).indirect_hdr(32, 2048);
	c.direct(1, 1, 512).direct(2, 2, 512);
	expect_reject(c.b, CmdCheck::TotalLenMismatch);
}

TEST(IuParseHostile, ImmediateDataNotNegotiated)
{
	auto lim = limits();
	lim.imm_data_offset = 0;
	CmdIu c;
	c.fmt(3, 0).add_cdb(16, 16).imm(16).pad_to(84);
	expect_reject(c.b, CmdCheck::ImmNotNegotiated, lim);
}

TEST(IuParseHostile, ImmediateLengthAllOnes)
{
	CmdIu c;
	c.fmt(3, 0).add_cdb(16, 16).imm(0xffffffffu).pad_to(8260);
	expect_reject(c.b, CmdCheck::ImmDataBeyondIu);
}

TEST(IuParseHostile, ImmediateLengthAllOnesWithoutTransferBound)
{
	/* 68 + 0xffffffff wraps to 67 in 32 bits: must not be accepted */
	auto lim = limits();
	lim.max_data_len = 0xffffffffu;
	CmdIu c;
	c.fmt(3, 0).add_cdb(16, 16).imm(0xffffffffu).pad_to(8260);
	expect_reject(c.b, CmdCheck::ImmDataBeyondIu, lim);
}

TEST(IuParseHostile, ImmediateDataPastReceivedBytes)
{
	CmdIu c;
	c.fmt(3, 0).add_cdb(16, 16).imm(513).pad_to(68 + 512);
	expect_reject(c.b, CmdCheck::ImmDataBeyondIu);
}

TEST(IuParseHostile, ImmediateDescriptorMustPrecedeData)
{
	auto lim = limits();
	lim.imm_data_offset = 52;
	CmdIu c;
	c.fmt(3, 0).add_cdb(4, 4).imm(16).pad_to(100);
	expect_reject(c.b, CmdCheck::ImmDescAfterData, lim);
	CmdIu ok;
	ok.fmt(3, 0).imm(16).pad_to(100);
	EXPECT_EQ(parse(ok.b, lim).action, IuAction::ExecuteCmd);
}

TEST(IuParseHostile, ImmediateDescriptorTruncated)
{
	CmdIu c;
	c.fmt(3, 0).add_cdb(16, 16).pad_to(66);
	expect_reject(c.b, CmdCheck::DescBeyondIu);
}

TEST(IuParseHostile, ImmediateAboveTransferLimit)
{
	auto lim = limits();
	lim.max_data_len = 256;
	CmdIu c;
	c.fmt(3, 0).add_cdb(16, 16).imm(257).pad_to(68 + 257);
	expect_reject(c.b, CmdCheck::DataTooLong, lim);
}

TEST(IuParseHostile, EveryTruncationOfAValidCommandIsHandled)
{
	CmdIu c;
	c.fmt(2, 0).add_cdb(8, 8).indirect({512, 1024, 4096}, true);
	for (size_t n = 0; n < c.b.size(); n++) {
		std::vector<uint8_t> t(c.b.begin(), c.b.begin() + n);
		const auto r = parse(t);
		EXPECT_NE(r.action, IuAction::ExecuteCmd) << n;
		if (n < 48)
			EXPECT_EQ(r.action, IuAction::Drop) << n;
		else
			EXPECT_EQ(r.action, IuAction::RejectCmd) << n;
	}
	EXPECT_EQ(parse(c.b).action, IuAction::ExecuteCmd);
}

} // namespace
} // namespace srpt
