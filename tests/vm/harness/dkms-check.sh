#!/usr/bin/env bash
# The ib-srpt-dkms package as an administrator meets it, in a copy of the
# guest's root filesystem (chroot on the host, then booted):
#  1. make deb; the guest image gets dkms, make, g++-12, man-db and the
#     headers of the guest's kernel from Debian's archive (as apt would);
#  2. dpkg -i: DKMS builds ib_srpt for that kernel and installs it under
#     /lib/modules/<kver>/updates/dkms/; `dkms status` says installed; the
#     modinfo version is the package's; a kernel the package does not
#     support (a stand-in 6.99 tree) is named as skipped; `man 9
#     srpt_send_done` and `man 4 ib_srpt` open; with a warning injected
#     into the installed source, `dkms build` still builds it (no -Werror
#     in what users compile);
#  3. dpkg --purge: the file tree is exactly what it was before install;
#  4. installed again, the image boots and the e2e scenario runs on the
#     DKMS-built module (SRPT=dkms: modprobe must resolve updates/dkms/ and
#     the package's version).
# Prints 'dkms: N passed, N failed'. Needs root (loop mount, chroot).
set -uo pipefail
. "$(dirname "$0")/common.sh"
[ "$(id -u)" -eq 0 ] || die "dkms-check needs root (loop mount, chroot)"

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS  $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }
finish() { echo "dkms: $passed passed, $failed failed"; exit $((failed > 0)); }

deb=$("$ROOT/scripts/make-deb.sh" | tail -1)
[ -f "$deb" ] || { bad "make deb"; finish; }
pass "make deb: $(basename "$deb")"
ver=$(dpkg-deb -f "$deb" Version)
base=$("$VM_DIR/harness/build-image.sh") || { bad "guest image"; finish; }

out=${DKMS_ARTIFACTS:-$ROOT/build/dkms}
rm -rf "$out"; mkdir -p "$out"
img=$out/rootfs.ext4
mnt=$out/mnt
cp --sparse=always "$base/rootfs.ext4" "$img"
# Room for the compiler and the headers.
truncate -s +2G "$img"
e2fsck -fy "$img" >/dev/null 2>&1
resize2fs "$img" >/dev/null 2>&1 || { bad "resize2fs $img"; finish; }
mkdir -p "$mnt"
mount -o loop "$img" "$mnt" || { bad "mount $img"; finish; }
cleanup() {
	for m in dev/pts dev proc sys; do umount "$mnt/$m" 2>/dev/null; done
	umount "$mnt" 2>/dev/null
}
trap cleanup EXIT
mount --bind /proc "$mnt/proc"; mount --bind /sys "$mnt/sys"
mount --bind /dev "$mnt/dev"; mount --bind /dev/pts "$mnt/dev/pts"
in_root() { chroot "$mnt" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# 1. What the package needs, from the archive the host uses (the guest's
# kernel headers are in bookworm-security).
# (one-line .list or deb822 .sources, wherever the host keeps them; only
# files whose every archive is Debian's: another repository's key is not
# in the image).
debian_only() {
	grep -q 'debian\.org' "$1" &&
		[ -z "$(grep -E '^(deb(-src)?[[:space:]]|URIs:)' "$1" | grep -v 'debian\.org')" ]
}
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && debian_only "$f" || continue
	case $f in /etc/apt/sources.list) n=host.list ;; *) n=host-$(basename "$f") ;; esac
	cp "$f" "$mnt/etc/apt/sources.list.d/$n"
done
cp /etc/resolv.conf "$mnt/etc/resolv.conf" 2>/dev/null
log "dkms: apt-get install dkms make g++-12 man-db linux-headers-$KVER in the image"
if in_root apt-get update -qq >"$out/apt.log" 2>&1 &&
	in_root apt-get install -y -qq --no-install-recommends dkms make g++-12 man-db \
		"linux-headers-$KVER" >>"$out/apt.log" 2>&1; then
	pass "dependencies installed in the image (dkms, g++-12, linux-headers-$KVER)"
else
	bad "apt-get in the image (see $out/apt.log): $(tail -2 "$out/apt.log" | tr '\n' ' ')"; finish
fi
in_root apt-get clean

# The file tree an install must leave as it found it.
snapshot() {
	(cd "$mnt" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
		-o -path ./tmp -o -path ./var/cache -o -path ./var/log -o -path ./var/lib/apt \
		-o -path ./var/lib/dpkg -o -path ./var/lib/man-db -o -path ./srpt \) -prune -o -print | sort)
}
snapshot >"$out/tree-before.txt"

# 2. Install. An unsupported kernel with headers (a stand-in: the real
# headers under another release name) must be refused by dkms.conf's
# BUILD_EXCLUSIVE_KERNEL and named by the postinst.
fake=6.99.0-1-amd64
mkdir -p "$mnt/lib/modules/$fake"
ln -s "/usr/src/linux-headers-$KVER" "$mnt/lib/modules/$fake/build"
cp "$deb" "$mnt/tmp/"
if in_root dpkg -i "/tmp/$(basename "$deb")" >"$out/install.log" 2>&1; then
	pass "dpkg -i $(basename "$deb")"
else
	bad "dpkg -i (see $out/install.log): $(tail -3 "$out/install.log" | tr '\n' ' ')"; finish
