#!/usr/bin/env bash
# The data path's instruction gate (suite `cost` of make check; `make
# cost-gate`): one SRP_CMD from its receive completion, through the
# hand-off to the glue, its response, send completion and release, driven
# through the C entry points as glue/completion.c drives them
# (tests/bench/cost_gate_test.cpp), counted by callgrind: the instructions
# of the C++ side per command, less the host's stand-ins for kernel calls
# (its lock functions, the fake glue's posts), which are not the port's
# code. Deterministic: the same tree gives the same count on any machine
# with the same compiler.
#
# Two units, each measured on its own: `command`, the whole C++ side
# (CostGateCommand: the entry points, the parser, the response builder),
# and `core`, the channel core alone with hooks that do nothing
# (CostGateCore, as BM_ChannelCommand). Per unit, then 'cost: N passed, N
# failed':
#   1. the driver's own assertions (four channel-lock holds per command,
#      every response posted, every send context back);
#   2. instructions per command at most the checked-in figure of
#      tests/bench/cost-bound.txt plus its tolerance (and the core at most
#      its absolute bound there);
#   3. the gate fails a deliberately slowed copy (COST_GATE_EXTRA adds work
#      inside the measured function).
# A change that makes the data path cheaper lowers the figure in
# cost-bound.txt in the same commit (the gate prints the new one).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
n=${COST_GATE_N:-1000}
slow=${COST_GATE_SLOW:-200}
work=$top/build/bench/cost-gate
mkdir -p "$work"
pass=0 failed=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

tol=$(sed -n 's/^tolerance_percent //p' tests/bench/cost-bound.txt)
core_max=$(sed -n 's/^core_max //p' tests/bench/cost-bound.txt)

# measure UNIT EXTRA: prints the instructions per command of UNIT
# (command: CostGateCommand, core: CostGateCore); fails if the run did.
measure() {
	local unit=$1 extra=$2 fn filter out log sum
	case $unit in
	command) fn=CostGateCommand filter='DataPathFixture.CostGateCommands' ;;
	core) fn=CostGateCore filter='CostGate.CoreCommands' ;;
	esac
	out=$work/callgrind.$unit.$extra.out log=$work/run.$unit.$extra.log
	if ! make -s --no-print-directory cost-gate-bin COST_GATE_EXTRA="$extra" >"$work/build.$extra.log" 2>&1; then
		echo "build failed (COST_GATE_EXTRA=$extra): $work/build.$extra.log" >&2
		return 1
	fi
	if ! COST_GATE_N=$n valgrind --tool=callgrind --callgrind-out-file="$out" \
		--collect-atstart=no --toggle-collect="$fn" \
		--toggle-collect='srpt_spin_*' --toggle-collect='srpt_dp_post_*' \
		"$top/build/bench/cost_gate.$extra" --gtest_filter="$filter" >"$log" 2>&1; then
		echo "the driver failed ($unit, COST_GATE_EXTRA=$extra): $log" >&2
		grep -E 'Failure|Expected|Which is|cost-gate' "$log" >&2 || true
		return 1
	fi
	sum=$(sed -n 's/^summary: //p' "$out")
	[ -n "$sum" ] || { echo "no callgrind summary in $out" >&2; return 1; }
	awk -v s="$sum" -v n="$n" 'BEGIN { printf "%.1f", s / n }'
}

for unit in command core; do
	bound=$(sed -n "s/^$unit //p" tests/bench/cost-bound.txt)
	if [ -z "$bound" ] || [ -z "$tol" ] || [ -z "$core_max" ]; then
		bad "tests/bench/cost-bound.txt: no '$unit', tolerance_percent or core_max"
		continue
	fi
	limit=$(awk -v b="$bound" -v t="$tol" 'BEGIN { printf "%d", b * (1 + t / 100) }')
	if per=$(measure "$unit" 0); then
		ok "$unit: $(grep -o 'cost-gate: .*' "$work/run.$unit.0.log")"
		if awk -v p="$per" -v l="$limit" 'BEGIN { exit !(p <= l) }'; then
			ok "$unit: $per instructions per command (checked in: $bound, limit +$tol %: $limit)"
		else
			bad "$unit: $per instructions per command, above the checked-in $bound + $tol % ($limit)"
		fi
		if [ "$unit" = core ]; then
			if awk -v p="$per" -v m="$core_max" 'BEGIN { exit !(p <= m) }'; then
				ok "core: $per instructions per command, within the bound of $core_max"
			else
				bad "core: $per instructions per command, above the bound of $core_max"
			fi
		fi
	else
		bad "$unit: the driver (COST_GATE_EXTRA=0)"
	fi
	if slowed=$(measure "$unit" "$slow"); then
		if awk -v p="$slowed" -v l="$limit" 'BEGIN { exit !(p > l) }'; then
			ok "$unit: a copy slowed by COST_GATE_EXTRA=$slow measures $slowed: the gate fails it"
		else
			bad "$unit: a copy slowed by COST_GATE_EXTRA=$slow measures $slowed, within the limit $limit: the gate cannot see it"
		fi
	else
		bad "$unit: the slowed copy (COST_GATE_EXTRA=$slow) did not run"
	fi
done
echo "cost: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
