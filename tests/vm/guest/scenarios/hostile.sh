#!/bin/bash
# Scenario hostile: the adversarial initiator (tests/tools/srp_hostile/)
# against the target, one named case at a time (docs/hostile-initiator.md).
# Target configured as in e2e (rxe1's port, rd_mcp LUN 0 + fileio LUN 1 +
# iblock/null_blk LUN 2, ACL
# for rxe1's GID 0, RDMA/CM on $TGT_IP4:5555). After every case:
#   - dmesg has no new WARNING/BUG/Oops/refcount/list corruption/... lines;
#   - the target released the case's channels (no RC QP left);
#   - every HOSTILE_LEGIT_EVERY cases, after any suspicious case (dmesg,
#     channels left, stuck/unanswered command, tool error) and at the end,
#     a legitimate ib_srp login + 1 MiB dd+cmp + logout works.
# A kernel Oops/BUG or a dead target ends the loop (the remaining cases are
# "not run"): the host side (tests/vm/harness/hostile-compare.sh) boots a new guest
# for the rest. Progress goes to the console as HOSTILE-START / HOSTILE-RESULT
# lines so that it survives a guest that panics before saving its results.
#
# Environment (VMENV_X=v on the host becomes X=v here):
#   HOSTILE_CASES       names (space or comma separated) or "all" (default)
#   HOSTILE_SKIP        names to leave out
#   HOSTILE_LEGIT_EVERY legitimate ib_srp check every N cases (default 10)
#   HOSTILE_TIMEOUT_MS  tool's answer timeout (default 5000)
#   HOSTILE_FUZZ_SECONDS / HOSTILE_FUZZ_SEED: after the cases, a fuzz run
# Output: $OUT/hostile-results.tsv, $OUT/hostile-table.md, tool output per
# case in $OUT/cases/, closing 'N passed, N failed' (exit 1 if any failed).
. /srpt/lib.sh

TOOL=/srpt/tools/srp_hostile
HOSTILE_CASES=${HOSTILE_CASES:-all}
HOSTILE_SKIP=${HOSTILE_SKIP:-}
HOSTILE_LEGIT_EVERY=${HOSTILE_LEGIT_EVERY:-10}
HOSTILE_TIMEOUT_MS=${HOSTILE_TIMEOUT_MS:-5000}
HOSTILE_FUZZ_SECONDS=${HOSTILE_FUZZ_SECONDS:-0}
HOSTILE_FUZZ_SEED=${HOSTILE_FUZZ_SEED:-1}
[ -x "$TOOL" ] || fail "no $TOOL in the payload"

# LUN 2 (--nullb): iblock on a memory-backed null_blk, for the cases whose
# damage only a block device shows (--block-lun: odd_split_*).
single_host_target --nullb "dest=$TGT_IP4:$RDMA_CM_PORT"
TARGS=(--addr "$TGT_IP4" --port "$RDMA_CM_PORT" --ini "$INI_ID" --tgt "$GUID$GUID" --timeout "$HOSTILE_TIMEOUT_MS" --block-lun 2)
mkdir -p "$OUT/cases"
modprobe -a sd_mod sg
# shellcheck disable=SC2086
modprobe ib_srp $IB_SRP_PARAMS || fail "modprobe ib_srp"

all=$("$TOOL" --list | awk '{print $1}')
if [ "$HOSTILE_CASES" = all ]; then cases=$all; else cases=$(echo "$HOSTILE_CASES" | tr ',' ' '); fi
sel=
for c in $cases; do
	echo "$all" | grep -qx "$c" || { echo "unknown case '$c' (srp_hostile --list)"; continue; }
	case " $(echo "$HOSTILE_SKIP" | tr ',' ' ') " in *" $c "*) continue;; esac
	sel="$sel $c"
done
ncases=$(echo $sel | wc -w)
step "hostile: $ncases case(s), SRPT=$SRPT, legitimate check every $HOSTILE_LEGIT_EVERY"

