#!/usr/bin/env bash
# Builds (or reuses) the guest image for the check-debug kernel, as an
# overlay of the stock image (tests/vm/harness/build-image.sh), not a new debootstrap:
#   bzImage            the debug kernel the guest boots (build-debug-kernel.sh;
#                      its vmlinux stays in the kernel's cache directory for
#                      symbolising reports). Not the ELF vmlinux through
#                      PVH like the stock image: the KASAN kernel dies
#                      silently in PVH entry (QEMU exits at once, not one
#                      line on the serial console), while the bzImage's
#                      64-bit boot protocol boots it.
#   initramfs.cpio.gz  the same initramfs-init with the debug kernel's
#                      virtio/ext4 modules
#   rootfs.ext4        a copy of the stock rootfs with
#                      /lib/modules/<debug release> written into it (debugfs)
# Usage: build-debug-image.sh DEBUG_KERNEL_DIR  (prints the image directory)
# Cache: $SRPT_VM_CACHE/debug-image/<release>-<hash of both inputs>/
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/initramfs.sh"

DK_DIR=${1:?usage: build-debug-image.sh DEBUG_KERNEL_DIR}
[ -f "$DK_DIR/ok" ] || die "no finished debug kernel in $DK_DIR (build-debug-kernel.sh)"
REL=$(cat "$DK_DIR/release")
BASE="$IMAGE_DIR"   # the stock image of common.sh
[ -f "$BASE/ok" ] || die "no stock guest image in $BASE (build-image.sh)"
command -v debugfs >/dev/null || die "missing host tool debugfs (e2fsprogs)"

h=$({ echo "$BASE $DK_DIR $REL"; cat "$VM_DIR/harness/build-debug-image.sh" "$VM_DIR/harness/initramfs.sh" \
	"$VM_DIR/guest/initramfs-init"; } |
	sha256sum | cut -c1-12)
OUTD="$CACHE_BASE/debug-image/$REL-$h"
if [ -f "$OUTD/ok" ] && [ -z "${FORCE:-}" ]; then
	echo "$OUTD"; exit 0
fi
mkdir -p "$CACHE_BASE/debug-image"
exec 9>"$CACHE_BASE/debug-image/.lock-$REL-$h"
flock 9
if [ -f "$OUTD/ok" ] && [ -z "${FORCE:-}" ]; then
	echo "$OUTD"; exit 0
fi
t0=$(date +%s)
TMP="$OUTD.tmp.$$"
rm -rf "$TMP"; mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
STAGE="$DK_DIR/staging"
MODS="$STAGE/lib/modules/$REL"
[ -f "$MODS/modules.dep" ] || die "no module tree in $MODS"
log "debug guest image for $REL over $BASE"

bz="$DK_DIR/linux/arch/x86/boot/bzImage"
[ -f "$bz" ] || die "no $bz"
cp "$bz" "$TMP/bzImage"

# Initramfs: as the stock image's, with the debug kernel's modules.
build_initramfs "$STAGE" "$REL" "$TMP/initramfs.cpio.gz"

# Rootfs: copy of the stock one plus the module tree (debugfs mkdir/write:
# no loop mount needed).
cp --sparse=always "$BASE/rootfs.ext4" "$TMP/rootfs.ext4"
cmds="$TMP/debugfs.cmds"
{
	(cd "$STAGE" && find "lib/modules/$REL" -type d | sort) | sed 's/^/mkdir /'
	(cd "$STAGE" && find "lib/modules/$REL" -type f | sort) | while read -r f; do
		echo "write $STAGE/$f $f"
	done
} >"$cmds"
debugfs -w -f "$cmds" "$TMP/rootfs.ext4" >"$TMP/debugfs.log" 2>&1 || { tail -20 "$TMP/debugfs.log" >&2; die "debugfs failed"; }
# debugfs reports most errors on stdout and still exits 0
if [ -n "$(grep -vE '^debugfs [0-9]|^debugfs: (mkdir|write) |^Allocated inode: ' "$TMP/debugfs.log")" ]; then
	grep -vE '^debugfs [0-9]|^debugfs: (mkdir|write) |^Allocated inode: ' "$TMP/debugfs.log" | head -20 >&2
	die "debugfs reported errors writing the module tree"
fi
n_in=$(debugfs -R "ls -l lib/modules/$REL/kernel" "$TMP/rootfs.ext4" 2>/dev/null | wc -l)
[ "$n_in" -gt 2 ] || die "module tree not found in the rootfs copy"
e2fsck -fn "$TMP/rootfs.ext4" >"$TMP/e2fsck.log" 2>&1 || { tail -20 "$TMP/e2fsck.log" >&2; die "rootfs copy fails e2fsck"; }
echo "$REL $(cat "$DK_DIR/source")" >"$TMP/kernel.txt"

rm -rf "$OUTD"; mv "$TMP" "$OUTD"; trap - EXIT
touch "$OUTD/ok"
log "debug guest image ready in $(( $(date +%s) - t0 ))s: $OUTD"
echo "$OUTD"
