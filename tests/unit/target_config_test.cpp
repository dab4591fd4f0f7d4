// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * configfs rules through the same C entry points configfs/fabric.c calls:
 * port directories, TPG enable, attributes, ACL names, rdma_cm_port, and a
 * device that goes away under a live configuration.
 */
#include <gtest/gtest.h>
#include <srpt/core_api.h>
#include <srpt/device_registry.hpp>
#include <srpt/host_platform.hpp>
#include <srpt/kstrto.hpp>
#include <srpt/module_state.hpp>

#include <cstring>
#include <string>

namespace srpt
{
namespace
{

constexpr const char *kGidName = "0xfe80000000000000505400fffe123456";
constexpr const char *kGuidName = "5054:00ff:fe12:3456";

/* Port::enabled is guarded by the port mutex. */
bool PortEnabled(Port &port)
{
	MutexGuard guard(port.mutex);
	return port.enabled;
}

class ConfigFixture : public testing::Test
{
protected:
	void SetUp() override
	{
		ASSERT_EQ(srpt_core_set_service_guid("0"), 0);
		const srpt_module_params params{8276, 4095};
		ASSERT_EQ(srpt_core_init(&params), 0);
		port_ = MakePortDesc(1, 0x56);
		desc_ = {"rxe0",      0x505400fffe123456ull,
			 1,	      &port_,
			 &ib_device_, 0x1111,
			 0x2222,      3,
			 16384,	      8192};
		ASSERT_EQ(srpt_core_add_device(&desc_, &device_), 0);
	}

	void TearDown() override
	{
		if (device_)
			srpt_core_remove_device(device_);
		srpt_core_rdma_cm_shutdown();
		srpt_core_exit();
	}

	static srpt_port_desc MakePortDesc(uint32_t num, uint8_t last)
	{
		srpt_port_desc p{};
		p.port_num = num;
		p.link_layer = SRPT_LINK_LAYER_ETHERNET;
		p.gid_valid = true;
		const uint8_t gid[16] = {0xfe, 0x80, 0,	   0,	 0,    0,
					 0,    0,    0x50, 0x54, 0x00, 0xff,
					 0xfe, 0x12, 0x34, last};
		std::memcpy(p.gid, gid, 16);
		return p;
	}

	srpt_core_port_id *MakePort(const char *name)
	{
		srpt_core_port_id *id = nullptr;
		EXPECT_EQ(srpt_core_port_id_make(name, &id), 0) << name;
		return id;
	}

