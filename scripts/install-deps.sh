#!/usr/bin/env bash
# Installs the Debian packages a build, the host tests or the guest need.
# Idempotent: packages already present are not touched, apt is only asked
# when something is missing. Usage: install-deps.sh build|test|vm|deb|all|kernel612
#
# A second kernel is an explicit opt-in, never part of `all`: Debian 12's
# linux-headers-6.12.*+deb12-amd64 depends on the matching linux-image,
# which apt installs and makes the default boot kernel. `kernel612` installs
# Debian's meta-package linux-headers-6.12-amd64 (apt resolves it to the
# newest 6.12 release of the security archive); `headers=<release>` a given
# release. `make check` needs neither: it unpacks the 6.12 headers into the
# cache without installing them (scripts/kheaders.sh; README, "Supported
# kernels").
set -euo pipefail

build_pkgs=(make gcc-12 g++-12 linux-headers-amd64 libelf-dev binutils kmod)
test_pkgs=(g++ clang libclang-rt-14-dev googletest libgtest-dev libgmock-dev
	libbenchmark-dev valgrind python3)
vm_pkgs=(qemu-system-x86 qemu-utils debootstrap busybox-static xz-utils
	e2fsprogs cpio dpkg-dev fakeroot python3-matplotlib libibumad-dev zstd
	librdmacm-dev libibverbs-dev)
# the check-debug kernel (tests/vm/harness/build-debug-kernel.sh)
debugkernel_pkgs=(make gcc-12 bc flex bison libssl-dev libelf-dev xz-utils
	cpio kmod patch linux-headers-amd64)
# make deb (the DKMS package) and make man
deb_pkgs=(dpkg-dev debhelper dh-dkms fakeroot groff-base)

want=()
for group in "$@"; do
	case "$group" in
	build) want+=("${build_pkgs[@]}") ;;
	test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
	vm) want+=("${vm_pkgs[@]}") ;;
	debugkernel) want+=("${debugkernel_pkgs[@]}") ;;
	deb) want+=("${build_pkgs[@]}" "${deb_pkgs[@]}") ;;
	all) want+=("${build_pkgs[@]}" "${test_pkgs[@]}" "${vm_pkgs[@]}" "${deb_pkgs[@]}") ;;
	kernel612) want+=(linux-headers-6.12-amd64) ;;
	headers=?*) want+=("linux-headers-${group#headers=}") ;;
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
# Another apt may hold the dpkg lock on a shared machine: wait for it.
$SUDO apt-get install -o DPkg::Lock::Timeout=900 -y -qq --no-install-recommends "${missing[@]}" >/dev/null
