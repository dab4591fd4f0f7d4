#!/bin/bash
# Scenario port-srq (SRPT=port): the device's shared receive queue,
# attrib/use_srq (docs/data-path.md, "Shared receive queue"):
#  1. use_srq 1 through targetcli: the target logs one SRQ of
#     min(srpt_srq_size, max_srq_wr) entries for rxe1 (max_srq_wr read with
#     ibv_devinfo); after an ib_srp login every channel's debugfs stats say
#     use_srq 1 with that ring size and no immediate data; dd+cmp on both
#     LUNs and fio QD 32 randwrite crc32c verify pass; the channels received
#     more IUs than the SRQ has entries (contexts were reposted and reused),
#     with no receive error, no failed post and every credit back;
#  2. use_srq 0 written while logged in: the initiator is logged out, the
#     SRQ channels are released and then the SRQ is destroyed; a new login
#     has receive rings of its own (128, immediate data granted) and moves
#     verified data;
#  3. use_srq 1 again (a second SRQ), login, then `rdma link delete rxe1`:
#     the channels go first, then the SRQ, before the PD (no WARN);
#  4. rxe1 back, teardown, unload, clean dmesg.
. /srpt/lib.sh
. /srpt/stats.sh

[ "$SRPT" = port ] || fail "port-srq checks the port's debugfs counters: run it with SRPT=port"

single_host_target "dest=$TGT_IP4:$RDMA_CM_PORT"
ATTR=$SRPT_CFG/0x$TGT_PORT/tpgt_1/attrib/use_srq
mount_debugfs

srq_lines() { dmesg | grep -c "ib_srpt: device rxe1: shared receive queue of"; }
destroyed_lines() { dmesg | grep -c "shared receive queue destroyed"; }
# QPs the kernel lists on ib_srpt's SRQ of rxe1 (`rdma res show srq`,
# lqpn "18,20" or ranges "18-21"); "none" without such an SRQ, "unsupported"
# when iproute2 cannot show SRQs.
srq_qps() {
	local out line l n=0 item
	out=$(timeout 10 rdma res show srq 2>/dev/null) || { echo unsupported; return; }
	line=$(echo "$out" | grep "dev rxe1 " | grep "comm \[ib_srpt\]") || { echo none; return; }
	l=$(echo "$line" | sed -n 's/.* lqpn \([0-9,-]*\) .*/\1/p')
	for item in ${l//,/ }; do
		case $item in *-*) n=$((n + ${item#*-} - ${item%-*} + 1)) ;; *) n=$((n + 1)) ;; esac
	done
	echo $n
}
check_srq_qps() { # check_srq_qps N: the kernel sees N QPs on the SRQ
	local got; got=$(srq_qps)
	case $got in
	unsupported) echo "rdma res show srq not supported: kernel-side check skipped" ;;
	"$1") ok "rdma res show srq: $1 QP(s) attached to ib_srpt's SRQ on rxe1" ;;
	*) timeout 10 rdma res show srq; fail "rdma res show srq: $got QPs on ib_srpt's SRQ of rxe1, expected $1" ;;
	esac
}
# the kernel's own view, when iproute2 can show SRQs
show_srqs() {
	local out
	if out=$(timeout 10 rdma res show srq 2>&1); then
		echo "rdma res show srq: ${out:-(none)}" | tee -a "$OUT/srq.txt"
	else
		echo "rdma res show srq not supported here: $out"
	fi
}

step "1. use_srq 1 (targetcli), login, I/O on the SRQ"
MAX_SRQ_WR=$(ibv_devinfo -v -d rxe1 | awk '$1=="max_srq_wr:"{print $2}')
SRQ_SIZE_PARAM=$(cat /sys/module/ib_srpt/parameters/srpt_srq_size)
[ -n "$MAX_SRQ_WR" ] || fail "ibv_devinfo shows no max_srq_wr for rxe1"
EXPECT=$SRQ_SIZE_PARAM
[ "$MAX_SRQ_WR" -lt "$EXPECT" ] && EXPECT=$MAX_SRQ_WR
echo "srpt_srq_size $SRQ_SIZE_PARAM, rxe1 max_srq_wr $MAX_SRQ_WR: expecting an SRQ of $EXPECT"
run "targetcli set attribute use_srq=1" targetcli "/srpt/ib.$TGT_PORT" set attribute use_srq=1
[ "$(cat "$ATTR")" = 1 ] || fail "use_srq reads $(cat "$ATTR") after targetcli set it"
[ "$(cat "$SRPT_CFG/0x$TGT_PORT/tpgt_1/enable")" = 1 ] || fail "the TPG is no longer enabled after use_srq"
dmesg | grep "shared receive queue" | tail -3
[ "$(srq_lines)" = 1 ] || fail "no 'shared receive queue of' line for rxe1 in dmesg"
dmesg | grep -q "ib_srpt: device rxe1: shared receive queue of $EXPECT entries" ||
	fail "SRQ size is not min(srpt_srq_size, max_srq_wr) = $EXPECT"
ok "SRQ of $EXPECT entries created for rxe1"
show_srqs
srp_login rxe1 "$LOGIN" || fail "login with use_srq 1 failed: $LOGIN_ERR"
show_stats
NCH=$(channels | wc -l)
all_channels use_srq 1 || fail "a channel does not use the SRQ"
all_channels recv_ring_size "$EXPECT" || fail "a channel's receive ring is not the SRQ's ($EXPECT)"
all_channels imm_data_offset 0 || fail "immediate data granted on an SRQ channel"
ok "$NCH channels receive from the SRQ, no immediate data"
check_srq_qps "$NCH"
dmesg | grep -q "login accepted: .*shared receive queue" || fail "no 'login accepted ... shared receive queue' line"
dd_cmp "$DEV_LUN0" 8 0
dd_cmp "$DEV_LUN1" 8 0
fio --name=srq --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --iodepth=32 \
	--rw=randwrite --bs=4k --size=16M --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--output="$OUT/fio-srq.txt" >/dev/null 2>&1 || { cat "$OUT/fio-srq.txt"; fail "fio QD 32 verify on the SRQ"; }