	int ib_device_ = 0;
	srpt_port_desc port_{};
	srpt_device_desc desc_{};
	srpt_core_device *device_ = nullptr;
};

TEST_F(ConfigFixture, PortDirectoryByGidOrGuidName)
{
	srpt_core_port_id *gid = MakePort(kGidName);
	srpt_core_port_id *guid = MakePort(kGuidName);
	ASSERT_NE(gid, nullptr);
	ASSERT_NE(guid, nullptr);
	EXPECT_STREQ(srpt_core_port_id_name(gid), kGidName);
	EXPECT_STREQ(srpt_core_port_id_name(guid), kGuidName);
	srpt_core_port_id_drop(gid);
	srpt_core_port_id_drop(guid);
}

TEST_F(ConfigFixture, UnknownPortNameIsEinval)
{
	srpt_core_port_id *id = nullptr;
	EXPECT_EQ(
	    srpt_core_port_id_make("0xfe80000000000000505400fffe123457", &id),
	    -SRPT_EINVAL);
	EXPECT_EQ(srpt_core_port_id_make("rxe0", &id), -SRPT_EINVAL);
	/* Case matters: configfs names are compared as the driver prints. */
	EXPECT_EQ(
	    srpt_core_port_id_make("0xFE80000000000000505400FFFE123456", &id),
	    -SRPT_EINVAL);
	EXPECT_EQ(id, nullptr);
	EXPECT_TRUE(host::LogsContain("no RDMA port is named rxe0"));
}

TEST_F(ConfigFixture, SecondDirectoryOfTheSameFormIsRefused)
{
	srpt_core_port_id *a = MakePort(kGidName);
	srpt_core_port_id *b = nullptr;
	EXPECT_EQ(srpt_core_port_id_make(kGidName, &b), -SRPT_EEXIST);
	srpt_core_port_id_drop(a);
	/* Released on drop: the name can be made again. */
	srpt_core_port_id *c = MakePort(kGidName);
	srpt_core_port_id_drop(c);
}

TEST_F(ConfigFixture, EnableIsPerPortAndIdempotent)
{
	srpt_core_port_id *id = MakePort(kGidName);
	Device *dev = static_cast<Device *>(device_);
	EXPECT_FALSE(PortEnabled(*dev->port(1)));
	EXPECT_EQ(srpt_core_tpg_enable(id, true), 0);
	EXPECT_TRUE(PortEnabled(*dev->port(1)));
	EXPECT_EQ(srpt_core_tpg_enable(id, true), 0);
	EXPECT_TRUE(
	    host::LogsContain("port " + std::string(kGidName) + " enabled"));
	srpt_core_tpg_drop(id);
	EXPECT_FALSE(PortEnabled(*dev->port(1)));
	srpt_core_port_id_drop(id);
}

TEST_F(ConfigFixture, AttributeDefaultsAreTheInTreeOnes)
{
	srpt_core_port_id *id = MakePort(kGidName);
	EXPECT_EQ(srpt_core_port_attr_get(id, SRPT_ATTR_SRP_MAX_RDMA_SIZE),
		  65536u);
	EXPECT_EQ(srpt_core_port_attr_get(id, SRPT_ATTR_SRP_MAX_RSP_SIZE),
		  256u);
	EXPECT_EQ(srpt_core_port_attr_get(id, SRPT_ATTR_SRP_SQ_SIZE), 4096u);
	EXPECT_EQ(srpt_core_port_attr_get(id, SRPT_ATTR_USE_SRQ), 0u);
	srpt_core_port_id_drop(id);
}

struct AttrCase {
	srpt_port_attr attr;
	const char *text;
	int expected; /* 0 or -errno */
	uint32_t value_after;
};

class AttributeStore : public ConfigFixture,
		       public testing::WithParamInterface<AttrCase>
{
};

TEST_P(AttributeStore, AcceptsAndRefusesAsInTree)
{
	const AttrCase &c = GetParam();
	srpt_core_port_id *id = MakePort(kGidName);
	EXPECT_EQ(srpt_core_port_attr_set(id, c.attr, c.text), c.expected)
	    << "'" << c.text << "'";
	EXPECT_EQ(srpt_core_port_attr_get(id, c.attr), c.value_after);
	srpt_core_port_id_drop(id);
}

INSTANTIATE_TEST_SUITE_P(
    Ranges, AttributeStore,
    testing::Values(
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "65536", 0, 65536},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "16777216\n", 0, 16777216},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "0x100000", 0, 0x100000},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "0400000", 0, 0400000},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "65535", -SRPT_EINVAL, 65536},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "16777217", -SRPT_EINVAL, 65536},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "1M", -SRPT_EINVAL, 65536},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "-1", -SRPT_EINVAL, 65536},
	AttrCase{SRPT_ATTR_SRP_MAX_RDMA_SIZE, "99999999999999999999",
		 -SRPT_EINVAL, 65536},
	AttrCase{SRPT_ATTR_SRP_MAX_RSP_SIZE, "40", 0, 40},
	AttrCase{SRPT_ATTR_SRP_MAX_RSP_SIZE, "1024", 0, 1024},
	AttrCase{SRPT_ATTR_SRP_MAX_RSP_SIZE, "39", -SRPT_EINVAL, 256},
	AttrCase{SRPT_ATTR_SRP_MAX_RSP_SIZE, "1025", -SRPT_EINVAL, 256},
	AttrCase{SRPT_ATTR_SRP_MAX_RSP_SIZE, "", -SRPT_EINVAL, 256},
	AttrCase{SRPT_ATTR_SRP_SQ_SIZE, "4", 0, 4},
	AttrCase{SRPT_ATTR_SRP_SQ_SIZE, "65535", 0, 65535},
	AttrCase{SRPT_ATTR_SRP_SQ_SIZE, "3", -SRPT_EINVAL, 4096},
	AttrCase{SRPT_ATTR_SRP_SQ_SIZE, "65536", -SRPT_EINVAL, 4096},
	AttrCase{SRPT_ATTR_USE_SRQ, "1", 0, 1},
	AttrCase{SRPT_ATTR_USE_SRQ, "0\n", 0, 0},
	AttrCase{SRPT_ATTR_USE_SRQ, "2", -SRPT_EINVAL, 0},
	AttrCase{SRPT_ATTR_USE_SRQ, "yes", -SRPT_EINVAL, 0},
	/* kstrtoul's own error passes through for use_srq only. */
	AttrCase{SRPT_ATTR_USE_SRQ, "99999999999999999999", -SRPT_ERANGE, 0}));

