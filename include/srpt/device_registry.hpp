/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RDMA devices and ports the module serves, as the ib_client callbacks
 * report them. Each port carries the two names the in-tree driver gives it
 * (and under which configfs knows it): the GUID form "xxxx:xxxx:xxxx:xxxx"
 * of the GID's interface id, and the GID form "0x" + 32 hex digits.
 *
 * Lifetime: a Device is reference counted. The registry holds one reference
 * from ib_client add to remove; every configfs port directory and every
 * channel holds one (a DeviceRef), so a configuration may outlive the RDMA
 * device (the in-tree driver once had a use-after-free there). After removal
 * the device is marked gone and its kernel handles are never used again.
 */
#ifndef SRPT_DEVICE_REGISTRY_HPP
#define SRPT_DEVICE_REGISTRY_HPP

#include <srpt/alloc.hpp>
#include <srpt/core_api.h>
#include <srpt/hex_format.hpp>
#include <srpt/intrusive_list.hpp>
#include <srpt/lock.hpp>
#include <srpt/rdma_glue.h>
#include <srpt/srq.hpp>
#include <srpt/status.hpp>
#include <utility>

namespace srpt
{

enum class LinkLayer : uint32_t {
	kUnspecified = SRPT_LINK_LAYER_UNSPECIFIED,
	kInfiniband = SRPT_LINK_LAYER_INFINIBAND,
	kEthernet = SRPT_LINK_LAYER_ETHERNET,
};

const char *LinkLayerName(LinkLayer layer);

constexpr size_t kPortGuidNameSize = sizeof("xxxx:xxxx:xxxx:xxxx");
/* The GID form, FormatHexId() of the GID. */
constexpr size_t kPortGidNameSize = kHexIdSize;
constexpr size_t kDeviceNameSize = 64; /* IB_DEVICE_NAME_MAX */

/* "fe80:0000:0000:0001" from the interface id (bytes 8..15) of @gid. */
void FormatPortGuidName(const uint8_t (&gid)[16],
			char (&out)[kPortGuidNameSize]);

/* Per-port settings shared by the port's TPGs (configfs attrib/). */
struct PortAttributes {
	static constexpr uint32_t kDefaultMaxRdmaSize = 65536;
	static constexpr uint32_t kMaxMaxRdmaSize = 1u << 24;
	static constexpr uint32_t kMinMaxRspSize = 36 + 4; /* srp_rsp + 4 */
	static constexpr uint32_t kMaxMaxRspSize = 1024;
	static constexpr uint32_t kDefaultMaxRspSize = 256;
	static constexpr uint32_t kDefaultSqSize = 4096;
	static constexpr uint32_t kMinSqSize = SRPT_MIN_SRQ_SIZE;
	static constexpr uint32_t kMaxSqSize = SRPT_MAX_SRQ_SIZE;

	uint32_t srp_max_rdma_size = kDefaultMaxRdmaSize;
	uint32_t srp_max_rsp_size = kDefaultMaxRspSize;
	uint32_t srp_sq_size = kDefaultSqSize;
	bool use_srq = false;
};

class Device;
class DeviceRef;
class PortId;

class Port : public KernelAllocated
{
public:
	Port() : mutex(LockClass::kPort) {}
	Port(const Port &) = delete;
	Port &operator=(const Port &) = delete;

	/* Does @name (as configfs gives it) name this port? */
	bool HasName(const char *name) const;
	/* Takes the identity (GID, LIDs, names) from a fresh query. */
	void Update(const srpt_port_desc &desc);

	Device *device = nullptr;
	uint32_t number = 0; /* 1-based */
	LinkLayer link_layer = LinkLayer::kUnspecified;

	/* Identity: written by add and refresh under the registry mutex. */
	bool gid_valid = false;
	uint8_t gid[16] = {};
	uint16_t lid = 0;
	uint16_t sm_lid = 0;
	char guid_name[kPortGuidNameSize] = {};
	char gid_name[kPortGidNameSize] = {};

	/* Configuration, under @mutex. */
	Mutex mutex;
	PortAttributes attrib SRPT_GUARDED_BY(mutex);
	bool enabled SRPT_GUARDED_BY(mutex) = false;
	/* configfs directory in GUID form */
	PortId *guid_id SRPT_GUARDED_BY(mutex) = nullptr;
	/* configfs directory in GID form */
	PortId *gid_id SRPT_GUARDED_BY(mutex) = nullptr;

