// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRP_CMD on a live channel through the fabric callbacks: the round trip
 * and its credit, send-context waits, responses that cannot be posted,
 * CHECK CONDITION and BUSY answers, data descriptors as the glue gets
 * them, RDMA reads and writes, task attributes and immediate data.
 * Task management: srp_task_management_test.cpp.
 */
#include "datapath_fixture.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace srpt
{
namespace
{

using namespace dp_test;

TEST_F(DataPathFixture, CommandRoundTripReturnsTheCredit)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(0x77), 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].tag, 0x77u);
	EXPECT_EQ(f.submitted[0].dir, SRPT_DP_DIR_NONE);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 127);
	const uint32_t idx = f.submitted_index[0];
	EXPECT_EQ(srpt_core_dp_cmd_state(ch, idx),
		  static_cast<int>(CmdState::kNew));
	srpt_dp_rsp rsp{};
	EXPECT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[idx];
	EXPECT_EQ(s.buf()[0], 0xc1);	      /* SRP_RSP */
	EXPECT_EQ(GetBe(s.buf() + 4, 4), 1u); /* req_lim_delta */
	host::Script().put_releases = true;
	srpt::host::SendDone(ch, idx, true);
	EXPECT_EQ(f.put, (std::vector<uint32_t>{idx}));
	ExpectCreditsAndSendContextsBack(ch);
	EXPECT_EQ(f.posted_recv.size(), 129u); /* the buffer was reposted */
}

/*
 * A response that cannot be posted: LIO's reference is dropped, the credit
 * is owed, and the channel disconnects (the initiator would otherwise wait
 * for its SCSI timeout); later IUs are not served.
 */
TEST_F(DataPathFixture, ResponseThatCannotBePostedDisconnects)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(0x31), 0);
	ASSERT_EQ(f.submitted_index.size(), 1u);
	const uint32_t idx = f.submitted_index[0];
	host::Script().put_releases = true;
	host::Script().post_send_rc = -SRPT_ENOMEM;
	srpt_dp_rsp rsp{};
	EXPECT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	host::Script().post_send_rc = 0;
	EXPECT_TRUE(f.posted_send.empty());
	EXPECT_EQ(f.put, (std::vector<uint32_t>{idx}));
	EXPECT_EQ(f.disconnect_calls, 1u);
	EXPECT_EQ(ch->state(), ChannelState::kDisconnecting);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.responses_lost, 1u);
	ExpectSendContextsFree(ch);
	Receive(ch, TestUnitReady(0x32), 1);
	EXPECT_EQ(f.submitted_index.size(), 1u);
	srpt_core_dp_cm_event(ch, SRPT_DP_CM_DISCONNECTED);
	srpt_core_dp_zlw_done(ch, false);
	host::RunPendingWork();
	EXPECT_TRUE(f.destroyed);
}

TEST_F(DataPathFixture, MalformedCommandIsAnsweredByTheTransport)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> iu = TestUnitReady(0x55);
	iu[5] = 0x20; /* data-in format INDIRECT, but no table */
	Receive(ch, iu, 0);
	EXPECT_TRUE(f.submitted.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	const uint32_t idx = f.posted_send[0];
	SendCtx &s = ch->core().send_ring()[idx];
	EXPECT_EQ(s.buf()[0], 0xc1);
	EXPECT_EQ(s.buf()[19], 0x02);	     /* status CHECK CONDITION */
	EXPECT_EQ(s.buf()[18] & 0x02, 0x02); /* SNSVALID */
	srpt::host::SendDone(ch, idx, true);
	ExpectCreditsAndSendContextsBack(ch);
}

/*
 * An SRP_CMD shorter than its 48-byte fixed part carries no tag to answer:
 * it is dropped, nothing reaches LIO or the wire, its send context and
 * receive buffer come back, and the credit it spent rides on the next
 * response's req_lim_delta.
 */
TEST_F(DataPathFixture, TruncatedCommandIsDroppedAndItsCreditReturned)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> iu = TestUnitReady(0x66);
	iu.resize(47);
	Receive(ch, iu, 0);
	EXPECT_TRUE(f.submitted.empty());
	EXPECT_TRUE(f.posted_send.empty());
	ExpectSendContextsFree(ch);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 127);
	EXPECT_EQ(f.posted_recv.size(), 129u); /* the buffer was reposted */

	Receive(ch, TestUnitReady(0x67), 1);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].tag, 0x67u);
	const uint32_t idx = f.submitted_index[0];
	srpt_dp_rsp rsp{};
	EXPECT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	ASSERT_EQ(f.posted_send.size(), 1u);
	const SendCtx &s = ch->core().send_ring()[idx];
	EXPECT_EQ(GetBe(s.buf() + 4, 4), 2u); /* req_lim_delta: both */
	host::Script().put_releases = true;
	srpt::host::SendDone(ch, idx, true);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
}