TEST_F(ConfigFixture, AttributesAreSharedByBothNamesOfAPort)
{
	srpt_core_port_id *gid = MakePort(kGidName);
	srpt_core_port_id *guid = MakePort(kGuidName);
	ASSERT_EQ(srpt_core_port_attr_set(gid, SRPT_ATTR_SRP_SQ_SIZE, "128"),
		  0);
	EXPECT_EQ(srpt_core_port_attr_get(guid, SRPT_ATTR_SRP_SQ_SIZE), 128u);
	srpt_core_port_id_drop(gid);
	srpt_core_port_id_drop(guid);
}

TEST_F(ConfigFixture, UseSrqChangeKeepsTheEnabledState)
{
	srpt_core_port_id *id = MakePort(kGidName);
	ASSERT_EQ(srpt_core_tpg_enable(id, true), 0);
	host::ClearLogs();
	ASSERT_EQ(srpt_core_port_attr_set(id, SRPT_ATTR_USE_SRQ, "1"), 0);
	Device *dev = static_cast<Device *>(device_);
	EXPECT_TRUE(PortEnabled(*dev->port(1)));
	/* The port went down and up again, so sessions were logged out. */
	EXPECT_TRUE(host::LogsContain(std::string(kGidName) + " disabled"));
	EXPECT_TRUE(host::LogsContain(std::string(kGidName) + " enabled"));
	srpt_core_port_id_drop(id);
}

/* The use-after-free the in-tree driver once had: HCA gone, dirs stay. */
TEST_F(ConfigFixture, ConfigurationOutlivesTheDevice)
{
	srpt_core_port_id *id = MakePort(kGidName);
	const size_t allocations = host::OutstandingAllocations();
	srpt_core_remove_device(device_);
	device_ = nullptr;
	/* Still allocated: the port directory holds a reference. */
	EXPECT_EQ(host::OutstandingAllocations(), allocations);
	EXPECT_EQ(srpt_core_tpg_enable(id, true), 0);
	EXPECT_TRUE(host::LogsContain("its device rxe0 is gone"));
	EXPECT_EQ(srpt_core_port_attr_set(id, SRPT_ATTR_SRP_SQ_SIZE, "64"), 0);
	EXPECT_STREQ(srpt_core_port_id_name(id), kGidName);
	/* A removed device is no longer found by name. */
	srpt_core_port_id *again = nullptr;
	EXPECT_EQ(srpt_core_port_id_make(kGuidName, &again), -SRPT_EINVAL);
	srpt_core_tpg_drop(id);
	srpt_core_port_id_drop(id);
	/* The last reference freed the device and its ports. */
	EXPECT_LT(host::OutstandingAllocations(), allocations);

	/* The device comes back: configuring it again works. */
	ASSERT_EQ(srpt_core_add_device(&desc_, &device_), 0);
	srpt_core_port_id *fresh = MakePort(kGidName);
	EXPECT_EQ(srpt_core_tpg_enable(fresh, true), 0);
	srpt_core_port_id_drop(fresh);
}

