#!/usr/bin/env bash
# Host self-test of tests/vm/harness/run-lanes.sh (make check-debug DEBUG_JOBS=2):
# with a stand-in for run.sh, the lanes' split, the PASS/FAIL lines, the
# summed summary and the exit status. Ends with 'run-lanes: N passed, N failed'.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The stand-in: PASS per scenario, FAIL for "bad", and "dies" ends the lane
# without run.sh's summary (a killed or crashed run.sh).
cat >"$tmp/run.sh" <<'STUB'
#!/usr/bin/env bash
p=0 f=0
echo "lane of: $*" >&2
for sc in "$@"; do
	sleep 0.2
	case $sc in
	dies) exit 1 ;;
	bad) echo "FAIL  $sc (1s, SRPT=port): reason"; f=$((f + 1)) ;;
	*) echo "PASS  $sc (1s, SRPT=port)"; p=$((p + 1)) ;;
	esac
done
echo "$p passed, $f failed"
[ "$f" = 0 ]
STUB
chmod +x "$tmp/run.sh"
passed=0 failed=0
check() { # check NAME COMMAND...
	if "${@:2}"; then passed=$((passed + 1)); echo "PASS $1"
	else failed=$((failed + 1)); echo "FAIL $1"; fi
}
lanes() { # lanes TAG SCENARIO...: output in $tmp/TAG.out, exit in $tmp/TAG.rc
	local tag=$1; shift
	RUN_SH=$tmp/run.sh "$here/../harness/run-lanes.sh" "$tmp/$tag" "$@" >"$tmp/$tag.out" 2>&1
	echo $? >"$tmp/$tag.rc"
}

lanes all e2e integrity port-datapath port-removal port-srq observe controlpath hostile port-faults multipath
check "all pass: summary sums both lanes" grep -qx '10 passed, 0 failed' "$tmp/all.out"
check "all pass: exit 0" grep -qx 0 "$tmp/all.rc"
check "all pass: every scenario's line, with its lane" \
	test "$(grep -cE '^\[lane [12]\] PASS  ' "$tmp/all.out")" = 10
check "balanced: multipath's lane has neither port-faults nor hostile" \
	bash -c "! grep -q 'port-faults\|hostile' <(grep 'lane of:.*multipath' '$tmp/all/lane1.log' '$tmp/all/lane2.log')"
# longest first onto the lighter lane: 85+42+24+15+10 = 176 against
# 70+50+25+20+15 = 180
check "balanced: the split it announces" \
	grep -qF '[lanes] lane 1: multipath integrity port-datapath port-removal observe (~176 min); lane 2: port-faults hostile controlpath e2e port-srq (~180 min)' "$tmp/all.out"

lanes onefail e2e bad multipath
check "a FAIL: counted" grep -qx '2 passed, 1 failed' "$tmp/onefail.out"
check "a FAIL: exit non-zero" bash -c "! grep -qx 0 '$tmp/onefail.rc'"
check "a FAIL: its line shown" grep -q '^\[lane [12]\] FAIL  bad ' "$tmp/onefail.out"

lanes died multipath dies e2e
check "a lane without its summary counts as a failure" grep -q '^\[lane [12]\] FAIL: run.sh ended without' "$tmp/died.out"
check "a lane without its summary: exit non-zero" bash -c "! grep -qx 0 '$tmp/died.rc'"
check "a lane without its summary: the other lane still counted" grep -qE '^[1-9][0-9]* passed, [1-9][0-9]* failed$' "$tmp/died.out"

lanes one e2e
check "one scenario: one lane, no second lane counted" grep -qx '1 passed, 0 failed' "$tmp/one.out"
check "one scenario: exit 0" grep -qx 0 "$tmp/one.rc"

echo "run-lanes: $passed passed, $failed failed"
[ "$failed" = 0 ]
