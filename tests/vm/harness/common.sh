# Shared host-side settings for the guest harness. Sourced, not run.
# shellcheck shell=bash

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)  # tests/vm
ROOT=${ROOT:-$(cd "$VM_DIR/../.." && pwd)}

# KVER: the kernel the module is built against and the guests boot
# (scripts/kver.sh, the one resolver: linux-headers-amd64's dependency, else
# the newest /lib/modules/*/build; never the host's running kernel, which
# Debian's archive need not have). Override with KVER=.
KVER=${KVER:-$("$ROOT/scripts/kver.sh" --installed || echo "vm: cannot resolve KVER (set KVER=)" >&2)}

# Guest packages (debootstrap --include). Part of the image hash.
GUEST_PKGS="kmod iproute2 rdma-core ibverbs-utils rdmacm-utils perftest srptools
targetcli-fb python3-rtslib-fb dbus sg3-utils lsscsi fio e2fsprogs xfsprogs
util-linux procps multipath-tools python3 tar
psmisc lsof gawk bsdextrautils linux-perf"
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

CACHE_BASE=${SRPT_VM_CACHE:-/var/cache/srpt-vm}
PY=/usr/bin/python3   # Debian's python (matplotlib), not a pyenv shim

# Hash of everything that goes into the cached image.
image_hash() {
	{
		echo "$KVER $SUITE $MIRROR"
		echo "$GUEST_PKGS"
		cat "$VM_DIR/harness/build-image.sh" "$VM_DIR/harness/initramfs.sh" \
			"$VM_DIR/guest/initramfs-init"
	} | sha256sum | cut -c1-16
}
IMAGE_DIR="$CACHE_BASE/$KVER-$(image_hash)"
# The kernel release the guest boots: the stock KVER, or with
# DEBUG_KERNEL_DIR=<build-debug-kernel.sh output> the check-debug kernel's
# (run.sh then boots build-debug-image.sh's overlay instead of IMAGE_DIR).
GUEST_KREL=$KVER
if [ -n "${DEBUG_KERNEL_DIR:-}" ]; then
	[ -f "$DEBUG_KERNEL_DIR/release" ] || { echo "vm: DEBUG_KERNEL_DIR=$DEBUG_KERNEL_DIR has no release file" >&2; exit 1; }
	GUEST_KREL=$(cat "$DEBUG_KERNEL_DIR/release")
fi

log() { echo "[vm $(date +%H:%M:%S)] $*" >&2; }
die() { echo "vm: ERROR: $*" >&2; exit 1; }

# ---- guest launching ---------------------------------------------------
ART_BASE=${VM_ARTIFACTS:-$ROOT/build/vm-artifacts}
SRPT=${SRPT:-intree}
SRPT_KO=${SRPT_KO:-$ROOT/ib_srpt.ko}
VM_TIMEOUT=${VM_TIMEOUT:-600}

