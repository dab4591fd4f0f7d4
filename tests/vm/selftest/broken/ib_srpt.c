// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken "ib_srpt" for the harness self-test
 * (tests/vm/selftest/selftest-broken.sh). BROKEN_MODE selects how it is broken:
 *   1 (fail-init): module init fails with -ENODEV, so modprobe fails;
 *   2 (no-fabric): loads, but never registers the srpt target fabric.
 * Either way the e2e scenario must FAIL with a clear message.
 */
#include <linux/module.h>
#include <linux/init.h>

#ifndef BROKEN_MODE
#define BROKEN_MODE 1
#endif

static int __init srpt_broken_init(void)
{
	if (BROKEN_MODE == 1) {
		pr_err("ib_srpt (broken self-test module): refusing to load\n");
		return -ENODEV;
	}
	pr_info("ib_srpt (broken self-test module): loaded, no fabric registered\n");
	return 0;
}

static void __exit srpt_broken_exit(void)
{
}

module_init(srpt_broken_init);
module_exit(srpt_broken_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("deliberately broken ib_srpt for the guest harness self-test");