	/* Deferred refresh after a port event (in the kernel: a work item). */
	alignas(SRPT_WORK_ALIGN) unsigned char refresh_work[SRPT_WORK_SIZE];
};

/* What the core keeps of an ib_device's attributes. */
struct DeviceAttributes {
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	uint32_t max_qp_wr;
	uint32_t max_srq_wr;
};

class Device final : public srpt_core_device, public KernelAllocated
{
public:
	/*
	 * Validates @desc; nullptr with *status set when it is unusable. The
	 * device starts with one reference, the registry's.
	 */
	static Device *Create(const srpt_device_desc &desc, Status *status);

	const char *name() const { return name_; }
	uint64_t node_guid() const { return node_guid_; }
	uint32_t port_count() const { return port_count_; }
	const DeviceAttributes &attributes() const { return attributes_; }
	/* The ib_device, or nullptr once the device was removed. */
	void *ib_device() const { return ib_device_; }
	bool removed() const { return ib_device_ == nullptr; }
	/* @number is 1-based; nullptr when out of range. */
	Port *port(uint32_t number);
	/* The shared receive queue (attrib/use_srq of its ports). */
	DeviceSrq &srq() { return srq_; }
	/* Observation, for the tests. */
	int32_t ref_count() const
	{
		return __atomic_load_n(&refcount_, __ATOMIC_RELAXED);
	}

	ListNode registry_node;

private:
	friend class DeviceRegistry;
	/* Only a DeviceRef counts, so that every reference has an owner. */
	friend class DeviceRef;
	Device() = default;
	~Device();

	void Get();
	/* Drops a reference; the last one frees the device. */
	void Put();

	int32_t refcount_ = 1;
	char name_[kDeviceNameSize] = {};
	uint64_t node_guid_ = 0;
	uint32_t port_count_ = 0;
	DeviceAttributes attributes_ = {};
	Port *ports_ = nullptr;
	void *ib_device_ = nullptr;
	DeviceSrq srq_;
};

/*
 * One counted reference on a Device, dropped when the DeviceRef goes: an
 * early return cannot leak it and a second owner cannot drop it twice.
 * Move-only. Acquire() counts a new reference. Adopt() takes over one no
 * DeviceRef held while it crossed C (the registry's, from Device::Create
 * to DeviceRegistry::Remove), release() hands one on to such a holder.
 */
class DeviceRef
{
public:
	DeviceRef() = default;
	static DeviceRef Acquire(Device &dev)
	{
		dev.Get();
		return DeviceRef(&dev);
	}
	/* Takes over a reference counted earlier and owned by nobody. */
	static DeviceRef Adopt(Device *dev) { return DeviceRef(dev); }

	DeviceRef(DeviceRef &&other) : dev_(other.release()) {}
	DeviceRef &operator=(DeviceRef &&other)
	{
		if (this != &other) {
			reset();
			dev_ = other.release();
		}
		return *this;
	}
	DeviceRef(const DeviceRef &) = delete;
	DeviceRef &operator=(const DeviceRef &) = delete;
	~DeviceRef() { reset(); }

	Device *get() const { return dev_; }
	Device *operator->() const { return dev_; }
	Device &operator*() const { return *dev_; }
	explicit operator bool() const { return dev_ != nullptr; }

	/* Hands the reference on, still counted, with the pointer. */
	Device *release()
	{
		Device *dev = dev_;
		dev_ = nullptr;
		return dev;
	}
	void reset()
	{
		if (Device *dev = release())
			dev->Put();
	}

private:
	explicit DeviceRef(Device *dev) : dev_(dev) {}

	Device *dev_ = nullptr;
};

/* A port found by name, with a reference on its device. */
struct PortLookup {
	Port *port = nullptr;
	/* Which of the port's two names matched. */
	bool guid_form = false;
	DeviceRef device;
};

/*
 * All devices, in the order they were added. Add and remove run in process
 * context under the registry mutex.
 */
class DeviceRegistry final : public KernelAllocated
{
public:
	DeviceRegistry() : mutex_(LockClass::kDeviceList) {}
	~DeviceRegistry();

	/*
	 * Records a new device and logs it and its ports. The first device
	 * also supplies the service GUID when none was configured.
	 */
	Status Add(const srpt_device_desc &desc, Device **device);
	/* Unlinks @device, marks it removed and drops the registry's ref. */
	void Remove(Device *device);

	size_t device_count();
	/*
	 * The port that @name designates, by GUID or GID form, with a
	 * reference on its device for the caller (port nullptr if none).
	 */
	PortLookup FindPort(const char *name);
	/* Re-reads a port's identity after a port event. */
	void RefreshPort(Port &port, const srpt_port_desc &desc);

private:
	Mutex mutex_;
	IntrusiveList<Device, &Device::registry_node>
	    devices_ SRPT_GUARDED_BY(mutex_);
};

} // namespace srpt

#endif
