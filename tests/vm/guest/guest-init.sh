#!/bin/bash
# PID 1 of the test guest (instead of systemd): minimal system setup, run
# one scenario, save its log + dmesg + artifacts as a tar on /dev/vdb, and
# power off. Host side: tests/vm/harness/run.sh.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs -o size=768m tmpfs /tmp
modprobe configfs 2>/dev/null
mount -t configfs configfs /sys/kernel/config
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mkdir -p /run/lock /var/tmp
set -a; . /srpt/config.env; set +a
hostname "${GUEST_NAME:-srpt-guest}"
ip link set lo up
echo 1 >/proc/sys/kernel/sysrq
sysctl -qw kernel.hung_task_timeout_secs=60

poweroff_now() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 5
	echo b >/proc/sysrq-trigger
}

OUT=/results/$SCENARIO
mkdir -p "$OUT"
echo "guest: kernel $(uname -r), scenario $SCENARIO, SRPT=$SRPT, role ${ROLE:-single}, $(nproc) cpus"
lsmod | awk 'NR>1{print $1}' | sort >/run/modules.base
# For the host's vCPU dump of a guest that froze (tests/vm/harness/cpu_dump.py):
# where the kernel's text is in this boot (KASLR).
echo "guest: _text $(awk '$3 == "_text" {print $1; exit}' /proc/kallsyms)"

# The project's module goes under updates/ only when the port is selected.
if [ -f /srpt/port/ib_srpt.ko ] && [ "$SRPT" = port ]; then
	mkdir -p "/lib/modules/$(uname -r)/updates"
	cp /srpt/port/ib_srpt.ko "/lib/modules/$(uname -r)/updates/ib_srpt.ko"
	depmod -a
	echo "guest: installed port module as /lib/modules/$(uname -r)/updates/ib_srpt.ko"
fi

mkdir -p /run/dbus
dbus-daemon --system --fork || echo "guest: dbus-daemon failed to start"

# Debug kernel: what kmemleak suspects before the scenario (boot) is not
# the scenario's; mark it seen so that check_kmemleak reports only new ones.
# kmemleak reports an object only once it is 5 s old: wait that long
# first, so that everything allocated during boot is in the baseline.
if [ -e /sys/kernel/debug/kmemleak ] ||
	{ mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null && [ -e /sys/kernel/debug/kmemleak ]; }; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak && echo clear >/sys/kernel/debug/kmemleak &&
		echo "guest: kmemleak: boot-time suspects cleared before the scenario"
fi

start=$(date +%s)
timeout -k 10 "${GUEST_TIMEOUT:-900}" bash /srpt/scenarios/"$SCENARIO".sh 2>&1 | tee "$OUT/log"
rc=${PIPESTATUS[0]}
echo "$rc" >"$OUT/rc"
echo "$(( $(date +%s) - start ))" >"$OUT/seconds"
dmesg >"$OUT/dmesg.txt"
echo "SRPT-GUEST-RESULT scenario=$SCENARIO rc=$rc seconds=$(cat "$OUT/seconds")"
tar -C /results -cf /dev/vdb . && sync
poweroff_now
