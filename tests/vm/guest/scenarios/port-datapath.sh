#!/bin/bash
# Scenario port-datapath (SRPT=port): the data-path checks that e2e does
# not make, read from the port's debugfs counters
# (/sys/kernel/debug/ib_srpt/<session>-<id>/stats, docs/data-path.md):
#  1. the wait list in the real kernel: debugfs test_send_ctx_limit 4 gives
#     each channel 4 send contexts for 128 credits; fio at QD 64 must make
#     IUs wait (ius_waited > 0), every one is served (fio verify), and once
#     idle no credit is lost (req_lim == credits, nothing in flight, every
#     send context free, wait list empty). The login asks for ch_count=2:
#     the session must have exactly 2 channels and fio's I/O must reach
#     both (each channel's ius_received grows by > 100); the kicks that
#     serve the waiting IUs run on ib_srpt_wc (with a rescuer), not on
#     the system workqueue (workqueue_queue_work events);
#  1b. the seed's race: test_send_done_delay_us 10000 holds every successful
#     send completion 10 ms, and each channel gets exactly as many send
#     contexts as the initiator can have commands outstanding (the SCSI
#     queue depth), so the pool alone never makes an IU wait. fio QD 64
#     pinned to one CPU (one channel): IUs must arrive while every send
#     context is busy (ius_no_send_ctx > 0), which is only possible when
#     the initiator already used the credit of a response whose send
#     completion the target has not processed; they wait, are served in
#     order (fio verify), and no credit or context is lost;
#  1c. one worker per command: at QD 1, LIO's completion work of a command
#     (target_complete_ok_work, which sends the response) runs in the
#     worker that ran the channel's srpt_rx_work (the IU's submission)
#     just before it on that CPU, for at least 90 % of the commands: the
#     two queues share the CPU's pool, so the response needs no second
#     worker's wake-up (workqueue_execute_start events; docs/data-path.md);
#  1d. spare data pages (glue/target_core.c): channels made with debugfs
#     spare_pages_max 0 keep none (stats spare_pages 0) and fio verify of
#     4-128 KiB writes and reads passes; with the default they keep some,
#     at most spare_pages_max per channel, and fio verify passes;
#  1e. the spare pages are the channel's, not a send context's: after
#     128 KiB reads at QD 32 from every CPU filled each channel's pool,
#     2000 4k reads at QD 1 allocate no page (stats spare_misses
#     unchanged); with per-context spares the contexts the 128 KiB reads
#     had used kept the bound and a QD1 read could allocate each time;
#  2. task management under load: sg_reset -d (LUN RESET) in a loop during
#     fio verify: no corruption, no hang, credits conserved;
#  3. relogin loop: login, dd+cmp, logout, RELOGINS times; the module
#     refcount and the live slab objects come back to their baseline
#     (slab_compare's bounds, lib.sh).
. /srpt/lib.sh
. /srpt/stats.sh

[ "$SRPT" = port ] || fail "port-datapath checks the port's debugfs counters and test knobs: run it with SRPT=port"
RELOGINS=${RELOGINS:-20}

single_host_target "dest=$TGT_IP4:$RDMA_CM_PORT,ch_count=2"
mount_debugfs
KNOB=$DBG/test_send_ctx_limit
[ -w "$KNOB" ] || fail "no test knob $KNOB"
DELAY=$DBG/test_send_done_delay_us
[ -w "$DELAY" ] || fail "no test knob $DELAY"

# kick_trace_on / kick_trace_off FILE: the channels' kick work items
# (srpt_kick_work, glue/completion.c) queued on ib_srpt_wc between the two
# calls (workqueue_queue_work events), into FILE: each line is a channel
# kick.
TR=/sys/kernel/tracing
kick_trace_on() {
	mountpoint -q $TR || mount -t tracefs nodev $TR || fail "mount tracefs"
	echo 0 >$TR/tracing_on
	: >$TR/trace
	echo 'workqueue == "ib_srpt_wc"' >$TR/events/workqueue/workqueue_queue_work/filter ||
		fail "filter workqueue_queue_work on ib_srpt_wc"
	echo 1 >$TR/events/workqueue/workqueue_queue_work/enable || fail "enable workqueue_queue_work"
	echo 1 >$TR/tracing_on
}
kick_trace_off() {
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/workqueue/workqueue_queue_work/enable
	echo 0 >$TR/events/workqueue/workqueue_queue_work/filter
	grep -F 'function=srpt_kick_work ' $TR/trace >"$1"
	: >$TR/trace
}

