// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>
#include <srpt/core_api.h>
#include <srpt/host_platform.hpp>
#include <srpt/module_params.hpp>

namespace srpt
{
namespace
{

srpt_module_params Params(int32_t max_req, int32_t srq)
{
	return srpt_module_params{max_req, srq};
}

TEST(ModuleParams, DefaultsAreTheInTreeOnes)
{
	EXPECT_EQ(SRPT_DEFAULT_MAX_REQ_SIZE, 8276);
	EXPECT_EQ(SRPT_DEFAULT_SRQ_SIZE, 4095);
	EXPECT_EQ(ValidateModuleParams(Params(8276, 4095)), Status::kOk);
}

TEST(ModuleParams, MaxReqSizeHasAFloorOf996)
{
	EXPECT_EQ(ValidateModuleParams(Params(996, 4095)), Status::kOk);
	EXPECT_EQ(ValidateModuleParams(Params(995, 4095)), Status::kInvalid);
	EXPECT_TRUE(
	    host::LogsContain("invalid value 995 for kernel module parameter "
			      "srp_max_req_size -- must be at least 996."));
	EXPECT_EQ(ValidateModuleParams(Params(-1, 4095)), Status::kInvalid);
	EXPECT_EQ(ValidateModuleParams(Params(1 << 30, 4095)), Status::kOk);
}

TEST(ModuleParams, SrqSizeIsWithin4And65535)
{
	EXPECT_EQ(ValidateModuleParams(Params(8276, 4)), Status::kOk);
	EXPECT_EQ(ValidateModuleParams(Params(8276, 65535)), Status::kOk);
	EXPECT_EQ(ValidateModuleParams(Params(8276, 3)), Status::kInvalid);
	EXPECT_EQ(ValidateModuleParams(Params(8276, 65536)), Status::kInvalid);
	EXPECT_TRUE(host::LogsContain(
	    "invalid value 65536 for kernel module parameter "
	    "srpt_srq_size -- must be in the range [4..65535]."));
}

TEST(ModuleParams, InitRefusesBadParametersWithEinval)
{
	const srpt_module_params bad = Params(100, 4095);
	EXPECT_EQ(srpt_core_init(&bad), -SRPT_EINVAL);
	/* Nothing was set up, so init can run again with good values. */
	const srpt_module_params good = Params(8276, 4095);
	ASSERT_EQ(srpt_core_init(&good), 0);
	srpt_core_exit();
}

TEST(ModuleParams, InitFailsCleanlyWithoutMemory)
{
	const srpt_module_params good = Params(8276, 4095);
	host::FailAllAllocations(true);
	EXPECT_EQ(srpt_core_init(&good), -SRPT_ENOMEM);
	host::FailAllAllocations(false);
	ASSERT_EQ(srpt_core_init(&good), 0);
	srpt_core_exit();
}

struct HexCase {
	const char *text;
	Status status;
	uint64_t value;
};

class ParseHexU64Test : public testing::TestWithParam<HexCase>
{
};

/* kstrtou64(text, 16) as the in-tree srpt_set_u64_x uses it. */
INSTANTIATE_TEST_SUITE_P(
    KstrtouSemantics, ParseHexU64Test,
    testing::Values(
	HexCase{"0", Status::kOk, 0}, HexCase{"1234", Status::kOk, 0x1234},
	HexCase{"0x0002c90300a0b0c0", Status::kOk, 0x0002c90300a0b0c0},
	HexCase{"0X0002C90300A0B0C0", Status::kOk, 0x0002c90300a0b0c0},
	HexCase{"ffffffffffffffff", Status::kOk, ~0ull},
	HexCase{"+0x10", Status::kOk, 0x10}, HexCase{"10\n", Status::kOk, 0x10},
	HexCase{"00000000000000000001", Status::kOk, 1},
	HexCase{"10000000000000000", Status::kRange, 0},
	HexCase{"", Status::kInvalid, 0}, HexCase{"\n", Status::kInvalid, 0},
	HexCase{"0x", Status::kInvalid, 0}, HexCase{"0xg", Status::kInvalid, 0},
	HexCase{"12 ", Status::kInvalid, 0},
	HexCase{"10\n\n", Status::kInvalid, 0},
	HexCase{"-1", Status::kInvalid, 0}, HexCase{" 1", Status::kInvalid, 0},
	HexCase{"1:2", Status::kInvalid, 0}));

TEST_P(ParseHexU64Test, MatchesKstrtou64)
{
	const HexCase &c = GetParam();
	const Result<uint64_t> r = ParseHexU64(c.text);
	EXPECT_EQ(r.status(), c.status) << "text: '" << c.text << "'";
	if (c.status == Status::kOk && r.ok()) {
		EXPECT_EQ(*r, c.value);
	}
}

TEST(ServiceGuidParam, SetterStoresAndRejects)
{
	ASSERT_EQ(srpt_core_set_service_guid("0x1122334455667788\n"), 0);
	EXPECT_EQ(srpt_core_service_guid(), 0x1122334455667788ull);
	/* A rejected write leaves the previous value. */
	EXPECT_EQ(srpt_core_set_service_guid("zz"), -SRPT_EINVAL);
	EXPECT_EQ(srpt_core_set_service_guid("1ffffffffffffffff"),
		  -SRPT_ERANGE);
	EXPECT_EQ(srpt_core_service_guid(), 0x1122334455667788ull);
	ASSERT_EQ(srpt_core_set_service_guid("0"), 0);
}

} // namespace
} // namespace srpt
