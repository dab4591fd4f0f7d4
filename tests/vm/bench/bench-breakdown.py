#!/usr/bin/python3
"""Report of `make bench-trace` (tests/vm/bench/bench-trace.sh): from the guest's
files in DIR, where one QD1 command's time goes stage by stage on each
driver (trace_stages.py), the CPU time per I/O at QD1 and QD32
(perf_stacks.py), a flame graph per driver and LUN (flamegraph.py) and,
from a run with BT_CENSUS=1, the calls per I/O of the census functions
(call_census.py) and, from a run with BT_COST=1, the duration per I/O of
the driver's root calls (driver_cost.py) and, with BT_CALLEES=1 too, the
self time per I/O of the functions beneath them (driver_callees.py).

  bench-breakdown.py DIR

Writes DIR/breakdown.md (printed too), DIR/breakdown.json and
DIR/flame-<side>-<lun>.png. Exit status 1 when a file the scenario writes
is missing or a job paired no command: the figures would be incomplete."""
import gzip
import json
import re
import os
import sys

# the modules next to this file; no __pycache__ left in the source tree
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import call_census  # noqa: E402
import driver_callees  # noqa: E402
import driver_cost  # noqa: E402
import flamegraph  # noqa: E402
import perf_stacks  # noqa: E402
import trace_jobs  # noqa: E402
import trace_stages  # noqa: E402

SIDES = ("A", "B")
JOBS = trace_jobs.JOBS
FLAME_JOB = "randread-qd1"
errors = []


def opener(path):
    return gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path)


