#!/usr/bin/python3
"""Host-side self-test of tests/vm/bench/bench-breakdown.py and its modules
(trace_stages, perf_stacks, flamegraph, perf_diff), no guest: synthetic ftrace dumps
of the bench-trace kprobe events with known stage times (two channels,
the completion work on the other CPU, the initiator's own posts inside
the time of a response's post, a command's send completion after the next
command's receive, an se_cmd reused, a command whose backend completion
was not traced, a WRITE among READs, events of commands the window cut),
synthetic `perf script` output and kallsyms snapshots (idle, target and
other samples; the same address named per side), and a whole artifacts
directory through the report: tables, ratios, the loaded-host mark, the
flame graph PNGs and the exit status on missing or unpaired data.
Runs in `make check` (suite harness). BENCH_BREAKDOWN_DIR=dir checks
another copy of the four files (how the test was shown to fail).
Prints one line per check and 'bench-breakdown: N passed, N failed'."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
CODE = os.environ.get("BENCH_BREAKDOWN_DIR", os.path.join(os.path.dirname(HERE), "bench"))
# the modules under test (tests/vm/bench); no __pycache__ left in the source tree
sys.dont_write_bytecode = True
sys.path.insert(0, CODE)
import perf_stacks  # noqa: E402
import trace_stages  # noqa: E402

sys.path.insert(0, HERE)
from selftest_check import Checks  # noqa: E402

PY = "/usr/bin/python3"  # Debian's python with matplotlib, as bench-trace.sh runs it


CHECKS = Checks()
check = CHECKS.check


def close(a, b, tol=1e-6):
    return a is not None and b is not None and abs(a - b) <= tol


# ---- synthetic ftrace dumps ---------------------------------------------

CQ = [0xffff888000010000, 0xffff888000011000]     # one CQ per channel
CMD = [0xffff888004000000, 0xffff888004001000]    # se_cmds, reused
LOC = {"recv": "srpt_recv_done+0x0/0x1a0 [ib_srpt]",
       "recvr": "__ib_process_cq+0x5d/0x1c0 [ib_core] <- srpt_recv_done",
       "init": "target_init_cmd+0x0/0x140 [target_core_mod]",
       "subm": "target_submit+0x0/0x90 [target_core_mod]",
       "bkdn": "target_complete_cmd+0x0/0x30 [target_core_mod]",
       "qdin": "srpt_queue_data_in+0x0/0x10 [ib_srpt]",
       "qdinr": "target_complete_ok_work+0x2a/0x3f0 [target_core_mod] <- srpt_queue_data_in",
       "qsts": "srpt_queue_status+0x0/0x40 [ib_srpt]",
       "qstsr": "target_complete_ok_work+0x2a/0x3f0 [target_core_mod] <- srpt_queue_status",
       "post": "rxe_post_send+0x0/0x5a0 [rdma_rxe]",
       "sndd": "srpt_send_done+0x0/0x140 [ib_srpt]"}
ARG = {"recv": "cq", "sndd": "cq", "post": "qp", "init": "cmd", "subm": "cmd", "bkdn": "cmd",
       "qdin": "cmd", "qsts": "cmd"}


class Trace:
    """Events (ts in us, order, cpu, event, arg) rendered as ftrace text in
    time order, as the trace file merges the CPUs' buffers."""

    def __init__(self):
        self.ev = []

    def add(self, us, cpu, ev, arg=None):
        self.ev.append((us, len(self.ev), cpu, ev, arg))

    def command(self, t, ch, stages, kind="read", bkdn=True, done=True):
        """One command received at T us on channel CH (CPU CH; LIO's
        completion work and the response's post on the other CPU). STAGES:
        driver_in lio_prep execute lio_done driver_out wire in us."""
        di, lp, ex, ld, do, wi = stages
        c, o = ch, 1 - ch
        q = "qdin" if kind == "read" else "qsts"
        self.add(t - 5, c, "post", 0xffff888003000000)        # the initiator's SRP_CMD
        self.add(t, c, "recv", CQ[ch])
        self.add(t + di, c, "init", CMD[ch])
        self.add(t + di + lp, c, "subm", CMD[ch])
        if bkdn:
            self.add(t + di + lp + ex, c, "bkdn", CMD[ch])
        self.add(t + di + lp + ex + 1, c, "recvr")
        tq = t + di + lp + ex + ld
        if not done:
            return
        self.add(tq - 1, o, "post", 0xffff888003000000)       # before the call: not ours
        self.add(tq, o, q, CMD[ch])
        self.add(tq + 3, c, "post", 0xffff888003000000)       # other CPU, inside the call's time
        self.add(tq + do, o, "post", 0xffff888005000000)
        self.add(tq + do + 2, o, q + "r")
        self.add(tq + do + wi, c, "sndd", CQ[ch])

    def text(self):
        out = ["# tracer: nop", "#"]
        for us, _, cpu, ev, arg in sorted(self.ev):
            task = "kworker/%d:1H-%d" % (cpu, 100 + cpu)
            args = (" %s=0x%x" % (ARG[ev], arg)) if arg is not None else ""
            out.append("%22s [%03d] d..1. %6d.%06d: %s: (%s)%s" % (
                task, cpu, us // 1000000, us % 1000000, ev, LOC[ev], args))
        return "\n".join(out) + "\n"


T0 = 100 * 1000000


def side_a_reads(tr, kind="read"):
    """Ten commands, 150 us apart on alternate channels (a command's send
    completion, up to 167 us, can come after the next one's receive), with
    known stages: driver_in 10..19, lio_prep 5, execute 20, lio_done
    30+2i, driver_out 8, wire 40+3i; total 113+6i."""
    for i in range(10):
        tr.command(T0 + 1000 + 150 * i, i % 2, (10 + i, 5, 20, 30 + 2 * i, 8, 40 + 3 * i), kind)


A_READ = {"driver_in": (14.5, 18.1), "lio_prep": (5, 5), "execute": (20, 20),
          "lio_done": (39, 46.2), "driver_out": (8, 8), "wire": (53.5, 64.3), "total": (140, 161.6)}
B_STAGES = (12, 6, 25, 35, 9, 50)   # total 137
B_READ = {"driver_in": (12, 12), "lio_prep": (6, 6), "execute": (25, 25), "lio_done": (35, 35),
          "driver_out": (9, 9), "wire": (50, 50), "total": (137, 137)}


def trace_a(kind="read"):
    tr = Trace()
    # cut by the window's start: events of commands that began before it
    tr.add(T0 + 10, 0, "subm", 0xffff888009990000)
    tr.add(T0 + 20, 1, "sndd", CQ[1])
    tr.add(T0 + 30, 1, "qdin" if kind == "read" else "qsts", 0xffff888009990000)
    side_a_reads(tr, kind)
    # one of the other kind: paired, counted apart
    tr.command(T0 + 5000, 0, (50, 50, 50, 50, 50, 50), "write" if kind == "read" else "read")
    # cut by the window's end: received and submitted, never answered
    tr.command(T0 + 9000, 1, B_STAGES, kind, done=False)
    return tr.text()


def trace_b(kind="read"):
    tr = Trace()
    for i in range(10):
        tr.command(T0 + 1000 + 200 * i, i % 2, B_STAGES, kind)
    # the backend's completion not traced: execute and lio_done have one
    # value fewer, the other stages and the total count it
    tr.command(T0 + 4000, 0, B_STAGES, kind, bkdn=False)
    return tr.text()


def test_pairing():
    recs, counts = trace_stages.pair_commands(trace_stages.parse_events(trace_a().splitlines()))
    st = trace_stages.stage_stats(recs, "read")
    check("A: 10 READs paired, the WRITE counted apart",
          st["commands"] == 10 and st["other_kind"] == 1, "%d %d" % (st["commands"], st["other_kind"]))
    for key, (p50, p90) in A_READ.items():
        s = st["stages"][key]
        check("A: %s p50 %.1f p90 %.1f" % (key, p50, p90),
              s["n"] == 10 and close(s["p50"], p50) and close(s["p90"], p90), str(s))
    check("A: the cut commands are counted, not paired",
          counts["subm of an untracked command"] == 1 and counts["qdin of an untracked command"] == 1
          and counts["send completion without a traced post"] == 1
          and counts["commands without a send completion at the end"] == 1, str(dict(counts)))
    check("A: an se_cmd used again after its response was posted is a new command, not a reuse",
          counts["se_cmd reused before its response was posted"] == 0, str(dict(counts)))
    recs, counts = trace_stages.pair_commands(trace_stages.parse_events(trace_b().splitlines()))
    st = trace_stages.stage_stats(recs, "read")
    check("B: 11 READs paired", st["commands"] == 11, str(st["commands"]))
    for key, (p50, p90) in B_READ.items():
        s = st["stages"][key]
        n = 10 if key in ("execute", "lio_done") else 11
        check("B: %s p50 %.1f over %d" % (key, p50, n),
              s["n"] == n and close(s["p50"], p50) and close(s["p90"], p90), str(s))
    w = trace_stages.stage_stats(
        trace_stages.pair_commands(trace_stages.parse_events(trace_a("write").splitlines()))[0], "write")
    check("A: WRITEs paired by queue_status", w["commands"] == 10 and close(w["stages"]["total"]["p50"], 140),
          str(w["commands"]))
    # A receive completion that returned without a command: the next
    # target_init_cmd on that CPU (a wait-list IU's) is not taken for it.
    tr = Trace()
    tr.add(T0, 0, "recv", CQ[0])
    tr.add(T0 + 5, 0, "recvr")
    tr.add(T0 + 9, 0, "init", CMD[0])
    recs, counts = trace_stages.pair_commands(trace_stages.parse_events(tr.text().splitlines()))
    check("init after its CPU's receive completion returned: not paired",
          not recs and counts["target_init_cmd outside a receive completion"] == 1, str(dict(counts)))
    # Two responses outstanding on one CQ (QD2 on a channel): its send
    # completions come in post order, the first one completes the first.
    tr = Trace()
    for n, (cmd, cpu) in enumerate(((CMD[0], 0), (CMD[1], 1))):
        t = T0 + 10 * n
        tr.add(t, cpu, "recv", CQ[0])
        tr.add(t + 1, cpu, "init", cmd)
        tr.add(t + 2, cpu, "subm", cmd)
        tr.add(t + 3, cpu, "recvr")
        tr.add(t + 4, cpu, "qdin", cmd)
        tr.add(t + 5, cpu, "post", 0xffff888005000000)
        tr.add(t + 6, cpu, "qdinr")
    tr.add(T0 + 100, 0, "sndd", CQ[0])   # the first post's: 95 us after it
    tr.add(T0 + 200, 1, "sndd", CQ[0])   # the second's: 185 us
    recs, _ = trace_stages.pair_commands(trace_stages.parse_events(tr.text().splitlines()))
    wires = [round((r["sndd"] - r["post"]) * 1e6) for r in sorted(recs, key=lambda r: r["recv"])]
    check("two responses outstanding on one CQ complete in post order", wires == [95, 185], str(wires))
    check("percentile: linear between ranks",
          close(trace_stages.percentile([1, 2, 3, 4], 50), 2.5) and
          close(trace_stages.percentile([5], 90), 5) and trace_stages.percentile([], 50) is None)


# ---- synthetic perf script and kallsyms ---------------------------------

KALLSYMS_A = """ffffffff81000000 T _stext
ffffffff81100000 T default_idle
ffffffff81100100 T do_idle
ffffffff81100200 T cpu_startup_entry
ffffffff81200000 T process_one_work
ffffffff81200400 T worker_thread
ffffffff81300000 T __do_softirq
ffffffff81400000 T __x64_sys_io_submit
ffffffffc0100000 t ib_cq_poll_work\t[ib_core]
ffffffffc0200000 t srpt_recv_done\t[ib_srpt]
ffffffffc0200400 t srpt_handle_new_iu\t[ib_srpt]
ffffffffc0300000 T target_submit\t[target_core_mod]
ffffffffc0400000 t rxe_requester\t[rdma_rxe]
"""
# the port's ib_srpt loaded where the in-tree one was: the same addresses
KALLSYMS_B = KALLSYMS_A.replace("srpt_handle_new_iu", "_ZN4srpt7Channel10OnRecvDoneEjjb")


def sample(comm, tid, cpu, frames):
    head = "%16s %6d [%03d] %6d.%06d: " % (comm, tid, cpu, 200, 0)
    return head + "\n" + "".join("\t%16x %s (%s)\n" % f for f in frames) + "\n"


IDLE = [(0xffffffff81100010, "default_idle", "[kernel.kallsyms]"),
        (0xffffffff81100110, "do_idle", "[kernel.kallsyms]"),
        (0xffffffff81100210, "cpu_startup_entry", "[kernel.kallsyms]")]
SOFTIRQ_ON_IDLE = [(0xffffffffc0400010, "rxe_requester", "[rdma_rxe]"),
                   (0xffffffff81300010, "__do_softirq", "[kernel.kallsyms]")] + IDLE
POLL = [(0xffffffffc0100010, "ib_cq_poll_work", "[ib_core]"),
        (0xffffffff81200010, "process_one_work", "[kernel.kallsyms]"),
        (0xffffffff81200410, "worker_thread", "[kernel.kallsyms]")]
SRPT = [(0xffffffffc0200410, "srpt_handle_new_iu", "[ib_srpt]"),   # perf's name, the in-tree file's
        (0xffffffffc0200010, "srpt_recv_done", "[ib_srpt]")] + POLL
FIO = [(0xffffffff81400010, "__x64_sys_io_submit", "[kernel.kallsyms]"),
       (0x7f0000001234, "io_submit", "/usr/lib/x86_64-linux-gnu/libaio.so.1.0.2"),
       (0x55555555a000, "[unknown]", "/usr/bin/fio")]
LOST = [(0xffffffff80000010, "[unknown]", "[unknown]")]  # below every symbol


def perf_text():
    out = []
    out += [sample("swapper", 0, i % 2, IDLE) for i in range(10)]
    out += [sample("swapper", 0, 1, SOFTIRQ_ON_IDLE) for _ in range(2)]
    out += [sample("kworker/0:1H", 55, 0, SRPT) for _ in range(2)]
    out += [sample("kworker/1:1H", 56, 1, POLL) for _ in range(3)]
    out += [sample("kworker/u4:2", 57, 0, [(0xffffffffc0300010, "target_submit", "[target_core_mod]")] + POLL[1:])]
    out += [sample("fio", 300, 0, FIO) for _ in range(3)]
    out += [sample("fio", 300, 1, LOST)]
    return "".join(out)


def test_perf():
    ka = perf_stacks.Kallsyms(KALLSYMS_A.splitlines())
    kb = perf_stacks.Kallsyms(KALLSYMS_B.splitlines())
    samples = list(perf_stacks.parse_samples(perf_text().splitlines()))
    check("perf script: 22 samples with their frames",
          len(samples) == 22 and len(samples[0][2]) == 3 and samples[0][0] == "swapper", str(len(samples)))
    stacks, classes = perf_stacks.collapse(samples, ka)
    check("classes: 10 idle, 6 target (3 under the CQ poll work alone), 6 other (2 softirqs on an idle CPU)",
          classes == {"idle": 10, "target": 6, "other": 6}, str(dict(classes)))
    key = ("kworker", "worker_thread", "process_one_work", "ib_cq_poll_work [ib_core]",
           "srpt_recv_done [ib_srpt]", "srpt_handle_new_iu [ib_srpt]")
    check("collapse: root first, task without its instance, module named", stacks.get(key) == 2,
          str(sorted(stacks.items())[:3]))
    check("a sample's user frames are one; kernel addresses outside kallsyms are unknown",
          stacks.get(("fio", "[user space]", "__x64_sys_io_submit")) == 3 and
          stacks.get(("fio", "[unknown kernel]")) == 1, str([k for k in stacks if k[0] == "fio"]))
    check("idle samples are counted, not drawn", sum(stacks.values()) == 12 and
          not [k for k in stacks if "default_idle" in k[-1]], str(sum(stacks.values())))
    check("user frames from perf: named by perf, '[unknown]' kept",
          perf_stacks.frame_label(FIO[1], ka) == "io_submit (user)" and
          perf_stacks.frame_label(FIO[2], ka) == "[unknown] (user)")
    stacks_b, _ = perf_stacks.collapse(samples, kb)
    check("the same address is named from the side's own kallsyms (the port's, demangled), not the in-tree file's",
          stacks_b.get(key[:-1] + ("srpt::Channel::OnRecvDone [ib_srpt]",)) == 2 and key not in stacks_b,
          str([k for k in stacks_b if k[0] == "kworker"]))


# ---- the whole report ---------------------------------------------------

def write_gz(path, text):
    with gzip.open(path, "wt") as f:
        f.write(text)


def make_dir(d, load_start):
    for side, drv in (("A", "intree"), ("B", "port")):
        open(os.path.join(d, side + "-driver.txt"), "w").write(drv + "\n")
        write_gz(os.path.join(d, side + "-kallsyms.gz"), KALLSYMS_A if side == "A" else KALLSYMS_B)
        for lun in ("rd", "nb"):
            for job, kind in (("randread", "read"), ("randwrite", "write")):
                t = trace_a(kind) if side == "A" else trace_b(kind)
                write_gz(os.path.join(d, "%s-%s-%s-stages.trace.gz" % (side, lun, job)), t)
                open(os.path.join(d, "%s-%s-%s-stages.overrun" % (side, lun, job)), "w").write("0\n")
                for qd in (1, 32):
                    base = os.path.join(d, "%s-%s-%s-qd%d" % (side, lun, job, qd))
                    # A: 3 s of busy CPU for 1000 I/Os; B: 2 s for 1000
                    busy = 300 if side == "A" else 200
                    open(base + ".cpu", "w").write(
                        "seconds 6.000\nclk_tck 100\nncpu 2\nbusy_ticks %d\ntotal_ticks 1200\nios 1000\n"
                        "perf_hz 499\n" % busy)
                    write_gz(base + ".perf.gz", perf_text())
    # at the end the 1-minute average holds the guest's two busy vCPUs
    open(os.path.join(d, "host-load.txt"), "w").write("load_start %s\nload_end 2.20\nmax_load 0.5\n" % load_start)


def run_report(d):
    return subprocess.run([PY, os.path.join(CODE, "bench-breakdown.py"), d],
                          capture_output=True, text=True, timeout=300)


def test_report(tmp):
    d = os.path.join(tmp, "loaded")
    os.makedirs(d)
    make_dir(d, "2.50")
    r = run_report(d)
    check("report: exit 0 on a complete directory", r.returncode == 0, r.stdout[-600:] + r.stderr[-600:])
    md = open(os.path.join(d, "breakdown.md")).read() if os.path.exists(os.path.join(d, "breakdown.md")) else ""
    check("report: the total row with A's and B's p50/p90 and B/A 137/140",
          "| **receive completion -> send completion** | 140.0 | 161.6 | 137.0 | 137.0 | 0.979 |" in md)
    check("report: a stage row (driver_in 14.5/18.1 against 12.0/12.0, B/A 0.828)",
          "| receive completion -> target_init_cmd: the driver takes the IU | 14.5 | 18.1 | 12.0 | 12.0 | 0.828 |" in md)
    check("report: commands paired per side", "| commands paired (events lost) | 10 (0) | | 11 (0) | | |" in md)
    check("report: the loaded-host mark", "Loaded host: tool validation only" in md)
    # CPU: A 3000 us/IO, B 2000; target share 6 of 12 busy samples -> 1500 and 1000
    check("report: CPU per I/O row (guest 3000/2000, target 1500/1000, B/A 0.667)",
          "| rd_mcp | randread | 32 | 167 | 167 | 3000.0 | 2000.0 | 0.667 | 1500.0 | 1000.0 | 0.667 |" in md,
          [l for l in md.splitlines() if l.startswith("| rd_mcp | randread")].__repr__())
    try:
        j = json.load(open(os.path.join(d, "breakdown.json")))
        ok = (j["loaded"] is True and j["drivers"] == {"A": "intree", "B": "port"} and
              close(j["cpu"]["nb-randwrite-qd1"]["B"]["target_share"], 0.5) and not j["errors"])
    except Exception:
        ok = False
    check("report: breakdown.json (drivers, loaded, target share, no errors)", ok)
    for side in ("A", "B"):
        for lun in ("rd", "nb"):
            p = os.path.join(d, "flame-%s-%s.png" % (side, lun))
            good = os.path.exists(p) and open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(p) > 5000
            check("report: flame graph %s" % os.path.basename(p), good)
    d2 = os.path.join(tmp, "quiet")
    os.makedirs(d2)
    make_dir(d2, "0.10")
    r = run_report(d2)
    md2 = open(os.path.join(d2, "breakdown.md")).read() if r.returncode == 0 else ""
    check("report: no loaded mark on a quiet host, whose load at the end is the guest's own",
          r.returncode == 0 and "Loaded host" not in md2 and "below 0.50" in md2)
    os.remove(os.path.join(d2, "B-nb-randread-qd32.cpu"))
    r = run_report(d2)
    check("report: a missing CPU window fails (exit 1, named)",
          r.returncode == 1 and "B-nb-randread-qd32" in r.stdout, r.stdout[-300:])
    # bench-trace under icount with BT_STAGES=0: no stage traces, the
    # clock named, no loaded mark whatever the load before the boot.
    d4 = os.path.join(tmp, "icount-untraced")
    os.makedirs(d4)
    make_dir(d4, "2.50")
    for f in os.listdir(d4):
        if "-stages." in f:
            os.remove(os.path.join(d4, f))
    with open(os.path.join(d4, "host-load.txt"), "a") as f:
        f.write("clock icount shift=2\nstages 0\n")
    r = run_report(d4)
    md4 = open(os.path.join(d4, "breakdown.md")).read() if os.path.exists(os.path.join(d4, "breakdown.md")) else ""
    check("report: icount, BT_STAGES=0: exit 0, 'Not traced', the clock named, no loaded mark, CPU rows kept",
          r.returncode == 0 and "Not traced (BT_STAGES=0)" in md4 and "Guest clock: icount shift=2" in md4 and
          "Loaded host" not in md4 and "| rd_mcp | randread | 32 |" in md4 and "Incomplete" not in md4,
          r.stdout[-600:])
    with open(os.path.join(d4, "host-load.txt"), "w") as f:
        f.write("load_start 2.50\nload_end 2.20\nmax_load 0.5\nclock wall\nstages 1\n")
    r = run_report(d4)
    check("report: the same directory with stages expected: exit 1, the stage traces named missing",
          r.returncode == 1 and "missing A-rd-randread-stages.trace.gz" in r.stdout, r.stdout[-300:])
    # An older artifacts directory without host-load.txt: the stages are
    # expected (as before BT_STAGES) and the load is said to be unrecorded.
    os.remove(os.path.join(d4, "host-load.txt"))
    r = run_report(d4)
    check("report: no host-load.txt: 'host load not recorded', the stage traces expected (exit 1, named)",
          r.returncode == 1 and "missing A-rd-randread-stages.trace.gz" in r.stdout and
          "host load not recorded" in open(os.path.join(d4, "breakdown.md")).read(), r.stdout[-300:])
    d3 = os.path.join(tmp, "unpaired")
    os.makedirs(d3)
    make_dir(d3, "0.10")
    # every receive completion returns before its command is set up: no
    # command can be tied to its IU
    p = os.path.join(d3, "A-rd-randwrite-stages.trace.gz")
    tr = Trace()
    for i in range(5):
        tr.add(T0 + 100 * i, 0, "recv", CQ[0])
        tr.add(T0 + 100 * i + 1, 0, "recvr")
        tr.add(T0 + 100 * i + 2, 0, "init", CMD[0])
    write_gz(p, tr.text())
    r = run_report(d3)
    check("report: a job with no paired command fails (exit 1, named)",
          r.returncode == 1 and "A rd randwrite: no command paired" in r.stdout, r.stdout[-300:])


def write_census(d, side, job, ios, hits):
    with open(os.path.join(d, "%s-%s.census" % (side, job)), "w") as f:
        f.write("ios %d\n" % ios)
        for name, n in hits.items():
            f.write("c_%s %d\n" % (name, n))


def check_mode_off(d, mode, title, script):
    """With MODE 0 in host-load.txt the report has no TITLE section; SCRIPT
    on its own without a directory prints its usage and exits 2."""
    with open(os.path.join(d, "host-load.txt"), "w") as f:
        f.write("load_start 0.10\nload_end 2.20\nmax_load 0.5\nclock wall\nstages 1\n%s 0\n" % mode)
    r = run_report(d)
    check("%s: BT_%s=0: no section, the %s files not read" % (mode, mode.upper(), mode),
          r.returncode == 0 and title not in r.stdout, r.stdout[-300:])
    out = subprocess.run([PY, os.path.join(CODE, script)], capture_output=True, text=True, timeout=60)
    check("%s: %s without a directory prints its usage, exit 2" % (mode, script),
          out.returncode == 2 and script + " DIR" in out.stdout, out.stdout[-300:])


def icount_dir(tmp, name, modes):
    """(dir, jobs): a synthetic bench-trace directory under the
    instruction clock with MODES ('census 1\n' and the like) in its
    host-load.txt, and the 8 jobs' file parts, written out here rather
    than taken from trace_jobs.py so that the matrix is tested too."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    make_dir(d, "0.10")
    with open(os.path.join(d, "host-load.txt"), "a") as f:
        f.write("clock icount shift=2\nstages 1\n" + modes)
    return d, ["%s-%s-qd%d" % (l, rw, qd) for l in ("rd", "nb") for rw in ("randread", "randwrite") for qd in (1, 32)]


def test_census(tmp):
    """BT_CENSUS=1: calls per I/O from kprobe hit counts, B - A."""
    d, jobs = icount_dir(tmp, "census", "census 1\n")
    for job in jobs:
        # A: 2000 I/Os, 132000 irqsave locks (66 per I/O); B: 1000 I/Os,
        # 73000 (73 per I/O); kfree 12 and 14 per I/O; srp_queuecommand
        # one per I/O on both; B lacks a probe A has (a refused probe).
        write_census(d, "A", job, 2000, {"_raw_spin_lock_irqsave": 132000, "kfree": 24000,
                                          "srp_queuecommand": 2000, "rxe_poll_cq": 100})
        write_census(d, "B", job, 1000, {"_raw_spin_lock_irqsave": 73000, "kfree": 14000,
                                          "srp_queuecommand": 1000})
    r = run_report(d)
    md = open(os.path.join(d, "breakdown.md")).read() if os.path.exists(os.path.join(d, "breakdown.md")) else ""
    check("census: exit 0, the section present", r.returncode == 0 and "## Calls per I/O (BT_CENSUS=1)" in md,
          r.stdout[-600:])
    row = [l for l in md.splitlines() if l.startswith("| `_raw_spin_lock_irqsave` |")]
    check("census: per I/O A / B (B - A), a difference of 0.5 or more in bold",
          len(row) == 1 and row[0].count("66.00 / 73.00 (**+7.00**)") == 8, str(row))
    rows = [l for l in md.splitlines() if l.startswith("| `")]
    check("census: rows ordered by the largest difference; equal counts plain",
          [r_.split("`")[1] for r_ in rows[:3]] == ["_raw_spin_lock_irqsave", "kfree", "rxe_poll_cq"] and
          "1.00 / 1.00 (+0.00)" in md, str(rows))
    check("census: a probe one side lacks shows the other's count and '-'",
          any(l.startswith("| `rxe_poll_cq` | 0.05 / - |") for l in rows), str(rows))
    check("census: the I/O counts of each window", "| *I/Os in the window, A / B* | 2000 / 1000 |" in md)
    os.remove(os.path.join(d, "B-nb-randwrite-qd32.census"))
    write_census(d, "A", "rd-randread-qd1", 0, {"kfree": 0})
    r = run_report(d)
    check("census: a missing file and a window without I/O fail (exit 1, named)",
          r.returncode == 1 and "missing B-nb-randwrite-qd32.census" in r.stdout and
          "A-rd-randread-qd1.census: no I/O completed in the window" in r.stdout, r.stdout[-600:])
    # Without 'census 1' in host-load.txt the files are not read.
    check_mode_off(d, "census", "Calls per I/O", "call_census.py")


def write_cost(d, side, job, ios, roots, overrun=0, softirq=None):
    with open(os.path.join(d, "%s-%s.cost" % (side, job)), "w") as f:
        f.write("ios %d\noverrun %d\n" % (ios, overrun))
        for name, (calls, us) in roots.items():
            f.write("root %s %d %.3f\n" % (name, calls, us))
        for name, us in (softirq or {}).items():
            f.write("softirq %s %.3f\n" % (name, us))


def test_cost(tmp):
    """BT_COST=1: the driver's root calls, microseconds per I/O."""
    d, jobs = icount_dir(tmp, "cost", "census 0\ncost 1\n")
    for job in jobs:
        # A: 1000 I/Os, recv_done 10 us and send_done 5 us per I/O, one
        # call each: 15 us, 2 calls per I/O. B: 2000 I/Os, recv_done 12 us
        # per I/O, send_done 4 us, and a work item once per 10 I/Os of
        # 0.5 us per I/O: 16.5 us, 2.1 calls per I/O. Softirqs inside the
        # roots: A 1 us per I/O in recv_done, B 3 us in send_done, so B - A
        # without them is -0.5 us (-125 instructions at shift 2).
        write_cost(d, "A", job, 1000, {"srpt_recv_done": (1000, 10000.0), "srpt_send_done": (1000, 5000.0)},
                   softirq={"srpt_recv_done": 1000.0})
        write_cost(d, "B", job, 2000, {"srpt_recv_done": (2000, 24000.0), "srpt_send_done": (2000, 8000.0),
                                       "srpt_kick_work": (200, 1000.0)}, softirq={"srpt_send_done": 6000.0})
    r = run_report(d)
    md = open(os.path.join(d, "breakdown.md")).read() if os.path.exists(os.path.join(d, "breakdown.md")) else ""
    check("cost: exit 0, the section present", r.returncode == 0 and "## The driver's cost per I/O (BT_COST=1)" in md,
          r.stdout[-600:])
    check("cost: totals per I/O, B - A, B/A, calls, softirqs, and B - A without them in instructions "
          "under icount (250 a us at shift 2)",
          md.count("| 15.00 | 16.50 | +1.50 | 1.100 | 2.00 | 2.10 | 1.00 | 3.00 | -0.50 | -125 |") == 8, md[-1500:])
    rows_b = md.split("B: µs per I/O (calls per I/O; µs of it in softirqs) of each root")[-1]
    check("cost: each side's roots, largest first, µs (calls; softirq µs) per I/O",
          [l.split("`")[1] for l in rows_b.splitlines() if l.startswith("| `")] ==
          ["srpt_recv_done", "srpt_send_done", "srpt_kick_work"] and "| 0.50 (0.10; 0.00) |" in rows_b and
          "| 4.00 (1.00; 3.00) |" in rows_b, rows_b[:800])
    write_cost(d, "B", "rd-randread-qd1", 2000, {"srpt_recv_done": (2000, 24000.0)}, overrun=7)
    os.remove(os.path.join(d, "A-nb-randwrite-qd32.cost"))
    write_cost(d, "A", "rd-randwrite-qd1", 0, {"srpt_recv_done": (0, 0.0)})
    r = run_report(d)
    check("cost: lost events, a missing file and a window without I/O fail (exit 1, named)",
          r.returncode == 1 and "B-rd-randread-qd1.cost: 7 trace events lost" in r.stdout and
          "missing A-nb-randwrite-qd32.cost" in r.stdout and
          "A-rd-randwrite-qd1.cost: no I/O completed in the window" in r.stdout, r.stdout[-800:])
    check_mode_off(d, "cost", "driver's cost", "driver_cost.py")


def graph_call(root_self, kids, t_in=0.1, t_out=0.4):
    """function_graph lines of one srpt_recv_done call: KIDS are (name,
    true µs) leaves or (name, true self µs, [leaves]); every hooked call
    measures its true time + t_in, its caller's self gains t_out."""
    lines, total = [], root_self + t_in
    for k in kids:
        if len(k) == 2:
            lines.append(" 0)   %.3f us    |    %s();" % (k[1] + t_in, k[0]))
            total += k[1] + t_in + t_out
        else:
            lines.append(" 0)               |    %s() {" % k[0])
            inner = k[1] + t_in
            for name, us in k[2]:
                lines.append(" 0)   %.3f us    |      %s();" % (us + t_in, name))
                inner += us + t_in + t_out
            lines.append(" 0)   %.3f us    |    } /* %s */" % (inner, k[0]))
            total += inner + t_out
    return ([" 0)               |  srpt_recv_done [ib_srpt]() {"] + lines +
            [" 0) + %.3f us   |  } /* srpt_recv_done [ib_srpt] */" % total])


def test_callees(tmp):
    """BT_CALLEES=1: self time per I/O beneath the roots, the tracer's
    cost per hooked call taken out."""
    d, jobs = icount_dir(tmp, "callees", "census 0\ncost 1\ncallees 1\n")
    post_a = "srpt_dp_post_send [ib_srpt]"
    post_b = "_ZN4srpt9KernelEnv12PostResponseERNS_7SendCtxEji [ib_srpt]"
    for job in jobs:
        # True times per call: A: root 5.0, a lock 1.0, the post 2.0 with
        # rxe 1.9 beneath it, an empty leaf 0.0; B the same with root 6.0,
        # the lock twice, and a softirq (1.5 of its own, 3.0 of rxe's
        # work). With its own t_in (0.1) the root alone takes 10.0 (A) and
        # 16.5 (B) per call: the cost window's figures.
        write_cost(d, "A", job, 100, {"srpt_recv_done": (100, 1000.0)})
        write_cost(d, "B", job, 100, {"srpt_recv_done": (100, 1650.0)})
        if not job.endswith("-qd1"):
            continue
        for side, root, locks, post in (("A", 5.0, 1, post_a), ("B", 6.0, 2, post_b)):
            kids = [("_raw_spin_lock", 1.0)] * locks + [(post, 2.0, [("rxe_post_send", 1.9)]), ("nop_leaf", 0.0)]
            if side == "B":
                kids.append(("handle_softirqs", 1.5, [("rxe_requester", 3.0)]))
            text = ["# tracer: function_graph", " 0)   1.000 us    |    leaf_before_the_window();",
                    " 0)   3.000 us    |  } /* entered_before */",
                    " 0)               |  not_a_root() {", " 0)   0.050 us    |    q();",
                    " 0)   1.000 us    |  } /* not_a_root */"]
            for _ in range(100):
                text += graph_call(root, kids)
            text.append(" 0)               |  srpt_recv_done [ib_srpt]() {")  # cut by the window's end
            write_gz(os.path.join(d, "%s-%s.callees.gz" % (side, job)), "\n".join(text) + "\n")
            with open(os.path.join(d, "%s-%s.callees" % (side, job)), "w") as f:
                f.write("ios 100\noverrun 0\n")
    r = run_report(d)
    md = open(os.path.join(d, "breakdown.md")).read() if os.path.exists(os.path.join(d, "breakdown.md")) else ""
    sec = md.split("## Where the roots' time goes at QD1 (BT_CALLEES=1)")[-1]
    check("callees: exit 0, the section present", r.returncode == 0 and "BT_CALLEES=1" in md, r.stdout[-600:])
    check("callees: T and t_in recovered, own code, kernel and softirqs add up to the root alone",
          sec.count("| A | 10.00 | 12.00 | 4.0 | 0.500 | 0.100 | 7.10 | 2.90 | 0.00 |") == 4 and
          sec.count("| B | 16.50 | 20.00 | 7.0 | 0.500 | 0.100 | 8.10 | 3.90 | 4.50 |") == 4, sec[:1500])
    check("callees: the kernel function that differs first, in instructions under icount",
          sec.count("| ib_srpt's own code | 2.00 | 7.10 | 2.00 | 8.10 | +1.00 | +250 |") == 4 and
          sec.count("| `_raw_spin_lock` | 1.00 | 1.00 | 2.00 | 2.00 | +1.00 | +250 |") == 4 and
          sec.count("| `rxe_post_send` | 1.00 | 1.90 | 1.00 | 1.90 | +0.00 | +0 |") == 4 and
          sec.count("| softirqs run inside the roots (whoever's work) | 0.00 | 0.00 | 1.00 | 4.50 | +4.50 | +1125 |") == 4
          and "rxe_requester" not in sec, sec[:2500])
    check("callees: each side's own functions, C++ names demangled",
          "| `srpt::KernelEnv::PostResponse` | 1.00 | 2.00 |" in sec and "| `srpt_recv_done` | 1.00 | 6.10 |" in sec and
          "| `srpt_dp_post_send` | 1.00 | 2.00 |" in sec and "not_a_root" not in sec and "leaf_before" not in sec,
          sec[:3000])
    with open(os.path.join(d, "B-rd-randread-qd1.callees"), "w") as f:
        f.write("ios 100\noverrun 3\n")
    os.remove(os.path.join(d, "A-nb-randwrite-qd1.callees.gz"))
    r = run_report(d)
    check("callees: lost events and a missing graph fail (exit 1, named)",
          r.returncode == 1 and "B-rd-randread-qd1.callees: 3 trace events lost" in r.stdout and
          "A-nb-randwrite-qd1.callees" in r.stdout, r.stdout[-800:])
    check_mode_off(d, "callees", "Where the roots' time goes", "driver_callees.py")


def test_jobs(tmp):
    """BT_JOBS: a run of some jobs (host-load.txt's 'jobs' line) is
    reported for those, with no file of the others asked for."""
    d, jobs = icount_dir(tmp, "jobs", "census 1\njobs rd-randread-qd32 nb-randread-qd32\n")
    kept = ("rd-randread-qd32", "nb-randread-qd32")
    for side in ("A", "B"):
        for job in jobs:
            if job not in kept:
                for ext in (".cpu", ".perf.gz"):
                    os.remove(os.path.join(d, "%s-%s%s" % (side, job, ext)))
        for lun in ("rd", "nb"):
            for rw in ("randread", "randwrite"):
                os.remove(os.path.join(d, "%s-%s-%s-stages.trace.gz" % (side, lun, rw)))
        for job in kept:
            write_census(d, side, job, 1000, {"_raw_spin_lock_irqsave": 66000 if side == "A" else 70000})
    r = run_report(d)
    md = open(os.path.join(d, "breakdown.md")).read() if os.path.exists(os.path.join(d, "breakdown.md")) else ""
    check("jobs: exit 0 with only the two jobs' files", r.returncode == 0 and "Incomplete" not in md,
          r.stdout[-600:])
    cpu_rows = [l for l in md.splitlines() if l.startswith("| rd_mcp |") or l.startswith("| iblock")]
    check("jobs: the CPU table has the two QD32 reads and nothing else",
          [l.split(" | ")[1:3] for l in cpu_rows] == [["randread", "32"], ["randread", "32"]], str(cpu_rows))
    check("jobs: no stage table (no QD1 job ran), the report names the jobs",
          "### rd_mcp" not in md and "Jobs: only rd-randread-qd32, nb-randread-qd32 (BT_JOBS)." in md, md[:600])
    row = [l for l in md.splitlines() if l.startswith("| `_raw_spin_lock_irqsave` |")]
    check("jobs: the census has the two jobs' columns",
          "| function | rd_mcp read QD32 | iblock read QD32 |" in md and len(row) == 1 and
          row[0].count("66.00 / 70.00 (**+4.00**)") == 2, str(row))
    with open(os.path.join(d, "host-load.txt"), "a") as f:
        f.write("jobs rd-randread-qd64\n")
    r = run_report(d)
    check("jobs: a job outside the matrix is refused, named",
          r.returncode == 1 and "unknown bench-trace job(s) rd-randread-qd64" in r.stdout, r.stdout[-300:])


def test_perf_diff(tmp):
    """perf_diff.py: one job's busy samples weighed by its CPU per I/O."""
    import perf_diff
    d = os.path.join(tmp, "perfdiff")
    os.makedirs(d)
    make_dir(d, "0.10")
    job = "rd-randread-qd32"
    a = perf_diff.side_profile(d, "A", job)
    b = perf_diff.side_profile(d, "B", job)
    # 12 busy samples each; A 3000 µs of CPU per I/O, B 2000
    check("perf_diff: the busy samples share the window's CPU per I/O",
          a["samples"] == 12 and abs(sum(a["leaf"].values()) - 3000) < 1e-6 and
          abs(sum(b["leaf"].values()) - 2000) < 1e-6, "%r %r" % (a["samples"], sum(a["leaf"].values())))
    check("perf_diff: leaves named per side (in-tree's function, the port's demangled one)",
          abs(a["leaf"]["srpt_handle_new_iu [ib_srpt]"] - 500) < 1e-6 and
          abs(b["leaf"]["srpt::Channel::OnRecvDone [ib_srpt]"] - 2000 / 12 * 2) < 1e-6 and
          b["leaf"]["srpt_handle_new_iu [ib_srpt]"] == 0, str(sorted(b["leaf"].items())[:4]))
    check("perf_diff: by module and inclusive (the poll work under 5 of 12 samples, process_one_work 6)",
          abs(a["module"]["ib_srpt"] - 500) < 1e-6 and abs(a["inclusive"]["ib_cq_poll_work [ib_core]"] - 1250) < 1e-6
          and abs(b["inclusive"]["ib_cq_poll_work [ib_core]"] - 2000 / 12 * 5) < 1e-6
          and abs(a["inclusive"]["process_one_work"] - 1500) < 1e-6, str(a["inclusive"].most_common(3)))
    r = subprocess.run([PY, os.path.join(CODE, "perf_diff.py"), d, job, "3"], capture_output=True, text=True,
                       timeout=60)
    check("perf_diff: the report, largest |B - A| first",
          r.returncode == 0 and "A 3000.0 µs per I/O over 12 busy samples, B 2000.0 over 12" in r.stdout and
          "| `srpt_handle_new_iu [ib_srpt]` | 500.00 | 0.00 | -500.00 |" in r.stdout, r.stdout + r.stderr)
    open(os.path.join(d, "B-%s.cpu" % job), "w").write("clk_tck 100\nbusy_ticks 10\nios 0\n")
    r = subprocess.run([PY, os.path.join(CODE, "perf_diff.py"), d, job], capture_output=True, text=True,
                       timeout=60)
    check("perf_diff: a window without I/O is refused", r.returncode != 0 and "no I/O completed" in r.stderr,
          r.stdout + r.stderr)


def main():
    tmp = tempfile.mkdtemp(prefix="selftest-bench-breakdown.")
    try:
        for t in (test_pairing, test_perf, lambda: test_report(tmp), lambda: test_census(tmp),
                  lambda: test_cost(tmp), lambda: test_callees(tmp), lambda: test_jobs(tmp),
                  lambda: test_perf_diff(tmp)):
            try:
                t()
            except Exception:
                check("no exception in %s" % getattr(t, "__name__", "test"), False, traceback.format_exc())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return CHECKS.summary("bench-breakdown")


if __name__ == "__main__":
    sys.exit(main())
