# The bench-trace scenario's measuring windows: kprobe events on the stages
# of one SRP command (trace_window), CPU time per I/O with cpu-clock
# samples (cpu_window) and, with BT_CENSUS=1, calls per I/O of a set of
# kernel functions (census_window); with BT_COST=1, the duration of every
# call into the target driver (cost_window) and, with BT_CALLEES=1, of
# every function beneath those calls (callee_window). Sourced after /srpt/lib.sh; RD_MB, OUT set.
# The host side, tests/vm/bench/bench-breakdown.py, pairs the events and reduces
# the samples; docs/testing-vm.md ("bench-trace") says what each figure is.
# shellcheck shell=bash

TR=/sys/kernel/tracing
BT_TRACE_S=${BT_TRACE_S:-3}   # seconds of tracing per QD1 job
BT_CPU_S=${BT_CPU_S:-6}       # seconds of each CPU window
BT_PERF_HZ=${BT_PERF_HZ:-499} # cpu-clock samples per second and CPU
BT_CENSUS_S=${BT_CENSUS_S:-8} # seconds of each census window
BT_COST_S=${BT_COST_S:-4}     # seconds of each driver-cost window
BT_CALLEES_S=${BT_CALLEES_S:-1} # seconds of each callee window

# trace_setup: tracefs mounted, a clock that is the same on every CPU (a
# command's stages run on different CPUs: the CQ's poll work, LIO's
# completion work), a buffer that holds a whole window, and the kernel
# addresses perf and kallsyms show unmasked.
trace_setup() {
	mountpoint -q $TR || mount -t tracefs nodev $TR || fail "mount tracefs"
	echo 0 >$TR/tracing_on
	echo mono >$TR/trace_clock || fail "trace_clock mono"
	echo 16384 >$TR/buffer_size_kb || fail "trace buffer size"
	sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1 ||
		fail "sysctl kptr_restrict/perf_event_paranoid"
	command -v perf >/dev/null || fail "no perf in the guest (linux-perf in GUEST_PKGS)"
	local pv kv
	pv=$(perf version 2>&1 | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/\1/p')
	kv=$(uname -r | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	# perf reads the kernel's sample and callchain records. A newer kernel
	# keeps them readable for an older perf (perf_event_attr carries its
	# size; records hold what the attr asked for): Debian 12 has only
	# linux-perf 6.1, and the 6.12 guest runs it. A perf newer than the
	# kernel may ask for what the kernel lacks: refused.
	[ -n "$pv" ] && [ "$(printf '%s\n%s\n' "$pv" "$kv" | sort -V | tail -n1)" = "$kv" ] ||
		fail "perf version '$pv' is newer than the kernel's $kv"
	ok "tracing: clock mono, 16 MiB per CPU; perf $pv for kernel $(uname -r)"
}

# probe_defs DRV: the kprobe events of one command's stages. Shared
# symbols (LIO's entry points, rxe's post_send) are the same for both
# drivers; the driver's own are its completion handlers, which both name
# srpt_recv_done/srpt_send_done, and its LIO fabric callbacks (the port's
# glue prefixes them srpt_fabric_). Return probes close the windows in
# which a nested event belongs to the call (bench-breakdown.py).
probe_defs() {
	local qdin=srpt_queue_data_in qsts=srpt_queue_status
	if [ "$1" = port ]; then qdin=srpt_fabric_queue_data_in qsts=srpt_fabric_queue_status; fi
	cat <<EOF
p:srptbt/recv ib_srpt:srpt_recv_done cq=\$arg1:x64
r:srptbt/recvr ib_srpt:srpt_recv_done
p:srptbt/init target_core_mod:target_init_cmd cmd=\$arg1:x64
p:srptbt/subm target_core_mod:target_submit cmd=\$arg1:x64
p:srptbt/bkdn target_core_mod:target_complete_cmd cmd=\$arg1:x64
p:srptbt/qdin ib_srpt:$qdin cmd=\$arg1:x64
r:srptbt/qdinr ib_srpt:$qdin
p:srptbt/qsts ib_srpt:$qsts cmd=\$arg1:x64
r:srptbt/qstsr ib_srpt:$qsts
p:srptbt/post rdma_rxe:rxe_post_send qp=\$arg1:x64
p:srptbt/sndd ib_srpt:srpt_send_done cq=\$arg1:x64
EOF
}

# probes_add DRV FILE: the events defined (also written to FILE) and enabled.
probes_add() {
	local line
	probe_defs "$1" >"$2"
	while read -r line; do
		echo "$line" >>$TR/kprobe_events ||
			fail "kprobe event '$line' refused: $(tail -2 $TR/error_log 2>/dev/null)"
	done <"$2"
	echo 1 >$TR/events/srptbt/enable || fail "enable srptbt events"
	ok "$(wc -l <"$2") kprobe events for $1"
}

# probes_del: before ib_srpt is unloaded (the probes sit in it).
probes_del() {
	echo 0 >$TR/events/srptbt/enable
	echo >$TR/kprobe_events || fail "kprobe events could not be removed"
}

# kallsyms_snapshot FILE: the text symbols while this side's ib_srpt is
# loaded; the host resolves the samples' kernel addresses with it (both
# drivers are called ib_srpt, and perf would look the port's addresses up
# in the in-tree module's file of that name).
kallsyms_snapshot() {
	awk '$2 ~ /^[tTwW]$/' /proc/kallsyms | gzip -1 >"$1"
	zgrep -q '\[ib_srpt\]' "$1" || fail "kallsyms shows no ib_srpt symbol (kptr_restrict?)"
}

# fio_bg TAG DEV RW QD SECONDS: a time-based 4k fio job in the background
# (FIO_PID), its JSON report in $OUT/TAG.json.
fio_bg() {
	fio --name="$1" --filename="$2" --direct=1 --ioengine=libaio --size=${RD_MB}M \
		--rw="$3" --bs=4k --iodepth="$4" --time_based --runtime="$5" \
		--output-format=json --output="$OUT/$1.json" >/dev/null 2>&1 &
	FIO_PID=$!
}
fio_done() { # fio_done TAG
	wait "$FIO_PID" || fail "fio $1 failed"
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]
sys.exit(1 if j["error"] else 0)' "$OUT/$1.json" || fail "fio $1 reported an error"
}

# fio_running: the background fio has not ended (an exited child stays a
# zombie until waited for: its state, not kill -0).
fio_running() {
	case $(awk '{print $3}' "/proc/$FIO_PID/stat" 2>/dev/null) in
	'' | Z) return 1 ;;
	esac
}

