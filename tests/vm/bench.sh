#!/usr/bin/env bash
# make bench: one guest boot, A (in-tree) / B alternated for BENCH_ROUNDS
# rounds on the same rd_mcp LUN; fio 4k randread/randwrite QD32, 128k seq
# read QD32, 4k randread QD1 (p50/p99), and raw rxe perftest numbers.
#   BENCH_B=port|intree  (default port; intree makes B the in-tree driver
#                         again, so that B/A shows the run-to-run noise)
#   BENCH_ROUNDS=3 BENCH_RUNTIME=8 (seconds per fio job, plus 2 s ramp)
# Output: table on stdout; bench.csv, bench.json, bench.png and raw fio JSON
# in $VM_ARTIFACTS/bench/ (default build/vm-artifacts/bench/).
set -uo pipefail
VM_TIMEOUT=${VM_TIMEOUT:-2400}   # before common.sh, which defaults it to 600
. "$(dirname "$0")/common.sh"
BENCH_B=${BENCH_B:-port}
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_RUNTIME=${BENCH_RUNTIME:-8}
case $BENCH_B in intree|port) ;; *) die "BENCH_B must be intree or port";; esac
[ "$BENCH_ROUNDS" -ge 3 ] || die "BENCH_ROUNDS must be >= 3"

"$VM_DIR/build-image.sh" >/dev/null || die "guest image build failed"
dir="$ART_BASE/bench"
rm -rf "$dir"; mkdir -p "$dir"
with_port=0
if [ "$BENCH_B" = port ]; then
	[ -f "$SRPT_KO" ] || die "BENCH_B=port but $SRPT_KO does not exist (run make)"
	with_port=1
fi
echo "bench: A = in-tree ib_srpt, B = $BENCH_B$([ "$BENCH_B" = intree ] && echo ' (in-tree again: B/A shows the noise)')"
echo "bench: $BENCH_ROUNDS rounds, fio ${BENCH_RUNTIME}s + 2s ramp per job, one guest (TCG, 2 vCPUs), artifacts $dir"
t0=$(date +%s)
SRPT=intree make_payload "$dir" bench single "$with_port" \
	"BENCH_B=$BENCH_B" "BENCH_ROUNDS=$BENCH_ROUNDS" "BENCH_RUNTIME=$BENCH_RUNTIME"
start_guest "$dir" 2 2G
hung=0
wait_guest "$dir" "$GUEST_PID" "$VM_TIMEOUT" || hung=1
collect "$dir"
[ -d "$dir/guest/bench" ] && mv "$dir/guest/bench"/* "$dir/" && rm -rf "$dir/guest"
if [ "$hung" = 1 ]; then echo "bench: FAIL: guest hung, killed after ${VM_TIMEOUT}s"; exit 1; fi
rc=$(cat "$dir/rc" 2>/dev/null)
if [ "$rc" != 0 ]; then
	why=$(grep -a 'FAIL:' "$dir/log" 2>/dev/null | tail -1)
	[ -n "$why" ] || why="no results from the guest (see $dir/serial.log)"
	[ "$rc" = 124 ] && why="timed out inside the guest after $(cat "$dir/seconds")s (VM_TIMEOUT=$VM_TIMEOUT); $why"
	echo "bench: FAIL: $why"
	exit 1
fi
"$PY" "$VM_DIR/bench-report.py" "$dir" "$BENCH_B" || exit 1
echo "bench: finished in $(( $(date +%s) - t0 ))s"
