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
lib=$here/guest/lib.sh
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
base() { # the "before" file every case starts from
	header
	line kmalloc-8 900 8 30 1
	line kmalloc-64 1300 64 50 1
	line kmalloc-1k 280 1024 20 8
	line inode_cache 2000 600 100 4
	line kmemleak_object 5000 300 200 2
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
$(sed -n '/^slab_alloc_calls() {/,/^}/p;/^slab_check() {/,/^}/p' "$lib")
slab_shrink() { :; }
slab_unreclaim() { echo 20000; }
SLAB0=10000
cp() { command cp "$t.after" "\$2"; }
slab_check "in the self-test"
EOF
	bash "$t.sh" >"$t.out" 2>&1
	echo $? >"$t.rc"
}
case_() { # case_ TAG: reads the "after" file on stdin
	base >"$tmp/$1.before"
	cat >"$tmp/$1.after"
	run_check "$1"
}
rc() { grep -qx "$2" "$tmp/$1.rc"; }
says() { grep -q -- "$2" "$tmp/$1.out"; }

check "the functions were found in lib.sh" grep -q '^slab_check() {' "$lib"

# Same objects, twice the slab pages everywhere (fragmentation): passes,
# and SUnreclaim's growth is reported, not gated.
{ header
  line kmalloc-8 900 8 60 1; line kmalloc-64 1300 64 100 1
  line kmalloc-1k 280 1024 40 8; line inode_cache 2000 600 200 4
  line kmemleak_object 5000 300 400 2; } | case_ pages
check "pages only: passes" rc pages 0
check "pages only: SUnreclaim reported, not gated" says pages 'SUnreclaim (slab pages, not gated) 10000 kB -> 20000 kB (10000 kB)'

# A per-command leak of small objects: +5000 in kmalloc-8 is 39 kB, under
# the byte bounds, over the object bound.
{ header
  line kmalloc-8 5900 8 30 1; line kmalloc-64 1300 64 50 1
  line kmalloc-1k 280 1024 20 8; line inode_cache 2000 600 100 4
  line kmemleak_object 5000 300 200 2; } | case_ small
check "small objects: fails on the object count" says small 'FAIL: kmalloc-8 gained 5000 live objects in the self-test'
check "small objects: exit status" rc small 1
check "small objects: 39 kB of kmalloc reported" says small 'kmalloc-\* caches: 39 kB net of live objects'

# 300 objects of 1 KiB: 300 kB of kmalloc, over 256 kB.
{ header
  line kmalloc-8 900 8 30 1; line kmalloc-64 1300 64 50 1
  line kmalloc-1k 580 1024 20 8; line inode_cache 2000 600 100 4
  line kmemleak_object 5000 300 200 2; } | case_ big
check "kmalloc bytes: fails at 300 kB" says big 'FAIL: kmalloc slab objects grew by 300 kB in the self-test'

# 256 kB exactly is within the bound (-le), one object more is not.
{ header
  line kmalloc-8 900 8 30 1; line kmalloc-64 1300 64 50 1
  line kmalloc-1k 536 1024 20 8; line inode_cache 2000 600 100 4
  line kmemleak_object 5000 300 200 2; } | case_ edge
check "kmalloc bytes: 256 kB passes" rc edge 0
{ header
  line kmalloc-8 900 8 30 1; line kmalloc-64 1300 64 50 1
  line kmalloc-1k 537 1024 20 8; line inode_cache 2000 600 100 4
  line kmemleak_object 5000 300 200 2; } | case_ edge1
check "kmalloc bytes: 257 kB fails" rc edge1 1

# Other caches: +2000 inodes of 600 B = 1171 kB over the 1024 kB total.
{ header
  line kmalloc-8 900 8 30 1; line kmalloc-64 1300 64 50 1
  line kmalloc-1k 280 1024 20 8; line inode_cache 4000 600 100 4
  line kmemleak_object 5000 300 200 2; } | case_ total
check "all caches: fails over 1024 kB" says total 'FAIL: live slab objects grew by 1171 kB in the self-test'

# A cache created after the baseline counts in full; 1500 objects gained
# is within the bound.
{ header
  line kmalloc-8 2400 8 30 1; line kmalloc-64 1300 64 50 1
  line kmalloc-1k 280 1024 20 8; line inode_cache 2000 600 100 4
  line kmemleak_object 5000 300 200 2; line new_cache 100 1024 4 1; } | case_ newc
check "new cache: counted" says newc '102400 B  new_cache'
check "1500 objects in one cache: passes" rc newc 0

echo "slab-check: $passed passed, $failed failed"
[ "$failed" = 0 ]