TEST_F(DataPathFixture, SendContextLimitMakesIusWait)
{
	host::Script().send_ctx_limit = 1;
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, TestUnitReady(1), 0);
	Receive(ch, TestUnitReady(2), 1);
	ASSERT_EQ(f.submitted.size(), 1u);
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.wait_depth, 1u);
	EXPECT_EQ(st.ius_waited, 1u);
	EXPECT_EQ(st.ius_no_send_ctx, 1u);
	srpt_dp_rsp rsp{};
	ASSERT_EQ(srpt_core_dp_queue_response(ch, f.submitted_index[0], &rsp),
		  0);
	srpt::host::SendDone(ch, f.submitted_index[0], true);
	EXPECT_EQ(f.kicks, 1u) << "the release kicks the wait list";
	EXPECT_EQ(host::RunPendingWork(), 1u);
	ASSERT_EQ(f.submitted.size(), 2u);
	EXPECT_EQ(f.submitted[1].tag, 2u);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.wait_depth, 0u);
	ASSERT_EQ(srpt_core_dp_queue_response(ch, f.submitted_index[1], &rsp),
		  0);
	srpt::host::SendDone(ch, f.submitted_index[1], true);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.req_lim, 128);
}

TEST_F(DataPathFixture, CommandLioRefusesIsAnsweredBusy)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	host::Script().submit_rc = -108; /* -ESHUTDOWN: session stopping */
	Receive(ch, TestUnitReady(0x31), 0);
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[19], 0x08); /* BUSY */
	srpt::host::SendDone(ch, f.posted_send[0], true);
	EXPECT_EQ(f.put.size(), 1u); /* released without the target core */
	ExpectCreditsAndSendContextsBack(ch);
}

TEST_F(DataPathFixture, ReadCommandChainsItsRdmaWrites)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> iu(64, 0);
	iu[0] = 0x02;
	iu[5] = 0x01;		   /* data-in DIRECT */
	iu[7] = 1;		   /* data_in_desc_cnt */
	iu[8] = 0x44;		   /* tag */
	iu[32] = 0x28;		   /* READ(10) */
	iu[39] = 0x08;		   /* 8 blocks */
	PutBe(&iu[48], 0x1000, 8); /* va */
	PutBe(&iu[56], 0x1234, 4); /* rkey */
	PutBe(&iu[60], 4096, 4);   /* len */
	Receive(ch, iu, 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].dir, SRPT_DP_DIR_READ);
	EXPECT_EQ(f.submitted[0].n_desc, 1u);
	EXPECT_EQ(f.submitted[0].data_len, 4096u);
	srpt_dp_rsp rsp{};
	rsp.dir = SRPT_DP_DIR_READ;
	rsp.n_rdma_writes = 1;
	ASSERT_EQ(srpt_core_dp_queue_response(ch, f.submitted_index[0], &rsp),
		  0);
	ASSERT_EQ(f.posted_send_rdma, (std::vector<uint32_t>{1}));
	srpt_dp_stats st{};
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity - 2);
	srpt::host::SendDone(ch, f.submitted_index[0], true);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity);
}

/*
 * Only a block READ or WRITE may get data pages that held the channel's
 * earlier data (the glue's spare pages): every other command, INQUIRY
 * above all, gets the zeroed pages LIO expects.
 */
