// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compiled to assembly only: Kbuild turns the DEFINE()s into
 * generated/srpt/kernel_sizes.h (the asm-offsets mechanism), which gives
 * the C++ core the size and alignment of each kernel object it embeds as
 * opaque storage.
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
	return 0;
}
