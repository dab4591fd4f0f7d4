#!/usr/bin/env bash
# make bench: one guest boot, A (in-tree) / B alternated for BENCH_ROUNDS
# rounds on the same rd_mcp and iblock/null_blk LUNs; fio 4k randread/
# randwrite QD32, 128k seq read QD32, 4k randread QD1 (p50/p99), and per
# round the raw rxe figures (srp_pattern_bw.ko: the ceiling for 128 KiB
# reads; perftest: a 128 KiB RDMA WRITE figure beside it and the QD1 4k
# read's pattern floor). docs/testing-vm.md ("bench") explains the figures,
# the ratios and the thresholds.
#   BENCH_B=port|intree  (default port; intree makes B the in-tree driver
#                         again, so that B/A shows the run-to-run noise)
#   BENCH_ROUNDS=7       (at least 7: fewer only with BENCH_FORCE=1, and the
#                         report then says "not a verdict: N rounds")
#   BENCH_RUNTIME=8      (seconds per fio job, plus 2 s ramp)
#   BENCH_MAX_LOAD=0.5   (CPUs: the host's 1-minute load average must be
#                         below it before the boot, and the CPU used by
#                         everything but the bench guest must stay below it
#                         in every 10 s sample during the run)
#   BENCH_LOAD_WAIT=120  (seconds to wait for the load average to drop)
#   BENCH_FORCE=1        (run and report anyway: the report keeps its "not a
#                         verdict" marks but exits 0)
#   BENCH_ICOUNT=N       (0-10; default empty: the guest's clock is the
#                         host's. N: QEMU -icount shift=N,sleep=off, the
#                         guest's clock advances 2^N ns per guest instruction
#                         executed and jumps over idle time, so every figure
#                         is in instructions, not host seconds: the host's
#                         speed and load drop out. docs/testing-vm.md)
# Output: table on stdout; bench.csv, bench.json, bench.png, the raw fio
# JSON and perftest reports, and host-load.csv (the load samples) in
# $VM_ARTIFACTS/bench/ (default build/vm-artifacts/bench/). Exit status 0:
# a verdict (or BENCH_FORCE=1); 1: the bench failed; 2: refused, the host
# was loaded before the boot; 3: figures printed but not a verdict.
set -uo pipefail
user_vm_timeout=${VM_TIMEOUT:-}  # common.sh defaults VM_TIMEOUT to 600
. "$(dirname "$0")/../harness/common.sh"
BENCH_B=${BENCH_B:-port}
BENCH_ROUNDS=${BENCH_ROUNDS:-7}
BENCH_RUNTIME=${BENCH_RUNTIME:-8}
BENCH_MAX_LOAD=${BENCH_MAX_LOAD:-0.5}
BENCH_LOAD_WAIT=${BENCH_LOAD_WAIT:-120}
BENCH_FORCE=${BENCH_FORCE:-0}
BENCH_MIN_ROUNDS=7  # the same as bench-report.py's MIN_ROUNDS
case $BENCH_B in intree|port) ;; *) die "BENCH_B must be intree or port";; esac
case $BENCH_FORCE in 0|1) ;; *) die "BENCH_FORCE must be 0 or 1";; esac
[[ $BENCH_ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive integer"
[[ $BENCH_RUNTIME =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNTIME must be a positive integer"
[[ $BENCH_MAX_LOAD =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "BENCH_MAX_LOAD must be a number (CPUs)"
[[ $BENCH_LOAD_WAIT =~ ^[0-9]+$ ]] || die "BENCH_LOAD_WAIT must be seconds"
if [ "$BENCH_ROUNDS" -lt "$BENCH_MIN_ROUNDS" ] && [ "$BENCH_FORCE" != 1 ]; then
	die "BENCH_ROUNDS=$BENCH_ROUNDS: at least $BENCH_MIN_ROUNDS rounds make a verdict (BENCH_FORCE=1 runs fewer, reported as 'not a verdict')"
fi
# A round is 16 fio jobs of RUNTIME + 2 s ramp plus about a minute of
# logins, targetcli and perftest on an idle host; allow twice that per
# round, plus the boot and the backstores.
VM_TIMEOUT=${user_vm_timeout:-$((600 + BENCH_ROUNDS * 2 * (16 * (BENCH_RUNTIME + 2) + 60)))}
guest_clock_setup "$user_vm_timeout"  # BENCH_ICOUNT (common.sh)

# load_above LOAD: whether LOAD (a decimal) is at or above BENCH_MAX_LOAD.
load_above() { awk -v l="$1" -v m="$BENCH_MAX_LOAD" 'BEGIN { exit !(l >= m) }'; }

# The load gate, before anything of the bench runs: TCG turns every host
# CPU cycle the guest does not get into slower, noisier figures, so another
# CPU-bound job makes A/B ratios meaningless. Wait for a job that just
# ended to decay out of the 1-minute average, refuse a host that stays busy.
read -r gate_load _ </proc/loadavg
gate_waited=0
# Under icount the figures do not depend on the host (bench-report.py says
# how that was shown): the load is recorded, the gate neither waits nor
# refuses.
[ -n "$BENCH_ICOUNT" ] && BENCH_LOAD_WAIT=0
while load_above "$gate_load" && [ "$gate_waited" -lt "$BENCH_LOAD_WAIT" ]; do
	[ "$gate_waited" = 0 ] &&
		echo "bench: 1-minute load average $gate_load >= BENCH_MAX_LOAD=$BENCH_MAX_LOAD: waiting up to ${BENCH_LOAD_WAIT}s for it to drop"
	sleep 10
	gate_waited=$((gate_waited + 10))
	read -r gate_load _ </proc/loadavg
done
if [ -z "$BENCH_ICOUNT" ] && load_above "$gate_load"; then
	echo "bench: the host is loaded: 1-minute load average $gate_load >= BENCH_MAX_LOAD=$BENCH_MAX_LOAD after ${gate_waited}s"
	# What uses the CPU now: top's second frame covers the last second
	# (ps's %CPU is each process's lifetime average: a build's short-lived
	# compilers show up as noise, a long guest as a constant).
	echo "bench: top CPU consumers over 1 s:"
	{ top -b -n 2 -d 1 -w 120 2>/dev/null | awk '/^ *PID /{n++} n == 2 && shown++ < 9' ||
		ps -eo pid,pcpu,comm --sort=-pcpu | head -n 9; } | sed 's/^/    /'
	if [ "$BENCH_FORCE" != 1 ]; then
		echo "bench: refused: figures taken now would not be a verdict (BENCH_FORCE=1 runs anyway, marked LOADED)"
		exit 2
	fi
	echo "bench: BENCH_FORCE=1: running anyway; the report marks the figures LOADED: not a verdict"
fi

"$VM_DIR/harness/build-image.sh" >/dev/null || die "guest image build failed"
dir="$ART_BASE/bench"
rm -rf "$dir"; mkdir -p "$dir"
with_port=0
if [ "$BENCH_B" = port ]; then
	[ -f "$SRPT_KO" ] || die "BENCH_B=port but $SRPT_KO does not exist (run make)"
	with_port=1
fi

# host-load.csv: the gate's reading, then one sample every 10 s while the
# guest runs: cumulative counters, so that bench-report.py computes per
# interval the CPUs used by everything but the guest ("other load"):
# busy = user+nice+system+irq+softirq+steal of /proc/stat's cpu line (guest
# time is inside user; steal, a hypervisor's other tenants, is CPU the guest
# does not get either), total = all of its first 8 fields (idle and iowait
# too), guest = QEMU's utime+stime (all its threads), in clock ticks.
# The load average alone cannot tell: the guest's two busy vCPUs add ~2.
load_csv=$dir/host-load.csv
echo "epoch,phase,load1,busy_ticks,total_ticks,ncpu,guest_ticks" >"$load_csv"
echo "$(date +%s),gate,$gate_load,,,," >>"$load_csv"
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
sample_load() { # sample_load PID: one 'run' row of host-load.csv
	local pid=$1 stat load1 c p
	read -r load1 _ </proc/loadavg
	# c: cpu user nice system idle iowait irq softirq steal guest guest_nice
	read -r -a c </proc/stat
	stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
	# p: the fields after "pid (comm) " (comm may hold spaces), from field
	# 3 (state) on: utime (field 14) is p[11], stime p[12].
	read -r -a p <<<"${stat##*") "}"
	echo "$(date +%s),run,$load1,$((c[1] + c[2] + c[3] + c[6] + c[7] + c[8])),$((c[1] + c[2] + c[3] + c[4] + c[5] + c[6] + c[7] + c[8])),$ncpu,$((p[11] + p[12]))" >>"$load_csv"
}
# sample_while PID: every 10 s until PID ends (checked every second, so
# that it ends with the guest).
sample_while() {
	local pid=$1 t=0
	while kill -0 "$pid" 2>/dev/null; do
		[ $((t % 10)) = 0 ] && { sample_load "$pid" || break; }
		sleep 1
		t=$((t + 1))
	done
}

# Under icount no perftest (BENCH_PERFTEST=0): its polling client and
# server and rxe take turns on the one vCPU per scheduler tick
# (ib_send_lat: 4000 us typical, HZ=250). srp_pattern_bw, the raw ceiling,
# polls nothing and runs on either clock; its module is built for the
# guest's kernel.
perftest=1
[ -n "$BENCH_ICOUNT" ] && perftest=0
"$VM_DIR/bench/build-pattern-bw.sh" "$GUEST_KREL" "$dir/pattern-bw" || die "building srp_pattern_bw.ko for $GUEST_KREL failed"
echo "bench: A = in-tree ib_srpt, B = $BENCH_B$([ "$BENCH_B" = intree ] && echo ' (in-tree again: B/A shows the noise)')"
echo "bench: $BENCH_ROUNDS rounds, fio ${BENCH_RUNTIME}s + 2s ramp per job, one guest (TCG, $GUEST_SMP vCPU(s), guest clock: $GUEST_CLOCK), artifacts $dir"
echo "bench: load gate: 1-minute load average $gate_load (BENCH_MAX_LOAD=$BENCH_MAX_LOAD); other load sampled every 10 s into $load_csv"
t0=$(date +%s)
SRPT=intree PAYLOAD_MODULES=$dir/pattern-bw/srp_pattern_bw.ko make_payload "$dir" bench single "$with_port" \
	"BENCH_B=$BENCH_B" "BENCH_ROUNDS=$BENCH_ROUNDS" "BENCH_RUNTIME=$BENCH_RUNTIME" "BENCH_PERFTEST=$perftest"
start_guest "$dir" "$GUEST_SMP" 2G "${GUEST_CLOCK_ARGS[@]}"
sample_while "$GUEST_PID" &
sampler_pid=$!
hung=0
wait_guest "$dir" "$GUEST_PID" "$VM_TIMEOUT" || hung=1
wait "$sampler_pid"
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
force=()
[ "$BENCH_FORCE" = 1 ] && force=(--force)
"$PY" "$VM_DIR/bench/bench-report.py" "$dir" "$BENCH_B" --max-load "$BENCH_MAX_LOAD" --clock "$GUEST_CLOCK" "${force[@]}"
report_rc=$?
echo "bench: finished in $(( $(date +%s) - t0 ))s"
exit "$report_rc"
