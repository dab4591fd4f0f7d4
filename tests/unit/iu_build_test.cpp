// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Builders of target IUs: exact bytes of SRP_RSP (status, residuals,
 * sense and its truncation to max_ti_iu_len, req_lim_delta), the task
 * management response, sense data, T_LOGOUT and CRED_REQ.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <srpt/iu_build.hpp>

namespace srpt
{
namespace
{

constexpr uint8_t kTagBytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};

uint64_t tag_value()
{
	uint64_t v;
	std::memcpy(&v, kTagBytes, 8);
	return v;
}

uint32_t be32_at(const uint8_t *p)
{
	return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 |
	       uint32_t(p[2]) << 8 | p[3];
}

CmdRspInfo good()
{
	CmdRspInfo i{};
	i.tag = tag_value();
	i.req_lim_delta = 1;
	i.status = ScsiStatus::Good;
	i.dir = DataDir::FromDevice;
	i.residual = Residual::None;
	return i;
}

TEST(IuBuildRsp, GoodStatusBytes)
{
	uint8_t buf[256];
	std::memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(build_cmd_rsp(buf, 8260, good()), 36u);
	const uint8_t expect[36] = {
	    0xc1, 0, 0, 0, 0, 0, 0, 1, /* opcode, req_lim_delta 1 */
	    1,	  2, 3, 4, 5, 6, 7, 8, /* tag */
	    0,	  0, 0, 0,	       /* flags 0, status GOOD */
	    0,	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	EXPECT_EQ(0, std::memcmp(buf, expect, 36));
	EXPECT_EQ(buf[36], 0xee);
}

TEST(IuBuildRsp, ReqLimDeltaCarriesOwedCredits)
{
	auto i = good();
	i.req_lim_delta = 0x01020304;
	uint8_t buf[64];
	ASSERT_EQ(build_cmd_rsp(buf, 8260, i), 36u);
	EXPECT_EQ(be32_at(buf + 4), 0x01020304u);
}

TEST(IuBuildRsp, ResidualFlagsAndCounts)
{
	struct Case {
		DataDir dir;
		Residual res;
		uint8_t flag;
		size_t cnt_off;
	} cases[] = {
	    {DataDir::ToDevice, Residual::Underflow, 0x08, 20},
	    {DataDir::ToDevice, Residual::Overflow, 0x04, 20},
	    {DataDir::FromDevice, Residual::Underflow, 0x20, 24},
	    {DataDir::FromDevice, Residual::Overflow, 0x10, 24},
	};
	for (const auto &c : cases) {
		auto i = good();
		i.dir = c.dir;
		i.residual = c.res;
		i.residual_count = 0x1234;
		uint8_t buf[64] = {};
		ASSERT_EQ(build_cmd_rsp(buf, 8260, i), 36u);
		EXPECT_EQ(buf[18], c.flag);
		EXPECT_EQ(be32_at(buf + c.cnt_off), 0x1234u);
		const size_t other = c.cnt_off == 20 ? 24 : 20;
		EXPECT_EQ(be32_at(buf + other), 0u);
	}
	/* No direction: no residual flags (in-tree behaviour). */
	auto i = good();
	i.dir = DataDir::None;
	i.residual = Residual::Underflow;
	i.residual_count = 7;
	uint8_t buf[64] = {};
	build_cmd_rsp(buf, 8260, i);
	EXPECT_EQ(buf[18], 0);
	EXPECT_EQ(be32_at(buf + 20), 0u);
	EXPECT_EQ(be32_at(buf + 24), 0u);
}

TEST(IuBuildRsp, SenseDataFollowsHeader)
{
	uint8_t sense[18];
	ASSERT_EQ(build_fixed_sense(sense, kSenseInvalidFieldInCdb), 18u);
	auto i = good();
	i.status = ScsiStatus::CheckCondition;
	i.sense = sense;
	uint8_t buf[256];
	ASSERT_EQ(build_cmd_rsp(buf, 8260, i), 36u + 18u);
	EXPECT_EQ(buf[18], 0x02); /* SNSVALID */
	EXPECT_EQ(buf[19], 0x02); /* CHECK CONDITION */
	EXPECT_EQ(be32_at(buf + 28), 18u);
	EXPECT_EQ(be32_at(buf + 32), 0u);
	EXPECT_EQ(0, std::memcmp(buf + 36, sense, 18));
}

TEST(IuBuildRsp, SenseTruncatedToMaxTiIuLen)
{
	std::vector<uint8_t> sense(96);
	for (size_t k = 0; k < sense.size(); k++)
		sense[k] = static_cast<uint8_t>(k);
	auto i = good();
	i.status = ScsiStatus::CheckCondition;
	i.sense = sense;
	std::vector<uint8_t> buf(256, 0xee);
	/* max_ti_iu_len 64: 28 bytes of sense */
	ASSERT_EQ(build_cmd_rsp(buf, 64, i), 64u);
	EXPECT_EQ(be32_at(&buf[28]), 28u);
	EXPECT_EQ(buf[36 + 27], 27);
	EXPECT_EQ(buf[64], 0xee);
	/* the response buffer is the tighter bound */
	std::vector<uint8_t> small(40, 0xee);
	ASSERT_EQ(build_cmd_rsp(small, 8260, i), 40u);
	EXPECT_EQ(be32_at(&small[28]), 4u);
	/* exactly the header: no room for sense, SNSVALID not set */
	std::vector<uint8_t> hdr(36);
	ASSERT_EQ(build_cmd_rsp(hdr, 8260, i), 36u);
	EXPECT_EQ(hdr[18], 0);
	EXPECT_EQ(be32_at(&hdr[28]), 0u);
	/* too small for the header */
	std::vector<uint8_t> tiny(35, 0xee);
	EXPECT_EQ(build_cmd_rsp(tiny, 8260, i), 0u);
	EXPECT_EQ(tiny[0], 0xee);
	EXPECT_EQ(build_cmd_rsp(buf, 35, i), 0u);
}

TEST(IuBuildRsp, FixedSenseBytes)
{
	uint8_t s[18];
	std::memset(s, 0xee, sizeof(s));
	ASSERT_EQ(build_fixed_sense(s, kSenseInvalidFieldInCmdIu), 18u);
	const uint8_t expect[18] = {0x70, 0, 0x05, 0,	 0,    0, 0, 10, 0,
				    0,	  0, 0,	   0x0e, 0x03, 0, 0, 0,	 0};
	EXPECT_EQ(0, std::memcmp(s, expect, 18));
	EXPECT_EQ(build_fixed_sense({s, 17}, kSenseInvalidFieldInCmdIu), 0u);
}

TEST(IuBuildRsp, CheckConditionForARejectedCommand)
{
	/* A command whose indirect table is empty (in-tree: never answered). */
	std::vector<uint8_t> iu(68, 0);
	iu[0] = 0x02;
	iu[5] = 0x02;
	std::memcpy(&iu[8], kTagBytes, 8);
	const auto r = parse_iu(iu, ChannelLimits{8260, 0, 1u << 20, 255});
	ASSERT_EQ(r.action, IuAction::RejectCmd);
	uint8_t buf[256];
	const size_t n = build_reject_rsp(buf, 8260, r, 3);
	ASSERT_EQ(n, 36u + 18u);
	EXPECT_EQ(buf[0], 0xc1);
	EXPECT_EQ(be32_at(buf + 4), 3u);
	EXPECT_EQ(0, std::memcmp(buf + 8, kTagBytes, 8));
	EXPECT_EQ(buf[18], 0x02);
	EXPECT_EQ(buf[19], 0x02);
	EXPECT_EQ(buf[36 + 2], 0x05);
	EXPECT_EQ(buf[36 + 12], 0x0e);
	EXPECT_EQ(buf[36 + 13], 0x03);
}

TEST(IuBuildTskMgmt, ResponseBytes)
{
	uint8_t buf[64];
	std::memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(build_tsk_mgmt_rsp(buf, tag_value(), 2,
				     wire::TskMgmtRspCode::NotSupported),
		  40u);
	const uint8_t expect[40] = {
	    0xc1, 0, 0, 0,    0, 0, 0,	  2, 1, 2, 3, 4,
	    5,	  6, 7, 8,    0, 0, 0x01, 0, /* RSPVALID, status 0 */
	    0,	  0, 0, 0,    0, 0, 0,	  0, 0, 0, 0, 0, /* residuals, sense */
	    0,	  0, 0, 4,				 /* resp_data_len */
	    0,	  0, 0, 0x04,				 /* RSP_CODE */
	};
	EXPECT_EQ(0, std::memcmp(buf, expect, 40));
	EXPECT_EQ(buf[40], 0xee);
	EXPECT_EQ(
	    build_tsk_mgmt_rsp({buf, 39}, 0, 1, wire::TskMgmtRspCode::Complete),
	    0u);
	build_tsk_mgmt_rsp(buf, 0, 1, wire::TskMgmtRspCode::Complete);
	EXPECT_EQ(buf[39], 0x00);
	build_tsk_mgmt_rsp(buf, 0, 1, wire::TskMgmtRspCode::Failed);
	EXPECT_EQ(buf[39], 0x05);
	build_tsk_mgmt_rsp(buf, 0, 1, wire::TskMgmtRspCode::FieldsInvalid);
	EXPECT_EQ(buf[39], 0x02);
}

TEST(IuBuildOther, TLogoutAndCredReq)
{
	uint8_t buf[16];
	ASSERT_EQ(build_t_logout(buf, tag_value(), 0x00000003), 16u);
	const uint8_t t[16] = {0x80, 0, 0, 0, 0, 0, 0, 3,
			       1,    2, 3, 4, 5, 6, 7, 8};
	EXPECT_EQ(0, std::memcmp(buf, t, 16));
	ASSERT_EQ(build_cred_req(buf, tag_value(), 5), 16u);
	const uint8_t c[16] = {0x81, 0, 0, 0, 0, 0, 0, 5,
			       1,    2, 3, 4, 5, 6, 7, 8};
	EXPECT_EQ(0, std::memcmp(buf, c, 16));
	EXPECT_EQ(build_t_logout({buf, 15}, 0, 0), 0u);
	EXPECT_EQ(build_cred_req({buf, 15}, 0, 0), 0u);
}

} // namespace
} // namespace srpt
