/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * I/O contexts and the fixed rings that hold them.
 *
 * A receive context owns one buffer of srp_max_req_size bytes into which
 * the HCA writes an IU; a send context owns one buffer for the response and
 * carries the state of one SCSI command. Both live in arrays sized once at
 * login (receive ring: per channel, or per device with an SRQ; send ring:
 * per channel) and are never allocated on the I/O path.
 *
 * The core allocates the memory; the glue maps each buffer for DMA and keeps
 * its own per-context data (ib_cqe, se_cmd, rdma_rw contexts) in arrays of
 * its own indexed by index(), or behind glue_data().
 */
#ifndef SRPT_DATAPATH_IOCTX_RING_HPP
#define SRPT_DATAPATH_IOCTX_RING_HPP

#include <new>
#include <srpt/alloc.hpp>
#include <srpt/datapath/cmd_state.hpp>
#include <srpt/intrusive_list.hpp>
#include <srpt/log.hpp>
#include <srpt/status.hpp>
#include <stddef.h>
#include <stdint.h>

namespace srpt
{

template <typename Env>
class ChannelCore;
class SendCtxPool;
template <typename Ctx>
class IoctxRing;
class RecvCtx;

/*
 * Posts every idle receive context of @ring with @post(RecvCtx &) -> Status
 * (an SRQ's ring at creation; a channel's own ring is posted by
 * ChannelCore::PostInitialReceives). Returns the first failure.
 */
template <typename PostFn>
Status PostIdleReceives(IoctxRing<RecvCtx> &ring, PostFn &&post);

/* Where a receive context is; each one is in exactly one of these. */
enum class RecvState : uint8_t {
	kIdle,	    /* not posted (never posted, flushed, or post failed) */
	kPosted,    /* owned by the HCA (QP receive queue or SRQ) */
	kWaiting,   /* received IU on a channel's wait list */
	kHandling,  /* received IU being handed to the target core */
	kHeldByCmd, /* buffer still used by a command (immediate data) */
};

const char *RecvStateName(RecvState s);

/* What the core learned about an IU from its first bytes. */
enum class IuKind : uint8_t {
	kCmd,	   /* SRP_CMD: needs a send context */
	kTaskMgmt, /* SRP_TSK_MGMT: needs a send context */
	kLogout,   /* SRP_I_LOGOUT */
	kCredRsp,  /* SRP_CRED_RSP: answers a target request, costs no credit */
	kAerRsp,   /* SRP_AER_RSP: likewise */
	kOther,	   /* anything else, including short IUs */
};

constexpr bool NeedsSendCtx(IuKind k)
{
	return k == IuKind::kCmd || k == IuKind::kTaskMgmt;
}

/*
 * Only SRP_CMD and SRP_TSK_MGMT cost the initiator a credit (ib_srp's
 * __srp_get_tx_iu takes one for SRP_IU_CMD and SRP_IU_TSK_MGMT only;
 * responses to target requests never do), and only they are answered with
 * a response that returns it. 6.1 decrements req_lim for every IU. Giving
 * a credit back for an IU the initiator did not pay for would let it
 * overrun the receive queue (or drain a shared SRQ).
 */
constexpr bool ConsumesCredit(IuKind k)
{
	return k == IuKind::kCmd || k == IuKind::kTaskMgmt;
}

struct IuClass {
	IuKind kind = IuKind::kOther;
	/*
	 * The command reads its data-out from this receive buffer (immediate
	 * data), so the buffer stays with the command until it is released.
	 */
	bool keeps_buffer = false;
};

/*
 * What every I/O context has: its place in the ring, its buffer, and the
 * glue's per-context data. The ring owns the buffer's allocation (mem()),
 * which may start before buf() when the ring aligns its buffers.
 */
class IoctxSlot
{
public:
	IoctxSlot(const IoctxSlot &) = delete;
	IoctxSlot &operator=(const IoctxSlot &) = delete;

	uint32_t index() const { return index_; }
	uint8_t *buf() { return buf_; }
	const uint8_t *buf() const { return buf_; }
	uint32_t buf_size() const { return buf_size_; }

