// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The C entry points of the data path (srpt_core_dp_* and
 * srpt_core_acl_channels of include/srpt/core_api.h), the twin of
 * core_api.cpp: each one turns the glue's handle back into the core
 * object, the C structs and enums into core types and the Status it gets
 * back into -errno, and makes one call. Those conversions are here and
 * nowhere else, so that the Channel's API speaks only core types. The
 * entry points of a command's path are SRPT_HOT_PATH: GCC compiles each
 * into one function with everything it calls whose body it sees
 * (<srpt/channel_datapath.hpp>). Logins go to cm_handler.cpp, CM events,
 * completions and LIO's callbacks to the Channel (channel.cpp,
 * channel_datapath.hpp, srp_command.cpp), the rest to the registry
 * (channel_registry.cpp). The one loop of its own: device removal waits
 * here until the device's channels are released.
 */
#include <srpt/channel.hpp>
#include <srpt/channel_registry.hpp>
#include <srpt/cm_handler.hpp>
#include <srpt/core_api.h>
#include <srpt/datapath_api.hpp>
#include <srpt/hex_format.hpp>
#include <srpt/log.hpp>
#include <srpt/rdma_glue.h>

using srpt::Channel;
using srpt::ToNegativeErrno;

/*
 * Inline every call whose body is visible, transitively: the Channel
 * method, the ChannelCore method, its ...Locked() helpers, KernelEnv's
 * hooks. The calls left are the glue's, the lock's and the IU parser's.
 */
#define SRPT_HOT_PATH [[gnu::flatten]]

namespace srpt
{

Result<CmEvent> CmEventFromC(srpt_dp_cm_event event)
{
	switch (event) {
	case SRPT_DP_CM_ESTABLISHED:
		return CmEvent::kEstablished;
	case SRPT_DP_CM_DISCONNECTED:
		return CmEvent::kDisconnected;
	case SRPT_DP_CM_DREQ_RECEIVED:
		return CmEvent::kDreqReceived;
	case SRPT_DP_CM_TIMEWAIT_EXIT:
		return CmEvent::kTimewaitExit;
	case SRPT_DP_CM_REJECTED:
		return CmEvent::kRejected;
	case SRPT_DP_CM_DEVICE_REMOVAL:
		return CmEvent::kDeviceRemoval;
	case SRPT_DP_CM_ADDR_CHANGE:
		return CmEvent::kAddrChange;
	}
	return Status::kInvalid;
}

CmdResponse CmdResponseFromC(const srpt_dp_rsp &rsp)
{
	CmdResponse r{};
	r.status = static_cast<ScsiStatus>(rsp.scsi_status);
	r.dir = rsp.dir == SRPT_DP_DIR_WRITE  ? DataDir::ToDevice
		: rsp.dir == SRPT_DP_DIR_READ ? DataDir::FromDevice
					      : DataDir::None;
	r.residual = rsp.underflow  ? Residual::Underflow
		     : rsp.overflow ? Residual::Overflow
				    : Residual::None;
	r.residual_count = rsp.residual;
	r.sense = {rsp.sense, rsp.sense_len};
	r.n_rdma_writes = rsp.n_rdma_writes;
	return r;
}

/* LIO's other outcomes (TMR_LUN_DOES_NOT_EXIST, ...) arrive as FAILED. */
wire::TskMgmtRspCode TskMgmtRspCodeFromC(srpt_dp_tmr_result result)
{
	switch (result) {
	case SRPT_DP_TMR_COMPLETE:
		return wire::TskMgmtRspCode::Complete;
	case SRPT_DP_TMR_REJECTED:
		return wire::TskMgmtRspCode::NotSupported;
	case SRPT_DP_TMR_FAILED:
		break;
	}
	return wire::TskMgmtRspCode::Failed;
}

void StatsToC(const ChannelSnapshot &in, srpt_dp_stats *out)
{
	*out = srpt_dp_stats{};
	out->state = ChannelStateName(in.datapath.state);
	out->phase = ChannelPhaseName(in.datapath.phase);
#define SRPT_COPY_COUNTER(type, name) out->name = in.datapath.name;
	SRPT_DATAPATH_COUNTERS(SRPT_COPY_COUNTER)
#undef SRPT_COPY_COUNTER
#define SRPT_COPY_PROPERTY(type, name) out->name = in.name;
	SRPT_CHANNEL_PROPERTIES(SRPT_COPY_PROPERTY)
#undef SRPT_COPY_PROPERTY
}

} // namespace srpt

