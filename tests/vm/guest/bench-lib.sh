# The A/B bench scenarios' shared set-up (bench.sh, bench-trace.sh): both
# drivers, taken in turn, see the same backstores, the same target and the
# same login, so that what differs between sides A and B is the driver.
# Sourced after /srpt/lib.sh; setup_veth_rxe has run; TGT_PORT and INI_ID
# are set. RD_MB: size of both backing stores in MiB.
# shellcheck shell=bash

# bench_backstores: rd_mcp rd0 (LUN 0 of every side) and iblock nb0 on a
# memory-backed null_blk (LUN 1). Created once per boot: only the fabric
# module and its target are swapped between sides.
bench_backstores() {
	step "shared backstores: rd_mcp (${RD_MB}M) and iblock on a memory-backed null_blk"
	targetcli /backstores/ramdisk create name=rd0 size=${RD_MB}M >/dev/null 2>&1
	[ -n "$(ls -d $CFG/core/rd_mcp_*/rd0 2>/dev/null)" ] || fail "no rd_mcp backstore"
	load_nullb
	# Every page the jobs touch exists: reads of a page never written would
	# take null_blk's shortcut (zero fill) instead of a copy.
	dd if=/dev/zero of=/dev/nullb0 bs=1M count="$RD_MB" oflag=direct status=none || fail "prefill nullb0"
	targetcli /backstores/block create name=nb0 dev=/dev/nullb0 >/dev/null 2>&1
	[ -n "$(ls -d $CFG/core/iblock_*/nb0 2>/dev/null)" ] || fail "no iblock backstore"
	ok "rd0 (LUN 0) and nb0 (LUN 1) created"
}

# attach_side: the srpt target on rxe1's port with both LUNs and the
# initiator's ACL, listening for RDMA/CM logins (the loaded ib_srpt's).
attach_side() {
	targetcli >/tmp/tc.out 2>&1 <<TC
set global auto_cd_after_create=false
/srpt create ib.$TGT_PORT
/srpt/ib.$TGT_PORT/luns create /backstores/ramdisk/rd0
/srpt/ib.$TGT_PORT/luns create /backstores/block/nb0
/srpt/ib.$TGT_PORT/acls create ib.$INI_ID
exit
TC
	[ -d $SRPT_CFG/0x$TGT_PORT/tpgt_1/acls/0x$INI_ID/lun_1 ] || { cat /tmp/tc.out; fail "targetcli attach"; }
	echo $RDMA_CM_PORT >$SRPT_CFG/discovery_auth/rdma_cm_port || fail "rdma_cm_port"
}

# detach_side: the target deleted and ib_srpt unloaded, so that the other
# driver can be loaded next (the backstores stay).
detach_side() {
	echo 0 >$SRPT_CFG/discovery_auth/rdma_cm_port
	targetcli /srpt delete ib.$TGT_PORT >/dev/null 2>&1
	[ ! -d $SRPT_CFG/0x$TGT_PORT ] || fail "srpt target still present after delete"
	rmdir $SRPT_CFG || fail "rmdir $SRPT_CFG"
	local i
	for i in $(seq 1 20); do rmmod ib_srpt 2>/dev/null && break; sleep 0.5; done
	[ ! -d /sys/module/ib_srpt ] || fail "rmmod ib_srpt"
}

# check_side_taint SIDE DRV: the loaded ib_srpt is the driver the side
# names: the port is an out-of-tree module (taint O), the in-tree one is not.
check_side_taint() {
	local side=$1 drv=$2 taint
	taint=$(cat /sys/module/ib_srpt/taint)
	case $drv:$taint in
	port:*O*|intree:) ;;
	*) fail "side $side ($drv): loaded ib_srpt has taint '$taint'";;
	esac
	SIDE_TAINT=$taint
}

# reserve_fio_hugepages: huge pages for fio's buffers (fio_job's
# --iomem=shmhuge), reserved before the backstores fill the guest's
# memory. fio takes one System V segment of iodepth x block size, rounded
# up to whole huge pages: 4 MiB for the 128k QD32 job, so 2-3 pages; 8
# leave room. Fewer than 4 reserved (a fragmented guest) fails the bench:
# without them the 128k job's command stream would again depend on the
# boot (in the first run with the disk's counters, 5 Dec 2026, the same
# fio reads reached in-tree merged into 210-332 KiB requests and the port
# split into 67-68 KiB ones).
reserve_fio_hugepages() {
	local n
	echo 8 >/proc/sys/vm/nr_hugepages || fail "cannot reserve huge pages (vm.nr_hugepages)"
	n=$(awk '/^HugePages_Total:/ {print $2}' /proc/meminfo)
	[ "${n:-0}" -ge 4 ] || fail "only ${n:-0} huge pages reserved for fio's buffers (want 8, at least 4)"
	echo "fio buffers: $n huge pages of $(awk '/^Hugepagesize:/ {print $2 $3}' /proc/meminfo)"
}