# fio_steady TAG DEV RW QD SECONDS: fio_bg, then its first completed I/O
# (the initiator's disk counters) and 2 s of ramp: a window measured from
# here is steady state. The steps wait for each other rather than for
# fixed times: on a loaded host (or with probes in) fio's start takes long.
fio_steady() {
	local tag=$1 bstat=/sys/block/${2#/dev/}/stat s0 s1
	read -r -a s0 <"$bstat"
	fio_bg "$@"
	while read -r -a s1 <"$bstat" && [ $((s1[0] + s1[4])) = $((s0[0] + s0[4])) ]; do
		fio_running || { fio_done "$tag"; fail "$tag: fio ended before any I/O"; }
		sleep 0.2
	done
	sleep 2
}

# trace_window TAG DEV RW: QD1 fio; the events of BT_TRACE_S seconds in its
# middle go to $OUT/TAG.trace.gz, the ring buffer's per-CPU overruns (events
# lost) to $OUT/TAG.overrun.
trace_window() {
	local tag=$1 dev=$2 rw=$3 n
	echo >$TR/trace
	fio_bg "$tag" "$dev" "$rw" 1 $((BT_TRACE_S + 3))
	sleep 1.5
	echo 1 >$TR/tracing_on
	sleep "$BT_TRACE_S"
	echo 0 >$TR/tracing_on
	fio_done "$tag"
	grep -h '^overrun' $TR/per_cpu/cpu*/stats | awk '{s += $2} END {print s + 0}' >"$OUT/$tag.overrun"
	grep -v '^#' $TR/trace | gzip -1 >"$OUT/$tag.trace.gz"
	echo >$TR/trace
	n=$(zgrep -c ' sndd: ' "$OUT/$tag.trace.gz")
	[ "$n" -gt 0 ] || fail "$tag: no send completion traced"
	echo "$tag: $n send completions traced, $(cat "$OUT/$tag.overrun") events overrun"
}

# cpu_window TAG DEV RW QD: fio at QD; over BT_CPU_S seconds of its steady
# state, the guest's CPU ticks (/proc/stat) and the I/Os the initiator's
# disk completed (/sys/block/<dev>/stat), counts in $OUT/TAG.cpu; around
# that window, cpu-clock samples of every CPU with their call chains (perf
# script: $OUT/TAG.perf.gz), which say what share of the busy CPU was the
# target's. The steps wait for each other rather than for fixed times: on
# a loaded host the guest gets a fraction of a CPU, and perf's set-up (it
# reads every task's maps and kallsyms) took longer than a whole fio job.
cpu_window() {
	local tag=$1 dev=$2 rw=$3 qd=$4 bstat=/sys/block/${2#/dev/}/stat c0 c1 s0 s1 t0 t1 perf_pid child='' rc
	perf record -q -a -g -e cpu-clock -F "$BT_PERF_HZ" -o /tmp/bt.perf.data -- sleep 3600 \
		>/tmp/bt.perf.out 2>&1 &
	perf_pid=$!
	# perf runs its command once its set-up is done: from then on it samples.
	while [ -z "$child" ]; do
		kill -0 "$perf_pid" 2>/dev/null || { cat /tmp/bt.perf.out; fail "perf record ($tag) ended before sampling"; }
		child=$(pgrep -x sleep -P "$perf_pid") || sleep 0.2
	done
	fio_steady "$tag" "$dev" "$rw" "$qd" $((BT_CPU_S + 6))
	# c: cpu user nice system idle iowait irq softirq steal ...; s: read
	# I/Os (0) and write I/Os (4) completed.
	read -r -a c0 </proc/stat; read -r -a s0 <"$bstat"; t0=$(date +%s.%N)
	sleep "$BT_CPU_S"
	read -r -a c1 </proc/stat; read -r -a s1 <"$bstat"; t1=$(date +%s.%N)
	# The window must be steady state throughout: a job that ended in it
	# leaves an idle tail in both counts.
	fio_running || fail "$tag: fio ended inside the counted window (the guest was starved of CPU)"
	# perf's command ends, and perf writes its data and exits with the
	# command's status: 143, terminated.
	kill "$child"
	wait "$perf_pid"; rc=$?
	case $rc in 0 | 143) ;; *) cat /tmp/bt.perf.out; fail "perf record ($tag) exited $rc" ;; esac
	fio_done "$tag"
	{
		echo "seconds $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
		echo "clk_tck $(getconf CLK_TCK)"
		echo "ncpu $(nproc)"
		echo "busy_ticks $(( (c1[1] + c1[2] + c1[3] + c1[6] + c1[7] + c1[8]) - (c0[1] + c0[2] + c0[3] + c0[6] + c0[7] + c0[8]) ))"
		echo "total_ticks $(( (c1[1] + c1[2] + c1[3] + c1[4] + c1[5] + c1[6] + c1[7] + c1[8]) - (c0[1] + c0[2] + c0[3] + c0[4] + c0[5] + c0[6] + c0[7] + c0[8]) ))"
		echo "ios $(( (s1[0] + s1[4]) - (s0[0] + s0[4]) ))"
		echo "perf_hz $BT_PERF_HZ"
	} >"$OUT/$tag.cpu"
	# The fields the host's parser reads; perf's default output has the
	# same header and frame lines, and is the second try.
	perf script -i /tmp/bt.perf.data -F comm,tid,cpu,time,ip,sym,dso 2>/tmp/bt.script.err |
		gzip -1 >"$OUT/$tag.perf.gz"
	# a sample's frames: indented lines, address first
	if ! zgrep -qE '^[[:space:]]+[0-9a-f]+ ' "$OUT/$tag.perf.gz"; then
		cat /tmp/bt.script.err
		perf script -i /tmp/bt.perf.data 2>/tmp/bt.script.err | gzip -1 >"$OUT/$tag.perf.gz"
		zgrep -qE '^[[:space:]]+[0-9a-f]+ ' "$OUT/$tag.perf.gz" ||
			{ cat /tmp/bt.script.err; fail "perf script ($tag) printed no call chain"; }
	fi
	rm -f /tmp/bt.perf.data
	echo "$tag: $(tr '\n' ' ' <"$OUT/$tag.cpu")"
}