# make_payload DIR SCENARIO ROLE WITH_PORT(0|1) [extra env lines...]
# -> DIR/payload.cpio.gz holding /payload (= /srpt in the guest)
make_payload() {
	local dir=$1 scenario=$2 role=$3 with_port=$4; shift 4
	local p="$dir/pl/payload"
	rm -rf "$dir/pl"; mkdir -p "$p/scenarios" "$p/port"
	cp "$VM_DIR"/guest/*.sh "$VM_DIR"/guest/*.awk "$p/"
	cp "$VM_DIR"/guest/scenarios/*.sh "$p/scenarios/"
	if [ "$with_port" = 1 ]; then cp "$SRPT_KO" "$p/port/ib_srpt.ko"; fi
	# PAYLOAD_MODULES: test modules built for the guest's kernel (the
	# bench's srp_pattern_bw.ko), in /srpt/modules/ in the guest.
	local ko
	for ko in ${PAYLOAD_MODULES:-}; do
		mkdir -p "$p/modules"
		cp "$ko" "$p/modules/" || die "payload: no $ko"
	done
	# Small probes the scenarios run in the guest (tests/tools/*.c), built
	# here against the same Debian libraries the guest has.
	mkdir -p "$p/tools"
	local src srcs
	for src in "$ROOT"/tests/tools/*.c "$ROOT"/tests/tools/*/; do
		[ -e "$src" ] || continue
		# one file (x.c), or a folder whose *.c make one tool (srp_hostile/)
		src=${src%/}; if [ -d "$src" ]; then srcs=("$src"/*.c); else srcs=("$src"); fi
		gcc -O2 -Wall -Wextra -Werror -o "$p/tools/$(basename "$src" .c)" "${srcs[@]}" -libumad -lrdmacm -libverbs ||
			die "building guest tool $src failed"
	done
	{
		echo "SCENARIO=$scenario"
		echo "SRPT=$SRPT"
		echo "ROLE=$role"
		echo "GUEST_NAME=srpt-${role:-guest}"
		echo "GUEST_TIMEOUT=$((VM_TIMEOUT - 60))"
		local l; for l in "$@"; do echo "$l"; done
		# VMENV_X=v on the host -> X=v in the guest (e.g. VMENV_IB_SRP_PARAMS)
		env | sed -n "s/^VMENV_\([A-Za-z0-9_]*\)=\(.*\)/\1='\2'/p"
	} >"$p/config.env"
	(cd "$dir/pl" && find payload | cpio -o -H newc --quiet | gzip -1) >"$dir/payload.cpio.gz"
	cat "$IMAGE_DIR/initramfs.cpio.gz" "$dir/payload.cpio.gz" >"$dir/initrd"
	rm -rf "$dir/pl"
}

# start_guest DIR SMP MEM [qemu args...]: boots, sets GUEST_PID.
# DIR gets serial.log, out.img (results tar written by the guest).
# VM_TCG_THREAD=single|multi: QEMU's TCG threading (default: QEMU's, which
# is multi for -smp 2 on this host); single runs every vCPU in one host
# thread, to tell an emulator fault of multi-threaded TCG from a guest's
# (docs/testing-vm.md, "Faults of the emulator").
start_guest() {
	local dir=$1 smp=$2 mem=$3; shift 3
	case ${VM_TCG_THREAD:-} in ''|single|multi) ;; *) die "VM_TCG_THREAD must be single or multi, not '$VM_TCG_THREAD'";; esac
	rm -f "$dir/out.img" "$dir/cpu-dump.txt"; truncate -s 256M "$dir/out.img"
	# QEMU's output appends, so the lines wait_guest adds before it kills
	# the guest are not overwritten by QEMU's last words at its own offset
	: >"$dir/qemu.log"
	# The monitor on a unix socket, for wait_guest's dump of the vCPUs when
	# it kills a guest (a path over 107 bytes does not fit sun_path: then
	# one under /tmp, named in DIR/monitor.path and removed after the guest).
	local mon=$dir/monitor.sock
	[ ${#mon} -le 100 ] || mon=$(mktemp -u "${TMPDIR:-/tmp}/srpt-mon.XXXXXXXX")
	rm -f "$mon"; echo "$mon" >"$dir/monitor.path"
	# the stock image boots its vmlinux (PVH), the debug image its bzImage
	local kernel=$IMAGE_DIR/vmlinux
	[ -f "$IMAGE_DIR/bzImage" ] && kernel=$IMAGE_DIR/bzImage
	# log_buf_len: check_dmesg reads the run's whole kernel log at the
	# end. Debian's 128 kB buffer wrapped in a 48-minute port-faults run.
	qemu-system-x86_64 -accel "tcg${VM_TCG_THREAD:+,thread=$VM_TCG_THREAD}" \
		-cpu max -smp "$smp" -m "$mem" \
		-display none -monitor "unix:$mon,server=on,wait=off" -serial "file:$dir/serial.log" \
		-no-reboot -nic none \
		-kernel "$kernel" -initrd "$dir/initrd" \
		-append "console=ttyS0 panic=-1 loglevel=5 log_buf_len=16M net.ifnames=0${GUEST_APPEND:+ $GUEST_APPEND}" \
		-drive "file=${VM_ROOTFS:-$IMAGE_DIR/rootfs.ext4},if=virtio,format=raw,snapshot=on" \
		-drive "file=$dir/out.img,if=virtio,format=raw" \
		"$@" >>"$dir/qemu.log" 2>&1 &
	GUEST_PID=$!
	echo "$GUEST_PID" >"$dir/qemu.pid"
}

# guest_clock_setup USER_VM_TIMEOUT: the bench guests' clock, from
# BENCH_ICOUNT (empty: the host's clock, 2 vCPUs; N in 0-10: QEMU
# -icount shift=N,sleep=off, the guest's clock counts its instructions).
# Sets GUEST_CLOCK (for the logs and bench-report's --clock), GUEST_SMP
# and GUEST_CLOCK_ARGS (for start_guest). Below shift 2 a guest second
# takes a few host seconds (shift 0: about 3 on this host's two cores), so
# VM_TIMEOUT is multiplied by 4 unless the user set it (USER_VM_TIMEOUT
# non-empty).
# Why one vCPU: with -icount and -smp 2, QEMU 7.2 (bookworm) runs the
# vCPUs in turns in one host thread and the 6.1 guest hangs at "x86:
# Booting SMP configuration" for every shift, sleep=on or off, -cpu max,
# Haswell or qemu64 (3 Dec 2026; -smp 1 boots).
guest_clock_setup() {
	local user_vm_timeout=$1
	BENCH_ICOUNT=${BENCH_ICOUNT:-}
	[[ -z $BENCH_ICOUNT || $BENCH_ICOUNT =~ ^([0-9]|10)$ ]] ||
		die "BENCH_ICOUNT must be empty or a shift from 0 to 10"
	GUEST_CLOCK=wall
	GUEST_SMP=2
	GUEST_CLOCK_ARGS=()
	[ -n "$BENCH_ICOUNT" ] || return 0
	GUEST_CLOCK="icount shift=$BENCH_ICOUNT"
	GUEST_SMP=1
	GUEST_CLOCK_ARGS=(-icount "shift=$BENCH_ICOUNT,sleep=off")
	if [ -z "$user_vm_timeout" ] && [ "$BENCH_ICOUNT" -lt 2 ]; then
		VM_TIMEOUT=$((VM_TIMEOUT * 4))
	fi
}

# dump_guest_cpus DIR WHY: before a guest is killed, where its vCPUs are
# (tests/vm/harness/cpu_dump.py through the monitor start_guest opened) into
# DIR/cpu-dump.txt, and the summary line into DIR/qemu.log. Names kernel
# addresses with GUEST_SYSTEM_MAP when set (run.sh: the debug kernel's).
dump_guest_cpus() {
	local dir=$1 why=$2 mon
	mon=$(cat "$dir/monitor.path" 2>/dev/null) || return 0
	timeout -k 5 60 "$PY" "$VM_DIR/harness/cpu_dump.py" --sock "$mon" --serial "$dir/serial.log" \
		${GUEST_SYSTEM_MAP:+--system-map "$GUEST_SYSTEM_MAP"} >"$dir/cpu-dump.txt" 2>&1 ||
		echo "vCPUs: cpu_dump.py failed (exit $?)" >>"$dir/cpu-dump.txt"
	echo "$why: $(head -1 "$dir/cpu-dump.txt") (cpu-dump.txt)" >>"$dir/qemu.log"
}

# kernel_report SERIAL ERE: the first console line matching ERE, and where
# that report happened (guest/report-where.awk, as the guest's dmesg gate
# says it), on one line: the verdict of a crashed or hung guest is all CI
# prints of it.
kernel_report() {
	local serial=$1 re=$2 n where
	n=$(grep -anE "$re" "$serial" | head -1 | cut -d: -f1)
	[ -n "$n" ] || return 0
	where=$(tail -n +"$((n + 1))" "$serial" | awk -f "$VM_DIR/guest/report-where.awk")
	printf '%s%s\n' "$(sed -n "${n}p" "$serial" | tr -d '\r')" "${where:+ [$where]}"
}

# monitor_cleanup DIR: the monitor socket start_guest made, once the guest is gone
monitor_cleanup() {
	local mon
	mon=$(cat "$1/monitor.path" 2>/dev/null) || return 0
	rm -f "$mon" "$1/monitor.path"
}

# wait_guest DIR PID TIMEOUT [BOOT_TIMEOUT]: 0 if the guest powered off in
# time, 1 if it was killed by the timeout (by its PID only), 2 if it was
# killed because its init had not started the scenario ("guest: kernel"
# on the serial console) within BOOT_TIMEOUT seconds, 3 (with BOOT_TIMEOUT
# only) if it ended before its scenario started: a kernel that panicked or
# stopped while booting, before anything of the test ran.
wait_guest() {
	local dir=$1 pid=$2 tmo=$3 boot_tmo=${4:-0} t=0 booted=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$boot_tmo" -gt 0 ] && [ "$booted" = 0 ]; then
			if grep -aq '^guest: kernel ' "$dir/serial.log" 2>/dev/null; then
				booted=1
			elif [ "$t" -ge "$boot_tmo" ]; then
				dump_guest_cpus "$dir" "BOOT HANG"
				if grep -aq '^guest: kernel ' "$dir/serial.log" 2>/dev/null; then
					# the scenario started while the dump read the vCPUs
					echo "BOOT HANG withdrawn: the scenario started during the dump" >>"$dir/qemu.log"
					rm -f "$dir/cpu-dump.txt"
					booted=1
				else
					echo "BOOT HANG: no scenario start after ${boot_tmo}s: killing qemu pid $pid" >>"$dir/qemu.log"
					kill "$pid" 2>/dev/null; sleep 2; kill -9 "$pid" 2>/dev/null
					wait "$pid" 2>/dev/null
					monitor_cleanup "$dir"
					return 2
				fi
			fi
		fi
		if [ "$t" -ge "$tmo" ]; then
			dump_guest_cpus "$dir" "TIMEOUT"
			echo "TIMEOUT after ${tmo}s: killing qemu pid $pid" >>"$dir/qemu.log"
			kill "$pid" 2>/dev/null; sleep 2; kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			monitor_cleanup "$dir"
			return 1
		fi
		sleep 1; t=$((t + 1))
	done
	wait "$pid" 2>/dev/null
	monitor_cleanup "$dir"
	if [ "$boot_tmo" -gt 0 ] && ! grep -aq '^guest: kernel ' "$dir/serial.log" 2>/dev/null; then
		return 3
	fi
	return 0
}

# collect DIR: unpack the guest's results tar (if any) into DIR/guest/
collect() {
	local dir=$1
	rm -rf "$dir/guest"; mkdir -p "$dir/guest"
	tar -xf "$dir/out.img" -C "$dir/guest" 2>/dev/null || true
	rm -f "$dir/out.img" "$dir/initrd" "$dir/payload.cpio.gz"
}