# snapshot_received FILE: "<channel dir> <ius_received>" per channel
snapshot_received() {
	local f
	for f in "$DBG"/*/stats; do echo "$(basename "$(dirname "$f")") $(stat_of "$f" ius_received)"; done | sort >"$1"
}
# Idle channels hold every credit and every send context (stats.sh), no
# credit violation, no send completion held, and no command was released
# while work requests over its data were posted (the spare data pages
# rely on that: glue/target_core.c).
check_credits() {
	wait_for 10 "credits back" credits_conserved credit_violations send_done_held released_wrs_posted ||
		{ show_stats; fail "$1: credits or send contexts not returned, or a command released with work requests posted"; }
	ok "$1: every credit and send context returned"
}

step "1. wait list: 4 send contexts per channel, fio QD 64"
echo 4 >"$KNOB"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
[ -n "$(ls "$DBG"/*/stats 2>/dev/null)" ] || fail "no channel under $DBG"
show_stats
[ "$(stat_sum send_ctx_total)" -le $((4 * $(nchannels))) ] || fail "test knob ignored"
[ "$(nchannels)" = 2 ] || fail "ch_count=2 login: $(nchannels) channels in $DBG: $(ls "$DBG")"
grep -q "flags 0x80" <(dmesg) && grep -q "flags 0x81" <(dmesg) ||
	fail "expected one SINGLE (0x80) and one MULTI (0x81) channel login in dmesg"
ok "ch_count=2: the session has 2 channels (first SINGLE, then MULTI)"
# The initiator's bound on outstanding commands per channel, for step 1b.
QDEPTH=$(cat "/sys/block/${DEV_LUN0#/dev/}/device/queue_depth")
CANQ=$(cat "/sys/class/scsi_host/$SRP_HOST/can_queue")
OUTSTANDING=$((QDEPTH < CANQ ? QDEPTH : CANQ))
echo "initiator: LUN queue_depth $QDEPTH, can_queue $CANQ"
snapshot_received /tmp/rx0
kick_trace_on
fio --name=waitlist --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --iodepth=64 \
	--rw=randwrite --bs=4k --size=16M --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--output="$OUT/fio-waitlist.txt" >/dev/null 2>&1 || { cat "$OUT/fio-waitlist.txt"; fail "fio verify with 4 send contexts"; }
grep -q 'err= 0' "$OUT/fio-waitlist.txt" || fail "fio verify with 4 send contexts reported errors"
ok "fio QD 64 verify with 4 send contexts per channel"
kick_trace_off "$OUT/kick-queues.txt"
snapshot_received /tmp/rx1
join /tmp/rx0 /tmp/rx1 | tee "$OUT/multichannel.txt" | while read -r c a b; do
	echo "channel $c: ius_received $a -> $b (+$((b - a)))"
	[ $((b - a)) -gt 100 ] || { echo "channel $c got only $((b - a)) IUs during fio"; exit 1; }
done || fail "fio's I/O did not spread over both channels"
[ "$(wc -l <"$OUT/multichannel.txt")" = 2 ] || fail "channels changed during fio: $(cat "$OUT/multichannel.txt")"
ok "fio's I/O spread over both channels"
dd_cmp "$DEV_LUN1" 8 0
show_stats
waited=$(stat_sum ius_waited)
[ "$waited" -gt 0 ] || fail "no IU ever waited for a send context (ius_waited 0)"
ok "IUs waited for send contexts: $waited (max depth $(stat_sum wait_max_depth) summed over channels)"
kicks=$(grep -c 'workqueue=ib_srpt_wc ' "$OUT/kick-queues.txt")
[ "$kicks" -gt 0 ] || fail "IUs waited ($waited) but no channel kick was queued on ib_srpt_wc ($OUT/kick-queues.txt)"
ok "the kicks that served them ran on ib_srpt_wc ($kicks queued)"
check_credits "wait list"
srp_logout
wait_target_idle 30
echo 0 >"$KNOB"