# dmesg lines that fail a case: lib.sh's kernel reports, the debug
# kernel's checkers and the port's report of a command released with work
# requests posted, plus a panic and a failed page allocation. Not lib.sh's
# "still waiting": the in-tree driver prints it every 5 s while a channel
# that a hostile initiator left half open drains, and this scenario runs
# the in-tree driver too (hostile-compare.sh). Not "leak": a leak is read
# once, after teardown (check_kmemleak below), and on the check-debug
# kernel run.sh fails the scenario on any "kmemleak: N new suspected" line
# of the console, whichever case it came in.
HOSTILE_BAD="$DMESG_REPORTS|Kernel panic|page allocation failure|$DMESG_CHECKERS|$SRPT_EARLY_RELEASE_RE"
CRASH_RE='Oops|\bBUG\b|Kernel panic|general protection|kernel BUG'

rc_qps() { timeout 10 rdma res show qp 2>/dev/null | grep -c 'type RC'; }
# legit: ib_srp login, 1 MiB dd+cmp on LUN 0, logout; in a subshell with a
# time limit (lib.sh's helpers end with exit on failure).
legit_check() {
	local tag=$1
	timeout -k 5 150 bash -c '
		. /srpt/lib.sh
		srp_login rxe1 "$1" || fail "login: $LOGIN_ERR"
		dd_cmp "$DEV_LUN0" 1 $((RANDOM % 32))
		srp_logout
		wait_for 30 idle sh -c "! rdma res show qp 2>/dev/null | grep -q \"type RC\"" || fail "RC QPs left after logout"
	' legit "$LOGIN" >"$OUT/cases/legit-$tag.txt" 2>&1
}

# target health in doubt after a case: legitimate check even off-period
suspicious() {
	[ "$dm" != clean ] || [ "$chans" != released ] && return 0
	case $verdict in ok|bad) ;; *) return 0;; esac
	echo "$outcome" | grep -qE 'stuck|no_rsp|tool_exit|timeout'
}

