#!/usr/bin/env bash
# Harness self-test: a deliberately broken ib_srpt must make e2e FAIL with a
# clear message. Builds tests/vm/selftest/broken/ (out of tree, in build/) for each
# mode, runs `SRPT=port run.sh e2e` with it and checks the FAIL line.
#   fail-init: init returns -ENODEV      -> "modprobe ib_srpt failed ..."
#   no-fabric: loads, registers nothing  -> "did not register the 'srpt' target fabric"
set -uo pipefail
. "$(dirname "$0")/../harness/common.sh"
modes=("$@"); [ ${#modes[@]} -gt 0 ] || modes=(fail-init no-fabric)
passed=0 failed=0
for mode in "${modes[@]}"; do
	case $mode in
	fail-init) n=1 expect="modprobe ib_srpt failed (SRPT=port)" ;;
	no-fabric) n=2 expect="did not register the 'srpt' target fabric" ;;
	*) die "unknown mode $mode" ;;
	esac
	b="$ROOT/build/vm-broken-$mode"
	rm -rf "$b"; mkdir -p "$b"; cp "$VM_DIR"/selftest/broken/* "$b/"
	make -s -C "/lib/modules/$KVER/build" M="$b" BROKEN_MODE=$n modules >"$b/build.log" 2>&1 ||
		{ cat "$b/build.log"; die "cannot build the broken module"; }
	out=$(SRPT=port SRPT_KO="$b/ib_srpt.ko" VM_ARTIFACTS="$ROOT/build/vm-artifacts-broken-$mode" \
		"$VM_DIR/harness/run.sh" e2e 2>&1)
	echo "$out" | sed "s/^/[$mode] /"
	if grep -q '^FAIL  e2e' <<<"$out" && grep -qF "$expect" <<<"$out"; then
		echo "PASS  broken-$mode: e2e failed with the expected message"; passed=$((passed + 1))
	else
		echo "FAIL  broken-$mode: expected e2e to FAIL with '$expect'"; failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
