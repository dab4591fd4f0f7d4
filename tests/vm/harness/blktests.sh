#!/usr/bin/env bash
# Runs the public blktests `srp` group against ib_srpt in one QEMU guest
# (guest scenario: guest/scenarios/blktests-srp.sh) and prints one line per
# test (PASS/FAIL/NOT RUN with the reason) and 'N passed, N failed'.
#
#   tests/vm/harness/blktests.sh /path/to/blktests     (or BLKTESTS=/path/to/blktests)
#   make blktests-srp BLKTESTS=/path/to/blktests [SRPT=port|intree]
#
#   SRPT=intree|port    which ib_srpt the guest's modprobe finds (default intree)
#   SRPT_KO=path        the port's module (default $ROOT/ib_srpt.ko)
#   BLKTESTS_TESTS      what ./check runs (default "srp"; e.g. "srp/005 srp/013")
#   BLKTESTS_TIMEOUT    blktests' TIMEOUT for the TIMED tests (their default: 30 s)
#   VM_TIMEOUT=secs     guest lifetime (default 5400), VM_MEM (default 3G)
#   VM_ARTIFACTS=dir    default $ROOT/build/vm-artifacts -> <dir>/<SRPT>/blktests-srp/
#   BLKTESTS_REPORT_ONLY=1  no guest: print the table from those artifacts again
#
# The blktests checkout is not modified: it is copied (without .git and
# results/) into a staging directory, its src/ helpers are built there with
# the host's compilers (the guest has none; host and guest are both Debian
# 12 amd64) and the copy goes into the guest as an extra cpio appended to
# the per-run initrd (/srpt/blktests in the guest). Artifacts: check.log,
# results/ (blktests' own: per test status, .full, .out.bad, .dmesg),
# dmesg-follow.txt.gz (the whole kernel log), dmesg.txt, serial.log, table.txt.
set -uo pipefail
VM_TIMEOUT=${VM_TIMEOUT:-5400}   # before common.sh, which defaults it to 600
. "$(dirname "$0")/common.sh"

BLKTESTS=${1:-${BLKTESTS:-}}
BLKTESTS_TESTS=${BLKTESTS_TESTS:-srp}
VM_MEM=${VM_MEM:-3G}
SC=blktests-srp

case $SRPT in intree|port) ;; *) die "SRPT must be intree or port, not '$SRPT'";; esac
[ -n "$BLKTESTS" ] || die "usage: $0 /path/to/blktests (or BLKTESTS=...): a checkout of https://github.com/linux-blktests/blktests"
BLKTESTS=$(cd "$BLKTESTS" 2>/dev/null && pwd) || die "BLKTESTS: no such directory"
[ -x "$BLKTESTS/check" ] && [ -f "$BLKTESTS/tests/srp/rc" ] ||
	die "$BLKTESTS is not a blktests checkout (no check, tests/srp/rc)"
