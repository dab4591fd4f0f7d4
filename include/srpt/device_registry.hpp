/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RDMA devices and ports the module serves, as the ib_client callbacks
 * report them. Each port carries the two names the in-tree driver gives it
 * (and under which configfs knows it): the GUID form "xxxx:xxxx:xxxx:xxxx"
 * of the GID's interface id, and the GID form "0x" + 32 hex digits.
 */
#ifndef SRPT_DEVICE_REGISTRY_HPP
#define SRPT_DEVICE_REGISTRY_HPP

#include <srpt/alloc.hpp>
#include <srpt/core_api.h>
#include <srpt/intrusive_list.hpp>
#include <srpt/lock.hpp>
#include <srpt/status.hpp>

namespace srpt {

enum class LinkLayer : uint32_t {
	kUnspecified = SRPT_LINK_LAYER_UNSPECIFIED,
	kInfiniband = SRPT_LINK_LAYER_INFINIBAND,
	kEthernet = SRPT_LINK_LAYER_ETHERNET,
};

const char *LinkLayerName(LinkLayer layer);

constexpr size_t kPortGuidNameSize = sizeof("xxxx:xxxx:xxxx:xxxx");
constexpr size_t kPortGidNameSize = sizeof("0x") + 32;
constexpr size_t kDeviceNameSize = 64; /* IB_DEVICE_NAME_MAX */

/* "fe80:0000:0000:0001" from the interface id (bytes 8..15) of @gid. */
void FormatPortGuidName(const uint8_t (&gid)[16],
			char (&out)[kPortGuidNameSize]);
/* "0x" + subnet prefix + interface id, 32 lowercase hex digits. */
void FormatPortGidName(const uint8_t (&gid)[16],
		       char (&out)[kPortGidNameSize]);

/* Plain data, handed out zeroed by AllocateArray(). */
struct Port {
	uint32_t number; /* 1-based */
	LinkLayer link_layer;
	bool gid_valid;
	uint8_t gid[16];
	uint16_t lid;
	uint16_t sm_lid;
	char guid_name[kPortGuidNameSize];
	char gid_name[kPortGidNameSize];

	/* Does @name (as configfs gives it) name this port? */
	bool HasName(const char *name) const;
};

class Device final : public KernelAllocated {
public:
	/* Validates @desc; nullptr with *status set when it is unusable. */
	static Device *Create(const srpt_device_desc &desc, Status *status);
	~Device();

	const char *name() const { return name_; }
	uint64_t node_guid() const { return node_guid_; }
	uint32_t port_count() const { return port_count_; }
	void *ib_device() const { return ib_device_; }
	/* @number is 1-based; nullptr when out of range. */
	Port *port(uint32_t number);

	ListNode registry_node;

private:
	Device() = default;

	char name_[kDeviceNameSize] = {};
	uint64_t node_guid_ = 0;
	uint32_t port_count_ = 0;
	Port *ports_ = nullptr;
	void *ib_device_ = nullptr;
};

/*
 * All devices, in the order they were added. Add and remove run in process
 * context under the registry mutex.
 */
class DeviceRegistry final : public KernelAllocated {
public:
	DeviceRegistry() : mutex_(LockClass::kDeviceList) {}
	~DeviceRegistry();

	/*
	 * Records a new device and logs it and its ports. The first device
	 * also supplies the service GUID when none was configured.
	 */
	Status Add(const srpt_device_desc &desc, Device **device);
	void Remove(Device *device);

	size_t device_count();
	/* The port that @name designates, by GUID or GID form. */
	Port *FindPort(const char *name, Device **device);

private:
	Mutex mutex_;
	IntrusiveList<Device, &Device::registry_node> devices_;
};

} // namespace srpt

#endif