	void *glue_data() const { return glue_; }
	void set_glue_data(void *p) { glue_ = p; }

protected:
	IoctxSlot() = default;
	~IoctxSlot() = default;

private:
	template <typename Ctx>
	friend class IoctxRing;

	uint8_t *buf_ = nullptr;
	void *mem_ = nullptr;
	void *glue_ = nullptr;
	uint32_t index_ = 0;
	uint32_t buf_size_ = 0;
};

class RecvCtx : public IoctxSlot
{
public:
	RecvCtx() = default;

	/* Bytes the HCA wrote for the last IU (wc->byte_len). */
	uint32_t byte_len() const { return byte_len_; }
	RecvState state() const { return state_; }
	IuClass iu_class() const { return class_; }

	ListNode wait_node;

private:
	template <typename Env>
	friend class ChannelCore;
	template <typename PostFn>
	friend Status PostIdleReceives(IoctxRing<RecvCtx> &ring, PostFn &&post);

	uint32_t byte_len_ = 0;
	RecvState state_ = RecvState::kIdle;
	/* Stayed on the wait list on arrival (srpt_iu_wait was traced). */
	bool waited_ = false;
	IuClass class_;
};

class SendCtx : public IoctxSlot
{
public:
	SendCtx() = default;

	CmdState state() const { return state_.state(); }
	/* Receive context whose buffer the command still reads, or nullptr. */
	RecvCtx *recv() const { return recv_; }
	/* Send-queue slots taken by WRs posted for this context, not completed.
	 */
	uint32_t posted_wrs() const { return posted_wrs_; }
	bool holds_credit() const { return holds_credit_; }

	void SetStateObserver(CmdStateMachine::Observer obs, void *cookie)
	{
		state_.SetObserver(obs, cookie);
	}

	/*
	 * On the channel's deferred-response list, or on the list of
	 * responses an entry point posts after dropping the lock.
	 */
	ListNode deferred_node;

private:
	template <typename Env>
	friend class ChannelCore;
	friend class SendCtxPool;

	CmdStateMachine state_;
	RecvCtx *recv_ = nullptr;
	SendCtx *next_free_ = nullptr;
	uint32_t posted_wrs_ = 0;
	/* RDMA WRITEs chained before the response (deferred or being posted). */
	uint32_t rsp_n_rdma_ = 0;
	/*
	 * The response's REQ_LIM_DELTA, taken under the lock for a post made
	 * after it is dropped, and whether it includes the command's own
	 * credit (to undo it if the post fails).
	 */
	int32_t rsp_delta_ = 0;
	bool rsp_own_credit_ = false;
	bool holds_credit_ = false;
	/* The target core dropped its last reference while WRs were posted. */
	bool release_pending_ = false;
};

/*
 * Where the data of an IU must start in memory. Immediate data is handed to
 * the target core as a scatterlist entry over the receive buffer itself, and
 * a block backend (LIO iblock) turns that entry into a bio segment as it is:
 * block drivers take segments whose offset and length are multiples of the
 * logical block size (null_blk, for one, advances by whole sectors per
 * segment and silently misplaces the rest). ib_srp puts immediate data at
 * offset 68 of the IU, so the IU itself must start off-alignment. A page,
 * not just a sector: an immediate write of up to 4 KiB is then one page and
 * every segment boundary of a larger one is a page boundary, which any
 * block device accepts; with an 8 KiB IU the allocation stays in the same
 * kmalloc size class either way.
 */
inline constexpr uint32_t kImmDataAlignment = 4096;

struct BufAlignment {
	uint32_t offset = 0;   /* this byte of the buffer ... */
	uint32_t boundary = 0; /* ... is aligned to this power of 2; 0: none */
};

/*
 * A fixed array of @Ctx, each with a zeroed buffer of its own (one
 * allocation per buffer, like the in-tree driver's kmem_cache objects: a
 * single block of srq_size * 8 KiB would not be kmalloc-able).
 */
template <typename Ctx>
class IoctxRing
{
public:
	IoctxRing() = default;
	~IoctxRing() { SRPT_WARN_ON(ctxs_ != nullptr); }
	IoctxRing(const IoctxRing &) = delete;
	IoctxRing &operator=(const IoctxRing &) = delete;

