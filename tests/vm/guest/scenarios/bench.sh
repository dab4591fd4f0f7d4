#!/bin/bash
# Scenario bench: in one boot, alternate A (in-tree ib_srpt) and B ($BENCH_B:
# the port, or in-tree again) for $BENCH_ROUNDS rounds on the same two LUNs,
# rd_mcp (LUN 0) and iblock on a memory-backed null_blk (LUN 1) (the
# backstores stay; only the fabric module and its target are swapped), fio
# per round, side and LUN; then, per round, the raw rxe figures over
# RDMA/CM on the path the SRP login takes (rxe1 dialling $TGT_IP4): the
# ceiling for 128 KiB reads and the floor of a QD1 4k read (srp_pattern_bw.ko,
# SRP's READ pattern in the kernel), and perftest's 128 KiB RDMA WRITE and
# the latencies of a QD1 4k read's three transfers beside them (raw_rxe
# below says which flags and why).
# Results: JSON and text files in $OUT, reduced on the host by bench-report.py.
. /srpt/lib.sh
. /srpt/bench-lib.sh
ROUNDS=${BENCH_ROUNDS:-7}
RT=${BENCH_RUNTIME:-8}
B=${BENCH_B:-intree}
RD_MB=${BENCH_RD_MB:-256}

setup_veth_rxe
HCA=rxe1
TGT_PORT=$(gid_hex $HCA)
INI_ID=$(gid_hex $HCA)
echo "bench: A=intree B=$B rounds=$ROUNDS fio runtime=${RT}s (+2s ramp) rd_mcp ${RD_MB}M perftest ${BENCH_PERFTEST:-1}"
echo "A=intree B=$B ROUNDS=$ROUNDS RUNTIME=$RT PERFTEST=${BENCH_PERFTEST:-1} CPUS=$(nproc)" >"$OUT/bench-config.txt"

modprobe -a ib_cm rdma_cm target_core_mod || fail "modprobe target deps"
modprobe -a sd_mod sg || fail "modprobe sd_mod sg"
reserve_fio_hugepages
bench_backstores

# fio_job TAG DEV fio-args...: one fio job, its JSON in $OUT/TAG.json and
# the guest's CPU counters around it in $OUT/TAG.cpu (the aggregate 'cpu'
# line of /proc/stat before and after, and the CPU count): bench-report.py
# turns them into the guest's CPU time per I/O. The initiator side (fio,
# the block layer, ib_srp) is the same on A and B, so B/A of that figure
# moves with the target's CPU per I/O (and rxe's work on its behalf).
# DEV's /sys/block stat before and after goes to $OUT/TAG.disk: the
# requests and sectors the SRP disk completed, from which bench-report.py
# takes the mean request (how many SCSI commands a job's I/Os became).
# fio's buffers are huge pages (--iomem=shmhuge, reserve_fio_hugepages):
# each 128 KiB buffer is one physically contiguous segment, so no read is
# split for want of segments, whatever memory the guest had left in that
# boot; with the disk's merging off (srp_disk_prepare) every fio I/O is
# one SCSI command on A and on B.
fio_job() {
	local tag=$1 dev=$2 cpu0 cpu1 disk0 disk1 stat; shift 2
	stat=/sys/block/${dev#/dev/}/stat
	[ -r "$stat" ] || fail "fio $tag: no $stat"
	cpu0=$(head -n1 /proc/stat)
	disk0=$(cat "$stat")
	fio --name="$tag" --filename="$dev" --direct=1 --ioengine=libaio --size=${RD_MB}M --iomem=shmhuge \
		--time_based --runtime="$RT" --ramp_time=2 --group_reporting --lat_percentiles=1 \
		--output-format=json --output="$OUT/$tag.json" "$@" >/dev/null 2>&1 ||
		fail "fio $tag failed"
	cpu1=$(head -n1 /proc/stat)
	disk1=$(cat "$stat")
	cpu_counters "$OUT/$tag.cpu" "$cpu0" "$cpu1"
	printf 'before %s\nafter %s\n' "$disk0" "$disk1" >"$OUT/$tag.disk"
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]
r=j["read"]; w=j["write"]; e=j["error"]
print("%-34s read %8.0f IOPS %7.1f MiB/s  write %8.0f IOPS  err=%d" % (sys.argv[2], r["iops"], r["bw"]/1024, w["iops"], e))
sys.exit(1 if e else 0)' "$OUT/$tag.json" "$tag" || fail "fio $tag reported an error"
}

