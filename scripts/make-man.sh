#!/usr/bin/env bash
# make man: the manual pages the package installs, in OUT (build/man):
#  - section 9, one page per kernel-doc comment of the C glue (the module's
#    entry points and callbacks: srpt_send_done(9), ...), made by the
#    kernel's own scripts/kernel-doc from the headers of KVER;
#  - ib_srpt(4), written by hand for administrators (docs/man/ib_srpt.4).
# Every page must format without a groff warning. Dated by the last commit,
# so that the same tree gives the same pages.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/man}
kver=${KVER:-$("$top/scripts/kver.sh")}
kdoc=${KERNEL_DOC:-/lib/modules/$kver/build/scripts/kernel-doc}
[ -x "$kdoc" ] || { echo "make-man: no $kdoc (install linux-headers-$kver or set KERNEL_DOC=)" >&2; exit 1; }

when=$(git -C "$top" log -1 --format=%cI 2>/dev/null || true)
[ -n "$when" ] || when=$(date -u -r "$top/VERSION" +%FT%TZ 2>/dev/null || date -u +%FT%TZ)
export KBUILD_BUILD_TIMESTAMP=$when

rm -rf "$out"
mkdir -p "$out"
cd "$top"
# The files with kernel-doc comments (kernel-doc warns about the others).
mapfile -t srcs < <(grep -l '^/\*\*$' glue/*.c configfs/*.c)
# One file per run: with several, kernel-doc 6.1 loses track after the
# first and warns that the next has no comments.
for f in "${srcs[@]}"; do "$kdoc" -Werror -none "$f"; done
for f in "${srcs[@]}"; do "$kdoc" -man "$f"; done | awk -v dir="$out" '
	/^\.TH "/ { if (f) close(f); n = $2; gsub(/"/, "", n); f = dir "/" n ".9" }
	f { print > f }'
cp docs/man/ib_srpt.4 "$out/"
n=0
for p in "$out"/*; do
	w=$(groff -man -ww -z "$p" 2>&1) || true
	[ -z "$w" ] || { echo "make-man: $p: $w" >&2; exit 1; }
	n=$((n + 1))
done
[ -f "$out/srpt_send_done.9" ] || { echo "make-man: srpt_send_done(9) missing" >&2; exit 1; }
echo "make-man: $n pages in $out"