# srp_disk_prepare DEV FILE: the SRP disk as the bench measures it: its
# block layer does not merge requests (nomerges=2), so that each fio I/O
# is one SCSI command whichever target answers; its queue limits (what
# would split a request) go to FILE.
srp_disk_prepare() {
	local dev=$1 file=$2 q=/sys/block/${1#/dev/}/queue k
	[ -d "$q" ] || fail "no $q"
	echo 2 >"$q/nomerges" || fail "cannot turn merging off on $dev ($q/nomerges)"
	for k in nomerges max_sectors_kb max_hw_sectors_kb max_segments max_segment_size nr_requests; do
		printf '%s %s\n' "$k" "$(cat "$q/$k")"
	done >"$file"
	echo "$dev: $(tr '\n' ' ' <"$file")"
}

# cpu_counters FILE BEFORE AFTER: the guest's CPU counters around a
# measurement into FILE (TAG.cpu): the CPU count and the aggregate 'cpu'
# line of /proc/stat (read with `head -n1 /proc/stat`) before and after it.
# bench-report.py turns them into busy CPUs (and, for fio jobs, CPU time
# per I/O).
cpu_counters() {
	printf 'ncpu %s\nbefore %s\nafter %s\n' "$(nproc)" "$2" "$3" >"$1"
}

# pattern_bw TAG CHANNELS DEPTH SIZE [MODULE_ARGS...]: the raw ceiling for
# SRP's large reads, srp_pattern_bw.ko (tests/vm/bench/pattern-bw/): SRP's READ
# message pattern in the kernel over RDMA/CM to $TGT_IP4 (the SRP login's
# path, rxe1 loopback), CHANNELS RC connections of DEPTH commands of SIZE
# bytes each outstanding, 2 s warm-up, 6 s measured. Its result line goes
# to $OUT/TAG.txt, the guest's CPU counters over the whole insmod to
# $OUT/TAG.cpu; a failed insmod fails the bench with the module's log.
pattern_bw() {
	local tag=$1 ch=$2 depth=$3 size=$4 ko=/srpt/modules/srp_pattern_bw.ko res cmd cpu0 cpu1
	shift 4
	[ -f "$ko" ] || fail "no $ko in the payload"
	cmd="insmod srp_pattern_bw.ko addr=$TGT_IP4 channels=$ch depth=$depth size=$size${*:+ $*}"
	grep -qxF "$cmd" "$OUT/raw-commands.txt" 2>/dev/null || echo "$cmd" >>"$OUT/raw-commands.txt"
	cpu0=$(head -n1 /proc/stat)
	if ! insmod "$ko" addr="$TGT_IP4" channels="$ch" depth="$depth" size="$size" "$@" 2>"$OUT/$tag.err"; then
		cat "$OUT/$tag.err"; dmesg | grep srp_pattern_bw | tail -n 20
		fail "srp_pattern_bw ($tag) failed"
	fi
	cpu1=$(head -n1 /proc/stat)
	res=$(cat /sys/module/srp_pattern_bw/parameters/result)
	rmmod srp_pattern_bw || fail "rmmod srp_pattern_bw ($tag)"
	case $res in
	mibs=*) ;;
	*) fail "srp_pattern_bw ($tag): no result ('$res')";;
	esac
	cpu_counters "$OUT/$tag.cpu" "$cpu0" "$cpu1"
	echo "$res" >"$OUT/$tag.txt"
	echo "$tag: $res"
}

# pattern_bw_ceiling TAG CHANNELS DEPTH SIZE: the raw ceiling, whichever
# polling moves more in this boot: pattern_bw with both sides' CQs on the
# unbound workqueue ($OUT/TAG-unbound.txt) and with ib_srp's and ib_srpt's
# own contexts, the module's defaults ($OUT/TAG-bound.txt); the higher
# result line is $OUT/TAG.txt (the line names its polling), with its CPU
# counters as $OUT/TAG.cpu: bench-report.py reads both.
pattern_bw_ceiling() {
	local tag=$1 a b won
	shift
	pattern_bw "$tag-unbound" "$@" ini_poll=unbound tgt_poll=unbound
	pattern_bw "$tag-bound" "$@"
	a=$(sed -n 's/^mibs=\([0-9.]*\) .*/\1/p' "$OUT/$tag-unbound.txt")
	b=$(sed -n 's/^mibs=\([0-9.]*\) .*/\1/p' "$OUT/$tag-bound.txt")
	[ -n "$a" ] && [ -n "$b" ] || fail "srp_pattern_bw ($tag): no mibs= in its results"
	if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= b) }'; then
		won=unbound
	else
		won=bound
	fi
	cp "$OUT/$tag-$won.txt" "$OUT/$tag.txt"
	cp "$OUT/$tag-$won.cpu" "$OUT/$tag.cpu"
	echo "$tag: ceiling $(cut -d' ' -f1 "$OUT/$tag.txt") ($(grep -o 'ini_poll=[a-z]* tgt_poll=[a-z]*' "$OUT/$tag.txt"))"
}
