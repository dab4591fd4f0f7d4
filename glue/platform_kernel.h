/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel-side types behind the opaque storage of include/srpt/platform.h.
 * Included by glue/kernel_sizes.c (to measure them) and
 * glue/platform_kernel.c (to use them). C only.
 */
#ifndef SRPT_GLUE_PLATFORM_KERNEL_H
#define SRPT_GLUE_PLATFORM_KERNEL_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

/* A work item that calls back into the core with the core's own context. */
struct srpt_kwork {
	struct work_struct work;
	void (*fn)(void *ctx);
	void *ctx;
};

/* The same for a delayed work item. */
struct srpt_kdwork {
	struct delayed_work dwork;
	void (*fn)(void *ctx);
	void *ctx;
};

#endif
