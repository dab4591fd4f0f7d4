#!/bin/bash
# Scenario controlpath: in ONE guest, the in-tree ib_srpt and the
# port are configured the same way, one after the other, and must be
# indistinguishable to configfs users:
#   - the srpt configfs tree (entries, modes, values) on a fresh mkdir and
#     after the standard targetcli configuration;
#   - the errno of every invalid write in a table of bad inputs;
#   - targetcli saveconfig -> clearconfig -> restoreconfig round trip;
#   - the device-management MADs their MAD agents answer (byte for byte,
#     sent over rxe with tests/tools/dm_mad_probe.c);
# then, for the port only (the in-tree driver is not the one under test),
#   - `rdma link delete` of the exported device while configured and
#     enabled, configfs teardown, device re-added, configured again;
#   - after each teardown the module's refcount is 0 and it unloads.
# Needs SRPT=port (the port is in updates/, the in-tree module is loaded
# by path).
. /srpt/lib.sh

[ "$SRPT" = port ] || fail "controlpath compares both drivers: run it with SRPT=port"
INTREE_KO=$(find /lib/modules/$KVER_G/kernel -name 'ib_srpt.ko*' | head -1)
[ -n "$INTREE_KO" ] || fail "in-tree ib_srpt.ko not found"

setup_veth_rxe
TGT_PORT=$(gid_hex rxe1)
INI_ID=$(gid_hex rxe0)
GUID_NAME=$(sed 's/^\(....\)\(....\)\(....\)\(....\)$/\1:\2:\3:\4/' <<<"${TGT_PORT:16}")
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config

unload_driver() {
	[ "$(cat /sys/module/ib_srpt/refcnt)" = 0 ] ||
		fail "ib_srpt refcnt $(cat /sys/module/ib_srpt/refcnt) after teardown"
	rmmod ib_srpt || fail "rmmod ib_srpt"
	ok "ib_srpt unloaded"
}

