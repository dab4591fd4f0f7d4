/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The module and one RoCE device ("rxe0", one port, GID
 * fe80::5054:ff:fe12:3456) brought up on the host through the C entry points
 * the kernel calls, for the data-path fixtures (DataPathFixture, SrqFixture).
 * Start() is what module load and ib_client's add_one do, Stop() what device
 * removal and module unload do; a fixture closes its channels in between.
 */
#ifndef SRPT_TESTS_HOST_DEVICE_HPP
#define SRPT_TESTS_HOST_DEVICE_HPP

#include <gtest/gtest.h>
#include <srpt/core_api.h>
#include <srpt/host_datapath.hpp>
#include <srpt/host_platform.hpp>

#include "datapath_test_ius.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace srpt::dp_test
{

struct HostDevice {
	/* srpt_srq_size is the module parameter, max_srq_wr the device's. */
	void Start(int32_t srpt_srq_size, uint32_t max_srq_wr)
	{
		host::ResetDataPath();
		ASSERT_EQ(srpt_core_set_service_guid("0"), 0);
		const srpt_module_params params{8276, srpt_srq_size};
		ASSERT_EQ(srpt_core_init(&params), 0);
		ASSERT_EQ(srpt_core_dp_init(), 0);
		port.port_num = 1;
		port.link_layer = SRPT_LINK_LAYER_ETHERNET;
		port.gid_valid = true;
		const uint8_t gid[16] = {0xfe, 0x80, 0,	   0,	 0,    0,
					 0,    0,    0x50, 0x54, 0x00, 0xff,
					 0xfe, 0x12, 0x34, 0x56};
		std::memcpy(port.gid, gid, 16);
		desc = {"rxe0", kNodeGuid, 1, &port, &ib_device,
			0x1111, 0x2222,	   3, 16384, max_srq_wr};
		ASSERT_EQ(srpt_core_add_device(&desc, &device), 0);
	}

	/* After the fixture closed its channels. */
	void Stop()
	{
		srpt_core_dp_device_removing(device);
		srpt_core_remove_device(device);
		srpt_core_dp_exit();
		srpt_core_rdma_cm_shutdown();
		srpt_core_exit();
		host::ResetDataPath();
	}

	int ib_device = 0;
	srpt_port_desc port{};
	srpt_device_desc desc{};
	srpt_core_device *device = nullptr;
};

/*
 * srpt_core_dp_device_removing() with channel @f open: while the removal
 * waits (each srpt_msleep), the kernel delivers the channel's flushed
 * drain marker and runs the release work. Returns how often it waited.
 */
inline size_t RemoveDeviceWhileChannelCloses(srpt_core_device *device,
					     srpt_core_ch *ch, host::FakeCh &f)
{
	size_t sleeps = 0;
	host::Script().on_msleep = [&] {
		sleeps++;
		if (!f.destroyed && f.zlw_posted)
			srpt_core_dp_zlw_done(ch, false);
		host::RunPendingWork();
	};
	srpt_core_dp_device_removing(device);
	host::Script().on_msleep = nullptr;
	return sleeps;
}

} // namespace srpt::dp_test

#endif