# perftest_pair TAG TOOL ARGS...: TOOL's server on $HCA first, then its
# client on $HCA dialling $TGT_IP4, both with ARGS (perftest wants the same
# test flags on both sides). $TGT_IP4 is the address the SRP login dials:
# the traffic takes the SRP data's path, rxe1 loopback. The client's report
# goes to $OUT/TAG.txt, the server's to $OUT/TAG.server.txt. A server that
# dies before its client starts, a client that fails or times out, a server
# that exits non-zero, or a report without its '#bytes' result line fails
# the bench with the tools' output.
perftest_pair() {
	local tag=$1 tool=$2; shift 2
	local cli_out=$OUT/$tag.txt srv_out=$OUT/$tag.server.txt srv_pid rc cmd
	cmd="$tool -d $HCA $* (server), $tool -d $HCA $* $TGT_IP4 (client)"
	grep -qxF "$cmd" "$OUT/raw-commands.txt" 2>/dev/null || echo "$cmd" >>"$OUT/raw-commands.txt"
	timeout 150 "$tool" -d "$HCA" "$@" >"$srv_out" 2>&1 &
	srv_pid=$!
	# The client connects once the server listens; under TCG its start-up
	# (device open, buffer registration) takes a moment.
	sleep 2
	if ! kill -0 "$srv_pid" 2>/dev/null; then
		wait "$srv_pid"; rc=$?
		echo "---- $tool server ($tag):"; cat "$srv_out"
		fail "$tool server ($tag) exited with $rc before its client started"
	fi
	timeout 120 "$tool" -d "$HCA" "$@" "$TGT_IP4" >"$cli_out" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "---- $tool client ($tag):"; cat "$cli_out"
		kill "$srv_pid" 2>/dev/null; wait "$srv_pid" 2>/dev/null
		echo "---- $tool server ($tag):"; cat "$srv_out"
		fail "$tool client ($tag) exited with $rc$([ "$rc" = 124 ] && echo ' (timeout 120 s)')"
	fi
	wait "$srv_pid"; rc=$?
	if [ "$rc" != 0 ]; then
		echo "---- $tool server ($tag):"; cat "$srv_out"
		fail "$tool server ($tag) exited with $rc after its client finished"
	fi
	grep -A1 '#bytes' "$cli_out" || { cat "$cli_out"; fail "$tool ($tag): no '#bytes' result line in its report"; }
}

# raw_rxe ROUND SRP_CHANNELS: what rxe1 loopback gives without SRP, read by
# bench-report.py next to the SRP figures.
# - The ceiling for 128k reads (SRP: a 64-byte SRP_CMD SEND, the target's
#   RDMA WRITE of the command's 128 KiB and its SRP_RSP SEND, 32 commands
#   outstanding over SRP_CHANNELS RC channels): srp_pattern_bw.ko does
#   exactly that in the kernel and nothing else (pattern_bw_ceiling,
#   bench-lib.sh), 2 x SRP_CHANNELS connections of 32 commands each, once
#   with both sides' CQs polled from the unbound workqueue and once as
#   ib_srp and ib_srpt poll theirs; the higher is the ceiling. On 6.1 the
#   unbound run wins: rxe runs each transfer's packet work in tasklets on
#   the CPU that posted it, so with bound pollers the whole pipeline stays
#   on one vCPU (55 MiB/s, 1.00 CPUs busy) where unbound ones keep both busy
#   (about 100 MiB/s, 1.9 CPUs; docs/results/2026-12-05-pattern-bw-ceiling.md). 6.12's rxe
#   runs that work from its own workqueue, and there the bound run kept
#   1.9 CPUs busy on its own. The most the link moves for this pattern
#   when nothing else runs: SRP's 128k read must stay below it.
# - Beside it, perftest's ceiling of the bench before srp_pattern_bw
#   (user space, polling: it measured how its client and server share the
#   two vCPUs with rxe, and SRP went faster): ib_write_bw 128 KiB in
#   duration mode (-D 10: 2 s warm-up and 2 s
#   wind-down margins excluded, 6 s measured, so connection set-up and the
#   first writes do not count; perftest computes no BW peak in this mode,
#   the report reads BW average). -q = 2 x SRP_CHANNELS QPs: rxe keeps at
#   most 128 packets unacknowledged per QP (RXE_MAX_UNACKED_PSNS), one
#   128 KiB write at the 1024-byte IB MTU rxe derives from veth's 1500, so
#   each SRP channel is one such window and perftest gets twice as many.
#   -t 32 per QP: each QP alone has as many writes queued as SRP's whole
#   QD32. -Q 1: every write signalled, so a send slot frees as each write
#   completes instead of once per batch.
# - The floor of one QD1 4k read (SRP: SRP_CMD SEND, 4 KiB RDMA WRITE,
#   SRP_RSP SEND, one command outstanding): srp_pattern_bw with one
#   connection of depth 1 and 4 KiB, polled as ib_srp and ib_srpt poll
#   theirs; the median of its round trips (command posted to response
#   received) is the floor that the QD1 p50 of fio's 4k reads is set
#   against.
# - Beside it, perftest's floor of the bench before srp_pattern_lat:
#   ib_write_lat 4 KiB and ib_send_lat 64 B (an SRP_CMD with one direct
#   descriptor is 64 bytes, SRP_RSP without sense 36), 2000 ping-pongs
#   each (latency tests count iterations; in duration mode they report
#   only an average); write + 2 x send, typical (median) one-way
#   latencies of user-space polling.
# BENCH_PERFTEST=0 (bench.sh under icount): srp_pattern_bw only. One vCPU,
# on which perftest's polling client and server and rxe take turns per
# scheduler tick.
raw_rxe() {
	local r=$1 qps=$(( 2 * $2 ))
	pattern_bw_ceiling "r$r-srp_pattern_bw" "$qps" 32 131072
	pattern_bw "r$r-srp_pattern_lat" 1 1 4096
	[ "${BENCH_PERFTEST:-1}" = 1 ] || return 0
	perftest_pair "r$r-ib_write_bw" ib_write_bw -R -F -s 131072 -q "$qps" -t 32 -Q 1 -D 10
	perftest_pair "r$r-ib_write_lat" ib_write_lat -R -F -s 4096 -n 2000
	perftest_pair "r$r-ib_send_lat" ib_send_lat -R -F -s 64 -n 2000
}

