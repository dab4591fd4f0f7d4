#!/usr/bin/env bash
# Host-side self-test of the guest's dmesg gate (guest/lib.sh dmesg_bad):
# every kind of checker report of the check-debug kernel must be caught,
# and only the checkers' own boot banners, matched exactly, may pass.
# Report lines are the formats of the 6.1 sources (KASAN, KFENCE, lockdep,
# might_sleep, DEBUG_OBJECTS, DEBUG_LIST, kmemleak). Prints one line per
# case and 'N passed, N failed'.
set -uo pipefail
VM_DIR=$(cd "$(dirname "$0")" && pwd)
SCENARIO=selftest OUT=/tmp
# shellcheck source=guest/lib.sh
. "$VM_DIR/guest/lib.sh"
passed=0 failed=0

expect() { # expect bad|clean LINE
	local got=clean
	[ -n "$(printf '%s\n' "$2" | dmesg_bad)" ] && got=bad
	if [ "$got" = "$1" ]; then
		passed=$((passed + 1)); echo "PASS $1: $2"
	else
		failed=$((failed + 1)); echo "FAIL expected $1, got $got: $2"
	fi
}

expect bad '[   42.123456] BUG: KASAN: slab-use-after-free in srpt_send_done+0x1f/0x90 [ib_srpt]'
expect bad '[   42.123456] BUG: KFENCE: out-of-bounds read in srpt_parse_iu+0x33/0x120 [ib_srpt]'
expect bad '[   42.123456] WARNING: possible circular locking dependency detected'
expect bad '[   42.123456] WARNING: inconsistent lock state'
expect bad '[   42.123456] WARNING: possible recursive locking detected'
expect bad '[   42.123456] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580'
expect bad '[   42.123456] ODEBUG: free active (active state 0) object type: work_struct hint: srpt_release_work+0x0/0x40 [ib_srpt]'
expect bad '[   42.123456] list_add corruption. prev->next should be next (ffff888012345678), but was 0000000000000000.'
expect bad '[   42.123456] list_del corruption, ffff888012345678->next is LIST_POISON1 (dead000000000100)'
expect bad '[   42.123456] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
expect bad '[   42.123456] WARNING: suspicious RCU usage'
expect bad '[   42.123456] INFO: lockdep is turned off.'
expect bad '[   42.123456] kernel BUG at drivers/infiniband/core/verbs.c:2100!'
# banners: exact lines only
expect clean '[    0.000000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15672)'
expect clean '[    0.000000] rcu: 	RCU lockdep checking is enabled.'
expect clean '[    0.000000] kasan: KernelAddressSanitizer initialized'
expect clean '[    0.000000] kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)-0x(____ptrval____)'
expect clean '[    0.000000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar'
expect clean '[    0.000000] ... MAX_LOCKDEP_SUBCLASSES:  8'
expect bad '[    0.000000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15672) but'
expect bad '[   42.123456] rcu: RCU lockdep checking is enabled. WARNING: fake'

echo "dmesg gate: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
