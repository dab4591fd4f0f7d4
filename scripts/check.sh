#!/usr/bin/env bash
# `make check`: every test suite of the project, one after the other.
# Each suite's full output goes to build/check/<suite>.log; this prints one
# line per suite and, last, the total as 'N passed, N failed'.
#
# CHECK_SUITES selects suites (default: all of them, in this order):
#   deps module build unit tsa cost fuzz harness vm-intree vm-port dkms
# vm-intree proves the guest scenarios on the in-tree driver; vm-port runs
# the scenarios the port must pass (PORT_SCENARIOS), hostile (every case of
# tests/tools/srp_hostile/, docs/hostile-initiator.md) among them.
# A suite that cannot run is reported as failed, never as passed.
#
# Two kernels (KVERS, default "default 6.12"): the suites above on the
# first, the kernel `make` builds for (Debian 12's 6.1), and a fixed,
# risk-chosen subset on each further one (KVERS2_SUITES,
# KVERS2_PORT_SCENARIOS below; README "Supported kernels"): 6.12 LTS, the
# newest release of Debian 12's security archive. Its headers are unpacked
# from Debian's packages into the cache, not installed (scripts/kheaders.sh:
# its headers package would pull in its image and make it the host's boot
# kernel). KVERS=default checks one kernel; entries may also be releases.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logdir=$top/build/check
mkdir -p "$logdir"
suites=${CHECK_SUITES:-deps module build unit tsa cost fuzz harness vm-intree vm-port dkms}
KVERS=${KVERS-default 6.12}
# port-removal also runs on the in-tree driver: its rmmod-with-a-live-session
# and slab-baseline checks assert the same outcome for both drivers.
INTREE_SCENARIOS=${INTREE_SCENARIOS:-e2e configfs twohost port-removal}
PORT_SCENARIOS=${PORT_SCENARIOS:-configfs controlpath modparams e2e observe integrity multipath port-datapath port-removal port-srq hostile}
# Per guest. hostile runs every case in one guest (~15 min under TCG on a
# loaded 2-core machine), controlpath configures two drivers with targetcli
# (~7 min): leave room, a hang still ends.
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
total_pass=0 total_fail=0

# Counts from a suite's log: gtest's summary, else the last plain
# 'N passed, N failed' line; a suite without either counts by exit code.
count() { # log rc
	local log=$1 rc=$2 p f line
	if grep -q '^\[==========\] .* ran\.' "$log"; then
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n1)
		f=$(sed -n 's/^ *\([0-9]*\) FAILED TEST.*/\1/p' "$log" | tail -n1)
		p=${p:-0} f=${f:-0}
	elif line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1) && [ -n "$line" ]; then
		p=$(printf '%s' "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/')
		f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	elif [ "$rc" -eq 0 ]; then
		p=1 f=0
	else
		p=0 f=1
	fi
	# A suite that failed but counted no failure still failed.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	echo "$p $f"
}

run_suite() { # name, command...
	local name=$1$suffix; shift
	local log=$logdir/$name.log start end rc p f
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	read -r p f < <(count "$log" "$rc")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	printf '%-6s %-8s %4d passed / %d failed  (%ds, log: %s)\n' \
		"$([ "$f" -eq 0 ] && echo PASS || echo FAIL)" "$name" "$p" "$f" \
		"$((end - start))" "${log#"$top"/}"
	if [ "$f" -ne 0 ]; then
		grep -E 'FAIL|Error|error:|\[  FAILED  \]' "$log" | head -n 15 | sed 's/^/       /'
	fi
}

# The subset for every kernel after the first, chosen by what differs
# between 6.1 and 6.12 (linux-6.12 facts, README): the build itself
# (compat header, objtool on the linked object, BTF), LIO's configfs tree
# (new core attributes: configfs) and command submission, the SRQ drain
# (port-srq), teardown under I/O (port-removal), the data path end to end
# and its data integrity on block devices (e2e, integrity). controlpath
# (~7 min) and hostile (~10 min: the wire parsers are the same C++ on both
# kernels) are left to runs by hand (docs/testing-vm.md, "Linux 6.12") to
# keep CI within its budget. Host-only suites (unit, tsa, fuzz) do not depend
# on the kernel.
KVERS2_SUITES=${KVERS2_SUITES:-module build vm-port}
KVERS2_PORT_SCENARIOS=${KVERS2_PORT_SCENARIOS:-configfs e2e integrity port-srq port-removal}

# The ib_srpt.ko in the tree is built for one kernel at a time: switching
# kernels starts from a clean Kbuild tree (objects and .cmd files of the
# other kernel's flags and objtool mode).
kbuild_clean() { # kdir
	make -s -C "$1" M="$top" clean >/dev/null 2>&1 || true
}

