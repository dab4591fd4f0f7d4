#!/usr/bin/env bash
# Host self-test of the guest library's slab_check (tests/vm/guest/lib.sh):
# the functions are taken from lib.sh as they are, fed synthetic
# /proc/slabinfo files before and after, with the guest-only steps
# (shrinking caches, meminfo, debugfs) stood in for. Checks the three
# bounds (live bytes of all caches, live bytes of kmalloc-*, live objects
# gained by one kmalloc cache) and that slab pages alone fail nothing.
# Ends with 'slab-check: N passed, N failed'.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$here/../guest/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # check NAME COMMAND...
	if "${@:2}"; then passed=$((passed + 1)); echo "PASS $1"
	else failed=$((failed + 1)); echo "FAIL $1"; fi
}

# slabinfo 2.1 line: name active_objs num_objs objsize objperslab
# pagesperslab : tunables 0 0 0 : slabdata active_slabs num_slabs 0
line() { # line NAME ACTIVE OBJSIZE SLABS PAGES_PER_SLAB
	printf '%-18s %6d %6d %6d %4d %4d : tunables 0 0 0 : slabdata %6d %6d 0\n' \
		"$1" "$2" "$(($4 * 32))" "$3" 32 "$5" "$4" "$4"
}
header() {
	echo 'slabinfo - version: 2.1'
	echo '# name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>'
}
# caches KMALLOC8 KMALLOC1K INODES [EXTRA LINE]: a slabinfo file with these
# live object counts; the "before" file is `caches 900 280 2000`. Slab
# counts are fixed (as before) unless FRAG=2 doubles them.
caches() {
	local x=${FRAG:-1}
	header
	line kmalloc-8 "$1" 8 $((30 * x)) 1
	line kmalloc-64 1300 64 $((50 * x)) 1
	line kmalloc-1k "$2" 1024 $((20 * x)) 8
	line inode_cache "$3" 600 $((100 * x)) 4
	line kmemleak_object 5000 300 $((200 * x)) 2
	[ -z "${4:-}" ] || line $4
}
# run_check TAG: slab_check on $tmp/TAG.before/after; output TAG.out, exit TAG.rc
run_check() {
	local t=$tmp/$1
	cat >"$t.sh" <<EOF
OUT=$t.d
mkdir -p "\$OUT"
command cp "$t.before" "\$OUT/slabinfo.before"
fail() { echo "FAIL: \$*"; exit 1; }
ok() { echo "ok: \$*"; }
sleep() { :; }
mount_debugfs() { :; }
$(sed -n '/^SLAB_TOLERANCE_KB=/,/^KMALLOC_OBJS_TOLERANCE=/p' "$lib")
$(sed -n '/^slab_alloc_calls() {/,/^}/p;/^slab_check() {/,/^}/p;/^slab_snapshot() {/,/^}/p;/^slab_compare() {/,/^}/p' "$lib")
slab_shrink() { :; }
slab_unreclaim() { echo 20000; }
SLAB0=10000
cp() { command cp "$t.after" "\$2"; }
slab_check "in the self-test"
EOF
	bash "$t.sh" >"$t.out" 2>&1
	echo $? >"$t.rc"
}
case_() { # case_ TAG KMALLOC8 KMALLOC1K INODES [EXTRA]: the "after" file
	FRAG=1 caches 900 280 2000 >"$tmp/$1.before"
	local tag=$1; shift
	caches "$@" >"$tmp/$tag.after"
	run_check "$tag"
}
rc() { grep -qx "$2" "$tmp/$1.rc"; }
says() { grep -q -- "$2" "$tmp/$1.out"; }

check "the functions were found in lib.sh" grep -q '^slab_check() {' "$lib"

# Same objects, twice the slab pages everywhere (fragmentation): passes,
# and SUnreclaim's growth is reported, not gated.
FRAG=2 case_ pages 900 280 2000
check "pages only: passes" rc pages 0
check "pages only: SUnreclaim reported, not gated" says pages 'SUnreclaim (slab pages, not gated) 10000 kB -> 20000 kB (10000 kB)'

# A per-command leak of small objects: +5000 in kmalloc-8 is 39 kB, under
# the byte bounds, over the object bound.
case_ small 5900 280 2000
check "small objects: fails on the object count" says small 'FAIL: kmalloc-8 gained 5000 live objects in the self-test'
check "small objects: exit status" rc small 1
check "small objects: 39 kB of kmalloc reported" says small 'kmalloc-\* caches: 39 kB net of live objects'

# 300 objects of 1 KiB: 300 kB of kmalloc, over 256 kB.
case_ big 900 580 2000
check "kmalloc bytes: fails at 300 kB" says big 'FAIL: kmalloc slab objects grew by 300 kB in the self-test'

# 256 kB exactly is within the bound (-le), one object more is not.
case_ edge 900 536 2000
check "kmalloc bytes: 256 kB passes" rc edge 0
case_ edge1 900 537 2000
check "kmalloc bytes: 257 kB fails" rc edge1 1

# Other caches: +2000 inodes of 600 B = 1171 kB over the 1024 kB total.
case_ total 900 280 4000
check "all caches: fails over 1024 kB" says total 'FAIL: live slab objects grew by 1171 kB in the self-test'

# A cache created after the baseline counts in full; 1500 objects gained
# is within the bound.
case_ newc 2400 280 2000 'new_cache 100 1024 4 1'
check "new cache: counted" says newc '102400 B  new_cache'
check "1500 objects in one cache: passes" rc newc 0

# slab_compare between two points of a scenario (port-datapath's relogin
# loop): its own files and report, the alloc-call tag from the file name.
FRAG=1 caches 900 280 2000 >"$tmp/mid.before"
caches 5900 280 2000 >"$tmp/slabinfo.relogin-after"
cat >"$tmp/mid.sh" <<EOF
OUT=$tmp/mid.d
mkdir -p "\$OUT"
fail() { echo "FAIL: \$*"; exit 1; }
ok() { echo "ok: \$*"; }
slab_alloc_calls() { echo "alloc calls tagged \$1"; }
$(sed -n '/^SLAB_TOLERANCE_KB=/,/^KMALLOC_OBJS_TOLERANCE=/p' "$lib")
$(sed -n '/^slab_compare() {/,/^}/p' "$lib")
slab_compare "over 20 relogins" "$tmp/mid.before" "$tmp/slabinfo.relogin-after" "\$OUT/relogin-slab.txt" 300 305
EOF
bash "$tmp/mid.sh" >"$tmp/mid.out" 2>&1
echo $? >"$tmp/mid.rc"
check "slab_compare: fails on its own files" says mid 'FAIL: kmalloc-8 gained 5000 live objects over 20 relogins'
check "slab_compare: alloc calls tagged by the file name" says mid 'alloc calls tagged relogin-after'
check "slab_compare: report written where asked" grep -q 'SUnreclaim (slab pages, not gated) 300 kB -> 305 kB (5 kB)' "$tmp/mid.d/relogin-slab.txt"
check "slab_compare: exit status" rc mid 1

echo "slab-check: $passed passed, $failed failed"
[ "$failed" = 0 ]
