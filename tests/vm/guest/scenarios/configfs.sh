#!/bin/bash
# Scenario configfs: standard targetcli configuration, then dump the whole
# srpt configfs tree (entries + attribute values, random link names and
# per-boot identifiers normalized) and the module parameters into
# configfs-dump.txt, so intree and port can be diffed. Also asserts the
# documented defaults, ranges and ACL name forms of the in-tree driver.
. /srpt/lib.sh

setup_veth_rxe
load_srpt
TGT_PORT=$(gid_hex rxe1)
INI_ID=$(gid_hex rxe0)   # any initiator id: nobody logs in here
GUID=$(srpt_guid rxe0)

step "defaults before configuration"
[ "$(cat $SRPT_CFG/discovery_auth/rdma_cm_port)" = 0 ] || fail "rdma_cm_port default is not 0"
[ -e $SRPT_CFG/version ] || fail "no srpt/version"
P=/sys/module/ib_srpt/parameters
for kv in srp_max_req_size=8276 srpt_srq_size=4095; do
	[ "$(cat $P/${kv%%=*} 2>/dev/null)" = "${kv#*=}" ] || fail "module parameter ${kv%%=*} = '$(cat $P/${kv%%=*} 2>/dev/null)', expected ${kv#*=}"
done
[ -r $P/srpt_service_guid ] || fail "no srpt_service_guid parameter"
ok "rdma_cm_port=0, srp_max_req_size=8276, srpt_srq_size=4095, srpt_service_guid=$(cat $P/srpt_service_guid)"

targetcli_config "$TGT_PORT" "$INI_ID"
set_rdma_cm_port

TPG=$SRPT_CFG/0x$TGT_PORT/tpgt_1
step "tpg attributes: exactly four, with defaults"
attrs=$(ls $TPG/attrib | tr '\n' ' ')
[ "$attrs" = "srp_max_rdma_size srp_max_rsp_size srp_sq_size use_srq " ] || fail "tpg attrib set: $attrs"
for kv in srp_max_rdma_size=65536 srp_max_rsp_size=256 srp_sq_size=4096 use_srq=0; do
	[ "$(cat $TPG/attrib/${kv%%=*})" = "${kv#*=}" ] || fail "attrib ${kv%%=*} = $(cat $TPG/attrib/${kv%%=*}), expected ${kv#*=}"
done
ok "attrib defaults"

step "attribute ranges"
expect_write() { # expect_write ok|reject FILE VALUE
	if echo "$3" >"$2" 2>/dev/null; then r=ok; else r=reject; fi
	[ "$r" = "$1" ] || fail "writing $3 to ${2#$SRPT_CFG/}: $r, expected $1"
}
A=$TPG/attrib
expect_write reject $A/srp_max_rdma_size 65535
expect_write reject $A/srp_max_rdma_size 16777217
expect_write ok     $A/srp_max_rdma_size 16777216
expect_write ok     $A/srp_max_rdma_size 65536
expect_write reject $A/srp_max_rsp_size 39
expect_write reject $A/srp_max_rsp_size 1025
expect_write ok     $A/srp_max_rsp_size 1024
expect_write ok     $A/srp_max_rsp_size 256
expect_write reject $A/srp_sq_size 3
expect_write reject $A/srp_sq_size 65536
expect_write ok     $A/srp_sq_size 4096
expect_write reject $A/use_srq 2
expect_write ok     $A/use_srq 1
expect_write ok     $A/use_srq 0
ok "ranges: rdma_size [65536,16M], rsp_size [40,1024], sq_size [4,65535], use_srq 0/1"

step "ACL name forms"
acl_try() { # acl_try ok|reject NAME
	if mkdir "$TPG/acls/$2" 2>/dev/null; then r=ok; rmdir "$TPG/acls/$2"; else r=reject; fi
	[ "$r" = "$1" ] || fail "ACL name '$2': $r, expected $1"
}
acl_try ok 0x0123456789abcdef0123456789abcdef
acl_try ok 0123456789abcdef0123456789abcdee
acl_try ok 1234:5678:9abc:def0
acl_try ok 192.0.2.7
acl_try ok fe80::1
acl_try reject zz
acl_try reject 0x123
ok "ACL names: hex (0x optional), GUID, IPv4, IPv6 accepted; junk rejected"

step "dump configfs tree + module parameters"
D=$OUT/configfs-dump.txt
norm() {
	sed -e "s/$TGT_PORT/<TGT_PORT_GID>/g" -e "s/$INI_ID/<ACL_ID>/g" -e "s/$GUID/<SERVICE_GUID>/g" \
		-e 's/^\(f .*\/creation_time \[[0-7]*\] = \).*/\1<jiffies>/' \
		-e 's/[0-9a-f]\{8\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{12\}/<uuid>/g' 
}
{
	echo "# srpt configfs dump: SRPT=$SRPT kernel=$(uname -r)"
	echo "# module $(modinfo -n ib_srpt | sed 's|.*/lib/modules/[^/]*/||')"
	echo "## module parameters"
	for f in /sys/module/ib_srpt/parameters/*; do
		echo "param $(basename $f) = $(cat $f 2>&1)"
	done
	echo "## tree"
} | norm >"$D"
{
	cd $SRPT_CFG
	find . -mindepth 1 | LC_ALL=C sort | while read -r e; do
		e=${e#./}
		if [ -L "$e" ]; then
			# link names in acls/*/lun_*/ are random: print the link's dir + target
			tgt=$(readlink -f "$e"); tgt=${tgt#$CFG/}
			echo "l $(dirname "$e")/<link> -> $tgt"
		elif [ -d "$e" ]; then
			echo "d $e/"
		else
			mode=$(stat -c %a "$e")
			if [ -r "$e" ] && v=$(timeout 5 cat "$e" 2>&1); then
				v=$(printf '%s' "$v" | sed ':a;N;$!ba;s/\n/\\n/g')
			else
				v="<unreadable>"
			fi
			echo "f $e [$mode] = $v"
		fi
	done
} | norm | LC_ALL=C sort -s -k2,2 >>"$D"   # sorted after normalizing link names
wc -l "$D"
grep -c '^f ' "$D" | sed 's/^/attribute files: /'
grep -E 'discovery_auth|/attrib/|param ' "$D"
grep -q "^f discovery_auth/rdma_cm_port \[.*\] = $RDMA_CM_PORT$" "$D" || fail "dump lacks rdma_cm_port"
grep -q '^l 0x<TGT_PORT_GID>/tpgt_1/acls/.*/lun_0/<link> -> ' "$D" || fail "dump lacks the ACL's mapped LUN link"
ok "dump written ($(wc -l <"$D") lines)"

target_teardown
unload_all
check_dmesg
echo "configfs: all checks passed"
