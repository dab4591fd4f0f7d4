// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * parse_iu() of the IUs other than SRP_CMD, hand-built at srp.h offsets:
 * TSK_MGMT (known and unknown functions, short and long), initiator
 * logout, credit and AER responses, target-to-initiator and unknown
 * opcodes, a LOGIN_REQ on an established channel.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "iu_parse_support.hpp"

namespace srpt
{
namespace
{

using namespace iu_parse_test;

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

} // namespace
} // namespace srpt
