#!/bin/bash
# Scenario observe (port only): what an operator looks at.
#  1. the ib_srpt tracepoints: all enabled through tracefs around a refused
#     login, a login with send contexts scarce (debugfs test knob
#     test_send_ctx_limit 2, so that IUs wait), write and read I/O, and a
#     logout; every event must appear with sane fields: srpt_login
#     (accepted with credits, rejected with its reason and code),
#     srpt_channel_state, srpt_cmd_recv / srpt_cmd_rsp (WRITE/READ,
#     GOOD, a latency), srpt_send_done, srpt_credits, srpt_iu_wait /
#     srpt_iu_resume, srpt_disconnect;
#  2. `targetcli sessions` / `sessions detail` (the real targetcli, through
#     the ACL's info file): the session, its mapped LUNs and the channel's
#     address and state; "no open sessions" after the logout.
. /srpt/lib.sh

[ "$SRPT" = port ] || fail "observe checks the port's tracepoints and ACL info: run it with SRPT=port"
single_host_target "dest=$TGT_IP4:$RDMA_CM_PORT"
ACL=0x$INI_ID

T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs tracefs $T || fail "cannot mount tracefs"
mount_debugfs
[ -d $T/events/ib_srpt ] || fail "no ib_srpt events in $T/events"
ls $T/events/ib_srpt | tee "$OUT/events.txt"
for e in srpt_login srpt_channel_state srpt_disconnect srpt_iu_wait srpt_iu_resume \
	srpt_credits srpt_cmd_recv srpt_cmd_rsp srpt_send_done; do
	[ -d "$T/events/ib_srpt/$e" ] || fail "tracepoint ib_srpt:$e missing"
done
ok "9 ib_srpt tracepoints present"

step "sessions before any login"
targetcli sessions >"$OUT/sessions-none.txt" 2>&1
cat "$OUT/sessions-none.txt"
grep -q "no open sessions" "$OUT/sessions-none.txt" || fail "targetcli sessions without a login: $(cat "$OUT/sessions-none.txt")"

step "trace: a refused login, a login with 2 send contexts, I/O, logout"
echo 2 >/sys/kernel/debug/ib_srpt/test_send_ctx_limit
echo 16384 >$T/buffer_size_kb
: >$T/trace
echo 1 >$T/events/ib_srpt/enable
BAD=${LOGIN/id_ext=$GUID/id_ext=0123456789abcdef}
BAD=${BAD/ioc_guid=$GUID/ioc_guid=0123456789abcdef}
if srp_login rxe1 "$BAD" 2>/dev/null; then fail "a login to the wrong target port was accepted"; fi
ok "login with a wrong target port id refused: $LOGIN_ERR"
srp_login rxe1 "$LOGIN" 2 || fail "login failed: $LOGIN_ERR"
dd_cmp "$DEV_LUN0" 4 0
fio --name=qd16 --filename="$DEV_LUN0" --ioengine=libaio --direct=1 --rw=randrw \
	--bs=4k --iodepth=16 --size=8M --io_size=8M --verify=crc32c \
	--output="$OUT/fio.txt" >/dev/null 2>&1 || fail "fio QD16 verify: $(tail -3 "$OUT/fio.txt")"
ok "fio QD16 verify with 2 send contexts"

step "targetcli sessions with the session up"
targetcli sessions >"$OUT/sessions.txt" 2>&1
targetcli sessions detail >"$OUT/sessions-detail.txt" 2>&1
cat "$OUT/sessions.txt" "$OUT/sessions-detail.txt"
cat "$SRPT_CFG/0x$TGT_PORT/tpgt_1/acls/$ACL/info" | tee "$OUT/acl-info.txt"
grep -Eq "alias: .*sid: [0-9]+ type: Normal session-state: LOGGED_IN" "$OUT/sessions.txt" ||
	fail "targetcli sessions lists no logged-in SRP session"
grep -q "name: ib.$INI_ID (NOT AUTHENTICATED)" "$OUT/sessions-detail.txt" || fail "sessions detail: no 'name: ib.$INI_ID (NOT AUTHENTICATED)'"
grep -Eq "mapped-lun: 0 backstore: .* mode: rw" "$OUT/sessions-detail.txt" ||
	fail "sessions detail: no mapped LUN 0"