extern "C" int srpt_core_dp_init(void)
{
	return ToNegativeErrno(srpt::CreateChannelRegistry());
}

extern "C" void srpt_core_dp_exit(void)
{
	srpt::DestroyChannelRegistry();
}

extern "C" int srpt_core_dp_rdma_cm_req(srpt_core_device *core_device,
					uint32_t port_num, void *cm_id,
					const uint8_t *pdata,
					uint32_t pdata_len,
					const char *src_addr)
{
	if (!core_device) {
		srpt_dp_cm_reject(SRPT_DP_RDMA_CM, cm_id, nullptr, 0);
		return -SRPT_ECONNREFUSED;
	}
	return ToNegativeErrno(
	    srpt::HandleRdmaCmLogin(*static_cast<srpt::Device *>(core_device),
				    port_num, cm_id, pdata, pdata_len, src_addr)
		.status);
}

extern "C" int srpt_core_dp_ib_cm_req(srpt_core_device *core_device,
				      uint32_t port_num, void *cm_id,
				      const uint8_t *pdata, uint32_t pdata_len,
				      const uint8_t *initiator_gid,
				      uint16_t pkey)
{
	if (!core_device || !pdata || !initiator_gid) {
		srpt_dp_cm_reject(SRPT_DP_IB_CM, cm_id, nullptr, 0);
		return -SRPT_ECONNREFUSED;
	}
	uint8_t gid[16];
	__builtin_memcpy(gid, initiator_gid, sizeof(gid));
	return ToNegativeErrno(
	    srpt::HandleIbCmLogin(*static_cast<srpt::Device *>(core_device),
				  port_num, cm_id, pdata, pdata_len, gid, pkey)
		.status);
}

extern "C" void srpt_core_dp_cm_event(srpt_core_ch *core_ch,
				      enum srpt_dp_cm_event event)
{
	/* An event the glue does not send changes nothing, as in any state. */
	const srpt::Result<srpt::CmEvent> e = srpt::CmEventFromC(event);
	if (e.ok())
		static_cast<Channel *>(core_ch)->OnCmEvent(*e);
}

extern "C" SRPT_HOT_PATH bool srpt_core_dp_recv_done(srpt_core_ch *core_ch,
						     uint32_t index,
						     uint32_t byte_len, bool ok,
						     srpt_dp_handoff *h)
{
	return static_cast<Channel *>(core_ch)->OnRecvDone(index, byte_len, ok,
							   *h);
}

extern "C" SRPT_HOT_PATH bool srpt_core_dp_handoff_done(srpt_core_ch *core_ch,
							srpt_dp_handoff *h)
{
	return static_cast<Channel *>(core_ch)->HandoffDone(*h);
}

extern "C" bool srpt_core_dp_kick(srpt_core_ch *core_ch, srpt_dp_handoff *h)
{
	return static_cast<Channel *>(core_ch)->Kick(*h);
}

namespace
{
srpt_dp_next ToDp(srpt::SendDone next)
{
	switch (next) {
	case srpt::SendDone::kPutCmd:
		return SRPT_DP_NEXT_PUT;
	case srpt::SendDone::kRefused:
		return SRPT_DP_NEXT_REFUSED;
	case srpt::SendDone::kDone:
		break;
	}
	return SRPT_DP_NEXT_NONE;
}

srpt_dp_next ToDp(srpt::DataOut next)
{
	switch (next) {
	case srpt::DataOut::kExecute:
		return SRPT_DP_NEXT_EXECUTE;
	case srpt::DataOut::kFail:
		return SRPT_DP_NEXT_FAIL;
	case srpt::DataOut::kNothing:
		break;
	}
	return SRPT_DP_NEXT_NONE;
}
} // namespace

extern "C" SRPT_HOT_PATH srpt_dp_next
srpt_core_dp_send_done(srpt_core_ch *core_ch, uint32_t index, bool ok)
{
	return ToDp(static_cast<Channel *>(core_ch)->OnSendDone(index, ok));
}

extern "C" SRPT_HOT_PATH srpt_dp_next
srpt_core_dp_send_done_atomic(srpt_core_ch *core_ch, uint32_t index)
{
	return ToDp(static_cast<Channel *>(core_ch)->OnSendDoneAtomic(index));
}

