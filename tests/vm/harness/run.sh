#!/usr/bin/env bash
# Runs guest scenarios under QEMU (TCG) and reports PASS/FAIL per scenario
# and a closing 'N passed, N failed' line.
#
#   tests/vm/harness/run.sh [scenario...]        (default: e2e configfs twohost)
#   SRPT=intree|port   which ib_srpt the target loads (default intree);
#                      dkms: the one DKMS built in VM_ROOTFS (dkms-check.sh)
#   VM_ROOTFS=path     root filesystem image instead of the cached one
#   SRPT_KO=path       the port's module (default $ROOT/ib_srpt.ko)
#   VM_TIMEOUT=secs    per guest; a guest still running then is killed (600)
#   VM_ARTIFACTS=dir   default $ROOT/build/vm-artifacts -> <dir>/<SRPT>/<scenario>/
#   DEBUG_KERNEL_DIR=d boot the check-debug kernel built in d (build-debug-kernel.sh)
#                      with build-debug-image.sh's overlay; SRPT_KO must be built
#                      against it; the serial log is gated on checker reports too
#   VM_BOOT_TIMEOUT=s  a single guest whose scenario has not started after s
#                      seconds is killed and booted again, VM_BOOT_RETRIES
#                      times (default 4); default 300 on the stock kernel
#                      (its scenarios start ~30 s after boot), 150 on the
#                      debug kernel (~40 s): it hangs in one boot of two or
#                      three in its early timer set-up under TCG, before
#                      any module is loaded (docs/debug-kernel.md, finding
#                      4). A guest that ends before its scenario starts (a
#                      panic at boot, e.g. "IO-APIC + timer doesn't work!"
#                      on the debug kernel, "Oops: int3" once in CI on the
#                      stock 6.12) is retried the same way: the "guest:
#                      kernel" line comes before the scenario loads any
#                      ib_srpt, so a retried boot never ran the module
#                      under test. 0 turns the watchdog and the retries off.
#                      Every retry is named in the scenario's result line,
#                      PASS or FAIL.
#   GUEST_APPEND=args  extra kernel command line for the guests (experiments,
#                      e.g. no_timer_check: docs/debug-kernel.md, finding 4)
#   VM_TCG_THREAD=single|multi  QEMU's TCG threading for the guests (default
#                      QEMU's: multi with 2 vCPUs); single tells an emulator
#                      fault from a guest's (docs/testing-vm.md)
# Scenarios: e2e configfs twohost demo (any guest/scenarios/<name>.sh runs
# in a single guest; twohost boots two guests joined by a socket network).
set -uo pipefail
. "$(dirname "$0")/common.sh"

# SRPT=dkms: the module the ib-srpt-dkms package built inside the guest's
# root filesystem (VM_ROOTFS, made by tests/vm/harness/dkms-check.sh).
case $SRPT in intree|port) ;; dkms) [ -n "${VM_ROOTFS:-}" ] || die "SRPT=dkms needs VM_ROOTFS";; *) die "SRPT must be intree, port or dkms, not '$SRPT'";; esac
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(e2e configfs twohost)

"$VM_DIR/harness/build-image.sh" >/dev/null || die "guest image build failed"
if [ -n "${DEBUG_KERNEL_DIR:-}" ]; then
	IMAGE_DIR=$("$VM_DIR/harness/build-debug-image.sh" "$DEBUG_KERNEL_DIR") || die "debug guest image build failed"
	log "debug kernel $GUEST_KREL, image $IMAGE_DIR"
	# the vCPU dump of a guest killed by a timeout names its kernel addresses
	[ ! -f "$DEBUG_KERNEL_DIR/linux/System.map" ] || export GUEST_SYSTEM_MAP=$DEBUG_KERNEL_DIR/linux/System.map
fi

# The debug kernel hangs in about one boot in three (docs/debug-kernel.md,
# finding 4; 4 of 5 boots of one scenario on 2026-12-02): six retries there.
VM_BOOT_RETRIES=${VM_BOOT_RETRIES:-$([ -n "${DEBUG_KERNEL_DIR:-}" ] && echo 6 || echo 4)}
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-$([ -n "${DEBUG_KERNEL_DIR:-}" ] && echo 150 || echo 300)}

passed=0 failed=0
results=()

