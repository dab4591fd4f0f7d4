#!/usr/bin/env bash
# Builds ib_srpt.ko with Kbuild and fails on any warning: -Werror covers the
# compilers; objtool and modpost warnings are caught by scanning the log.
# Usage: build-module.sh KDIR LOGFILE [extra make args]
set -uo pipefail
kdir=$1 log=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$(dirname "$log")"
# No module BTF for ib_srpt.ko: pahole cannot encode the C++ objects' DWARF,
# and keeping DWARF is worth more (docs/build.md, "Debug info and BTF").
make -C "$kdir" M="$top" modules CONFIG_DEBUG_INFO_BTF_MODULES= "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
	echo "build-module: make failed ($rc)" >&2
	exit "$rc"
fi
# Kbuild itself prints "warning:" (compilers, objtool) and "WARNING:" (modpost).
if grep -ni 'warning' "$log" >&2; then
	echo "build-module: the build log has diagnostics (see above); refusing" >&2
	exit 1
fi
echo "build-module: $(cd "$top" && ls ib_srpt.ko) built, the log is clean"
