// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>
#include <srpt/core_api.h>
#include <srpt/device_registry.hpp>
#include <srpt/host_platform.hpp>
#include <srpt/module_state.hpp>

#include <array>
#include <cstring>
#include <utility>

namespace srpt
{
namespace
{

/* A RoCE GID as rxe derives it from a MAC: fe80::5054:00ff:fe12:3456. */
constexpr std::array<uint8_t, 16> kRoceGid = {
    0xfe, 0x80, 0,    0,    0,	  0,	0,    0,
    0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};

srpt_port_desc MakePort(uint32_t num, const std::array<uint8_t, 16> &gid,
			uint32_t link_layer = SRPT_LINK_LAYER_ETHERNET)
{
	srpt_port_desc port{};
	port.port_num = num;
	port.link_layer = link_layer;
	port.gid_valid = true;
	std::memcpy(port.gid, gid.data(), 16);
	return port;
}

/* rxe0 (node GUID 0x1111) with one RoCE port, added to the core. */
srpt_core_device *AddOneRoceDevice()
{
	const srpt_port_desc ports[] = {MakePort(1, kRoceGid)};
	const srpt_device_desc desc{"rxe0", 0x1111, 1, ports, nullptr};
	srpt_core_device *h = nullptr;
	return srpt_core_add_device(&desc, &h) == 0 ? h : nullptr;
}

class CoreFixture : public testing::Test
{
protected:
	void SetUp() override
	{
		ASSERT_EQ(srpt_core_set_service_guid("0"), 0);
		const srpt_module_params params{8276, 4095};
		ASSERT_EQ(srpt_core_init(&params), 0);
	}
	void TearDown() override { srpt_core_exit(); }

