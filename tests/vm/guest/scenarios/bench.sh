#!/bin/bash
# Scenario bench: in one boot, alternate A (in-tree ib_srpt) and B ($BENCH_B:
# the port, or in-tree again) for $BENCH_ROUNDS rounds on the same two LUNs,
# rd_mcp (LUN 0) and iblock on a memory-backed null_blk (LUN 1) (the
# backstores stay; only the fabric module and its target are swapped), fio
# per round, side and LUN; plus the raw rxe limit with perftest.
# Results: JSON files in $OUT, reduced on the host by bench-report.py.
. /srpt/lib.sh
ROUNDS=${BENCH_ROUNDS:-3}
RT=${BENCH_RUNTIME:-8}
B=${BENCH_B:-intree}
RD_MB=${BENCH_RD_MB:-256}

setup_veth_rxe
HCA=rxe1
TGT_PORT=$(gid_hex $HCA)
INI_ID=$(gid_hex $HCA)
echo "bench: A=intree B=$B rounds=$ROUNDS fio runtime=${RT}s (+2s ramp) rd_mcp ${RD_MB}M"
echo "A=intree B=$B ROUNDS=$ROUNDS RUNTIME=$RT" >"$OUT/bench-config.txt"

modprobe -a ib_cm rdma_cm target_core_mod || fail "modprobe target deps"
modprobe -a sd_mod sg || fail "modprobe sd_mod sg"
step "shared backstores: rd_mcp (${RD_MB}M) and iblock on a memory-backed null_blk"
targetcli /backstores/ramdisk create name=rd0 size=${RD_MB}M >/dev/null 2>&1
[ -n "$(ls -d $CFG/core/rd_mcp_*/rd0 2>/dev/null)" ] || fail "no rd_mcp backstore"
load_nullb
# Every page the jobs touch exists: reads of a page never written would take
# null_blk's shortcut (zero fill) instead of a copy.
dd if=/dev/zero of=/dev/nullb0 bs=1M count="$RD_MB" oflag=direct status=none || fail "prefill nullb0"
targetcli /backstores/block create name=nb0 dev=/dev/nullb0 >/dev/null 2>&1
[ -n "$(ls -d $CFG/core/iblock_*/nb0 2>/dev/null)" ] || fail "no iblock backstore"
ok "rd0 (LUN 0) and nb0 (LUN 1) created"

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
detach_side() {
	echo 0 >$SRPT_CFG/discovery_auth/rdma_cm_port
	targetcli /srpt delete ib.$TGT_PORT >/dev/null 2>&1
	[ ! -d $SRPT_CFG/0x$TGT_PORT ] || fail "srpt target still present after delete"
	rmdir $SRPT_CFG || fail "rmdir $SRPT_CFG"
	local i
	for i in $(seq 1 20); do rmmod ib_srpt 2>/dev/null && break; sleep 0.5; done
	[ ! -d /sys/module/ib_srpt ] || fail "rmmod ib_srpt"
}
fio_job() { # fio_job TAG DEV fio-args...
	local tag=$1 dev=$2; shift 2
	fio --name="$tag" --filename="$dev" --direct=1 --ioengine=libaio --size=${RD_MB}M \
		--time_based --runtime="$RT" --ramp_time=2 --group_reporting \
		--output-format=json --output="$OUT/$tag.json" "$@" >/dev/null 2>&1 ||
		fail "fio $tag failed"
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]
r=j["read"]; w=j["write"]; e=j["error"]
print("%-34s read %8.0f IOPS %7.1f MiB/s  write %8.0f IOPS  err=%d" % (sys.argv[2], r["iops"], r["bw"]/1024, w["iops"], e))
sys.exit(1 if e else 0)' "$OUT/$tag.json" "$tag" || fail "fio $tag reported an error"
}

LOGIN="id_ext=%s,ioc_guid=%s,initiator_ext=${INI_ID:0:16},dest=$TGT_IP4:$RDMA_CM_PORT"
for r in $(seq 1 "$ROUNDS"); do
	for side in A B; do
		drv=intree; [ $side = B ] && drv=$B
		step "round $r side $side ($drv)"
		load_srpt "$drv" # SRPT=intree: the in-tree driver by modprobe, the port by path
		attach_side
		GUID=$(srpt_guid rxe0)
		# shellcheck disable=SC2059
		srp_login $HCA "$(printf "$LOGIN" "$GUID" "$GUID")" 2 >/dev/null || fail "login ($drv): $LOGIN_ERR"
		# The side measures the driver it names: the port is an out-of-tree
		# module (taint O), the in-tree driver is not.
		taint=$(cat /sys/module/ib_srpt/taint)
		case $drv:$taint in
		port:*O*|intree:) ;;
		*) fail "side $side ($drv): loaded ib_srpt has taint '$taint'";;
		esac
		echo "$side $drv: rd_mcp $DEV_LUN0, iblock $DEV_LUN1 (ib_srpt taint '$taint')"
		for lun in rd:$DEV_LUN0 nb:$DEV_LUN1; do
			l=${lun%%:*} dev=${lun#*:}
			fio_job "r$r-$side-$l-randread4k-qd32" "$dev" --rw=randread --bs=4k --iodepth=32
			fio_job "r$r-$side-$l-randwrite4k-qd32" "$dev" --rw=randwrite --bs=4k --iodepth=32
			fio_job "r$r-$side-$l-seqread128k-qd32" "$dev" --rw=read --bs=128k --iodepth=32
			fio_job "r$r-$side-$l-randread4k-qd1" "$dev" --rw=randread --bs=4k --iodepth=1
		done
		srp_logout >/dev/null
		wait_target_idle 30 >/dev/null
		detach_side
	done
	step "round $r raw rxe (perftest over rdma_cm, $HCA loopback)"
	ib_write_bw -d $HCA -R -s 131072 -n 400 -F >/dev/null 2>&1 &
	sleep 1.5
	timeout 60 ib_write_bw -d $HCA -R -s 131072 -n 400 -F $TGT_IP4 >"$OUT/r$r-ib_write_bw.txt" 2>&1 ||
		{ cat "$OUT/r$r-ib_write_bw.txt"; fail "ib_write_bw"; }
	wait
	ib_send_lat -d $HCA -R -n 2000 -F >/dev/null 2>&1 &
	sleep 1.5
	timeout 60 ib_send_lat -d $HCA -R -n 2000 -F $TGT_IP4 >"$OUT/r$r-ib_send_lat.txt" 2>&1 ||
		{ cat "$OUT/r$r-ib_send_lat.txt"; fail "ib_send_lat"; }
	wait
	grep -A1 '#bytes' "$OUT/r$r-ib_write_bw.txt" "$OUT/r$r-ib_send_lat.txt"
done
targetcli clearconfig confirm=True >/dev/null 2>&1
check_dmesg
echo "bench: done"
