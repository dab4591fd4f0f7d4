// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Micro-benchmarks of the per-I/O path of the core, on the host platform
 * (tests/host: its "spinlock" is a std::mutex, its allocator calloc).
 *
 *   SendCtxGetPut      one Get + Put of the send-context pool
 *   WaitListPushPop    one Push + Pop of the wait list (empty list)
 *   WaitListDepth64    64 Push then 64 Pop (per item)
 *   ChannelCommand     a whole command through ChannelCore with a null
 *                      environment: receive completion (classify, credit,
 *                      wait list, send context, submit), queue response
 *                      (budget, credit, post), send completion (the put ->
 *                      ReleaseCmd, repost) -- every lock and check included
 *   ParseCmdBuildRsp   parse_iu() of a READ(10) SRP_CMD with one direct
 *                      descriptor + build_cmd_rsp() of its SRP_RSP
 *   ParseCmd           parse_cmd() of the same SRP_CMD: what the
 *                      kernel's SubmitCmd runs (the classification saw
 *                      the opcode), without parse_iu()'s 152-byte result
 */
#include <benchmark/benchmark.h>

#include <cstring>

#include <srpt/datapath/channel_core.hpp>
#include <srpt/datapath/iu_class.hpp>
#include <srpt/datapath/send_ctx_pool.hpp>
#include <srpt/datapath/wait_list.hpp>
#include <srpt/iu_build.hpp>
#include <srpt/iu_parse.hpp>
#include "null_env.hpp"

namespace srpt
{
namespace
{

void BM_SendCtxGetPut(benchmark::State &state)
{
	SendRing ring;
	if (ring.Init(128, 64, Gfp::kKernel) != Status::kOk) {
		state.SkipWithError("ring");
		return;
	}
	{
		SendCtxPool pool;
		pool.Init(ring, 0);
		for (auto _ : state) {
			SendCtx *s = pool.Get();
			benchmark::DoNotOptimize(s);
			pool.Put(*s);
		}
	}
	ring.Destroy();
}
BENCHMARK(BM_SendCtxGetPut);

struct Item {
	ListNode node;
	int v = 0;
};

void BM_WaitListPushPop(benchmark::State &state)
{
	Item item;
	WaitList<Item, &Item::node> wl;
	for (auto _ : state) {
		wl.Push(item);
		Item *it = wl.Pop();
		benchmark::DoNotOptimize(it);
	}
}
BENCHMARK(BM_WaitListPushPop);

void BM_WaitListDepth64(benchmark::State &state)
{
	static Item items[64];
	WaitList<Item, &Item::node> wl;
	for (auto _ : state) {
		for (Item &it : items)
			wl.Push(it);
		while (Item *it = wl.Pop())
			benchmark::DoNotOptimize(it);
	}
	state.SetItemsProcessed(state.iterations() * 64);
}
BENCHMARK(BM_WaitListDepth64);


void BM_ChannelCommand(benchmark::State &state)
{
	ChannelCore<NullEnv> core;
	if (!StartMeasuredCore(core)) {
		state.SkipWithError("init");
		return;
	}
	NullEnv &env = core.env();
	for (auto _ : state) {
		RecvCtx &r = *env.posted;
		r.buf()[0] = 0x02; /* SRP_CMD */
		Handoff h;
		bool more = core.OnRecvDone(r, 64, true, h);
		SendCtx &s = *h.s; /* the glue submits it */
		while (more)
			more = core.HandoffDone(h);
		(void)core.QueueResponse(s, 1,
					 QueueFullPolicy::kReturnQueueFull);
		if (core.OnSendDone(s, true) == SendDone::kPutCmd)
			core.ReleaseCmd(s); /* the glue's put, LIO's release */
	}
	(void)core.Disconnect();
	(void)core.Release();
	core.Destroy();
}
BENCHMARK(BM_ChannelCommand);

void PutBe32(uint8_t *p, uint32_t v)
{
	p[0] = static_cast<uint8_t>(v >> 24);
	p[1] = static_cast<uint8_t>(v >> 16);
	p[2] = static_cast<uint8_t>(v >> 8);
	p[3] = static_cast<uint8_t>(v);
}

/* SRP_CMD, READ(10) of 4 KiB, data-in through one direct descriptor. */
void FillRead4k(uint8_t (&iu)[64])
{
	std::memset(iu, 0, sizeof(iu));
	iu[0] = 0x02;
	iu[5] = 0x01;  /* buf_fmt: data-in direct */
	iu[7] = 1;     /* data_in_desc_cnt */
	iu[8] = 0x42;  /* tag */
	iu[32] = 0x28; /* READ(10) */
	iu[39] = 0;
	iu[40] = 8; /* 8 blocks */
	/* descriptor at 48: va 0x1000, key 0x1234, len 4096 */
	iu[54] = 0x10;
	PutBe32(iu + 56, 0x1234);
	PutBe32(iu + 60, 4096);
}

constexpr ChannelLimits kRead4kLimits{8260, 0, kDefaultMaxDataLen, 255};

void BM_ParseCmdBuildRsp(benchmark::State &state)
{
	uint8_t iu[64];
	FillRead4k(iu);
	const ChannelLimits limits = kRead4kLimits;
	uint8_t rsp[256];
	{
		const IuParseResult res = parse_iu({iu, sizeof(iu)}, limits);
		if (res.action != IuAction::ExecuteCmd) {
			state.SkipWithError(
			    "the sample SRP_CMD does not parse");
			return;
		}
	}
	for (auto _ : state) {
		benchmark::DoNotOptimize(iu);
		const IuParseResult res = parse_iu({iu, sizeof(iu)}, limits);
		CmdRspInfo info{};
		info.tag = res.tag;
		info.req_lim_delta = 1;
		info.status = ScsiStatus::Good;
		info.dir = res.cmd.dir;
		info.residual = Residual::None;
		const size_t len = build_cmd_rsp({rsp, sizeof(rsp)}, 256, info);
		benchmark::DoNotOptimize(len);
		benchmark::DoNotOptimize(rsp);
	}
}
BENCHMARK(BM_ParseCmdBuildRsp);

void BM_ParseCmd(benchmark::State &state)
{
	uint8_t iu[64];
	FillRead4k(iu);
	ParsedCmd c;
	if (parse_cmd({iu, sizeof(iu)}, kRead4kLimits, c) != CmdCheck::Ok) {
		state.SkipWithError("the sample SRP_CMD does not parse");
		return;
	}
	for (auto _ : state) {
		benchmark::DoNotOptimize(iu);
		const CmdCheck check =
		    parse_cmd({iu, sizeof(iu)}, kRead4kLimits, c);
		benchmark::DoNotOptimize(check);
		benchmark::DoNotOptimize(c);
	}
}
BENCHMARK(BM_ParseCmd);

} // namespace
} // namespace srpt

BENCHMARK_MAIN();
