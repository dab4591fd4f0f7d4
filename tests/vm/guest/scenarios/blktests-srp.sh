#!/bin/bash
# Scenario blktests-srp: the public blktests `srp` group (./check srp,
# USE_RXE=1) inside one guest, against whichever ib_srpt guest-init made
# modprobe find (SRPT=intree: the kernel's; SRPT=port: updates/ib_srpt.ko).
# Host side: tests/vm/harness/blktests.sh, which puts a blktests checkout (src/
# helpers built on the host) in /srpt/blktests and the guest kernel's config
# in /srpt/blktests-kconfig. Nothing of blktests lives in this repository.
#
# What blktests expects of a machine and this guest lacks, provided here:
#  - udevd (dm-uuid-mpath-* links, `udevadm settle`, multipathd's uevents);
#    the guest has no systemd, so systemd-udevd runs as a plain daemon;
#  - /boot/config-$(uname -r) (_have_kernel_option DM_UEVENT; Debian does
#    not build IKCONFIG);
#  - an Ethernet netdev with carrier: start_soft_rdma binds rdma_rxe to every
#    such netdev; the guest has -nic none, so a veth pair with IPv4 addresses
#    (each rxe device then logs in to its own addresses: rxe loopback, as in
#    the other single-guest scenarios).
# blktests loads every module, configures LIO through configfs, starts
# multipathd and logs in itself; this script only runs ./check.
. /srpt/lib.sh

BT=/srpt/blktests
TESTS=${BLKTESTS_TESTS:-srp}
[ -x "$BT/check" ] && [ -f "$BT/tests/srp/rc" ] ||
	fail "no blktests checkout in the payload (run tests/vm/harness/blktests.sh BLKTESTS=...)"
[ -x "$BT/src/discontiguous-io" ] || fail "blktests src/ helpers not built (the host script builds them)"

step "blktests ${BLKTESTS_COMMIT:-?} in $BT, tests: $TESTS, SRPT=$SRPT"

# Kernel config for _have_kernel_option.
if [ -f /srpt/blktests-kconfig ]; then
	mkdir -p /boot
	cp /srpt/blktests-kconfig "/boot/config-$(uname -r)"
	ok "/boot/config-$(uname -r) from the payload"
fi

# udevd without systemd.
step "systemd-udevd (daemon mode)"
/lib/systemd/systemd-udevd --daemon || fail "systemd-udevd did not start"
udevadm trigger --action=add --type=subsystems
udevadm trigger --action=add --type=devices
udevadm settle -t 60 || echo "udevadm settle timed out (continuing)"
ok "udevd running (pid $(pidof systemd-udevd))"

# The netdevs rdma_rxe gets bound to by blktests.
step "veth pair 169.254.55.1/24 + 169.254.55.2/24 (no rxe links: blktests adds them)"
sysctl -qw net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0
run "veth pair" ip link add veth0 type veth peer name veth1
ip link set veth0 address 52:54:00:aa:00:01
ip link set veth1 address 52:54:00:aa:00:02
ip addr add "$OTHER_IP4/24" dev veth0
ip addr add "$TGT_IP4/24" dev veth1
ip link set veth0 up; ip link set veth1 up
wait_for 10 "carrier" sh -c 'grep -qx 1 /sys/class/net/veth0/carrier && grep -qx 1 /sys/class/net/veth1/carrier' ||
	fail "veth pair has no carrier"
wait_for 10 "ipv6 ll" has_ipv6_ll veth1 || fail "no IPv6 link-local on veth1"
ip -br addr

# Sanity: nothing blktests refuses to start with (group_requires).
[ -d /sys/kernel/config/target/srpt ] && fail "LIO already configured before blktests"
pidof multipathd && fail "multipathd already running"
echo "ib_srpt modprobe resolves: $(modinfo -n ib_srpt)"
case $SRPT:$(modinfo -n ib_srpt) in
port:*/updates/*|intree:*/kernel/*) ;;
*) fail "SRPT=$SRPT but modprobe resolves $(modinfo -n ib_srpt)" ;;
esac

# The kernel ring buffer is 128 KiB (LOG_BUF_SHIFT=17) and blktests loads
# ib_srp/ib_srpt with dyndbg=+pmf: keep the whole log.
dmesg -w >"$OUT/dmesg-follow.txt" 2>&1 &
DMESG_PID=$!

cd "$BT" || fail "cd $BT"
{
	echo "# written by tests/vm/guest/scenarios/blktests-srp.sh"
	echo "USE_RXE=1"
	[ -n "${BLKTESTS_TIMEOUT:-}" ] && echo "TIMEOUT=$BLKTESTS_TIMEOUT"
	[ -n "${BLKTESTS_CONFIG_EXTRA:-}" ] && printf '%s\n' "$BLKTESTS_CONFIG_EXTRA"
} >config
cp config "$OUT/blktests-config"
echo "---- blktests config ----"; cat config; echo "-------------------------"

step "./check $TESTS"
# shellcheck disable=SC2086
./check $TESTS 2>&1 | tee "$OUT/check.log"
rc=${PIPESTATUS[0]}
step "./check exited $rc"

kill "$DMESG_PID" 2>/dev/null; wait "$DMESG_PID" 2>/dev/null
gzip -1 "$OUT/dmesg-follow.txt"
cp -a "$BT/results" "$OUT/results" 2>/dev/null || echo "no results/ directory"
# What was left behind (blktests' teardown should have removed all of it).
{
	echo "lsmod after ./check:"; lsmod
	echo; echo "dmsetup table:"; dmsetup table 2>&1
	echo; echo "rdma link:"; rdma link 2>&1
	echo; echo "configfs target:"; ls -R /sys/kernel/config/target 2>&1 | head -50
} >"$OUT/after.txt"
grep -q '\[failed\]' "$OUT/check.log" && echo "FAIL: blktests: $(grep -c '\[failed\]' "$OUT/check.log") test(s) failed"
exit "$rc"
