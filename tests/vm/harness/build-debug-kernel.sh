#!/usr/bin/env bash
# Builds (or reuses) the check-debug guest kernel: Debian's linux-source of
# the same version as the installed linux-headers-$KVER, Debian's config
# (from the headers package) reduced by localmodconfig to the modules the
# guest scenarios load (debug-kernel/guest-modules.txt), plus the checkers of
# debug-kernel/debug.config (KASAN, lockdep, kmemleak, DEBUG_OBJECTS,
# DEBUG_LIST, KFENCE, fault injection). docs/debug-kernel.md.
#
# Cache: $SRPT_VM_CACHE/debug-kernel/<source version>-<hash>/ holding
#   linux/        the build tree (make KDIR=<it> builds the port against it)
#   vmlinux       the kernel's ELF image, for symbolising reports (the guest
#                 boots linux/arch/x86/boot/bzImage: build-debug-image.sh)
#   staging/      modules_install output: staging/lib/modules/<release>/
#   release       the kernel release (e.g. 6.1.192-srptdbg)
#   build-time    seconds the kernel build took, and on how many jobs
# Prints the cache directory on stdout. FORCE=1 rebuilds; DEBUG_KERNEL_JOBS
# (default 2) and the build runs under nice -n 10.
set -euo pipefail
. "$(dirname "$0")/common.sh"

DK_SRC_DIR="$VM_DIR/harness/debug-kernel"
JOBS=${DEBUG_KERNEL_JOBS:-2}
# Config base (docs/debug-kernel.md):
#   min     allnoconfig + debug-kernel/guest-min.config + Debian's values of
#           the code-generation options (DEBIAN_CODEGEN): what the guest
#           uses and nothing else (default; ~half the objects of "debian")
#   debian  Debian's whole config, localmodconfig'd to guest-modules.txt,
#           minus debug-kernel/guest-trim.config
BASE=${DEBUG_KERNEL_BASE:-min}
case $BASE in min|debian) ;; *) die "DEBUG_KERNEL_BASE must be min or debian, not '$BASE'";; esac
# Options that change how every object (the port's too) is compiled or
# behaves at run time, taken from Debian's config in the "min" base.
DEBIAN_CODEGEN='CPU_MITIGATIONS|PREEMPT_BUILD|PREEMPT_VOLUNTARY|PREEMPT_DYNAMIC|CC_OPTIMIZE_FOR_PERFORMANCE|HZ_250|HZ|RELOCATABLE|RANDOMIZE_BASE|PAGE_TABLE_ISOLATION|SPECULATION_MITIGATIONS|RETPOLINE|RETHUNK|CPU_UNRET_ENTRY|CPU_IBPB_ENTRY|CPU_IBRS_ENTRY|CPU_SRSO|SLS|MITIGATION_[A-Z_]*|CALL_DEPTH_TRACKING|X86_KERNEL_IBT|JUMP_LABEL|STACKPROTECTOR|STACKPROTECTOR_STRONG|VMAP_STACK|STRICT_KERNEL_RWX|STRICT_MODULE_RWX|MODVERSIONS|SLAB_FREELIST_RANDOM|SLAB_FREELIST_HARDENED|SHUFFLE_PAGE_ALLOCATOR|HARDENED_USERCOPY|FORTIFY_SOURCE|INIT_STACK_ALL_ZERO|INIT_ON_ALLOC_DEFAULT_ON|SCHED_STACK_END_CHECK|BUG_ON_DATA_CORRUPTION|UNWINDER_ORC|CPU_SUP_INTEL|CPU_SUP_AMD|MAGIC_SYSRQ_DEFAULT_ENABLE|PANIC_TIMEOUT'

