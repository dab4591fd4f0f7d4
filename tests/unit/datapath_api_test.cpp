// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The conversions of src/datapath_api.cpp between the data path's C types
 * (core_api.h) and the core's: each C value the glue sends reaches the
 * core as the value the channel acts on, and a Status reaches the glue as
 * the errno it stands for. The behaviour behind them is tested through
 * the srpt_core_dp_* entry points in the DataPathFixture tests
 * (datapath_fixture.hpp).
 */
#include <gtest/gtest.h>
#include <srpt/channel_stats_fields.h>
#include <srpt/core_api.h>
#include <srpt/datapath_api.hpp>
#include <srpt/status.hpp>

#include <cerrno>
#include <iterator>

namespace srpt
{
namespace
{

TEST(DatapathApi, EveryCmEventMapsToItsCoreEvent)
{
	struct {
		srpt_dp_cm_event c;
		CmEvent core;
	} const cases[] = {
	    {SRPT_DP_CM_ESTABLISHED, CmEvent::kEstablished},
	    {SRPT_DP_CM_DISCONNECTED, CmEvent::kDisconnected},
	    {SRPT_DP_CM_TIMEWAIT_EXIT, CmEvent::kTimewaitExit},
	    {SRPT_DP_CM_REJECTED, CmEvent::kRejected},
	    {SRPT_DP_CM_DEVICE_REMOVAL, CmEvent::kDeviceRemoval},
	    {SRPT_DP_CM_ADDR_CHANGE, CmEvent::kAddrChange},
	    {SRPT_DP_CM_DREQ_RECEIVED, CmEvent::kDreqReceived},
	};
	/* The C enum is dense from 0: the table covers every value. */
	static_assert(SRPT_DP_CM_DREQ_RECEIVED + 1 == std::size(cases));
	for (const auto &c : cases) {
		const Result<CmEvent> e = CmEventFromC(c.c);
		ASSERT_TRUE(e.ok()) << c.c;
		EXPECT_EQ(*e, c.core) << c.c;
	}
	EXPECT_EQ(CmEventFromC(static_cast<srpt_dp_cm_event>(
				   SRPT_DP_CM_DREQ_RECEIVED + 1))
		      .status(),
		  Status::kInvalid);
}

TEST(DatapathApi, TaskManagementResultMapsToItsResponseCode)
{
	EXPECT_EQ(TskMgmtRspCodeFromC(SRPT_DP_TMR_COMPLETE),
		  wire::TskMgmtRspCode::Complete);
	EXPECT_EQ(TskMgmtRspCodeFromC(SRPT_DP_TMR_REJECTED),
		  wire::TskMgmtRspCode::NotSupported);
	EXPECT_EQ(TskMgmtRspCodeFromC(SRPT_DP_TMR_FAILED),
		  wire::TskMgmtRspCode::Failed);
	EXPECT_EQ(TskMgmtRspCodeFromC(static_cast<srpt_dp_tmr_result>(7)),
		  wire::TskMgmtRspCode::Failed);
}

TEST(DatapathApi, ResponseReachesTheCoreFieldByField)
{
	const uint8_t sense[] = {0x70, 0, 5};
	srpt_dp_rsp c{};
	c.scsi_status = 0x02;
	c.dir = SRPT_DP_DIR_READ;
	c.underflow = true;
	c.residual = 512;
	c.sense = sense;
	c.sense_len = sizeof(sense);
	c.n_rdma_writes = 3;
	const CmdResponse r = CmdResponseFromC(c);
	EXPECT_EQ(r.status, ScsiStatus::CheckCondition);
	EXPECT_EQ(r.dir, DataDir::FromDevice);
	EXPECT_EQ(r.residual, Residual::Underflow);
	EXPECT_EQ(r.residual_count, 512u);
	EXPECT_EQ(r.sense.data(), sense);
	EXPECT_EQ(r.sense.size(), sizeof(sense));
	EXPECT_EQ(r.n_rdma_writes, 3u);
}

TEST(DatapathApi, ResponseDirectionAndResidual)
{
	srpt_dp_rsp c{};
	c.dir = SRPT_DP_DIR_WRITE;
	c.overflow = true;
	EXPECT_EQ(CmdResponseFromC(c).dir, DataDir::ToDevice);
	EXPECT_EQ(CmdResponseFromC(c).residual, Residual::Overflow);
	/* Both set: underflow, as before the conversion moved here. */
	c.underflow = true;
	EXPECT_EQ(CmdResponseFromC(c).residual, Residual::Underflow);
	c = srpt_dp_rsp{};
	c.dir = SRPT_DP_DIR_NONE;
	EXPECT_EQ(CmdResponseFromC(c).dir, DataDir::None);
	EXPECT_EQ(CmdResponseFromC(c).residual, Residual::None);
	EXPECT_TRUE(CmdResponseFromC(c).sense.empty());
}

/*
 * Every field reaches srpt_dp_stats with its own value: each gets a
 * different one, so a field copied into another's place, or not at all,
 * shows. The counters are walked with the same lists the structs are
 * made from; the names below check that the lists hold what debugfs reads.
 */
TEST(DatapathApi, EveryStatsFieldReachesTheCStruct)
{
	ChannelSnapshot in{};
	in.datapath.state = ChannelState::kDisconnecting;
	in.datapath.phase = PhaseOf(ChannelState::kDisconnecting);
	uint64_t next = 0;
#define SET_COUNTER(type, name) in.datapath.name = static_cast<type>(++next);
	SRPT_DATAPATH_COUNTERS(SET_COUNTER)
#undef SET_COUNTER
#define SET_PROPERTY(type, name) in.name = static_cast<type>(++next);
	SRPT_CHANNEL_PROPERTIES(SET_PROPERTY)
#undef SET_PROPERTY

	/* Garbage, as on the glue's stack: nothing may rely on zeros. */
	srpt_dp_stats out;
	__builtin_memset(&out, 0xa5, sizeof(out));
	StatsToC(in, &out);

	EXPECT_STREQ(out.state, "disconnecting");
	EXPECT_STREQ(out.phase, ChannelPhaseName(in.datapath.phase));
#define CHECK_COUNTER(type, name)                                              \
	EXPECT_EQ(out.name, in.datapath.name) << #name;
	SRPT_DATAPATH_COUNTERS(CHECK_COUNTER)
#undef CHECK_COUNTER
#define CHECK_PROPERTY(type, name) EXPECT_EQ(out.name, in.name) << #name;
	SRPT_CHANNEL_PROPERTIES(CHECK_PROPERTY)
#undef CHECK_PROPERTY
	/* By name: the ends of each list, and owed (req_lim_delta before). */
	EXPECT_EQ(out.req_lim, 1);
	EXPECT_EQ(out.owed, 3);
	EXPECT_EQ(out.responses_lost, 23u);
	EXPECT_EQ(out.send_done_deferred, 24u);
	EXPECT_EQ(out.released_wrs_posted, 25u);
	EXPECT_EQ(out.credits, 26u);
	EXPECT_TRUE(out.use_srq);
	EXPECT_EQ(out.send_done_held_total, 33u);
}

/*
 * The entry points hand ToNegativeErrno() of the channel's Status to the
 * glue (queue_response, write_pending), and glue results come back through
 * StatusFromErrno(): every Status survives the trip, and LIO's retry
 * signal is -EAGAIN.
 */
TEST(DatapathApi, StatusErrnoRoundTrip)
{
	const Status all[] = {
	    Status::kOk,      Status::kNoEntry,	 Status::kIo,
	    Status::kAgain,   Status::kNoMemory, Status::kBusy,
	    Status::kExists,  Status::kNoDevice, Status::kInvalid,
	    Status::kRange,   Status::kNoSpace,	 Status::kNotSupported,
	    Status::kRefused,
	};
	for (const Status s : all) {
		const int rc = ToNegativeErrno(s);
		EXPECT_LE(rc, 0);
		EXPECT_EQ(StatusFromErrno(rc), s) << rc;
	}
	EXPECT_EQ(ToNegativeErrno(kQueueFull), -EAGAIN);
	EXPECT_EQ(ToNegativeErrno(Status::kOk), 0);
}

} // namespace
} // namespace srpt