TEST_F(DataPathFixture, OnlyBlockReadsAndWritesMayReuseDataPages)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const struct {
		uint8_t opcode;
		bool reuse;
	} cases[] = {
	    {0x08, true},  {0x28, true},  {0xa8, true},	 {0x88, true},
	    {0x0a, true},  {0x2a, true},  {0xaa, true},	 {0x8a, true},
	    {0x12, false}, /* INQUIRY */
	    {0x1a, false}, /* MODE SENSE(6) */
	    {0xa0, false}, /* REPORT LUNS */
	    {0x25, false}, /* READ CAPACITY(10) */
	    {0x41, false}, /* WRITE SAME(10): one block for many */
	    {0x89, false}, /* COMPARE AND WRITE */
	    {0x2e, false}, /* WRITE AND VERIFY(10) */
	    {0x00, false}, /* TEST UNIT READY */
	};
	uint8_t tag = 0x50;
	for (const auto &c : cases) {
		std::vector<uint8_t> iu(64, 0);
		iu[0] = 0x02;
		iu[5] = 0x01; /* data-in DIRECT */
		iu[7] = 1;
		iu[8] = tag++;
		iu[32] = c.opcode;
		PutBe(&iu[48], 0x1000, 8);
		PutBe(&iu[56], 0x1234, 4);
		PutBe(&iu[60], 4096, 4);
		const size_t before = f.submitted.size();
		Receive(ch, iu, 0);
		ASSERT_EQ(f.submitted.size(), before + 1) << int{c.opcode};
		EXPECT_EQ(f.submitted.back().reuse_data, c.reuse)
		    << int{c.opcode};
		srpt_core_dp_cmd_release(ch, f.submitted_index.back());
	}
	EXPECT_TRUE(IsBlockReadWrite(0x28));
	EXPECT_FALSE(IsBlockReadWrite(0x12));
}

/*
 * The glue gets the descriptors in CPU order and never decodes SRP: a
 * direct one, and indirect lists short enough for the stack copy and long
 * enough to need an allocated one.
 */
TEST_F(DataPathFixture, GlueGetsEveryDescriptorInCpuOrder)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	std::vector<uint8_t> direct(64, 0);
	direct[0] = 0x02;
	direct[5] = 0x01; /* data-in DIRECT */
	direct[7] = 1;
	direct[32] = 0x28;
	PutBe(&direct[48], 0x1122334455667788ull, 8);
	PutBe(&direct[56], 0x8899aabb, 4);
	PutBe(&direct[60], 512, 4);
	Receive(ch, direct, 0);
	ASSERT_EQ(f.submitted_desc.size(), 1u);
	ASSERT_EQ(f.submitted_desc[0].size(), 1u);
	EXPECT_EQ(f.submitted_desc[0][0].va, 0x1122334455667788ull);
	EXPECT_EQ(f.submitted_desc[0][0].key, 0x8899aabbu);
	EXPECT_EQ(f.submitted_desc[0][0].len, 512u);

	for (const uint32_t n : {3u, 8u, 9u, 31u}) {
		SCOPED_TRACE(n);
		/* data-out INDIRECT: header (table descriptor, total), list */
		std::vector<uint8_t> iu(68 + 16 * n, 0);
		iu[0] = 0x02;
		iu[5] = 0x20;
		iu[6] = static_cast<uint8_t>(n);
		iu[32] = 0x2a;
		PutBe(&iu[60], 16 * n, 4); /* table length */
		PutBe(&iu[64], 512 * n, 4);
		for (uint32_t i = 0; i < n; i++) {
			PutBe(&iu[68 + 16 * i], 0x10000ull * (i + 1) + i, 8);
			PutBe(&iu[76 + 16 * i], 0x100 + i, 4);
			PutBe(&iu[80 + 16 * i], 512, 4);
		}
		const size_t before = f.submitted_desc.size();
		Receive(ch, iu, 1 + (n & 1));
		ASSERT_EQ(f.submitted_desc.size(), before + 1);
		EXPECT_EQ(f.submitted.back().n_desc, n);
		EXPECT_EQ(f.submitted.back().dir, SRPT_DP_DIR_WRITE);
		EXPECT_EQ(f.submitted.back().data_len, 512 * n);
		const auto &d = f.submitted_desc.back();
		ASSERT_EQ(d.size(), n);
		for (uint32_t i = 0; i < n; i++) {
			EXPECT_EQ(d[i].va, 0x10000ull * (i + 1) + i);
			EXPECT_EQ(d[i].key, 0x100 + i);
			EXPECT_EQ(d[i].len, 512u);
		}
	}
	AnswerAllGood(ch, f);
}

/*
 * A READ(10) SRP_CMD with an indirect data-in list of @n 4 KiB
 * descriptors (va 0x10000 * (i + 1), key 0x200 + i), tag @tag.
 */
