#!/usr/bin/env bash
# The "no global constructors in C++" rule of kbuild/cxx.mk on a given
# kernel tree (scripts/check-debug.sh runs it on the KASAN debug kernel):
#   - a C++ object with an instrumented global must build: under KASAN its
#     only constructor is the compiler's global registration (_sub_I_*),
#     which the kernel runs for modules (CONFIG_CONSTRUCTORS);
#   - a C++ object with a dynamic initializer must still be refused.
# Usage: ctor-check.sh KDIR. Builds single objects in a copy of the tree.
# Prints one line per case and 'N passed, N failed'.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
KDIR=${1:?usage: ctor-check.sh KDIR}
work=$(mktemp -d /tmp/srpt-ctorcheck.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
kasan=0
grep -q '^CONFIG_KASAN=y' "$KDIR/.config" 2>/dev/null && kasan=1

result() { # name, status (0 = pass), detail
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "PASS $1"
	else
		failed=$((failed + 1)); echo "FAIL $1: $3"
	fi
}

probe() { # name, content -> builds src/zz_probe.o in a copy; sets RC, LOG, OBJ
	local tree=$work/$1
	mkdir -p "$tree"
	(cd "$top" && tar -c Kbuild Makefile include src glue configfs kbuild scripts) | tar -x -C "$tree"
	printf '%s\n' "$2" >"$tree/src/zz_probe.cpp"
	LOG=$work/$1.log OBJ=$tree/src/zz_probe.o
	make -C "$KDIR" M="$tree" src/zz_probe.o >"$LOG" 2>&1
	RC=$?
}

probe instrumented-global-builds \
	'int srpt_probe_table[8];
int srpt_probe_get(int i);
int srpt_probe_get(int i) { return srpt_probe_table[i & 7]; }'
if [ "$RC" -ne 0 ]; then
	result instrumented-global-builds 1 "$(grep -m3 -iE 'error' "$LOG" | tr '\n' ' ')"
elif [ "$kasan" = 1 ] && ! grep -q '\.init_array' <<<"$(readelf -SW "$OBJ")"; then
	result instrumented-global-builds 1 "KASAN kernel but no .init_array: the probe tests nothing"
else
	result instrumented-global-builds 0 ""
fi

probe cxx-dynamic-initializer-fails \
	'int srpt_probe_value(void);
struct Probe { Probe() : v(srpt_probe_value()) {} int v; };
Probe srpt_probe_object;'
if [ "$RC" -eq 0 ]; then
	result cxx-dynamic-initializer-fails 1 "the build succeeded"
elif grep -q 'needs global constructors or destructors' "$LOG"; then
	result cxx-dynamic-initializer-fails 0 ""
else
	result cxx-dynamic-initializer-fails 1 "failed for another reason: $(grep -m3 -iE 'error' "$LOG" | tr '\n' ' ')"
fi

echo "ctor-check (KASAN=$kasan): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
