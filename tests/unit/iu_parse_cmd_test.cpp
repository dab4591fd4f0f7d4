// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * parse_iu() of valid SRP_CMDs: data descriptors, additional CDB,
 * immediate data, task attributes; the sense data of each command check,
 * the LUN decoding and the limits a login sets.
 */
#include <gtest/gtest.h>

#include <vector>

#include "iu_parse_support.hpp"

namespace srpt
{
namespace
{

using namespace iu_parse_test;
using wire::DescFormat;

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
