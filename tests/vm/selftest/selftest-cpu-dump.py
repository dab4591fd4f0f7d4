#!/usr/bin/python3
"""Host-side self-test of tests/vm/harness/cpu_dump.py, no guest: a fake QEMU human
monitor on a unix socket (banner, prompt, echoed command lines, `info
cpus`, `cpu N`, `info registers`, `x /Ngx`) with two vCPUs, one halted
with interrupts on and one stuck with them off inside a module, a KASLR
slide the dump must find from the IDT's vector 0 or from the guest's
`_text` console line, a module loaded twice (the last base counts), and
the failure paths: no socket, a monitor that never prompts (the deadline
holds), a guest in user mode (no stack read).
Runs in `make check` (suite harness). CPU_DUMP=path checks another copy
of the script (how the test was shown to fail).
Prints one line per check and 'cpu-dump: N passed, N failed'."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from selftest_check import Checks  # noqa: E402

SCRIPT = os.environ.get("CPU_DUMP", os.path.join(os.path.dirname(HERE), "harness", "cpu_dump.py"))

SLIDE = 0x1E000000
LINK_TEXT = 0xFFFFFFFF81000000
SYMS = {  # link-time addresses of the fake System.map
    "_text": LINK_TEXT,
    "default_idle": 0xFFFFFFFF81061B00,
    "native_queued_spin_lock_slowpath": 0xFFFFFFFF81100000,
    "srp_queuecommand_helper": 0xFFFFFFFF81200000,
    "asm_exc_divide_error": 0xFFFFFFFF82000990,
}
MOD_OLD, MOD_NEW, MOD_SIZE = 0xFFFFFFFFC0A00000, 0xFFFFFFFFC0B00000, 0x40000


CHECKS = Checks()
check = CHECKS.check


def gate(handler):
    """An x86-64 interrupt gate for handler, as `x /2gx` shows its words."""
    lo = (handler & 0xFFFF) | (0x10 << 16) | (0x8E00 << 32) | (((handler >> 16) & 0xFFFF) << 48)
    hi = handler >> 32
    return lo, hi


class FakeMonitor(threading.Thread):
    """Serves HMP-like replies. cpus: {n: [(rip, rsp, rfl, hlt, cpl), ...]}
    (successive `info registers` of that vCPU walk the list, the last one
    repeats); memory: {address: word}."""

    def __init__(self, path, cpus, memory, mute=False):
        super().__init__(daemon=True)
        self.path, self.cpus, self.memory, self.mute = path, cpus, memory, mute
        self.reads = {n: 0 for n in cpus}
        self.commands = []
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)

    def run(self):
        conn, _ = self.srv.accept()
        if self.mute:  # accepts, never prompts
            time.sleep(30)
            return
        conn.sendall(b"QEMU 7.2.15 monitor - type 'help' for more information\r\n(qemu) ")
        cur, buf = min(self.cpus), b""
        while True:
            try:
                data = conn.recv(4096)
            except OSError:
                return
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                cmd = line.decode().strip()
                self.commands.append(cmd)
                out = cmd + "\r\n"  # the echo, as HMP's readline does
                if cmd == "info cpus":
                    out += "".join(
                        f"{'*' if n == cur else ' '} CPU #{n}: thread_id={4000 + n}\r\n" for n in self.cpus
                    )
                elif cmd.startswith("cpu "):
                    cur = int(cmd.split()[1])
                elif cmd == "info registers":
                    seq = self.cpus[cur]
                    rip, rsp, rfl, hlt, cpl = seq[min(self.reads[cur], len(seq) - 1)]
                    self.reads[cur] += 1
                    out += (
                        f"RAX=0000000000000000 RBX=0000000000000001 RCX=0000000000000002\r\n"
                        f"RSI=0000000000000000 RDI=0000000000000000 RBP=0000000000000000 RSP={rsp:016x}\r\n"
                        f"RIP={rip:016x} RFL={rfl:08x} [---Z-P-] CPL={cpl} II=0 A20=1 SMM=0 HLT={hlt}\r\n"
                        f"GDT=     fffffe0000001000 0000007f\r\n"
                        f"IDT=     fffffe0000000000 00000fff\r\n"
                    )
                elif cmd.startswith("x /"):
                    n = int(cmd.split()[1][1:-2])
                    base = int(cmd.split()[2], 16)
                    for i in range(0, n, 2):
                        a = base + 8 * i
                        w0 = self.memory.get(a, 0)
                        w1 = self.memory.get(a + 8, 0)
                        out += f"{a:016x}: 0x{w0:016x} 0x{w1:016x}\r\n"
                conn.sendall(out.encode() + b"(qemu) ")


def run_dump(sock, serial=None, system_map=None, samples=2, timeout=20):
    cmd = [sys.executable, SCRIPT, "--sock", sock, "--samples", str(samples), "--stack-words", "8",
           "--timeout", str(timeout)]
    if serial:
        cmd += ["--serial", serial]
    if system_map:
        cmd += ["--system-map", system_map]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def main():
    tmp = tempfile.mkdtemp(prefix="cpu-dump-selftest.")
    smap = os.path.join(tmp, "System.map")
    with open(smap, "w") as f:
        for name, a in sorted(SYMS.items(), key=lambda kv: kv[1]):
            f.write(f"{a:016x} T {name}\n")
        f.write(f"{0xFFFFFFFF83000000:016x} D some_data\n")
    serial = os.path.join(tmp, "serial.log")
    with open(serial, "w") as f:
        f.write("[    3.100000] Run /init as init process\n")
        f.write(f"guest: _text {LINK_TEXT + SLIDE:016x}\n")
        f.write(f"guest: module ib_srpt text 0x{MOD_OLD:016x} size {MOD_SIZE}\n")
        f.write(f"guest: module ib_srpt text 0x{MOD_NEW:016x} size {MOD_SIZE}\n")
        f.write(f"guest: module rdma_rxe text 0x{MOD_OLD + 0x200000:016x} size {MOD_SIZE}\n")
    serial_no_text = os.path.join(tmp, "serial-boot.log")
    with open(serial_no_text, "w") as f:
        f.write("[    0.500000] Running RCU-tasks wait API self tests\n")

    idle = SYMS["default_idle"] + SLIDE + 0x2F
    spin = SYMS["native_queued_spin_lock_slowpath"] + SLIDE + 0x1A4
    rsp0, rsp1 = 0xFFFFC90000013E80, 0xFFFFC90000237C10
    memory = {
        rsp1: MOD_NEW + 0x1234,  # return into ib_srpt (its second load)
        rsp1 + 8: 0x0000000000000246,  # a flags word, not text
        rsp1 + 16: SYMS["srp_queuecommand_helper"] + SLIDE + 0x40,
        rsp1 + 24: 0xFFFF888004A3C000,  # a direct-map pointer, not text
        rsp0: SYMS["default_idle"] + SLIDE + 0x10,
    }
    lo, hi = gate(SYMS["asm_exc_divide_error"] + SLIDE)
    memory[0xFFFFFE0000000000] = lo
    memory[0xFFFFFE0000000008] = hi
    cpus = {
        0: [(idle, rsp0, 0x246, 1, 0)],
        1: [(spin, rsp1, 0x046, 0, 0)],  # IF off, the same RIP each sample
    }

    # 1. the map, the slide from the IDT alone (a boot hang: no _text line)
    sock = os.path.join(tmp, "m1.sock")
    mon = FakeMonitor(sock, cpus, memory)
    mon.start()
    rc, out, _ = run_dump(sock, serial_no_text, smap)
    first = out.split("\n", 1)[0]
    check("exit 0 with a report", rc == 0, out[-500:])
    check("summary is the first line", first.startswith("vCPUs: "), first)
    check("halted vCPU named, irqs on", "cpu0 halted at" in first and "default_idle+0x2f, irqs on" in first, first)
    check("stuck vCPU named, irqs OFF",
          "cpu1 stuck at" in first and "native_queued_spin_lock_slowpath+0x1a4, irqs OFF" in first, first)
    check("slide found from the IDT", f"KASLR slide {SLIDE:#x} (from the IDT (vector 0))" in out, out[:600])
    check("guest _text reported missing", "guest _text not printed" in out)
    check("kernel stack word named", "srp_queuecommand_helper+0x40" in out, out)
    check("no module line: module word unnamed", f"{MOD_NEW + 0x1234:#x} ?" in out, out)
    check("non-text stack words left out",
          "0xffff888004a3c000" not in out and "0x246 " not in out.split("stack words")[-1], out)
    check("two samples per vCPU", mon.reads[0] == 2 and mon.reads[1] == 2, str(mon.reads))
    check("stack read for each kernel-mode vCPU",
          sum(1 for c in mon.commands if c.startswith("x /8gx")) == 2, str(mon.commands))

    # 2. the guest's _text and module lines: the slide agrees, the module's last load names it
    sock = os.path.join(tmp, "m2.sock")
    mon = FakeMonitor(sock, cpus, memory)
    mon.start()
    rc, out, _ = run_dump(sock, serial, smap)
    check("slide from the _text line, IDT agrees",
          f"KASLR slide {SLIDE:#x} (from the guest's _text line)\n" in out
          or f"KASLR slide {SLIDE:#x} (from the guest's _text line);" in out, out[:600])
    check("module word named from its last load", "[ib_srpt]+0x1234" in out, out)
    check("a module loaded twice counts once", "2 module(s) from the console" in out, out[:600])
    check("IDT and _text line agree: no mismatch", "mismatch" not in out, out[:600])

    # 3. no System.map (a stock kernel): offsets from the guest's _text
    sock = os.path.join(tmp, "m3.sock")
    mon = FakeMonitor(sock, cpus, memory)
    mon.start()
    rc, out, _ = run_dump(sock, serial, None)
    first = out.split("\n", 1)[0]
    check("no map: _text offsets", f"_text+{SYMS['native_queued_spin_lock_slowpath'] - LINK_TEXT + 0x1a4:#x}" in first,
          first)
    check("no map: slide unknown", "KASLR slide unknown" in out, out[:600])

    # 4. a vCPU that moves is running, not stuck; one in user mode gets no stack read
    sock = os.path.join(tmp, "m4.sock")
    moving = {0: [(spin, rsp1, 0x246, 0, 0), (spin + 0x10, rsp1, 0x246, 0, 0)],
              1: [(0x7F0000001000, 0x7FFC00000000, 0x246, 0, 3)]}
    mon = FakeMonitor(sock, moving, memory)
    mon.start()
    rc, out, _ = run_dump(sock, serial, smap)
    first = out.split("\n", 1)[0]
    check("moving vCPU is running", "cpu0 running at" in first, first)
    check("user-mode vCPU: no stack read", sum(1 for c in mon.commands if c.startswith("x /8gx")) == 1,
          str(mon.commands))

    # 5. failures still write a report, promptly
    rc, out, _ = run_dump(os.path.join(tmp, "absent.sock"), serial, smap)
    check("no socket: exit 0, says why", rc == 0 and out.startswith("vCPUs: not read: "), out)
    sock = os.path.join(tmp, "m5.sock")
    mon = FakeMonitor(sock, cpus, memory, mute=True)
    mon.start()
    rc, out, took = run_dump(sock, serial, smap, timeout=3)
    check("silent monitor: deadline holds", rc == 0 and "not read" in out and took < 15, f"{took:.1f}s {out}")

    shutil.rmtree(tmp, ignore_errors=True)
    return CHECKS.summary("cpu-dump")


if __name__ == "__main__":
    sys.exit(main())
