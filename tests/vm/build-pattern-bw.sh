#!/usr/bin/env bash
# Builds the bench's raw-ceiling tool, srp_pattern_bw.ko
# (tests/vm/pattern-bw/), for kernel release KVER into OUTDIR, from a copy
# of its sources (the tree stays clean). Fails on any diagnostic in the
# build log, as scripts/build-module.sh does for ib_srpt.ko.
# Usage: build-pattern-bw.sh KVER OUTDIR [KDIR]   -> OUTDIR/srp_pattern_bw.ko
# KDIR: the kernel build directory (default: scripts/kheaders.sh's for KVER).
set -uo pipefail
kver=${1:?usage: build-pattern-bw.sh KVER OUTDIR}
out=${2:?usage: build-pattern-bw.sh KVER OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${3:-$("$top/scripts/kheaders.sh" "$kver" | awk '{print $2}')} || exit 1
[ -d "$kdir" ] || { echo "build-pattern-bw: no kernel build directory for $kver" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
cp "$top"/tests/vm/pattern-bw/{Kbuild,srp_pattern_bw.c} "$out/"
log=$out/build.log
# No module BTF: a test tool needs none, and 6.12's would want pahole.
make -C "$kdir" M="$out" modules CONFIG_DEBUG_INFO_BTF_MODULES= >"$log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$log" >&2
	echo "build-pattern-bw: make failed ($rc) for $kver" >&2
	exit "$rc"
fi
if grep -ni 'warning' "$log" >&2; then
	echo "build-pattern-bw: the build log has diagnostics (see above); refusing" >&2
	exit 1
fi
[ -f "$out/srp_pattern_bw.ko" ] || { echo "build-pattern-bw: no $out/srp_pattern_bw.ko" >&2; exit 1; }
