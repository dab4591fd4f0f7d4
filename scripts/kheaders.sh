#!/usr/bin/env bash
# Prints "<release> <kernel build directory>" for a kernel to build against.
#
# Usage: kheaders.sh default|<series>|<release> [--fetch]
#   default    the release `make` resolves (scripts/kver.sh)
#   <series>   e.g. 6.12: the newest Debian release of that line, as apt's
#              meta-package linux-headers-<series>-amd64 resolves it
#   <release>  e.g. 6.12.117+deb12-amd64
#
# Installed headers (/lib/modules/<release>/build) are used when present.
# Otherwise the headers are fetched without installing them: apt-get
# download of linux-headers-<release>, its -common package and its
# linux-kbuild, unpacked with dpkg-deb into
# $SRPT_VM_CACHE/headers/<release>/ (default /var/cache/srpt-vm). Installing
# linux-headers-6.12.*+deb12-amd64 would pull in the matching linux-image
# and make it the host's default boot kernel; an unpacked copy
# builds the module just the same. --fetch uses the unpacked copy even when
# the headers are installed, as does KHEADERS_FETCH=1 in the environment
# (how a machine with the headers installed checks the path CI takes).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
want=${1:?usage: kheaders.sh default|<series>|<release> [--fetch]}
force_fetch=${KHEADERS_FETCH:-0}
[ "${2:-}" = --fetch ] && force_fetch=1
cache=${SRPT_VM_CACHE:-/var/cache/srpt-vm}/headers

die() { echo "kheaders: $*" >&2; exit 1; }

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# apt-cache knows nothing on a machine whose lists were never fetched.
apt_knows() { apt-cache show "$1" >/dev/null 2>&1; }
apt_lists() { # package
	apt_knows "$1" && return 0
	$SUDO apt-get update -qq >&2 || true
	apt_knows "$1"
}

# The names in the Depends of @package that start with @prefix.
deps_of() { # package prefix
	apt-cache depends "$1" 2>/dev/null |
		sed -n "s/^ *Depends: \($2[^ ]*\).*/\1/p" | sort -u
}

case $want in
default) rel=$("$top/scripts/kver.sh") ;;
[0-9]*.[0-9]*-*|[0-9]*.[0-9]*.[0-9]*) rel=$want ;;
[0-9]*.[0-9]*)
	meta=linux-headers-$want-amd64
	apt_lists "$meta" || die "apt knows no $meta (is the security archive in sources.list?)"
	rel=$(deps_of "$meta" linux-headers- | sed -n 's/^linux-headers-//p' | sort -V | tail -n1)
	[ -n "$rel" ] || die "cannot resolve $meta to a release"
	;;
*) die "not a release or series: $want" ;;
esac

if [ "$force_fetch" = 0 ] && [ -d "/lib/modules/$rel/build" ]; then
	echo "$rel /lib/modules/$rel/build"
	exit 0
fi

root=$cache/$rel
kdir=$root/usr/src/linux-headers-$rel
if [ ! -f "$root/.complete" ]; then
	pkg=linux-headers-$rel
	apt_lists "$pkg" || die "apt knows no $pkg"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	chmod 755 "$tmp" # apt-get download runs as _apt where it can
	trap 'rm -rf "$tmp"' EXIT
	pkgs="$pkg $(deps_of "$pkg" linux-headers-) $(deps_of "$pkg" linux-kbuild-)"
	for common in $(deps_of "$pkg" linux-headers-); do
		pkgs="$pkgs $(deps_of "$common" linux-kbuild-)"
	done
	pkgs=$(printf '%s\n' $pkgs | sort -u)
	echo "kheaders: fetching $(echo $pkgs) (unpacked, not installed)" >&2
	(cd "$tmp" && apt-get download -q $pkgs >/dev/null) ||
		die "apt-get download $(echo $pkgs) failed"
	mkdir -p "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	# The flavour's Makefile includes the -common tree by absolute path;
	# point it into the unpacked copy. Its other links are relative.
	mk=$tmp/root/usr/src/linux-headers-$rel/Makefile
	[ -f "$mk" ] || die "no usr/src/linux-headers-$rel/Makefile in $(echo $pkgs)"
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$mk"
	grep -q "^include $root/" "$mk" || die "unexpected $mk: $(head -n1 "$mk")"
	rm -rf "$root"
	mv "$tmp/root" "$root"
	touch "$root/.complete"
fi
[ -f "$kdir/Makefile" ] || die "no $kdir/Makefile"
[ -e "$kdir/scripts/Makefile.build" ] ||
	die "$kdir/scripts does not resolve (linux-kbuild not unpacked?)"
echo "$rel $kdir"
