#!/bin/bash
# Scenario demo: a narrated tour. Target (ib_srpt + targetcli) and initiator
# (ib_srp) in one guest over soft-RoCE; mount a LUN, do I/O, show it.
. /srpt/lib.sh
say() { echo; echo ">>> $*"; }
show() { echo "\$ $*"; "$@" 2>&1 | sed 's/^/    /'; return "${PIPESTATUS[0]}"; }

say "set up: soft-RoCE (rdma_rxe on a veth pair), the SRP target driver (SRPT=$SRPT),"
echo "    with targetcli a 64 MiB ramdisk + 64 MiB file LUN and an ACL for the initiator"
single_host_target "dest=$TGT_IP4:$RDMA_CM_PORT" >/tmp/setup.out
grep -E '^/>|ok:' /tmp/setup.out
say "soft-RoCE: rdma_rxe devices on a veth pair"
show rdma link show
say "the SRP target driver (SRPT=$SRPT)"
show sh -c 'modinfo -n ib_srpt; cat /sys/module/ib_srpt/parameters/*'
say "its configuration (targetcli)"
show targetcli ls /srpt
say "log in with ib_srp over RDMA/CM"
srp_login rxe1 "$LOGIN" >/tmp/l.out || fail "login: $LOGIN_ERR"
cat /tmp/l.out
show lsscsi
say "make a filesystem on the file-backed LUN ($DEV_LUN1), mount it, write files"
show mkfs.ext4 -q -F "$DEV_LUN1" || fail mkfs
mkdir -p /mnt/demo; show mount "$DEV_LUN1" /mnt/demo || fail mount
show dd if=/dev/urandom of=/mnt/demo/random.bin bs=1M count=16 conv=fsync
echo "hello from an SRP LUN served by ib_srpt ($SRPT)" >/mnt/demo/hello.txt
show sh -c 'cd /mnt/demo && sha256sum random.bin hello.txt | tee /tmp/demo.sums'
show df -h /mnt/demo
show umount /mnt/demo
echo 3 >/proc/sys/vm/drop_caches
say "remount and verify"
show mount "$DEV_LUN1" /mnt/demo
show sh -c 'cd /mnt/demo && sha256sum -c /tmp/demo.sums && cat hello.txt' || fail "verify"
show umount /mnt/demo
say "raw throughput on the ramdisk LUN ($DEV_LUN0)"
show dd if=/dev/zero of="$DEV_LUN0" bs=1M count=32 oflag=direct
show dd if="$DEV_LUN0" of=/dev/null bs=1M count=32 iflag=direct
say "log out and tear down"
srp_logout; wait_target_idle 30; target_teardown >/dev/null; unload_all >/dev/null
check_dmesg
say "demo done: SRPT=$SRPT, target port ib.$TGT_PORT, initiator 0x$INI_ID"
