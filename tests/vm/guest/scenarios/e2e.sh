#!/bin/bash
# Scenario e2e: one guest, rxe0 (target) and rxe1 (initiator) on a veth pair.
# modprobe ib_srpt (the port resolved from updates/, in-tree from kernel/;
# the srpt fabric appears in configfs); targetcli (all commands on one
# stdin, then configfs checked, as batch mode reports no failures): rd_mcp
# 64 MiB as LUN 0, fileio 64 MiB as LUN 1, iblock on a memory-backed
# null_blk as LUN 2, the ACL, rdma_cm_port. IPv4 login; on each LUN dd+cmp
# of a random pattern at two offsets and fio --verify=crc32c (16 MiB 4k
# randwrite QD16, then verify); on null_blk also 4 MiB in 4 KiB writes
# (immediate data) read back on the target side; ext4 made, 13 files,
# remount after drop_caches, sha256sum -c; on rd_mcp, a sense never
# carries bytes of an earlier one (lib.sh sense_not_stale). Logout, until
# the target has released its channels (no RC QP left); IPv6 link-local
# login, dd+cmp, the ext4 files verified again; logout; clearconfig, every
# module the scenario loaded unloaded; the dmesg gate (lib.sh BAD_DMESG).
. /srpt/lib.sh

# LUN 2 (--nullb): iblock on a memory-backed null_blk. LOGIN without
# dest=: the logins below dial IPv4 and IPv6.
single_host_target --nullb

step "login over RDMA/CM IPv4 ($TGT_IP4:$RDMA_CM_PORT)"
srp_login rxe1 "$LOGIN,dest=$TGT_IP4:$RDMA_CM_PORT" 3 || fail "IPv4 login failed: $LOGIN_ERR"
ok "IPv4 login"
DEV_LUN2=/dev/$(ls /sys/class/scsi_device/${SRP_HOST#host}:0:0:2/device/block/)
dd_cmp "$DEV_LUN2" 8 0
fio_verify "$DEV_LUN2"
# what the initiator wrote, read on the target side straight from null_blk
head -c 4M /dev/urandom >/tmp/pat4
dd if=/tmp/pat4 of="$DEV_LUN2" bs=4k seek=256 oflag=direct conv=fsync status=none || fail "dd to $DEV_LUN2"
dd if=/dev/nullb0 bs=4k skip=256 count=1024 iflag=direct status=none | cmp - /tmp/pat4 ||
	fail "4 KiB writes through SRP differ on the target's /dev/nullb0"
ok "4 KiB writes (immediate data) read back from /dev/nullb0 on the target side"
dd_cmp "$DEV_LUN0" 8 0
dd_cmp "$DEV_LUN0" 4 40
sense_not_stale "$DEV_LUN0"
dd_cmp "$DEV_LUN1" 8 0
dd_cmp "$DEV_LUN1" 4 40
fio_verify "$DEV_LUN0"
fio_verify "$DEV_LUN1"
fs_write_verify "$DEV_LUN1"
srp_logout
wait_target_idle 30

TGT_LL=$(ipv6_ll veth1)
IFIDX=$(cat /sys/class/net/veth1/ifindex)
step "login over RDMA/CM IPv6 link-local ([$TGT_LL%$IFIDX]:$RDMA_CM_PORT)"
srp_login rxe1 "$LOGIN,dest=[$TGT_LL%$IFIDX]:$RDMA_CM_PORT" || fail "IPv6 login failed: $LOGIN_ERR"
ok "IPv6 link-local login"
dd_cmp "$DEV_LUN0" 8 16
fs_verify_again "$DEV_LUN1"
dd_cmp "$DEV_LUN1" 8 0
srp_logout
wait_target_idle 30

target_teardown
unload_all
check_dmesg
echo "e2e: all checks passed"
