/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cheapest environment of the channel core, for its measurements (the
 * microbenchmarks and the instruction gate): every hook does the least it
 * can. A failed post's PutCmd, the one hook that would call back, cannot
 * happen here (no post fails).
 */
#ifndef SRPT_TESTS_BENCH_NULL_ENV_HPP
#define SRPT_TESTS_BENCH_NULL_ENV_HPP

#include <srpt/datapath/channel_core.hpp>
#include <srpt/datapath/iu_class.hpp>

namespace srpt
{

struct NullEnv {
	RecvCtx *posted = nullptr; /* the receive posted last */

	IuClass ClassifyIu(const RecvCtx &r)
	{
		return ClassifySrpIu(r.buf(), r.byte_len());
	}
	Status PostRecv(RecvCtx &r)
	{
		posted = &r;
		return Status::kOk;
	}
	Status PostResponse(SendCtx &s, uint32_t, int32_t delta)
	{
		s.buf()[4] = static_cast<uint8_t>(delta);
		return Status::kOk;
	}
	Status PostRdmaRead(SendCtx &, uint32_t) { return Status::kOk; }
	Status PostZeroLengthWrite() { return Status::kOk; }
	void PutCmd(SendCtx &) {}
	void KickWaitList() {}
	void ResponseLost() {}
	void StateChanged(ChannelState, ChannelState) {}
};

/*
 * A live channel core as a login makes one (128 credits, 8 KiB receive
 * buffers, every receive posted): the measurements' one set-up.
 */
inline bool StartMeasuredCore(ChannelCore<NullEnv> &core)
{
	ChannelConfig cfg;
	cfg.credits = 128;
	cfg.rsp_buf_size = 256;
	cfg.req_buf_size = 8276;
	cfg.sq_size = 4096;
	return core.Init(cfg, Gfp::kKernel) == Status::kOk &&
	       core.PostInitialReceives() == Status::kOk && core.OnRtu();
}

} // namespace srpt

#endif
