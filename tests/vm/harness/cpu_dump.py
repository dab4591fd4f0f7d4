#!/usr/bin/python3
"""cpu_dump.py: where a guest's vCPUs are, read through QEMU's human monitor
(HMP) on a unix socket, when the harness is about to kill a guest that
stopped making progress (wait_guest's timeout or boot hang in common.sh).

A guest that froze with interrupts off prints nothing: no soft-lockup, no
hung-task report, its own timeout never fires (docs/debug-kernel.md, the
port-faults freeze of 2026-12-07). Only the emulator can still say where
each vCPU is. This takes, per vCPU, a few register samples a second apart
(is it spinning in one place, halted, or moving?), the interrupt flag, and
the words of its kernel stack that point into kernel or module text,
named:
  - with --system-map (the debug kernel's System.map): symbol+offset. The
    KASLR slide comes from the guest's IDT (vector 0's handler against
    asm_exc_divide_error in the map), so it works while the kernel still
    boots, before anything of the test ran;
  - without a map (Debian's stock kernels ship none in the image): offsets
    from _text, as the guest printed it on its console ("guest: _text
    ADDR", guest-init.sh), to be named later with Debian's debug symbols;
  - module text: NAME+offset, from the guest's "guest: module NAME text
    ADDR size N" console lines (lib.sh, log_module_text).

Usage: cpu_dump.py --sock PATH [--serial serial.log] [--system-map MAP]
                   [--samples N] [--timeout S]
Writes the report to stdout: a one-line summary first ("vCPUs: ..."), then
the details. Exits 0 whenever it wrote a report, even one that says the
monitor could not be read; 2 on bad arguments."""
import argparse
import bisect
import re
import socket
import sys
import time

PROMPT = b"(qemu) "
KERNEL_LO, KERNEL_HI = 0xFFFFFFFF80000000, 0xFFFFFFFFC0000000
MODULE_LO, MODULE_HI = 0xFFFFFFFFC0000000, 0xFFFFFFFFFF000000
IF_FLAG = 0x200


class Monitor:
    """One HMP connection: send a command, read its output up to the next
    prompt, within a deadline for the whole dump."""

    def __init__(self, path, deadline):
        self.deadline = deadline
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(max(0.1, deadline - time.monotonic()))
        self.sock.connect(path)
        self.buf = b""
        self._until_prompt()  # the banner

    def _until_prompt(self):
        while PROMPT not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no monitor prompt before the deadline")
            self.sock.settimeout(left)
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the monitor closed the connection")
            self.buf += data
        out, self.buf = self.buf.split(PROMPT, 1)
        return out.decode(errors="replace")

    def cmd(self, line):
        self.sock.sendall(line.encode() + b"\n")
        out = self._until_prompt()
        # HMP echoes the command line (with terminal escapes) before its output
        lines = out.replace("\r", "").split("\n")
        return "\n".join(l for l in lines if line not in l)


class Symbols:
    def __init__(self, system_map, serial):
        self.kallsyms = []  # (address, name), link-time addresses
        self.link_text = None
        self.slide = None
        self.slide_from = None
        self.guest_text = None
        self.modules = []  # (base, size, name)
        if system_map:
            for l in open(system_map, errors="replace"):
                f = l.split()
                if len(f) >= 3 and f[1] in "tTwW":
                    self.kallsyms.append((int(f[0], 16), f[2]))
                if len(f) >= 3 and f[2] == "_text":
                    self.link_text = int(f[0], 16)
            self.kallsyms.sort()
            self.addrs = [a for a, _ in self.kallsyms]
            self.names = dict((n, a) for a, n in self.kallsyms)
        if serial:
            text = open(serial, "rb").read().decode(errors="replace")
            m = re.findall(r"guest: _text ([0-9a-f]{16})", text)
            if m:
                self.guest_text = int(m[-1], 16)
            # a module loaded again (controlpath reloads) moves: its last line counts
            last = {}
            for name, base, size in re.findall(
                r"guest: module (\S+) text (?:0x)?([0-9a-f]+) size (\d+)", text
            ):
                last[name] = (int(base, 16), int(size), name)
            self.modules = sorted(last.values())
        if self.guest_text is not None and self.link_text is not None:
            self.slide = self.guest_text - self.link_text
            self.slide_from = "the guest's _text line"

    def slide_from_idt(self, handler):
        """handler: vector 0's gate address, read from the guest's IDT."""
        sym = self.names.get("asm_exc_divide_error") if self.kallsyms else None
        if sym is None or handler is None:
            return
        slide = handler - sym
        if self.slide is None:
            self.slide, self.slide_from = slide, "the IDT (vector 0)"
        elif self.slide != slide:
            self.slide_from += f" (the IDT says {slide:#x}: mismatch)"

    def name(self, x):
        for base, size, mod in self.modules:
            if base <= x < base + size:
                return f"[{mod}]+{x - base:#x}"
        if KERNEL_LO <= x < KERNEL_HI:
            if self.kallsyms and self.slide is not None:
                y = x - self.slide
                i = bisect.bisect_right(self.addrs, y) - 1
                if i >= 0 and y - self.addrs[i] < 0x10000:
                    return f"{self.kallsyms[i][1]}+{y - self.addrs[i]:#x}"
                return None
            if self.guest_text is not None and x >= self.guest_text:
                return f"_text+{x - self.guest_text:#x}"
        return None


