#!/usr/bin/env bash
# Runs every srp_hostile case (tests/tools/srp_hostile/) in the `hostile`
# guest scenario against SRPT=intree and/or SRPT=port and prints a markdown
# table cases x drivers. A guest that crashes (expected for several cases
# with the in-tree 6.1 driver) or stops after a kernel Oops is replaced by a
# new guest that continues with the remaining cases; the case that was
# running when a guest died is recorded as guest_crash / guest_hung.
#
#   tests/vm/harness/hostile-compare.sh [intree] [port]     (default: intree port)
#   HOSTILE_CASES="a b c"   subset (default: all of srp_hostile --list)
#   HOSTILE_MAX_BOOTS=N     per driver (default 40)
#   VM_TIMEOUT=secs         per guest (default 1200)
#   HOSTILE_TABLE_ONLY=1    no guests: print the table from earlier runs
#   VMENV_HOSTILE_LEGIT_EVERY, VMENV_HOSTILE_TIMEOUT_MS: passed to the guest
#   HOSTILE_RESUME=1        keep <srpt>.tsv results, run only the cases missing
#   HOSTILE_INGEST="intree:/path/serial.log ..."  add results from saved consoles
# Output: build/vm-artifacts/hostile-compare/{table.md,<srpt>.tsv,<srpt>-boot<N>/}
# The whole script is one function, parsed before it runs: editing this file
# while a long comparison is running cannot derail it.
main() {
set -uo pipefail
VM_DIR=$(cd "$(dirname "$0")/.." && pwd)  # tests/vm
ROOT=${ROOT:-$(cd "$VM_DIR/../.." && pwd)}
OUTD=${HOSTILE_OUT:-${VM_ARTIFACTS:-$ROOT/build/vm-artifacts}/hostile-compare}
export VM_TIMEOUT=${VM_TIMEOUT:-1200}
MAX_BOOTS=${HOSTILE_MAX_BOOTS:-40}
drivers=("$@"); [ ${#drivers[@]} -gt 0 ] || drivers=(intree port)
mkdir -p "$OUTD"

tool=$OUTD/srp_hostile
gcc -O2 -Wall -Wextra -Werror -o "$tool" "$ROOT"/tests/tools/srp_hostile/*.c -lrdmacm -libverbs ||
	{ echo "hostile-compare: cannot build srp_hostile" >&2; exit 2; }
if [ -n "${HOSTILE_CASES:-}" ]; then all=$(echo "$HOSTILE_CASES" | tr ',' ' '); else all=$("$tool" --list | awk '{print $1}'); fi
all=$(echo $all)

log() { echo "[hostile-compare $(date +%H:%M:%S)] $*" >&2; }

# ingest SRPT SERIAL BOOT: results of one guest's console into $OUTD/SRPT.tsv
# (case \t result \t outcome \t boot); updates $remaining. Returns 1 if the
# guest ran no case at all.
ingest() {
	local srpt=$1 serial=$2 boot=$3 tsv=$OUTD/$1.tsv l c r o started n=0
	while read -r l; do
		[ -n "$l" ] || continue
		c=$(echo "$l" | sed -n 's/.* case=\([^ ]*\).*/\1/p')
		echo " $remaining " | grep -q " $c " || continue
		r=$(echo "$l" | sed -n 's/.* result=\([^ ]*\).*/\1/p')
		o=$(echo "$l" | sed -n 's/.* outcome=\([^ ]*\).*/\1/p')
		[ "$r" = PASS ] || o="$o;$(echo "$l" | sed -n 's/.* dmesg=\([^ ]*\) channels=\([^ ]*\) legit=\([^ ]*\).*/dmesg=\1,ch=\2,legit=\3/p')"
		printf '%s\t%s\t%s\tboot%s\n' "$c" "$r" "$o" "$boot" >>"$tsv"
		remaining=$(echo " $remaining " | sed "s/ $c / /" | xargs)
		n=$((n + 1))
	done < <(grep -a '^HOSTILE-RESULT ' "$serial" 2>/dev/null | tr -d '\r')
	started=$(grep -a '^HOSTILE-START ' "$serial" 2>/dev/null | tail -1 | sed -n 's/.* case=\([^ ]*\).*/\1/p' | tr -d '\r')
	if [ -n "$started" ] && echo " $remaining " | grep -q " $started "; then
		# the guest died (or hung) during this case
		local why=guest_hung k
		grep -aqE 'Kernel panic|Oops|BUG:' "$serial" && why=guest_crash
		k=$(grep -aE 'BUG:|Oops|Kernel panic' "$serial" | head -1 | sed 's/^\[[^]]*\] //' | cut -c1-80 | tr '\t|' '  ')
		printf '%s\t%s\t%s\tboot%s\n' "$started" FAIL "$why${k:+;$k}" "$boot" >>"$tsv"
		remaining=$(echo " $remaining " | sed "s/ $started / /" | xargs)
		n=$((n + 1))
	fi
	[ "$n" -gt 0 ]
}

# run one guest; a guest that printed its result line but does not power
# off within 45 s (seen after an in-tree Oops) is killed by its PID.
boot_guest() { # boot_guest SRPT ART LOG
	local srpt=$1 art=$2 lg=$3 serial=$2/$1/hostile/serial.log t=0
	VM_ARTIFACTS=$art SRPT=$srpt VMENV_HOSTILE_CASES="$remaining" "$VM_DIR/harness/run.sh" hostile >"$lg" 2>&1 &
	local rp=$!
	local last=0 still=0 sz
	while kill -0 "$rp" 2>/dev/null; do
		sleep 5
		# a crashed guest whose console stays silent for 240 s is hung
		# (an in-tree Oops can leave the scenario in D state)
		sz=$(stat -c %s "$serial" 2>/dev/null || echo 0)
		if [ "$sz" = "$last" ]; then still=$((still + 5)); else still=0; last=$sz; fi
		if [ "$still" -ge 240 ] && grep -aqE 'BUG:|Oops' "$serial" 2>/dev/null &&
			[ -f "$art/$srpt/hostile/qemu.pid" ]; then
			log "$srpt: crashed guest silent for ${still}s; killing qemu $(cat "$art/$srpt/hostile/qemu.pid")"
			kill "$(cat "$art/$srpt/hostile/qemu.pid")" 2>/dev/null
			still=-100000
		fi
		if grep -aq '^SRPT-GUEST-RESULT' "$serial" 2>/dev/null; then
			t=$((t + 5))
			if [ "$t" -ge 45 ] && [ -f "$art/$srpt/hostile/qemu.pid" ]; then
				log "$srpt: guest did not power off after its result; killing qemu $(cat "$art/$srpt/hostile/qemu.pid")"
				kill "$(cat "$art/$srpt/hostile/qemu.pid")" 2>/dev/null
				t=-600
			fi
		fi
	done
	wait "$rp"
}

run_driver() { # run_driver SRPT -> $OUTD/SRPT.tsv
	local srpt=$1 tsv=$OUTD/$1.tsv boot=0 c
	remaining=$all
	if [ -n "${HOSTILE_RESUME:-}" ] && [ -f "$tsv" ]; then
		# keep earlier results; optional extra console logs to ingest first
		sed -i '/\tNOTRUN\t/d' "$tsv"
		for c in $(cut -f1 "$tsv"); do remaining=$(echo " $remaining " | sed "s/ $c / /" | xargs); done
		boot=$(ls -d "$OUTD/$srpt"-boot* 2>/dev/null | wc -l)
	else
		: >"$tsv"
	fi
	while [ -n "$remaining" ] && [ "$boot" -lt "$MAX_BOOTS" ]; do
		boot=$((boot + 1))
		local art=$OUTD/$srpt-boot$boot
		rm -rf "$art"; mkdir -p "$art"
		log "$srpt boot $boot: $(echo $remaining | wc -w) case(s) left"
		boot_guest "$srpt" "$art" "$OUTD/$srpt-boot$boot.log"
		if ! ingest "$srpt" "$art/$srpt/hostile/serial.log" "$boot"; then
			# a guest that died before the scenario (e.g. TCG under load:
			# "IO-APIC + timer doesn't work!") is retried twice
			if ! grep -aq 'HOSTILE-START\|== hostile:' "$art/$srpt/hostile/serial.log" 2>/dev/null &&
				[ "${retries:-0}" -lt 2 ]; then
				retries=$(( ${retries:-0} + 1 ))
				log "$srpt boot $boot: guest died before the scenario; retry $retries"
				continue
			fi
			log "$srpt boot $boot: no case ran (setup failed?): $(grep -E '^(PASS|FAIL) ' "$OUTD/$srpt-boot$boot.log" | head -1)"
			for c in $remaining; do printf '%s\t%s\t%s\tboot%d\n' "$c" NOTRUN "setup_failed" "$boot" >>"$tsv"; done
			remaining=
		fi
	done
	for c in $remaining; do printf '%s\tNOTRUN\tmax_boots\t-\n' "$c" >>"$tsv"; done
	log "$srpt: $(awk -F'\t' '$2=="PASS"' "$tsv" | wc -l) passed, $(awk -F'\t' '$2=="FAIL"' "$tsv" | wc -l) failed, $(awk -F'\t' '$2=="NOTRUN"' "$tsv" | wc -l) not run, $boot boot(s)"
}

# HOSTILE_INGEST="SRPT:SERIAL ...": add the results of console logs saved
# elsewhere (e.g. a guest whose artifacts were lost) before running.
for spec in ${HOSTILE_INGEST:-}; do
	remaining=$all
	[ -f "$OUTD/${spec%%:*}.tsv" ] && for c in $(cut -f1 "$OUTD/${spec%%:*}.tsv"); do remaining=$(echo " $remaining " | sed "s/ $c / /" | xargs); done
	ingest "${spec%%:*}" "${spec#*:}" ingested || true
done

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
}
main "$@"
exit $?
