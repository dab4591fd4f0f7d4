// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * parse_iu(): every SRP_CMD rule and every IU type, with IUs hand-built at
 * srp.h offsets in buffers of exactly the received size (so ASan catches
 * any read past wc.byte_len), including the hostile inputs that crash or
 * corrupt the in-tree 6.1 driver.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <vector>

#include "srpt/iu_parse.hpp"

namespace srpt
{

/* gtest prints these by name */
void PrintTo(CmdCheck c, std::ostream *os)
{
	*os << describe(c);
}
void PrintTo(DropReason d, std::ostream *os)
{
	*os << describe(d);
}
void PrintTo(IuAction a, std::ostream *os)
{
	static const char *const names[] = {
	    "ExecuteCmd", "RejectCmd", "TaskMgmt", "RejectTaskMgmt",
	    "Logout",	  "Ignore",    "Drop"};
	*os << names[static_cast<int>(a)];
}

namespace
{

using wire::DescFormat;

void put_be(std::vector<uint8_t> &b, size_t off, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[off + i] = static_cast<uint8_t>(v);
}

constexpr uint8_t kTagBytes[8] = {0x10, 0x11, 0x12, 0x13,
				  0x14, 0x15, 0x16, 0x17};

uint64_t tag_value()
{
	uint64_t v;
	std::memcpy(&v, kTagBytes, 8);
	return v;
}

/* An SRP_CMD assembled byte by byte. */
struct CmdIu {
	std::vector<uint8_t> b = std::vector<uint8_t>(48, 0);

