/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The shared receive queue (SRQ) of an RDMA device: configfs
 * <port>/<tpg>/attrib/use_srq.
 *
 * With use_srq 1 the channels of a port have no receive ring of their own:
 * their QPs take IUs from the device's SRQ, whose receive contexts
 * (min(srpt_srq_size, max_srq_wr) buffers of srp_max_req_size bytes) are
 * allocated, DMA-mapped and posted once, when the SRQ is created. A receive
 * completion arrives on the CQ of the channel whose QP consumed the WR; that
 * channel's core handles the IU and reposts the context to the SRQ
 * (ChannelCore with ChannelConfig::srq_ring). As in-tree, such channels get
 * no immediate data (login.hpp: LoginConfig::use_srq).
 *
 * Where this differs from in-tree 6.1, on purpose:
 *  - in-tree, use_srq is a device-wide switch (sdev->use_srq) set by
 *    whichever port's attribute was written last, and writing 0 destroys
 *    the SRQ at once, while channels that are still draining (or live on
 *    another port of the device) use it. Here the device keeps an SRQ while
 *    at least one of its ports has use_srq 1, a channel uses it when its
 *    own port has use_srq 1, and a retired SRQ is destroyed when the last
 *    channel created on it is released. On a one-port device (rxe, most
 *    HCAs as configured by targetcli) both behave the same.
 *  - in-tree ignores a failed post of the SRQ's receives; here a failure
 *    while creating the SRQ (verbs, memory, DMA mapping, posting) undoes
 *    everything and the port's channels keep their own receive rings, as
 *    when ib_create_srq() fails in-tree.
 *
 * Locking: DeviceSrq::mutex_ (process context) protects the SRQ pointer,
 * the count of channels using it and the wanted/closed flags. It is taken
 * before a port's mutex (Reconcile reads every port's use_srq), never
 * while one is held.
 */
#ifndef SRPT_SRQ_HPP
#define SRPT_SRQ_HPP

#include <srpt/alloc.hpp>
#include <srpt/datapath/ioctx_ring.hpp>
#include <srpt/lock.hpp>
#include <srpt/rdma_glue.h>
#include <srpt/status.hpp>

namespace srpt
{

class Device;
class DeviceSrq;

/* One SRQ: the glue's ib_srq and the ring of receive contexts posted on it. */
class SharedRecvQueue final : public KernelAllocated
{
public:
	SharedRecvQueue() = default;
	~SharedRecvQueue();
	SharedRecvQueue(const SharedRecvQueue &) = delete;
	SharedRecvQueue &operator=(const SharedRecvQueue &) = delete;

	RecvRing &ring() { return ring_; }
	srpt_dp_srq *dp() const { return dp_; }
	uint32_t size() const { return ring_.size(); }

private:
	friend class DeviceSrq;

	RecvRing ring_;
	srpt_dp_srq *dp_ = nullptr;
};

/*
 * A channel's use of the device's SRQ (DeviceSrq::Get), given back when
 * the SrqRef goes: a refused login returns it on every exit, and the
 * channel that takes it over by a move returns it when it is freed.
 * Move-only. Empty: the channel has its own receive ring.
 */
class SrqRef
{
public:
	SrqRef() = default;
	SrqRef(SrqRef &&other) : owner_(other.owner_), srq_(other.srq_)
	{
		other.owner_ = nullptr;
		other.srq_ = nullptr;
	}
	SrqRef &operator=(SrqRef &&other)
	{
		if (this != &other) {
			reset();
			owner_ = other.owner_;
			srq_ = other.srq_;
			other.owner_ = nullptr;
			other.srq_ = nullptr;
		}
		return *this;
	}
	SrqRef(const SrqRef &) = delete;
	SrqRef &operator=(const SrqRef &) = delete;
	~SrqRef() { reset(); }

	SharedRecvQueue *get() const { return srq_; }
	SharedRecvQueue *operator->() const { return srq_; }
	explicit operator bool() const { return srq_ != nullptr; }
	bool operator==(decltype(nullptr)) const { return srq_ == nullptr; }

	/* Gives the reference back now (DeviceSrq::Put); then empty. */
	void reset();

private:
	friend class DeviceSrq;
	SrqRef(DeviceSrq &owner, SharedRecvQueue *srq)
	    : owner_(&owner), srq_(srq)
	{
	}

	DeviceSrq *owner_ = nullptr;
	SharedRecvQueue *srq_ = nullptr;
};

/* The SRQ state of one device (embedded in Device). */
class DeviceSrq
{
public:
	DeviceSrq() : mutex_(LockClass::kDevice) {}
	~DeviceSrq();
	DeviceSrq(const DeviceSrq &) = delete;
	DeviceSrq &operator=(const DeviceSrq &) = delete;

	/*
	 * attrib/use_srq was written on a port of @dev (its initiators were
	 * told to log out first): creates the SRQ when a port of @dev wants
	 * one and there is none, retires it when no port wants it any more
	 * (destroyed now if no channel uses it, else by the last SrqRef).
	 * A failed creation is logged; channels then keep their own rings.
	 * Contract: process context; takes the port mutexes, so none may be
	 * held by the caller.
	 */
	void Reconcile(Device &dev);

	/*
	 * For a login on a port whose use_srq is @port_use_srq: the SRQ, with
	 * a reference for the new channel, or an empty SrqRef (own receive
	 * ring). Contract: process context.
	 */
	SrqRef Get(bool port_use_srq);

	/*
	 * Device removal, after every channel of the device was released (the
	 * PD goes next): the SRQ is destroyed and never created again.
	 * Contract: process context.
	 */
	void Shutdown(const char *device_name);

	/*
	 * Receive contexts of the SRQ that new channels would use (0: none).
	 * Contract: any context (the DM MAD handler reports it as the IOC's
	 * send queue depth, as in-tree).
	 */
	uint32_t depth() const
	{
		return __atomic_load_n(&depth_, __ATOMIC_RELAXED);
	}

	/* Observation, for the tests. */
	bool exists();
	uint32_t users();

private:
	/* Only an SrqRef gives a reference back, so each is given back once. */
	friend class SrqRef;
	/*
	 * A channel created on @srq is gone: its QP is destroyed and the
	 * receive contexts it held are back on the SRQ. The last channel of a
	 * retired SRQ destroys it. Contract: process context.
	 */
	void Put(SharedRecvQueue *srq);
	/* All or nothing; nullptr when the SRQ cannot be made. */
	static SharedRecvQueue *Create(Device &dev);
	static void Destroy(SharedRecvQueue *srq);
	void DestroyLocked(const char *device_name) SRPT_REQUIRES(mutex_);
	void SetDepthLocked() SRPT_REQUIRES(mutex_);

	Mutex mutex_;
	/* Everything below is protected by mutex_ (depth_ is also atomic). */
	SharedRecvQueue *srq_ SRPT_GUARDED_BY(mutex_) = nullptr;
	/* channels created on srq_, not yet released */
	uint32_t users_ SRPT_GUARDED_BY(mutex_) = 0;
	/* some port of the device has use_srq 1 */
	bool wanted_ SRPT_GUARDED_BY(mutex_) = false;
	/* the device is going away */
	bool closed_ SRPT_GUARDED_BY(mutex_) = false;
	/* Written under mutex_, read by depth() without it (atomically). */
	uint32_t depth_ = 0;
	/* for log lines, set by Reconcile */
	const char *device_name_ SRPT_GUARDED_BY(mutex_) = "";
};

} // namespace srpt

#endif
