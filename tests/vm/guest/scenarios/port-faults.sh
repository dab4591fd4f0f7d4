#!/bin/bash
# Scenario port-faults (check-debug kernel only, SRPT=port): fail_function
# makes the glue's fallible entry points fail (glue/fault_points.c) while an
# initiator logs in, writes and verifies, toggles use_srq and logs out.
# For every point and every rate (FAULT_RATES, default 1 5 20 %):
#   - login attempts and fio verify I/O run with the injection on; a failed
#     login (LOGIN_REJ / add_target error) and I/O errors are accepted, a
#     verify mismatch is not;
#   - the injection off, the initiator logs out: the target must release
#     every channel (no RC QP left) - an injected failure that leaks a
#     channel fails here;
#   - then a clean login with dd+cmp proves the target still serves;
#   - dmesg since the round began must show no checker report (lib.sh).
# A point a rate never hit (a per-login call at 1 % over three logins) gets
# one more round, "first": its first call fails (probability 100, times 1),
# so that every point is injected at least once.
# Then every point at once, at FAULT_ALL_RATE (5 %), with `rdma link delete
# rxe1` under fio and the device added back: the same checks afterwards.
# If ib_srpt's add of the returning device failed under the injection (it
# logs "adding rxe1 failed" and does not serve it), the device is added
# again with the injection off and must be served (FAULT-DEVICE-ADD line).
# FAULT_PER_POINT=0 runs only this all-points round.
# How each injected failure ended is read from the port's tracepoints
# (enabled for the round): logins rejected (srpt_login ... rejected: a
# LOGIN_REJ or a failed add_target), disconnects (srpt_disconnect), and
# responses that were not GOOD (srpt_cmd_rsp status != 0: CHECK CONDITION,
# BUSY); an I/O the core answered BUSY itself (srpt_dp_submit_cmd failed)
# has no tracepoint and shows as an fio retry or error.
# After the last round: teardown, unload, check_dmesg with kmemleak, and
# unreclaimable slab back to its value before anything was loaded
# (slab_check, lib.sh).
# Per point, faults-results.tsv records how many failures were injected
# (fail_function's `times` countdown) and the outcome.
. /srpt/lib.sh

[ "$SRPT" = port ] || fail "port-faults injects into the port's glue: run it with SRPT=port"
mount_debugfs
FI=/sys/kernel/debug/fail_function
[ -d "$FI" ] || fail "no $FI: port-faults needs the check-debug kernel (CONFIG_FAIL_FUNCTION)"

POINTS=${FAULT_POINTS:-srpt_kzalloc srpt_kvzalloc srpt_dp_ch_create srpt_dp_map_recv srpt_dp_map_send srpt_dp_srq_create srpt_dp_srq_map_recv srpt_dp_srq_post_recv srpt_dp_post_recv srpt_dp_post_send srpt_dp_post_rdma_read srpt_dp_post_zlw srpt_dp_cm_accept srpt_dp_session_setup srpt_dp_submit_cmd srpt_dp_submit_tmr}
RATES=${FAULT_RATES:-1 5 20}
ROUNDS=${FAULT_ROUNDS:-3}
ALL_RATE=${FAULT_ALL_RATE:-5}
TIMES=1000000

slab_baseline
single_host_target --nullb "dest=$TGT_IP4:$RDMA_CM_PORT"
ATTR=$SRPT_CFG/0x$TGT_PORT/tpgt_1/attrib/use_srq
modprobe -a sd_mod sg ib_srp || fail "modprobe initiator"
ADD=/sys/class/infiniband_srp/srp-rxe1-1/add_target