# The whole srpt tree, one line per entry, with what differs by nature
# (random link names, LUN UUIDs, backstore HBA numbers and the target
# core's global statistics indices, which grow with every object made in
# this boot) normalized;
# sorted after normalization.
dump_tree() {
	(
		cd $SRPT_CFG || exit 1
		find . -mindepth 1 | while read -r e; do
			e=${e#./}
			if [ -L "$e" ]; then
				echo "l $(dirname "$e")/<link> -> $(readlink -f "$e" | sed "s|^$CFG/||")"
			elif [ -d "$e" ]; then
				echo "d $e/"
			else
				if v=$(timeout 5 cat "$e" 2>&1); then
					v=$(printf '%s' "$v" | sed ':a;N;$!ba;s/\n/\\n/g')
				else
					v="<unreadable>"
				fi
				echo "f $e [$(stat -c %a "$e")] = $v"
			fi
		done
	) | sed -e "s/$TGT_PORT/<PORT>/g" -e "s/$INI_ID/<ACL>/g" \
		-e 's/[0-9a-f]\{8\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{12\}/<UUID>/g' \
		-e 's/\(creation_time \[[0-7]*\] = \).*/\1<jiffies>/' \
		-e 's#\(/statistics/[^ ]*/\(inst\|dev\|indx\|[a-z_]*_indx\) \[[0-7]*\] = \)[0-9][0-9]*$#\1<n>#' \
		-e 's#\(/statistics/[^ ]*/role \[[0-7]*\] = Device\)[0-9][0-9]*$#\1<n>#' \
		-e 's#-> core/\([a-z_]*\)_[0-9][0-9]*/#-> core/\1_<hba>/#' |
		LC_ALL=C sort
}

# try WHAT CMD...: one line "WHAT -> ok|<error text>"
try() {
	local what=$1 err; shift
	if err=$("$@" 2>&1); then
		echo "$what -> ok"
	else
		err=$(printf '%s' "$err" | sed -n 's/.*: \([A-Z][^:]*\)$/\1/p' | tail -1)
		echo "$what -> ${err:-failed}"
	fi
}
# write VALUE FILE: bash's printf reports the write's real errno.
write() { printf '%s' "$1" >"$2"; }

# Bad (and a few good) inputs, each answered with an errno.
errno_table() {
	local T=$SRPT_CFG/0x$TGT_PORT/tpgt_1 A
	A=$T/attrib
	for v in 65535 16777217 abc "" -1 0x10000 99999999999999999999; do
		try "attrib/srp_max_rdma_size <- '$v'" write "$v" $A/srp_max_rdma_size
	done
	echo 65536 >$A/srp_max_rdma_size
	for v in 39 1025 x 1024; do try "attrib/srp_max_rsp_size <- '$v'" write "$v" $A/srp_max_rsp_size; done
	echo 256 >$A/srp_max_rsp_size
	for v in 3 65536 010 4096; do try "attrib/srp_sq_size <- '$v'" write "$v" $A/srp_sq_size; done
	for v in 2 -1 yes 99999999999999999999 1 0; do try "attrib/use_srq <- '$v'" write "$v" $A/use_srq; done
	for v in 1 1 0 0 2 x 1; do try "enable <- '$v'" write "$v" $T/enable; done
	for v in 65536 -1 port 0x15b3 5555 0; do
		try "discovery_auth/rdma_cm_port <- '$v'" write "$v" $SRPT_CFG/discovery_auth/rdma_cm_port
	done
	try "version <- x" write x $SRPT_CFG/version
	for n in 0xdeadbeef rxe1 "0x${TGT_PORT^^}" 5054:00ff:feaa:9999 "${TGT_PORT}" tpgt_1; do
		try "mkdir port '$n'" mkdir "$SRPT_CFG/$n"
		[ -d "$SRPT_CFG/$n" ] && rmdir "$SRPT_CFG/$n"
	done
	try "mkdir port (GUID form) $GUID_NAME" mkdir "$SRPT_CFG/$GUID_NAME"
	try "mkdir tpg in GUID-form port" mkdir "$SRPT_CFG/$GUID_NAME/tpgt_1"
	try "enable GUID-form tpg" write 1 "$SRPT_CFG/$GUID_NAME/tpgt_1/enable"
	try "disable GUID-form tpg" write 0 "$SRPT_CFG/$GUID_NAME/tpgt_1/enable"
	try "rmdir GUID-form tpg" rmdir "$SRPT_CFG/$GUID_NAME/tpgt_1"
	try "rmdir GUID-form port" rmdir "$SRPT_CFG/$GUID_NAME"
	for n in zz 0x123 iqn.2003-01.org.x:y 1:2:3 192.0.2 "fe80::1%" 0xAbCd 1:2:3:4 \
		fe80::1 192.0.2.9 0123456789abcdef0123456789abcdef0123; do
		try "mkdir acl '$n'" mkdir "$T/acls/$n"
		[ -d "$T/acls/$n" ] && rmdir "$T/acls/$n"
	done
	try "mkdir second tpg" mkdir "$SRPT_CFG/0x$TGT_PORT/tpgt_2"
	try "enable second tpg" write 1 "$SRPT_CFG/0x$TGT_PORT/tpgt_2/enable"
	try "rmdir second tpg" rmdir "$SRPT_CFG/0x$TGT_PORT/tpgt_2"
}

# Device-management MADs from rxe0 to the exported port, each answered (or
# not) by ib_srpt's MAD agent: the response bytes, TID zeroed.
mad_probes() {
	local probe=/srpt/tools/dm_mad_probe dgid
	dgid=$TGT_PORT
	[ -x $probe ] || fail "no $probe in the payload"
	modprobe ib_umad || fail "modprobe ib_umad"
	while read -r method attr mod what; do
		echo "## $what (method $method attr $attr mod $mod)"
		$probe rxe0 1 "$dgid" "$method" "$attr" "$mod" 2>&1 || true
	done <<'PROBES'
1 0x0001 0 Get ClassPortInfo
1 0x0010 0 Get IOUnitInfo
1 0x0011 1 Get IOControllerProfile slot 1
1 0x0011 2 Get IOControllerProfile slot 2
1 0x0011 0 Get IOControllerProfile slot 0
1 0x0011 3 Get IOControllerProfile slot 3
1 0x0011 17 Get IOControllerProfile slot 17
1 0x0012 0x00010000 Get ServiceEntries slot 1 entries 0..0
1 0x0012 0x00010100 Get ServiceEntries slot 1 entries 0..1
1 0x0012 0x00010001 Get ServiceEntries slot 1 entries 1..0
1 0x0012 0x00030000 Get ServiceEntries slot 3
1 0x0012 0x00000000 Get ServiceEntries slot 0
1 0x0099 0 Get unknown attribute
2 0x0010 0 Set IOUnitInfo
PROBES
}

run_driver() { # intree|port
	local drv=$1 D=$OUT/$1
	mkdir -p "$D"
	step "$drv: fresh tree"
	load_srpt "$drv" # intree: by path; port: modprobe, from updates/
	{ echo "## params"; for f in /sys/module/ib_srpt/parameters/*; do
		echo "$(basename "$f") [$(stat -c %a "$f")] = $(cat "$f")"; done; } >"$D/params.txt"
	dump_tree >"$D/fresh.txt"
	ok "$(wc -l <"$D/fresh.txt") entries"

	step "$drv: device-management MADs"
	mad_probes >"$D/mad.txt"
	grep -q '^000:' "$D/mad.txt" || { cat "$D/mad.txt"; fail "$drv: no DM MAD was answered"; }
	ok "$(grep -c '^000:' "$D/mad.txt") of $(grep -c '^##' "$D/mad.txt") probes answered"

	step "$drv: standard targetcli configuration"
	targetcli_config "$TGT_PORT" "$INI_ID" 16 16
	set_rdma_cm_port
	dump_tree >"$D/standard.txt"
	ok "$(wc -l <"$D/standard.txt") entries"

	step "$drv: errno table"
	errno_table >"$D/errno.txt"
	ok "$(wc -l <"$D/errno.txt") writes"
	dump_tree >"$D/after-errno.txt"

	step "$drv: saveconfig / clearconfig / restoreconfig"
	echo 0 >$SRPT_CFG/discovery_auth/rdma_cm_port
	dump_tree >"$D/before-save.txt"
	targetcli saveconfig /tmp/saved-$drv.json >/dev/null 2>&1 || fail "$drv: saveconfig"
	targetcli clearconfig confirm=True >/dev/null 2>&1 || fail "$drv: clearconfig"
	[ -z "$(ls $SRPT_CFG | grep -v -e discovery_auth -e version)" ] || fail "$drv: ports left after clearconfig"
	targetcli restoreconfig /tmp/saved-$drv.json >/tmp/restore.out 2>&1 || { cat /tmp/restore.out; fail "$drv: restoreconfig"; }
	dump_tree >"$D/restored.txt"
	diff -u "$D/before-save.txt" "$D/restored.txt" >"$D/roundtrip.diff" ||
		{ cat "$D/roundtrip.diff"; fail "$drv: restoreconfig does not give back the saved tree"; }
	ok "round trip identical ($(wc -l <"$D/restored.txt") entries)"

	if [ "$drv" = port ]; then hotplug; fi

	step "$drv: teardown"
	target_teardown
	unload_driver
}

hotplug() {
	step "port: rdma link delete under a live, enabled configuration"
	local T=$SRPT_CFG/0x$TGT_PORT/tpgt_1
	set_rdma_cm_port
	[ "$(cat $T/enable)" = 1 ] || fail "tpg not enabled before removal"
	run "rdma link delete rxe1" rdma link delete rxe1
	# The configuration outlives the device: every file still answers.
	dump_tree >"$OUT/port/after-removal.txt" || fail "configfs unreadable after removal"
	try "enable after removal" write 0 $T/enable
	try "re-enable after removal" write 1 $T/enable
	try "attrib after removal" write 128 $T/attrib/srp_sq_size
	ok "configfs usable after device removal"
	target_teardown
	mkdir -p $SRPT_CFG
	readd_rxe1
	targetcli_config "$TGT_PORT" "$INI_ID" 16 16
	set_rdma_cm_port
	ok "port configured again on the re-added device"
}

run_driver intree
run_driver port

step "compare in-tree and port"
ibv_devinfo -v -d rxe1 >"$OUT/ibv_devinfo-rxe1.txt" 2>&1
# The port's two documented additions, for targetcli sessions [detail]:
# acls/<initiator>/info and acls/<initiator>/auth/authenticate_target
# (README, "Where the port behaves differently"). They must be there,
# exactly so, and are then set aside.
INFO_RE='^f [^ ]*/tpgt_1/acls/[^/ ]*/(info \[444\] = No active SRP session for Initiator Endpoint: [^ ]*|auth/authenticate_target \[444\] = 0)$'
for f in standard after-errno; do
	ni=$(grep -Ec '/acls/[^/ ]*/info \[444\] = No active SRP session' "$OUT/port/$f.txt")
	na=$(grep -Ec '/acls/[^/ ]*/auth/authenticate_target \[444\] = 0$' "$OUT/port/$f.txt")
	[ "$ni" -ge 1 ] && [ "$ni" = "$na" ] ||
		fail "port $f: $ni ACL info and $na auth/authenticate_target files (the documented additions, one each per ACL)"
done
for f in fresh standard after-errno; do
	grep -Ev "$INFO_RE" "$OUT/port/$f.txt" >"$OUT/port/$f.cmp.txt"
	mv "$OUT/port/$f.cmp.txt" "$OUT/port/$f.txt"
done
for f in params mad fresh standard errno after-errno; do
	if diff -u "$OUT/intree/$f.txt" "$OUT/port/$f.txt" >"$OUT/$f.diff"; then
		ok "$f: identical ($(wc -l <"$OUT/port/$f.txt") lines)"
	else
		cat "$OUT/$f.diff"
		fail "$f differs between in-tree and port (see $f.diff)"
	fi
done
grep -c ' -> ok$' "$OUT/port/errno.txt" | sed 's/^/accepted writes: /'
grep -vc ' -> ok$' "$OUT/port/errno.txt" | sed 's/^/refused writes: /'

unload_all
check_dmesg
echo "controlpath: all checks passed"