def read_kv(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            if k:
                out[k] = v
    return out


def fmt(v, digits=1):
    return "n/a" if v is None else ("%.*f" % (digits, v))


def ratio(b, a):
    return None if a in (None, 0) or b is None else b / a


def stages_of(d, side, lun, job, kind):
    path = os.path.join(d, "%s-%s-%s-stages.trace.gz" % (side, lun, job))
    if not os.path.exists(path):
        errors.append("missing " + os.path.basename(path))
        return None
    with opener(path) as f:
        records, counts = trace_stages.pair_commands(trace_stages.parse_events(f))
    st = trace_stages.stage_stats(records, kind)
    st["unpaired"] = {k: v for k, v in counts.items() if v}
    ov = path.replace(".trace.gz", ".overrun")
    st["overrun"] = int(open(ov).read().strip() or 0) if os.path.exists(ov) else None
    if not st["commands"]:
        errors.append("%s %s %s: no command paired from %s to its send completion" % (side, lun, job, kind))
    return st


def ksyms_of(d, side):
    path = os.path.join(d, side + "-kallsyms.gz")
    if not os.path.exists(path):
        errors.append("missing " + os.path.basename(path))
        return None
    with opener(path) as f:
        return perf_stacks.Kallsyms(f)


def cpu_of(d, side, lun, job, qd, ksyms):
    """CPU per I/O of one window, and its collapsed stacks."""
    base = os.path.join(d, "%s-%s-%s-qd%d" % (side, lun, job, qd))
    if not os.path.exists(base + ".cpu") or not os.path.exists(base + ".perf.gz"):
        errors.append("missing %s.cpu or .perf.gz" % os.path.basename(base))
        return None, None
    kv, stacks, classes = perf_stacks.read_window(base, ksyms)
    ios = kv.get("ios", 0)
    if ios <= 0:
        errors.append("%s: no I/O completed in the window" % os.path.basename(base))
        return None, stacks
    # Every CPU of the guest: fio, the initiator, rxe and the target.
    guest = kv["busy_ticks"] / kv["clk_tck"] * 1e6 / ios
    busy = classes["target"] + classes["other"]
    # The samples span a little more than the counted window (perf's start
    # and end are kept out of it): they give the target's share of the
    # busy CPU, the counters the CPU time.
    share = classes["target"] / busy if busy else None
    out = {
        "seconds": kv["seconds"], "ios": ios, "iops": ios / kv["seconds"],
        "guest_us_per_io": guest, "samples": dict(classes), "target_share": share,
        "target_us_per_io": None if share is None else guest * share,
    }
    if share is None:
        errors.append("%s: no busy cpu-clock sample" % os.path.basename(base))
    return out, stacks


def read_host_load(d):
    """bench-trace.sh's host-load.txt as a dict, None if it is missing."""
    p = os.path.join(d, "host-load.txt")
    return read_kv(p) if os.path.exists(p) else None


def load_line(kv):
    """(loaded, text) for host-load.txt's dict kv (None: not recorded)."""
    if kv is None:
        return None, "host load not recorded"
    s, e, m = float(kv["load_start"]), float(kv["load_end"]), float(kv["max_load"])
    clock = kv.get("clock", "wall")
    if clock != "wall":
        # QEMU -icount (bench-trace.sh BENCH_ICOUNT): the host's load does
        # not reach the figures, only how long the run took.
        return False, ("Guest clock: %s, one vCPU: every time, CPU figure and sample count here is in "
                       "the guest's instructions (2^N ns each), not host seconds; the host's load "
                       "(%.2f before the boot) does not change them." % (clock, s))
    # Only the reading before the boot tells: by the end the guest's own
    # two busy vCPUs are in the 1-minute average.
    if s >= m:
        return True, ("**Loaded host: tool validation only, not a performance result** "
                      "(1-minute load average %.2f before the boot, marked from %.2f up; %.2f at the "
                      "end, the guest's own included). Under TCG another job's CPU is the guest's "
                      "loss." % (s, m, e))
    return False, ("Host load average %.2f before the boot (below %.2f); %.2f at the end, the guest's "
                   "own included." % (s, m, e))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip())
        return 2
    d = sys.argv[1]
    try:
        trace_jobs.select_run(d)
    except ValueError as e:
        print("bench-breakdown: host-load.txt: %s" % e)
        return 1
    drivers = {}
    for side in SIDES:
        p = os.path.join(d, side + "-driver.txt")
        drivers[side] = open(p).read().strip() if os.path.exists(p) else "?"
    host_load = read_host_load(d)
    loaded, load_text = load_line(host_load)
    traced = host_load is None or host_load.get("stages", "1") != "0"
    result = {"drivers": drivers, "loaded": loaded, "stages": {}, "cpu": {}, "flame": {}}
    name = {"intree": "the in-tree ib_srpt", "port": "the port"}
    md = ["# bench-trace: A = %s, B = %s" % (name.get(drivers["A"], drivers["A"]),
                                             name.get(drivers["B"], drivers["B"])), "", load_text, ""]
    ran = [job for job, _ in trace_jobs.columns()]
    if len(ran) != len(trace_jobs.names()):
        md += ["Jobs: only %s (BT_JOBS)." % ", ".join(ran), ""]
    md += ["## One QD1 command, stage by stage", ""]
    if traced:
        md += ["Microseconds, median (p50) and p90 over the commands paired from their receive",
               "completion to their send completion (kprobe events; their own cost is inside).", ""]
    else:
        md += ["Not traced (BT_STAGES=0): CPU windows and flame graphs only.", ""]
    # the stage windows are QD1 jobs: one per LUN and direction that ran
    job_names = {rw: job_name for rw, _, job_name in JOBS}
    for lun, lun_name, job, kind, qd in trace_jobs.each():
        if qd != 1 or not traced:
            continue
        job_name = job_names[job]
        st = {side: stages_of(d, side, lun, job, kind) for side in SIDES}
        result["stages"]["%s-%s" % (lun, job)] = st
        md += ["### %s, %s" % (lun_name, job_name), "",
               "| stage | A p50 | A p90 | B p50 | B p90 | B/A p50 |", "|---|---:|---:|---:|---:|---:|"]
        for key, _, _, what in trace_stages.STAGES:
            cells = []
            for side in SIDES:
                s = st[side]["stages"][key] if st[side] else {"p50": None, "p90": None}
                cells += [fmt(s["p50"]), fmt(s["p90"])]
            pa = st["A"]["stages"][key]["p50"] if st["A"] else None
            pb = st["B"]["stages"][key]["p50"] if st["B"] else None
            name = ("**%s**" % what) if key == "total" else what
            md.append("| %s | %s | %s |" % (name, " | ".join(cells), fmt(ratio(pb, pa), 3)))
        md.append("| commands paired (events lost) | %s | | %s | | |" % tuple(
            ("%d (%s)" % (st[s]["commands"], st[s]["overrun"])) if st[s] else "n/a" for s in SIDES))
        for side in SIDES:
            if st[side] and st[side]["unpaired"]:
                md.append("")
                md.append("%s not paired: %s" % (side, ", ".join(
                    "%s %d" % (k, v) for k, v in sorted(st[side]["unpaired"].items()))))
        md.append("")
    md += ["## CPU time per I/O", "",
           "Microseconds of CPU per completed I/O, over a window without probes. *guest*: every",
           "CPU of the guest (/proc/stat: fio, ib_srp, rxe and the target; the initiator's part",
           "is the same on both sides); *target*: the guest figure times the share of the busy",
           "cpu-clock samples that have a target frame (ib_srpt, LIO, its backends, the target's",
           "CQ poll work).", "",
           "| LUN | job | QD | A IOPS | B IOPS | A guest | B guest | B/A | A target | B target | B/A |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ksyms = {side: ksyms_of(d, side) for side in SIDES}
    for lun, lun_name, job, _, qd in trace_jobs.each():
        c = {}
        for side in SIDES:
            c[side], stacks = cpu_of(d, side, lun, job, qd, ksyms[side])
            if "%s-qd%d" % (job, qd) == FLAME_JOB and stacks:
                png = "flame-%s-%s.png" % (side, lun)
                cls = c[side]["samples"] if c[side] else {}
                title = ("%s: %s ib_srpt, %s, 4k randread QD1: %d busy cpu-clock samples, %d of "
                         "them the target's (%d idle ones left out)" % (
                             side, drivers[side], lun_name, sum(stacks.values()),
                             cls.get("target", 0), cls.get("idle", 0)))
                flamegraph.render(stacks, os.path.join(d, png), title)
                result["flame"]["%s-%s" % (side, lun)] = png
        result["cpu"]["%s-%s-qd%d" % (lun, job, qd)] = c
        a, b = c["A"] or {}, c["B"] or {}
        md.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            lun_name, job, qd, fmt(a.get("iops"), 0), fmt(b.get("iops"), 0),
            fmt(a.get("guest_us_per_io")), fmt(b.get("guest_us_per_io")),
            fmt(ratio(b.get("guest_us_per_io"), a.get("guest_us_per_io")), 3),
            fmt(a.get("target_us_per_io")), fmt(b.get("target_us_per_io")),
            fmt(ratio(b.get("target_us_per_io"), a.get("target_us_per_io")), 3)))
    md += ["", "Flame graphs (4k randread QD1): " + ", ".join(
        "%s %s" % (k, v) for k, v in sorted(result["flame"].items())), ""]
    if host_load is not None and host_load.get("census", "0") == "1":
        census, census_errors = call_census.load(d)
        errors.extend(census_errors)
        result["census"] = {"%s-%s" % (side, job): {"ios": ios, "per_io": per_io}
                            for (side, job), (ios, per_io) in census.items()}
        md += ["## Calls per I/O (BT_CENSUS=1)", "",
               "How often each probed kernel function ran per completed I/O, A / B and (B - A),",
               "from kprobe hit counts over a window of its own (exact counts; the probes' cost",
               "changes the timing only). Differences of 0.5 or more are in bold. The initiator,",
               "rxe and LIO are the same on both sides: every difference is the target driver's,",
               "directly or through what it asks of them.", ""]
        md += call_census.table(census) + [""]
    # the instruction clock's shift, for figures in instructions
    m = re.match(r"icount shift=(\d+)$", (host_load or {}).get("clock", "wall"))
    shift = int(m.group(1)) if m else None
    if host_load is not None and host_load.get("cost", "0") == "1":
        cost, cost_errors = driver_cost.load(d)
        errors.extend(cost_errors)
        result["cost"] = {"%s-%s" % (side, job): c for (side, job), c in cost.items()}
        md += ["## The driver's cost per I/O (BT_COST=1)", "",
               "Every call into ib_srpt from outside it (its roots: CQ callbacks, LIO's fabric",
               "callbacks, work items), timed with function_graph at depth 1 over a window of its",
               "own: what ran inside the calls, the driver's code and what it asked of LIO, rxe and",
               "the allocator, with interrupts off or on; not the time scheduled out. Softirqs",
               "that ran inside a call (rxe's pending work, whoever's it was, at a bottom-half",
               "enable, or at an interrupt's exit)",
               "count too; their part is shown, and B - A without them. Each root call also",
               "carries the tracer's own entry and exit." +
               (" Under icount shift=%d a microsecond is %g instructions." % (
                   shift, 1000.0 / (1 << shift)) if shift is not None else ""), ""]
        md += driver_cost.table(cost, shift) + [""]
    if host_load is not None and host_load.get("callees", "0") == "1":
        graphs, costs, callee_errors = driver_callees.load(d)
        errors.extend(callee_errors)
        md += ["## Where the roots' time goes at QD1 (BT_CALLEES=1)", "",
               "Each QD1 job once more, function_graph hooked on every function beneath the",
               "roots (any depth; interrupts not traced). The tracer's cost per hooked call, T,",
               "is what the roots gained over the cost window per hooked call beneath them;",
               "t_in, the part inside a call's own duration, is the shortest call seen. A",
               "function's self time is its duration less its direct callees', less t_in and",
               "T - t_in per direct callee: an estimate (docs/testing-vm.md, bench-trace).", ""]
        md += driver_callees.tables(graphs, costs, shift) + [""]
    if errors:
        md += ["Incomplete:", ""] + ["- " + e for e in errors] + [""]
    result["errors"] = errors
    text = "\n".join(md)
    with open(os.path.join(d, "breakdown.md"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "breakdown.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(text)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
