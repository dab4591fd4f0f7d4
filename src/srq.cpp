// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device's shared receive queue: when it exists, who uses it, and the
 * order in which it is made and unmade. See include/srpt/srq.hpp.
 */
#include <srpt/device_registry.hpp>
#include <srpt/log.hpp>
#include <srpt/module_state.hpp>
#include <srpt/srq.hpp>

namespace srpt
{

SharedRecvQueue::~SharedRecvQueue()
{
	SRPT_WARN_ON(dp_ != nullptr);
}

DeviceSrq::~DeviceSrq()
{
	/* Shutdown() (device removal) destroys it before the PD goes. */
	SRPT_WARN_ON(srq_ != nullptr);
}

/*
 * Setup order: the verbs object first (a device without SRQ support fails
 * before megabytes of buffers are allocated), then the ring, the DMA
 * mappings, and the receives. Destroy() undoes any prefix of it.
 */
SharedRecvQueue *DeviceSrq::Create(Device &dev)
{
	const ModuleState &ms = GetModuleState();
	const uint32_t wanted = static_cast<uint32_t>(ms.params.srpt_srq_size);
	const uint32_t max_wr = dev.attributes().max_srq_wr;
	const uint32_t size = wanted < max_wr ? wanted : max_wr;
	const uint32_t buf_size =
	    static_cast<uint32_t>(ms.params.srp_max_req_size);
	if (size == 0 || dev.removed()) {
		SRPT_ERR(nullptr,
			 "device %s: no shared receive queue (max_srq_wr %u): "
			 "channels keep their own receive rings",
			 dev.name(), max_wr);
		return nullptr;
	}

	SharedRecvQueue *q = new (Gfp::kKernel) SharedRecvQueue();
	Status st = q ? Status::kOk : Status::kNoMemory;
	if (IsOk(st))
		st = StatusFromErrno(
		    srpt_dp_srq_create(dev.ib_device(), size, &q->dp_));
	if (IsOk(st))
		st = q->ring_.Init(size, buf_size, Gfp::kKernel);
	for (uint32_t i = 0; IsOk(st) && i < q->ring_.size(); i++) {
		RecvCtx &r = q->ring_[i];
		st = StatusFromErrno(
		    srpt_dp_srq_map_recv(q->dp_, i, r.buf(), r.buf_size()));
	}
	if (IsOk(st))
		st = PostIdleReceives(q->ring_, [q](RecvCtx &r) {
			return StatusFromErrno(
			    srpt_dp_srq_post_recv(q->dp_, r.index()));
		});
	if (!IsOk(st)) {
		SRPT_ERR(nullptr,
			 "device %s: creating a shared receive queue of %u "
			 "entries failed (%d): channels keep their own receive "
			 "rings",
			 dev.name(), size, ToNegativeErrno(st));
		if (q)
			Destroy(q);
		return nullptr;
	}
	SRPT_INFO(nullptr,
		  "device %s: shared receive queue of %u entries "
		  "(srpt_srq_size %u, max_srq_wr %u)",
		  dev.name(), size, wanted, max_wr);
	return q;
}

/*
 * No QP uses the SRQ any more: destroying it returns nothing (WRs still
 * posted are dropped without completion), then the buffers are unmapped
 * (glue) and freed (ring).
 */
void DeviceSrq::Destroy(SharedRecvQueue *q)
{
	if (q->dp_)
		srpt_dp_srq_destroy(q->dp_);
	q->dp_ = nullptr;
	q->ring_.Destroy();
	delete q;
}

void DeviceSrq::DestroyLocked(const char *device_name)
{
	mutex_.AssertHeld();
	SRPT_WARN_ON(users_ != 0);
	Destroy(srq_);
	srq_ = nullptr;
	SetDepthLocked();
	SRPT_INFO(nullptr, "device %s: shared receive queue destroyed",
		  device_name);
}

void DeviceSrq::SetDepthLocked()
{
	mutex_.AssertHeld();
	const uint32_t d = srq_ && wanted_ && !closed_ ? srq_->size() : 0;
	__atomic_store_n(&depth_, d, __ATOMIC_RELAXED);
}

void DeviceSrq::Reconcile(Device &dev)
{
	MutexGuard guard(mutex_);
	if (closed_)
		return;
	device_name_ = dev.name();
	bool want = false;
	for (uint32_t n = 1; n <= dev.port_count(); n++) {
		Port &port = *dev.port(n);
		MutexGuard port_guard(port.mutex);
		want = want || port.attrib.use_srq;
	}
	wanted_ = want;
	if (want && !srq_) {
		/* As in-tree srpt_use_srq(): only if there is none yet. */
		srq_ = Create(dev);
	} else if (!want && srq_) {
		if (users_ == 0)
			DestroyLocked(dev.name());
		else
			SRPT_INFO(nullptr,
				  "device %s: shared receive queue retired; "
				  "it goes with the last of its %u channels",
				  dev.name(), users_);
	}
	SetDepthLocked();
}

void SrqRef::reset()
{
	DeviceSrq *owner = owner_;
	SharedRecvQueue *srq = srq_;
	owner_ = nullptr;
	srq_ = nullptr;
	if (srq)
		owner->Put(srq);
}

SrqRef DeviceSrq::Get(bool port_use_srq)
{
	MutexGuard guard(mutex_);
	if (!port_use_srq || !wanted_ || closed_ || !srq_)
		return SrqRef();
	users_++;
	return SrqRef(*this, srq_);
}

void DeviceSrq::Put(SharedRecvQueue *srq)
{
	MutexGuard guard(mutex_);
	if (SRPT_WARN_ON(srq != srq_ || users_ == 0))
		return;
	users_--;
	if (users_ == 0 && (!wanted_ || closed_))
		DestroyLocked(device_name_);
}

void DeviceSrq::Shutdown(const char *device_name)
{
	MutexGuard guard(mutex_);
	closed_ = true;
	wanted_ = false;
	SetDepthLocked();
	if (!srq_)
		return;
	if (users_ == 0) {
		DestroyLocked(device_name);
		return;
	}
	/* A login that raced with the removal: its release destroys it. */
	SRPT_ERR(nullptr,
		 "device %s removed while %u channels use its shared receive "
		 "queue",
		 device_name, users_);
}

bool DeviceSrq::exists()
{
	MutexGuard guard(mutex_);
	return srq_ != nullptr;
}

uint32_t DeviceSrq::users()
{
	MutexGuard guard(mutex_);
	return users_;
}

} // namespace srpt
