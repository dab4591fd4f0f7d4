#!/bin/bash
# Scenario bench-trace: where the time and the CPU of one command go, A
# (in-tree ib_srpt) then B ($BENCH_B: the port, or in-tree again) in one
# boot, on the bench's two LUNs (rd_mcp LUN 0, iblock on null_blk LUN 1).
# Per side and LUN: 4k randread and randwrite at QD1 with kprobe events on
# every stage of a command (trace_window), then each at QD1 and QD32 with
# the guest's CPU time, the I/O count and cpu-clock call chains
# (cpu_window); with BT_CENSUS=1, before those, how often a set of kernel
# functions runs per I/O (census_window: kprobe hit counts); with
# BT_COST=1, then, how long the driver's root calls take per I/O
# (cost_window: function_graph); with BT_CALLEES=1 too, every function
# beneath those calls at QD1 (callee_window). The windows are taken apart: the probes'
# own cost would count as CPU time. Reduced on the host by
# tests/vm/bench/bench-breakdown.py (with call_census.py and driver_cost.py).
. /srpt/lib.sh
. /srpt/bench-lib.sh
. /srpt/trace-lib.sh
B=${BENCH_B:-port}
RD_MB=${BENCH_RD_MB:-256}

setup_veth_rxe
HCA=rxe1
TGT_PORT=$(gid_hex $HCA)
INI_ID=$(gid_hex $HCA)
echo "bench-trace: A=intree B=$B trace ${BT_TRACE_S}s cpu ${BT_CPU_S}s perf ${BT_PERF_HZ} Hz rd_mcp ${RD_MB}M"
echo "A=intree B=$B TRACE_S=$BT_TRACE_S CPU_S=$BT_CPU_S PERF_HZ=$BT_PERF_HZ CENSUS=${BT_CENSUS:-0} CENSUS_S=$BT_CENSUS_S COST=${BT_COST:-0} COST_S=$BT_COST_S CALLEES=${BT_CALLEES:-0} CALLEES_S=${BT_CALLEES_S:-1} JOBS='${BT_JOBS:-}' KERNEL=$(uname -r)" >"$OUT/bench-trace-config.txt"
[ -n "${BT_JOBS:-}" ] || fail "BT_JOBS is empty (bench-trace.sh passes the jobs to run)"

modprobe -a ib_cm rdma_cm target_core_mod || fail "modprobe target deps"
modprobe -a sd_mod sg || fail "modprobe sd_mod sg"
trace_setup
bench_backstores

# side_symbols SIDE DRV: the loaded ib_srpt is the driver the side measures
# by its own symbols too (the port's C++ core, the in-tree IU handler), so
# that a kallsyms snapshot and a set of probes can never be the other's.
side_symbols() {
	local f=$OUT/$1-kallsyms.gz want=srpt_handle_new_iu
	[ "$2" = port ] && want=srpt_core_dp_recv_done
	zgrep -qE " $want\s+\[ib_srpt\]" "$f" || fail "side $1 ($2): no $want in ib_srpt's kallsyms"
}

# job_wanted JOB: JOB (<lun>-<rw>-qd<N>) is one of BT_JOBS (the host
# checked them against tests/vm/bench/trace_jobs.py and passes all 8 by default).
job_wanted() {
	[[ " ${BT_JOBS:-} " == *" $1 "* ]]
}

# each_job WINDOW: WINDOW TAG DEV RW QD for the side's jobs of BT_JOBS,
# of 8: both LUNs, 4k randread and randwrite, QD1 and QD32 (the host's
# reports read the same matrix from tests/vm/bench/trace_jobs.py).
each_job() {
	local lun l dev rw qd
	for lun in rd:$DEV_LUN0 nb:$DEV_LUN1; do
		l=${lun%%:*} dev=${lun#*:}
		for rw in randread randwrite; do
			for qd in 1 32; do
				job_wanted "$l-$rw-qd$qd" || continue
				"$1" "$side-$l-$rw-qd$qd" "$dev" "$rw" "$qd"
			done
		done
	done
}

LOGIN="id_ext=%s,ioc_guid=%s,initiator_ext=${INI_ID:0:16},dest=$TGT_IP4:$RDMA_CM_PORT"
for side in A B; do
	drv=intree; [ $side = B ] && drv=$B
	step "side $side ($drv)"
	load_srpt "$drv"
	attach_side
	GUID=$(srpt_guid rxe0)
	# shellcheck disable=SC2059
	srp_login $HCA "$(printf "$LOGIN" "$GUID" "$GUID")" 2 >/dev/null || fail "login ($drv): $LOGIN_ERR"
	check_side_taint "$side" "$drv"
	echo "$drv" >"$OUT/$side-driver.txt"
	kallsyms_snapshot "$OUT/$side-kallsyms.gz"
	side_symbols "$side" "$drv"
	echo "$side $drv: rd_mcp $DEV_LUN0, iblock $DEV_LUN1, $(cat "/sys/class/scsi_host/$SRP_HOST/ch_count") channels"

	# BT_STAGES=0: the CPU windows only (bench-trace.sh says when).
	if [ "${BT_STAGES:-1}" = 1 ]; then
		step "side $side ($drv): QD1 stages (kprobe events)"
		probes_add "$drv" "$OUT/$side-probes.txt"
		for lun in rd:$DEV_LUN0 nb:$DEV_LUN1; do
			l=${lun%%:*} dev=${lun#*:}
			for rw in randread randwrite; do
				job_wanted "$l-$rw-qd1" || continue
				trace_window "$side-$l-$rw-stages" "$dev" $rw
			done
		done
		probes_del
	fi

	# BT_CENSUS=1: calls per I/O of the census functions (kprobe hits).
	if [ "${BT_CENSUS:-0}" = 1 ]; then
		step "side $side ($drv): call census (kprobe hit counts)"
		census_add
		each_job census_window
		census_del
	fi

	# BT_COST=1: the duration of the driver's root calls (function_graph).
	if [ "${BT_COST:-0}" = 1 ]; then
		step "side $side ($drv): the driver's cost (function_graph on its roots)"
		cost_setup
		each_job cost_window
		cost_del
	fi

	# BT_CALLEES=1: where the roots' time goes, QD1 jobs (function_graph
	# beneath the roots the cost windows found).
	if [ "${BT_CALLEES:-0}" = 1 ]; then
		step "side $side ($drv): the roots' callees (function_graph beneath them)"
		each_job callee_window
		cost_del
	fi

	step "side $side ($drv): CPU per I/O (no probes)"
	each_job cpu_window
	srp_logout >/dev/null
	wait_target_idle 30 >/dev/null
	detach_side
done
targetcli clearconfig confirm=True >/dev/null 2>&1
check_dmesg
echo "bench-trace: done"
