#!/usr/bin/env bash
# Builds an out-of-tree module with Kbuild and fails on any warning: -Werror
# covers the compilers (SRPT_WERROR=1, which the Kbuild file turns into
# -Werror; the DKMS package's build leaves it out, docs/build.md
# "Warnings"); objtool and modpost warnings are caught by scanning the log. The module is ib_srpt.ko (this tree) unless --dir names another
# Kbuild directory (the bench's test tools, tests/vm/bench/build-pattern-bw.sh).
# Usage: build-module.sh [--dir MODULE_DIR] KDIR LOGFILE [extra make args]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mdir=$top
if [ "${1:-}" = --dir ]; then
	mdir=${2:?usage: build-module.sh [--dir MODULE_DIR] KDIR LOGFILE}
	shift 2
fi
kdir=${1:?usage: build-module.sh [--dir MODULE_DIR] KDIR LOGFILE} log=${2:?usage: build-module.sh [--dir MODULE_DIR] KDIR LOGFILE}
shift 2
mkdir -p "$(dirname "$log")"
# No module BTF: pahole cannot encode the C++ objects' DWARF, and keeping
# DWARF is worth more (docs/build.md, "Debug info and BTF"); a test tool
# needs none either.
make -C "$kdir" M="$mdir" modules CONFIG_DEBUG_INFO_BTF_MODULES= SRPT_WERROR=1 "$@" 2>&1 | tee "$log"
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
echo "build-module: $(cd "$mdir" && echo *.ko) built, the log is clean"
