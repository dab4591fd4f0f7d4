// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The seeded, randomized interleaving checker of the channel core
 * (interleaving_checker.hpp) over 2000 schedules, with what they covered.
 *
 * On failure the seed is printed; SRPT_CHECKER_SEED=<seed> replays exactly
 * that schedule, SRPT_CHECKER_SCHEDULES=<n> changes how many run.
 */
#include <cstdio>
#include <cstdlib>
#include <string>

#include "interleaving_checker.hpp"

namespace srpt::test
{
namespace
{

using namespace interleaving;

bool RunSeed(uint64_t seed)
{
	const Params p = ParamsFor(seed);
	Checker c(seed, p);
	const std::string err = c.Run();
	if (err.empty())
		return true;
	ADD_FAILURE() << "interleaving checker failed, seed " << seed
		      << " (replay: SRPT_CHECKER_SEED=" << seed << ")\n  "
		      << Describe(p) << "\n  " << err << "\n  last events:\n"
		      << c.Trace();
	return false;
}

TEST(InterleavingChecker, RandomSchedules)
{
	if (const char *one = std::getenv("SRPT_CHECKER_SEED")) {
		RunSeed(std::strtoull(one, nullptr, 0));
		return;
	}
	uint64_t n = 2000;
	if (const char *s = std::getenv("SRPT_CHECKER_SCHEDULES"))
		n = std::strtoull(s, nullptr, 0);
	const uint64_t base = 0x5eed0000;
	unsigned failures = 0;
	g_cov = Coverage{};
	for (uint64_t i = 0; i < n && failures < 3; i++)
		if (!RunSeed(base + i))
			failures++;
	std::printf("[ coverage ] %llu schedules, %llu steps, %llu IUs, %llu "
		    "waited (max depth %llu), %llu kicks, %llu queue-full, "
		    "%llu deferred responses, %llu aborts, %llu disconnects, "
		    "%llu failed posts, %llu releases before completion, "
		    "%llu events while the lock was dropped\n",
		    (unsigned long long)g_cov.schedules,
		    (unsigned long long)g_cov.steps,
		    (unsigned long long)g_cov.ius,
		    (unsigned long long)g_cov.waited,
		    (unsigned long long)g_cov.max_wait_depth,
		    (unsigned long long)g_cov.kicks,
		    (unsigned long long)g_cov.queue_full,
		    (unsigned long long)g_cov.deferred,
		    (unsigned long long)g_cov.aborts,
		    (unsigned long long)g_cov.disconnects,
		    (unsigned long long)g_cov.post_failures,
		    (unsigned long long)g_cov.release_before_completion,
		    (unsigned long long)g_cov.concurrent);
	std::printf("[ coverage ] %llu disconnects while a drainer had dropped "
		    "the lock\n",
		    (unsigned long long)g_cov.concurrent_disconnects);
	std::printf("[ coverage ] %llu last references dropped in the glue's "
		    "put after a send completion, %llu of them by another "
		    "context\n",
		    (unsigned long long)g_cov.releases_in_put,
		    (unsigned long long)g_cov.concurrent_releases_in_put);
	std::printf("[ coverage ] %llu response completions in softirq, %llu "
		    "of them refused to process context\n",
		    (unsigned long long)g_cov.atomic_send_done,
		    (unsigned long long)g_cov.atomic_refused);
	/* A checker that never reaches the interesting paths checks nothing. */
	if (n >= 1000) {
		EXPECT_GT(g_cov.waited, 0u);
		EXPECT_GT(g_cov.kicks, 0u);
		EXPECT_GT(g_cov.queue_full, 0u);
		EXPECT_GT(g_cov.deferred, 0u);
		EXPECT_GT(g_cov.aborts, 0u);
		EXPECT_GT(g_cov.disconnects, 0u);
		EXPECT_GT(g_cov.release_before_completion, 0u);
		EXPECT_GT(g_cov.concurrent, 0u);
		EXPECT_GT(g_cov.concurrent_disconnects, 0u);
		EXPECT_GT(g_cov.releases_in_put, 0u);
		EXPECT_GT(g_cov.concurrent_releases_in_put, 0u);
		EXPECT_GT(g_cov.atomic_send_done, 0u);
		EXPECT_GT(g_cov.atomic_refused, 0u);
	}
}

} // namespace
} // namespace srpt::test
