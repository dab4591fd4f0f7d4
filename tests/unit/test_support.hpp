/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Helpers shared by the unit tests. */
#ifndef SRPT_TEST_SUPPORT_HPP
#define SRPT_TEST_SUPPORT_HPP

#include <gtest/gtest.h>
#include <srpt/host_platform.hpp>

#include <string>
#include <vector>

namespace srpt::test
{

/* The default warn handler of the unit tests: the running test fails. */
inline void FailOnWarn(const char *file, int line, const char *what)
{
	ADD_FAILURE_AT(file, line) << "srpt_warn: " << what;
}

/*
 * Within its scope, srpt_warn() is expected rather than a failure; the
 * warnings are collected for the test to check.
 */
class ScopedExpectWarn
{
public:
	ScopedExpectWarn()
	{
		host::SetWarnHandler(
		    [this](const char *, int, const char *what) {
			    warnings_.push_back(what);
		    });
	}
	~ScopedExpectWarn() { host::SetWarnHandler(FailOnWarn); }

	const std::vector<std::string> &warnings() const { return warnings_; }

private:
	std::vector<std::string> warnings_;
};

} // namespace srpt::test

#endif
