#!/usr/bin/env bash
# Host-side self-test of the guest's dmesg gate (guest/lib.sh dmesg_bad):
# every kind of checker report of the check-debug kernel must be caught,
# and only the checkers' own boot banners, matched exactly, may pass.
# Report lines are the formats of the 6.1 sources (KASAN, KFENCE, lockdep,
# might_sleep, DEBUG_OBJECTS, DEBUG_LIST, kmemleak); then dmesg_where, the
# one-line 'where' of a failure reason (CI prints only that line). Runs in
# `make check` (suite harness) and before check-debug. Prints one line per
# case and 'dmesg-gate: N passed, N failed'.
set -uo pipefail
VM_DIR=$(cd "$(dirname "$0")/.." && pwd)  # tests/vm
SCENARIO=selftest OUT=/tmp
# shellcheck source=../guest/lib.sh
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
# the port's own report of a command released with work requests posted
expect bad '[   42.123456] ib_srpt: sess-1: command released with 2 work requests posted: its data pages may be reused before they complete'
# banners: exact lines only
expect clean '[    0.000000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15672)'
expect clean '[    0.000000] rcu: 	RCU lockdep checking is enabled.'
expect clean '[    0.000000] kasan: KernelAddressSanitizer initialized'
expect clean '[    0.000000] kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)-0x(____ptrval____)'
expect clean '[    0.000000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar'
expect clean '[    0.000000] ... MAX_LOCKDEP_SUBCLASSES:  8'
expect bad '[    0.000000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15672) but'
expect bad '[   42.123456] rcu: RCU lockdep checking is enabled. WARNING: fake'

# dmesg_where: the one-line summary of the first report that a failure
# reason carries (task, workqueue, RIP lines, reliable frames).
where_case() { # where_case EXPECTED DMESG
	local got; got=$(printf '%s\n' "$2" | dmesg_where)
	if [ "$got" = "$1" ]; then
		passed=$((passed + 1)); echo "PASS where: $got"
	else
		failed=$((failed + 1)); echo "FAIL where: expected '$1', got '$got'"
	fi
}
where_case 'task kworker/u8:1; workqueue ib-comp-unb-wq ib_cq_poll_work; RIP exc_debug_kernel+0xca, srpt_send_done+0x12; trace exc_debug+0x3a < asm_exc_debug+0x1e < srpt_send_done+0x12 < __ib_process_cq+0x7b < ib_cq_poll_work+0x26' \
'[  226.700000] rxe0: something harmless
[  226.753842] WARNING: CPU: 0 PID: 11 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160
[  226.753900] Modules linked in: ib_srpt(OE) rdma_rxe ib_core
[  226.753901] CPU: 0 UID: 0 PID: 11 Comm: kworker/u8:1 Tainted: G           OE      6.12.117+deb12-amd64 #1  Debian 6.12.117-1~deb12u1
[  226.753902] Workqueue: ib-comp-unb-wq ib_cq_poll_work [ib_core]
[  226.753903] RIP: 0010:exc_debug_kernel+0xca/0x160
[  226.753904] Code: 00 00 48 89 ef e8
[  226.753905] Call Trace:
[  226.753906]  <#DB>
[  226.753907]  ? __warn+0x89/0x130
[  226.753908]  exc_debug+0x3a/0x60
[  226.753909]  asm_exc_debug+0x1e/0x40
[  226.753910] RIP: 0010:srpt_send_done+0x12/0x90 [ib_srpt]
[  226.753911]  </#DB>
[  226.753912]  <TASK>
[  226.753913]  srpt_send_done+0x12/0x90 [ib_srpt]
[  226.753914]  __ib_process_cq+0x7b/0x1c0 [ib_core]
[  226.753915]  ib_cq_poll_work+0x26/0x80 [ib_core]
[  226.753916]  </TASK>
[  226.753917] ---[ end trace 0000000000000000 ]---
[  226.753918]  not_a_frame_after_the_end+0x1/0x2'
where_case '' '[    1.0] all quiet'

# The host's kernel_report (harness/common.sh): the same summary from a
# crashed or hung guest's serial log, after the report's first line.
KVER=selftest . "$VM_DIR/harness/common.sh"
serial=$(mktemp)
printf '%s\r\n' 'guest: scenario output' \
	'[   84.768996] watchdog: BUG: soft lockup - CPU#1 stuck for 48s! [bash:153]' \
	'[   84.769010] CPU: 1 PID: 153 Comm: bash Tainted: G           OE      6.1.0-57-amd64 #1' \
	'[   84.769020] RIP: 0010:smp_call_function_many_cond+0xf1/0x3d0' \
	'[   84.769030] Call Trace:' '[   84.769031]  <TASK>' \
	'[   84.769032]  ? text_poke_memset+0x10/0x10' \
	'[   84.769033]  on_each_cpu_cond_mask+0x24/0x40' \
	'[   84.769034]  text_poke_bp_batch+0xbe/0x2a0' '[   84.769036]  </TASK>' >"$serial"
got=$(kernel_report "$serial" '^\[ *[0-9]+\.[0-9]{6}\] .*(Oops|BUG:|Kernel panic)')
want='[   84.768996] watchdog: BUG: soft lockup - CPU#1 stuck for 48s! [bash:153] [task bash; RIP smp_call_function_many_cond+0xf1; trace on_each_cpu_cond_mask+0x24 < text_poke_bp_batch+0xbe]'
if [ "$got" = "$want" ]; then
	passed=$((passed + 1)); echo "PASS kernel_report: $got"
else
	failed=$((failed + 1)); echo "FAIL kernel_report: expected '$want', got '$got'"
fi
rm -f "$serial"

# dmesg_since MARK: the lines after the mark, whatever the log's length; a
# mark the log no longer holds (the buffer wrapped past it) is a line the
# gate fails on, never an empty (clean) result.
since_case() { # since_case WANT MARK [END]: dmesg_since on FAKE_DMESG
	local got what="after '$2'"
	[ -z "${3:-}" ] || what="$what up to '$3'"
	got=$(dmesg_since "$2" "${3:-}" | dmesg_bad | wc -l)
	if [ "$got" = "$1" ]; then
		passed=$((passed + 1)); echo "PASS since: $1 bad line(s) $what"
	else
		failed=$((failed + 1)); echo "FAIL since: $got bad line(s) $what, expected $1"
	fi
}
# shellcheck disable=SC2317 # called by dmesg_since (lib.sh)
dmesg() { printf '%s\n' "$FAKE_DMESG"; }
FAKE_DMESG='[    5.0] WARNING: CPU: 0 PID: 1 at before the mark
[    6.0] srpt-test mark 17
[    7.0] ib_srpt: quiet line
[    8.0] BUG: KASAN: slab-use-after-free in srpt_send_done+0x1f/0x90 [ib_srpt]'
since_case 1 'srpt-test mark 17'
since_case 1 'srpt-test mark 99'
# a window ends at the next mark: what follows belongs to the next window
since_case 0 'srpt-test mark 17' 'ib_srpt: quiet line'
since_case 1 'srpt-test mark 17' 'srpt-test mark 404'
FAKE_DMESG='[    6.0] srpt-test mark 18
[    7.0] ib_srpt: quiet line'
since_case 0 'srpt-test mark 18'
unset -f dmesg

echo "dmesg-gate: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
