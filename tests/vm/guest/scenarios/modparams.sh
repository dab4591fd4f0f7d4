#!/bin/bash
# Scenario modparams: the port's module parameters given to
# modprobe. Needs SRPT=port.
. /srpt/lib.sh

[ "$SRPT" = port ] || fail "modparams checks the port: run it with SRPT=port"
setup_veth_rxe
modprobe -a ib_cm rdma_cm target_core_mod || fail "modprobe dependencies"

# Module parameters at load time, port only: a valid service GUID is taken
# and read back (setting it once crashed the in-tree driver), bad values
# make the load fail with EINVAL and leave nothing behind.
module_params() {
	step "port: module parameters at load time"
	run "modprobe srpt_service_guid=0x0002c90300a0b0c0" \
		modprobe ib_srpt srpt_service_guid=0x0002c90300a0b0c0
	[ "$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)" = 0x0002c90300a0b0c0 ] ||
		fail "srpt_service_guid reads $(cat /sys/module/ib_srpt/parameters/srpt_service_guid)"
	rmmod ib_srpt || fail "rmmod after srpt_service_guid"
	local bad
	for bad in srpt_service_guid=zz srpt_service_guid=1ffffffffffffffff \
		srp_max_req_size=995 srpt_srq_size=3 srpt_srq_size=65536; do
		if modprobe ib_srpt $bad 2>/tmp/mp.err; then
			rmmod ib_srpt
			fail "modprobe ib_srpt $bad succeeded"
		fi
		grep -q 'Invalid argument\|Numerical result out of range' /tmp/mp.err ||
			fail "modprobe ib_srpt $bad: $(cat /tmp/mp.err)"
		[ ! -d /sys/module/ib_srpt ] || fail "ib_srpt loaded after $bad"
		echo "modprobe ib_srpt $bad -> $(sed 's/.*: //' /tmp/mp.err)"
	done
	dmesg | grep 'ib_srpt.*invalid value' | tail -3
	ok "load-time parameters: valid GUID taken, bad values refused"
}

module_params
unload_all
check_dmesg
echo "modparams: all checks passed"