# 10 ms: with 2 ms (one jiffy at HZ=250), an idle host saw 61 such IUs in
# 8221; the window scales with real time while the guest slows down under
# load, so the wider hold keeps the check far from zero on a busy host.
HOLD_US=10000
step "1b. held send completions: $OUTSTANDING send contexts per channel, completions held $HOLD_US us"
echo "$OUTSTANDING" >"$KNOB"
echo $HOLD_US >"$DELAY"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
for f in "$DBG"/*/stats; do
	[ "$(stat_of "$f" send_done_delay_us)" = $HOLD_US ] || fail "$f: delay knob not applied"
	[ "$(stat_of "$f" send_ctx_total)" = "$OUTSTANDING" ] || fail "$f: send_ctx_total $(stat_of "$f" send_ctx_total), not $OUTSTANDING"
done
# One CPU: every command goes through one channel (blk-mq maps the
# submitting CPU to a hardware queue), so that channel sees up to
# $OUTSTANDING outstanding commands.
fio --name=heldsend --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --iodepth=64 \
	--cpus_allowed=0 --rw=randwrite --bs=4k --size=16M --verify=crc32c --do_verify=1 \
	--verify_fatal=1 --output="$OUT/fio-heldsend.txt" >/dev/null 2>&1 ||
	{ cat "$OUT/fio-heldsend.txt"; fail "fio verify with held send completions"; }
grep -q 'err= 0' "$OUT/fio-heldsend.txt" || fail "fio verify with held send completions reported errors"
ok "fio QD 64 verify with send completions held $HOLD_US us"
show_stats
held=$(stat_sum send_done_held_total)
nosend=$(stat_sum ius_no_send_ctx)
waited=$(stat_sum ius_waited)
echo "held send completions $held, IUs that found every send context busy $nosend, IUs that waited $waited" |
	tee "$OUT/heldsend.txt"
[ "$held" -gt 0 ] || fail "no send completion was held"
[ "$nosend" -gt 0 ] || fail "no IU arrived while every send context was busy (ius_no_send_ctx 0)"
[ "$waited" -ge "$nosend" ] || fail "ius_waited $waited < ius_no_send_ctx $nosend"
ok "IUs that used a credit before the target saw its response's completion waited and were served"
check_credits "held send completions"
srp_logout
wait_target_idle 30
echo 0 >"$DELAY"
echo 0 >"$KNOB"

step "1c. one worker per command: QD 1 reads, LIO's response work beside the submission"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
mountpoint -q $TR || mount -t tracefs nodev $TR || fail "mount tracefs"
echo 0 >$TR/tracing_on
: >$TR/trace
echo 1 >$TR/events/workqueue/workqueue_execute_start/enable || fail "enable workqueue_execute_start"
echo 1 >$TR/tracing_on
fio --name=qd1 --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --iodepth=1 \
	--rw=randread --bs=4k --size=16M --number_ios=2000 \
	--output="$OUT/fio-one-worker.txt" >/dev/null 2>&1 || { cat "$OUT/fio-one-worker.txt"; fail "fio QD 1 reads"; }
echo 0 >$TR/tracing_on
echo 0 >$TR/events/workqueue/workqueue_execute_start/enable
grep -E 'function (srpt_rx_work|target_complete_ok_work)' $TR/trace >"$OUT/one-worker-trace.txt"
: >$TR/trace
# Per CPU, the pid of the last srpt_rx_work; each target_complete_ok_work
# after one counts as "same" when its pid is that one.
read -r total after same < <(awk '
	{ pid = $1; sub(/.*-/, "", pid); cpu = $2 }
	/function srpt_rx_work/ { last[cpu] = pid; next }
	/function target_complete_ok_work/ {
		total++
		if (cpu in last) { after++; if (last[cpu] == pid) same++ }
	}
	END { print total + 0, after + 0, same + 0 }' "$OUT/one-worker-trace.txt")
echo "LIO response works $total, after an srpt_rx_work on their CPU $after, in the same worker $same" |
	tee "$OUT/one-worker.txt"
[ "$total" -ge 1000 ] || fail "only $total target_complete_ok_work executions traced for 2000 QD 1 reads ($OUT/one-worker-trace.txt)"
[ $((same * 100)) -ge $((total * 90)) ] ||
	fail "LIO's response work ran in the submitting worker for only $same of $total commands: a second worker is woken per command ($OUT/one-worker-trace.txt)"
ok "LIO's response work ran in the worker that submitted the command: $same of $total"
check_credits "one worker per command"
srp_logout
wait_target_idle 30

step "1d. spare data pages: none with spare_pages_max 0, at most spare_pages_max otherwise"
SPARE=$DBG/spare_pages_max
[ -w "$SPARE" ] || fail "no knob $SPARE"
spare_default=$(cat "$SPARE")
[ "$spare_default" -gt 0 ] || fail "spare_pages_max defaults to $spare_default"
# Writes of 4 to 128 KiB then their verify reads, QD 16: block commands of
# many page counts (a context's spare of another count is dropped), and
# above the immediate-data size the writes' pages come through RDMA READ.
spare_fio() {
	fio --name="$1" --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --iodepth=16 \
		--rw=randwrite --bsrange=4k-128k --size=32M --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output="$OUT/fio-$1.txt" >/dev/null 2>&1 || { cat "$OUT/fio-$1.txt"; fail "fio verify ($1)"; }
	grep -q 'err= 0' "$OUT/fio-$1.txt" || fail "fio verify ($1) reported errors"
}
echo 0 >"$SPARE"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
all_channels spare_pages_max 0 || { show_stats; fail "channels made with spare_pages_max 0 did not take it"; }
spare_fio spare-off
show_stats
all_channels spare_pages 0 || fail "a channel kept data pages with spare_pages_max 0"
ok "spare_pages_max 0: fio verify passed and no channel kept a data page"
check_credits "spare pages off"
srp_logout
wait_target_idle 30
echo "$spare_default" >"$SPARE"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
all_channels spare_pages_max "$spare_default" || { show_stats; fail "channels did not take spare_pages_max $spare_default"; }
spare_fio spare-on
show_stats
spares=$(stat_sum spare_pages)
[ "$spares" -gt 0 ] || fail "no channel kept a data page after block I/O (spare_pages 0)"
for f in $(channels); do
	[ "$(stat_of "$f" spare_pages)" -le "$spare_default" ] ||
		fail "$f: spare_pages $(stat_of "$f" spare_pages) above spare_pages_max $spare_default"
done
ok "spare_pages_max $spare_default: fio verify passed, the channels keep $spares spare data pages, none above the bound"
check_credits "spare pages on"
srp_logout
wait_target_idle 30

step "1e. spare pages are the channel's: 4k QD1 reads after 128 KiB QD32 reads allocate no page"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
ncpu=$(nproc)
# One job per CPU, each pinned to its CPU: every hardware queue, so every
# channel, serves 128 KiB reads at QD 32 and ends with a full pool.
fio --name=spare-fill --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --rw=read --bs=128k \
	--iodepth=32 --size=32M --numjobs="$ncpu" --cpus_allowed="0-$((ncpu - 1))" \
	--cpus_allowed_policy=split --group_reporting --output="$OUT/fio-spare-fill.txt" >/dev/null 2>&1 ||
	{ cat "$OUT/fio-spare-fill.txt"; fail "fio spare-fill"; }
show_stats
for f in $(channels); do
	[ "$(stat_of "$f" spare_pages)" -ge 64 ] ||
		fail "$f: spare_pages $(stat_of "$f" spare_pages) after 128 KiB reads at QD 32 from every CPU (expected at least 64)"
done
misses0=$(stat_sum spare_misses)
fio --name=spare-qd1 --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
	--iodepth=1 --size=32M --number_ios=2000 --output="$OUT/fio-spare-qd1.txt" >/dev/null 2>&1 ||
	{ cat "$OUT/fio-spare-qd1.txt"; fail "fio spare-qd1"; }
misses1=$(stat_sum spare_misses)
show_stats
[ "$misses1" -eq "$misses0" ] ||
	fail "2000 4k reads at QD 1 allocated $((misses1 - misses0)) data pages with every channel's pool full (spare_misses $misses0 -> $misses1)"
ok "2000 4k reads at QD 1 after 128 KiB reads: no page allocated (spare_misses $misses1 on all channels, pools full)"
check_credits "spare pages are the channel's"
srp_logout
wait_target_idle 30

step "2. task management under load: sg_reset -d during fio verify"
srp_login rxe1 "$LOGIN" || fail "login failed: $LOGIN_ERR"
SG=$(lsscsi -g | awk -v d="$DEV_LUN0" '$0 ~ d {print $NF}')
fio --name=tmr --filename="$DEV_LUN0" --direct=1 --ioengine=libaio --iodepth=32 \
	--rw=randwrite --bs=8k --size=32M --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--output="$OUT/fio-tmr.txt" >/dev/null 2>&1 &
FIO=$!
resets=0
for i in 1 2 3 4 5 6; do
	sleep 2
	kill -0 $FIO 2>/dev/null || break
	if sg_reset -d "$DEV_LUN0" >/tmp/sg_reset.out 2>&1; then
		resets=$((resets + 1))
	else
		cat /tmp/sg_reset.out
	fi
done
wait $FIO
rc=$?
grep -E 'err=|IOPS' "$OUT/fio-tmr.txt" | head -4
[ $rc = 0 ] && grep -q 'err= 0' "$OUT/fio-tmr.txt" || fail "fio verify during LUN resets failed (exit $rc)"
[ $resets -gt 0 ] || fail "no sg_reset -d succeeded"
ok "fio verify passed across $resets LUN resets"
sg_reset -b "$DEV_LUN0" >/tmp/sg_reset.out 2>&1 && ok "sg_reset -b" || echo "sg_reset -b: $(cat /tmp/sg_reset.out)"
dd_cmp "$DEV_LUN0" 8 0
dmesg | grep -c "task management function" | sed 's/^/task management requests seen by the target: /'
check_credits "task management"
show_stats
srp_logout
wait_target_idle 30

step "3. relogin loop x$RELOGINS"
refcnt0=$(cat /sys/module/ib_srpt/refcnt)
# Live slab objects, not slab pages: on the check-debug kernel the pages
# also hold KASAN's quarantine of freed objects, which slab_snapshot
# empties. The pages are still reported (relogin.txt, relogin-slab.txt).
slab_snapshot "$OUT/slabinfo.relogin-before"
pages0=$SLAB_PAGES
meminfo0=$(awk '/^Slab:/{print $2}' /proc/meminfo)
for i in $(seq 1 "$RELOGINS"); do
	srp_login rxe1 "$LOGIN" >/tmp/login.out || { cat /tmp/login.out; fail "relogin $i failed: $LOGIN_ERR"; }
	dd_cmp "$DEV_LUN0" 1 $((i % 32)) >/dev/null
	srp_logout >/dev/null
	wait_target_idle 30 >/dev/null
done
slab_snapshot "$OUT/slabinfo.relogin-after"
refcnt1=$(cat /sys/module/ib_srpt/refcnt)
meminfo1=$(awk '/^Slab:/{print $2}' /proc/meminfo)
echo "ib_srpt refcnt $refcnt0 -> $refcnt1, Slab ${meminfo0} kB -> ${meminfo1} kB" | tee "$OUT/relogin.txt"
[ "$refcnt0" = "$refcnt1" ] || fail "module refcount $refcnt0 -> $refcnt1 after $RELOGINS relogins"
slab_compare "over $RELOGINS relogins" "$OUT/slabinfo.relogin-before" "$OUT/slabinfo.relogin-after" \
	"$OUT/relogin-slab.txt" "$pages0" "$SLAB_PAGES"
[ -z "$(ls "$DBG"/*/stats 2>/dev/null)" ] || fail "debugfs entries left: $(ls "$DBG")"
ok "$RELOGINS relogins: refcount and debugfs back to baseline"

target_teardown
unload_all
check_dmesg
echo "port-datapath: all checks passed"
