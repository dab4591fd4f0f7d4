#!/bin/bash
# Scenario integrity: fio verify (zero mismatches) and target-side checks on
# every backend LUNs are made of (integrity-lib.sh), under the initiator and
# target settings that change how data moves:
#   - srp_max_req_size (target): default 8276, or 8260 as blktests uses;
#   - ib_srp cmd_sg_entries 1/16/255 (one or many data descriptors),
#     use_imm_data 0/1 (data-out inside the SRP_CMD IU, RDMA READ otherwise),
#     ch_count 1/2, and max_sect=131072 in the login so that a 4-8 MiB
#     request stays one command when the descriptors allow it.
# INTEGRITY_CELLS names the cells to run (default: the risk-chosen pair of
# `make check`); `make check-integrity` runs every cell.
. /srpt/lib.sh
. /srpt/integrity-lib.sh

# Cells: every combination of the settings that change how data moves,
#   {imm,noimm}-sg{1,16,255}-{8276,8260}-ch{1,2}
# = use_imm_data, cmd_sg_entries, srp_max_req_size, ch_count (24 cells).
# INTEGRITY_CELLS=all (make check-integrity) runs them all: the two
# asynchronous backends (nullb, filedio) with the core shapes, and the two
# sweep cells below on every backend with every shape. Unset (make
# check): the risk-chosen pair CI_CELLS.
ALL_CELLS=$(for i in imm noimm; do for g in 1 16 255; do for r in 8276 8260; do
	for c in 1 2; do echo "$i-sg$g-$r-ch$c"; done; done; done; done)
SWEEP_CELLS="imm-sg255-8276-ch2 noimm-sg255-8260-ch1"
CI_CELLS="imm-sg255-8276-ch2 noimm-sg16-8260-ch1"
CELLS=${INTEGRITY_CELLS:-$CI_CELLS}
[ "$CELLS" = all ] && CELLS=$ALL_CELLS
# Grouped by srp_max_req_size: ib_srpt is reloaded only when it changes.
CELLS=$(for c in $CELLS; do echo "$c"; done | grep -- '-8276-'; for c in $CELLS; do echo "$c"; done | grep -v -- '-8276-')
INTEGRITY_FULL=${INTEGRITY_CELLS:+1}
ALL_BACKENDS="nullb sdebug loop filebuf filedio rd"
if [ -n "$INTEGRITY_FULL" ]; then
	BACKENDS=${INTEGRITY_BACKENDS:-$ALL_BACKENDS}
else
	BACKENDS=${INTEGRITY_BACKENDS:-nullb sdebug filedio rd}
fi
# Shapes: <rw>-<bs>-qd<depth>[-buf]; see fio_shape.
SHAPES_CORE="randwrite-4k-qd32 randwrite-mixed-qd64 write-4m-qd4"
SHAPES_CI="randwrite-512-qd1 randwrite-4k-qd32 randwrite-mixed-qd64 write-4m-qd4 write-8m-qd2 write-1m-qd4-buf"
SHAPES_ALL="randwrite-512-qd1 randwrite-4k-qd1 randwrite-4k-qd32 write-64k-qd16
randwrite-mixed-qd64 write-1m-qd8 write-4m-qd4 write-8m-qd2 randwrite-4k-qd16-buf write-1m-qd4-buf"