fi_off() { echo >"$FI/inject"; }
fi_add() { # fi_add FUNCTION: one more function on the injection list
	echo "$1" >"$FI/inject" || fail "fail_function does not accept $1 (not whitelisted? glue/fault_points.c)"
	# retval is parsed unsigned (kstrtoull): -ENOMEM as its 64-bit
	# two's complement, which bash's printf gives for -12.
	local rv=0
	case $1 in srpt_kzalloc|srpt_kvzalloc) ;; *) rv=$(printf '%#x' -12) ;; esac
	echo "$rv" >"$FI/$1/retval" || fail "fail_function refuses retval $rv for $1"
	[ "$(cat "$FI/$1/retval")" = "${rv#0x}" ] || [ "$(cat "$FI/$1/retval")" = "$rv" ] ||
		fail "fail_function $1 retval reads $(cat "$FI/$1/retval"), not $rv"
}
fi_arm() { # fi_arm PERCENT TIMES
	echo "$1" >"$FI/probability"
	echo 1 >"$FI/interval"
	echo "$2" >"$FI/times"
	echo 0 >"$FI/space"
	echo 0 >"$FI/verbose"   # no stack dump per failure (BAD_DMESG: Call Trace)
}
injected() { echo $(( ARMED - $(cat "$FI/times") )); }