TEST_F(ConfigFixture, PortDirectoryFailsCleanlyWithoutMemory)
{
	host::FailAllAllocations(true);
	srpt_core_port_id *id = nullptr;
	EXPECT_EQ(srpt_core_port_id_make(kGidName, &id), -SRPT_ENOMEM);
	host::FailAllAllocations(false);
	/* The device reference taken by the lookup was given back. */
	const size_t before = host::OutstandingAllocations();
	srpt_core_remove_device(device_);
	device_ = nullptr;
	EXPECT_LT(host::OutstandingAllocations(), before);
}

class AclName : public testing::TestWithParam<std::pair<const char *, int>>
{
};

TEST_P(AclName, ParsedAsInTree)
{
	EXPECT_EQ(srpt_core_acl_name_check(GetParam().first), GetParam().second)
	    << GetParam().first;
}

INSTANTIATE_TEST_SUITE_P(
    Names, AclName,
    testing::Values(
	/* The examples of the in-tree srpt_init_nodeacl(). */
	std::make_pair("0x0000000000000000505400fffe4a0b7b", 0),
	std::make_pair("0000000000000000505400fffe4a0b7b", 0),
	std::make_pair("5054:00ff:fe4a:0b7b", 0),
	std::make_pair("192.168.122.76", 0),
	std::make_pair("fe80::5054:ff:fe4a:b7b", 0),
	std::make_pair("fe80::5054:ff:fe4a:b7b%2", 0),
	std::make_pair("0X00ff", 0), std::make_pair("ab", 0),
	/* Only the first 32 digits are used. */
	std::make_pair("0000000000000000505400fffe4a0b7bzz", 0),
	/* sscanf("%hx:%hx:%hx:%hx") ignores what follows. */
	std::make_pair("1:2:3:4 trailing", 0),
	std::make_pair("abc", -SRPT_EINVAL), std::make_pair("0x", 0),
	std::make_pair("0xabc", -SRPT_EINVAL),
	std::make_pair("zz", -SRPT_EINVAL),
	std::make_pair("1:2:3", -SRPT_EINVAL),
	std::make_pair("192.168.1", -SRPT_EINVAL),
	std::make_pair("iqn.2003-01.org.example:x", -SRPT_EINVAL)));

TEST_F(ConfigFixture, RdmaCmPortCreatesReplacesAndRemovesTheListener)
{
	EXPECT_EQ(srpt_core_rdma_cm_port(), 0u);
	EXPECT_TRUE(host::RdmaCmListeners().empty());
	ASSERT_EQ(srpt_core_rdma_cm_port_store("5555\n"), 0);
	EXPECT_EQ(srpt_core_rdma_cm_port(), 5555u);
	EXPECT_EQ(host::RdmaCmListeners(), std::vector<uint16_t>{5555});
	/* Same port: nothing recreated. */
	ASSERT_EQ(srpt_core_rdma_cm_port_store("0x15b3"), 0);
	EXPECT_EQ(host::RdmaCmListeners(), std::vector<uint16_t>{5555});
	ASSERT_EQ(srpt_core_rdma_cm_port_store("5556"), 0);
	EXPECT_EQ(host::RdmaCmListeners(), std::vector<uint16_t>{5556});
	ASSERT_EQ(srpt_core_rdma_cm_port_store("0"), 0);
	EXPECT_TRUE(host::RdmaCmListeners().empty());
	EXPECT_EQ(srpt_core_rdma_cm_port(), 0u);
}

