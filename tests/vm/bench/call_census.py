#!/usr/bin/python3
"""The call census of `make bench-trace BT_CENSUS=1`: how often each probed
kernel function ran per completed I/O, on each driver.

The guest (tests/vm/guest/trace-lib.sh, census_window) puts a kprobe on
each function of CENSUS_FUNCS, runs one fio job per LUN, direction and
queue depth, and writes <side>-<lun>-<job>-qd<N>.census: a line
'ios N' (the initiator's completed I/Os in the window) and one line
'<event> <hits>' per probe, hits from /sys/kernel/tracing/kprobe_profile
over the same window. The counts are exact (a probe's cost changes the
timing, not the number of calls), so B - A is what the port does more or
less often per I/O than in-tree. The initiator, rxe and LIO are the same
on both sides: every difference is the target driver's, directly or
through what it asks of them.

  call_census.py DIR        prints the table for DIR (markdown)"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_jobs  # noqa: E402

SIDES = ("A", "B")


def jobs():
    """(file part, column heading) of the jobs the run had (trace_jobs.select())."""
    return trace_jobs.columns()


EVENT_PREFIX = "c_"


def read_census(path):
    """(ios, {function: hits per I/O}) of one .census file; ValueError when
    it has no 'ios' line or no I/O completed in its window."""
    ios = None
    hits = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) != 2:
                continue
            if fields[0] == "ios":
                ios = int(fields[1])
            else:
                name = fields[0]
                if name.startswith(EVENT_PREFIX):
                    name = name[len(EVENT_PREFIX):]
                hits[name] = int(fields[1])
    if not ios:
        raise ValueError("%s: no I/O completed in the window" % os.path.basename(path))
    return ios, {k: v / ios for k, v in hits.items()}


def load(d):
    """({(side, job): (ios, per_io)}, errors) for the census files of DIR."""
    return trace_jobs.read_each(d, SIDES, [job for job, _ in jobs()], "census", read_census)


def table(census):
    """Markdown lines: per function, each job's A and B calls per I/O and
    B - A; functions in the order of the largest |B - A| in any job. A
    function probed on one side only shows that side's count and '-'."""
    names = sorted({n for _, per_io in census.values() for n in per_io})

    def delta(name, job):
        a, b = census.get(("A", job)), census.get(("B", job))
        if a is None or b is None or name not in a[1] or name not in b[1]:
            return None
        return b[1][name] - a[1][name]

    def largest(name):
        ds = [abs(x) for x in (delta(name, j) for j, _ in jobs()) if x is not None]
        return max(ds) if ds else 0.0

    head = "| function | " + " | ".join(title for _, title in jobs()) + " |"
    lines = [head, "|---|" + "---:|" * len(jobs())]
    ios = []
    for job, _ in jobs():
        a, b = census.get(("A", job)), census.get(("B", job))
        ios.append("%s / %s" % (a[0] if a else "-", b[0] if b else "-"))
    lines.append("| *I/Os in the window, A / B* | " + " | ".join(ios) + " |")
    for name in sorted(names, key=lambda n: (-round(largest(n), 2), n)):
        cells = []
        for job, _ in jobs():
            a, b, dv = census.get(("A", job)), census.get(("B", job)), delta(name, job)
            if dv is None:
                # a function of one driver only (the port's glue, say):
                # its count alone
                va = "%.2f" % a[1][name] if a and name in a[1] else "-"
                vb = "%.2f" % b[1][name] if b and name in b[1] else "-"
                cells.append("-" if va == vb == "-" else "%s / %s" % (va, vb))
                continue
            mark = "**" if abs(dv) >= 0.5 else ""
            cells.append("%.2f / %.2f (%s%+.2f%s)" % (a[1][name], b[1][name], mark, dv, mark))
        lines.append("| `%s` | %s |" % (name, " | ".join(cells)))
    return lines


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip())
        return 2
    trace_jobs.select_run(sys.argv[1])
    census, errors = load(sys.argv[1])
    print("\n".join(table(census)))
    for e in errors:
        print("incomplete: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