	/*
	 * Process context (GFP_KERNEL) at login. All or nothing. With
	 * @align, byte @align.offset of every buffer sits on an
	 * @align.boundary boundary (the allocation is padded for it).
	 */
	Status Init(uint32_t count, uint32_t buf_size, Gfp gfp,
		    BufAlignment align = {})
	{
		if (SRPT_WARN_ON(ctxs_ != nullptr) || count == 0 ||
		    buf_size == 0 ||
		    (align.boundary & (align.boundary - 1)) != 0 ||
		    (align.boundary && align.offset >= buf_size))
			return Status::kInvalid;
		const uint32_t pad_max =
		    align.boundary ? align.boundary - 1 : 0;
		if (buf_size > UINT32_MAX - pad_max)
			return Status::kInvalid;
		size_t bytes;
		if (__builtin_mul_overflow(static_cast<size_t>(count),
					   sizeof(Ctx), &bytes))
			return Status::kNoMemory;
		/*
		 * The contexts (not their buffers) may be vmalloc'ed: an SRQ
		 * of 4095 is ~200 KiB, too much to ask of kmalloc.
		 */
		void *mem = gfp == Gfp::kKernel ? AllocateLarge(bytes)
						: Allocate(bytes, gfp);
		if (!mem)
			return Status::kNoMemory;
		ctxs_ = static_cast<Ctx *>(mem);
		for (uint32_t i = 0; i < count; i++)
			new (&ctxs_[i]) Ctx();
		count_ = count;
		for (uint32_t i = 0; i < count; i++) {
			auto *mem = static_cast<uint8_t *>(
			    Allocate(buf_size + pad_max, gfp));
			if (!mem) {
				Destroy();
				return Status::kNoMemory;
			}
			IoctxSlot &slot = ctxs_[i];
			slot.index_ = i;
			slot.mem_ = mem;
			slot.buf_ = mem + PadFor(mem, align);
			slot.buf_size_ = buf_size;
		}
		return Status::kOk;
	}

	/* Bytes to skip at @mem so that @align holds. */
	static uint32_t PadFor(const uint8_t *mem, BufAlignment align)
	{
		if (!align.boundary)
			return 0;
		const uintptr_t at =
		    reinterpret_cast<uintptr_t>(mem) + align.offset;
		return static_cast<uint32_t>(
		    (align.boundary - (at & (align.boundary - 1))) &
		    (align.boundary - 1));
	}

	/* Frees buffers and contexts; a no-op on an empty ring. */
	void Destroy()
	{
		if (!ctxs_)
			return;
		for (uint32_t i = 0; i < count_; i++) {
			Free(static_cast<IoctxSlot &>(ctxs_[i]).mem_);
			ctxs_[i].~Ctx();
		}
		FreeLarge(ctxs_); /* kvfree: also right for kmalloc'ed */
		ctxs_ = nullptr;
		count_ = 0;
	}

	uint32_t size() const { return count_; }
	bool empty() const { return count_ == 0; }
	Ctx &operator[](uint32_t i) { return ctxs_[i]; }
	const Ctx &operator[](uint32_t i) const { return ctxs_[i]; }

	/* Whether @p is one of ours (the glue's wr_cqe must point into us). */
	bool Contains(const Ctx *p) const
	{
		return ctxs_ && p >= ctxs_ && p < ctxs_ + count_;
	}

private:
	Ctx *ctxs_ = nullptr;
	uint32_t count_ = 0;
};

using RecvRing = IoctxRing<RecvCtx>;
using SendRing = IoctxRing<SendCtx>;

template <typename PostFn>
Status PostIdleReceives(RecvRing &ring, PostFn &&post)
{
	for (uint32_t i = 0; i < ring.size(); i++) {
		RecvCtx &r = ring[i];
		if (r.state_ != RecvState::kIdle)
			continue;
		/* Before the post (see ChannelCore::RepostLocked). */
		r.state_ = RecvState::kPosted;
		Status st = post(r);
		if (!IsOk(st)) {
			r.state_ = RecvState::kIdle;
			return st;
		}
	}
	return Status::kOk;
}

} // namespace srpt

#endif
