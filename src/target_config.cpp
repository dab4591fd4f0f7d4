// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/channel_registry.hpp>
#include <srpt/hex_format.hpp>
#include <srpt/kstrto.hpp>
#include <srpt/log.hpp>
#include <srpt/rdma_glue.h>
#include <srpt/target_config.hpp>

namespace srpt
{

PortId::PortId(Port &port, bool guid_form, DeviceRef device)
    : port_(&port), guid_form_(guid_form), device_(std::move(device))
{
	TextBuilder<kPortGidNameSize>(name_).Str(guid_form ? port.guid_name
							   : port.gid_name);
}

PortId *PortId::Make(DeviceRegistry &registry, const char *name, Status *status)
{
	PortLookup found = registry.FindPort(name);
	if (!found.port) {
		SRPT_ERR(nullptr, "no RDMA port is named %s", name);
		*status = Status::kInvalid;
		return nullptr;
	}
	Port *port = found.port;
	const bool guid_form = found.guid_form;
	PortId *id = new (Gfp::kKernel)
	    PortId(*port, guid_form, std::move(found.device));
	if (!id) {
		*status = Status::kNoMemory;
		return nullptr;
	}

	MutexGuard guard(port->mutex);
	PortId *&slot = guid_form ? port->guid_id : port->gid_id;
	/* configfs refuses a second mkdir of a name before asking us. */
	if (slot) {
		*status = Status::kExists;
		delete id;
		return nullptr;
	}
	slot = id;
	*status = Status::kOk;
	return id;
}

void PortId::Drop()
{
	{
		MutexGuard guard(port_->mutex);
		PortId *&slot = guid_form_ ? port_->guid_id : port_->gid_id;
		SRPT_WARN_ON(slot != this);
		slot = nullptr;
	}
	/* Last: the device reference may be what keeps port_ alive. */
	delete this;
}

bool PortId::SetEnabledLocked(bool enable)
{
	port_->mutex.AssertHeld();
	Port &port = *port_;
	if (port_->enabled == enable)
		return false;
	port_->enabled = enable;
	if (enable && port.device->removed())
		SRPT_WARNING(nullptr,
			     "port %s enabled, but its device %s is gone: "
			     "no initiator can log in",
			     name_, port.device->name());
	else
		SRPT_INFO(nullptr, "port %s %s", name_,
			  enable ? "enabled" : "disabled");
	return !enable;
}

/*
 * As in-tree, a disabled port logs its initiators out. Not under the port
 * mutex (a login nests the port mutex inside the channel registry mutex);
 * a login racing with this re-checks the port before it accepts.
 */
void PortId::CloseChannels()
{
	DisconnectPortChannels(*port_);
}

Status PortId::SetEnabled(bool enable)
{
	bool disabled;
	{
		MutexGuard guard(port_->mutex);
		disabled = SetEnabledLocked(enable);
	}
	if (disabled)
		CloseChannels();
	return Status::kOk;
}

void PortId::TpgDropped()
{
	bool disabled;
	{
		MutexGuard guard(port_->mutex);
		disabled = SetEnabledLocked(false);
	}
	if (disabled)
		CloseChannels();
}

uint32_t PortId::GetAttribute(srpt_port_attr attr)
{
	MutexGuard guard(port_->mutex);
	const PortAttributes a = port_->attrib;
	switch (attr) {
	case SRPT_ATTR_SRP_MAX_RDMA_SIZE:
		return a.srp_max_rdma_size;
	case SRPT_ATTR_SRP_MAX_RSP_SIZE:
		return a.srp_max_rsp_size;
	case SRPT_ATTR_SRP_SQ_SIZE:
		return a.srp_sq_size;
	case SRPT_ATTR_USE_SRQ:
		return a.use_srq;
	}
	return 0;
}

namespace
{

struct RangeRule {
	const char *name;
	uint32_t min;
	uint32_t max;
};

constexpr RangeRule kRangeRules[] = {
    [SRPT_ATTR_SRP_MAX_RDMA_SIZE] = {"srp_max_rdma_size",
				     PortAttributes::kDefaultMaxRdmaSize,
				     PortAttributes::kMaxMaxRdmaSize},
    [SRPT_ATTR_SRP_MAX_RSP_SIZE] = {"srp_max_rsp_size",
				    PortAttributes::kMinMaxRspSize,
				    PortAttributes::kMaxMaxRspSize},
    [SRPT_ATTR_SRP_SQ_SIZE] = {"srp_sq_size", PortAttributes::kMinSqSize,
			       PortAttributes::kMaxSqSize},
    [SRPT_ATTR_USE_SRQ] = {"use_srq", 0, 1},
};

} // namespace

Status PortId::SetAttribute(srpt_port_attr attr, const char *text)
{
	if (attr > SRPT_ATTR_USE_SRQ)
		return Status::kInvalid;
	const RangeRule &rule = kRangeRules[attr];
	const Result<uint64_t> value = ParseU64(text, 0);
	if (!value.ok()) {
		SRPT_ERR(nullptr, "port %s: %s: not a number", name_,
			 rule.name);
		/* In-tree: use_srq passes kstrtoul's error, others EINVAL. */
		return attr == SRPT_ATTR_USE_SRQ ? value.status()
						 : Status::kInvalid;
	}
	if (*value < rule.min || *value > rule.max) {
		SRPT_ERR(
		    nullptr, "port %s: %s %llu is outside the range [%u..%u]",
		    name_, rule.name, static_cast<unsigned long long>(*value),
		    rule.min, rule.max);
		return Status::kInvalid;
	}

	const uint32_t v = static_cast<uint32_t>(*value);
	if (attr == SRPT_ATTR_USE_SRQ) {
		/* Initiators log out before the receive model changes. */
		bool was_enabled, disabled;
		{
			MutexGuard guard(port_->mutex);
			was_enabled = port_->enabled;
			disabled = SetEnabledLocked(false);
		}
		if (disabled)
			CloseChannels();
		{
			MutexGuard guard(port_->mutex);
			port_->attrib.use_srq = v != 0;
		}
		/*
		 * As in-tree srpt_use_srq(), before the port is enabled again:
		 * the device's SRQ is made or retired. A failure is logged
		 * and the write still succeeds (in-tree ignores it too):
		 * channels then keep their own receive rings.
		 */
		port_->device->srq().Reconcile(*port_->device);
		MutexGuard guard(port_->mutex);
		SetEnabledLocked(was_enabled);
		return Status::kOk;
	}

	MutexGuard guard(port_->mutex);
	PortAttributes &a = port_->attrib;
	switch (attr) {
	case SRPT_ATTR_SRP_MAX_RDMA_SIZE:
		a.srp_max_rdma_size = v;
		break;
	case SRPT_ATTR_SRP_MAX_RSP_SIZE:
		a.srp_max_rsp_size = v;
		break;
	case SRPT_ATTR_SRP_SQ_SIZE:
		a.srp_sq_size = v;
		break;
	case SRPT_ATTR_USE_SRQ: /* handled above */
		break;
	}
	return Status::kOk;
}

namespace
{

bool IsSpace(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

int HexValue(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The kernel's sscanf(name, "%hx:%hx:%hx:%hx") == 4. */
bool IsGuidForm(const char *p)
{
	for (int field = 0; field < 4; field++) {
		if (field > 0 && *p++ != ':')
			return false;
		while (IsSpace(*p))
			p++;
		if (HexValue(*p) < 0)
			return false;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		while (HexValue(*p) >= 0)
			p++;
	}
	return true;
}

/* Up to 16 bytes of hex ("0x" optional, even length, first 32 digits). */
bool IsHexPortId(const char *p)
{
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	size_t len = 0;
	while (p[len])
		len++;
	if (len % 2)
		return false;
	const size_t digits = len < 32 ? len : 32;
	for (size_t i = 0; i < digits; i++)
		if (HexValue(p[i]) < 0)
			return false;
	return true;
}

} // namespace

Status CheckAclName(const char *name)
{
	if (IsGuidForm(name) || IsHexPortId(name) ||
	    srpt_inet_pton_with_scope(name) == 0)
		return Status::kOk;
	SRPT_ERR(nullptr, "invalid initiator port ID %s", name);
	return Status::kInvalid;
}

RdmaCmListener::~RdmaCmListener()
{
	SRPT_WARN_ON(listener_);
}

uint16_t RdmaCmListener::port()
{
	MutexGuard guard(mutex_);
	return port_;
}

Status RdmaCmListener::Store(const char *text)
{
	const Result<uint16_t> port = ParseU16(text, 0);
	if (!port.ok())
		return port.status();

	void *old;
	{
		MutexGuard guard(mutex_);
		if (*port == port_)
			return Status::kOk;
		void *listener = nullptr;
		if (*port) {
			const int rc = srpt_rdma_cm_listen(*port, &listener);
			if (rc < 0)
				return StatusFromErrno(rc);
		}
		old = listener_;
		listener_ = listener;
		port_ = *port;
	}
	/* Outside the mutex: destroying waits for running CM handlers. */
	if (old)
		srpt_rdma_cm_destroy(old);
	if (*port)
		SRPT_INFO(nullptr, "RDMA/CM listening on port %u", *port);
	else
		SRPT_INFO(nullptr, "RDMA/CM listener removed");
	return Status::kOk;
}

void RdmaCmListener::Shutdown()
{
	void *old;
	{
		MutexGuard guard(mutex_);
		old = listener_;
		listener_ = nullptr;
		port_ = 0;
	}
	if (old)
		srpt_rdma_cm_destroy(old);
}

} // namespace srpt
