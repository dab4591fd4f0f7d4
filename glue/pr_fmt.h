/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The prefix of every pr_*() line the glue prints: the module's name
 * (ib_srpt, Kbuild's obj-m), a colon and a space. Included first by every
 * glue/ and configfs/ .c file, before any kernel header: <linux/printk.h>
 * defines pr_fmt() only if it is not defined yet. printk(), WARN() and
 * dev_*() do not use pr_fmt(); their callers write the prefix themselves.
 */
#ifndef SRPT_GLUE_PR_FMT_H
#define SRPT_GLUE_PR_FMT_H

#ifdef __KERNEL_PRINTK__
#error "glue/pr_fmt.h must be included before any kernel header"
#endif

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#endif /* SRPT_GLUE_PR_FMT_H */
