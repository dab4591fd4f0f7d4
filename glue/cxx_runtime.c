// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parts of the C++ ABI the compiler may reference and that are best
 * written in C (they report through WARN). operator new/delete are in
 * src/kernel_runtime/operator_new.cpp.
 */
#include "pr_fmt.h"

#include <linux/bug.h>

void __cxa_pure_virtual(void);
void __cxa_deleted_virtual(void);

/* A call through an abstract or deleted vtable slot: never legitimate. */
void __cxa_pure_virtual(void)
{
	WARN(1, "ib_srpt: pure virtual function called\n");
}

void __cxa_deleted_virtual(void)
{
	WARN(1, "ib_srpt: deleted virtual function called\n");
}
