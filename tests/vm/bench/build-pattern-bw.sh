#!/usr/bin/env bash
# Builds the bench's raw-ceiling tool, srp_pattern_bw.ko
# (tests/vm/bench/pattern-bw/), for kernel release KVER into OUTDIR, from a copy
# of its sources (the tree stays clean), with scripts/build-module.sh: any
# diagnostic in the build log fails it, as for ib_srpt.ko. The log is
# OUTDIR/build.log; on failure it is printed to stderr.
# Usage: build-pattern-bw.sh KVER OUTDIR [KDIR]   -> OUTDIR/srp_pattern_bw.ko
# KDIR: the kernel build directory (default: scripts/kheaders.sh's for KVER).
set -uo pipefail
kver=${1:?usage: build-pattern-bw.sh KVER OUTDIR}
out=${2:?usage: build-pattern-bw.sh KVER OUTDIR}
top=$(cd "$(dirname "$0")/../../.." && pwd)
kdir=${3:-$("$top/scripts/kheaders.sh" "$kver" | awk '{print $2}')} || exit 1
[ -d "$kdir" ] || { echo "build-pattern-bw: no kernel build directory for $kver" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
cp "$top"/tests/vm/bench/pattern-bw/{Kbuild,srp_pattern_bw.c} "$out/"
log=$out/build.log
if ! "$top/scripts/build-module.sh" --dir "$out" "$kdir" "$log" >/dev/null; then
	cat "$log" >&2
	echo "build-pattern-bw: building srp_pattern_bw.ko for $kver failed" >&2
	exit 1
fi
[ -f "$out/srp_pattern_bw.ko" ] || { echo "build-pattern-bw: no $out/srp_pattern_bw.ko" >&2; exit 1; }
