# Data-integrity helpers for the guest scenarios (integrity, multipath).
# Sourced after lib.sh. Every check passes or ends the scenario with FAIL.
#
# Backends (each exported as one LUN of the same TPG):
#   nullb     iblock on a memory-backed null_blk (completes asynchronously)
#   sdebug    iblock on a scsi_debug disk with DIF type 3 and DIX
#   loop      iblock on a loop device over a file
#   filebuf   fileio, buffered (write_back=true)
#   filedio   fileio with fd_async_io=1: asynchronous O_DIRECT (IOCB_DIRECT)
#   rd        rd_mcp (copies inside the command)
# Each backend but rd has a "backing path" that the target side reads and
# writes directly (check_backing), so that the check does not trust the
# initiator's own read path.
# shellcheck shell=bash

INTEG_MB=${INTEG_MB:-48}	# size of every LUN
declare -A BACKING		# backend -> device or file the target reads
declare -A LUN_OF		# backend -> LUN number
declare -A DEV_OF		# backend -> initiator block device (after login)
INTEG_BACKENDS=()
FIO_RUNS=0
FIO_BYTES=0

# integ_backstores BACKEND...: create the backing devices and backstores.
integ_backstores() {
	local b tc=/tmp/integ-tc.txt
	: >"$tc"
	echo "set global auto_cd_after_create=false" >>"$tc"
	for b in "$@"; do
		case $b in
		nullb)
			load_nullb
			BACKING[nullb]=/dev/nullb0
			echo "/backstores/block create name=nullb dev=/dev/nullb0" >>"$tc" ;;
		sdebug)
			local d
			modprobe -a sd_mod sg || fail "modprobe sd_mod sg"
			run "modprobe scsi_debug (DIF 3, DIX)" modprobe scsi_debug dev_size_mb="$INTEG_MB" \
				dif=3 dix=1 num_tgts=1 max_luns=1 add_host=1
			wait_for 20 "scsi_debug disk" sh -c 'ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/ 2>/dev/null | grep -q sd' ||
				fail "no scsi_debug disk"
			d=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/ | grep sd | head -1)
			BACKING[sdebug]=/dev/$d
			wait_for 10 "$d node" test -b "/dev/$d" || fail "no /dev/$d"
			echo "scsi_debug: /dev/$d, integrity $(cat /sys/block/$d/integrity/format 2>/dev/null)"
			echo "/backstores/block create name=sdebug dev=/dev/$d" >>"$tc" ;;
		loop)
			truncate -s "${INTEG_MB}M" /var/tmp/loop0.img
			modprobe loop 2>/dev/null
			BACKING[loop]=$(losetup -f --show /var/tmp/loop0.img 2>/tmp/losetup.err) ||
				fail "losetup: $(cat /tmp/losetup.err)"
			echo "/backstores/block create name=loop dev=${BACKING[loop]}" >>"$tc" ;;
		filebuf)
			rm -f /var/tmp/filebuf.img
			BACKING[filebuf]=/var/tmp/filebuf.img
			echo "/backstores/fileio create name=filebuf file_or_dev=/var/tmp/filebuf.img size=${INTEG_MB}M write_back=true" >>"$tc" ;;
		filedio)
			BACKING[filedio]=/var/tmp/filedio.img ;; # configfs below
		rd)
			echo "/backstores/ramdisk create name=rd size=${INTEG_MB}M" >>"$tc" ;;
		*) fail "unknown backend $b" ;;
		esac
		INTEG_BACKENDS+=("$b")
	done
	echo exit >>"$tc"
	targetcli <"$tc" >/tmp/integ-tc.out 2>&1
	cat /tmp/integ-tc.out
	if [ -n "${BACKING[filedio]:-}" ]; then
		# targetcli has no switch for it: configfs, as an administrator would.
		local so=$CFG/core/fileio_9/filedio
		rm -f /var/tmp/filedio.img; truncate -s "${INTEG_MB}M" /var/tmp/filedio.img
		mkdir -p "$so" || fail "mkdir $so"
		echo "fd_dev_name=/var/tmp/filedio.img,fd_dev_size=$((INTEG_MB << 20)),fd_async_io=1" >"$so/control" ||
			fail "fileio control"
		echo 1 >"$so/enable" || fail "enable $so"
		grep -q "Async: 1" "$so/info" || fail "fileio backstore is not in async (O_DIRECT) mode: $(cat "$so/info")"
	fi
	local sos; sos=$(ls -d $CFG/core/*/* 2>/dev/null | grep -v alua | tr '\n' ' ')
	for b in "$@"; do
		echo "$sos" | grep -q "/$b " || fail "backstore $b missing in configfs: $sos"
	done
	ok "backstores: $*"
}

# integ_target PORT_GID_HEX ACL_HEX [replace]: one TPG, one LUN per backend,
# in order. With "replace", a port of that name left in configfs (its
# device was removed and added again) is deleted first, in the same
# targetcli run.
integ_target() {
	local port=$1 acl=$2 tc=/tmp/integ-tgt.txt i=0 b
	local tpg=$SRPT_CFG/0x$port/tpgt_1
	{
		echo "set global auto_cd_after_create=false"
		[ "${3:-}" = replace ] && [ -d "$SRPT_CFG/0x$port" ] && echo "/srpt delete ib.$port"
		echo "/srpt create ib.$port"
		for b in "${INTEG_BACKENDS[@]}"; do
			case $b in
			nullb|sdebug|loop) echo "/srpt/ib.$port/luns create /backstores/block/$b" ;;
			filebuf) echo "/srpt/ib.$port/luns create /backstores/fileio/$b" ;;
			filedio) echo "/srpt/ib.$port/luns create /backstores/fileio/$b" ;;
			rd) echo "/srpt/ib.$port/luns create /backstores/ramdisk/$b" ;;
			esac
			LUN_OF[$b]=$i; i=$((i + 1))
		done
		echo "/srpt/ib.$port/acls create ib.$acl"
		echo exit
	} >"$tc"
	targetcli <"$tc" >/tmp/integ-tgt.out 2>&1
	cat /tmp/integ-tgt.out
	[ "$(cat "$tpg/enable" 2>/dev/null)" = 1 ] || fail "TPG $tpg not enabled"
	for b in "${INTEG_BACKENDS[@]}"; do
		[ -d "$tpg/acls/0x$acl/lun_${LUN_OF[$b]}" ] || fail "LUN ${LUN_OF[$b]} ($b) not mapped in the ACL"
	done
	ok "TPG ib.$port: ${#INTEG_BACKENDS[@]} LUNs"
}

# integ_map_devs HOST: DEV_OF[backend] from the SCSI devices of HOST
integ_map_devs() {
	local hn=${1#host} b d
	for b in "${INTEG_BACKENDS[@]}"; do
		d=$(ls "/sys/class/scsi_device/$hn:0:0:${LUN_OF[$b]}/device/block/" 2>/dev/null)
		[ -n "$d" ] || fail "no block device for LUN ${LUN_OF[$b]} ($b) on $1"
		DEV_OF[$b]=/dev/$d
		wait_for 10 "/dev/$d" test -b "/dev/$d" || fail "no /dev/$d"
	done
	for b in "${INTEG_BACKENDS[@]}"; do printf '%s=%s ' "$b" "${DEV_OF[$b]}"; done; echo
	# The block layer's soft limit (max_sectors_kb) is raised to what the
	# SCSI host allows, so that large requests reach the target as large
	# commands (ib_srp's own limit follows max_sect and its registration).
	local q
	for b in "${INTEG_BACKENDS[@]}"; do
		q=/sys/block/$(basename "${DEV_OF[$b]}")/queue
		# the largest the device's own limit (not shown in sysfs) takes
		for kb in $(cat "$q/max_hw_sectors_kb") 32768 16384 8192 4096 2048; do
			echo "$kb" >"$q/max_sectors_kb" 2>/dev/null && break
		done
	done
	for b in "${INTEG_BACKENDS[@]}"; do
		q=/sys/block/$(basename "${DEV_OF[$b]}")/queue
		echo "initiator queue $b: max_sectors_kb=$(cat $q/max_sectors_kb) (hw $(cat $q/max_hw_sectors_kb)) max_segments=$(cat $q/max_segments) nr_requests=$(cat $q/nr_requests)"
	done
}

# Shapes ------------------------------------------------------------------
# fio_shape NAME DEV: one fio job with verification; any mismatch fails.
# Names: <rw>-<bs>-qd<depth>[-buf], e.g. randwrite-4k-qd32, write-8m-qd2-buf,
# randwrite-mixed-qd64 (bsrange 512..256k).
fio_shape() {
	local shape=$1 dev=$2 rw bs depth buffered=0 size extra=() verify=md5
	IFS=- read -r rw bs depth rest <<<"$shape"
	depth=${depth#qd}
	[ "${rest:-}" = buf ] && buffered=1
	case $bs in
	512) size=1M; verify=crc32c ;;
	4k) size=8M; verify=crc32c ;;
	mixed) bs=512; extra=(--bsrange=512-256k); size=16M ;;
	64k) size=24M ;;
	1m) size=32M ;;
	4m|8m) size=32M ;;
	*) fail "unknown shape block size $bs" ;;
	esac
	local out="$OUT/fio-$shape-$(basename "$dev").txt"
	local common=(--filename="$dev" --rw="$rw" --bs="$bs" "${extra[@]}" --size="$size"
		--verify="$verify" --verify_fatal=1 --randrepeat=1 --randseed=$((FIO_RUNS + 7))
		--output-format=normal)
	local rc
	if [ "$buffered" = 0 ]; then
		fio --name="$shape" "${common[@]}" --direct=1 --ioengine=libaio --iodepth="$depth" \
			--do_verify=1 --output="$out" >/dev/null 2>&1
		rc=$?
	else
		# Buffered write through the page cache, flushed; then read back
		# O_DIRECT after dropping the initiator's caches, so the verify
		# reads what the target stored, not the page cache.
		fio --name="$shape" "${common[@]}" --direct=0 --ioengine=psync --end_fsync=1 \
			--do_verify=0 --output="$out" >/dev/null 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			blockdev --flushbufs "$dev"; echo 3 >/proc/sys/vm/drop_caches
			fio --name="$shape" "${common[@]}" --direct=1 --ioengine=libaio --iodepth="$depth" \
				--verify_only --output="$out.verify" >/dev/null 2>&1
			rc=$?
			cat "$out.verify" >>"$out"
		fi
	fi
	FIO_RUNS=$((FIO_RUNS + 1))
	local bad; bad=$(grep -c 'verify failed\|bad magic\|bad header\|crc32c: verify\|md5: verify' "$out")
	if [ $rc != 0 ] || [ "$bad" != 0 ] || ! grep -q 'err= 0' "$out"; then
		grep -m5 -E 'verify|err=|error' "$out"
		fail "fio $shape on $dev ($CELL_DESC): exit $rc, $bad verify failure line(s)"
	fi
	echo "ok: fio $shape $dev $(grep -m1 -oE 'WRITE: bw=[^ ]+' "$out")"
}

# check_backing BACKEND: the target side reads what the initiator wrote, and
# the initiator reads what the target side wrote. 8 MiB at a 4 KiB-aligned
# offset, in 4 KiB writes (immediate data) and in 1 MiB writes (RDMA READ).
check_backing() {
	local b=$1 dev=${DEV_OF[$1]} back=${BACKING[$1]:-} bs skip=3
	[ -n "$back" ] || return 0
	for bs in 4k 1M; do
		head -c 8M /dev/urandom >/tmp/pat
		dd if=/tmp/pat of="$dev" bs=$bs seek=$((skip << 20)) oflag=direct,seek_bytes conv=fsync status=none ||
			fail "$b: dd write to $dev"
		sync
		if [ -b "$back" ]; then
			dd if="$back" bs=1M skip=$skip count=8 iflag=direct status=none >/tmp/rb ||
				fail "$b: read $back on the target side"
		else
			dd if="$back" bs=1M skip=$skip count=8 status=none >/tmp/rb || fail "$b: read $back"
		fi
		cmp /tmp/pat /tmp/rb >/tmp/cmp.out 2>&1 ||
			fail "$b: what the initiator wrote ($bs writes) differs on the target's $back: $(head -c 200 /tmp/cmp.out); $(cmp -l /tmp/pat /tmp/rb | wc -l) bytes differ"
		# reverse: written on the target side, read through SRP
		head -c 8M /dev/urandom >/tmp/pat
		if [ -b "$back" ]; then
			dd if=/tmp/pat of="$back" bs=1M seek=$skip oflag=direct conv=fsync status=none || fail "$b: write $back"
		else
			dd if=/tmp/pat of="$back" bs=1M seek=$skip conv=notrunc,fsync status=none || fail "$b: write $back"
		fi
		blockdev --flushbufs "$dev" 2>/dev/null; echo 3 >/proc/sys/vm/drop_caches
		dd if="$dev" bs=$bs skip=$((skip << 20)) count=$((8 << 20)) iflag=direct,skip_bytes,count_bytes status=none >/tmp/rb ||
			fail "$b: dd read from $dev"
		cmp /tmp/pat /tmp/rb >/tmp/cmp.out 2>&1 ||
			fail "$b: what the target wrote to $back differs when read through SRP ($bs reads): $(head -c 200 /tmp/cmp.out)"
		skip=$((skip + 8))
	done
	rm -f /tmp/pat /tmp/rb
	echo "ok: $b target-side check ($back) both ways, 4k and 1M"
}

integ_teardown_backing() {
	local b
	for b in "${INTEG_BACKENDS[@]}"; do
		[ "$b" = loop ] && losetup -d "${BACKING[loop]}" 2>/dev/null
	done
	rm -f /var/tmp/loop0.img /var/tmp/filebuf.img /var/tmp/filedio.img
}