extern "C" SRPT_HOT_PATH srpt_dp_next
srpt_core_dp_rdma_read_done(srpt_core_ch *core_ch, uint32_t index, bool ok)
{
	return ToDp(static_cast<Channel *>(core_ch)->OnRdmaReadDone(index, ok));
}

extern "C" void srpt_core_dp_zlw_done(srpt_core_ch *core_ch, bool ok)
{
	static_cast<Channel *>(core_ch)->OnZlwDone(ok);
}

extern "C" SRPT_HOT_PATH int
srpt_core_dp_queue_response(srpt_core_ch *core_ch, uint32_t index,
			    const struct srpt_dp_rsp *rsp)
{
	return ToNegativeErrno(static_cast<Channel *>(core_ch)->QueueResponse(
	    index, srpt::CmdResponseFromC(*rsp)));
}

extern "C" void srpt_core_dp_queue_tm_rsp(srpt_core_ch *core_ch, uint32_t index,
					  enum srpt_dp_tmr_result result)
{
	static_cast<Channel *>(core_ch)->QueueTmResponse(
	    index, srpt::TskMgmtRspCodeFromC(result));
}

extern "C" SRPT_HOT_PATH int srpt_core_dp_write_pending(srpt_core_ch *core_ch,
							uint32_t index,
							uint32_t n_rdma_reads)
{
	srpt::DataOut next;
	const srpt::Status st = static_cast<Channel *>(core_ch)->WritePending(
	    index, n_rdma_reads, next);
	if (!srpt::IsOk(st))
		return ToNegativeErrno(st);
	return ToDp(next);
}

/* Not SRPT_HOT_PATH: an abort is off a command's usual path. */
extern "C" void srpt_core_dp_aborted_task(srpt_core_ch *core_ch, uint32_t index)
{
	static_cast<Channel *>(core_ch)->AbortedTask(index);
}

extern "C" SRPT_HOT_PATH void srpt_core_dp_cmd_release(srpt_core_ch *core_ch,
						       uint32_t index)
{
	static_cast<Channel *>(core_ch)->ReleaseCmd(index);
}

extern "C" int srpt_core_dp_cmd_state(srpt_core_ch *core_ch, uint32_t index)
{
	return static_cast<Channel *>(core_ch)->CmdStateOf(index);
}

extern "C" void srpt_core_dp_close_session(srpt_core_ch *core_ch)
{
	Channel *ch = static_cast<Channel *>(core_ch);
	if (!ch->Disconnect("LIO closed the session"))
		(void)ch->Close("LIO closed the session");
}

extern "C" void srpt_core_dp_device_removing(srpt_core_device *core_device)
{
	srpt::ChannelRegistry *reg = srpt::GetChannelRegistry();
	srpt::Device *device = static_cast<srpt::Device *>(core_device);
	if (reg) {
		reg->DisconnectDevice(device);
		for (uint32_t waited = 0; reg->CountDevice(device) != 0;
		     waited++) {
			if (waited % 500 == 499)
				SRPT_WARNING(
				    nullptr,
				    "device %s: waiting for %zu channels",
				    device->name(), reg->CountDevice(device));
			srpt_msleep(10);
		}
	}
	/* No QP uses the SRQ any more; the PD goes after this. */
	device->srq().Shutdown(device->name());
}

extern "C" uint32_t srpt_core_acl_channels(srpt_core_port_id *port_id,
					   const char *acl_name,
					   struct srpt_acl_channel *out,
					   uint32_t max)
{
	srpt::ChannelRegistry *reg = srpt::GetChannelRegistry();
	if (!reg || !port_id || !acl_name)
		return 0;
	uint32_t n = 0;
	reg->ForEachAclChannel(port_id, acl_name, [&](Channel &ch) {
		if (n < max) {
			srpt_acl_channel &c = out[n];
			c.id = ch.id();
			c.rdma_cm = ch.cm_kind() == SRPT_DP_RDMA_CM;
			const srpt::ChannelState state = ch.state();
			c.logged_in = state == srpt::ChannelState::kLive;
			c.conn_state = srpt::LioConnStateName(state);
			srpt::CopyName(c.source, ch.source());
			srpt::StatsToC(ch.Stats(), &c.stats);
		}
		n++;
	});
	return n;
}

extern "C" void srpt_core_dp_get_stats(srpt_core_ch *core_ch,
				       struct srpt_dp_stats *out)
{
	srpt::StatsToC(static_cast<Channel *>(core_ch)->Stats(), out);
}
