/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host stand-in for the header that Kbuild generates from kernel headers
 * (glue/kernel_sizes.c). The sizes are large enough for the host
 * implementation of each object (tests/host/platform_host.cpp checks that
 * with static assertions).
 */
#ifndef SRPT_KERNEL_SIZES_H
#define SRPT_KERNEL_SIZES_H

#define SRPT_SPINLOCK_SIZE 64
#define SRPT_SPINLOCK_ALIGN 8
#define SRPT_MUTEX_SIZE 64
#define SRPT_MUTEX_ALIGN 8
#define SRPT_WORK_SIZE 64
#define SRPT_WORK_ALIGN 8
#define SRPT_DELAYED_WORK_SIZE 64
#define SRPT_DELAYED_WORK_ALIGN 8
/* The host's lock owner checks always run (platform_host.cpp). */
#define SRPT_LOCK_ASSERTS 1
/* The host's locks are its own (platform_host.cpp), taken through the
 * srpt_spin_* functions. */
#define SRPT_SPIN_DIRECT 0

#endif
