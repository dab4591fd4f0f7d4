// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compiled to assembly only: Kbuild turns the DEFINE()s into
 * generated/srpt/kernel_sizes.h (the asm-offsets mechanism), which gives
 * the C++ core the size and alignment of each kernel object it embeds as
 * opaque storage, and the one kernel configuration fact it compiles by:
 * whether lockdep_assert_held() checks anything.
 */
#include <linux/kbuild.h>
#include "platform_kernel.h"

#define SRPT_MEASURE(name, type)                                   \
	do {                                                       \
		DEFINE(SRPT_##name##_SIZE, sizeof(type));          \
		DEFINE(SRPT_##name##_ALIGN, __alignof__(type));    \
	} while (0)

int main(void);
int main(void)
{
	SRPT_MEASURE(SPINLOCK, spinlock_t);
	SRPT_MEASURE(MUTEX, struct mutex);
	SRPT_MEASURE(WORK, struct srpt_kwork);
	SRPT_MEASURE(DELAYED_WORK, struct srpt_kdwork);
	/*
	 * Without lockdep, srpt_spin_assert_held() is an empty function
	 * that the core's ...Locked() helpers would call nine times per
	 * command; the core leaves the call out instead.
	 */
	DEFINE(SRPT_LOCK_ASSERTS, IS_ENABLED(CONFIG_LOCKDEP));
	return 0;
}
