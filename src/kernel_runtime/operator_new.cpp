// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Global operator new/delete for the module: kmalloc/kfree through the
 * platform. Core objects use the class-level operators of KernelAllocated,
 * which name the allocation context; these exist so that any other `new`
 * is still backed and, with -fcheck-new, still checked for null.
 *
 * Kernel only: the host tests keep the C++ library's global operators.
 */
#include <srpt/platform.h>
#include <stddef.h>

/* Null results are checked by the caller: the module builds with -fcheck-new.
 */
void *operator new(size_t size)
{
	return srpt_kzalloc(size, SRPT_GFP_KERNEL);
}

void *operator new[](size_t size)
{
	return srpt_kzalloc(size, SRPT_GFP_KERNEL);
}

void operator delete(void *ptr) noexcept
{
	srpt_kfree(ptr);
}

void operator delete[](void *ptr) noexcept
{
	srpt_kfree(ptr);
}

/* A class with a virtual destructor references the sized forms. */
void operator delete(void *ptr, size_t) noexcept
{
	srpt_kfree(ptr);
}

void operator delete[](void *ptr, size_t) noexcept
{
	srpt_kfree(ptr);
}
