#!/usr/bin/env bash
# `make check-integrity`: the full data-integrity matrix (docs/data-integrity.md).
# Every cell of the integrity scenario on the port, split over several
# guests so that one guest stays within its timeout; the make-check cells
# on the in-tree driver as the reference; multipath (session loss and
# target-side path cuts under fio verify) on both drivers.
# Ends with 'N passed, N failed'. INTEGRITY_GROUPS overrides the grouping
# (one quoted list of cells per guest, separated by ';').
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export VM_TIMEOUT=${VM_TIMEOUT:-3600}
cells() { # cells IMM REQ: the six cells of one guest
	local g c
	for g in 1 16 255; do for c in 1 2; do printf '%s ' "$1-sg$g-$2-ch$c"; done; done
}
groups=${INTEGRITY_GROUPS:-"$(cells imm 8276);$(cells noimm 8276);$(cells imm 8260);$(cells noimm 8260)"}
logdir=$top/build/check-integrity
mkdir -p "$logdir"
pass=0 fail=0
tally() { # log
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
	pass=$((pass + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
	fail=$((fail + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
	[ -n "$line" ] || fail=$((fail + 1))
}
i=0
IFS=';' read -ra cell_groups <<<"$groups"
for g in "${cell_groups[@]}"; do
	i=$((i + 1))
	log=$logdir/port-cells-$i.log
	echo "integrity (port) cells: $g"
	VMENV_INTEGRITY_CELLS="$g" SRPT=port VM_ARTIFACTS="$top/build/vm-artifacts/integrity-$i" \
		tests/vm/harness/run.sh integrity >"$log" 2>&1
	grep -E '^(PASS|FAIL) ' "$log"
	tally "$log"
done
log=$logdir/intree-cells.log
echo "integrity (in-tree reference) cells: default"
SRPT=intree VM_ARTIFACTS="$top/build/vm-artifacts/integrity-intree" tests/vm/harness/run.sh integrity >"$log" 2>&1
grep -E '^(PASS|FAIL) ' "$log"; tally "$log"
for drv in port intree; do
	log=$logdir/multipath-$drv.log
	SRPT=$drv VM_ARTIFACTS="$top/build/vm-artifacts/integrity-mp" tests/vm/harness/run.sh multipath >"$log" 2>&1
	grep -E '^(PASS|FAIL) ' "$log"; tally "$log"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
