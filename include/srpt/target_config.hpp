/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What configfs configures: port directories (in GUID or GID form), TPG
 * enable, the four per-port attributes, ACL names and the RDMA/CM listener
 * port. The C side (configfs/) only converts and forwards; every rule, limit
 * and message is here, so it is tested on the host.
 */
#ifndef SRPT_TARGET_CONFIG_HPP
#define SRPT_TARGET_CONFIG_HPP

#include <srpt/device_registry.hpp>
#include <srpt/lock.hpp>
#include <srpt/status.hpp>

namespace srpt
{

/* A configfs port directory: holds a reference on the port's device. */
class PortId final : public srpt_core_port_id, public KernelAllocated
{
public:
	/* Status kInvalid: no port has that name; kExists: already made. */
	static PortId *Make(DeviceRegistry &registry, const char *name,
			    Status *status);
	/* rmdir: releases the name and the device reference. */
	void Drop();

	Port &port() const { return *port_; }
	const char *name() const { return name_; }
	bool guid_form() const { return guid_form_; }

	Status SetEnabled(bool enable);
	/* Last TPG of the port gone: the port stops accepting logins. */
	void TpgDropped();

	uint32_t GetAttribute(srpt_port_attr attr);
	Status SetAttribute(srpt_port_attr attr, const char *text);

private:
	PortId(Port &port, bool guid_form, DeviceRef device);
	~PortId() = default;
	/* True when the port went from enabled to disabled. */
	bool SetEnabledLocked(bool enable) SRPT_REQUIRES(port_->mutex);
	/* With the port mutex released: channels of a disabled port go. */
	void CloseChannels();

	Port *port_;
	bool guid_form_;
	char name_[kPortGidNameSize];
	/* keeps port_ (an element of the device's array) alive */
	DeviceRef device_;
};

/*
 * Whether @name is an initiator port ID an ACL may carry: the GUID form,
 * up to 32 hex digits (optional "0x", even length), or an IP literal.
 */
Status CheckAclName(const char *name);

/* The single RDMA/CM listener of the module (discovery_auth/rdma_cm_port). */
class RdmaCmListener final : public KernelAllocated
{
public:
	RdmaCmListener() : mutex_(LockClass::kRdmaCmListener) {}
	~RdmaCmListener();

	uint16_t port();
	/* Parses as kstrtou16(text, 0); 0 removes the listener. */
	Status Store(const char *text);
	void Shutdown();

private:
	Mutex mutex_;
	uint16_t port_ SRPT_GUARDED_BY(mutex_) = 0;
	void *listener_ SRPT_GUARDED_BY(mutex_) = nullptr;
};

} // namespace srpt

#endif
