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
#include <srpt/channel_registry.hpp>
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
 * One login on its way through Admit, Build, Publish and Accept: what
 * each step found out and the steps after it need.
 */
struct Login {
	Login(Device &dev, Port &p, const LoginSource &s)
	    : device(dev), port(p), src(s)
	{
	}

	/* LOGIN_REJ for the decoded request; @who names the log lines. */
	void Refuse(const char *who, wire::LoginRejReason reason,
		    const char *why) const
	{
		Reject(src, who, decision.tag, reason,
		       {i_port_id, why, req.it_iu_len});
	}

	Device &device;
	Port &port;
	const LoginSource &src;
	PortSnapshot snap{};
	LoginConfig cfg{};
	uint32_t credits = 0;
	/* All zero when the private data was too short to decode. */
	LoginRequest req{};
	LoginDecision decision{};
	/* req.initiator_port_id, for logs and as the ACL name */
	char i_port_id[kHexIdSize] = {};
	/* The channel's SRQ reference until Build hands it over. */
	SrqRef srq;
};

/*
 * Decodes the private data once and negotiates on what was decoded;
 * false when the login is refused (and answered).
 */
bool Admit(Login &l, std::span<const uint8_t> pdata)
{
	const ModuleState &ms = GetModuleState();
	l.snap = Snapshot(l.port);
	l.credits = ChannelCredits(l.device.attributes().max_qp_wr);
	l.cfg.service_guid = ms.service_guid;
	l.cfg.max_req_size = static_cast<uint32_t>(ms.params.srp_max_req_size);
	l.cfg.req_lim = l.credits;
	l.cfg.port_enabled = l.snap.enabled;
	l.srq = l.device.srq().Get(l.snap.attrib.use_srq);
	l.cfg.use_srq = static_cast<bool>(l.srq);

	const std::optional<LoginRequest> req = Decode(l.src, pdata);
	if (req)
		l.req = *req;
	l.decision = negotiate_login(req, l.cfg);
	FormatHexId(l.req.initiator_port_id, l.i_port_id);
	SRPT_INFO(
	    l.src.name,
	    "SRP_LOGIN_REQ from %s on %s port %u, it_iu_len %u, flags %#x",
	    l.i_port_id, l.device.name(), l.port.number, l.req.it_iu_len,
	    l.req.flags);
	if (l.decision.accepted())
		return true;
	SRPT_ERR(l.src.name, "login rejected: %s", describe(l.decision.check));
	l.Refuse(l.src.name, l.decision.reason, describe(l.decision.check));
	return false;
}

/*
 * The channel (given the SRQ reference) and its session; nullptr when
 * either cannot be had (answered, nothing left behind).
 */
Channel *Build(Login &l)
{
	ChannelParams p{};
	p.device = &l.device;
	p.port = &l.port;
	p.cm_id = l.src.cm_id;
	p.cm = l.src.cm;
	p.pkey = l.src.pkey;
	p.login = l.decision.params;
	p.credits = l.credits;
	p.sq_size = l.snap.attrib.srp_sq_size;
	p.rsp_buf_size = l.snap.attrib.srp_max_rsp_size;
	p.req_buf_size = l.cfg.max_req_size;
	p.max_data_len = kMaxCommandData;
	p.send_ctx_limit = srpt_dp_test_send_ctx_limit();
	p.name = l.src.name;
	Status st;
	Channel *ch = Channel::Create(p, std::move(l.srq), &st);
	if (!ch) {
		l.Refuse(l.src.name,
			 wire::LoginRejReason::InsufficientResources,
			 "no resources for the channel");
		return nullptr;
	}

	const Status session =
	    SetupSession(*ch, l.snap, l.src.name, l.i_port_id);
	if (!IsOk(session)) {
		SRPT_INFO(l.src.name,
			  "rejected login for initiator %s (%s): ret = %d",
			  l.src.name, l.i_port_id, ToNegativeErrno(session));
		ch->DestroyUnpublished();
		l.Refuse(l.src.name, SessionRejectReason(session),
			 session == Status::kNoMemory
			     ? "no memory for the session"
			     : "the target core refused the session (no ACL?)");
		return nullptr;
	}
	return ch;
}

