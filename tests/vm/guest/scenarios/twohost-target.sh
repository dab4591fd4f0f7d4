#!/bin/bash
# Scenario twohost, target guest (169.254.56.1). The initiator guest is a
# separate QEMU joined by a socket network over the host loopback.
# Phase 1: GID-named port (targetcli), ACL = the initiator's port id.
# Phase 2: GUID-named port (raw configfs; targetcli cannot make one) with
# IP-literal ACLs: the RDMA/CM session name matched there is the address the
# initiator DIALLED (this target's address), not the initiator's address --
# what a single host hides, where both are the same.
. /srpt/lib.sh
ME=169.254.56.1 PEER=169.254.56.2
P=http://$PEER:8000
# in-tree semantics; a port that deliberately differs would change this
GUID_ACL_MATCHES=${GUID_ACL_MATCHES:-dialled}

setup_nic_rxe $ME
serve_srv
load_srpt
TGT_PORT=$(gid_hex rxe0)
GUID=$(srpt_guid rxe0)
step "wait for the initiator's identity"
INI=$(wait_fetch 240 $P/identity) || fail "initiator never published its identity"
INI_GID=$(echo "$INI" | awk '{print $1}')
echo "initiator GID0 $INI_GID"
targetcli_config "$TGT_PORT" "$INI_GID"
set_rdma_cm_port
publish ready "$GUID $TGT_PORT $(ipv6_ll $NIC)"
ok "published target info: $(cat /srv/ready)"

step "phase 1: wait for the initiator (reject + IPv4 + IPv6 I/O)"
wait_peer 420 $P phase1 >/dev/null
ok "initiator finished phase 1"
wait_target_idle 30
dmesg | grep -E 'Rejected login|Rejecting login' | tail -2

step "phase 2: GUID-named port with IP-literal ACLs"
targetcli /srpt delete ib.$TGT_PORT >/dev/null 2>&1
[ ! -d $SRPT_CFG/0x$TGT_PORT ] || fail "cannot delete the GID-named target"
PG=$(sed 's/^\([0-9a-f]*:\)\{4\}//' /sys/class/infiniband/rxe0/ports/1/gids/0)   # port GUID form
GP=$SRPT_CFG/$PG/tpgt_1
RD=$(ls -d $CFG/core/rd_mcp_*/rd0 | head -1)
mkdir -p $GP || fail "mkdir GUID-named port $PG"
mkdir $GP/lun/lun_0 && ln -s "$RD" $GP/lun/lun_0/rd0 || fail "LUN on the GUID-named port"
acl_add() { # acl_add NAME
	mkdir "$GP/acls/$1" && mkdir "$GP/acls/$1/lun_0" &&
		ln -s $GP/lun/lun_0 "$GP/acls/$1/lun_0/m0" || fail "ACL $1 on the GUID-named port"
}
acl_del() { rm -f "$GP/acls/$1/lun_0/m0"; rmdir "$GP/acls/$1/lun_0" "$GP/acls/$1" || fail "remove ACL $1"; }
acl_add $PEER
echo 1 >$GP/enable || fail "enable GUID-named tpg"
ok "port $PG, ACL named by the initiator's address $PEER"
publish phase2a go
R=$(wait_peer 240 $P p2a)
echo "initiator, ACL = initiator address: $R"
dmesg | grep -E 'Rejected login|Rejecting login' | tail -2
acl_del $PEER
acl_add $ME
ok "ACL now named by the dialled (target) address $ME"
publish phase2b go
R2=$(wait_peer 240 $P p2b)
echo "initiator, ACL = dialled address: $R2"
case $GUID_ACL_MATCHES in
dialled) [ "$R" = rejected ] && [ "${R2%% *}" = accepted ] ||
	fail "GUID-named port: expected the ACL to match the dialled address (in-tree semantics): initiator-address ACL $R, dialled-address ACL $R2" ;;
initiator) [ "${R%% *}" = accepted ] && [ "$R2" = rejected ] ||
	fail "GUID-named port: expected the ACL to match the initiator's address: initiator-address ACL $R, dialled-address ACL $R2" ;;
esac
ok "GUID-named port ACLs match the $GUID_ACL_MATCHES address"

step "wait for the initiator to finish"
DONE=$(wait_peer 240 $P done)
echo "initiator reports: $DONE"
wait_target_idle 30
echo 0 >$GP/enable
acl_del $ME
rm -f $GP/lun/lun_0/rd0; rmdir $GP/lun/lun_0 $GP $SRPT_CFG/$PG || fail "remove the GUID-named port"
target_teardown
unload_all
check_dmesg
case $DONE in ok*) ;; *) fail "initiator side failed: $DONE";; esac
echo "twohost target: all checks passed"