	DeviceRegistry &registry() { return *GetModuleState().registry; }
};

TEST(PortNames, FormattedAsTheInTreeDriver)
{
	uint8_t gid[16];
	std::memcpy(gid, kRoceGid.data(), 16);
	char guid_name[kPortGuidNameSize];
	char gid_name[kPortGidNameSize];
	FormatPortGuidName(gid, guid_name);
	FormatHexId(gid, gid_name);
	EXPECT_STREQ(guid_name, "5054:00ff:fe12:3456");
	EXPECT_STREQ(gid_name, "0xfe80000000000000505400fffe123456");
}

TEST_F(CoreFixture, AddLogsDeviceAndPortNamesAndTracksThem)
{
	const srpt_port_desc ports[] = {MakePort(1, kRoceGid)};
	int fake_ib_device;
	const srpt_device_desc desc{"rxe0", 0x505400fffe123456ull, 1, ports,
				    &fake_ib_device};
	srpt_core_device *handle = nullptr;
	ASSERT_EQ(srpt_core_add_device(&desc, &handle), 0);
	ASSERT_NE(handle, nullptr);
	EXPECT_EQ(registry().device_count(), 1u);

	EXPECT_TRUE(host::LogsContain(
	    "device rxe0: node GUID 0x505400fffe123456, 1 port(s)"));
	EXPECT_TRUE(host::LogsContain(
	    "device rxe0 port 1: Ethernet, GUID name 5054:00ff:fe12:3456, "
	    "GID name 0xfe80000000000000505400fffe123456"));

	Device *dev = static_cast<Device *>(handle);
	{
		PortLookup by_gid =
		    registry().FindPort("0xfe80000000000000505400fffe123456");
		ASSERT_NE(by_gid.port, nullptr);
		EXPECT_FALSE(by_gid.guid_form);
		EXPECT_EQ(by_gid.port->device, dev);
		EXPECT_EQ(by_gid.device.get(), dev);
		EXPECT_EQ(dev->ib_device(), &fake_ib_device);
		PortLookup by_guid = registry().FindPort("5054:00ff:fe12:3456");
		EXPECT_EQ(by_guid.port, by_gid.port);
		EXPECT_TRUE(by_guid.guid_form);
		/* The registry's reference and one per lookup that found it. */
		EXPECT_EQ(dev->ref_count(), 3);
		PortLookup none = registry().FindPort("5054:00ff:fe12:3457");
		EXPECT_EQ(none.port, nullptr);
		EXPECT_FALSE(none.device);
		EXPECT_EQ(registry().FindPort("").port, nullptr);
		EXPECT_EQ(dev->ref_count(), 3);
	}
	EXPECT_EQ(dev->ref_count(), 1);

	srpt_core_remove_device(handle);
	EXPECT_EQ(registry().device_count(), 0u);
	EXPECT_EQ(registry().FindPort("5054:00ff:fe12:3456").port, nullptr);
	EXPECT_TRUE(host::LogsContain("device rxe0 removed"));
}

TEST_F(CoreFixture, DeviceRefHoldsOneReferenceAndDropsItOnce)
{
	const srpt_port_desc ports[] = {MakePort(1, kRoceGid)};
	const srpt_device_desc desc{"rxe0", 0x1, 1, ports, nullptr};
	const size_t before = host::OutstandingAllocations();
	srpt_core_device *h = nullptr;
	ASSERT_EQ(srpt_core_add_device(&desc, &h), 0);
	Device *dev = static_cast<Device *>(h);
	ASSERT_EQ(dev->ref_count(), 1);

	DeviceRef a = DeviceRef::Acquire(*dev);
	EXPECT_EQ(a.get(), dev);
	EXPECT_EQ(dev->ref_count(), 2);
	/* Moves hand the reference on without counting. */
	DeviceRef b(std::move(a));
	EXPECT_FALSE(a);
	EXPECT_EQ(b.get(), dev);
	EXPECT_EQ(dev->ref_count(), 2);
	DeviceRef c = DeviceRef::Acquire(*dev);
	EXPECT_EQ(dev->ref_count(), 3);
	c = std::move(b); /* c's own reference is dropped */
	EXPECT_FALSE(b);
	EXPECT_EQ(c.get(), dev);
	EXPECT_EQ(dev->ref_count(), 2);
	/* release() keeps the count for whoever takes the pointer. */
	Device *raw = c.release();
	EXPECT_FALSE(c);
	EXPECT_EQ(raw, dev);
	EXPECT_EQ(dev->ref_count(), 2);
	DeviceRef d = DeviceRef::Adopt(raw);
	EXPECT_EQ(dev->ref_count(), 2);
	{
		DeviceRef e = DeviceRef::Acquire(*dev);
		EXPECT_EQ(dev->ref_count(), 3);
	}
	EXPECT_EQ(dev->ref_count(), 2);
	d.reset();
	EXPECT_FALSE(d);
	d.reset(); /* empty: nothing to drop */
	EXPECT_EQ(dev->ref_count(), 1);

	/* A reference outlives removal; the last one frees the device. */
	DeviceRef last = DeviceRef::Acquire(*dev);
	srpt_core_remove_device(h);
	EXPECT_TRUE(dev->removed());
	EXPECT_EQ(dev->ref_count(), 1);
	EXPECT_GT(host::OutstandingAllocations(), before);
	last.reset();
	EXPECT_EQ(host::OutstandingAllocations(), before);
}

TEST_F(CoreFixture, ServiceGuidDefaultsToFirstNodeGuid)
{
	const srpt_port_desc ports[] = {MakePort(1, kRoceGid)};
	const srpt_device_desc first{"mlx5_0", 0x1111, 1, ports, nullptr};
	const srpt_device_desc second{"mlx5_1", 0x2222, 1, ports, nullptr};
	srpt_core_device *a = nullptr, *b = nullptr;
	ASSERT_EQ(srpt_core_add_device(&first, &a), 0);
	ASSERT_EQ(srpt_core_add_device(&second, &b), 0);
	EXPECT_EQ(srpt_core_service_guid(), 0x1111u);
	srpt_core_remove_device(a);
	srpt_core_remove_device(b);
}

TEST_F(CoreFixture, ConfiguredServiceGuidIsKept)
{
	ASSERT_EQ(srpt_core_set_service_guid("0xabcdef"), 0);
	srpt_core_device *h = AddOneRoceDevice();
	ASSERT_NE(h, nullptr);
	EXPECT_EQ(srpt_core_service_guid(), 0xabcdefu);
	srpt_core_remove_device(h);
}

/*
 * The kernel's order: `modprobe ib_srpt srpt_service_guid=...` runs the
 * parameter's setter before module_init (srpt_core_init), and the first
 * device is added after it. The value must survive both (the in-tree
 * driver had no setter at all and crashed in parse_one).
 */
TEST(ServiceGuidParam, SetBeforeInitIsKeptByInitAndTheFirstDevice)
{
	ASSERT_EQ(srpt_core_set_service_guid("0x0002c90300a0b0c0"), 0);
	const srpt_module_params params{8276, 4095};
	ASSERT_EQ(srpt_core_init(&params), 0);
	EXPECT_EQ(srpt_core_service_guid(), 0x0002c90300a0b0c0ull);
	srpt_core_device *h = AddOneRoceDevice();
	ASSERT_NE(h, nullptr);
	EXPECT_EQ(srpt_core_service_guid(), 0x0002c90300a0b0c0ull);
	srpt_core_remove_device(h);
	srpt_core_exit();
	ASSERT_EQ(srpt_core_set_service_guid("0"), 0);
}

TEST_F(CoreFixture, MultiPortDeviceNamesEachPort)
{
	auto gid2 = kRoceGid;
	gid2[15] = 0x57;
	const srpt_port_desc ports[] = {
	    MakePort(1, kRoceGid, SRPT_LINK_LAYER_INFINIBAND),
	    MakePort(2, gid2, SRPT_LINK_LAYER_INFINIBAND)};
	const srpt_device_desc desc{"mlx4_0", 0x1, 2, ports, nullptr};
	srpt_core_device *h = nullptr;
	ASSERT_EQ(srpt_core_add_device(&desc, &h), 0);
	{
		PortLookup found = registry().FindPort("5054:00ff:fe12:3457");
		Port *p2 = found.port;
		ASSERT_NE(p2, nullptr);
		Device *dev = p2->device;
		EXPECT_EQ(p2->number, 2u);
		EXPECT_EQ(p2->link_layer, LinkLayer::kInfiniband);
		EXPECT_EQ(dev->port(2), p2);
		EXPECT_EQ(dev->port(0), nullptr);
		EXPECT_EQ(dev->port(3), nullptr);
	}
	srpt_core_remove_device(h);
}

TEST_F(CoreFixture, PortWithoutGidHasNoName)
{
	srpt_port_desc port = MakePort(1, kRoceGid);
	port.gid_valid = false;
	const srpt_device_desc desc{"rxe9", 0x1, 1, &port, nullptr};
	srpt_core_device *h = nullptr;
	ASSERT_EQ(srpt_core_add_device(&desc, &h), 0);
	EXPECT_TRUE(host::LogsContain("device rxe9 port 1: GID 0 unreadable"));
	/* Its zeroed names must not match an all-zero GID name. */
	EXPECT_EQ(
	    registry().FindPort("0x00000000000000000000000000000000").port,
	    nullptr);
	srpt_core_remove_device(h);
}

TEST_F(CoreFixture, MalformedDescriptionsAreRefused)
{
	const srpt_port_desc ports[] = {MakePort(2, kRoceGid)};
	srpt_core_device *h = nullptr;
	const srpt_device_desc wrong_num{"x", 1, 1, ports, nullptr};
	EXPECT_EQ(srpt_core_add_device(&wrong_num, &h), -SRPT_EINVAL);
	const srpt_device_desc no_ports{"x", 1, 0, ports, nullptr};
	EXPECT_EQ(srpt_core_add_device(&no_ports, &h), -SRPT_EINVAL);
	const srpt_device_desc null_ports{"x", 1, 1, nullptr, nullptr};
	EXPECT_EQ(srpt_core_add_device(&null_ports, &h), -SRPT_EINVAL);
	const srpt_device_desc null_name{nullptr, 1, 1, ports, nullptr};
	EXPECT_EQ(srpt_core_add_device(&null_name, &h), -SRPT_EINVAL);
	EXPECT_EQ(h, nullptr);
	EXPECT_EQ(registry().device_count(), 0u);
}

/* Every allocation of the add path, failed in turn, leaks nothing. */
TEST_F(CoreFixture, EveryAllocationFailureIsClean)
{
	const srpt_port_desc ports[] = {MakePort(1, kRoceGid)};
	const srpt_device_desc desc{"rxe0", 0x1, 1, ports, nullptr};
	const size_t baseline = host::OutstandingAllocations();

	host::ResetAllocationStats();
	srpt_core_device *h = nullptr;
	ASSERT_EQ(srpt_core_add_device(&desc, &h), 0);
	const size_t calls = host::AllocationCalls();
	srpt_core_remove_device(h);
	ASSERT_GE(calls, 2u);

	for (size_t nth = 1; nth <= calls; nth++) {
		host::FailNthAllocation(nth);
		srpt_core_device *handle = nullptr;
		EXPECT_EQ(srpt_core_add_device(&desc, &handle), -SRPT_ENOMEM)
		    << "allocation " << nth;
		EXPECT_EQ(handle, nullptr);
		EXPECT_EQ(host::OutstandingAllocations(), baseline);
		EXPECT_EQ(registry().device_count(), 0u);
	}
	host::FailNthAllocation(0);
}

} // namespace
} // namespace srpt
