#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run fuzz targets one after the other for SECONDS each.
# usage: run.sh SECONDS BIN_DIR TARGET...
# Seeds come from tests/fuzz/corpus/<target> (read-only); new inputs go to
# BIN_DIR/corpus/<target>, crashes to BIN_DIR/artifacts/<target>/.
# Prints one line per target with its exec count, then
# 'fuzz: N passed, N failed'; exits non-zero if any target failed.
set -uo pipefail
secs=$1 bindir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0

max_len() {
	case $1 in
	iu_parse) echo 8400 ;;
	login) echo 128 ;;
	mad) echo 300 ;;
	*) echo 4096 ;;
	esac
}

for t in "$@"; do
	bin=$bindir/${t}_fuzz
	work=$bindir/corpus/$t
	art=$bindir/artifacts/$t
	log=$bindir/$t.log
	mkdir -p "$work" "$art"
	"$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" \
		-timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$art/" "$work" "$here/corpus/$t" \
		>"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	crashes=$(find "$art" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] && [ -n "$execs" ]; then
		pass=$((pass + 1))
		echo "fuzz $t: ok, ${execs} execs in ${secs}s, cov ${cov:-?}"
	else
		fail=$((fail + 1))
		echo "fuzz $t: FAIL (rc $rc, ${crashes} artifact(s) in $art, log $log)"
		grep -E 'ERROR|SUMMARY|runtime error|deadly signal' "$log" | head -n 5 | sed 's/^/    /'
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
