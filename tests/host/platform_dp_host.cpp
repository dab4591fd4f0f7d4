// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host implementation of the glue side of include/srpt/rdma_glue.h: a
 * recording, scriptable fake (see host_datapath.hpp).
 */
#include <srpt/host_datapath.hpp>
#include <srpt/host_platform.hpp>

#include <cstring>
#include <memory>

struct srpt_dp_ch : srpt::host::FakeCh {
};

struct srpt_dp_srq : srpt::host::FakeSrq {
};

namespace srpt::host
{
namespace
{

DataPathScript g_script;

void KickWork(void *ctx)
{
	srpt_dp_ch *ch = static_cast<srpt_dp_ch *>(ctx);
	srpt_dp_handoff h;
	if (srpt_core_dp_kick(ch->args.core_ch, &h))
		srpt_dp_run_handoffs(ch, ch->args.core_ch, &h);
}

std::vector<FakeCh *> g_channels;
std::vector<std::unique_ptr<srpt_dp_ch>> g_owned;
std::vector<Rejection> g_rejections;
std::vector<FakeSrq *> g_srqs;
std::vector<std::unique_ptr<srpt_dp_srq>> g_owned_srqs;

} // namespace

DataPathScript &Script()
{
	return g_script;
}
std::vector<FakeCh *> &FakeChannels()
{
	return g_channels;
}
std::vector<Rejection> &Rejections()
{
	return g_rejections;
}
std::vector<FakeSrq *> &FakeSrqs()
{
	return g_srqs;
}
FakeSrq *FakeSrqOf(srpt_dp_srq *srq)
{
	return srq;
}

/* The glue channel of core channel @core (the newest, not destroyed). */
static srpt_dp_ch *GlueOf(srpt_core_ch *core)
{
	for (auto it = g_channels.rbegin(); it != g_channels.rend(); ++it)
		if ((*it)->args.core_ch == core && !(*it)->destroyed)
			return static_cast<srpt_dp_ch *>(*it);
	for (auto it = g_channels.rbegin(); it != g_channels.rend(); ++it)
		if ((*it)->args.core_ch == core)
			return static_cast<srpt_dp_ch *>(*it);
	return nullptr;
}

void RecvDone(srpt_core_ch *core, uint32_t index, uint32_t byte_len, bool ok)
{
	srpt_dp_handoff h;
	if (srpt_core_dp_recv_done(core, index, byte_len, ok, &h))
		srpt_dp_run_handoffs(GlueOf(core), core, &h);
}

void SendDone(srpt_core_ch *core, uint32_t index, bool ok)
{
	srpt_dp_do_next(GlueOf(core), index,
			srpt_core_dp_send_done(core, index, ok));
}

bool SendDoneAtomic(srpt_core_ch *core, uint32_t index)
{
	const srpt_dp_next next = srpt_core_dp_send_done_atomic(core, index);
	srpt_dp_do_next(GlueOf(core), index, next);
	return next != SRPT_DP_NEXT_REFUSED;
}

void RdmaReadDone(srpt_core_ch *core, uint32_t index, bool ok)
{
	srpt_dp_do_next(GlueOf(core), index,
			srpt_core_dp_rdma_read_done(core, index, ok));
}

int WritePending(srpt_core_ch *core, uint32_t index, uint32_t n_rdma_reads)
{
	const int rc = srpt_core_dp_write_pending(core, index, n_rdma_reads);
	if (rc < 0)
		return rc;
	srpt_dp_do_next(GlueOf(core), index, static_cast<srpt_dp_next>(rc));
	return 0;
}

void ResetDataPath()
{
	g_channels.clear();
	g_owned.clear();
	g_rejections.clear();
	g_srqs.clear();
	g_owned_srqs.clear();
	g_script = DataPathScript{};
}

} // namespace srpt::host

using srpt::host::g_script;

