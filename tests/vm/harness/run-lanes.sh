#!/usr/bin/env bash
# run-lanes.sh LOGDIR SCENARIO...: the scenarios in two lanes, each lane one
# tests/vm/harness/run.sh (its scenarios one after the other), both lanes at once;
# make check-debug with DEBUG_JOBS=2. A debug guest keeps about one host
# core busy (top: 88-92 % per QEMU with two of them running on two cores),
# so one lane leaves a core of a 2-core machine mostly idle and two lanes
# use both; a third would only slow the other two. Lanes are balanced by
# each scenario's measured wall
# time on the debug kernel (minutes, docs/debug-kernel.md "check-debug per
# scenario"), longest first onto the lane with less work so far.
# Each lane's whole output is LOGDIR/laneN.log; its PASS/FAIL lines are
# printed as they come, prefixed "[lane N]". Ends with the lanes' summed
# 'N passed, N failed' (a lane that ends without its own summary counts as
# one failure); exit status 0 only if nothing failed.
# RUN_SH (default: run.sh next to this script) is for the self-test.
set -uo pipefail
dir=${1:?usage: run-lanes.sh LOGDIR SCENARIO...}; shift
[ $# -gt 0 ] || { echo "run-lanes.sh: no scenarios" >&2; exit 2; }
RUN_SH=${RUN_SH:-$(dirname "$0")/run.sh}
mkdir -p "$dir"

minutes() {
	case $1 in
	multipath) echo 85 ;; port-faults) echo 70 ;; hostile) echo 50 ;;
	integrity) echo 42 ;; controlpath) echo 25 ;; port-datapath) echo 24 ;;
	e2e) echo 20 ;; port-removal | port-srq) echo 15 ;; *) echo 10 ;;
	esac
}
lane1=() lane2=() t1=0 t2=0
# sort -s: equal estimates keep the order they were given in
for sc in $(for sc in "$@"; do echo "$(minutes "$sc") $sc"; done | sort -s -rn -k1,1 | awk '{print $2}'); do
	m=$(minutes "$sc")
	if [ "$t1" -le "$t2" ]; then lane1+=("$sc") t1=$((t1 + m))
	else lane2+=("$sc") t2=$((t2 + m)); fi
done
echo "[lanes] lane 1: ${lane1[*]} (~$t1 min); lane 2: ${lane2[*]:-(none)} (~$t2 min)"

pids=()
run_lane() { # run_lane N SCENARIO...
	local n=$1; shift
	"$RUN_SH" "$@" 2>&1 | tee "$dir/lane$n.log" |
		grep --line-buffered -E '^(PASS|FAIL) ' | sed -u "s/^/[lane $n] /"
}
run_lane 1 "${lane1[@]}" & pids+=($!)
[ ${#lane2[@]} -eq 0 ] || { run_lane 2 "${lane2[@]}" & pids+=($!); }
for p in "${pids[@]}"; do wait "$p"; done

passed=0 failed=0
for n in 1 2; do
	[ "$n" = 1 ] || [ ${#lane2[@]} -gt 0 ] || continue
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$dir/lane$n.log" 2>/dev/null | tail -n1)
	if [ -z "$last" ]; then
		echo "[lane $n] FAIL: run.sh ended without its 'N passed, N failed' ($dir/lane$n.log)"
		failed=$((failed + 1))
		continue
	fi
	f=${last#*passed, }
	passed=$((passed + ${last%% passed*})) failed=$((failed + ${f%% failed}))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