std::vector<uint8_t> IndirectReadIu(uint32_t n, uint8_t tag)
{
	std::vector<uint8_t> iu(68 + 16 * n, 0);
	iu[0] = 0x02;
	iu[5] = 0x02; /* data-in INDIRECT */
	iu[7] = static_cast<uint8_t>(n);
	iu[8] = tag;
	iu[32] = 0x28;
	PutBe(&iu[60], 16 * n, 4);
	PutBe(&iu[64], 4096 * n, 4);
	for (uint32_t i = 0; i < n; i++) {
		PutBe(&iu[68 + 16 * i], 0x10000 * (i + 1), 8);
		PutBe(&iu[76 + 16 * i], 0x200 + i, 4);
		PutBe(&iu[80 + 16 * i], 4096, 4);
	}
	return iu;
}

/* A long list whose copy cannot be allocated is answered BUSY. */
TEST_F(DataPathFixture, DescriptorListWithoutMemoryIsAnsweredBusy)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const std::vector<uint8_t> iu = IndirectReadIu(16, 0x77);
	host::FailNthAllocation(1);
	Receive(ch, iu, 0);
	host::FailNthAllocation(0);
	EXPECT_TRUE(f.submitted.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	SendCtx &s = ch->core().send_ring()[f.posted_send[0]];
	EXPECT_EQ(s.buf()[8], 0x77);  /* its tag */
	EXPECT_EQ(s.buf()[19], 0x08); /* BUSY */
	srpt::host::SendDone(ch, f.posted_send[0], true);
	ExpectCreditsAndSendContextsBack(ch);
}

/*
 * The glue's data setup fails (srpt_alloc_rw() unwinding after the second
 * of three rdma_rw contexts: -ENOMEM, nothing handed to the target core).
 * The in-tree driver then kept the unwound contexts' RDMA count, which
 * later came off its send-queue budget. Here the answer is a plain BUSY
 * response: one send-queue slot, no RDMA WRITE counted, all of it back at
 * the send completion, and the next command on the same context is
 * charged exactly its own RDMA WRITEs.
 */
TEST_F(DataPathFixture, FailedDataSetupLeavesTheSendQueueBudgetWhole)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const uint32_t n = 3;
	const std::vector<uint8_t> iu = IndirectReadIu(n, 0x66);
	srpt_dp_stats st{};
	host::Script().submit_rc = -SRPT_ENOMEM;
	Receive(ch, iu, 0);
	host::Script().submit_rc = 0;
	EXPECT_TRUE(f.submitted.empty());
	ASSERT_EQ(f.posted_send.size(), 1u);
	const uint32_t busy = f.posted_send[0];
	SendCtx &s = ch->core().send_ring()[busy];
	EXPECT_EQ(s.buf()[8], 0x66);  /* its tag */
	EXPECT_EQ(s.buf()[19], 0x08); /* BUSY */
	EXPECT_EQ(f.posted_send_rdma, (std::vector<uint32_t>{0}));
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity - 1);
	srpt::host::SendDone(ch, busy, true);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity);
	ExpectCreditsAndSendContextsBack(ch);

	/* The same command again, set up this time: 3 WRITEs + the SEND. */
	Receive(ch, iu, 1);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].n_desc, n);
	srpt_dp_rsp rsp{};
	rsp.dir = SRPT_DP_DIR_READ;
	rsp.n_rdma_writes = n;
	ASSERT_EQ(srpt_core_dp_queue_response(ch, f.submitted_index[0], &rsp),
		  0);
	EXPECT_EQ(f.posted_send_rdma, (std::vector<uint32_t>{0, n}));
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity - (n + 1));
	srpt::host::SendDone(ch, f.submitted_index[0], true);
	srpt_core_dp_get_stats(ch, &st);
	EXPECT_EQ(st.sq_avail, st.sq_capacity);
}

/* SRP's task attribute codes reach the glue as SAM attributes. */
TEST_F(DataPathFixture, TaskAttributeReachesTheGlueAsSamAttribute)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	const struct {
		uint8_t srp;
		srpt_dp_task_attr sam;
	} cases[] = {{0, SRPT_DP_TASK_SIMPLE},
		     {1, SRPT_DP_TASK_HEAD_OF_QUEUE},
		     {2, SRPT_DP_TASK_ORDERED},
		     {4, SRPT_DP_TASK_ACA}};
	uint32_t index = 0;
	for (const auto &c : cases) {
		std::vector<uint8_t> iu = TestUnitReady(index);
		iu[29] = c.srp;
		Receive(ch, iu, index++);
		ASSERT_EQ(f.submitted.size(), index);
		EXPECT_EQ(f.submitted.back().task_attr, c.sam) << int{c.srp};
	}
	AnswerAllGood(ch, f);
}

