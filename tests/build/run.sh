#!/usr/bin/env bash
# Checks of the module build itself: what it must refuse (kernel headers in
# C++, global constructors) and what the built ib_srpt.ko must show (the
# in-tree parameters, vermagic of the headers, C++ objects that objtool
# processed), that no source casts to a function-pointer type, and that
# warnings are errors in our build but not in the DKMS package's. Prints
# one line per case and 'N passed, N failed'.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
KDIR=${KDIR:-/lib/modules/$KVER/build}
ko=$top/ib_srpt.ko
work=$(mktemp -d /tmp/srpt-buildtest.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

result() { # name, status (0 = pass), detail
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "PASS $1"
	else
		failed=$((failed + 1)); echo "FAIL $1: $3"
	fi
}

# A copy of the tree with one extra C++ file; must fail with @expect.
build_must_fail() { # name, file content, expected message
	local name=$1 content=$2 expect=$3 tree=$work/$1
	mkdir -p "$tree"
	(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$tree"
	(cd "$tree" && make -s -C "$KDIR" M="$tree" clean >/dev/null 2>&1)
	printf '%s\n' "$content" >"$tree/src/zz_probe.cpp"
	local log=$work/$name.log
	if make -C "$KDIR" M="$tree" modules >"$log" 2>&1; then
		result "$name" 1 "the build succeeded"
	elif grep -q -- "$expect" "$log"; then
		result "$name" 0 ""
	else
		result "$name" 1 "failed without '$expect': $(grep -m3 -i error "$log" | tr '\n' ' ')"
	fi
}

[ -f "$ko" ] || { echo "FAIL no $ko: run make first"; echo "0 passed, 1 failed"; exit 1; }

build_must_fail cxx-includes-linux-header-fails \
	'#include <linux/types.h>
int srpt_probe(void);
int srpt_probe(void) { return 0; }' \
	'linux/types.h: No such file or directory'

build_must_fail cxx-includes-libc-header-fails \
	'#include <cstring>
int srpt_probe(void);
int srpt_probe(void) { return 0; }' \
	'No such file or directory'

build_must_fail cxx-global-constructor-fails \
	'int srpt_probe_value(void);
struct Probe { Probe() : v(srpt_probe_value()) {} int v; };
Probe srpt_probe_object;' \
	'needs global constructors or destructors'

info=$(modinfo "$ko")
want_parms=$'srp_max_req_size:Maximum size of SRP request messages in bytes. (int)\nsrpt_srq_size:Shared receive queue (SRQ) size. (int)\nsrpt_service_guid:Using this value for ioc_guid, id_ext, and cm_listen_id instead of using the node_guid of the first HCA.'
got_parms=$(printf '%s\n' "$info" | sed -n 's/^parm: *//p')
[ "$got_parms" = "$want_parms" ]
result modinfo-parameters-as-in-tree $? "got: $got_parms"

vermagic=$(printf '%s\n' "$info" | sed -n 's/^vermagic: *//p')
[ "${vermagic%% *}" = "$KVER" ]
result modinfo-vermagic-matches-headers $? "vermagic '$vermagic', headers $KVER"

[ "$(printf '%s\n' "$info" | sed -n 's/^license: *//p')" = "Dual BSD/GPL" ]
result modinfo-license $? "license line: $(printf '%s\n' "$info" | grep ^license)"

ncxx=$(nm "$ko" | grep -c ' _ZN' || true)
[ "$ncxx" -gt 0 ]
result module-contains-cxx-symbols $? "no mangled C++ symbols in $ko"

# Sections read into a variable first: with pipefail, `readelf | grep -q`
# fails (SIGPIPE, 141) whenever grep stops reading before readelf is done.
ko_sections=$(readelf -SW "$ko")
! grep -qE '\.(init_array|ctors|fini_array|dtors)' <<<"$ko_sections"
result module-has-no-constructor-sections $? "$(readelf -SW "$ko" | grep -E 'init_array|ctors')"

# objtool writes ORC unwind data: its presence for every C++ object proves
# objtool ran on it (the kernel's stack unwinder needs it, too). Kernels
# with IBT (Debian's 6.12) run objtool once, on the linked ib_srpt.o
# (`objtool ... --link`): then each C++ object's largest function must have
# ORC entries in ib_srpt.o; otherwise every C++ object carries its own.
cxx_objs=$(find "$top/src" -name '*.o' ! -name '*.mod.o')
link_cmd=$(cat "$top/.ib_srpt.o.cmd" 2>/dev/null || true)
if grep -q 'objtool.* --link' <<<"$link_cmd"; then
	grep -q 'objtool.* --orc' <<<"$link_cmd"
	result linked-object-processed-by-objtool $? "no 'objtool --orc' in .ib_srpt.o.cmd"
	# shellcheck disable=SC2086
	missing=$(python3 "$top/tests/build/orc-cover.py" "$top/ib_srpt.o" $cxx_objs 2>&1)
	[ -z "$missing" ]
	result cxx-objects-processed-by-objtool $? "$missing"
else
	missing=""
	for o in $cxx_objs; do
		o_sections=$(readelf -SW "$o")
		grep -q '\.orc_unwind_ip' <<<"$o_sections" || missing="$missing $o"
	done
	[ -z "$missing" ]
	result cxx-objects-processed-by-objtool $? "no ORC data in:$missing"
fi

# C++ frames of a crash decode to file:line: the .ko keeps the C++ objects'
# DWARF (module BTF is off for it, docs/build.md "Debug info and BTF").
cxx_units=$(readelf --debug-dump=info "$ko" 2>/dev/null | grep -c 'DW_AT_name.*src/.*\.cpp' || true)
[ "$cxx_units" -gt 0 ]
result module-has-cxx-debug-info $? "no DWARF compilation unit of src/*.cpp in $ko"

# Every indirect call through a retpoline thunk, every return a thunk.
bad=$(objdump -d "$ko" | grep -E '^\s+[0-9a-f]+:.*\s(call|jmp)\s+\*%' | head -3)
[ -z "$bad" ]
result no-bare-indirect-branches $? "$bad"

# No function called through a pointer of another type. The in-tree driver
# cast srpt_qp_event() to the QP event handler's type (clang's
# -Wcast-function-type-strict; a kCFI kernel traps on such a call). gcc's
# -Wcast-function-type, in the kernel's flags, lets pointer parameters
# differ and would not flag it, so: no cast to a function-pointer type at
# all in the glue, configfs or the core. Handlers are assigned as they are,
# and the kernel's -Werror=incompatible-pointer-types checks their types.
fp_re='\(\s*[A-Za-z_][A-Za-z0-9_ ]*\(\s*\*\s*\)\s*\([^;]*\)\s*\)\s*&?[A-Za-z_(]|_cast\s*<[^>]*\(\s*\*\s*\)'
fp_casts=$(cd "$top" && grep -nE "$fp_re" glue/*.[ch] configfs/*.[ch] \
	src/*.cpp src/*/*.cpp include/srpt/*.h* include/srpt/*/*.h* 2>/dev/null)
[ -z "$fp_casts" ]
result no-function-pointer-casts $? "$fp_casts"

# Relocations in the C++ objects that name a symbol matching @pattern.
count_relocs() {
	local pattern=$1 o n total=0
	for o in $cxx_objs; do
		n=$(objdump -r "$o" | grep -cE "$pattern" || true)
		total=$((total + n))
	done
	echo "$total"
}

# Lock assertions: the C++ objects call srpt_{spin,mutex}_assert_held
# exactly when the kernel has lockdep (SRPT_LOCK_ASSERTS, generated from
# CONFIG_LOCKDEP): on a production kernel the call would reach an empty
# function on every command, on the check-debug kernel it is the lockdep
# check that must stay.
# Both read the kernel's configuration: without it they cannot decide.
conf="$KDIR/include/config/auto.conf"
[ -r "$conf" ]
result kernel-config-readable $? "no $conf (KDIR=$KDIR)"
asserts=$(count_relocs 'srpt_(spin|mutex)_assert_held')
if grep -q '^CONFIG_LOCKDEP=y' "$conf" 2>/dev/null; then
	[ "$asserts" -gt 0 ]
	result lock-asserts-called-with-lockdep $? "lockdep kernel, but no C++ object calls srpt_spin_assert_held"
else
	[ "$asserts" -eq 0 ]
	result lock-asserts-left-out-without-lockdep $? "$asserts calls of srpt_*_assert_held in the C++ objects of a kernel without lockdep"
fi

# The spinlock: on a kernel whose spin_lock_irqsave() is one call of the
# exported _raw_spin_lock_irqsave() (SMP, no PREEMPT_RT, lock functions not
# inlined), the C++ objects call the kernel's two functions themselves and
# never the glue's wrappers, which would only forward (SRPT_SPIN_DIRECT,
# docs/build.md); elsewhere they go through the wrappers.
wrapped=$(count_relocs 'srpt_spin_(lock_irqsave|unlock_irqrestore)')
direct=$(count_relocs '[^_]_raw_spin_(lock_irqsave|unlock_irqrestore)')
if grep -q '^CONFIG_SMP=y' "$conf" 2>/dev/null &&
	! grep -qE '^CONFIG_(PREEMPT_RT|INLINE_SPIN_LOCK_IRQSAVE|INLINE_SPIN_UNLOCK_IRQRESTORE)=y' "$conf"; then
	[ "$wrapped" -eq 0 ] && [ "$direct" -gt 0 ]
	result spin-lock-calls-the-kernel-directly $? "C++ objects: $wrapped calls of the glue's srpt_spin_* wrappers, $direct of _raw_spin_*"
else
	[ "$direct" -eq 0 ] && [ "$wrapped" -gt 0 ]
	result spin-lock-through-the-glue $? "C++ objects: $direct calls of _raw_spin_*, $wrapped of the glue's wrappers"
fi

# The bench's raw-ceiling tool (tests/vm/bench/pattern-bw/, a test module the
# wall-clock bench builds for the guest) builds without a diagnostic on
# this kernel too, so that make bench does not find out first.
pbw_log=$("$top/tests/vm/bench/build-pattern-bw.sh" "$KVER" "$work/pattern-bw" "$KDIR" 2>&1)
pbw_rc=$?
[ "$pbw_rc" -eq 0 ] && [ "$(modinfo -F vermagic "$work/pattern-bw/srp_pattern_bw.ko" | awk '{print $1}')" = "$KVER" ]
result pattern-bw-tool-builds-clean $? "build-pattern-bw.sh $KVER: exit $pbw_rc: $(echo "$pbw_log" | grep -m3 -iE 'error|warning' | tr '\n' ' ')"

# -Werror is the project's own (SRPT_WERROR=1 from scripts/build-module.sh:
# make, make check, CI), not the DKMS package's (docs/build.md, "Warnings").
# 1. Every object of the ib_srpt.ko that `make` built here was compiled with
#    -Werror (the kernel's own -Werror=<name> options do not count).
# 2. The package's build, dkms.conf's MAKE line run as DKMS runs it on a copy
#    of the files `make deb` ships, compiles a glue C file and a C++ file
#    that each carry a warning (an unused variable): the warnings are
#    printed, the objects are built, and no compiler command has -Werror.
# 3. `make` on a copy of the tree with the same warning in the glue file
#    fails on it. The glue file is glue/module.c, the first object Kbuild
#    builds, so that this costs one object and not a whole module.
werror_re='(^|[[:space:]])-Werror([[:space:]]|$)'
missing=""
for cmd in "$top"/glue/.*.o.cmd "$top"/configfs/.*.o.cmd $(find "$top/src" -name '.*.o.cmd'); do
	[ -f "$cmd" ] || continue
	grep -qE -- "$werror_re" "$cmd" || missing="$missing ${cmd#"$top"/}"
done
[ -f "$top/glue/.module.o.cmd" ] && [ -z "$missing" ]
result dev-build-compiles-with-werror $? "no -Werror in:${missing:- (no glue/.module.o.cmd: build with make)}"

werror_probe_c='
int srpt_werror_probe(void);
int srpt_werror_probe(void)
{
	int srpt_werror_probe_unused;

	return 0;
}'
werror_probe_cxx='int srpt_werror_probe_cxx();
int srpt_werror_probe_cxx()
{
	int srpt_werror_probe_unused;

	return 0;
}'
# The files make-deb.sh packages (without the build's outputs), as DKMS
# finds them: dkms.conf with its version filled in, VERSION written.
copy_package_files() { # dest [extra paths]
	local dest=$1; shift
	mkdir -p "$dest"
	(cd "$top" && git ls-files --cached --others --exclude-standard -- \
		Kbuild kbuild src include glue configfs scripts/version.sh LICENSE dkms.conf "$@" |
		while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
		tar -cf - -T -) | tar -xf - -C "$dest"
}
pkg_ver=0.0+test
dkms_tree=$work/dkms
pkg=$dkms_tree/ib-srpt/$pkg_ver/build
copy_package_files "$pkg"
echo "$pkg_ver" >"$pkg/VERSION"
sed -i "s/#MODULE_VERSION#/$pkg_ver/" "$pkg/dkms.conf"
printf '%s\n' "$werror_probe_c" >>"$pkg/glue/module.c"
printf '%s\n' "$werror_probe_cxx" >"$pkg/src/zz_werror_probe.cpp"
# DKMS sources dkms.conf with these set, then runs MAKE[0] in the build
# directory. The targets: the two objects instead of `modules`.
dkms_make=$(
	# shellcheck disable=SC2034 # read by dkms.conf
	kernel_source_dir=$KDIR
	# shellcheck disable=SC1091
	. "$pkg/dkms.conf"
	printf '%s' "${MAKE[0]}"
)
read -ra dkms_argv <<<"$dkms_make"
dkms_log=$work/dkms-werror.log
if [ "${dkms_argv[${#dkms_argv[@]}-1]:-}" != modules ] || grep -qE -- "$werror_re|SRPT_WERROR" <<<"$dkms_make"; then
	result dkms-build-without-werror 1 "dkms.conf's MAKE[0] is not '... modules' without -Werror/SRPT_WERROR: $dkms_make"
else
	(cd "$pkg" && env -u SRPT_WERROR "${dkms_argv[@]:0:${#dkms_argv[@]}-1}" \
		glue/module.o src/zz_werror_probe.o) >"$dkms_log" 2>&1
	dkms_rc=$?
	why=""
	[ "$dkms_rc" -eq 0 ] || why="$why; exit $dkms_rc: $(grep -m3 -E 'error|Error' "$dkms_log" | tr '\n' ' ')"
	for o in glue/module src/zz_werror_probe; do
		grep -q "${o}\.c.*: warning: unused variable [^ ]*srpt_werror_probe_unused[^ ]*" "$dkms_log" ||
			why="$why; no unused-variable warning for $o"
		[ -f "$pkg/$o.o" ] || why="$why; no $o.o"
		cmd=$pkg/$(dirname "$o")/.$(basename "$o").o.cmd
		if [ ! -f "$cmd" ]; then why="$why; no $cmd"
		elif grep -qE -- "$werror_re" "$cmd"; then why="$why; -Werror in the command of $o.o"
		fi
	done
	[ -z "$why" ]
	result dkms-build-without-werror $? "${why#; } (log: $dkms_log)"
fi

dev=$work/dev-tree
copy_package_files "$dev" Makefile scripts
printf '%s\n' "$werror_probe_c" >>"$dev/glue/module.c"
dev_log=$work/dev-werror.log
env -u SRPT_WERROR make -C "$dev" KDIR="$KDIR" KVER="$KVER" >"$dev_log" 2>&1
dev_rc=$?
[ "$dev_rc" -ne 0 ] &&
	grep -q "glue/module\.c.*error: unused variable [^ ]*srpt_werror_probe_unused[^ ]* \[-Werror=unused-variable\]" "$dev_log"
result dev-build-fails-on-a-warning $? "make exit $dev_rc: $(grep -m3 -E 'warning|error' "$dev_log" | tr '\n' ' ')"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
