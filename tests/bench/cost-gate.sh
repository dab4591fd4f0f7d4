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
# Three checks, then 'cost: N passed, N failed':
#   1. the driver's own assertions (four channel-lock holds per command,
#      every response posted, every send context back);
#   2. instructions per command at most the checked-in figure of
#      tests/bench/cost-bound.txt plus its tolerance;
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

bound=$(sed -n 's/^instructions_per_command //p' tests/bench/cost-bound.txt)
tol=$(sed -n 's/^tolerance_percent //p' tests/bench/cost-bound.txt)
if [ -z "$bound" ] || [ -z "$tol" ]; then
	bad "tests/bench/cost-bound.txt: no instructions_per_command or tolerance_percent"
	echo "cost: $pass passed, $((failed)) failed"
	exit 1
fi
limit=$(awk -v b="$bound" -v t="$tol" 'BEGIN { printf "%d", b * (1 + t / 100) }')

# measure EXTRA: prints the instructions per command; 1 if the run failed.
measure() {
	local extra=$1 out=$work/callgrind.$1.out log=$work/run.$1.log sum
	if ! make -s --no-print-directory cost-gate-bin COST_GATE_EXTRA="$extra" >"$work/build.$extra.log" 2>&1; then
		echo "build failed (COST_GATE_EXTRA=$extra): $work/build.$extra.log" >&2
		return 1
	fi
	if ! COST_GATE_N=$n valgrind --tool=callgrind --callgrind-out-file="$out" \
		--collect-atstart=no --toggle-collect=CostGateCommand \
		--toggle-collect='srpt_spin_*' --toggle-collect='srpt_dp_post_*' \
		"$top/build/bench/cost_gate.$extra" >"$log" 2>&1; then
		echo "the driver failed (COST_GATE_EXTRA=$extra): $log" >&2
		grep -E 'Failure|Expected|Which is|cost-gate' "$log" >&2 || true
		return 1
	fi
	sum=$(sed -n 's/^summary: //p' "$out")
	[ -n "$sum" ] || { echo "no callgrind summary in $out" >&2; return 1; }
	awk -v s="$sum" -v n="$n" 'BEGIN { printf "%.1f", s / n }'
}

if per=$(measure 0); then
	ok "driver: $(grep -o 'cost-gate: .*' "$work/run.0.log")"
	if awk -v p="$per" -v l="$limit" 'BEGIN { exit !(p <= l) }'; then
		ok "instructions per command: $per (checked in: $bound, limit +$tol %: $limit)"
	else
		bad "instructions per command: $per, above the checked-in $bound + $tol % ($limit)"
	fi
else
	bad "driver (COST_GATE_EXTRA=0)"
	bad "instructions per command: not measured"
fi
if slowed=$(measure "$slow"); then
	if awk -v p="$slowed" -v l="$limit" 'BEGIN { exit !(p > l) }'; then
		ok "a copy slowed by COST_GATE_EXTRA=$slow measures $slowed: the gate fails it"
	else
		bad "a copy slowed by COST_GATE_EXTRA=$slow measures $slowed, within the limit $limit: the gate cannot see it"
	fi
else
	bad "the slowed copy (COST_GATE_EXTRA=$slow) did not run"
fi
echo "cost: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