dmesg_mark=$(dmesg_mark)
passed=0 failed=0 notrun=0 i=0 stop=
: >"$OUT/hostile-results.tsv"
printf 'case\tresult\toutcome\tverdict\tdmesg\tchannels\tlegit\tdetail\n' >>"$OUT/hostile-results.tsv"
for c in $sel; do
	i=$((i + 1))
	if [ -n "$stop" ]; then
		notrun=$((notrun + 1))
		printf '%s\tNOTRUN\t-\t-\t-\t-\t-\t%s\n' "$c" "$stop" >>"$OUT/hostile-results.tsv"
		continue
	fi
	echo "HOSTILE-START case=$c"
	t0=$(date +%s)
	out=$(timeout -k 5 120 "$TOOL" --case "$c" "${TARGS[@]}" 2>"$OUT/cases/$c.err")
	trc=$?
	echo "$out" >"$OUT/cases/$c.out"
	line=$(echo "$out" | grep '^case=' | tail -1)
	[ -n "$line" ] || line="case=$c outcome=tool_exit_$trc verdict=error detail=\"no result line (exit $trc): $(tail -c 300 "$OUT/cases/$c.err" | tr '\n"' ' \047')\""
	outcome=$(echo "$line" | sed -n 's/.* outcome=\([^ ]*\).*/\1/p')
	verdict=$(echo "$line" | sed -n 's/.* verdict=\([^ ]*\).*/\1/p')
	det=$(echo "$line" | sed -n 's/.* detail="\(.*\)"$/\1/p')
	# channels: every RC QP of the case must go away (ours at exit, the
	# target's after its release work)
	if wait_for 30 "rc qps" sh -c "[ \$(timeout 10 rdma res show qp 2>/dev/null | grep -c 'type RC') = 0 ]"; then chans=released; else chans="left($(rc_qps))"; fi
	sleep 0.5
	next=$(dmesg_mark)
	dmesg_since "$dmesg_mark" "$next" >"$OUT/cases/$c.dmesg"
	dmesg_mark=$next
	badl=$(grep -E "$HOSTILE_BAD" "$OUT/cases/$c.dmesg" | head -3)
	if [ -z "$badl" ]; then dm=clean; else dm=BAD; fi
	result=PASS reason=
	[ "$verdict" = ok ] || { result=FAIL; reason="tool verdict $verdict"; }
	[ "$dm" = clean ] || { result=FAIL; reason="${reason:+$reason; }dmesg: $(echo "$badl" | head -1 | cut -c1-120)"; }
	[ "$chans" = released ] || { result=FAIL; reason="${reason:+$reason; }channels not released after 30 s"; }
	legit=-
	if grep -qE "$CRASH_RE" "$OUT/cases/$c.dmesg"; then
		stop="kernel crash in case $c"
	elif suspicious || [ $((i % HOSTILE_LEGIT_EVERY)) = 0 ] || [ "$i" = "$ncases" ]; then
		if legit_check "$c"; then legit=ok; else
			legit=FAILED; result=FAIL
			reason="${reason:+$reason; }legitimate ib_srp login + dd+cmp failed: $(grep -a 'FAIL:' "$OUT/cases/legit-$c.txt" | tail -1 | sed 's/.*FAIL: //' | cut -c1-100)"
			stop="target no longer serves a legitimate initiator after case $c"
		fi
		next=$(dmesg_mark)
		dmesg_since "$dmesg_mark" "$next" >>"$OUT/cases/$c.dmesg"
		dmesg_mark=$next
		if grep -qE "$HOSTILE_BAD" "$OUT/cases/$c.dmesg" && [ "$dm" = clean ]; then
			dm=BAD; result=FAIL; reason="${reason:+$reason; }dmesg after the legitimate check: $(grep -E "$HOSTILE_BAD" "$OUT/cases/$c.dmesg" | head -1 | cut -c1-100)"
		fi
		grep -qE "$CRASH_RE" "$OUT/cases/$c.dmesg" && stop="kernel crash in case $c"
	fi
	if [ "$result" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$result" "$outcome" "$verdict" "$dm" "$chans" "$legit" "${reason:+$reason | }$det" >>"$OUT/hostile-results.tsv"
	echo "HOSTILE-RESULT case=$c result=$result outcome=$outcome verdict=$verdict dmesg=$dm channels=$chans legit=$legit secs=$(( $(date +%s) - t0 ))${reason:+ reason=\"$reason\"}"
	[ "$result" = PASS ] || echo "    $line"
	[ -n "$stop" ] && echo "HOSTILE-STOP $stop"
done

if [ -z "$stop" ] && [ "$HOSTILE_FUZZ_SECONDS" -gt 0 ]; then
	step "fuzz: seed $HOSTILE_FUZZ_SEED for ${HOSTILE_FUZZ_SECONDS}s"
	timeout -k 5 $((HOSTILE_FUZZ_SECONDS + 120)) "$TOOL" --fuzz "$HOSTILE_FUZZ_SEED" --seconds "$HOSTILE_FUZZ_SECONDS" "${TARGS[@]}" \
		2>"$OUT/fuzz.err" | tee "$OUT/fuzz.txt"
	frc=${PIPESTATUS[0]}
	wait_for 60 "rc qps" sh -c "[ \$(timeout 10 rdma res show qp 2>/dev/null | grep -c 'type RC') = 0 ]" || echo "fuzz: channels left: $(rc_qps)"
	dmesg_since "$dmesg_mark" >"$OUT/fuzz.dmesg"
	fbad=$(grep -E "$HOSTILE_BAD" "$OUT/fuzz.dmesg" | head -3)
	if legit_check fuzz && [ -z "$fbad" ] && [ "$frc" = 0 ]; then
		echo "HOSTILE-FUZZ result=PASS seed=$HOSTILE_FUZZ_SEED $(tail -1 "$OUT/fuzz.txt")"
	else
		failed=$((failed + 1))
		echo "HOSTILE-FUZZ result=FAIL seed=$HOSTILE_FUZZ_SEED rc=$frc dmesg=${fbad:-clean} $(tail -1 "$OUT/fuzz.txt")"
	fi
fi

{
	echo "| case | result | outcome | dmesg | channels | legit |"
	echo "| --- | --- | --- | --- | --- | --- |"
	tail -n +2 "$OUT/hostile-results.tsv" | awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $5, $6, $7}'
} >"$OUT/hostile-table.md"
echo
column -t -s "$(printf '\t')" "$OUT/hostile-results.tsv" 2>/dev/null | cut -c1-160 || cat "$OUT/hostile-results.tsv"
echo
echo "hostile SRPT=$SRPT: $passed passed, $failed failed${notrun:+, $notrun not run}"
if [ -z "$stop" ]; then
	target_teardown
	unload_all
	check_kmemleak
fi
[ "$failed" = 0 ] && [ "$notrun" = 0 ] || fail "hostile: $failed case(s) failed, $notrun not run${stop:+ ($stop)}"
echo "hostile: all cases passed"
