#!/usr/bin/env bash
# Runs every srp_hostile case (tests/tools/srp_hostile.c) in the `hostile`
# guest scenario against SRPT=intree and/or SRPT=port and prints a markdown
# table cases x drivers. A guest that crashes (expected for several cases
# with the in-tree 6.1 driver) or stops after a kernel Oops is replaced by a
# new guest that continues with the remaining cases; the case that was
# running when a guest died is recorded as guest_crash / guest_hung.
#
#   tests/vm/hostile-compare.sh [intree] [port]     (default: intree port)
#   HOSTILE_CASES="a b c"   subset (default: all of srp_hostile --list)
#   HOSTILE_MAX_BOOTS=N     per driver (default 40)
#   VM_TIMEOUT=secs         per guest (default 1200)
#   HOSTILE_TABLE_ONLY=1    no guests: print the table from earlier runs
#   VMENV_HOSTILE_LEGIT_EVERY, VMENV_HOSTILE_TIMEOUT_MS: passed to the guest
# Output: build/vm-artifacts/hostile-compare/{table.md,<srpt>.tsv,<srpt>-boot<N>/}
set -uo pipefail
VM_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=${ROOT:-$(cd "$VM_DIR/../.." && pwd)}
OUTD=${HOSTILE_OUT:-${VM_ARTIFACTS:-$ROOT/build/vm-artifacts}/hostile-compare}
export VM_TIMEOUT=${VM_TIMEOUT:-1200}
MAX_BOOTS=${HOSTILE_MAX_BOOTS:-40}
drivers=("$@"); [ ${#drivers[@]} -gt 0 ] || drivers=(intree port)
mkdir -p "$OUTD"

tool=$OUTD/srp_hostile
gcc -O2 -Wall -Wextra -Werror -o "$tool" "$ROOT/tests/tools/srp_hostile.c" -lrdmacm -libverbs ||
	{ echo "hostile-compare: cannot build srp_hostile" >&2; exit 2; }
if [ -n "${HOSTILE_CASES:-}" ]; then all=$(echo "$HOSTILE_CASES" | tr ',' ' '); else all=$("$tool" --list | awk '{print $1}'); fi
all=$(echo $all)

log() { echo "[hostile-compare $(date +%H:%M:%S)] $*" >&2; }

run_driver() { # run_driver SRPT -> $OUTD/SRPT.tsv (case \t result \t outcome \t note)
	local srpt=$1 tsv=$OUTD/$1.tsv boot=0 remaining=$all
	: >"$tsv"
	while [ -n "$remaining" ] && [ "$boot" -lt "$MAX_BOOTS" ]; do
		boot=$((boot + 1))
		local art=$OUTD/$srpt-boot$boot
		rm -rf "$art"
		log "$srpt boot $boot: $(echo $remaining | wc -w) case(s) left"
		VM_ARTIFACTS=$art SRPT=$srpt VMENV_HOSTILE_CASES="$remaining" \
			"$VM_DIR/run.sh" hostile >"$OUTD/$srpt-boot$boot.log" 2>&1
		local dir=$art/$srpt/hostile serial=$art/$srpt/hostile/serial.log
		local done_now started last_started= c
		# results from the console (survive a panic)
		done_now=$(grep -a '^HOSTILE-RESULT ' "$serial" 2>/dev/null | tr -d '\r')
		while read -r l; do
			[ -n "$l" ] || continue
			c=$(echo "$l" | sed -n 's/.* case=\([^ ]*\).*/\1/p')
			local r o
			r=$(echo "$l" | sed -n 's/.* result=\([^ ]*\).*/\1/p')
			o=$(echo "$l" | sed -n 's/.* outcome=\([^ ]*\).*/\1/p')
			[ "$r" = PASS ] || o="$o;$(echo "$l" | sed -n 's/.* dmesg=\([^ ]*\) channels=\([^ ]*\) legit=\([^ ]*\).*/dmesg=\1,ch=\2,legit=\3/p')"
			printf '%s\t%s\t%s\tboot%d\n' "$c" "$r" "$o" "$boot" >>"$tsv"
			remaining=$(echo " $remaining " | sed "s/ $c / /" | xargs)
		done <<<"$done_now"
		started=$(grep -a '^HOSTILE-START ' "$serial" 2>/dev/null | tail -1 | sed -n 's/.* case=\([^ ]*\).*/\1/p' | tr -d '\r')
		if [ -n "$started" ] && echo " $remaining " | grep -q " $started "; then
			# the guest died (or hung) during this case
			local why=guest_hung
			grep -aqE 'Kernel panic|Oops|BUG:' "$serial" && why=guest_crash
			local k; k=$(grep -aE 'BUG:|Oops|Kernel panic' "$serial" | head -1 | sed 's/^\[[^]]*\] //' | cut -c1-80 | tr '\t|' '  ')
			printf '%s\t%s\t%s\tboot%d\n' "$started" FAIL "$why${k:+;$k}" "$boot" >>"$tsv"
			remaining=$(echo " $remaining " | sed "s/ $started / /" | xargs)
		elif [ -z "$done_now" ]; then
			log "$srpt boot $boot: no case ran (setup failed?): $(grep -E '^(PASS|FAIL) ' "$OUTD/$srpt-boot$boot.log" | head -1)"
			for c in $remaining; do printf '%s\t%s\t%s\tboot%d\n' "$c" NOTRUN "setup_failed" "$boot" >>"$tsv"; done
			remaining=
		fi
	done
	for c in $remaining; do printf '%s\tNOTRUN\tmax_boots\t-\n' "$c" >>"$tsv"; done
	log "$srpt: $(awk -F'\t' '$2=="PASS"' "$tsv" | wc -l) passed, $(awk -F'\t' '$2=="FAIL"' "$tsv" | wc -l) failed, $(awk -F'\t' '$2=="NOTRUN"' "$tsv" | wc -l) not run, $boot boot(s)"
}

for d in "${drivers[@]}"; do
	case $d in intree|port) ;; *) echo "unknown driver $d" >&2; exit 2 ;; esac
	# HOSTILE_TABLE_ONLY=1: no guest, the table from the existing <srpt>.tsv
	[ -n "${HOSTILE_TABLE_ONLY:-}" ] || run_driver "$d"
done

cell() { # cell SRPT CASE
	local f=$OUTD/$1.tsv
	[ -f "$f" ] || { echo "-"; return; }
	awk -F'\t' -v c="$2" '$1==c{v=$2" "$3} END{print (v==""?"-":v)}' "$f" | sed 's/|/\//g'
}
{
	printf '| case |'; for d in "${drivers[@]}"; do printf ' %s |' "$d"; done; echo
	printf '| --- |'; for d in "${drivers[@]}"; do printf ' --- |'; done; echo
	for c in $all; do
		printf '| %s |' "$c"
		for d in "${drivers[@]}"; do printf ' %s |' "$(cell "$d" "$c")"; done
		echo
	done
	echo
	for d in "${drivers[@]}"; do
		f=$OUTD/$d.tsv
		echo "$d: $(awk -F'\t' '$2=="PASS"' "$f" | wc -l) passed, $(awk -F'\t' '$2=="FAIL"' "$f" | wc -l) failed, $(awk -F'\t' '$2=="NOTRUN"' "$f" | wc -l) not run"
	done
} | tee "$OUTD/table.md"