	CmdIu()
	{
		b[0] = 0x02;
		std::memcpy(&b[8], kTagBytes, 8);
		b[20] = 0x00, b[21] = 0x05; /* LUN 5 */
		b[29] = 0x00;		    /* SIMPLE */
		b[32] = 0x28;		    /* READ(10) */
	}
	CmdIu &fmt(uint8_t out, uint8_t in)
	{
		b[5] = static_cast<uint8_t>(out << 4 | in);
		return *this;
	}
	CmdIu &counts(uint8_t out, uint8_t in)
	{
		b[6] = out, b[7] = in;
		return *this;
	}
	CmdIu &add_cdb(uint8_t len, size_t bytes)
	{
		b[31] = len;
		b.insert(b.end(), bytes, 0xcd);
		return *this;
	}
	CmdIu &direct(uint64_t va, uint32_t key, uint32_t len)
	{
		const size_t o = b.size();
		b.resize(o + 16);
		put_be(b, o, va, 8);
		put_be(b, o + 8, key, 4);
		put_be(b, o + 12, len, 4);
		return *this;
	}
	CmdIu &indirect_hdr(uint32_t table_len, uint32_t total)
	{
		const size_t o = b.size();
		b.resize(o + 20);
		put_be(b, o, 0xfeedull, 8);
		put_be(b, o + 8, 0x99, 4);
		put_be(b, o + 12, table_len, 4);
		put_be(b, o + 16, total, 4);
		return *this;
	}
	/* header + entries, counts and lengths consistent */
	CmdIu &indirect(const std::vector<uint32_t> &lens, bool data_out)
	{
		uint32_t total = 0;
		for (auto l : lens)
			total += l;
		const auto n = static_cast<uint8_t>(lens.size());
		data_out ? counts(n, 0) : counts(0, n);
		indirect_hdr(static_cast<uint32_t>(lens.size() * 16), total);
		for (size_t i = 0; i < lens.size(); i++)
			direct(0x1000 * (i + 1), 0x40 + i, lens[i]);
		return *this;
	}
	CmdIu &imm(uint32_t len)
	{
		const size_t o = b.size();
		b.resize(o + 4);
		put_be(b, o, len, 4);
		return *this;
	}
	CmdIu &pad_to(size_t n, uint8_t v = 0x5a)
	{
		b.resize(n, v);
		return *this;
	}
};

ChannelLimits limits()
{
	return ChannelLimits{8260, 68, 1u << 20, 255};
}

IuParseResult parse(const std::vector<uint8_t> &b,
		    const ChannelLimits &lim = limits())
{
	return parse_iu(std::span<const uint8_t>(b.data(), b.size()), lim);
}

/* The outcome of a command that must be rejected with @check. */
void expect_reject(const std::vector<uint8_t> &b, CmdCheck check,
		   const ChannelLimits &lim = limits())
{
	const auto r = parse(b, lim);
	EXPECT_EQ(r.action, IuAction::RejectCmd);
	EXPECT_EQ(r.cmd_check, check) << describe(r.cmd_check);
	EXPECT_EQ(r.tag, tag_value());
	EXPECT_TRUE(r.consumes_credit);
	EXPECT_TRUE(r.needs_send_context());
}

TEST(IuParseCmd, ReadWithDirectDescriptor)
{
	CmdIu c;
	c.fmt(0, 1).direct(0x0000123456789000ull, 0xabcd, 4096);
	const auto r = parse(c.b);
	ASSERT_EQ(r.action, IuAction::ExecuteCmd) << describe(r.cmd_check);
	EXPECT_TRUE(r.consumes_credit);
	EXPECT_TRUE(r.needs_send_context());
	EXPECT_EQ(r.tag, tag_value());
	EXPECT_EQ(r.cmd.tag, tag_value());
	EXPECT_EQ(lun_to_u64(r.cmd.lun), 5u);
	EXPECT_EQ(r.cmd.task_attr, wire::TaskAttr::Simple);
	EXPECT_EQ(r.cmd.cdb.data(), c.b.data() + 32);
	EXPECT_EQ(r.cmd.cdb.size(), 16u);
	EXPECT_EQ(r.cmd.cdb[0], 0x28);
	EXPECT_EQ(r.cmd.dir, DataDir::FromDevice);
	EXPECT_EQ(r.cmd.format, DescFormat::Direct);
	ASSERT_EQ(r.cmd.descriptors.size(), 1u);
	EXPECT_EQ(r.cmd.descriptors.bytes().data(), c.b.data() + 48);
	const auto d = r.cmd.descriptors[0];
	EXPECT_EQ(d.va, 0x0000123456789000ull);
	EXPECT_EQ(d.key, 0xabcdu);
	EXPECT_EQ(d.len, 4096u);
	EXPECT_EQ(r.cmd.data_length, 4096u);
	EXPECT_TRUE(r.cmd.imm_data.empty());
}

TEST(IuParseCmd, WriteWithIndirectTable)
{
	CmdIu c;
	c.fmt(2, 0).indirect({4096, 8192, 512}, true);
	const auto r = parse(c.b);
	ASSERT_EQ(r.action, IuAction::ExecuteCmd) << describe(r.cmd_check);
	EXPECT_EQ(r.cmd.dir, DataDir::ToDevice);
	EXPECT_EQ(r.cmd.format, DescFormat::Indirect);
	ASSERT_EQ(r.cmd.descriptors.size(), 3u);
	EXPECT_EQ(r.cmd.descriptors.bytes().data(), c.b.data() + 68);
	EXPECT_EQ(r.cmd.descriptors[1].va, 0x2000u);
	EXPECT_EQ(r.cmd.descriptors[1].key, 0x41u);
	EXPECT_EQ(r.cmd.descriptors[2].len, 512u);
	EXPECT_EQ(r.cmd.data_length, 4096u + 8192u + 512u);
}

TEST(IuParseCmd, NoDataCommand)
{
	CmdIu c;
	c.b[32] = 0x00; /* TEST UNIT READY */
	const auto r = parse(c.b);
	ASSERT_EQ(r.action, IuAction::ExecuteCmd);
	EXPECT_EQ(r.cmd.dir, DataDir::None);
	EXPECT_EQ(r.cmd.format, DescFormat::None);
	EXPECT_EQ(r.cmd.data_length, 0u);
	EXPECT_TRUE(r.cmd.descriptors.empty());
}

TEST(IuParseCmd, AdditionalCdbExtendsCdbAndMovesDescriptors)
{
	CmdIu c;
	c.fmt(0, 1).add_cdb(16, 16).direct(0x10, 1, 512);
	const auto r = parse(c.b);
	ASSERT_EQ(r.action, IuAction::ExecuteCmd) << describe(r.cmd_check);
	EXPECT_EQ(r.cmd.cdb.size(), 32u);
	EXPECT_EQ(r.cmd.cdb[31], 0xcd);
	EXPECT_EQ(r.cmd.descriptors.bytes().data(), c.b.data() + 64);
	EXPECT_EQ(r.cmd.descriptors[0].len, 512u);
}

TEST(IuParseCmd, ImmediateWrite)
{
	CmdIu c;
	c.fmt(3, 0).add_cdb(16, 16).imm(512).pad_to(68 + 512);
	const auto r = parse(c.b);
	ASSERT_EQ(r.action, IuAction::ExecuteCmd) << describe(r.cmd_check);
	EXPECT_EQ(r.cmd.dir, DataDir::ToDevice);
	EXPECT_EQ(r.cmd.format, DescFormat::Immediate);
	EXPECT_EQ(r.cmd.imm_data.data(), c.b.data() + 68);
	EXPECT_EQ(r.cmd.imm_data.size(), 512u);
	EXPECT_EQ(r.cmd.data_length, 512u);
	EXPECT_TRUE(r.cmd.descriptors.empty());
}

TEST(IuParseCmd, TaskAttributes)
{
	for (uint8_t a : {0, 1, 2, 4}) {
		CmdIu c;
		c.b[29] = a;
		const auto r = parse(c.b);
		ASSERT_EQ(r.action, IuAction::ExecuteCmd) << int(a);
		EXPECT_EQ(static_cast<uint8_t>(r.cmd.task_attr), a);
	}
	for (uint8_t a : {3, 5, 7, 8, 0xff}) {
		CmdIu c;
		c.b[29] = a;
		expect_reject(c.b, CmdCheck::ReservedTaskAttr);
	}
}

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

TEST(IuParseSense, MappingPerCheck)
{
	EXPECT_EQ(sense_for(CmdCheck::IuTooLong), kSenseIuTooLong);
	for (auto k : {CmdCheck::AddCdbBeyondIu, CmdCheck::DescBeyondIu,
		       CmdCheck::TableBeyondIu, CmdCheck::ImmDataBeyondIu,
		       CmdCheck::ShortIu})
		EXPECT_EQ(sense_for(k), kSenseIuTooShort) << describe(k);
	for (auto k : {CmdCheck::Bidirectional, CmdCheck::TooManyDescriptors,
		       CmdCheck::DataTooLong})
		EXPECT_EQ(sense_for(k), kSenseInvalidFieldInCdb) << describe(k);
	for (auto k : {CmdCheck::ReservedTaskAttr, CmdCheck::ReservedAddCdbLen,
		       CmdCheck::ReservedBufFmt, CmdCheck::IndirectTableLen,
		       CmdCheck::IndirectCount, CmdCheck::ZeroLengthDesc,
		       CmdCheck::TotalLenMismatch, CmdCheck::ImmNotNegotiated,
		       CmdCheck::ImmDescAfterData})
		EXPECT_EQ(sense_for(k), kSenseInvalidFieldInCmdIu)
		    << describe(k);
	EXPECT_EQ(kSenseInvalidFieldInCdb.key, SenseKey::IllegalRequest);
	EXPECT_EQ(kSenseInvalidFieldInCdb.asc, 0x24);
	EXPECT_EQ(kSenseInvalidFieldInCmdIu.asc, 0x0e);
	EXPECT_EQ(kSenseInvalidFieldInCmdIu.ascq, 0x03);
	for (int i = 0; i <= static_cast<int>(CmdCheck::ShortIu); i++)
		EXPECT_STRNE(describe(static_cast<CmdCheck>(i)), "unknown");
}

/* A TSK_MGMT IU hand-built at srp.h offsets. */
std::vector<uint8_t> tsk_mgmt(uint8_t func, size_t len = 48)
{
	std::vector<uint8_t> b(len, 0);
	b[0] = 0x01;
	b[1] = 0x02;
	std::memcpy(&b[8], kTagBytes, 8);
	b[20] = 0x00, b[21] = 0x07;
	b[30] = func;
	for (int i = 0; i < 8; i++)
		b[32 + i] = static_cast<uint8_t>(0x70 + i);
	return b;
}

TEST(IuParseTskMgmt, ValidFunctions)
{
	for (uint8_t f : {0x01, 0x02, 0x04, 0x08, 0x40}) {
		const auto r = parse(tsk_mgmt(f));
		ASSERT_EQ(r.action, IuAction::TaskMgmt);
		EXPECT_TRUE(r.tm.supported);
		EXPECT_EQ(static_cast<uint8_t>(r.tm.func), f);
		EXPECT_EQ(r.tm.tag, tag_value());
		EXPECT_EQ(r.tag, tag_value());
		EXPECT_EQ(lun_to_u64(r.tm.lun), 7u);
		EXPECT_EQ(r.tm.sol_not, 0x02);
		uint8_t tt[8];
		std::memcpy(tt, &r.tm.task_tag, 8);
		EXPECT_EQ(tt[0], 0x70);
		EXPECT_EQ(tt[7], 0x77);
		EXPECT_TRUE(r.consumes_credit);
		EXPECT_TRUE(r.needs_send_context());
	}
}

TEST(IuParseTskMgmt, UnknownFunctionIsAnsweredNotSupported)
{
	for (uint8_t f : {0x00, 0x03, 0x10, 0x20, 0x80, 0xff}) {
		const auto r = parse(tsk_mgmt(f));
		ASSERT_EQ(r.action, IuAction::TaskMgmt);
		EXPECT_FALSE(r.tm.supported) << int(f);
		EXPECT_EQ(r.tm.func_raw, f);
	}
}

TEST(IuParseTskMgmt, ShortAndLong)
{
	auto r = parse(tsk_mgmt(1, 47));
	EXPECT_EQ(r.action, IuAction::Drop);
	EXPECT_EQ(r.drop, DropReason::ShortIu);
	EXPECT_TRUE(r.consumes_credit);
	r = parse(tsk_mgmt(1, 8261));
	EXPECT_EQ(r.action, IuAction::RejectTaskMgmt);
	EXPECT_EQ(r.tag, tag_value());
	EXPECT_TRUE(r.needs_send_context());
}

std::vector<uint8_t> small_iu(uint8_t opcode, size_t len = 16)
{
	std::vector<uint8_t> b(len, 0);
	b[0] = opcode;
	if (len >= 16)
		std::memcpy(&b[8], kTagBytes, 8);
	return b;
}

TEST(IuParseOther, InitiatorLogout)
{
	auto r = parse(small_iu(0x03));
	EXPECT_EQ(r.action, IuAction::Logout);
	EXPECT_EQ(r.tag, tag_value());
	EXPECT_FALSE(r.consumes_credit);
	EXPECT_FALSE(r.needs_send_context());
	r = parse(small_iu(0x03, 15));
	EXPECT_EQ(r.action, IuAction::Drop);
	EXPECT_EQ(r.drop, DropReason::ShortIu);
}

TEST(IuParseOther, CreditAndAerResponsesAreIgnored)
{
	for (uint8_t op : {0x41, 0x42}) {
		auto r = parse(small_iu(op));
		EXPECT_EQ(r.action, IuAction::Ignore);
		EXPECT_EQ(r.tag, tag_value());
		EXPECT_FALSE(r.consumes_credit);
		r = parse(small_iu(op, 8));
		EXPECT_EQ(r.action, IuAction::Drop);
		EXPECT_EQ(r.drop, DropReason::ShortIu);
		r = parse(small_iu(op, 8261));
		EXPECT_EQ(r.action, IuAction::Drop);
		EXPECT_EQ(r.drop, DropReason::TooLong);
	}
}

TEST(IuParseOther, TargetToInitiatorOpcodesAreDropped)
{
	for (uint8_t op : {0xc0, 0xc1, 0xc2, 0x80, 0x81, 0x82}) {
		const auto r = parse(small_iu(op, 64));
		EXPECT_EQ(r.action, IuAction::Drop) << int(op);
		EXPECT_EQ(r.drop, DropReason::TargetOpcode);
		EXPECT_FALSE(r.consumes_credit);
	}
}

TEST(IuParseOther, LoginReqOnEstablishedChannelIsDropped)
{
	const auto r = parse(small_iu(0x00, 64));
	EXPECT_EQ(r.action, IuAction::Drop);
	EXPECT_EQ(r.drop, DropReason::LoginReq);
}

TEST(IuParseOther, UnknownOpcodesAreDropped)
{
	for (int op = 0; op < 256; op++) {
		switch (op) {
		case 0x00:
		case 0x01:
		case 0x02:
		case 0x03:
		case 0x41:
		case 0x42:
		case 0xc0:
		case 0xc1:
		case 0xc2:
		case 0x80:
		case 0x81:
		case 0x82:
			continue;
		}
		const auto r = parse(small_iu(static_cast<uint8_t>(op), 64));
		EXPECT_EQ(r.action, IuAction::Drop) << op;
		EXPECT_EQ(r.drop, DropReason::UnknownOpcode) << op;
	}
	for (int i = 0; i <= static_cast<int>(DropReason::UnknownOpcode); i++)
		EXPECT_STRNE(describe(static_cast<DropReason>(i)), "unknown");
}

TEST(IuParseLun, ScsilunToInt)
{
	wire::Lun l{};
	EXPECT_EQ(lun_to_u64(l), 0u);
	l = wire::Lun{{0x00, 0x05}};
	EXPECT_EQ(lun_to_u64(l), 5u);
	l = wire::Lun{{0x40, 0x01}};
	EXPECT_EQ(lun_to_u64(l), 0x4001u);
	l = wire::Lun{{0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04}};
	EXPECT_EQ(lun_to_u64(l), 0x0004000300020001ull);
}

TEST(IuParseLimits, FromLoginParams)
{
	LoginParams p{};
	p.it_iu_len = 4096;
	p.imm_data_offset = 68;
	const auto l = channel_limits(p, 1u << 20);
	EXPECT_EQ(l.it_iu_len, 4096u);
	EXPECT_EQ(l.imm_data_offset, 68);
	EXPECT_EQ(l.max_data_len, 1u << 20);
	EXPECT_EQ(l.max_desc, 255);
}

} // namespace
} // namespace srpt