fi
# DKMS compresses a module as the kernel's config asks for its own
# (6.12: CONFIG_MODULE_COMPRESS_XZ, ib_srpt.ko.xz; 6.1: none).
cfg=$mnt/usr/src/linux-headers-$KVER/.config
[ -f "$cfg" ] || bad "no kernel config $cfg in the image (linux-headers-$KVER)"
if grep -q '^CONFIG_MODULE_COMPRESS_XZ=y' "$cfg"; then sfx=.xz
elif grep -q '^CONFIG_MODULE_COMPRESS_ZSTD=y' "$cfg"; then sfx=.zst
elif grep -q '^CONFIG_MODULE_COMPRESS_GZIP=y' "$cfg"; then sfx=.gz
else sfx=; fi
guest_ko=/lib/modules/$KVER/updates/dkms/ib_srpt.ko$sfx
ko=$mnt$guest_ko
if [ -f "$ko" ] && [ "$(modinfo -F version "$ko")" = "$ver" ] &&
	[ "$(modinfo -F vermagic "$ko" | awk '{print $1}')" = "$KVER" ]; then
	pass "DKMS built ib_srpt $ver for $KVER (updates/dkms/, srcversion $(modinfo -F srcversion "$ko"))"
else
	bad "no $(basename "$ko") of version $ver for $KVER under updates/dkms/ ($(ls "$mnt/lib/modules/$KVER/updates/dkms/" 2>&1))"
fi
st=$(in_root dkms status 2>&1)
echo "$st" >"$out/dkms-status.txt"
if grep -q "^ib-srpt/$ver, $KVER, x86_64: installed" <<<"$st"; then
	pass "dkms status: $(echo "$st" | grep "$KVER")"
else
	bad "dkms status: $st"
fi
if grep -q "kernel $fake is not supported" "$out/install.log" && grep -q "BUILD_EXCLUSIVE" "$out/install.log" &&
	[ ! -e "$mnt/lib/modules/$fake/updates" ]; then
	pass "unsupported kernel $fake refused by BUILD_EXCLUSIVE_KERNEL and named: $(grep -m1 "kernel $fake is not supported" "$out/install.log")"
else
	bad "unsupported kernel $fake: no message or a module was built (see $out/install.log)"
fi
rm -rf "${mnt:?}/lib/modules/$fake"
for page in "9 srpt_send_done" "4 ib_srpt"; do
	# shellcheck disable=SC2086
	if txt=$(in_root man -P cat $page 2>&1) && grep -q "ib_srpt\|send completion" <<<"$txt"; then
		pass "man $page ($(echo "$txt" | wc -l) lines)"
	else
		bad "man $page: $(echo "$txt" | head -2)"
	fi
done

# A warning a newer compiler finds must not leave an administrator without
# a module: the package builds without -Werror (docs/build.md,
# "Warnings"). An unused variable in the installed source; DKMS rebuilds
# it, prints the warning and builds the module; the source is put back.
src=$mnt/usr/src/ib-srpt-$ver/glue/module.c
cp "$src" "$out/module.c.orig"
printf '\nint srpt_dkms_warning_probe(void);\nint srpt_dkms_warning_probe(void)\n{\n\tint srpt_dkms_unused;\n\n\treturn 0;\n}\n' >>"$src"
# DKMS keeps a successful build's log with the built module.
mlog=$mnt/var/lib/dkms/ib-srpt/$ver/$KVER/$(uname -m)/log/make.log
if in_root dkms build -m ib-srpt -v "$ver" -k "$KVER" --force >"$out/warning-build.log" 2>&1 &&
	grep -q "unused variable 'srpt_dkms_unused'" "$mlog" &&
	! grep -q -- '-Werror=unused' "$mlog"; then
	pass "a warning injected into glue/module.c: DKMS builds the module and prints it ($(grep -c 'warning:' "$mlog") warning)"
else
	cp "$mlog" "$out/warning-make.log" 2>/dev/null
	bad "a warning injected into glue/module.c: the DKMS build failed or printed no warning (see $out/warning-build.log, $out/warning-make.log)"
fi
cp "$out/module.c.orig" "$src"

# 3. Purge leaves nothing behind.
if in_root dpkg --purge ib-srpt-dkms >"$out/purge.log" 2>&1; then
	snapshot >"$out/tree-after.txt"
	if diff -u "$out/tree-before.txt" "$out/tree-after.txt" >"$out/tree.diff"; then
		pass "dpkg --purge: file tree as before install ($(wc -l <"$out/tree-before.txt") entries)"
	else
		bad "dpkg --purge left or removed files: $(grep '^[-+][^-+]' "$out/tree.diff" | head -5 | tr '\n' ' ')"
	fi
else
	bad "dpkg --purge (see $out/purge.log)"
fi

# 4. Installed again, booted: e2e on the DKMS-built module.
in_root dpkg -i "/tmp/$(basename "$deb")" >"$out/reinstall.log" 2>&1 || bad "second dpkg -i (see $out/reinstall.log)"
rm -f "$mnt/tmp/$(basename "$deb")"
cleanup
trap - EXIT
if SRPT=dkms VM_ROOTFS=$img VMENV_DKMS_VERSION=$ver VMENV_DKMS_KO=$guest_ko VM_ARTIFACTS=$out/vm \
	"$VM_DIR/harness/run.sh" e2e >"$out/e2e.log" 2>&1; then
	pass "e2e on the DKMS-built module ($(grep -m1 '^PASS' "$out/e2e.log"))"
else
	bad "e2e on the DKMS-built module: $(grep -m1 '^FAIL' "$out/e2e.log")"
fi
rm -f "$img"
finish