port_precheck() { # prints a reason and returns 1 if SRPT=port cannot run
	[ "$SRPT" = port ] || return 0
	if [ ! -f "$SRPT_KO" ]; then
		echo "SRPT=port but the port's module $SRPT_KO does not exist (run make)"; return 1
	fi
	local vm; vm=$(modinfo -F vermagic "$SRPT_KO" 2>/dev/null | awk '{print $1}')
	if [ "$vm" != "$GUEST_KREL" ]; then
		echo "SRPT=port: $SRPT_KO vermagic '$vm' does not match guest kernel $GUEST_KREL"; return 1
	fi
	return 0
}

with_port() { [ "$SRPT" = port ] && echo 1 || echo 0; }

# cpu_dump_summary DIR: "; vCPUs: ..." from the dump wait_guest took, if any
cpu_dump_summary() {
	[ -s "$1/cpu-dump.txt" ] && printf '; %s (%s)' "$(head -1 "$1/cpu-dump.txt" | cut -c1-300)" "$1/cpu-dump.txt"
}

# guest_verdict DIR SCENARIO HUNG -> sets VERDICT (PASS|FAIL) and REASON
guest_verdict() {
	local dir=$1 sc=$2 hung=$3
	VERDICT=FAIL REASON=
	if [ "$hung" = 1 ]; then
		REASON="guest hung: killed after ${VM_TIMEOUT}s (see $dir/serial.log)$(cpu_dump_summary "$dir")"
	elif [ "$hung" = 2 ]; then
		REASON="boot hang: the scenario had not started after ${VM_BOOT_TIMEOUT}s (see $dir/serial.log)$(cpu_dump_summary "$dir")"
	elif [ "$hung" = 3 ]; then
		REASON="boot failure: the guest ended before its scenario started: $({ grep -a -m1 'Kernel panic' "$dir/serial.log" || tail -1 "$dir/serial.log"; } | cut -c1-120) (see $dir/serial.log)"
	elif [ ! -f "$dir/rc" ]; then
		REASON="no results from the guest (crashed? see $dir/serial.log)"
	elif [ "$(cat "$dir/rc")" = 0 ]; then
		VERDICT=PASS
	else
		REASON=$(grep -a 'FAIL:' "$dir/log" | tail -1 | sed 's/^.*FAIL: //')
		[ -n "$REASON" ] || REASON="scenario exited $(cat "$dir/rc") (see $dir/log)"
		[ "$(cat "$dir/rc")" = 124 ] && REASON="scenario timed out inside the guest; $REASON"
	fi
	local kre='^\[ *[0-9]+\.[0-9]{6}\] .*(Oops|BUG:|Kernel panic)'
	# The check-debug kernel: any checker report on the console fails the
	# scenario, whatever the scenario itself concluded.
	[ -z "${DEBUG_KERNEL_DIR:-}" ] ||
		kre='^\[ *[0-9]+\.[0-9]{6}\] .*(Oops|BUG:|Kernel panic|WARNING:|KASAN|KFENCE|ODEBUG:|possible circular locking dependency|inconsistent lock state|possible recursive locking|sleeping function called from invalid context|list_add corruption|list_del corruption|suspicious RCU usage|kmemleak: [0-9]+ new suspected)'
	if grep -aqE "$kre" "$dir/serial.log" 2>/dev/null; then
		VERDICT=FAIL
		REASON="${REASON:+$REASON; }kernel: $(kernel_report "$dir/serial.log" "$kre")"
	fi
}

