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
# After the last point: teardown, unload, check_dmesg with kmemleak.
# Per point, faults-results.tsv records how many failures were injected
# (fail_function's `times` countdown) and the outcome.
. /srpt/lib.sh

[ "$SRPT" = port ] || fail "port-faults injects into the port's glue: run it with SRPT=port"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
FI=/sys/kernel/debug/fail_function
[ -d "$FI" ] || fail "no $FI: port-faults needs the check-debug kernel (CONFIG_FAIL_FUNCTION)"

POINTS=${FAULT_POINTS:-srpt_kzalloc srpt_kvzalloc srpt_dp_ch_create srpt_dp_map_recv srpt_dp_map_send srpt_dp_srq_create srpt_dp_srq_map_recv srpt_dp_srq_post_recv srpt_dp_post_recv srpt_dp_post_send srpt_dp_post_rdma_read srpt_dp_post_zlw srpt_dp_cm_accept srpt_dp_session_setup srpt_dp_submit_cmd srpt_dp_submit_tmr}
RATES=${FAULT_RATES:-1 5 20}
TIMES=1000000

setup_veth_rxe
load_srpt
TGT_PORT=$(gid_hex rxe1)
INI_ID=$(gid_hex rxe1)
GUID=$(srpt_guid rxe0)
run "modprobe null_blk" modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512
TC_BLOCK_DEV=/dev/nullb0 targetcli_config "$TGT_PORT" "$INI_ID"
set_rdma_cm_port
LOGIN="id_ext=$GUID,ioc_guid=$GUID,initiator_ext=${INI_ID:0:16},dest=$TGT_IP4:$RDMA_CM_PORT"
ATTR=$SRPT_CFG/0x$TGT_PORT/tpgt_1/attrib/use_srq
modprobe -a sd_mod sg ib_srp || fail "modprobe initiator"
ADD=/sys/class/infiniband_srp/srp-rxe1-1/add_target

fi_off() { echo >"$FI/inject"; }
fi_on() { # fi_on FUNCTION PERCENT
	echo "$1" >"$FI/inject" || fail "fail_function does not accept $1 (not whitelisted? glue/fault_points.c)"
	case $1 in
	srpt_kzalloc|srpt_kvzalloc) echo 0 >"$FI/$1/retval" ;;
	*) echo -12 >"$FI/$1/retval" ;;
	esac
	echo "$2" >"$FI/probability"
	echo 1 >"$FI/interval"
	echo "$TIMES" >"$FI/times"
	echo 0 >"$FI/space"
	echo 0 >"$FI/verbose"   # no stack dump per failure (BAD_DMESG: Call Trace)
}
injected() { echo $(( TIMES - $(cat "$FI/times") )); }
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

fi_off
printf 'point\trate\tinjected\tlogins_ok\tlogins_failed\tio_errors\tverify_mismatch\tverdict\n' >"$OUT/faults-results.tsv"
failed=0
for fn in $POINTS; do
	for rate in $RATES; do
		step "inject $fn at $rate %"
		mark=$(dmesg | wc -l)
		lok=0 lfail=0 ioerr=0 vmis=0 verdict=PASS why=
		fi_on "$fn" "$rate"
		for round in 1 2 3; do
			# use_srq toggled between rounds (written with no login)
			echo $(( round % 2 )) >"$ATTR" 2>/dev/null
			if echo "$LOGIN" >"$ADD" 2>/dev/null; then
				lok=$((lok + 1))
				# a LUN scan that failed under injection leaves no disk
				wait_for 30 "a disk" srp_disks_present
				for d in $(srp_disks); do
					[ -b "$d" ] || continue
					fio --name=fi --filename="$d" --direct=1 --ioengine=libaio --iodepth=8 \
						--rw=randwrite --bs=4k --size=2M --verify=crc32c --do_verify=1 \
						--verify_fatal=1 --output="$OUT/fio-$fn-$rate-$round.txt" >/dev/null 2>&1
					if grep -qiE 'verify failed|bad magic|bad header|verify: ' "$OUT/fio-$fn-$rate-$round.txt"; then
						vmis=$((vmis + 1))
					elif ! grep -q 'err= 0' "$OUT/fio-$fn-$rate-$round.txt"; then
						ioerr=$((ioerr + 1))
					fi
					break
				done
			else
				lfail=$((lfail + 1))
			fi
			logout_all || { verdict=FAIL; why="initiator could not log out"; }
		done
		n=$(injected)
		fi_off
		echo 0 >"$ATTR" 2>/dev/null
		logout_all || { verdict=FAIL; why="${why:+$why; }initiator could not log out"; }
		if ! wait_for 60 "rc qps gone" sh -c '! rdma res show qp 2>/dev/null | grep -q "type RC"'; then
			verdict=FAIL; why="${why:+$why; }channels not released: $(rdma res show qp | grep -c 'type RC') RC QP(s)"
		fi
		[ "$vmis" = 0 ] || { verdict=FAIL; why="${why:+$why; }$vmis verify mismatch(es)"; }
		# the target still serves, injection off
		if [ "$verdict" = PASS ]; then
			if srp_login rxe1 "$LOGIN" 3; then
				dd_cmp "$DEV_LUN0" 4 0 >/dev/null
				srp_logout >/dev/null
				wait_target_idle 60 >/dev/null
			else
				verdict=FAIL; why="clean login after injection failed: $LOGIN_ERR"
			fi
		fi
		bad=$(dmesg | tail -n +$((mark + 1)) | dmesg_bad | head -3)
		[ -z "$bad" ] || { verdict=FAIL; why="${why:+$why; }dmesg: $(echo "$bad" | head -1 | cut -c1-120)"; }
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fn" "$rate" "$n" "$lok" "$lfail" "$ioerr" "$vmis" "$verdict" >>"$OUT/faults-results.tsv"
		echo "FAULT-RESULT point=$fn rate=$rate injected=$n logins_ok=$lok logins_failed=$lfail io_errors=$ioerr verify_mismatch=$vmis verdict=$verdict${why:+ reason=\"$why\"}"
		[ "$verdict" = PASS ] || failed=$((failed + 1))
	done
done
column -t -s "$(printf '\t')" "$OUT/faults-results.tsv" 2>/dev/null || cat "$OUT/faults-results.tsv"
[ "$failed" = 0 ] || fail "port-faults: $failed point/rate round(s) failed (faults-results.tsv)"

target_teardown
unload_all
check_dmesg
echo "port-faults: all points survived"
