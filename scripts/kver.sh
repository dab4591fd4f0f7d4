#!/bin/sh
# Prints the kernel release to build for: the one linux-headers-amd64 points
# at, else the newest /lib/modules/*/build, else the running kernel.
set -eu
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null || true)
ver=$(printf '%s\n' "$dep" | sed -n 's/^.*linux-headers-\([^ ,]*\).*$/\1/p' | head -n1)
if [ -n "$ver" ] && [ -d "/lib/modules/$ver/build" ]; then
	echo "$ver"
	exit 0
fi
for d in $(ls -d /lib/modules/*/build 2>/dev/null | sort -V -r); do
	basename "$(dirname "$d")"
	exit 0
done
uname -r
