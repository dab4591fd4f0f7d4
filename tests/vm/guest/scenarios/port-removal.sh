#!/bin/bash
# Scenario port-removal: the RDMA device goes away under live channels.
# `rdma link delete rxe1` during fio: the initiator sees errors, the target
# releases its channels (no RC QP, no debugfs channel left), no crash, WARN
# or leak; the device comes back, the configuration is made again and a
# login with dd+cmp works. Also runs against SRPT=intree for comparison,
# with the same assertions for both drivers:
#  - `rmmod ib_srpt` with a live session is refused ("in use": the target
#    core's configfs objects of the fabric hold module references), and the
#    session keeps working;
#  - unreclaimable slab usage after the final teardown and unload is back
#    to its value before anything was loaded, within SLAB_TOLERANCE_KB.
. /srpt/lib.sh

slab_baseline

single_host_target "dest=$TGT_IP4:$RDMA_CM_PORT"

step "login, fio, then rdma link delete rxe1"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
dd_cmp "$DEV_LUN0" 4 0

step "rmmod ib_srpt with a live session (SRPT=$SRPT): refused, as in-tree"
refcnt=$(cat /sys/module/ib_srpt/refcnt)
if rmmod ib_srpt 2>/tmp/rmmod.err; then
	fail "rmmod ib_srpt succeeded with a live session (SRPT=$SRPT)"
fi
cat /tmp/rmmod.err
grep -q "in use" /tmp/rmmod.err || fail "rmmod ib_srpt refused, but not as 'in use': $(cat /tmp/rmmod.err)"
[ -d /sys/module/ib_srpt ] || fail "ib_srpt gone after a refused rmmod"
[ "$(cat /sys/module/ib_srpt/refcnt)" = "$refcnt" ] || fail "refcnt $refcnt -> $(cat /sys/module/ib_srpt/refcnt) after a refused rmmod"
dd_cmp "$DEV_LUN0" 4 4
echo "rmmod: refused (refcnt $refcnt)" >"$OUT/rmmod.txt"
ok "rmmod ib_srpt refused while configured (refcnt $refcnt); the session still moves data"

echo "before fio: $(stat -c '%n: %F' "$DEV_LUN0" 2>&1)"
[ -b "$DEV_LUN0" ] || fail "$DEV_LUN0 is not a block device before fio"
# allow_file_create=0: time_based fio reopens its file on every pass; once
# the disk is gone it would create a regular file of that name in
# devtmpfs, and from 6.6 on (tmpfs takes O_DIRECT) keep doing I/O to it
# without an error, and the file would hide the next login's /dev node.
fio --name=removal --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --iodepth=32 \
	--rw=randrw --bs=16k --size=32M --time_based --runtime=60 --allow_file_create=0 \
	--output="$OUT/fio-removal.txt" >/dev/null 2>&1 &
FIO=$!
sleep 5
t=$(date +%s.%N)
timeout 120 rdma link delete rxe1 || fail "rdma link delete rxe1 failed or hung"
echo "rdma link delete took $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')s"
ok "rxe1 deleted during I/O"
wait_for 90 "fio ends" sh -c "! kill -0 $FIO" || { kill -9 $FIO; fail "fio did not end after the device was removed"; }
wait $FIO
echo "fio exit $? (errors expected)"
grep -E 'err=' "$OUT/fio-removal.txt" | head -2
if [ -e "$DEV_LUN0" ] && [ ! -b "$DEV_LUN0" ]; then
	fail "$DEV_LUN0 is a $(stat -c %F "$DEV_LUN0") after the device was removed"
fi
wait_target_idle 30
if [ "$SRPT" = port ]; then
	mount_debugfs
	[ -z "$(ls /sys/kernel/debug/ib_srpt/*/stats 2>/dev/null)" ] || fail "channels left: $(ls /sys/kernel/debug/ib_srpt)"
	ok "no channel left in debugfs"
fi
wait_initiator_gone

step "re-add rxe1, configure again, log in"
readd_rxe1
target_teardown
targetcli_config "$TGT_PORT" "$INI_ID"
set_rdma_cm_port
srp_login rxe1 "$LOGIN" || fail "login after re-adding the device failed: $LOGIN_ERR"
dd_cmp "$DEV_LUN0" 8 0
dd_cmp "$DEV_LUN1" 8 0
srp_logout
wait_target_idle 30

target_teardown
unload_all
check_dmesg

step "slab back to the baseline"
slab_check "after device removal, teardown and unload"
echo "port-removal: all checks passed"
