"""cpu-clock samples from `perf script -F comm,tid,cpu,time,ip,sym,dso`
(tests/vm/guest/trace-lib.sh, cpu_window): parsed, their kernel frames
named from the side's /proc/kallsyms snapshot, collapsed into stacks, and
each sample classed idle, target or other.

Why kallsyms and not perf's names: both drivers are modules called
ib_srpt, and perf looks a module's addresses up in the file of that name
under /lib/modules, the in-tree driver's, also for the port."""
import bisect
import collections
import gzip
import re
import shutil
import subprocess

KERNEL_MIN = 0xffff800000000000
HEADER_RE = re.compile(r"^\s*(?P<comm>\S.*?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):")
FRAME_RE = re.compile(r"^\s+(?P<addr>[0-9a-fA-F]+)\s+(?P<sym>.*?)\s+\((?P<dso>[^()]*)\)\s*$")
# A sample of an idle CPU: the idle task, stopped in the idle loop.
IDLE_RE = re.compile(r"idle|safe_halt|mwait|halt")
# Frames that make a sample the target's: the SRP target, LIO and its
# backends, the null_blk under the iblock LUN (only the target uses it);
# and the CQ poll work: the target's CQs are the only ones in the guest
# polled from a workqueue (ib_srp polls in softirq and directly).
TARGET_MODULES = {"ib_srpt", "target_core_mod", "target_core_iblock", "target_core_file",
                  "target_core_pscsi", "null_blk"}
TARGET_FUNCS = {"ib_cq_poll_work"}


def demangle(names):
    """{mangled: readable} for the C++ names among NAMES (the port's core),
    without parameter lists (c++filt -p, binutils); {} without c++filt."""
    mangled = sorted({n for n in names if n.startswith("_Z")})
    tool = shutil.which("c++filt")
    if not mangled or not tool:
        return {}
    out = subprocess.run([tool, "-p"], input="\n".join(mangled) + "\n", capture_output=True,
                         text=True, check=False).stdout.splitlines()
    return dict(zip(mangled, out)) if len(out) == len(mangled) else {}


class Kallsyms:
    """Address -> (name, module) from /proc/kallsyms lines."""

    def __init__(self, lines):
        syms = []
        for line in lines:
            f = line.split()
            if len(f) < 3:
                continue
            try:
                addr = int(f[0], 16)
            except ValueError:
                continue
            mod = f[3].strip("[]") if len(f) > 3 else ""
            syms.append((addr, f[2], mod))
        readable = demangle(s[1] for s in syms)
        syms = sorted((a, readable.get(n, n), m) for a, n, m in syms)
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def lookup(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        # A return address lies inside its function; farther than 1 MiB
        # past the closest symbol it is in none that kallsyms lists.
        if i < 0 or addr - self.addrs[i] > (1 << 20):
            return None
        return self.syms[i][1], self.syms[i][2]


def parse_samples(lines):
    """Yields (comm, tid, frames leaf first as (addr, perf's sym, dso))."""
    comm = None
    frames = []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        m = HEADER_RE.match(line)
        if m:
            if comm is not None:
                yield comm, tid, frames
            comm, tid, frames = m.group("comm"), int(m.group("tid")), []
            continue
        f = FRAME_RE.match(line)
        if f and comm is not None:
            frames.append((int(f.group("addr"), 16), f.group("sym"), f.group("dso")))
    if comm is not None:
        yield comm, tid, frames


USER = "[user space]"


def frame_label(frame, ksyms):
    """'name [module]' for a module's function, 'name' for the kernel's,
    'name (user)' in user space (perf's name: its files are the guest's)."""
    addr, sym, dso = frame
    if addr >= KERNEL_MIN:
        hit = ksyms.lookup(addr) if ksyms else None
        if hit is None:
            return "[unknown kernel]"
        name, mod = hit
        return "%s [%s]" % (name, mod) if mod else name
    sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
    if sym in ("", "[unknown]"):
        sym = "[unknown]"
    return sym + " (user)"


def label_module(label):
    if label == USER or label.endswith(" (user)"):
        return "(user)"
    m = re.search(r" \[([\w-]+)\]$", label)
    return m.group(1) if m else ""


def label_name(label):
    return re.sub(r" (\[[\w-]+\]|\(user\))$", "", label)


def classify(tid, labels):
    """'idle', 'target' or 'other' for one sample (labels leaf first)."""
    # the leaf: where the sampled CPU was; an interrupt taken while idle
    # (rxe's softirq) is work
    if tid == 0 and labels and IDLE_RE.search(label_name(labels[0])):
        return "idle"
    for l in labels:
        if label_module(l) in TARGET_MODULES or label_name(l) in TARGET_FUNCS:
            return "target"
    return "other"


def collapse(samples, ksyms):
    """(stacks, classes): classes counts the samples per class; stacks
    counts the busy ones (idle samples would take most of the width) as
    root-first tuples whose first element is the task's name without its
    instance (kworker/1:1H -> kworker). A sample's user-space frames are
    one frame: fio and its libraries keep no frame pointers, and perf's
    user call chains past the first frame are noise."""
    stacks = collections.Counter()
    classes = collections.Counter()
    for comm, tid, frames in samples:
        labels = [frame_label(f, ksyms) for f in frames]
        cls = classify(tid, labels)
        classes[cls] += 1
        if cls == "idle":
            continue
        path = [comm.split("/")[0]]
        for label in reversed(labels):
            if label.endswith(" (user)"):
                label = USER
                if path[-1] == USER:
                    continue
            path.append(label)
        stacks[tuple(path)] += 1
    return stacks, classes


def read_window(base, ksyms):
    """One CPU window of bench-trace (trace-lib.sh, cpu_window): its
    counters (BASE.cpu, 'key value' lines, as numbers) and its samples
    (BASE.perf.gz) collapsed: (counters, stacks, classes)."""
    counters = {}
    with open(base + ".cpu") as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            if k:
                counters[k] = float(v)
    with gzip.open(base + ".perf.gz", "rt", errors="replace") as f:
        stacks, classes = collapse(parse_samples(f), ksyms)
    return counters, stacks, classes