LOGIN="id_ext=%s,ioc_guid=%s,initiator_ext=${INI_ID:0:16},dest=$TGT_IP4:$RDMA_CM_PORT"
for r in $(seq 1 "$ROUNDS"); do
	# Odd rounds run A first, even rounds B first: whatever the second
	# side of a round gains or loses from coming second (warm caches, the
	# guest settling, drift within the round) falls on A and B alike. An
	# A/A run with A always first (3 Dec 2026) had the second side ahead
	# on 5 of 6 throughput rows, paired 1.01-1.14.
	order="A B"
	[ $((r % 2)) -eq 0 ] && order="B A"
	for side in $order; do
		drv=intree; [ $side = B ] && drv=$B
		step "round $r side $side ($drv)"
		load_srpt "$drv" # SRPT=intree: the in-tree driver by modprobe, the port by path
		attach_side
		GUID=$(srpt_guid rxe0)
		# shellcheck disable=SC2059
		srp_login $HCA "$(printf "$LOGIN" "$GUID" "$GUID")" 2 >/dev/null || fail "login ($drv): $LOGIN_ERR"
		# The initiator's parameters as loaded (bench-report.py prints
		# them): use_imm_data decides how a 4k write's data travels.
		[ -s "$OUT/initiator.txt" ] || for p in use_imm_data max_imm_data; do
			printf 'ib_srp.%s=%s ' "$p" "$(cat "/sys/module/ib_srp/parameters/$p")"
		done >"$OUT/initiator.txt"
		# How many RC channels ib_srp spread the I/O over (its default:
		# one per CPU up to the HCA's completion vectors): the raw
		# ceiling below uses twice as many QPs.
		SRP_CH=$(cat "/sys/class/scsi_host/$SRP_HOST/ch_count" 2>/dev/null)
		case $SRP_CH in
		'' | *[!0-9]* | 0) fail "side $side ($drv): no channel count in /sys/class/scsi_host/$SRP_HOST/ch_count ('$SRP_CH')";;
		esac
		echo "$SRP_CH" >"$OUT/r$r-$side-srp_ch_count.txt"
		# The side measures the driver it names (taint O: the port).
		check_side_taint "$side" "$drv"
		echo "$side $drv: rd_mcp $DEV_LUN0, iblock $DEV_LUN1, $SRP_CH channels (ib_srpt taint '$SIDE_TAINT')"
		for lun in rd:$DEV_LUN0 nb:$DEV_LUN1; do
			l=${lun%%:*} dev=${lun#*:}
			srp_disk_prepare "$dev" "$OUT/r$r-$side-$l-queue.txt"
			fio_job "r$r-$side-$l-randread4k-qd32" "$dev" --rw=randread --bs=4k --iodepth=32
			fio_job "r$r-$side-$l-randwrite4k-qd32" "$dev" --rw=randwrite --bs=4k --iodepth=32
			fio_job "r$r-$side-$l-seqread128k-qd32" "$dev" --rw=read --bs=128k --iodepth=32
			fio_job "r$r-$side-$l-randread4k-qd1" "$dev" --rw=randread --bs=4k --iodepth=1
		done
		srp_logout >/dev/null
		wait_target_idle 30 >/dev/null
		detach_side
	done
	step "round $r raw rxe: srp_pattern_bw$([ "${BENCH_PERFTEST:-1}" = 1 ] && echo ' and perftest') over RDMA/CM on the SRP login's path ($HCA -> $TGT_IP4)"
	raw_rxe "$r" "$SRP_CH"
done
targetcli clearconfig confirm=True >/dev/null 2>&1
check_dmesg
echo "bench: done"