TEST_F(DataPathFixture, WriteCommandReadsThenExecutes)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, DirectWrite4k(), 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].dir, SRPT_DP_DIR_WRITE);
	const uint32_t idx = f.submitted_index[0];
	EXPECT_EQ(srpt::host::WritePending(ch, idx, 1), 0);
	EXPECT_EQ(f.posted_read, (std::vector<uint32_t>{idx}));
	EXPECT_TRUE(f.executed.empty());
	srpt::host::RdmaReadDone(ch, idx, true);
	EXPECT_EQ(f.executed, (std::vector<uint32_t>{idx}));
	AnswerGood(ch, idx);
	ExpectSendContextsFree(ch);
}

TEST_F(DataPathFixture, ImmediateDataExecutesWithoutRdmaRead)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	host::FakeCh &f = *host::FakeChannels()[0];
	Receive(ch, ImmediateWrite(512), 0);
	ASSERT_EQ(f.submitted.size(), 1u);
	EXPECT_EQ(f.submitted[0].imm_len, 512u);
	const uint32_t idx = f.submitted_index[0];
	EXPECT_EQ(srpt::host::WritePending(ch, idx, 0), 0);
	EXPECT_TRUE(f.posted_read.empty());
	EXPECT_EQ(f.executed, (std::vector<uint32_t>{idx}));
	/* The receive buffer stays with the command until it is released. */
	EXPECT_EQ(f.posted_recv.size(), 128u);
	srpt_dp_rsp rsp{};
	ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
	srpt::host::SendDone(ch, idx, true);
	EXPECT_EQ(f.posted_recv.size(), 129u);
}

/*
 * Immediate data goes to the target core as a scatterlist entry over the
 * receive buffer, and LIO's iblock builds bio segments from it as they
 * are: a block driver advances by whole sectors per segment, so data that
 * does not start on a sector (here: page) boundary lands in the wrong
 * place. Seen as fio verify failures on iblock/null_blk LUNs with ib_srp's
 * imm_data_offset 68 before the receive buffers were placed for it.
 */
TEST_F(DataPathFixture, ImmediateDataStartsOnAPageBoundaryInEveryReceiveBuffer)
{
	Channel *ch = LiveChannel();
	ASSERT_NE(ch, nullptr);
	ASSERT_EQ(ch->login().imm_data_offset, 68u);
	host::FakeCh &f = *host::FakeChannels()[0];
	const uint32_t n = ch->core().recv_ring()->size();
	for (uint32_t i = 0; i < n; i++) {
		/* An 8 KiB WRITE as ib_srp sends it: data at offset 68. */
		std::vector<uint8_t> iu(68 + 8192, 0);
		iu[0] = 0x02;
		PutBe(&iu[8], 0x1000 + i, 8);
		iu[5] = 0x30;  /* data-out IMMEDIATE */
		iu[32] = 0x2a; /* WRITE(10), 16 blocks */
		iu[38] = 0x10;
		PutBe(&iu[48], 8192, 4);
		for (uint32_t b = 0; b < 8192; b++)
			iu[68 + b] = static_cast<uint8_t>(b * 7 + i);
		Receive(ch, iu, i);
		ASSERT_EQ(f.submitted.size(), 1u) << "receive context " << i;
		const srpt_dp_cmd &c = f.submitted[0];
		EXPECT_EQ(reinterpret_cast<uintptr_t>(c.imm_data) %
			      kImmDataAlignment,
			  0u)
		    << "receive context " << i;
		ASSERT_EQ(c.imm_len, 8192u);
		EXPECT_EQ(std::memcmp(c.imm_data, &iu[68], 8192), 0);
		const uint32_t idx = f.submitted_index[0];
		EXPECT_EQ(srpt::host::WritePending(ch, idx, 0), 0);
		srpt_dp_rsp rsp{};
		ASSERT_EQ(srpt_core_dp_queue_response(ch, idx, &rsp), 0);
		srpt::host::SendDone(ch, idx, true);
		f.submitted.clear();
		f.submitted_index.clear();
	}
	ExpectSendContextsFree(ch);
}

} // namespace
} // namespace srpt