# ---- the call census (BT_CENSUS=1; tests/vm/bench/call_census.py reads it) ----
# Kernel functions both drivers reach, directly or through rxe, LIO and the
# allocator: locks, softirq and work scheduling, wake-ups, allocations,
# rxe's posting and task runs, the CQ poll work, rdma_rw, LIO's command
# life, and the initiator's queuecommand and completions as anchors (one
# per I/O on both sides); and the port's channel lock (its glue's
# srpt_spin_lock_irqsave: the in-tree driver has no such function).
# Functions a kernel or driver does not have, or refuses a probe on, are
# named in the log and left out of that side's counts.
CENSUS_FUNCS="_raw_spin_lock _raw_spin_lock_irq _raw_spin_lock_irqsave
_raw_spin_unlock_irqrestore _raw_spin_lock_bh __local_bh_enable_ip
__tasklet_schedule queue_work_on __queue_work try_to_wake_up
__kmalloc kmalloc_trace __kmem_cache_alloc_node kmem_cache_alloc kfree
kmem_cache_free __alloc_pages __free_pages mempool_alloc mempool_free
ktime_get rxe_post_send rxe_post_recv rxe_poll_cq rxe_req_notify_cq
rxe_run_task rxe_do_task rxe_requester rxe_completer rxe_responder
rxe_xmit_packet rxe_rcv ib_cq_poll_work __ib_process_cq rdma_rw_ctx_init
rdma_rw_ctx_wrs rdma_rw_ctx_destroy target_init_cmd target_submit_prep
target_submit target_execute_cmd target_complete_cmd
transport_generic_free_cmd target_put_sess_cmd target_alloc_sgl
target_free_sgl srp_queuecommand srp_recv_done srp_send_done
srpt_spin_lock_irqsave srpt_rx_work srpt_glue_rx_cq_event srpt_kick_work
ib_cq_completion_workqueue process_one_work schedule"