def reg(text, name):
    m = re.search(r"\b" + name + r"=\s*([0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None


def idt_gate(mon, idt_base, vector):
    out = mon.cmd(f"x /2gx {idt_base + 16 * vector:#x}")
    w = [int(v, 16) for v in re.findall(r"0x([0-9a-f]{16})", out.split(":", 1)[-1])]
    if len(w) < 2:
        return None
    lo, hi = w[0], w[1]
    return (lo & 0xFFFF) | (((lo >> 48) & 0xFFFF) << 16) | ((hi & 0xFFFFFFFF) << 32)


def dump(args, out):
    deadline = time.monotonic() + args.timeout
    syms = Symbols(args.system_map, args.serial)
    try:
        mon = Monitor(args.sock, deadline)
        cpus_text = mon.cmd("info cpus")
        cpus = [int(c) for c in re.findall(r"CPU #(\d+)", cpus_text)] or [0]
        samples = {c: [] for c in cpus}
        regs_text = {}
        for n in range(args.samples):
            if n:
                time.sleep(1)
            for c in cpus:
                mon.cmd(f"cpu {c}")
                r = mon.cmd("info registers")
                regs_text[c] = r
                samples[c].append(
                    (reg(r, "RIP"), reg(r, "RSP"), reg(r, "RFL"), reg(r, "HLT"), reg(r, "CPL"))
                )
        # "IDT=     fffffe0000000000 00000fff": base, then limit
        m = re.search(r"IDT=\s*([0-9a-f]+)", regs_text[cpus[0]])
        idt = int(m.group(1), 16) if m else None
        if idt is not None and syms.kallsyms:
            mon.cmd(f"cpu {cpus[0]}")
            syms.slide_from_idt(idt_gate(mon, idt, 0))
        stacks = {}
        for c in cpus:
            rip, rsp, rfl, hlt, cpl = samples[c][-1]
            if rsp is None or cpl != 0 or rsp < KERNEL_LO - (1 << 46):
                continue  # user mode or no stack to read
            mon.cmd(f"cpu {c}")
            x = mon.cmd(f"x /{args.stack_words}gx {rsp:#x}")
            words = [int(v, 16) for v in re.findall(r"0x([0-9a-f]{16})", x)]
            stacks[c] = [w for w in words if KERNEL_LO <= w < MODULE_HI]
    except (OSError, TimeoutError, ConnectionError) as e:
        out.write(f"vCPUs: not read: {args.sock}: {e}\n")
        return

    def where(rip):
        if rip is None:
            return "?"
        n = syms.name(rip)
        return f"{rip:#x}" + (f" {n}" if n else "")

    parts = []
    for c in cpus:
        rip, rsp, rfl, hlt, cpl = samples[c][-1]
        distinct = len(set(s[0] for s in samples[c]))
        if hlt:
            state = "halted"
        elif distinct == 1 and args.samples > 1:
            state = "stuck"
        else:
            state = "running"
        irq = "?" if rfl is None else ("on" if rfl & IF_FLAG else "OFF")
        parts.append(f"cpu{c} {state} at {where(rip)}, irqs {irq}")
    out.write("vCPUs: " + "; ".join(parts) + "\n")
    slide = "unknown" if syms.slide is None else f"{syms.slide:#x} (from {syms.slide_from})"
    out.write(f"kernel symbols: {args.system_map or 'no System.map'}; KASLR slide {slide}; ")
    out.write(f"guest _text {'not printed' if syms.guest_text is None else hex(syms.guest_text)}; ")
    out.write(f"{len(syms.modules)} module(s) from the console\n\n")
    out.write(cpus_text.strip() + "\n")
    for c in cpus:
        out.write(f"\n== vCPU {c}: {args.samples} sample(s) a second apart\n")
        for rip, rsp, rfl, hlt, cpl in samples[c]:
            rfl_s = "?" if rfl is None else f"{rfl:#x}"
            rsp_s = "?" if rsp is None else f"{rsp:#x}"
            out.write(f"  RIP {where(rip)}  RSP {rsp_s}  RFL {rfl_s}  HLT {hlt}  CPL {cpl}\n")
        if c in stacks:
            out.write(f"  stack words into text, from RSP up ({args.stack_words} words read):\n")
            for w in stacks[c]:
                out.write(f"    {w:#x} {syms.name(w) or '?'}\n")
        out.write("  last 'info registers':\n")
        for l in regs_text[c].strip().split("\n"):
            out.write("    " + l + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sock", required=True)
    p.add_argument("--serial")
    p.add_argument("--system-map")
    p.add_argument("--samples", type=int, default=3)
    p.add_argument("--stack-words", type=int, default=256)
    p.add_argument("--timeout", type=float, default=45.0)
    args = p.parse_args()
    if args.samples < 1 or args.stack_words < 1:
        p.error("--samples and --stack-words must be at least 1")
    dump(args, sys.stdout)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