case $BLKTESTS/ in "$ROOT"/*) die "keep the blktests checkout outside this repository ($BLKTESTS)";; esac
commit=${BLKTESTS_COMMIT:-$(git -C "$BLKTESTS" rev-parse HEAD 2>/dev/null || echo unknown)}
dir="$ART_BASE/$SRPT/$SC"

# run_guest: stage the checkout, boot the guest, collect its artifacts in $dir.
run_guest() {
	local t0 vm f kconfig= stage hung=0
	t0=$(date +%s)
	if [ "$SRPT" = port ]; then
		[ -f "$SRPT_KO" ] || die "SRPT=port but $SRPT_KO does not exist (run make)"
		vm=$(modinfo -F vermagic "$SRPT_KO" 2>/dev/null | awk '{print $1}')
		[ "$vm" = "$KVER" ] || die "SRPT=port: $SRPT_KO vermagic '$vm' does not match guest kernel $KVER"
	fi
	for f in "/boot/config-$KVER" "/usr/src/linux-headers-$KVER/.config" "/lib/modules/$KVER/build/.config"; do
		[ -f "$f" ] && { kconfig=$f; break; }
	done
	[ -n "$kconfig" ] || die "no kernel config for $KVER (/boot/config-$KVER or linux-headers-$KVER/.config)"
	"$VM_DIR/harness/build-image.sh" >/dev/null || die "guest image build failed"
	rm -rf "$dir"; mkdir -p "$dir"

	# Staging copy of the checkout with its src/ helpers built.
	stage="$dir/bt-stage"
	mkdir -p "$stage/payload/blktests"
	tar -C "$BLKTESTS" --exclude=./.git --exclude=./results --exclude=./config -cf - . |
		tar -C "$stage/payload/blktests" -xf - || die "copying $BLKTESTS failed"
	make -C "$stage/payload/blktests" all >"$dir/blktests-build.log" 2>&1 ||
		die "building blktests src/ failed (see $dir/blktests-build.log)"
	[ -x "$stage/payload/blktests/src/discontiguous-io" ] || die "blktests src/discontiguous-io was not built"
	cp "$kconfig" "$stage/payload/blktests-kconfig"

	log "$SC: blktests $commit ($BLKTESTS), ./check $BLKTESTS_TESTS, SRPT=$SRPT$([ "$SRPT" = port ] && echo " ($SRPT_KO)"), VM_TIMEOUT=$VM_TIMEOUT, artifacts $dir"
	make_payload "$dir" "$SC" single "$([ "$SRPT" = port ] && echo 1 || echo 0)" \
		"BLKTESTS_TESTS='$BLKTESTS_TESTS'" "BLKTESTS_COMMIT=$commit" \
		${BLKTESTS_TIMEOUT:+"BLKTESTS_TIMEOUT=$BLKTESTS_TIMEOUT"}
	# The checkout goes in as one more cpio after make_payload's (the kernel
	# unpacks concatenated archives; /payload/blktests -> /srpt/blktests).
	(cd "$stage" && find payload | cpio -o -H newc --quiet | gzip -1) >>"$dir/initrd" ||
		die "packing the blktests payload failed"
	rm -rf "$stage"
	start_guest "$dir" 2 "$VM_MEM"
	wait_guest "$dir" "$GUEST_PID" "$VM_TIMEOUT" || hung=1
	collect "$dir"
	[ -d "$dir/guest/$SC" ] && { mv "$dir/guest/$SC"/* "$dir/" 2>/dev/null; rm -rf "$dir/guest"; }
	printf '%s\n' "hung=$hung" "ko=$([ "$SRPT" = port ] && basename "$SRPT_KO")" \
		"secs=$(( $(date +%s) - t0 ))" >"$dir/run.txt"
}

if [ -n "${BLKTESTS_REPORT_ONLY:-}" ]; then
	# Only print the table again from the artifacts of an earlier run.
	[ -f "$dir/check.log" ] || die "BLKTESTS_REPORT_ONLY: no $dir/check.log"
else
	run_guest
fi
hung=$(sed -n 's/^hung=//p' "$dir/run.txt" 2>/dev/null); hung=${hung:-0}
ko=$(sed -n 's/^ko=//p' "$dir/run.txt" 2>/dev/null)
secs=$(sed -n 's/^secs=//p' "$dir/run.txt" 2>/dev/null)

# ---- per-test table ---------------------------------------------------
# Status from check.log ("srp/005 (description)   [passed]"), runtime and
# reason from results/<output>/<test> (blktests' key<TAB>value file); for a
# failure the first lines of what went wrong (.out.bad diff, .dmesg).
res_file() { ls -d "$dir"/results/*/"$1" 2>/dev/null | head -1; }
res_key() { [ -f "$1" ] && awk -F '\t' -v k="$2" '$1==k{print $2; exit}' "$1"; }
passed=0 failed=0 notrun=0
table="$dir/table.txt"
: >"$table"
printf '%-8s %-8s %8s  %s\n' test result runtime "reason / description" | tee -a "$table"
if [ -f "$dir/check.log" ]; then
	mapfile -t tests < <(sed -n 's/^\([a-z]*\/[0-9][0-9]*\) .*\[\(passed\|failed\|not run\)\][[:space:]]*$/\1/p' "$dir/check.log" | awk '!s[$0]++')
else
	tests=()
