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
