// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * main() of the host unit tests: a broken invariant reported through
 * srpt_warn() fails the running test instead of aborting the binary, and
 * every test must leave no allocation behind.
 */
#include <gtest/gtest.h>
#include <srpt/host_platform.hpp>

#include "test_support.hpp"

namespace
{

class HostPlatformListener : public testing::EmptyTestEventListener
{
	size_t outstanding_at_start_ = 0;

	void OnTestStart(const testing::TestInfo &) override
	{
		srpt::host::ResetAllocationStats();
		srpt::host::ClearLogs();
		outstanding_at_start_ = srpt::host::OutstandingAllocations();
	}

	void OnTestEnd(const testing::TestInfo &info) override
	{
		srpt::host::ResetAllocationStats();
		const size_t leaked = srpt::host::OutstandingAllocations() -
				      outstanding_at_start_;
		if (leaked != 0 && !info.result()->Failed())
			ADD_FAILURE() << leaked << " allocation(s) leaked by "
				      << info.name();
	}
};

} // namespace

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv);
	srpt::host::SetWarnHandler(srpt::test::FailOnWarn);
	testing::UnitTest::GetInstance()->listeners().Append(
	    new HostPlatformListener);
	return RUN_ALL_TESTS();
}
