/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Controls of the host implementation of include/srpt/rdma_glue.h: a fake
 * glue that records what the core asked for (QPs, posts, accepts, rejects,
 * sessions, commands) and fails on request.
 */
#ifndef SRPT_HOST_DATAPATH_HPP
#define SRPT_HOST_DATAPATH_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <srpt/core_api.h>
#include <srpt/platform.h>
#include <srpt/rdma_glue.h>

namespace srpt::host
{

struct FakeCh {
	srpt_dp_ch_args args;
	uint32_t max_send_wr;
	std::vector<uint32_t> posted_recv;
	std::vector<uint32_t> posted_send;	/* send indexes */
	std::vector<uint32_t> posted_send_rdma; /* n_rdma of each send */
	std::vector<uint32_t> posted_read;
	uint32_t zlw_posted = 0;
	bool qp_error = false;
	bool accepted = false;
	std::vector<uint8_t> accept_pdata;
	bool disconnected = false;
	uint32_t disconnect_calls = 0; /* srpt_dp_cm_disconnect */
	uint32_t drep_sent = 0;	       /* srpt_dp_cm_drep */
	bool destroyed = false;
	uint32_t destroy_calls = 0; /* srpt_dp_ch_destroy: must end at 1 */
	bool cm_id_destroyed = false;
	std::string session; /* name target_setup_session accepted */
	std::vector<std::string> session_attempts;
	bool session_removed = false;
	std::vector<srpt_dp_cmd> submitted; /* copies (pointers not valid) */
	std::vector<uint32_t> submitted_index;
	/* each command's descriptors, copied while srpt_dp_submit_cmd ran */
	std::vector<std::vector<srpt_dp_desc>> submitted_desc;
	std::vector<uint32_t> tmr_index;
	std::vector<srpt_dp_tmf> tmr_func;
	std::vector<uint32_t> executed;
	std::vector<uint32_t> put; /* srpt_dp_put_cmd */
	/* srpt_dp_put_cmd after the session removal / the QP's destruction. */
	uint32_t put_after_session_removed = 0;
	uint32_t put_after_destroy = 0;
	uint32_t kicks = 0; /* srpt_dp_kick */
	/* The kick work item, as the glue's (host::RunPendingWork runs it). */
	alignas(SRPT_WORK_ALIGN) unsigned char kick_work[SRPT_WORK_SIZE];
};

/* A shared receive queue (srpt_dp_srq_*). */
struct FakeSrq {
	void *ib_device = nullptr;
	uint32_t size = 0;
	std::vector<uint32_t> mapped; /* indexes, in order */
	std::vector<uint32_t> posted; /* every post, in order */
	bool destroyed = false;
	/* Its channels (QPs) not yet destroyed when it was destroyed. */
	size_t channels_alive_at_destroy = 0;
};

struct DataPathScript {
	/* srpt_dp_ch_create fails with this errno while sq_size > value. */
	int create_rc = 0;
	/* ACL names target_setup_session accepts (empty: none). */
	std::vector<std::string> acl_names;
	int session_error = -22; /* returned when no ACL matches */
	int accept_rc = 0;
	int drep_rc = 0;
	int submit_rc = 0;
	int submit_tmr_rc = 0;
	int post_send_rc = 0;
	/* put_cmd calls srpt_core_dp_cmd_release (LIO's last put). */
	bool put_releases = true;
	uint32_t send_ctx_limit = 0;
	/* srpt_dp_srq_create fails with this errno. */
	int srq_create_rc = 0;
	/* srpt_dp_srq_map_recv / _post_recv fail for this index (-1: never). */
	int64_t srq_map_fail_index = -1;
	int64_t srq_post_fail_index = -1;
	/*
	 * Runs inside every SRQ post, as if the HCA completed the WR at once
	 * on another CPU (what the core must already be ready for).
	 */
	std::function<void(uint32_t index)> on_srq_post;
	/* What srpt_dp_test_send_done_delay_us() answers. */
	uint32_t send_done_delay_us = 0;
	/* Runs for every srpt_msleep (what the kernel does meanwhile). */
	std::function<void()> on_msleep;
};

DataPathScript &Script();
/* Every glue channel created since ResetDataPath(), in order. */
std::vector<FakeCh *> &FakeChannels();
struct Rejection {
	srpt_dp_cm cm;
	void *cm_id;
	std::vector<uint8_t> pdata;
};
std::vector<Rejection> &Rejections();
/* Every SRQ created since ResetDataPath(), in order (kept when destroyed). */
std::vector<FakeSrq *> &FakeSrqs();
/* The fake behind a glue SRQ handle (nullptr for nullptr). */
FakeSrq *FakeSrqOf(srpt_dp_srq *srq);
/* Forgets everything (frees the fake channels) and resets the script. */
void ResetDataPath();

/*
 * What the glue's completion unit (glue/completion.c) does with a
 * completion: calls the core, then makes the target core's calls the core
 * returned (submissions through srpt_dp_submit_cmd/_tmr below, the
 * fabric reference's put, execution), after the core has returned.
 */
void RecvDone(srpt_core_ch *ch, uint32_t index, uint32_t byte_len, bool ok);
void SendDone(srpt_core_ch *ch, uint32_t index, bool ok);
/* False: the core refused the softirq path (SendDone must follow). */
bool SendDoneAtomic(srpt_core_ch *ch, uint32_t index);
void RdmaReadDone(srpt_core_ch *ch, uint32_t index, bool ok);
/* LIO's write_pending: the core's result (0, or a negative errno). */
int WritePending(srpt_core_ch *ch, uint32_t index, uint32_t n_rdma_reads);

} // namespace srpt::host

/*
 * The fake target core of the glue's hand-offs (recording, scriptable),
 * driven by the module's own hand-off loop and next-call switch.
 */
#include <srpt/dp_next.h>

namespace srpt::host
{

} // namespace srpt::host

#endif
