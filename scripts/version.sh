#!/bin/sh
# Prints the module and package version. A source tree without git (the
# DKMS copy under /usr/src, a release tarball) carries it in the file
# VERSION, written by `make deb`; a git checkout derives it from history:
# 0.<commits on HEAD>+g<abbreviated hash>, "+dirty" when the tree has
# uncommitted changes to tracked files. Monotonic along main, and a valid
# Debian upstream version.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$top/VERSION" ]; then
	cat "$top/VERSION"
	exit 0
fi
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	v="0.$(git -C "$top" rev-list --count HEAD)+g$(git -C "$top" rev-parse --short=7 HEAD)"
	git -C "$top" diff --quiet HEAD -- 2>/dev/null || v="$v+dirty"
	echo "$v"
	exit 0
fi
echo "0.0+unknown"