T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs tracefs $T || fail "cannot mount tracefs"
# The ring buffer's size before the scenario grows it: its page descriptors
# are kmalloc'ed (2 x 1024 of them at 4096 kB on two CPUs, ~2060 objects in
# kmalloc-64), so it is shrunk back before slab_check compares the caches.
# At boot the file reads "7 (expanded: 1408)": the first number counts.
TRACE_KB0=$(awk '{print $1; exit}' $T/buffer_size_kb)
echo 4096 >$T/buffer_size_kb
echo 'status != 0' >$T/events/ib_srpt/srpt_cmd_rsp/filter
trace_on() {
	: >$T/trace
	local e; for e in srpt_login srpt_disconnect srpt_cmd_rsp; do echo 1 >$T/events/ib_srpt/$e/enable; done
}
trace_off() { # -> LREJ DISC NOTGOOD of the round
	echo 0 >$T/events/ib_srpt/enable
	cat $T/trace >>"$OUT/faults-trace.txt"
	LREJ=$(grep -c 'srpt_login:.* rejected' $T/trace)
	DISC=$(grep -c 'srpt_disconnect:' $T/trace)
	NOTGOOD=$(grep -c 'srpt_cmd_rsp:' $T/trace)
}
logout_all() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_for 60 "remote ports gone" sh -c '[ -z "$(ls /sys/class/srp_remote_ports/ 2>/dev/null)" ]'
}
srp_disks() { # block devices of the current ib_srp hosts
	local h
	for h in $(srp_hosts); do ls -d /sys/class/scsi_device/"${h#host}":*/device/block/* 2>/dev/null; done |
		xargs -r -n1 basename | sed 's|^|/dev/|'
}
srp_disks_present() { [ -n "$(srp_disks)" ]; }

# one_round ROUND TAG: use_srq toggle, a login, fio verify on its first
# disk, a LUN reset; counts into lok lfail ioerr vmis
one_round() {
	echo $(( $1 % 2 )) >"$ATTR" 2>/dev/null  # use_srq toggled (no login open)
	if srp_add_target "$ADD" "$LOGIN"; then
		lok=$((lok + 1))
		# a LUN scan that failed under injection leaves no disk
		wait_for 30 "a disk" srp_disks_present
		local d
		for d in $(srp_disks); do
			[ -b "$d" ] || continue
			fio_round "$d" "$OUT/fio-$2-$1.txt" ${3:+"$3"}
			# A LUN RESET: the only way ib_srp sends a task
			# management function without a SCSI timeout, so
			# that srpt_dp_submit_tmr is reached. Its answer may
			# be FAILED under injection (the SCSI error handler
			# then escalates); what counts is what follows.
			sg_reset -d "$d" >/dev/null 2>&1 || true
			break
		done
	else
		echo "add_target failed: $LOGIN_ERR"
		lfail=$((lfail + 1))
	fi
	logout_all || { verdict=FAIL; why="initiator could not log out"; }
}
fio_round() { # fio_round DEV OUTPUT [DURING]: 2 MiB randwrite + crc32c verify
	fio --name=fi --filename="$1" --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bs=4k --size=2M --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --output="$2" >/dev/null 2>&1 &
	local pid=$!
	[ -z "${3:-}" ] || { sleep 2; $3; }
	wait $pid
	if grep -qiE 'verify failed|bad magic|bad header|verify: ' "$2"; then
		vmis=$((vmis + 1))
	elif ! grep -q 'err= 0' "$2"; then
		ioerr=$((ioerr + 1))
	fi
}
# after_round: injection off; the initiator logs out, every channel is
# released, a clean login with dd+cmp works, dmesg since MARK is clean
after_round() {
	# The target closes a channel (drain write, release) only at the CM's
	# timewait exit, seconds after the logout: let that happen with the
	# injection still on, or those points are never reached. Whether the
	# channels went is checked below, with the injection off.
	wait_for 90 "rc qps gone" sh -c '! rdma res show qp 2>/dev/null | grep -q "type RC"' || true
	n=$(injected)
	fi_off
	trace_off
	echo 0 >"$ATTR" 2>/dev/null
	logout_all || { verdict=FAIL; why="${why:+$why; }initiator could not log out"; }
	if ! wait_for 60 "rc qps gone" sh -c '! rdma res show qp 2>/dev/null | grep -q "type RC"'; then
		verdict=FAIL; why="${why:+$why; }channels not released: $(rdma res show qp | grep -c 'type RC') RC QP(s)"
	fi
	[ "$vmis" = 0 ] || { verdict=FAIL; why="${why:+$why; }$vmis verify mismatch(es)"; }
	if [ "$verdict" = PASS ]; then
		if srp_login rxe1 "$LOGIN" 3; then
			dd_cmp "$DEV_LUN0" 4 0 >/dev/null
			srp_logout >/dev/null
			wait_target_idle 60 >/dev/null
		else
			verdict=FAIL; why="clean login after injection failed: $LOGIN_ERR"
		fi
	fi
	bad=$(dmesg_since "$mark" | dmesg_bad | head -3)
	[ -z "$bad" ] || { verdict=FAIL; why="${why:+$why; }dmesg: $(echo "$bad" | head -1 | cut -c1-120)"; }
}
record() { # record POINT RATE
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$n" "$lok" "$lfail" \
		"$LREJ" "$DISC" "$NOTGOOD" "$ioerr" "$vmis" "$verdict" >>"$OUT/faults-results.tsv"
	echo "FAULT-RESULT point=$1 rate=$2 injected=$n logins_ok=$lok logins_failed=$lfail login_rej=$LREJ disconnects=$DISC not_good=$NOTGOOD io_errors=$ioerr verify_mismatch=$vmis verdict=$verdict${why:+ reason=\"$why\"}"
	[ "$verdict" = PASS ] || failed=$((failed + 1))
}
begin_round() { # begin_round PERCENT TIMES FUNCTION...
	local p=$1 t=$2; shift 2
	mark=$(dmesg_mark)
	lok=0 lfail=0 ioerr=0 vmis=0 verdict=PASS why=
	trace_on
	local f; for f in "$@"; do fi_add "$f"; done
	ARMED=$t
	fi_arm "$p" "$t"
}

fi_off
printf 'point\trate\tinjected\tlogins_ok\tlogins_failed\tlogin_rej\tdisconnects\tnot_good\tio_errors\tverify_mismatch\tverdict\n' >"$OUT/faults-results.tsv"
: >"$OUT/faults-trace.txt"
failed=0
# FAULT_PER_POINT=0 runs no per-point round: only the all-points round
# with the link cut (to repeat that part alone).
per_point=$POINTS
[ "${FAULT_PER_POINT:-1}" = 1 ] || per_point=
for fn in $per_point; do
	hit=0
	for rate in $RATES; do
		step "inject $fn at $rate %"
		begin_round "$rate" "$TIMES" "$fn"
		for round in $(seq 1 "$ROUNDS"); do one_round "$round" "$fn-$rate"; done
		after_round
		record "$fn" "$rate"
		hit=$((hit + n))
	done
	if [ "$hit" = 0 ]; then
		# Rounds 1 and 2: with and without the SRQ, so that a point
		# only one receive path calls is reached.
		step "inject $fn: its first call fails (no rate hit it)"
		begin_round 100 1 "$fn"
		one_round 1 "$fn-first"
		[ "$(injected)" != 0 ] || one_round 2 "$fn-first"
		after_round
		# A point never reached proves nothing: not a pass.
		[ "$n" != 0 ] || { verdict=FAIL; why="${why:+$why; }never called: no failure injected"; }
		record "$fn" first
	fi
done

# port_served: whether ib_srpt serves the target port (on rxe1): configfs
# creates a port directory only for a port the driver has (the
# configuration must be torn down first).
port_served() {
	mkdir "$SRPT_CFG/0x$TGT_PORT" 2>/dev/null && rmdir "$SRPT_CFG/0x$TGT_PORT"
}
link_cut() { # under fio: the exported device goes away and comes back
	run "rdma link delete rxe1" rdma link delete rxe1
	sleep 3
	readd_rxe1
	# the initiator's port on rxe1 went with it: ib_srp adds it back
	wait_for 10 "ib_srp port on rxe1" test -e "$ADD" || fail "no $ADD after rdma link add"
}
step "every point at once at $ALL_RATE %, rdma link delete under fio"
begin_round "$ALL_RATE" "$TIMES" $POINTS
add_failures=0
for round in $(seq 1 "$ROUNDS"); do
	one_round "$round" "all-$ALL_RATE"
	cut_mark=$(dmesg_mark)
	# the device goes away under fio, comes back, is exported again
	if srp_add_target "$ADD" "$LOGIN"; then
		lok=$((lok + 1))
		if wait_for 30 "a disk" srp_disks_present; then
			fio_round "$(srp_disks | head -1)" "$OUT/fio-all-cut-$round.txt" link_cut
		else
			link_cut
		fi
	else
		echo "add_target failed: $LOGIN_ERR"
		lfail=$((lfail + 1))
		link_cut
	fi
	logout_all || { verdict=FAIL; why="initiator could not log out after the link cut"; }
	fi_off
	target_teardown >/dev/null
	mkdir -p "$SRPT_CFG"
	# With every point armed, ib_srpt's own add of the returning rxe1 can
	# fail (an allocation, the device's port or SRQ set-up): it logs
	# "adding rxe1 failed" and leaves the device unserved, as the in-tree
	# driver does when srpt_add_one fails, so configfs knows no port of
	# that name. A clean ending of the injected failure; the way back an
	# administrator has is the device added again, and with the injection
	# off the port must then serve it.
	if ! wait_for 15 "ib_srpt serving rxe1's port" port_served; then
		dmesg_since "$cut_mark" | grep -q 'ib_srpt: adding rxe1 failed' ||
			{ verdict=FAIL; why="${why:+$why; }rxe1's port not served after the link cut, and no failed add logged"; }
		add_failures=$((add_failures + 1))
		echo "the port did not take rxe1 back under injection (add failed); adding it again without injection"
		link_cut
		wait_for 15 "ib_srpt serving rxe1's port" port_served ||
			{ verdict=FAIL; why="${why:+$why; }ib_srpt did not take rxe1 back with the injection off"; }
	fi
	TC_BLOCK_DEV=/dev/nullb0 targetcli_config "$TGT_PORT" "$INI_ID" >/dev/null
	set_rdma_cm_port >/dev/null
	fi_arm "$ALL_RATE" "$(cat "$FI/times")"
	for f in $POINTS; do fi_add "$f"; done
done
after_round
record all "$ALL_RATE+cut"
msg="FAULT-DEVICE-ADD the port's add of rxe1 failed under injection after $add_failures of $ROUNDS link cut(s)"
[ "$add_failures" = 0 ] || msg="$msg, each followed by a re-add without injection (verdict above)"
echo "$msg"

column -t -s "$(printf '\t')" "$OUT/faults-results.tsv" 2>/dev/null || cat "$OUT/faults-results.tsv"
[ "$failed" = 0 ] || fail "port-faults: $failed point/rate round(s) failed (faults-results.tsv)"

target_teardown
unload_all
check_dmesg
echo 0 >$T/events/ib_srpt/enable 2>/dev/null
echo "$TRACE_KB0" >$T/buffer_size_kb || fail "cannot shrink the trace buffer back to ${TRACE_KB0} kB"
step "slab back to the baseline"
slab_check "after the injected failures, teardown and unload"
echo "port-faults: all points survived"
