// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Logins. One login for both CMs (RDMA/CM and IB/CM differ only in
 * LoginSource), following the in-tree srpt_cm_req_recv(): validate and
 * negotiate (login.hpp), build the channel, find the session through the
 * port's TPGs (ACL), apply the multichannel action on the I_T nexus,
 * accept with LOGIN_RSP; every failure answers LOGIN_REJ with the reason
 * in-tree gives. The C entry points that call in here are in
 * datapath_api.cpp; the CM's later events go to the channel
 * (Channel::OnCmEvent, channel.cpp).
 */
#include <srpt/channel.hpp>
#include <srpt/cm_handler.hpp>
#include <srpt/hex_format.hpp>
#include <srpt/iu_build.hpp>
#include <srpt/log.hpp>
#include <srpt/module_state.hpp>
#include <srpt/target_config.hpp>
#include <srpt/trace.h>

namespace srpt
{

namespace
{

/*
 * What differs between an RDMA/CM and an IB/CM login; everything else is
 * the one login below.
 */
struct LoginSource {
	srpt_dp_cm cm;
	void *cm_id;
	uint16_t pkey;
	/*
	 * The session name tried on a GUID-named port, also the name in the
	 * logs: RDMA/CM "%pIS" of the source address, IB/CM the GUID form of
	 * the initiator's port GID (in-tree sess_name of either CM).
	 */
	const char *name;
};

/* What a refused login is traced with (the srpt_login tracepoint). */
struct RejectTrace {
	const char *initiator; /* initiator port ID, "-" before it is known */
	const char *why;
	uint32_t it_iu_len;
};

void Reject(const LoginSource &src, const char *who, uint64_t tag,
	    wire::LoginRejReason reason, const RejectTrace &t)
{
	uint8_t rej[sizeof(wire::LoginRej)];
	const size_t len = build_login_rej(rej, tag, reason);
	SRPT_INFO(who, "rejecting login with reason %#x",
		  static_cast<unsigned>(reason));
	if (srpt_tracing())
		srpt_trace_login(who, t.initiator, false, t.why,
				 static_cast<uint32_t>(reason), t.it_iu_len, 0);
	srpt_dp_cm_reject(src.cm, src.cm_id, rej, static_cast<uint32_t>(len));
}

/* The two CMs carry SRP_LOGIN_REQ in two layouts (login.hpp). */
LoginDecision Negotiate(const LoginSource &src, std::span<const uint8_t> pdata,
			const LoginConfig &cfg)
{
	return src.cm == SRPT_DP_IB_CM ? negotiate_login_ib_cm(pdata, cfg)
				       : negotiate_login_rdma_cm(pdata, cfg);
}

std::optional<LoginRequest> Decode(const LoginSource &src,
				   std::span<const uint8_t> pdata)
{
	return src.cm == SRPT_DP_IB_CM ? decode_login_req(pdata)
				       : decode_login_req_rdma(pdata);
}

struct PortSnapshot {
	bool enabled;
	PortAttributes attrib;
	PortId *guid_id;
	PortId *gid_id;
};

PortSnapshot Snapshot(Port &port)
{
	MutexGuard guard(port.mutex);
	return PortSnapshot{port.enabled, port.attrib, port.guid_id,
			    port.gid_id};
}

bool PortEnabled(Port &port)
{
	MutexGuard guard(port.mutex);
	return port.enabled;
}

/*
 * target_setup_session under the names in-tree tries, in its order:
 * GUID-named port: the source name (RDMA/CM source address, IB/CM
 * initiator port GUID); GID-named port: the initiator port id with, then
 * without, "0x".
 */
Status SetupSession(Channel &ch, const PortSnapshot &snap, const char *src_name,
		    const char *i_port_id)
{
	Status st = Status::kNoEntry;
	if (snap.guid_id) {
		st = ch.SetupSession(snap.guid_id, src_name);
		if (IsOk(st))
			return st;
	}
	if (snap.gid_id) {
		st = ch.SetupSession(snap.gid_id, i_port_id);
		if (IsOk(st))
			return st;
		st = ch.SetupSession(snap.gid_id, i_port_id + 2);
	}
	return st;
}

/*
 * The login of either CM (in-tree srpt_cm_req_recv). Returns what the CM
 * handler returns: 0 when the channel took the cm_id, negative when the
 * CM must destroy it.
 */
LoginResult HandleLogin(Device &device, uint32_t port_num,
			const LoginSource &src, const uint8_t *pdata,
			uint32_t pdata_len)
{
	const char *const src_addr = src.name;
	const LoginResult refused{false, Status::kRefused};
	ModuleState &ms = GetModuleState();
	ChannelRegistry *reg = GetChannelRegistry();
	Port *port = device.port(port_num);
	if (!port || !reg || device.removed()) {
		SRPT_ERR(src_addr, "login on %s port %u: no such port",
			 device.name(), port_num);
		Reject(src, src_addr, 0,
		       wire::LoginRejReason::UnableToEstablishChannel,
		       {"-", "no such target port", 0});
		return refused;
	}
	const PortSnapshot snap = Snapshot(*port);
	const uint32_t credits = ChannelCredits(device.attributes().max_qp_wr);

	LoginConfig cfg{};
	cfg.service_guid = ms.service_guid;
	cfg.max_req_size = static_cast<uint32_t>(ms.params.srp_max_req_size);
	cfg.req_lim = credits;
	cfg.port_enabled = snap.enabled;
	SrqRef srq = device.srq().Get(snap.attrib.use_srq);
	cfg.use_srq = static_cast<bool>(srq);
	const LoginDecision d = Negotiate(src, {pdata, pdata_len}, cfg);

	LoginRequest req{};
	const auto decoded = Decode(src, {pdata, pdata_len});
	if (decoded)
		req = *decoded;
	char i_port_id[kHexIdSize];
	FormatHexId(req.initiator_port_id, i_port_id);
	SRPT_INFO(
	    src_addr,
	    "SRP_LOGIN_REQ from %s on %s port %u, it_iu_len %u, flags %#x",
	    i_port_id, device.name(), port_num, req.it_iu_len, req.flags);
	if (!d.accepted()) {
		SRPT_ERR(src_addr, "login rejected: %s", describe(d.check));
		Reject(src, src_addr, d.tag, d.reason,
		       {i_port_id, describe(d.check), req.it_iu_len});
		return refused;
	}

	ChannelParams p{};
	p.device = &device;
	p.port = port;
	p.cm_id = src.cm_id;
	p.cm = src.cm;
	p.pkey = src.pkey;
	p.login = d.params;
	p.credits = credits;
	p.sq_size = snap.attrib.srp_sq_size;
	p.rsp_buf_size = snap.attrib.srp_max_rsp_size;
	p.req_buf_size = cfg.max_req_size;
	p.max_data_len = kMaxCommandData;
	p.send_ctx_limit = srpt_dp_test_send_ctx_limit();
	p.name = src_addr;
	Status st;
	Channel *ch = Channel::Create(p, std::move(srq), &st);
	if (!ch) {
		Reject(
		    src, src_addr, d.tag,
		    wire::LoginRejReason::InsufficientResources,
		    {i_port_id, "no resources for the channel", req.it_iu_len});
		return refused;
	}

	const Status session = SetupSession(*ch, snap, src_addr, i_port_id);
	if (!IsOk(session)) {
		SRPT_INFO(src_addr,
			  "rejected login for initiator %s (%s): ret = %d",
			  src_addr, i_port_id, ToNegativeErrno(session));
		ch->DestroyUnpublished();
		Reject(src, src_addr, d.tag, SessionRejectReason(session),
		       {i_port_id,
			session == Status::kNoMemory
			    ? "no memory for the session"
			    : "the target core refused the session (no ACL?)",
			req.it_iu_len});
		return refused;
	}

	/* Publish: from here on the channel ends through Close(). */
	bool terminated = false;
	bool published = false;
	{
		MutexGuard guard(reg->mutex);
		Nexus *nexus = reg->GetNexusLocked(port, req.initiator_port_id,
						   req.target_port_id);
		if (nexus) {
			if (d.params.multichannel ==
			    wire::MultiChannelAction::Single) {
				nexus->channels.ForEach([&](Channel &other) {
					if (other.Disconnect(
						"relogin of the initiator "
						"(single channel)")) {
						SRPT_INFO(other.name(),
							  "relogin: closed "
							  "channel %u",
							  other.id());
						terminated = true;
					}
				});
			}
			reg->AddLocked(*ch, *nexus);
			/*
			 * Under the registry mutex: nothing can close the
			 * channel before its debugfs entry exists.
			 */
			ch->debugfs =
			    srpt_dp_debugfs_add(ch, ch->name(), ch->id());
			published = true;
		}
	}
	if (!published) {
		ch->DestroyUnpublished();
		Reject(
		    src, src_addr, d.tag,
		    wire::LoginRejReason::InsufficientResources,
		    {i_port_id, "no memory for the I_T nexus", req.it_iu_len});
		return refused;
	}

	uint8_t rsp[sizeof(wire::LoginRsp)];
	const size_t rsp_len =
	    build_login_rsp(rsp, d.tag, d.params, terminated);
	Status accepted = Status::kInvalid;
	if (PortEnabled(*port) && ch->state() == ChannelState::kConnecting)
		accepted = StatusFromErrno(srpt_dp_cm_accept(
		    ch->dp(), rsp, static_cast<uint32_t>(rsp_len)));
	if (!IsOk(accepted)) {
		SRPT_ERR(ch->name(), "accepting the login failed (%d)",
			 ToNegativeErrno(accepted));
		Reject(
		    src, ch->name(), d.tag,
		    wire::LoginRejReason::InsufficientResources,
		    {i_port_id, "accepting the login failed", req.it_iu_len});
		/* The release work owns the cm_id now. */
		(void)ch->Close("accepting the login failed");
		return LoginResult{false, Status::kOk};
	}
	SRPT_INFO(ch->name(),
		  "login accepted: channel %u, %u credits, it_iu_len %u%s%s%s",
		  ch->id(), credits, d.params.it_iu_len,
		  d.params.immediate_data ? ", immediate data" : "",
		  ch->srq() ? ", shared receive queue" : "",
		  terminated ? ", other channels terminated" : "");
	if (srpt_tracing())
		srpt_trace_login(ch->name(), i_port_id, true, "accepted", 0,
				 d.params.it_iu_len, credits);
	return LoginResult{true, Status::kOk};
}

} // namespace

LoginResult HandleRdmaCmLogin(Device &device, uint32_t port_num, void *cm_id,
			      const uint8_t *pdata, uint32_t pdata_len,
			      const char *src_addr)
{
	const LoginSource src{SRPT_DP_RDMA_CM, cm_id, 0, src_addr};
	return HandleLogin(device, port_num, src, pdata, pdata_len);
}

LoginResult HandleIbCmLogin(Device &device, uint32_t port_num, void *cm_id,
			    const uint8_t *pdata, uint32_t pdata_len,
			    const uint8_t (&initiator_gid)[16], uint16_t pkey)
{
	/* In-tree srpt_ib_cm_req_recv: srpt_format_guid() of the dgid. */
	char guid_name[kPortGuidNameSize];
	FormatPortGuidName(initiator_gid, guid_name);
	SRPT_INFO(guid_name, "IB/CM REQ on %s port %u, pkey %#06x",
		  device.name(), port_num, pkey);
	const LoginSource src{SRPT_DP_IB_CM, cm_id, pkey, guid_name};
	return HandleLogin(device, port_num, src, pdata, pdata_len);
}

} // namespace srpt