grep -Eq "address: $TGT_IP4 \(RDMA/CM\) +cid: [0-9]+ connection-state: LOGGED_IN" "$OUT/sessions-detail.txt" ||
	fail "sessions detail: no RDMA/CM channel from $TGT_IP4 in LOGGED_IN"
grep -Eq "Credits: req_lim -?[0-9]+, in flight [0-9]+, send contexts [0-9]+ of [0-9]+ free" "$OUT/acl-info.txt" ||
	fail "ACL info: no credits line"
ok "targetcli sessions: the SRP session, its LUNs and its channel"

srp_logout
wait_target_idle 30
echo 0 >$T/events/ib_srpt/enable
echo 0 >/sys/kernel/debug/ib_srpt/test_send_ctx_limit
cp $T/trace "$OUT/trace.txt"
grep -c 'srpt_' "$OUT/trace.txt" | sed 's/^/trace events: /'

step "the events and their fields"
want() { # want DESCRIPTION REGEX
	local n; n=$(grep -cE "$2" "$OUT/trace.txt")
	[ "$n" -gt 0 ] || fail "trace: no $1 (/$2/)"
	echo "  $1: $n, e.g. $(grep -E -m1 "$2" "$OUT/trace.txt" | sed 's/^ *//' | cut -c1-220)"
}
S="session=$ACL"
want "accepted login" "srpt_login: $S initiator=$ACL accepted reason=\"accepted\" rej=0x0 it_iu_len=[0-9]+ credits=[1-9][0-9]*"
want "refused login" "srpt_login: session=$TGT_IP4 initiator=$ACL rejected reason=\"target_port_id does not match the service GUID\" rej=0x10003"
want "channel live" "srpt_channel_state: $S ch=[0-9]+ connecting -> live"
want "channel disconnecting" "srpt_channel_state: $S ch=[0-9]+ live -> disconnecting"
want "disconnect reason" "srpt_disconnect: $S ch=[0-9]+ why=\"[a-zA-Z]"
want "WRITE received" "srpt_cmd_recv: $S qp=[0-9]+ tag=0x[0-9a-f]+ lun=0 opcode=0x2a dir=write data_len=[1-9]"
want "READ received" "srpt_cmd_recv: $S qp=[0-9]+ tag=0x[0-9a-f]+ lun=0 opcode=0x28 dir=read data_len=[1-9]"
want "GOOD response with latency" "srpt_cmd_rsp: $S qp=[0-9]+ tag=0x[0-9a-f]+ lun=0 opcode=0x2[a8] status=0x00 residual=0 latency_us=[0-9]+"
want "send completion" "srpt_send_done: $S qp=[0-9]+ send_ctx=[0-9]+ status=0"
want "credits granted" "srpt_credits: $S granted=[1-9][0-9]* req_lim=[0-9]+"
want "IU waiting" "srpt_iu_wait: $S depth=[1-9][0-9]*"
want "IU resumed" "srpt_iu_resume: $S depth=[0-9]+"
# Every IU that waited was served: as many resumes as waits.
nw=$(grep -c 'srpt_iu_wait:' "$OUT/trace.txt"); nr=$(grep -c 'srpt_iu_resume:' "$OUT/trace.txt")
[ "$nw" = "$nr" ] || fail "trace: $nw IUs waited but $nr were resumed"
# Commands received and answered pair up by tag.
nc=$(grep -c 'srpt_cmd_recv:' "$OUT/trace.txt"); na=$(grep -c 'srpt_cmd_rsp:' "$OUT/trace.txt")
[ "$nc" -gt 100 ] && [ "$na" -ge "$nc" ] || fail "trace: $nc commands received, $na answered"
ok "every event with sane fields ($nc commands, $nw waits)"

step "sessions after the logout"
targetcli sessions >"$OUT/sessions-after.txt" 2>&1
grep -q "no open sessions" "$OUT/sessions-after.txt" || fail "targetcli sessions after logout: $(cat "$OUT/sessions-after.txt")"
grep -q "^No active SRP session" "$SRPT_CFG/0x$TGT_PORT/tpgt_1/acls/$ACL/info" || fail "ACL info after logout: $(cat "$SRPT_CFG/0x$TGT_PORT/tpgt_1/acls/$ACL/info")"
ok "no session listed after the logout"

target_teardown
unload_all
check_dmesg
echo "observe: all checks passed"
