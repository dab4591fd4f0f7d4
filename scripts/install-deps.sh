#!/usr/bin/env bash
# Installs the Debian packages a build, the host tests or the guest need.
# Idempotent: packages already present are not touched, apt is only asked
# when something is missing. Usage: install-deps.sh build|test|vm|deb|all
set -euo pipefail

build_pkgs=(make gcc-12 g++-12 linux-headers-amd64 libelf-dev binutils kmod)
test_pkgs=(g++ clang libclang-rt-14-dev googletest libgtest-dev libgmock-dev
	libbenchmark-dev python3)
vm_pkgs=(qemu-system-x86 qemu-utils debootstrap busybox-static xz-utils
	e2fsprogs cpio dpkg-dev fakeroot python3-matplotlib libibumad-dev
	librdmacm-dev libibverbs-dev)
# make deb (the DKMS package) and make man
deb_pkgs=(dpkg-dev debhelper dh-dkms fakeroot groff-base)

want=()
for group in "$@"; do
	case "$group" in
	build) want+=("${build_pkgs[@]}") ;;
	test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
	vm) want+=("${vm_pkgs[@]}") ;;
	deb) want+=("${build_pkgs[@]}" "${deb_pkgs[@]}") ;;
	all) want+=("${build_pkgs[@]}" "${test_pkgs[@]}" "${vm_pkgs[@]}" "${deb_pkgs[@]}") ;;
	*) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
	esac
done

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