grep -q 'err= 0' "$OUT/fio-srq.txt" || fail "fio verify on the SRQ reported errors"
grep -E 'IOPS' "$OUT/fio-srq.txt" | head -2
ok "fio QD 32 randwrite 16 MiB crc32c verify on $DEV_LUN0"
dd_cmp "$DEV_LUN1" 4 40
wait_for 10 "credits back" credits_conserved released_wrs_posted || { show_stats; fail "credits or send contexts not returned, or a command released with work requests posted"; }
show_stats
received=$(stat_sum ius_received)
[ "$received" -gt "$EXPECT" ] || fail "only $received IUs over an SRQ of $EXPECT: reuse of reposted contexts not shown"
[ "$(stat_sum recv_errors)" = 0 ] || fail "receive errors on the SRQ: $(stat_sum recv_errors)"
[ "$(stat_sum post_recv_failures)" = 0 ] || fail "failed SRQ reposts: $(stat_sum post_recv_failures)"
[ "$(stat_sum credit_violations)" = 0 ] || fail "credit violations: $(stat_sum credit_violations)"
ok "$received IUs through an SRQ of $EXPECT entries, no receive error, every credit back"
show_srqs

step "2. use_srq 0 while logged in: logout, SRQ destroyed, own rings"
old=$(channels | tr '\n' ' ')
echo 0 >"$ATTR" || fail "writing 0 to $ATTR"
[ "$(cat "$ATTR")" = 0 ] || fail "use_srq reads $(cat "$ATTR") after writing 0"
[ "$(cat "$SRPT_CFG/0x$TGT_PORT/tpgt_1/enable")" = 1 ] || fail "the TPG is no longer enabled after use_srq 0"
gone() { local f; for f in $old; do [ -e "$f" ] && return 1; done; return 0; }
wait_for 30 "SRQ channels released" gone || { show_stats; fail "channels on the SRQ still there 30 s after use_srq 0"; }
ok "the SRQ channels were logged out and released"
wait_for 10 "SRQ destroyed" sh -c "[ \$(dmesg | grep -c 'shared receive queue destroyed') = 1 ]" ||
	fail "SRQ not destroyed after its channels were released"
ok "SRQ destroyed after its channels"
dmesg | grep -E "shared receive queue|released" | tail -6
case $(srq_qps) in none | unsupported) ;; *) fail "ib_srpt's SRQ still listed by rdma res show srq" ;; esac
srp_logout
wait_target_idle 30
srp_login rxe1 "$LOGIN" || fail "login with use_srq 0 failed: $LOGIN_ERR"
show_stats
all_channels use_srq 0 || fail "a channel still uses an SRQ"
all_channels recv_ring_size 128 || fail "a channel has no receive ring of 128 of its own"
for f in $(channels); do
	[ "$(stat_of "$f" imm_data_offset)" -gt 0 ] || fail "no immediate data without the SRQ ($f)"
done
ok "channels have their own receive rings and immediate data again"
dd_cmp "$DEV_LUN0" 8 16
dd_cmp "$DEV_LUN1" 8 16
fio --name=own --filename="$DEV_LUN1" --direct=1 --ioengine=libaio --iodepth=32 \
	--rw=randwrite --bs=4k --size=8M --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--output="$OUT/fio-own.txt" >/dev/null 2>&1 || { cat "$OUT/fio-own.txt"; fail "fio verify with own rings"; }
grep -q 'err= 0' "$OUT/fio-own.txt" || fail "fio verify with own rings reported errors"
ok "fio QD 32 verify with own receive rings"
srp_logout
wait_target_idle 30

step "3. use_srq 1 again, login, rdma link delete rxe1"
echo 1 >"$ATTR" || fail "writing 1 to $ATTR"
[ "$(srq_lines)" = 2 ] || fail "no second SRQ after use_srq 1 again"
srp_login rxe1 "$LOGIN" || fail "login on the second SRQ failed: $LOGIN_ERR"
all_channels use_srq 1 || fail "a channel does not use the second SRQ"
check_srq_qps "$(channels | wc -l)"
dd_cmp "$DEV_LUN0" 4 0
timeout 120 rdma link delete rxe1 || fail "rdma link delete rxe1 failed or hung"
ok "rxe1 deleted with channels on the SRQ"
wait_target_idle 30
[ -z "$(channels)" ] || fail "channels left: $(channels)"
[ "$(destroyed_lines)" = 2 ] || fail "the second SRQ was not destroyed at device removal"
# order: the last channel released before the SRQ went
last_rel=$(dmesg | grep -n "channel [0-9]* released" | tail -1 | cut -d: -f1)
last_srq=$(dmesg | grep -n "shared receive queue destroyed" | tail -1 | cut -d: -f1)
[ -n "$last_rel" ] && [ "$last_srq" -gt "$last_rel" ] || fail "SRQ destroyed before the channels were released"
ok "device removal: channels released, then the SRQ destroyed"
wait_initiator_gone

step "4. rxe1 back, teardown"
readd_rxe1
target_teardown
unload_all
check_dmesg
echo "port-srq: all checks passed"