fi
for t in "${tests[@]}"; do
	st=$(sed -n "s#^$t .*\[\(passed\|failed\|not run\)\][[:space:]]*\$#\1#p" "$dir/check.log" | tail -1)
	rf=$(res_file "$t")
	rt=$(res_key "$rf" runtime); rt=${rt:--}
	desc=$(res_key "$rf" description)
	[ -n "$desc" ] || desc=$(sed -n "s|^$t (\(.*\)) *\[.*|\1|p" "$dir/check.log" | tail -1)
	case $st in
	passed) passed=$((passed + 1)); printf '%-8s %-8s %8s  %s\n' "$t" PASS "$rt" "$desc" ;;
	failed)
		failed=$((failed + 1))
		why=$(res_key "$rf" reason)
		detail=
		if [ "$why" = output ] && [ -f "$rf.out.bad" ]; then
			detail=$(diff "$BLKTESTS/tests/$t.out" "$rf.out.bad" | grep '^[<>]' | head -4 | tr '\n' '|')
			# what fio (run_fio logs into .full) or the login said
			nv=$(grep -c 'verify failed' "$rf.full" 2>/dev/null)
			msg=$(grep -m1 -E 'verify failed|bad magic|fio: pid=.*err=|SRP login failed|Could not find device|Error' "$rf.full" 2>/dev/null)
			[ -n "$msg" ] && detail="$detail fio/.full: ${msg}$([ "${nv:-0}" -gt 1 ] && echo " (+$((nv - 1)) more verify failures)")"
		elif [ "$why" = dmesg ] && [ -f "$rf.dmesg" ]; then
			detail=$(grep -m2 -E 'BUG|WARNING|Call Trace|INFO:|KASAN|UBSAN|general protection' "$rf.dmesg" | tr '\n' '|')
		elif [ "$why" = exit ]; then
			detail="exit status $(res_key "$rf" exit_status)"
		fi
		printf '%-8s %-8s %8s  %s\n' "$t" FAIL "$rt" "${why:-?}: ${detail:-see $rf*}" ;;
	"not run")
		notrun=$((notrun + 1))
		why=$(awk -v t="$t" '
			index($0, t " ") == 1 && /\[not run\]/ { on = 1; next }
			on && /^    [^ ]/ && !/\.\.\./ { sub(/^ +/, ""); r = r (r ? "; " : "") $0; next }
			on && /^    / { next }
			on { on = 0 }
			END { print r }' "$dir/check.log")
		printf '%-8s %-8s %8s  %s\n' "$t" "NOT RUN" - "${why:-$desc}" ;;
	esac
done | tee -a "$table"

verdict_extra=
if [ "$hung" = 1 ]; then
	verdict_extra="guest hung: killed after ${VM_TIMEOUT}s (see $dir/serial.log)"
elif [ ! -f "$dir/rc" ]; then
	verdict_extra="no results from the guest (crashed? see $dir/serial.log)"
elif [ "$(cat "$dir/rc")" = 124 ]; then
	verdict_extra="scenario timed out inside the guest after $(cat "$dir/seconds")s"
elif [ "${#tests[@]}" = 0 ]; then
	verdict_extra="no blktests result lines: $(grep -a 'FAIL:' "$dir/log" 2>/dev/null | tail -1)"
fi
kre='^\[ *[0-9]+\.[0-9]{6}\] .*(Oops|BUG:|Kernel panic)'
if grep -aqE "$kre" "$dir/serial.log" 2>/dev/null; then
	verdict_extra="${verdict_extra:+$verdict_extra; }kernel: $(kernel_report "$dir/serial.log" "$kre")"
fi
# Count again outside the pipeline (the loop ran in a subshell).
passed=$(awk '$2=="PASS"' "$table" | wc -l)
failed=$(awk '$2=="FAIL"' "$table" | wc -l)
notrun=$(grep -c ' NOT RUN ' "$table")
if [ -n "$verdict_extra" ]; then
	echo "FAIL  $SC: $verdict_extra" | tee -a "$table"
	failed=$((failed + 1))
fi
echo "blktests $commit, SRPT=$SRPT${ko:+ ($ko)}, ${secs:-?}s, $notrun not run" | tee -a "$table"
echo "artifacts: $dir/"
echo "$passed passed, $failed failed" | tee -a "$table"
[ "$failed" = 0 ]