only() { # only BACKEND...: those of them that were made
	local b out=
	for b in "$@"; do case " $BACKENDS " in *" $b "*) out="$out $b" ;; esac; done
	echo $out
}
# cell NAME -> CELL_SRPT CELL_SRP CELL_LOGIN CELL_SHAPES CELL_BACKENDS
cell() {
	local imm sg req ch
	IFS=- read -r imm sg req ch <<<"$1"
	case "$imm/$sg/$req/$ch" in
	imm/sg1/*|imm/sg16/*|imm/sg255/*|noimm/sg1/*|noimm/sg16/*|noimm/sg255/*) ;;
	*) fail "unknown integrity cell '$1'" ;;
	esac
	case "$req/$ch" in 8276/ch1|8276/ch2|8260/ch1|8260/ch2) ;; *) fail "unknown integrity cell '$1'" ;; esac
	CELL_SRPT=
	[ "$req" = 8276 ] || CELL_SRPT="srp_max_req_size=$req"
	CELL_SRP="cmd_sg_entries=${sg#sg} use_imm_data=$([ "$imm" = imm ] && echo 1 || echo 0)"
	CELL_LOGIN="max_sect=131072,ch_count=${ch#ch}"
	if [ -z "$INTEGRITY_FULL" ]; then
		case $1 in
		imm-sg255-8276-ch2) CELL_SHAPES=$SHAPES_CI; CELL_BACKENDS=$BACKENDS ;;
		*) CELL_SHAPES=$SHAPES_CORE; CELL_BACKENDS=$(only nullb filedio) ;;
		esac
	elif echo "$SWEEP_CELLS" | grep -qw -- "$1"; then
		CELL_SHAPES=$SHAPES_ALL; CELL_BACKENDS=$BACKENDS
	else
		CELL_SHAPES=$SHAPES_CORE; CELL_BACKENDS=$(only nullb filedio)
	fi
}

setup_veth_rxe
TGT_PORT=$(gid_hex rxe1)
INI_ID=$(gid_hex rxe1)
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config

# Cells grouped by target parameters: ib_srpt is reloaded only when they
# change (the backstores stay).
loaded_srpt=none
backstores_made=0
results=()
for c in $CELLS; do
	cell "$c"
	CELL_DESC="cell $c: ib_srpt ${CELL_SRPT:-defaults}; ib_srp $CELL_SRP; login $CELL_LOGIN"
	step "$CELL_DESC"
	if [ "$loaded_srpt" != "$CELL_SRPT" ]; then
		if [ "$loaded_srpt" != none ]; then
			# shellcheck disable=SC2115
			targetcli "/srpt delete ib.$TGT_PORT" >/dev/null 2>&1 ||
				fail "targetcli: delete the srpt port"
			echo 0 >"$SRPT_CFG/discovery_auth/rdma_cm_port"
			rmdir "$SRPT_CFG" || fail "rmdir $SRPT_CFG"
			rmmod ib_srpt || fail "rmmod ib_srpt between cells"
		fi
		# shellcheck disable=SC2086
		modprobe ib_srpt $CELL_SRPT || fail "modprobe ib_srpt $CELL_SRPT"
		load_srpt
		[ -z "$CELL_SRPT" ] || [ "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" = "${CELL_SRPT#*=}" ] ||
			fail "srp_max_req_size not taken: $(cat /sys/module/ib_srpt/parameters/srp_max_req_size)"
		if [ $backstores_made = 0 ]; then
			# shellcheck disable=SC2086
			integ_backstores $BACKENDS
			backstores_made=1
		fi
		integ_target "$TGT_PORT" "$INI_ID"
		set_rdma_cm_port
		loaded_srpt=$CELL_SRPT
	fi
	GUID=$(srpt_guid rxe0)
	IB_SRP_PARAMS=$CELL_SRP
	n_luns=$(echo $BACKENDS | wc -w)
	srp_login rxe1 "id_ext=$GUID,ioc_guid=$GUID,initiator_ext=${INI_ID:0:16},dest=$TGT_IP4:$RDMA_CM_PORT,$CELL_LOGIN" "$n_luns" ||
		fail "login ($CELL_DESC): $LOGIN_ERR"
	for p in /sys/module/ib_srp/parameters/{cmd_sg_entries,use_imm_data}; do
		echo "ib_srp $(basename $p)=$(cat $p)"
	done
	integ_map_devs "$SRP_HOST"
	t0=$(date +%s)
	for b in $CELL_BACKENDS; do
		tb=$(date +%s)
		for s in $CELL_SHAPES; do fio_shape "$s" "${DEV_OF[$b]}"; done
		check_backing "$b"
		echo "cell $c backend $b: $(( $(date +%s) - tb ))s"
	done
	ok "cell $c: $(echo $CELL_SHAPES | wc -w) shapes x $(echo $CELL_BACKENDS | wc -w) backends verified in $(( $(date +%s) - t0 ))s"
	results+=("$c")
	srp_logout
	rmmod ib_srp || fail "rmmod ib_srp"
	wait_target_idle 30
done

echo "cells passed: ${results[*]}"
echo "fio jobs: $FIO_RUNS, all verified"
target_teardown
integ_teardown_backing
unload_all
check_dmesg
echo "integrity: all checks passed"
