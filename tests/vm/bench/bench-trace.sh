#!/usr/bin/env bash
# make bench-trace: one guest boot, A (in-tree ib_srpt) then B (the port),
# where one QD1 READ and WRITE spend their time (kprobe events per stage),
# the CPU time per I/O at QD1 and QD32 and a flame graph per driver
# (guest scenario bench-trace, host report bench-breakdown.py;
# docs/testing-vm.md, "bench-trace").
#   BENCH_B=port|intree  (default port; intree: A/A, shows the noise)
#   BT_TRACE_S=3         (seconds traced per QD1 job)
#   BT_CPU_S=6           (seconds of each CPU window)
#   BT_PERF_HZ=499       (cpu-clock samples per second and CPU)
#   BENCH_MAX_LOAD=0.5   (a 1-minute load average at or above it before the
#                         boot marks the report "loaded host")
#   BENCH_ICOUNT=N       (as for make bench: the guest's clock counts its
#                         instructions, 2^N ns each, on one vCPU; stage times,
#                         CPU per I/O and samples are then in instructions)
#   BT_STAGES=1          (0: no kprobe stage windows, only the CPU windows and
#                         flame graphs; under icount fio took ~60 guest seconds
#                         to start with the probes in, so the stage window saw
#                         no I/O: use BT_STAGES=0 there)
#   BT_CENSUS=0          (1: also a call census, before the CPU windows: how
#                         often each of ~50 kernel functions runs per I/O on
#                         each driver, from kprobe hit counts; exact, so it
#                         suits the instruction clock; tests/vm/bench/call_census.py)
#   BT_CENSUS_S=8        (seconds of each census window)
#   BT_COST=0            (1: also the driver's cost, after the census: every
#                         call into ib_srpt from outside it timed with
#                         function_graph, per I/O by root function; under
#                         icount in instructions; tests/vm/bench/driver_cost.py)
#   BT_COST_S=4          (seconds of each cost window, after 0.5 s that
#                         finds the roots)
#   BT_CALLEES=0         (1, with BT_COST=1: also where the roots' time goes,
#                         at QD1: function_graph on every function beneath
#                         the roots, the tracer's own cost per hooked call
#                         taken out; tests/vm/bench/driver_callees.py)
#   BT_CALLEES_S=1       (seconds of each callee window)
#   BT_JOBS="..."        (only these of the 8 jobs, by file part <lun>-<rw>-qd<N>,
#                         e.g. "rd-randread-qd32": every window of the run, the
#                         QD1 stage windows of the QD1 jobs named; default all;
#                         tests/vm/bench/trace_jobs.py)
# Output: breakdown.md (also on stdout), breakdown.json, flame-<side>-<lun>.png
# and the guest's raw files in $VM_ARTIFACTS/bench-trace/ (default
# build/vm-artifacts/bench-trace/). Exit status 0: report written; 1: the
# guest run or the report failed.
set -uo pipefail
user_vm_timeout=${VM_TIMEOUT:-}  # common.sh defaults VM_TIMEOUT to 600
. "$(dirname "$0")/../harness/common.sh"
BENCH_B=${BENCH_B:-port}
BT_TRACE_S=${BT_TRACE_S:-3}
BT_CPU_S=${BT_CPU_S:-6}
BT_PERF_HZ=${BT_PERF_HZ:-499}
BT_CENSUS=${BT_CENSUS:-0}
BT_CENSUS_S=${BT_CENSUS_S:-8}
BT_COST=${BT_COST:-0}
BT_COST_S=${BT_COST_S:-4}
BT_CALLEES=${BT_CALLEES:-0}
BT_CALLEES_S=${BT_CALLEES_S:-1}
BENCH_MAX_LOAD=${BENCH_MAX_LOAD:-0.5}
BT_JOBS=$("$PY" "$VM_DIR/bench/trace_jobs.py" check "${BT_JOBS:-}") || die "BT_JOBS: see above"
n_jobs=$(wc -w <<<"$BT_JOBS")
n_qd1=$(tr ' ' '\n' <<<"$BT_JOBS" | grep -c -- '-qd1$')
case $BENCH_B in intree|port) ;; *) die "BENCH_B must be intree or port";; esac
for v in BT_TRACE_S BT_CPU_S BT_PERF_HZ BT_CENSUS_S BT_COST_S BT_CALLEES_S; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer"
done
[[ $BENCH_MAX_LOAD =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "BENCH_MAX_LOAD must be a number (CPUs)"
BT_STAGES=${BT_STAGES:-1}
case $BT_STAGES in 0|1) ;; *) die "BT_STAGES must be 0 or 1";; esac
case $BT_CENSUS in 0|1) ;; *) die "BT_CENSUS must be 0 or 1";; esac
case $BT_COST in 0|1) ;; *) die "BT_COST must be 0 or 1";; esac
case $BT_CALLEES in 0|1) ;; *) die "BT_CALLEES must be 0 or 1";; esac
[ "$BT_CALLEES" = 0 ] || [ "$BT_COST" = 1 ] || die "BT_CALLEES=1 needs BT_COST=1 (the roots and their own cost come from the cost windows)"
# Per side (for all 8 jobs; BT_JOBS scales each term by the jobs it keeps):
# 4 traced jobs of TRACE_S + 3 s (and the dump of their events),
# 8 CPU windows of CPU_S + 8 s plus perf's set-up and perf script (~25 s
# under TCG), about a minute of login and set-up; three times that, plus
# the boot and the backstores.
# the census: 8 windows of CENSUS_S + ~12 s of fio start and ramp; the
# cost: 8 fio jobs of COST_S + 60 s (the window, the discovery and reading
# its graph) and ~10 s of start; the callees: 4 QD1 fio jobs of
# CALLEES_S + 90 s (every function hooked and unhooked, the graph zipped)
VM_TIMEOUT=${user_vm_timeout:-$((600 + 2 * 3 * (n_qd1 * (BT_TRACE_S + 8) + n_jobs * (BT_CPU_S + 35) + BT_CENSUS * n_jobs * (BT_CENSUS_S + 12) + BT_COST * n_jobs * (BT_COST_S + 70) + BT_CALLEES * n_qd1 * (BT_CALLEES_S + 100) + 60)))}
guest_clock_setup "$user_vm_timeout"  # BENCH_ICOUNT (common.sh)

