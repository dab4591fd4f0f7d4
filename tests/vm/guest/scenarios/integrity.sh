#!/bin/bash
# Scenario integrity: fio verify (zero mismatches) and target-side checks on
# every backend LUNs are made of (integrity-lib.sh), under the initiator and
# target settings that change how data moves:
#   - srp_max_req_size (target): default 8276, or 8260 as blktests uses;
#   - ib_srp cmd_sg_entries 1/16/255 (one or many data descriptors),
#     use_imm_data 0/1 (data-out inside the SRP_CMD IU, RDMA READ otherwise),
#     ch_count 1/2, and max_sect=131072 in the login so that a 4-8 MiB
#     request stays one command when the descriptors allow it.
# INTEGRITY_CELLS names the cells to run (default: the risk-chosen set of
# `make check`); `make check-integrity` runs every cell (INTEGRITY_CELLS=all).
# A cell is: TARGET-PARAMS / INITIATOR-PARAMS / LOGIN-EXTRA / SHAPES.
. /srpt/lib.sh
. /srpt/integrity-lib.sh

BACKENDS=${INTEGRITY_BACKENDS:-nullb sdebug loop filebuf filedio rd}
# Shapes: <rw>-<bs>-qd<depth>[-buf]; see fio_shape.
SHAPES_CORE="randwrite-4k-qd32 randwrite-mixed-qd64 write-4m-qd4"
SHAPES_ALL="randwrite-512-qd1 randwrite-4k-qd1 randwrite-4k-qd32 write-64k-qd16
randwrite-mixed-qd64 write-1m-qd8 write-4m-qd4 write-8m-qd2 randwrite-4k-qd16-buf write-1m-qd4-buf"

# cell NAME -> CELL_SRPT CELL_SRP CELL_LOGIN CELL_SHAPES
cell() {
	CELL_LOGIN="max_sect=131072"
	CELL_SHAPES=$SHAPES_CORE
	case $1 in
	# make check (risk-chosen): immediate data with many descriptors and
	# two channels on every backend with every shape class; and the
	# blktests settings (8260, 16 descriptors) without immediate data.
	imm-sg255-ch2) CELL_SRPT=""; CELL_SRP="cmd_sg_entries=255 use_imm_data=1"
		CELL_LOGIN="$CELL_LOGIN,ch_count=2"
		CELL_SHAPES="randwrite-512-qd1 randwrite-4k-qd32 randwrite-mixed-qd64 write-4m-qd4 write-8m-qd2 write-1m-qd4-buf" ;;
	noimm-sg16-8260) CELL_SRPT="srp_max_req_size=8260"; CELL_SRP="cmd_sg_entries=16 use_imm_data=0" ;;
	# the rest of the cross product (make check-integrity)
	imm-sg1) CELL_SRPT=""; CELL_SRP="cmd_sg_entries=1 use_imm_data=1" ;;
	imm-sg16) CELL_SRPT=""; CELL_SRP="cmd_sg_entries=16 use_imm_data=1" ;;
	imm-sg255) CELL_SRPT=""; CELL_SRP="cmd_sg_entries=255 use_imm_data=1"; CELL_SHAPES=$SHAPES_ALL ;;
	noimm-sg1) CELL_SRPT=""; CELL_SRP="cmd_sg_entries=1 use_imm_data=0" ;;
	noimm-sg255-ch2) CELL_SRPT=""; CELL_SRP="cmd_sg_entries=255 use_imm_data=0"
		CELL_LOGIN="$CELL_LOGIN,ch_count=2"; CELL_SHAPES=$SHAPES_ALL ;;
	imm-sg1-8260) CELL_SRPT="srp_max_req_size=8260"; CELL_SRP="cmd_sg_entries=1 use_imm_data=1" ;;
	imm-sg16-8260-ch2) CELL_SRPT="srp_max_req_size=8260"; CELL_SRP="cmd_sg_entries=16 use_imm_data=1"
		CELL_LOGIN="$CELL_LOGIN,ch_count=2" ;;
	imm-sg255-8260) CELL_SRPT="srp_max_req_size=8260"; CELL_SRP="cmd_sg_entries=255 use_imm_data=1"
		CELL_SHAPES=$SHAPES_ALL ;;
	noimm-sg255-8260-ch2) CELL_SRPT="srp_max_req_size=8260"; CELL_SRP="cmd_sg_entries=255 use_imm_data=0"
		CELL_LOGIN="$CELL_LOGIN,ch_count=2" ;;
	noimm-sg1-8260-ch2) CELL_SRPT="srp_max_req_size=8260"; CELL_SRP="cmd_sg_entries=1 use_imm_data=0"
		CELL_LOGIN="$CELL_LOGIN,ch_count=2" ;;
	*) fail "unknown integrity cell '$1'" ;;
	esac
}
ALL_CELLS="imm-sg255-ch2 noimm-sg16-8260 imm-sg1 imm-sg16 imm-sg255 noimm-sg1 noimm-sg255-ch2
imm-sg1-8260 imm-sg16-8260-ch2 imm-sg255-8260 noimm-sg255-8260-ch2 noimm-sg1-8260-ch2"
CELLS=${INTEGRITY_CELLS:-imm-sg255-ch2 noimm-sg16-8260}
[ "$CELLS" = all ] && CELLS=$ALL_CELLS

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
	for b in $BACKENDS; do
		for s in $CELL_SHAPES; do fio_shape "$s" "${DEV_OF[$b]}"; done
		check_backing "$b"
	done
	ok "cell $c: $(echo $CELL_SHAPES | wc -w) shapes x $(echo $BACKENDS | wc -w) backends verified in $(( $(date +%s) - t0 ))s"
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
