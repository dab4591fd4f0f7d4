#!/usr/bin/env bash
# make deb: the ib-srpt-dkms Debian package, with Debian's own tooling
# (debhelper + dh-dkms, dpkg-buildpackage). Prints the .deb's path last.
#  - version: scripts/version.sh (from git), written to VERSION in the copy;
#  - source: the files Kbuild needs, as the working tree has them, copied to
#    /usr/src/ib-srpt-<version>/ by the package; DKMS builds from there;
#  - supported kernels: BUILD_EXCLUSIVE_KERNEL of dkms.conf, also quoted by
#    the postinst's message for the others;
#  - man pages: scripts/make-man.sh (section 9 from kernel-doc, ib_srpt(4)).
# Output: build/deb/ib-srpt-dkms_<version>_all.deb
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
ver=$("$top/scripts/version.sh")
name=ib-srpt
stage=$out/$name-$ver
for t in dpkg-buildpackage dh dh_dkms fakeroot groff; do
	command -v "$t" >/dev/null || { echo "make-deb: missing $t: run scripts/install-deps.sh deb" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$stage"
cd "$top"
# Everything Kbuild reads, tracked or new (not ignored), as in the tree.
git ls-files --cached --others --exclude-standard -- \
	Kbuild kbuild src include glue configfs scripts/version.sh LICENSE dkms.conf |
	while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
	tar -cf - -T - | tar -xf - -C "$stage"
echo "$ver" >"$stage/VERSION"
cp docs/admin-guide.md "$stage/"
"$top/scripts/make-man.sh" "$stage/man" >/dev/null

cp -r packaging/debian "$stage/debian"
supported=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' dkms.conf)
[ -n "$supported" ] || { echo "make-deb: dkms.conf has no BUILD_EXCLUSIVE_KERNEL" >&2; exit 1; }
supported_text=$(sed -n 's/^# supported: //p' dkms.conf)
pi=$stage/debian/ib-srpt-dkms.postinst
body=$(cat "$pi")
body=${body//@SUPPORTED@/"$supported"}
printf '%s\n' "${body//@SUPPORTED_TEXT@/"$supported_text"}" >"$pi"
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
cat >"$stage/debian/changelog" <<EOC
$name ($ver) unstable; urgency=medium

  * Built from $(git rev-parse HEAD 2>/dev/null || echo "a tree without git")$(git diff --quiet HEAD -- 2>/dev/null || echo " with uncommitted changes").

 -- ib_srpt C++ port developers <ib-srpt@localhost>  $when
EOC
(cd "$stage" && SOURCE_DATE_EPOCH=$(date -d "$when" +%s) \
	dpkg-buildpackage -b -us -uc >"$out/dpkg-buildpackage.log" 2>&1) || {
	tail -30 "$out/dpkg-buildpackage.log" >&2
	echo "make-deb: dpkg-buildpackage failed (log: $out/dpkg-buildpackage.log)" >&2
	exit 1
}
deb=$out/${name}-dkms_${ver}_all.deb
[ -f "$deb" ] || { echo "make-deb: $deb not produced" >&2; exit 1; }
# What must be in it.
list=$(dpkg-deb -c "$deb")
for want in "usr/src/$name-$ver/dkms.conf" "usr/src/$name-$ver/Kbuild" \
	"usr/src/$name-$ver/VERSION" usr/share/man/man9/srpt_send_done.9 \
	usr/share/man/man4/ib_srpt.4 usr/share/doc/ib-srpt-dkms/admin-guide.md; do
	# a here-string, not `echo | grep -q`: with pipefail that pipe fails
	# (SIGPIPE) whenever grep stops reading before echo has written all
	grep -q " \./$want" <<<"$list" || { echo "make-deb: $want missing from $deb" >&2; exit 1; }
done
grep -q "^PACKAGE_VERSION=\"$ver\"" <(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/src/$name-$ver/dkms.conf") ||
	{ echo "make-deb: dkms.conf in $deb does not carry version $ver" >&2; exit 1; }
echo "make-deb: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version), $(echo "$list" | wc -l) entries"
echo "$deb"