"$VM_DIR/harness/build-image.sh" >/dev/null || die "guest image build failed"
dir="$ART_BASE/bench-trace"
rm -rf "$dir"; mkdir -p "$dir"
with_port=0
if [ "$BENCH_B" = port ]; then
	[ -f "$SRPT_KO" ] || die "BENCH_B=port but $SRPT_KO does not exist (run make)"
	vm=$(modinfo -F vermagic "$SRPT_KO" 2>/dev/null | awk '{print $1}')
	[ "$vm" = "$GUEST_KREL" ] || die "$SRPT_KO is built for '$vm', the guest boots $GUEST_KREL"
	with_port=1
fi

# The host's load before the boot: under TCG another job's CPU is taken
# from the guest, and stage times and CPU per I/O stretch with it. (The
# reading after the run holds the guest's own load: shown, not judged.)
read -r load_start _ </proc/loadavg
echo "bench-trace: A = in-tree ib_srpt, B = $BENCH_B; host load average $load_start; artifacts $dir"
t0=$(date +%s)
SRPT=intree make_payload "$dir" bench-trace single "$with_port" \
	"BENCH_B=$BENCH_B" "BT_TRACE_S=$BT_TRACE_S" "BT_CPU_S=$BT_CPU_S" "BT_PERF_HZ=$BT_PERF_HZ" \
	"BT_STAGES=$BT_STAGES" "BT_CENSUS=$BT_CENSUS" "BT_CENSUS_S=$BT_CENSUS_S" \
	"BT_COST=$BT_COST" "BT_COST_S=$BT_COST_S" "BT_CALLEES=$BT_CALLEES" "BT_CALLEES_S=$BT_CALLEES_S" \
	"BT_JOBS='$BT_JOBS'"
echo "bench-trace: guest clock: $GUEST_CLOCK, $GUEST_SMP vCPU(s)"
start_guest "$dir" "$GUEST_SMP" 2G "${GUEST_CLOCK_ARGS[@]}"
hung=0
wait_guest "$dir" "$GUEST_PID" "$VM_TIMEOUT" || hung=1
read -r load_end _ </proc/loadavg
collect "$dir"
[ -d "$dir/guest/bench-trace" ] && mv "$dir/guest/bench-trace"/* "$dir/" && rm -rf "$dir/guest"
printf 'load_start %s\nload_end %s\nmax_load %s\nclock %s\nstages %s\ncensus %s\ncost %s\ncallees %s\njobs %s\n' "$load_start" "$load_end" \
	"$BENCH_MAX_LOAD" "$GUEST_CLOCK" "$BT_STAGES" "$BT_CENSUS" "$BT_COST" "$BT_CALLEES" "$BT_JOBS" >"$dir/host-load.txt"
if [ "$hung" = 1 ]; then echo "bench-trace: FAIL: guest hung, killed after ${VM_TIMEOUT}s"; exit 1; fi
rc=$(cat "$dir/rc" 2>/dev/null)
if [ "$rc" != 0 ]; then
	why=$(grep -a 'FAIL:' "$dir/log" 2>/dev/null | tail -1)
	[ -n "$why" ] || why="no results from the guest (see $dir/serial.log)"
	echo "bench-trace: FAIL: $why"
	exit 1
fi
"$PY" "$VM_DIR/bench/bench-breakdown.py" "$dir" || { echo "bench-trace: FAIL: bench-breakdown.py"; exit 1; }
echo "bench-trace: finished in $(( $(date +%s) - t0 ))s"
