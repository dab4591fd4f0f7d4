// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/device_registry.hpp>
#include <srpt/hex_format.hpp>
#include <srpt/log.hpp>
#include <srpt/module_state.hpp>

namespace srpt
{

const char *LinkLayerName(LinkLayer layer)
{
	switch (layer) {
	case LinkLayer::kInfiniband:
		return "InfiniBand";
	case LinkLayer::kEthernet:
		return "Ethernet";
	case LinkLayer::kUnspecified:
		break;
	}
	return "unspecified";
}

void FormatPortGuidName(const uint8_t (&gid)[16],
			char (&out)[kPortGuidNameSize])
{
	TextBuilder<kPortGuidNameSize> text(out);
	for (int i = 0; i < 4; i++) {
		if (i)
			text.Char(':');
		text.Hex(
		    static_cast<uint16_t>(gid[8 + 2 * i] << 8 | gid[9 + 2 * i]),
		    4);
	}
}

bool Port::HasName(const char *name) const
{
	return gid_valid &&
	       (StrEqual(name, guid_name) || StrEqual(name, gid_name));
}

void Port::Update(const srpt_port_desc &desc)
{
	link_layer = static_cast<LinkLayer>(desc.link_layer);
	gid_valid = desc.gid_valid;
	lid = desc.lid;
	sm_lid = desc.sm_lid;
	__builtin_memcpy(gid, desc.gid, sizeof(gid));
	FormatPortGuidName(gid, guid_name);
	FormatHexId(gid, gid_name);
}

Device *Device::Create(const srpt_device_desc &desc, Status *status)
{
	*status = Status::kInvalid;
	if (!desc.name || !desc.ports || desc.port_count == 0 ||
	    desc.port_count > 255) {
		SRPT_ERR(nullptr, "refusing device %s: %u ports",
			 desc.name ? desc.name : "(unnamed)", desc.port_count);
		return nullptr;
	}
	for (uint32_t i = 0; i < desc.port_count; i++) {
		if (desc.ports[i].port_num != i + 1) {
			SRPT_ERR(nullptr,
				 "refusing device %s: port %u reported at "
				 "index %u",
				 desc.name, desc.ports[i].port_num, i);
			return nullptr;
		}
	}

	*status = Status::kNoMemory;
	Device *dev = new (Gfp::kKernel) Device();
	if (!dev)
		return nullptr;
	dev->ports_ = new (Gfp::kKernel) Port[desc.port_count];
	if (!dev->ports_) {
		delete dev;
		return nullptr;
	}

	TextBuilder<kDeviceNameSize>(dev->name_).Str(desc.name);
	dev->node_guid_ = desc.node_guid;
	dev->port_count_ = desc.port_count;
	dev->ib_device_ = desc.ib_device;
	dev->attributes_ = {desc.vendor_id, desc.vendor_part_id, desc.hw_ver,
			    desc.max_qp_wr, desc.max_srq_wr};
	for (uint32_t i = 0; i < desc.port_count; i++) {
		Port &port = dev->ports_[i];
		port.device = dev;
		port.number = desc.ports[i].port_num;
		port.Update(desc.ports[i]);
	}
	*status = Status::kOk;
	return dev;
}

Device::~Device()
{
	SRPT_WARN_ON(registry_node.InContainer());
	delete[] ports_;
}

void Device::Get()
{
	srpt_atomic_add_return(&refcount_, 1);
}

void Device::Put()
{
	const int32_t left = srpt_atomic_add_return(&refcount_, -1);
	SRPT_WARN_ON(left < 0);
	if (left == 0)
		delete this;
}

Port *Device::port(uint32_t number)
{
	if (number == 0 || number > port_count_)
		return nullptr;
	return &ports_[number - 1];
}

DeviceRegistry::~DeviceRegistry()
{
	/* Every device must have been removed by the ib_client first. */
	SRPT_WARN_ON(!devices_.empty());
}

Status DeviceRegistry::Add(const srpt_device_desc &desc, Device **device)
{
	Status status;
	Device *dev = Device::Create(desc, &status);
	if (!dev)
		return status;

	ModuleState &state = GetModuleState();
	if (state.service_guid == 0) {
		state.service_guid = dev->node_guid();
		SRPT_INFO(nullptr, "service GUID 0x%016llx (node GUID of %s)",
			  static_cast<unsigned long long>(state.service_guid),
			  dev->name());
	}

	SRPT_INFO(nullptr, "device %s: node GUID 0x%016llx, %u port(s)",
		  dev->name(),
		  static_cast<unsigned long long>(dev->node_guid()),
		  dev->port_count());
	for (uint32_t n = 1; n <= dev->port_count(); n++) {
		const Port &port = *dev->port(n);
		if (!port.gid_valid) {
			SRPT_WARNING(nullptr,
				     "device %s port %u: GID 0 unreadable, "
				     "port has no name",
				     dev->name(), n);
			continue;
		}
		SRPT_INFO(nullptr,
			  "device %s port %u: %s, GUID name %s, GID name %s",
			  dev->name(), n, LinkLayerName(port.link_layer),
			  port.guid_name, port.gid_name);
	}

	MutexGuard guard(mutex_);
	devices_.push_back(*dev);
	*device = dev;
	return Status::kOk;
}

void DeviceRegistry::Remove(Device *device)
{
	{
		MutexGuard guard(mutex_);
		devices_.erase(*device);
		/* From here on nothing may reach the ib_device through us. */
		device->ib_device_ = nullptr;
	}
	SRPT_INFO(nullptr, "device %s removed", device->name());
	/* The reference Create() counted for the registry ends here. */
	DeviceRef::Adopt(device).reset();
}

size_t DeviceRegistry::device_count()
{
	MutexGuard guard(mutex_);
	return devices_.size();
}

PortLookup DeviceRegistry::FindPort(const char *name)
{
	MutexGuard guard(mutex_);
	PortLookup found;
	devices_.ForEach([&](Device &dev) {
		for (uint32_t n = 1; !found.port && n <= dev.port_count();
		     n++) {
			Port *port = dev.port(n);
			if (port->HasName(name)) {
				found.port = port;
				found.guid_form =
				    StrEqual(name, port->guid_name);
				found.device = DeviceRef::Acquire(dev);
			}
		}
	});
	return found;
}

void DeviceRegistry::RefreshPort(Port &port, const srpt_port_desc &desc)
{
	MutexGuard guard(mutex_);
	port.Update(desc);
}

} // namespace srpt