# harness_selftests: the host-side self-tests of the guest harness, one
# after the other, each printing 'NAME: N passed, N failed'; then their sum
# as the suite's count (count() reads the last such line). A self-test
# that ends without its summary counts as one failure.
harness_selftests() {
	local t out line p f tp=0 tf=0 rc=0
	for t in tests/vm/selftest/selftest-dmesg-gate.sh tests/vm/selftest/selftest-bench-report.py \
		tests/vm/selftest/selftest-bench-breakdown.py tests/vm/selftest/selftest-run-lanes.sh \
		tests/vm/selftest/selftest-slab-check.sh tests/vm/selftest/selftest-guest-clock.sh \
		tests/vm/selftest/selftest-cpu-dump.py; do
		out=$("$t" 2>&1) || rc=1
		printf '%s\n' "$out"
		line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z-]+: [0-9]+ passed, [0-9]+ failed' | tail -n1)
		if [ -n "$line" ]; then
			p=$(printf '%s' "$line" | sed -E 's/^[A-Za-z-]+: ([0-9]+) passed.*/\1/')
			f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		else
			echo "FAIL $t: no 'N passed, N failed' summary"
			p=0 f=1
		fi
		tp=$((tp + p)) tf=$((tf + f))
	done
	echo "harness: $tp passed, $tf failed"
	return "$rc"
}

run_suites() { # suites port-scenarios
	local suite
	for suite in $1; do
		case $suite in
		deps) run_suite deps scripts/install-deps.sh all ;;
		module) run_suite module make --no-print-directory module ;;
		build) run_suite build tests/build/run.sh ;;
		unit) run_suite unit make --no-print-directory unit ;;
		# The lock contracts: clang++ -Wthread-safety -Werror, then the
		# unit tests on that build (include/srpt/thread_safety.hpp).
		tsa) run_suite tsa make --no-print-directory unit-clang ;;
		# The data path's instructions per command under callgrind,
		# against tests/bench/cost-bound.txt (tests/bench/cost-gate.sh).
		cost) run_suite cost tests/bench/cost-gate.sh ;;
		fuzz) run_suite fuzz make --no-print-directory fuzz-smoke ;;
		# The guest harness's own verdict logic, on the host (seconds):
		# the dmesg gate must catch every report format and say where;
		# bench-report.py's medians, ratios and "not a verdict" marks;
		# bench-breakdown.py's pairing of a command's events, its CPU
		# per I/O and flame graphs;
		# check-debug's two lanes (run-lanes.sh): the split and the sums.
		harness) run_suite harness harness_selftests ;;
		vm-intree) run_suite vm-intree make --no-print-directory vm-check \
			SRPT=intree VM_SCENARIOS="$INTREE_SCENARIOS" ;;
		vm-port) run_suite vm-port make --no-print-directory vm-check \
			SRPT=port VM_SCENARIOS="$2" ;;
		# The ib-srpt-dkms package: built, installed in a copy of the
		# guest's root filesystem (DKMS builds the module), purged, e2e
		# on it.
		dkms) run_suite dkms tests/vm/harness/dkms-check.sh ;;
		*) echo "check: unknown suite '$suite'"; total_fail=$((total_fail + 1)) ;;
		esac
	done
}

suffix=""
# deps first: resolving the default kernel needs linux-headers-amd64.
case " $suites " in
*" deps "*)
	run_suites deps ""
	suites=$(printf '%s\n' $suites | grep -vx deps | tr '\n' ' ')
	;;
esac

# Each entry: "default" (the kernel `make` builds for), a Debian series
# (6.12: the newest linux-headers-6.12.*+deb12-amd64 apt knows) or a
# release. A kernel whose headers are not installed is built against an
# unpacked copy of Debian's headers packages (scripts/kheaders.sh): nothing
# is installed on the host, and the host's boot kernel stays as it is.
# A kernel that cannot be resolved or fetched is a failed suite.
first=1
for k in $KVERS; do
	if ! resolved=$("$top/scripts/kheaders.sh" "$k" 2>"$logdir/kheaders-$k.log"); then
		printf '%-6s %-8s %4d passed / %d failed  (log: %s)\n' FAIL "kernel@$k" 0 1 \
			"${logdir#"$top"/}/kheaders-$k.log"
		sed 's/^/       /' "$logdir/kheaders-$k.log" | head -n 5
		total_fail=$((total_fail + 1))
		first=0
		continue
	fi
	read -r rel kdir <<<"$resolved"
	export KVER=$rel KDIR=$kdir
	kbuild_clean "$kdir"
	if [ "$first" = 1 ]; then
		echo "== kernel $rel: $suites"
		run_suites "$suites" "$PORT_SCENARIOS"
		first=0
	else
		suffix="@$rel"
		# CHECK_SUITES narrows these too: only the subset's suites it names.
		more=
		for s in $KVERS2_SUITES; do
			case " $suites " in *" $s "*) more="$more $s";; esac
		done
		more=${more# }
		[ -n "$more" ] || { echo "== kernel $rel: none of $KVERS2_SUITES selected (CHECK_SUITES)"; continue; }
		case " $more " in
		*" vm-port "*) echo "== kernel $rel: $more (vm-port: $KVERS2_PORT_SCENARIOS)";;
		*) echo "== kernel $rel: $more";;
		esac
		run_suites "$more" "$KVERS2_PORT_SCENARIOS"
	fi
done
unset KVER KDIR

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