# boot one guest for SCENARIO in DIR; returns hung flag in HUNG
boot_one() {
	local dir=$1 sc=$2 role=$3 smp=$4 mem=$5; shift 5
	mkdir -p "$dir"
	make_payload "$dir" "$sc" "$role" "$(with_port)"
	start_guest "$dir" "$smp" "$mem" "$@"
}
finish_one() { # finish_one DIR SCENARIO PID [WAIT_RC: the guest was waited for]
	local dir=$1 sc=$2 pid=$3 hung=0
	if [ -n "${4:-}" ]; then
		hung=$4
	else
		wait_guest "$dir" "$pid" "$VM_TIMEOUT" || hung=1
	fi
	collect "$dir"
	if [ -d "$dir/guest/$sc" ]; then
		mv "$dir/guest/$sc"/* "$dir/" 2>/dev/null
	fi
	rm -rf "$dir/guest"
	guest_verdict "$dir" "$sc" "$hung"
}

report() { # report SCENARIO VERDICT SECONDS REASON
	if [ "$2" = PASS ]; then
		passed=$((passed + 1)); printf 'PASS  %-10s (%ss, SRPT=%s%s)\n' "$1" "$3" "$SRPT" "${4:+; $4}"
	else
		failed=$((failed + 1)); printf 'FAIL  %-10s (%ss, SRPT=%s): %s\n' "$1" "$3" "$SRPT" "$4"
	fi
	results+=("$2 $1")
}

run_single() {
	local sc=$1 dir="$ART_BASE/$SRPT/$1" t0; t0=$(date +%s)
	rm -rf "$dir"; mkdir -p "$dir"
	[ -f "$VM_DIR/guest/scenarios/$sc.sh" ] || { report "$sc" FAIL 0 "unknown scenario"; return; }
	local why; if ! why=$(port_precheck); then report "$sc" FAIL 0 "$why"; return; fi
	log "$sc: booting guest (SRPT=$SRPT, artifacts $dir)"
	local try=0 rc boots=
	while :; do
		boot_one "$dir" "$sc" single 2 2G
		wait_guest "$dir" "$GUEST_PID" "$VM_TIMEOUT" "$VM_BOOT_TIMEOUT"; rc=$?
		case $rc in 2|3) [ "$try" -lt "$VM_BOOT_RETRIES" ] ;; *) false ;; esac || break
		try=$((try + 1))
		local what=hang how="no scenario start in ${VM_BOOT_TIMEOUT}s" line
		[ "$rc" = 3 ] && what=fail how="the guest ended before its scenario started"
		# the console line that says why: the first oops or panic, else the last line
		line=$({ grep -aE -m1 '(Oops|BUG:|Kernel panic)' "$dir/serial.log" || tail -1 "$dir/serial.log"; } | tr -d '\r' | cut -c1-100)
		log "$sc: BOOT ${what^^} ($how, console: $line); boot $((try + 1)) of $((VM_BOOT_RETRIES + 1))"
		boots="${boots:+$boots, }boot-$what-$try: $line"
		mkdir -p "$dir/boot-$what-$try"; mv "$dir/serial.log" "$dir/qemu.log" "$dir/boot-$what-$try/"
		if [ -f "$dir/cpu-dump.txt" ]; then
			# a hang's vCPUs in the run's log too: CI prints the log, not the dump
			log "$sc: boot-$what-$try $(head -1 "$dir/cpu-dump.txt" | cut -c1-300)"
			mv "$dir/cpu-dump.txt" "$dir/boot-$what-$try/"
		fi
	done
	finish_one "$dir" "$sc" "$GUEST_PID" "$rc"
	local why=$REASON
	[ "$try" = 0 ] || why="${why:+$why; }after $try failed boot(s) ($boots)"
	report "$sc" "$VERDICT" $(( $(date +%s) - t0 )) "$why"
}

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# twohost: target guest + initiator guest on a QEMU socket network (loopback).
run_twohost() {
	local sc=twohost dir="$ART_BASE/$SRPT/twohost" t0; t0=$(date +%s)
	rm -rf "$dir"; mkdir -p "$dir"
	local why; if ! why=$(port_precheck); then report "$sc" FAIL 0 "$why"; return; fi
	local port; port=$(free_port)
	log "twohost: target + initiator guests, socket network 127.0.0.1:$port (artifacts $dir)"
	boot_one "$dir/target" twohost-target target 1 1536M \
		-netdev "socket,id=n0,listen=127.0.0.1:$port" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:bb:00:01"
	local tpid=$GUEST_PID i
	for i in $(seq 1 50); do
		"$PY" -c "import socket; socket.create_connection(('127.0.0.1',$port),1).close()" 2>/dev/null && break
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.2
	done
	# note: the probe connection above is accepted and dropped by qemu; the
	# initiator's connection is the one that stays.
	boot_one "$dir/initiator" twohost-initiator initiator 1 1536M \
		-netdev "socket,id=n0,connect=127.0.0.1:$port" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:bb:00:02"
	local ipid=$GUEST_PID
	finish_one "$dir/initiator" twohost-initiator "$ipid"
	local iv=$VERDICT ir=$REASON
	finish_one "$dir/target" twohost-target "$tpid"
	local tv=$VERDICT tr=$REASON
	if [ "$iv" = PASS ] && [ "$tv" = PASS ]; then
		report "$sc" PASS $(( $(date +%s) - t0 )) ""
	else
		local r=
		[ "$iv" = PASS ] || r="initiator: $ir"
		[ "$tv" = PASS ] || r="${r:+$r; }target: $tr"
		report "$sc" FAIL $(( $(date +%s) - t0 )) "$r"
	fi
}

for sc in "${scenarios[@]}"; do
	case $sc in
	twohost) run_twohost ;;
	*) run_single "$sc" ;;
	esac
done
echo "artifacts: $ART_BASE/$SRPT/"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