# census_add: one kprobe event per function (group srptcensus), enabled;
# the ring buffer stays off: only kprobe_profile's hit counts are read.
census_add() {
	local f n=0
	echo 0 >$TR/tracing_on
	for f in $CENSUS_FUNCS; do
		if echo "p:srptcensus/c_$f $f" >>$TR/kprobe_events 2>/dev/null; then
			n=$((n + 1))
		else
			echo "census: no probe on $f: $(tail -1 $TR/error_log 2>/dev/null | sed 's/^ *//')"
		fi
	done
	[ "$n" -gt 0 ] || fail "census: no probe could be placed"
	echo 1 >$TR/events/srptcensus/enable || fail "enable the census probes"
	ok "census: $n probes"
}

census_del() {
	echo 0 >$TR/events/srptcensus/enable
	echo >$TR/kprobe_events || fail "census probes could not be removed"
}

# census_window TAG DEV RW QD: fio at QD; over BT_CENSUS_S seconds of its
# steady state, the I/Os the initiator's disk completed and each census
# probe's hits (kprobe_profile: event, hits, misses), in $OUT/TAG.census.
census_window() {
	local tag=$1 dev=$2 rw=$3 qd=$4 bstat=/sys/block/${2#/dev/}/stat s0 s1
	fio_steady "$tag" "$dev" "$rw" "$qd" $((BT_CENSUS_S + 8))
	read -r -a s0 <"$bstat"
	awk '$1 ~ /^c_/ {print $1, $2}' $TR/kprobe_profile | sort >/tmp/census.0
	sleep "$BT_CENSUS_S"
	read -r -a s1 <"$bstat"
	awk '$1 ~ /^c_/ {print $1, $2}' $TR/kprobe_profile | sort >/tmp/census.1
	fio_running || fail "$tag: fio ended inside the census window"
	fio_done "$tag"
	{
		echo "ios $(( (s1[0] + s1[4]) - (s0[0] + s0[4]) ))"
		join /tmp/census.0 /tmp/census.1 | awk '{print $1, $3 - $2}'
	} >"$OUT/$tag.census"
	echo "$tag: census over $(head -1 "$OUT/$tag.census")"
}

# ---- the driver's cost (BT_COST=1; tests/vm/bench/driver_cost.py reads it) ----
# What the target driver's own calls cost per I/O, timed rather than
# sampled: function_graph on the driver's roots (depth 1; __do_softirq at
# depth 2 measures the softirqs run inside them), the
# functions of the ib_srpt module that are entered from outside it (its
# CQ callbacks, LIO's fabric callbacks, its work items). Each root call's
# duration is everything that runs inside it: the driver's own code, and
# what it calls in LIO, rxe and the allocator, with interrupts off or on.
# Under the instruction clock a duration is a count of instructions.
# Only the roots are hooked: a traced function nested in a root would add
# the tracer's own entry to the root's duration (the port's core calls its
# glue's C functions dozens of times per I/O), so a discovery pass with the
# whole module hooked finds, per job, the functions entered at depth 1.

# graph_options WHAT: function_graph's output as cost_graph and
# driver_callees.py read it: CPU, duration and the name at each closing
# brace; time scheduled out left out.
graph_options() {
	echo 0 >$TR/options/sleep-time 2>/dev/null || fail "$1: option sleep-time"
	local o
	for o in funcgraph-proc funcgraph-abstime; do echo 0 >$TR/options/$o; done
	for o in funcgraph-duration funcgraph-tail funcgraph-cpu; do echo 1 >$TR/options/$o; done
}

# traced_span TAG WHAT SECONDS BSTAT: tracing on for SECONDS; the
# initiator disk's counters (BSTAT) before and after in SPAN0 and SPAN1;
# fails if the job's fio ended meanwhile.
traced_span() {
	read -r -a SPAN0 <"$4"
	echo 1 >$TR/tracing_on
	sleep "$3"
	echo 0 >$TR/tracing_on
	read -r -a SPAN1 <"$4"
	fio_running || fail "$1: fio ended inside the $2 window"
}

# cost_setup: function_graph on the module, depth 1 (the discovery's; set
# before the tracer starts, so that it never hooks every kernel function),
# time spent scheduled out left out.
cost_setup() {
	echo 0 >$TR/tracing_on
	echo nop >$TR/current_tracer
	echo 1 >$TR/max_graph_depth || fail "cost: max_graph_depth"
	graph_options cost
	echo ':mod:ib_srpt' >$TR/set_ftrace_filter || fail "cost: no ftrace filter on ib_srpt's functions"
	echo function_graph >$TR/current_tracer || fail "cost: no function_graph tracer"
	ok "cost: function_graph on ib_srpt ($(wc -l <$TR/set_ftrace_filter) traceable functions)"
}

cost_del() {
	echo 0 >$TR/tracing_on
	echo nop >$TR/current_tracer
	echo >$TR/set_ftrace_filter
	echo 0 >$TR/max_graph_depth
	echo >$TR/trace
}

# cost_graph FILE: the ring buffer's completed calls at depth 1 as 'root
# NAME MICROSECONDS' lines (a leaf 'f();' or, when something was traced
# inside, the closing '} /* f */'), and each softirq loop run inside one
# (__do_softirq or handle_softirqs, the outermost when both show) as
# 'softirq ROOT MICROSECONDS'; then the buffer cleared. The
# per-CPU overruns are printed on stdout. Depth comes from the graph's
# indentation: two spaces after the '|' at depth 1, two more per level.
cost_graph() {
	grep -h '^overrun' $TR/per_cpu/cpu*/stats | awk '{s += $2} END {print s + 0}'
	awk -F'|' 'NF >= 2 {
		f = $2; match(f, /^ */); dep = RLENGTH > 2 ? 2 : 1
		sub(/^ +/, "", f); sub(/ +$/, "", f)
		if (f ~ /\(\) \{$/) {
			if (dep == 1) { cur = f; sub(/\(\) \{$/, "", cur); sub(/ \[ib_srpt\]$/, "", cur); soft = 0 }
			else if (f ~ /^(__do_softirq|handle_softirqs)\(\) \{$/) soft++
			next
		}
		d = ""; if (match($1, /[0-9]+(\.[0-9]+)? us/)) d = substr($1, RSTART, RLENGTH - 3)
		if (d == "") next
		closing = 0
		if (f ~ /\(\);$/) sub(/\(\);$/, "", f)
		else if (f ~ /^} \/\* .* \*\/$/) { sub(/^} \/\* /, "", f); sub(/ \*\/$/, "", f); closing = 1 }
		else next
		sub(/ \[ib_srpt\]$/, "", f)
		if (dep == 1) {
			if (f != "__do_softirq" && f != "handle_softirqs") print "root", f, d
			cur = ""
		} else if (f == "__do_softirq" || f == "handle_softirqs") {
			# only the outermost: __do_softirq wraps handle_softirqs
			if (closing && soft > 0) soft--
			if (cur != "" && soft == 0) print "softirq", cur, d
		}
	}' $TR/trace >"$1"
	echo >$TR/trace
}

# cost_window TAG DEV RW QD: fio at QD; 0.5 s with the whole module hooked
# finds the roots, then BT_COST_S seconds with only those hooked, and the
# softirq loop (the softirqs that ran inside a root: rxe's work at a
# bottom-half enable, or on an interrupt's exit when a root turns
# interrupts back on): per root, its calls, their total duration and the
# softirq time inside them, and the I/Os the initiator's disk completed,
# in $OUT/TAG.cost ('ios N', 'overrun N', 'root NAME CALLS US', 'softirq
# NAME US'). The loop is handle_softirqs where the kernel has it (6.1.90
# and later: __do_softirq only wraps it for the interrupt exit, and
# local_bh_enable reaches it without __do_softirq), __do_softirq before.
# Hooked functions count for the depth: a softirq shows at depth 2 under
# its root, or at depth 3 inside a root nested in another (a LIO callback
# inside a CQ callback), which max_graph_depth 3 keeps.
cost_window() {
	local tag=$1 dev=$2 rw=$3 qd=$4 bstat=/sys/block/${2#/dev/}/stat roots over
	# fio's runtime covers the discovery's graph and the filter changes
	# too: under icount they took the guest 10-40 s of its clock (the
	# port's module, hooked whole at QD32, the most).
	fio_steady "$tag" "$dev" "$rw" "$qd" $((BT_COST_S + 60))
	echo 1 >$TR/max_graph_depth
	echo ':mod:ib_srpt' >$TR/set_ftrace_filter
	echo >$TR/trace
	echo 1 >$TR/tracing_on
	sleep 0.5
	echo 0 >$TR/tracing_on
	cost_graph /tmp/cost.discover >/dev/null
	roots=$(awk '$1 == "root" {print $2}' /tmp/cost.discover | sort -u)
	[ -n "$roots" ] || { fio_done "$tag"; fail "$tag: cost: no call into ib_srpt in 0.5 s"; }
	printf '%s:mod:ib_srpt\n' $roots >$TR/set_ftrace_filter ||
		fail "$tag: cost: roots not accepted as a filter: $roots"
	echo __do_softirq >>$TR/set_ftrace_filter || fail "$tag: cost: no ftrace filter on __do_softirq"
	if grep -qx 'handle_softirqs' $TR/available_filter_functions; then
		echo handle_softirqs >>$TR/set_ftrace_filter || fail "$tag: cost: no ftrace filter on handle_softirqs"
	fi
	echo 3 >$TR/max_graph_depth
	traced_span "$tag" cost "$BT_COST_S" "$bstat"
	over=$(cost_graph /tmp/cost.graph)
	fio_done "$tag"
	{
		echo "ios $(( (SPAN1[0] + SPAN1[4]) - (SPAN0[0] + SPAN0[4]) ))"
		echo "overrun $over"
		awk '$1 == "root" {n[$2]++; t[$2] += $3} $1 == "softirq" {q[$2] += $3}
			END {
				for (f in n) printf "root %s %d %.3f\n", f, n[f], t[f]
				for (f in q) printf "softirq %s %.3f\n", f, q[f]
			}' /tmp/cost.graph | sort
	} >"$OUT/$tag.cost"
	echo "$tag: cost over $(head -1 "$OUT/$tag.cost"), $(grep -c '^root' "$OUT/$tag.cost") roots, $over events overrun"
}

# ---- where the roots' time goes (BT_CALLEES=1; driver_callees.py) ----
# Each QD1 job once more, with the roots its cost window found as graph
# functions and every kernel function beneath them hooked, at any depth,
# over BT_CALLEES_S seconds: the raw graph goes to $OUT/TAG.callees.gz,
# 'ios N' and 'overrun N' to $OUT/TAG.callees. Interrupts taken inside a
# root are not traced (their time lands in the function they
# interrupted). Every hooked call adds the tracer's entry and exit to its
# callers' durations: the host estimates that cost from the same job's
# cost window (the roots alone) and takes it out (driver_callees.py).
callee_window() {
	local tag=$1 dev=$2 rw=$3 qd=$4 bstat=/sys/block/${2#/dev/}/stat roots over
	[ "$qd" = 1 ] || return 0
	roots=$(awk '$1 == "root" {print $2}' "$OUT/$tag.cost")
	[ -n "$roots" ] || fail "$tag: callees: no roots in $tag.cost (BT_COST=1 first)"
	fio_steady "$tag-callees" "$dev" "$rw" "$qd" $((BT_CALLEES_S + 90))
	echo 0 >$TR/tracing_on
	echo nop >$TR/current_tracer
	echo 0 >$TR/max_graph_depth
	echo >$TR/set_ftrace_filter
	printf '%s\n' $roots >$TR/set_graph_function || fail "$tag: callees: roots not accepted as graph functions: $roots"
	echo 0 >$TR/options/funcgraph-irqs || fail "$tag: callees: option funcgraph-irqs"
	graph_options "$tag: callees"
	echo function_graph >$TR/current_tracer || fail "$tag: callees: no function_graph tracer"
	echo >$TR/trace
	traced_span "$tag" callee "$BT_CALLEES_S" "$bstat"
	over=$(grep -h '^overrun' $TR/per_cpu/cpu*/stats | awk '{s += $2} END {print s + 0}')
	# (a pipe: tracefs files report a size that changes while read)
	cat $TR/trace | gzip -1 >"$OUT/$tag.callees.gz"
	echo nop >$TR/current_tracer
	echo >$TR/set_graph_function
	echo 1 >$TR/options/funcgraph-irqs
	echo >$TR/trace
	fio_done "$tag-callees"
	printf 'ios %d\noverrun %d\n' $(((SPAN1[0] + SPAN1[4]) - (SPAN0[0] + SPAN0[4]))) "$over" >"$OUT/$tag.callees"
	echo "$tag: callees over $(head -1 "$OUT/$tag.callees"), $over events overrun, $(stat -c %s "$OUT/$tag.callees.gz") bytes of graph"
}
