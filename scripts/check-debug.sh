#!/usr/bin/env bash
# `make check-debug`: the guest scenarios on the check-debug kernel (KASAN,
# lockdep, kmemleak, DEBUG_OBJECTS, DEBUG_LIST, KFENCE; docs/debug-kernel.md).
#   1. the debug kernel (tests/vm/harness/build-debug-kernel.sh, cached);
#   2. the port built against it, from a copy of this tree in
#      $CACHE_BASE/debug-module/<checkout> (outside the tree; its own
#      ib_srpt.ko stays the one for the stock headers), with
#      build-module.sh's zero-warning rule;
#   3. tests/vm/harness/run.sh on the debug guest: every scenario's dmesg gate
#      (lib.sh check_dmesg: checker reports, kmemleak scan after teardown)
#      and run.sh's serial-console gate.
# DEBUG_SCENARIOS chooses the scenarios; SRPT=intree runs them on the
# in-tree ib_srpt of the debug kernel instead (to tell the port's reports
# from the in-tree stack's). VM_TIMEOUT per guest (default 5400: the debug
# kernel under TCG is several times slower). DEBUG_JOBS (2) guests at once
# (tests/vm/harness/run-lanes.sh). Ends with 'N passed, N failed'.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# Before common.sh, which defaults VM_TIMEOUT to the stock guest's 600 s.
export VM_TIMEOUT=${VM_TIMEOUT:-5400}
. "$top/tests/vm/harness/common.sh"

SRPT=${SRPT:-port}
# The in-tree reference runs what the in-tree driver can: port-datapath,
# port-srq and controlpath check the port's own counters or compare the
# two drivers, and the in-tree 6.1 driver crashes on hostile cases.
if [ "$SRPT" = intree ]; then
	DEBUG_SCENARIOS=${DEBUG_SCENARIOS:-e2e port-removal integrity}
else
	# by risk: the data path first, the longest (hostile) last
	DEBUG_SCENARIOS=${DEBUG_SCENARIOS:-e2e integrity port-datapath port-removal port-srq observe controlpath multipath port-faults hostile}
fi
# port-faults in the gate: every injection point at 20 % for one round, a
# first-call round for any point that rate missed, and every point at once
# at 5 % with a link cut (23 min on a quiet host on 2026-12-07, up to 70
# beside other guests). The scenario's whole matrix, 1, 5 and 20 % with
# three rounds each (about 95 min, measured on 2026-12-03), is make
# check-faults.
export VMENV_FAULT_RATES=${VMENV_FAULT_RATES:-20} VMENV_FAULT_ROUNDS=${VMENV_FAULT_ROUNDS:-1}
out=$top/build/debug-kernel
mkdir -p "$out"

"$top/scripts/install-deps.sh" vm debugkernel
# The gate itself first: every checker report format must fail a scenario.
"$VM_DIR/selftest/selftest-dmesg-gate.sh" >"$out/dmesg-gate.log" 2>&1 ||
	{ cat "$out/dmesg-gate.log" >&2; die "the dmesg gate self-test fails"; }
t0=$(date +%s)
DK=$("$VM_DIR/harness/build-debug-kernel.sh")
REL=$(cat "$DK/release")
log "debug kernel $REL in $DK ($(( $(date +%s) - t0 ))s; its build: $(cat "$DK/build-time"))"

ko=
if [ "$SRPT" = port ]; then
	# Outside the tree: Kbuild's `clean` for this tree (make clean, the
	# module suite of make check) deletes every .ko below it, and a second
	# make in the same checkout during a long debug run must not take the
	# module from under the scenarios still to boot. One directory per
	# checkout, kept for faddr2line on a report's frames.
	src=$CACHE_BASE/debug-module/$(printf %s "$top" | sha1sum | cut -c1-12)
	rm -rf "$src"; mkdir -p "$src"
	tar -C "$top" -c Kbuild Makefile include src glue configfs kbuild scripts | tar -x -C "$src"
	log "building the port against $DK/linux"
	"$src/scripts/build-module.sh" "$DK/linux" "$out/module-build.log" ||
		die "the port does not build cleanly against the debug kernel ($out/module-build.log)"
	ko=$src/ib_srpt.ko
	# KASAN adds compiler constructors to every object: cxx.mk must accept
	# those and nothing else (tests/build/ctor-check.sh), and the module
	# must have no C++ dynamic initializer.
	"$top/tests/build/ctor-check.sh" "$DK/linux" >"$out/ctor-check.log" 2>&1 ||
		{ cat "$out/ctor-check.log" >&2; die "the constructor rule fails on the debug kernel"; }
	! nm "$ko" | grep -E ' _GLOBAL__sub_[ID]_' >&2 || die "$ko has C++ dynamic initializers"
	vm=$(modinfo -F vermagic "$ko" | awk '{print $1}')
	[ "$vm" = "$REL" ] || die "built module's vermagic '$vm' is not the debug kernel's $REL"
fi

# (an assignment word cannot come from an expansion: export it)
[ -z "$ko" ] || export SRPT_KO=$ko
export VM_ARTIFACTS=${VM_ARTIFACTS:-$top/build/vm-artifacts-debug}
export DEBUG_KERNEL_DIR=$DK SRPT
# DEBUG_JOBS=2 (default): two guests at once, in two lanes
# (tests/vm/harness/run-lanes.sh); DEBUG_JOBS=1: one guest, the scenarios in order
DEBUG_JOBS=${DEBUG_JOBS:-2}
case $DEBUG_JOBS in
1) exec "$VM_DIR/harness/run.sh" $DEBUG_SCENARIOS ;;
2) exec "$VM_DIR/harness/run-lanes.sh" "$out" $DEBUG_SCENARIOS ;;
*) die "DEBUG_JOBS must be 1 or 2" ;;
esac
