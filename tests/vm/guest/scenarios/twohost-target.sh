#!/bin/bash
# Scenario twohost, target guest (169.254.56.1). The initiator guest is a
# separate QEMU joined by a socket network over the host loopback.
. /srpt/lib.sh
ME=169.254.56.1 PEER=169.254.56.2

setup_nic_rxe $ME
serve_srv
load_srpt
TGT_PORT=$(gid_hex rxe0)
GUID=$(srpt_guid rxe0)
step "wait for the initiator's identity"
INI=$(wait_fetch 240 http://$PEER:8000/identity) || fail "initiator never published its identity"
INI_GID=$(echo "$INI" | awk '{print $1}')
echo "initiator GID0 $INI_GID"
targetcli_config "$TGT_PORT" "$INI_GID"
set_rdma_cm_port
echo "$GUID $TGT_PORT $(ipv6_ll $NIC)" >/srv/ready.tmp && mv /srv/ready.tmp /srv/ready
ok "published target info: $(cat /srv/ready)"

step "wait for the initiator to finish"
DONE=$(wait_fetch 420 http://$PEER:8000/done) || fail "initiator never reported completion"
echo "initiator reports: $DONE"
wait_target_idle 30
target_teardown
unload_all
check_dmesg
case $DONE in ok*) ;; *) fail "initiator side failed: $DONE";; esac
echo "twohost target: all checks passed"
