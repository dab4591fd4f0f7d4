#!/bin/sh
# Prints the kernel release to build and test for, never hard-coded: the one
# linux-headers-amd64 (Debian's default kernel) depends on, if its headers
# are installed; else the newest /lib/modules/*/build; else the running
# kernel, or with --installed an error (exit 1): the guest harness boots
# Debian's image of the release, which a host kernel need not have.
# The one resolver: the Makefile, tests/vm/vm.mk, tests/vm/harness/common.sh,
# scripts/kheaders.sh ("default"), make-man.sh, tests/build/run.sh.
# KVER=... overrides it in all of them.
set -eu
installed=0
[ "${1:-}" = --installed ] && installed=1
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null || true)
ver=$(printf '%s\n' "$dep" | sed -n 's/^.*linux-headers-\([^ ,(]*\).*$/\1/p' | head -n1)
if [ -n "$ver" ] && [ -d "/lib/modules/$ver/build" ]; then
	echo "$ver"
	exit 0
fi
for d in $(ls -d /lib/modules/*/build 2>/dev/null | sort -V -r); do
	basename "$(dirname "$d")"
	exit 0
done
if [ "$installed" = 1 ]; then
	echo "kver: no kernel headers installed (install linux-headers-amd64 or set KVER=)" >&2
	exit 1
fi
uname -r
