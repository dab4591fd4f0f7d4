// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The driver for the data path's instruction gate (tests/bench/cost-gate.sh,
 * suite `cost` of make check): one SRP_CMD, a 4 KiB READ through one
 * direct descriptor, driven through the C entry points exactly as the
 * glue drives them (glue/completion.c): the receive completion and its
 * hand-off to the glue, the response (data-in and status) from LIO's
 * queue_data_in, the send completion in softirq, LIO's release. Built
 * with -O2 and no sanitizers, as the module is (tests/bench/microbench.mk).
 *
 * Two units of measurement: CostGateCommand, the whole C++ side of a
 * command (the entry points, the parser, the response builder); and
 * CostGateCore, the channel core alone with an environment whose hooks
 * do nothing (as BM_ChannelCommand of the microbenchmarks). callgrind
 * counts the
 * instructions inside it only (--toggle-collect), less those of the host's
 * stand-ins for kernel calls (the lock functions, the fake glue's posts),
 * which are not the port's code. COST_GATE_EXTRA=n adds n instructions'
 * worth of work inside it: the gate's own self-test, a deliberately slowed
 * copy that must fail.
 */
#include "datapath_fixture.hpp"

#include <cstdlib>
#include "null_env.hpp"

#ifndef COST_GATE_EXTRA
#define COST_GATE_EXTRA 0
#endif

/* One command, receive to release; returns its send context's index. */
extern "C" [[gnu::noinline]] uint32_t CostGateCommand(srpt_core_ch *ch,
						      uint32_t recv_index,
						      uint32_t len)
{
	uint32_t index = UINT32_MAX;
	srpt_dp_handoff h;
	if (srpt_core_dp_recv_done(ch, recv_index, len, true, &h)) {
		do {
			index = h.index; /* the glue submits it to LIO */
			h.rc = 0;
		} while (srpt_core_dp_handoff_done(ch, &h));
	}
	for (int i = 0; i < COST_GATE_EXTRA; i++)
		asm volatile("" ::: "memory"); /* kept: not a real loop body */
	srpt_dp_rsp rsp{};
	rsp.dir = SRPT_DP_DIR_READ;
	rsp.n_rdma_writes = 1;
	if (srpt_core_dp_queue_response(ch, index, &rsp) != 0)
		return UINT32_MAX;
	if (srpt_core_dp_send_done_atomic(ch, index) != SRPT_DP_NEXT_PUT)
		return UINT32_MAX;
	srpt_core_dp_cmd_release(ch, index); /* LIO's release_cmd */
	return index;
}


/* The channel core's part of one command (as BM_ChannelCommand). */
extern "C" [[gnu::noinline]] bool
CostGateCore(srpt::ChannelCore<srpt::NullEnv> &core)
{
	using namespace srpt;
	RecvCtx &r = *core.env().posted;
	Handoff h;
	bool more = core.OnRecvDone(r, 64, true, h);
	SendCtx *s = h.s; /* the glue submits it */
	while (more)
		more = core.HandoffDone(h);
	for (int i = 0; i < COST_GATE_EXTRA; i++)
		asm volatile("" ::: "memory");
	if (!s || core.QueueResponse(*s, 1, QueueFullPolicy::kReturnQueueFull) !=
		      Status::kOk)
		return false;
	if (core.OnSendDone(*s, true) != SendDone::kPutCmd)
		return false;
	core.ReleaseCmd(*s); /* the glue's put, LIO's release */
	return true;
}

namespace srpt::dp_test
{
namespace
{

TEST(CostGate, CoreCommands)
{
	const char *n_env = std::getenv("COST_GATE_N");
	const uint32_t n = n_env ? std::strtoul(n_env, nullptr, 0) : 1000;
	ChannelCore<NullEnv> core;
	ASSERT_TRUE(StartMeasuredCore(core));
	const uint64_t locks0 = host::SpinLockAcquisitions();
	for (uint32_t i = 0; i < n; i++) {
		core.env().posted->buf()[0] = 0x02; /* SRP_CMD, by the HCA */
		ASSERT_TRUE(CostGateCore(core)) << "command " << i;
	}
	const uint64_t locks = host::SpinLockAcquisitions() - locks0;
	std::printf("cost-gate: core: %u commands, %.2f lock holds each\n", n,
		    static_cast<double>(locks) / n);
	EXPECT_EQ(locks, 4ull * n) << "lock holds per command";
	EXPECT_EQ(core.Stats().send_ctx_free, 128u);
	(void)core.Disconnect();
	(void)core.Release();
	core.Destroy();
}

TEST_F(DataPathFixture, CostGateCommands)
{
	const char *n_env = std::getenv("COST_GATE_N");
	const uint32_t n = n_env ? std::strtoul(n_env, nullptr, 0) : 1000;
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	const std::vector<uint8_t> iu = DirectRead4k(0x42);
	RecvCtx &r = (*ch->core().recv_ring())[0];
	const uint64_t locks0 = host::SpinLockAcquisitions();
	for (uint32_t i = 0; i < n; i++) {
		std::memcpy(r.buf(), iu.data(), iu.size()); /* the HCA */
		ASSERT_NE(CostGateCommand(ch, 0, static_cast<uint32_t>(
						     iu.size())),
			  UINT32_MAX)
		    << "command " << i;
	}
	const uint64_t locks = host::SpinLockAcquisitions() - locks0;
	host::FakeCh &f = *host::FakeChannels()[0];
	EXPECT_EQ(f.posted_send.size(), n);
	ExpectSendContextsFree(ch);
	/* Four holds: receive, response, send completion, release. */
	std::printf("cost-gate: %u commands, %.2f channel lock holds each\n",
		    n, static_cast<double>(locks) / n);
	EXPECT_EQ(locks, 4ull * n) << "lock holds per command";
}

} // namespace
} // namespace srpt::dp_test
