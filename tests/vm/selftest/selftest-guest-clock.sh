#!/usr/bin/env bash
# Host self-test of common.sh's guest_clock_setup, the one place that turns
# BENCH_ICOUNT into the bench guests' clock (make bench, make bench-trace):
# the wall clock by default, -icount on one vCPU for a shift from 0 to 10,
# VM_TIMEOUT times 4 below shift 2 unless the user set it, and a refusal of
# anything else. Ends with 'guest-clock: N passed, N failed'.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0
check() { # check NAME COMMAND...
	if "${@:2}"; then passed=$((passed + 1)); echo "PASS $1"
	else failed=$((failed + 1)); echo "FAIL $1"; fi
}

# setup ICOUNT USER_VM_TIMEOUT: prints "CLOCK|SMP|ARGS|VM_TIMEOUT" as
# guest_clock_setup leaves them (VM_TIMEOUT 600 before), or exits non-zero
# where it refuses. A subshell each: die() exits.
setup() {
	(
		KVER=selftest ROOT=$here/../../.. VM_TIMEOUT=600
		# shellcheck source=../harness/common.sh
		. "$here/../harness/common.sh"
		BENCH_ICOUNT=$1
		guest_clock_setup "$2" 2>/dev/null || exit 1
		echo "$GUEST_CLOCK|$GUEST_SMP|${GUEST_CLOCK_ARGS[*]}|$VM_TIMEOUT"
	)
}
is() { # is ICOUNT USER_VM_TIMEOUT EXPECTED
	local got
	got=$(setup "$1" "$2") || { echo "  refused BENCH_ICOUNT='$1'"; return 1; }
	[ "$got" = "$3" ] || { echo "  BENCH_ICOUNT='$1': got '$got', want '$3'"; return 1; }
}
refused() { ! setup "$1" "" >/dev/null; }

check "empty: the wall clock on 2 vCPUs" is "" "" "wall|2||600"
check "shift 2: icount on 1 vCPU, VM_TIMEOUT kept" \
	is 2 "" "icount shift=2|1|-icount shift=2,sleep=off|600"
check "shift 10: the largest accepted" \
	is 10 "" "icount shift=10|1|-icount shift=10,sleep=off|600"
check "shift 1: VM_TIMEOUT times 4 (a guest second is host seconds)" \
	is 1 "" "icount shift=1|1|-icount shift=1,sleep=off|2400"
check "shift 0: VM_TIMEOUT times 4" \
	is 0 "" "icount shift=0|1|-icount shift=0,sleep=off|2400"
check "shift 0 with the user's VM_TIMEOUT: kept" \
	is 0 600 "icount shift=0|1|-icount shift=0,sleep=off|600"
for bad in 11 -1 a 2x " 2" 1.5; do
	check "BENCH_ICOUNT='$bad' refused" refused "$bad"
done
echo "guest-clock: $passed passed, $failed failed"
[ "$failed" = 0 ]