# The source package of the headers' upstream series: 6.1.0-57-amd64 ->
# linux-source-6.1, version pinned to linux-headers-$KVER's version.
series=$(echo "$KVER" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
[ -n "$series" ] || die "cannot derive the kernel series from KVER=$KVER"
src_pkg="linux-source-$series"
hdr_ver=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER" 2>/dev/null) ||
	die "linux-headers-$KVER is not installed (scripts/install-deps.sh build)"
base_config="/usr/src/linux-headers-$KVER/.config"
[ -f "$base_config" ] || die "no Debian config at $base_config"

dk_hash() {
	{
		echo "$KVER $src_pkg $hdr_ver $BASE"
		cat "$base_config" "$DK_SRC_DIR/debug.config" "$VM_DIR/harness/build-debug-kernel.sh" \
			"$DK_SRC_DIR"/patches/*.patch
		if [ "$BASE" = min ]; then cat "$DK_SRC_DIR/guest-min.config"
		else cat "$DK_SRC_DIR/guest-trim.config" "$DK_SRC_DIR/guest-modules.txt"; fi
	} | sha256sum | cut -c1-12
}
DK_BASE="$CACHE_BASE/debug-kernel"
DK_DIR="$DK_BASE/$hdr_ver-$BASE-$(dk_hash)"

if [ -f "$DK_DIR/ok" ] && [ -z "${FORCE:-}" ]; then
	echo "$DK_DIR"; exit 0
fi
[ "$(id -u)" -eq 0 ] || die "building the debug kernel needs root (apt-get, cache in $CACHE_BASE)"
"$ROOT/scripts/install-deps.sh" debugkernel

mkdir -p "$DK_BASE"
exec 9>"$DK_BASE/.lock-$(basename "$DK_DIR")"
flock 9
if [ -f "$DK_DIR/ok" ] && [ -z "${FORCE:-}" ]; then
	echo "$DK_DIR"; exit 0
fi
t0=$(date +%s)
log "debug kernel: $src_pkg=$hdr_ver for KVER=$KVER in $DK_DIR"

# 1. The source package: downloaded and unpacked here, not installed on the
# host (no dpkg lock, nothing under /usr/src changes). Same version as the
# headers; if the archive no longer has it, take the candidate and say so.
DL="$DK_BASE/dl"
mkdir -p "$DL"
deb=$(ls "$DL/${src_pkg}_${hdr_ver}_all.deb" 2>/dev/null || true)
if [ -z "$deb" ]; then
	if ! (cd "$DL" && apt-get download -q "$src_pkg=$hdr_ver" >/dev/null 2>&1); then
		cand=$(apt-cache policy "$src_pkg" | sed -n 's/^ *Candidate: //p')
		echo "########################################################################" >&2
		echo "vm: WARNING: $src_pkg=$hdr_ver (the version of linux-headers-$KVER) cannot be" >&2
		echo "vm: WARNING: downloaded; using the candidate '$cand' instead. The debug kernel" >&2
		echo "vm: WARNING: is then NOT the source of the installed headers." >&2
		echo "########################################################################" >&2
		[ -n "$cand" ] && [ "$cand" != "(none)" ] || die "no $src_pkg in the apt sources (apt-get update?)"
		(cd "$DL" && apt-get download -q "$src_pkg=$cand" >/dev/null) || die "apt-get download $src_pkg=$cand failed"
	fi
	deb=$(ls -t "$DL/${src_pkg}"_*_all.deb | head -1)
fi
src_ver=$(dpkg-deb -f "$deb" Version)
if [ "$src_ver" != "$hdr_ver" ]; then
	echo "vm: WARNING: $src_pkg $src_ver != linux-headers-$KVER $hdr_ver" >&2
fi
log "source package: $(basename "$deb")"

# Built in place (paths in the tree stay valid for M= builds and for an
# incremental rerun after a failure); 'ok' marks a finished build.
TMP="$DK_DIR"
K="$TMP/linux"
if [ ! -f "$K/Makefile" ] || [ -n "${FORCE:-}" ]; then
	rm -rf "$TMP"; mkdir -p "$TMP"
	tarball="usr/src/$src_pkg.tar.xz"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$tarball" | xz -dc -T"$JOBS" | tar -x -C "$TMP"
	mv "$TMP/$src_pkg" "$K"
	# Fixes of the test kernel's own bugs that its checkers report and that
	# are not the port's (debug-kernel/patches/, each says why).
	for p in "$DK_SRC_DIR"/patches/*.patch; do
		[ -f "$p" ] || continue
		patch -d "$K" -p1 --forward --quiet <"$p" >"$TMP/patch.log" 2>&1 ||
			{ cat "$TMP/patch.log" >&2; die "patch $(basename "$p") does not apply"; }
		log "applied $(basename "$p")"
	done
else
	log "reusing the unpacked tree of an unfinished build in $K"
fi
echo "$src_pkg $src_ver" >"$TMP/source"

# 2. Config, then the checkers.
kmake() { make -C "$K" -s "$@"; }
if [ "$BASE" = min ]; then
	seed="$TMP/allno.seed"
	{
		echo "# Debian's code generation ($base_config)"
		grep -E "^CONFIG_($DEBIAN_CODEGEN)=" "$base_config"
		cat "$DK_SRC_DIR/guest-min.config"
	} >"$seed"
	kmake KCONFIG_ALLCONFIG="$seed" allnoconfig >"$TMP/allnoconfig.log" 2>&1 ||
		{ tail -20 "$TMP/allnoconfig.log" >&2; die "allnoconfig failed"; }
	frags=("$DK_SRC_DIR/debug.config")
else
	cp "$base_config" "$K/.config"
	lsmod_file="$TMP/guest.lsmod"
	{
		echo "Module                  Size  Used by"
		grep -v '^#' "$DK_SRC_DIR/guest-modules.txt" | awk 'NF {print $1, 0, 0}'
	} >"$lsmod_file"
	kmake LSMOD="$lsmod_file" localmodconfig >"$TMP/localmodconfig.log" 2>&1 < <(yes '') ||
		{ tail -20 "$TMP/localmodconfig.log" >&2; die "localmodconfig failed"; }
	frags=("$DK_SRC_DIR/guest-trim.config" "$DK_SRC_DIR/debug.config")
fi
"$K/scripts/kconfig/merge_config.sh" -m -O "$K" "$K/.config" "${frags[@]}" \
	>"$TMP/merge.log" 2>&1 || { tail -20 "$TMP/merge.log" >&2; die "merge_config failed"; }
kmake olddefconfig >>"$TMP/merge.log" 2>&1
# Lines of FRAGMENT that olddefconfig did not keep (a dependency missing
# would silently drop a checker).
config_overridden() { # FRAGMENT -> one line per option not as asked
	local line sym
	while read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*}; grep -qxF "$line" "$K/.config" ||
			echo "wanted $line, got: $(grep -E "^(# )?$sym[= ]" "$K/.config" || echo unset)" ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
			if grep -qE "^$sym=" "$K/.config"; then echo "wanted $sym off, got: $(grep -E "^$sym=" "$K/.config")"; fi ;;
		esac
	done <"$1"
}
if [ "$BASE" = min ]; then
	bad=$(config_overridden "$DK_SRC_DIR/guest-min.config")
	[ -z "$bad" ] || { echo "$bad" | sed 's/^/vm: config: /' >&2; die "guest-min.config did not apply (see above)"; }
else
	config_overridden "$DK_SRC_DIR/guest-trim.config" >"$TMP/trim-overridden.txt"
	[ -s "$TMP/trim-overridden.txt" ] &&
		log "guest-trim: $(wc -l <"$TMP/trim-overridden.txt") option(s) kept on by dependencies (trim-overridden.txt)"
fi
bad=$(config_overridden "$DK_SRC_DIR/debug.config")
[ -z "$bad" ] || { echo "$bad" | sed 's/^/vm: config: /' >&2; die "the debug config fragment did not apply (see above)"; }
log "config: $(grep -c '=m$' "$K/.config") modules, $(grep -c '=y$' "$K/.config") built-in options"

# 3. Build: vmlinux + bzImage + modules, niced (the machine is shared).
tb=$(date +%s)
log "building (nice -n 10 make -j$JOBS), log $TMP/build.log"
if ! nice -n 10 make -C "$K" -j"$JOBS" bzImage modules >"$TMP/build.log" 2>&1; then
	mkdir -p "$DK_BASE/failed"; cp "$TMP/build.log" "$DK_BASE/failed/build.log"
	tail -40 "$TMP/build.log" >&2
	die "kernel build failed (log: $DK_BASE/failed/build.log)"
fi
build_s=$(( $(date +%s) - tb ))
rel=$(cat "$K/include/config/kernel.release")
echo "$rel" >"$TMP/release"
echo "$build_s s on make -j$JOBS ($(nproc) cores), $(date -u +%FT%TZ)" >"$TMP/build-time"
log "kernel $rel built in ${build_s}s"

# 4. Modules into a staging root; the guest image overlay copies them.
make -C "$K" -s INSTALL_MOD_PATH="$TMP/staging" modules_install >"$TMP/modules_install.log" 2>&1 ||
	{ tail -20 "$TMP/modules_install.log" >&2; die "modules_install failed"; }
rm -f "$TMP/staging/lib/modules/$rel/build" "$TMP/staging/lib/modules/$rel/source"
cp "$K/vmlinux" "$TMP/vmlinux"
touch "$DK_DIR/ok"
log "debug kernel ready in $(( $(date +%s) - t0 ))s: $DK_DIR"
echo "$DK_DIR"
