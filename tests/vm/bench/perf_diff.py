#!/usr/bin/python3
"""Where one job's CPU per I/O differs between the two sides of a
bench-trace, function by function: the cpu-clock samples of its CPU
window (TAG.perf.gz, each side's kallsyms snapshot, perf_stacks) weighed
by the window's CPU per I/O (TAG.cpu: busy ticks per completed I/O), so
that a function's share of the busy samples becomes microseconds per
I/O. Three tables, largest |B - A| first: by the leaf's module, by leaf
function (self time) and inclusive (every function on the stack).

The numbers are samples: a function's figure moves by about its square
root from one window to the next. Use long windows (BT_CPU_S=30 gives
some 15,000 busy samples per side at icount shift=2), and read leaves
with care: a sample that fell while interrupts were off is taken when
they come back on, so time spent with interrupts disabled lands on
`_raw_spin_unlock_irqrestore` and the like, on either side.

  perf_diff.py DIR JOB [N]   JOB as in the artifacts (rd-randread-qd32);
                             N rows per table (default 25)"""
import collections
import gzip
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_stacks  # noqa: E402

SIDES = ("A", "B")


def side_profile(d, side, job):
    """{'cpu_us': CPU per I/O, 'samples': busy samples, 'module'|'leaf'|
    'inclusive': Counter of microseconds per I/O} for one side."""
    with gzip.open(os.path.join(d, side + "-kallsyms.gz"), "rt") as f:
        ksyms = perf_stacks.Kallsyms(f)
    base = os.path.join(d, "%s-%s" % (side, job))
    counters, stacks, _ = perf_stacks.read_window(base, ksyms)
    if not all(k in counters for k in ("busy_ticks", "clk_tck", "ios")):
        raise ValueError("%s.cpu: no busy_ticks, clk_tck or ios" % base)
    if counters["ios"] <= 0:
        raise ValueError("%s.cpu: no I/O completed in the window" % base)
    cpu_us = counters["busy_ticks"] / counters["clk_tck"] * 1e6 / counters["ios"]
    busy = sum(stacks.values())
    if not busy:
        raise ValueError("%s-%s: no busy samples" % (side, job))
    per_sample = cpu_us / busy
    prof = {"cpu_us": cpu_us, "samples": busy, "module": collections.Counter(),
            "leaf": collections.Counter(), "inclusive": collections.Counter()}
    for stack, n in stacks.items():
        leaf = stack[-1]
        prof["leaf"][leaf] += n * per_sample
        prof["module"][perf_stacks.label_module(leaf) or "kernel"] += n * per_sample
        for frame in set(stack[1:]):  # stack[0] is the task's name
            prof["inclusive"][frame] += n * per_sample
    return prof


def rows(a, b, n):
    """(name, A, B, B - A) of the N names with the largest |B - A|."""
    names = sorted(set(a) | set(b), key=lambda k: (-abs(b[k] - a[k]), k))
    return [(k, a[k], b[k], b[k] - a[k]) for k in names[:n]]


def report(d, job, n=25):
    prof = {side: side_profile(d, side, job) for side in SIDES}
    out = ["# %s: CPU per I/O, B - A by function" % job, "",
           "A %.1f µs per I/O over %d busy samples, B %.1f over %d (TAG.cpu, TAG.perf.gz)."
           % (prof["A"]["cpu_us"], prof["A"]["samples"], prof["B"]["cpu_us"], prof["B"]["samples"])]
    for key, title in (("module", "by the leaf's module"), ("leaf", "leaf functions (self)"),
                       ("inclusive", "inclusive (on the stack)")):
        out += ["", "## " + title, "", "| %s | A µs/I/O | B µs/I/O | B - A |" % ("module" if key == "module" else "function"), "|---|---:|---:|---:|"]
        out += ["| `%s` | %.2f | %.2f | %+.2f |" % r for r in rows(prof["A"][key], prof["B"][key], n)]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    try:
        sys.stdout.write(report(argv[1], argv[2], int(argv[3]) if len(argv) == 4 else 25))
    except (OSError, ValueError) as e:
        sys.exit("perf_diff: %s" % e)


if __name__ == "__main__":
    main(sys.argv)