/*
 * Links @ch into its I_T nexus and applies the multichannel action: from
 * here on the channel ends through Close(). False when the nexus cannot
 * be made (answered, channel freed); *terminated: other channels of the
 * nexus were closed.
 */
bool Publish(Login &l, ChannelRegistry &reg, Channel &ch, bool *terminated)
{
	{
		MutexGuard guard(reg.mutex);
		Nexus *nexus = reg.GetNexusLocked(
		    &l.port, l.req.initiator_port_id, l.req.target_port_id);
		if (nexus) {
			if (l.decision.params.multichannel ==
			    wire::MultiChannelAction::Single) {
				nexus->channels.ForEach([&](Channel &other) {
					if (other.Disconnect(
						"relogin of the initiator "
						"(single channel)")) {
						SRPT_INFO(other.name(),
							  "relogin: closed "
							  "channel %u",
							  other.id());
						*terminated = true;
					}
				});
			}
			reg.AddLocked(ch, *nexus);
			/*
			 * Under the registry mutex: nothing can close the
			 * channel before its debugfs entry exists.
			 */
			ch.debugfs =
			    srpt_dp_debugfs_add(ch.dp(), ch.name(), ch.id());
			return true;
		}
	}
	ch.DestroyUnpublished();
	l.Refuse(l.src.name, wire::LoginRejReason::InsufficientResources,
		 "no memory for the I_T nexus");
	return false;
}

/*
 * LOGIN_RSP, unless the port was disabled or the channel closed since
 * Admit. A failure is answered with LOGIN_REJ and closes the channel.
 */
void Accept(const Login &l, Channel &ch, bool terminated)
{
	const LoginParams &params = l.decision.params;
	uint8_t rsp[sizeof(wire::LoginRsp)];
	const size_t rsp_len =
	    build_login_rsp(rsp, l.decision.tag, params, terminated);
	Status accepted = Status::kInvalid;
	if (PortEnabled(l.port) && ch.state() == ChannelState::kConnecting)
		accepted = StatusFromErrno(srpt_dp_cm_accept(
		    ch.dp(), rsp, static_cast<uint32_t>(rsp_len)));
	if (!IsOk(accepted)) {
		SRPT_ERR(ch.name(), "accepting the login failed (%d)",
			 ToNegativeErrno(accepted));
		l.Refuse(ch.name(), wire::LoginRejReason::InsufficientResources,
			 "accepting the login failed");
		(void)ch.Close("accepting the login failed");
		return;
	}
	SRPT_INFO(ch.name(),
		  "login accepted: channel %u, %u credits, it_iu_len %u%s%s%s",
		  ch.id(), l.credits, params.it_iu_len,
		  params.immediate_data ? ", immediate data" : "",
		  ch.srq() ? ", shared receive queue" : "",
		  terminated ? ", other channels terminated" : "");
	if (srpt_tracing())
		srpt_trace_login(ch.name(), l.i_port_id, true, "accepted", 0,
				 params.it_iu_len, l.credits);
}

/*
 * The login of either CM (in-tree srpt_cm_req_recv). Status kOk when the
 * channel took the cm_id, otherwise the CM must destroy it.
 */
LoginResult HandleLogin(Device &device, uint32_t port_num,
			const LoginSource &src, const uint8_t *pdata,
			uint32_t pdata_len)
{
	const LoginResult refused{Status::kRefused};
	ChannelRegistry *reg = GetChannelRegistry();
	Port *port = device.port(port_num);
	if (!port || !reg || device.removed()) {
		SRPT_ERR(src.name, "login on %s port %u: no such port",
			 device.name(), port_num);
		Reject(src, src.name, 0,
		       wire::LoginRejReason::UnableToEstablishChannel,
		       {"-", "no such target port", 0});
		return refused;
	}
	Login login(device, *port, src);
	if (!Admit(login, {pdata, pdata_len}))
		return refused;
	Channel *ch = Build(login);
	if (!ch)
		return refused;
	bool terminated = false;
	if (!Publish(login, *reg, *ch, &terminated))
		return refused;
	/* Accepted or not, the channel owns the cm_id: its release ends it. */
	Accept(login, *ch, terminated);
	return LoginResult{Status::kOk};
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