extern "C" {

int srpt_dp_ch_create(const struct srpt_dp_ch_args *args,
		      struct srpt_dp_ch **ch, uint32_t *max_send_wr)
{
	if (g_script.create_rc)
		return g_script.create_rc;
	auto owned = std::make_unique<srpt_dp_ch>();
	owned->args = *args;
	srpt_work_init(owned->kick_work, srpt::host::KickWork, owned.get(),
		       SRPT_WORK_TEST);
	owned->max_send_wr = args->sq_size / 2 < 16 ? 16 : args->sq_size / 2;
	*max_send_wr = owned->max_send_wr;
	*ch = owned.get();
	srpt::host::g_channels.push_back(owned.get());
	srpt::host::g_owned.push_back(std::move(owned));
	return 0;
}

int srpt_dp_srq_create(void *ib_device, uint32_t size, struct srpt_dp_srq **srq)
{
	if (g_script.srq_create_rc)
		return g_script.srq_create_rc;
	auto owned = std::make_unique<srpt_dp_srq>();
	owned->ib_device = ib_device;
	owned->size = size;
	*srq = owned.get();
	srpt::host::g_srqs.push_back(owned.get());
	srpt::host::g_owned_srqs.push_back(std::move(owned));
	return 0;
}

int srpt_dp_srq_map_recv(struct srpt_dp_srq *srq, uint32_t index, void *,
			 uint32_t)
{
	if (srq->destroyed || index >= srq->size) {
		srpt_warn(__FILE__, __LINE__,
			  "SRQ map after destroy or out of range");
		return -SRPT_EINVAL;
	}
	if (static_cast<int64_t>(index) == g_script.srq_map_fail_index)
		return -SRPT_ENOMEM;
	srq->mapped.push_back(index);
	return 0;
}

int srpt_dp_srq_post_recv(struct srpt_dp_srq *srq, uint32_t index)
{
	if (srq->destroyed || index >= srq->size) {
		srpt_warn(__FILE__, __LINE__,
			  "SRQ post after destroy or out of range");
		return -SRPT_EINVAL;
	}
	if (static_cast<int64_t>(index) == g_script.srq_post_fail_index)
		return -SRPT_ENOMEM;
	srq->posted.push_back(index);
	if (g_script.on_srq_post)
		g_script.on_srq_post(index);
	return 0;
}

void srpt_dp_srq_destroy(struct srpt_dp_srq *srq)
{
	if (srq->destroyed)
		srpt_warn(__FILE__, __LINE__, "SRQ destroyed twice");
	srq->destroyed = true;
	srq->channels_alive_at_destroy = 0;
	for (srpt::host::FakeCh *f : srpt::host::g_channels)
		srq->channels_alive_at_destroy +=
		    f->args.srq == srq && !f->destroyed;
}

int srpt_dp_map_recv(struct srpt_dp_ch *, uint32_t, void *, uint32_t)
{
	return 0;
}

int srpt_dp_map_send(struct srpt_dp_ch *, uint32_t, void *, uint32_t)
{
	return 0;
}

void srpt_dp_ch_destroy(struct srpt_dp_ch *ch, bool destroy_cm_id)
{
	srpt_work_cancel_sync(ch->kick_work);
	ch->destroyed = true;
	ch->destroy_calls++;
	ch->cm_id_destroyed = destroy_cm_id;
}

int srpt_dp_post_recv(struct srpt_dp_ch *ch, uint32_t index)
{
	/* A channel on an SRQ has no receive queue of its own. */
	if (ch->args.srq)
		srpt_warn(__FILE__, __LINE__,
			  "private receive on an SRQ channel");
	ch->posted_recv.push_back(index);
	return 0;
}

int srpt_dp_post_send(struct srpt_dp_ch *ch, uint32_t index, uint32_t,
		      uint32_t n_rdma_writes)
{
	if (g_script.post_send_rc)
		return g_script.post_send_rc;
	ch->posted_send.push_back(index);
	ch->posted_send_rdma.push_back(n_rdma_writes);
	return 0;
}

int srpt_dp_post_rdma_read(struct srpt_dp_ch *ch, uint32_t index)
{
	ch->posted_read.push_back(index);
	return 0;
}

int srpt_dp_post_zlw(struct srpt_dp_ch *ch)
{
	ch->zlw_posted++;
	return 0;
}

int srpt_dp_qp_error(struct srpt_dp_ch *ch)
{
	srpt::host::MightSleep("ib_modify_qp");
	ch->qp_error = true;
	return 0;
}

int srpt_dp_cm_accept(struct srpt_dp_ch *ch, const void *pdata, uint32_t len)
{
	if (g_script.accept_rc)
		return g_script.accept_rc;
	ch->accepted = true;
	const auto *p = static_cast<const uint8_t *>(pdata);
	ch->accept_pdata.assign(p, p + len);
	return 0;
}

void srpt_dp_cm_reject(enum srpt_dp_cm cm, void *cm_id, const void *pdata,
		       uint32_t len)
{
	const auto *p = static_cast<const uint8_t *>(pdata);
	srpt::host::g_rejections.push_back(
	    {cm, cm_id,
	     p ? std::vector<uint8_t>(p, p + len) : std::vector<uint8_t>{}});
}

int srpt_dp_cm_disconnect(struct srpt_dp_ch *ch)
{
	srpt::host::MightSleep("the CM's disconnect");
	ch->disconnected = true;
	ch->disconnect_calls++;
	return 0;
}

int srpt_dp_cm_drep(struct srpt_dp_ch *ch)
{
	if (g_script.drep_rc)
		return g_script.drep_rc;
	ch->drep_sent++;
	return 0;
}

int srpt_dp_session_setup(struct srpt_dp_ch *ch, struct srpt_core_port_id *,
			  const char *name, uint32_t)
{
	ch->session_attempts.push_back(name);
	for (const auto &acl : g_script.acl_names) {
		if (acl == name) {
			ch->session = name;
			return 0;
		}
	}
	return g_script.session_error;
}

void srpt_dp_session_remove(struct srpt_dp_ch *ch)
{
	ch->session_removed = true;
}

int srpt_dp_submit_cmd(struct srpt_dp_ch *ch, uint32_t index,
		       const struct srpt_dp_cmd *cmd)
{
	if (g_script.submit_rc)
		return g_script.submit_rc;
	ch->submitted.push_back(*cmd);
	ch->submitted_index.push_back(index);
	/* The array is valid during the call only: copy it. */
	ch->submitted_desc.emplace_back(cmd->desc, cmd->desc + cmd->n_desc);
	ch->submitted.back().desc = nullptr;
	return 0;
}

int srpt_dp_submit_tmr(struct srpt_dp_ch *ch, uint32_t index,
		       const struct srpt_dp_tmr *tmr)
{
	const enum srpt_dp_tmf func = tmr->func;
	if (g_script.submit_tmr_rc)
		return g_script.submit_tmr_rc;
	ch->tmr_index.push_back(index);
	ch->tmr_func.push_back(func);
	return 0;
}

void srpt_dp_execute_cmd(struct srpt_dp_ch *ch, uint32_t index)
{
	/* The backend may sleep (fileio writes, iblock's bio allocation). */
	srpt::host::MightSleep("target_execute_cmd");
	ch->executed.push_back(index);
}

void srpt_dp_fail_cmd(struct srpt_dp_ch *ch, uint32_t index)
{
	ch->executed.push_back(index | 0x80000000u);
}

void srpt_dp_kick(struct srpt_dp_ch *ch)
{
	ch->kicks++;
	srpt_work_queue(ch->kick_work);
}

void srpt_dp_put_cmd(struct srpt_dp_ch *ch, uint32_t index)
{
	srpt::host::MightSleep("transport_generic_free_cmd");
	ch->put.push_back(index);
	ch->put_after_session_removed += ch->session_removed;
	ch->put_after_destroy += ch->destroyed;
	if (g_script.put_releases)
		srpt_core_dp_cmd_release(ch->args.core_ch, index);
}

uint32_t srpt_dp_test_send_ctx_limit(void)
{
	return g_script.send_ctx_limit;
}

uint32_t srpt_dp_test_send_done_delay_us(void)
{
	return g_script.send_done_delay_us;
}

void *srpt_dp_debugfs_add(struct srpt_dp_ch *, const char *, uint32_t)
{
	return nullptr;
}

void srpt_dp_debugfs_remove(void *) {}

void srpt_msleep(uint32_t)
{
	srpt::host::MightSleep("msleep");
	if (g_script.on_msleep)
		g_script.on_msleep();
}

} // extern "C"
