/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Allocation for the core: always through the platform (kmalloc/kfree in the
 * kernel, a counting allocator with failure injection on the host), always
 * with an explicit context, always checked.
 *
 * A heap-allocated core object derives from KernelAllocated and is created
 * with `new (Gfp::kKernel) T(...)`. The class-level operator new is
 * noexcept, so the compiler checks its result for null before running the
 * constructor: a failed allocation yields nullptr, never a write through it.
 */
#ifndef SRPT_ALLOC_HPP
#define SRPT_ALLOC_HPP

#include <new>
#include <srpt/platform.h>
#include <stddef.h>
#include <type_traits>

namespace srpt
{

enum class Gfp : int {
	kKernel = SRPT_GFP_KERNEL, /* process context, may sleep */
	kAtomic = SRPT_GFP_ATOMIC, /* any context */
};

constexpr srpt_gfp ToPlatform(Gfp gfp)
{
	return static_cast<srpt_gfp>(gfp);
}

inline void *Allocate(size_t size, Gfp gfp)
{
	return srpt_kzalloc(size, ToPlatform(gfp));
}

/*
 * Null is checked here, inline: most per-command frees are of nothing (an
 * on-stack descriptor array), and the call into the glue and kfree() for
 * that showed up in the per-I/O call census.
 */
inline void Free(const void *ptr)
{
	if (ptr)
		srpt_kfree(ptr);
}

/*
 * Process context only: a large zeroed block the CPU alone uses (the
 * kernel may vmalloc it, so it is never DMA-mapped). FreeLarge() releases.
 */
inline void *AllocateLarge(size_t size)
{
	return srpt_kvzalloc(size);
}

inline void FreeLarge(const void *ptr)
{
	srpt_kvfree(ptr);
}

struct KernelAllocated {
	static void *operator new(size_t size, Gfp gfp) noexcept
	{
		return Allocate(size, gfp);
	}
	static void *operator new[](size_t size, Gfp gfp) noexcept
	{
		return Allocate(size, gfp);
	}
	static void operator delete(void *ptr) noexcept { Free(ptr); }
	static void operator delete[](void *ptr) noexcept { Free(ptr); }
	/* Called only if a constructor of a placement-new'd object throws. */
	static void operator delete(void *ptr, Gfp) noexcept { Free(ptr); }
	static void operator delete[](void *ptr, Gfp) noexcept { Free(ptr); }

	/* Plain new would hide the allocation context: not allowed. */
	static void *operator new(size_t) = delete;
	static void *operator new[](size_t) = delete;
};

/*
 * A zeroed array of @count trivially constructible T, or nullptr (also when
 * count * sizeof(T) overflows). Release with FreeArray().
 */
template <typename T>
T *AllocateArray(size_t count, Gfp gfp)
{
	static_assert(std::is_trivially_default_constructible_v<T>,
		      "AllocateArray hands out zeroed memory, not objects");
	size_t bytes;
	if (__builtin_mul_overflow(count, sizeof(T), &bytes))
		return nullptr;
	return static_cast<T *>(Allocate(bytes ? bytes : 1, gfp));
}

template <typename T>
void FreeArray(T *array)
{
	Free(array);
}

} // namespace srpt

#endif
