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

# Unreclaimable slab in kB, after dropping caches and shrinking every SLUB
# cache (empty slabs kept on per-cpu/partial lists are given back), so that
# what remains is objects still allocated.
slab_unreclaim() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	local f
	for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f" 2>/dev/null; done
	awk '/^SUnreclaim:/{print $2}' /proc/meminfo
}
# Two checks, two tolerances (measured in this guest, 2026-11-29/30:
# in-tree +368/+412/+544 kB total, +8/+132 kB kmalloc; port +412/+432/+560
# kB total, +88/+104 kB kmalloc):
#  - every unreclaimable cache together, within 1024 kB. The noise is the
#    kernel's, not the drivers': kworker threads the workqueues spawned under
#    load stay for 5 minutes (task_struct, signal/sighand, kernfs, proc
#    inodes) and first use warms caches (radix_tree_node, inode_cache);
#    370-560 kB seen, so 1 MiB. It catches gross leaks (a leaked device
#    with its SRQ/MAD state, a per-I/O leak over the ~5000 commands of fio);
#  - the kmalloc-* caches alone (where both drivers' channel and device
#    objects live: the port allocates everything with kmalloc; the in-tree
#    driver's own kmem caches are destroyed at unload, and a leak there is
#    a "cache still has objects" BUG that check_dmesg catches), net growth
#    within 256 kB: noise up to +132 kB, while one leaked login of the port
#    is ~100 kB of kmalloc slab (2 channels x (128 response buffers of
#    256 B + the glue arrays)), a per-command leak of 64 B over fio ~300 kB.
SLAB_TOLERANCE_KB=${SLAB_TOLERANCE_KB:-1024}
KMALLOC_TOLERANCE_KB=${KMALLOC_TOLERANCE_KB:-256}
SLAB0=$(slab_unreclaim)
cp /proc/slabinfo "$OUT/slabinfo.before"
echo "SUnreclaim before loading anything: $SLAB0 kB"

setup_veth_rxe
load_srpt
TGT_PORT=$(gid_hex rxe1)
INI_ID=$(gid_hex rxe1)
GUID=$(srpt_guid rxe0)
targetcli_config "$TGT_PORT" "$INI_ID"
set_rdma_cm_port
LOGIN="id_ext=$GUID,ioc_guid=$GUID,initiator_ext=${INI_ID:0:16},dest=$TGT_IP4:$RDMA_CM_PORT"

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
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	[ -z "$(ls /sys/kernel/debug/ib_srpt/*/stats 2>/dev/null)" ] || fail "channels left: $(ls /sys/kernel/debug/ib_srpt)"
	ok "no channel left in debugfs"
fi
wait_for 30 "initiator hosts gone" sh -c "[ -z \"\$(ls /sys/class/srp_remote_ports/ 2>/dev/null)\" ]" ||
	echo "srp remote ports still present: $(ls /sys/class/srp_remote_ports/)"

step "re-add rxe1, configure again, log in"
run "rxe1 on veth1 again" rdma link add rxe1 type rxe netdev veth1
wait_for 10 "rxe1 ACTIVE" grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state ||
	fail "rxe1 port not ACTIVE after re-adding"
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
sleep 2 # RCU-deferred frees
SLAB1=$(slab_unreclaim)
cp /proc/slabinfo "$OUT/slabinfo.after"
# Growth per cache (slabs x pages per slab x 4 kB).
awk 'FNR==1{f++} /^#|^slabinfo/{next}
	{kb=$15*$6*4; if(f==1) b[$1]=kb; else a[$1]=kb}
	END{for(c in a) if(a[c]-b[c]!=0) printf "%8d kB  %s\n", a[c]-b[c], c}' \
	"$OUT/slabinfo.before" "$OUT/slabinfo.after" | sort -rn >/tmp/slab-growth
KMALLOC=$(awk '$3 ~ /kmalloc-/{s+=$1} END{print s+0}' /tmp/slab-growth)
{
	echo "SUnreclaim $SLAB0 kB -> $SLAB1 kB ($((SLAB1 - SLAB0)) kB, tolerance $SLAB_TOLERANCE_KB kB)"
	echo "kmalloc-* caches: $KMALLOC kB net (tolerance $KMALLOC_TOLERANCE_KB kB)"
	cat /tmp/slab-growth
} >"$OUT/slab.txt"
head -14 "$OUT/slab.txt"
[ "$KMALLOC" -le "$KMALLOC_TOLERANCE_KB" ] ||
	fail "kmalloc slab grew by $KMALLOC kB after device removal, teardown and unload"
[ $((SLAB1 - SLAB0)) -le "$SLAB_TOLERANCE_KB" ] ||
	fail "unreclaimable slab grew by $((SLAB1 - SLAB0)) kB after device removal, teardown and unload"
ok "unreclaimable slab back to its baseline"
echo "port-removal: all checks passed"
