// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compiled to assembly only: Kbuild turns the DEFINE()s into
 * generated/srpt/kernel_sizes.h (the asm-offsets mechanism), which gives
 * the C++ core the size and alignment of each kernel object it embeds as
 * opaque storage, and the two kernel configuration facts it compiles by:
 * whether lockdep_assert_held() checks anything, and whether it may take a
 * spinlock_t through the kernel's exported lock functions itself.
 */
#include "pr_fmt.h"

#include <linux/build_bug.h>
#include <linux/kbuild.h>
#include <linux/stddef.h>
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
	 * that the core's ...Locked() helpers would call several times per
	 * command (nine for a READ, counted on the host); the core leaves
	 * the call out instead.
	 */
	DEFINE(SRPT_LOCK_ASSERTS, IS_ENABLED(CONFIG_LOCKDEP));
	/*
	 * On an SMP kernel without PREEMPT_RT whose lock functions are not
	 * inlined (Debian's), spin_lock_irqsave() on a spinlock_t is a call
	 * of the exported _raw_spin_lock_irqsave() on its raw lock, and
	 * spin_unlock_irqrestore() one of _raw_spin_unlock_irqrestore(). The
	 * raw lock is at offset 0, so the core makes those calls on its
	 * storage itself, rather than through srpt_spin_lock_irqsave(), a
	 * function that only forwards: ten calls less per READ.
	 */
#if defined(CONFIG_SMP) && !defined(CONFIG_PREEMPT_RT) &&                  \
	!defined(CONFIG_INLINE_SPIN_LOCK_IRQSAVE) &&                       \
	!defined(CONFIG_INLINE_SPIN_UNLOCK_IRQRESTORE)
	BUILD_BUG_ON(offsetof(spinlock_t, rlock) != 0);
	DEFINE(SRPT_SPIN_DIRECT, 1);
#else
	DEFINE(SRPT_SPIN_DIRECT, 0);
#endif
	return 0;
}