TEST_F(ConfigFixture, RdmaCmPortRefusesBadValuesAndKeepsTheListener)
{
	ASSERT_EQ(srpt_core_rdma_cm_port_store("5555"), 0);
	EXPECT_EQ(srpt_core_rdma_cm_port_store("65536"), -SRPT_ERANGE);
	EXPECT_EQ(srpt_core_rdma_cm_port_store("port"), -SRPT_EINVAL);
	EXPECT_EQ(srpt_core_rdma_cm_port_store("-1"), -SRPT_EINVAL);
	host::FailRdmaCmListen(6000, -98 /* EADDRINUSE */);
	EXPECT_EQ(srpt_core_rdma_cm_port_store("6000"), -98);
	host::FailRdmaCmListen(6000, 0);
	EXPECT_EQ(srpt_core_rdma_cm_port(), 5555u);
	EXPECT_EQ(host::RdmaCmListeners(), std::vector<uint16_t>{5555});
	srpt_core_rdma_cm_shutdown();
	EXPECT_TRUE(host::RdmaCmListeners().empty());
}

TEST_F(ConfigFixture, PortChangeEventRefreshesTheNamesLater)
{
	srpt_port_desc changed = MakePortDesc(1, 0x99);
	host::SetPortQueryResult(&ib_device_, 1, changed);
	srpt_core_port_event(device_, 1, SRPT_PORT_EVENT_CHANGE, 12);
	Device *dev = static_cast<Device *>(device_);
	/* Deferred: nothing changed before the work runs. */
	EXPECT_STREQ(dev->port(1)->guid_name, kGuidName);
	EXPECT_EQ(host::RunPendingWork(), 1u);
	EXPECT_STREQ(dev->port(1)->guid_name, "5054:00ff:fe12:3499");
	srpt_core_port_id *id = nullptr;
	EXPECT_EQ(srpt_core_port_id_make(kGuidName, &id), -SRPT_EINVAL);
	EXPECT_EQ(srpt_core_port_id_make("5054:00ff:fe12:3499", &id), 0);
	srpt_core_port_id_drop(id);
}

TEST_F(ConfigFixture, PortEventsOutOfRangeOrUnknownAreLoggedOnly)
{
	srpt_core_port_event(device_, 2, SRPT_PORT_EVENT_CHANGE, 9);
	srpt_core_port_event(device_, 0, SRPT_PORT_EVENT_ERR, 10);
	srpt_core_port_event(device_, 1, SRPT_PORT_EVENT_OTHER, 77);
	EXPECT_EQ(host::PendingWork(), 0u);
	EXPECT_TRUE(host::LogsContain("event 9 for port 2 of 1..1"));
	EXPECT_TRUE(host::LogsContain("received unrecognized IB event 77"));
}

TEST_F(ConfigFixture, RemovalCancelsAPendingRefresh)
{
	srpt_core_port_event(device_, 1, SRPT_PORT_EVENT_CHANGE, 12);
	EXPECT_EQ(host::PendingWork(), 1u);
	srpt_core_remove_device(device_);
	device_ = nullptr;
	EXPECT_EQ(host::PendingWork(), 0u);
}

TEST(Kstrto, BaseZeroAndSixteenAsTheKernel)
{
	EXPECT_EQ(*ParseU64("10", 0), 10u);
	EXPECT_EQ(*ParseU64("010", 0), 8u);
	EXPECT_EQ(*ParseU64("0x10", 0), 16u);
	EXPECT_EQ(*ParseU64("0", 0), 0u);
	EXPECT_EQ(*ParseU64("+7\n", 0), 7u);
	EXPECT_EQ(ParseU64("08", 0).status(), Status::kInvalid);
	EXPECT_EQ(ParseU64("0x", 0).status(), Status::kInvalid);
	EXPECT_EQ(*ParseU64("18446744073709551615", 10), ~0ull);
	EXPECT_EQ(ParseU64("18446744073709551616", 10).status(),
		  Status::kRange);
	EXPECT_EQ(*ParseU16("65535", 0), 65535u);
	EXPECT_EQ(ParseU16("65536", 0).status(), Status::kRange);
	EXPECT_EQ(ParseU16(" 1", 0).status(), Status::kInvalid);
}

} // namespace
} // namespace srpt
