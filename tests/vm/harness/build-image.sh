#!/usr/bin/env bash
# Builds (or reuses) the cached guest: uncompressed vmlinux of the Debian
# linux-image-$KVER, a debootstrap bookworm minbase ext4 rootfs with the
# test tools and that kernel's module tree, and a busybox initramfs that
# loads virtio + ext4 and switch_roots into the rootfs.
# Cache: $SRPT_VM_CACHE (default /var/cache/srpt-vm)/<KVER>-<hash of inputs>/
# Prints the image directory on stdout. FORCE=1 rebuilds.
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/initramfs.sh"

if [ -f "$IMAGE_DIR/ok" ] && [ -z "${FORCE:-}" ]; then
	echo "$IMAGE_DIR"; exit 0
fi
[ "$(id -u)" -eq 0 ] || die "building the guest image needs root (debootstrap, mkfs -d ownership)"
for t in debootstrap busybox mkfs.ext4 cpio xz zstd dpkg-deb apt-get qemu-system-x86_64; do
	command -v "$t" >/dev/null || die "missing host tool $t: run scripts/install-deps.sh vm"
done

t0=$(date +%s)
mkdir -p "$CACHE_BASE"
# One builder per image: others wait here and then reuse its result.
exec 9>"$CACHE_BASE/.lock-$(basename "$IMAGE_DIR")"
flock 9
if [ -f "$IMAGE_DIR/ok" ] && [ -z "${FORCE:-}" ]; then
	echo "$IMAGE_DIR"; exit 0
fi
TMP="$IMAGE_DIR.tmp.$$"
rm -rf "$TMP"; mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
log "building guest image for KVER=$KVER in $IMAGE_DIR"

# 1. kernel package: download + extract, never installed on the host.
(cd "$TMP" && { apt-get download -q "linux-image-$KVER-unsigned" >/dev/null 2>&1 ||
	apt-get download -q "linux-image-$KVER" >/dev/null; }) ||
	die "cannot download linux-image-$KVER(-unsigned) (apt-get update first?)"
deb=$(ls "$TMP"/linux-image-*.deb | head -1)
log "kernel package: $(basename "$deb")"
dpkg-deb -x "$deb" "$TMP/kroot"
[ -f "$TMP/kroot/boot/vmlinuz-$KVER" ] || die "no /boot/vmlinuz-$KVER in $deb"

# 2. uncompressed vmlinux (boots faster than bzImage via SeaBIOS: PVH entry).
# The bzImage payload is xz (Debian's 6.1) or zstd (6.12): python's lzma
# for the first, the zstd CLI for the second (python 3.11 has no zstd
# module); the zstd CLI stops at the end of the frame, before the 4-byte
# size the kernel appends.
"$PY" - "$TMP/kroot/boot/vmlinuz-$KVER" "$TMP/vmlinux" <<'PYEOF'
import sys, lzma, subprocess
data = open(sys.argv[1], 'rb').read()

def xz(blob):
    try:
        return lzma.LZMADecompressor().decompress(blob)
    except lzma.LZMAError:
        return b''

def zstd(blob):
    r = subprocess.run(['zstd', '-dcq'], input=blob, capture_output=True)
    return r.stdout

for magic, unpack in ((b'\xfd7zXZ\x00', xz), (b'\x28\xb5\x2f\xfd', zstd)):
    pos = data.find(magic)
    while pos >= 0:
        out = unpack(data[pos:])
        if out[:4] == b'\x7fELF':
            open(sys.argv[2], 'wb').write(out)
            sys.exit(0)
        pos = data.find(magic, pos + 1)
sys.exit("no xz- or zstd-compressed ELF payload found in " + sys.argv[1])
PYEOF
log "vmlinux: $(stat -c %s "$TMP/vmlinux") bytes"

# Module tree: uncompress if the package ships compressed modules.
MODS="$TMP/kroot/lib/modules/$KVER"
find "$MODS" -name '*.ko.xz' -exec xz -d {} + 2>/dev/null || true
depmod -b "$TMP/kroot" "$KVER"

# 3. base initramfs: busybox + virtio/ext4 modules in dependency order.
build_initramfs "$TMP/kroot" "$KVER" "$TMP/initramfs.cpio.gz"

# 4. rootfs: debootstrap minbase + tools + the kernel's modules.
RFS="$TMP/rootfs"
include=$(echo $GUEST_PKGS | tr ' ' ',')
log "debootstrap $SUITE minbase (+ $include)"
debootstrap --variant=minbase --include="$include" "$SUITE" "$RFS" "$MIRROR" \
	>"$TMP/debootstrap.log" 2>&1 || { tail -30 "$TMP/debootstrap.log" >&2; die "debootstrap failed"; }
mkdir -p "$RFS/lib/modules"
cp -a "$MODS" "$RFS/lib/modules/"
depmod -b "$RFS" "$KVER"
echo srpt-guest >"$RFS/etc/hostname"
chroot "$RFS" dbus-uuidgen --ensure=/etc/machine-id >/dev/null 2>&1 || true
rm -rf "$RFS"/var/cache/apt/archives/*.deb "$RFS"/var/lib/apt/lists/*
# Size: contents + 1 GiB headroom for fileio backing files and test data.
used_mb=$(du -sm "$RFS" | cut -f1)
truncate -s $((used_mb + 1024))M "$TMP/rootfs.ext4"
mkfs.ext4 -q -F -L srpt-root -d "$RFS" "$TMP/rootfs.ext4"
echo "$KVER $(basename "$deb")" >"$TMP/kernel.txt"
rm -rf "$RFS" "$TMP/kroot" "$deb"

rm -rf "$IMAGE_DIR"; mv "$TMP" "$IMAGE_DIR"; trap - EXIT
touch "$IMAGE_DIR/ok"
log "guest image ready in $(( $(date +%s) - t0 ))s: $IMAGE_DIR"
echo "$IMAGE_DIR"
