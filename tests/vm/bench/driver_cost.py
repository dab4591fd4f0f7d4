#!/usr/bin/python3
"""The driver's cost of `make bench-trace BT_COST=1`: per completed I/O,
how long the target driver's root calls took on each driver.

The guest (tests/vm/guest/trace-lib.sh, cost_window) times with
function_graph, at depth 1, every call into the ib_srpt module from outside
it (its roots: the CQ callbacks, LIO's fabric callbacks, its work items),
and writes <side>-<lun>-<job>-qd<N>.cost: 'ios N' (the initiator's
completed I/Os in the window), 'overrun N' (trace events lost), one
'root NAME CALLS MICROSECONDS' line per root function and, for a root
inside whose calls softirqs ran (__do_softirq at depth 2), 'softirq NAME
MICROSECONDS'. A root's duration is everything that ran inside it: the
driver's code and what it called in LIO, rxe and the allocator,
interrupts off or on, and softirqs that ran on the way (rxe's pending
work at a bottom-half enable or an interrupt's exit, whoever's it was),
but not the time it was scheduled out. Under the instruction clock (icount shift N) a microsecond
is 1000 / 2^N guest instructions.

  driver_cost.py DIR [SHIFT]   prints the tables for DIR (markdown)"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_jobs  # noqa: E402

SIDES = ("A", "B")


def jobs():
    """(file part, column heading) of the jobs the run had (trace_jobs.select())."""
    return trace_jobs.columns()



def read_cost(path):
    """{'ios': N, 'overrun': N, 'roots': {name: (calls, us)}, 'softirq':
    {name: us}}; ValueError when the file has no I/O or no root call."""
    out = {"ios": None, "overrun": None, "roots": {}, "softirq": {}}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2 and fields[0] in ("ios", "overrun"):
                out[fields[0]] = int(fields[1])
            elif len(fields) == 4 and fields[0] == "root":
                out["roots"][fields[1]] = (int(fields[2]), float(fields[3]))
            elif len(fields) == 3 and fields[0] == "softirq":
                out["softirq"][fields[1]] = float(fields[2])
    name = os.path.basename(path)
    if not out["ios"]:
        raise ValueError("%s: no I/O completed in the window" % name)
    if not out["roots"]:
        raise ValueError("%s: no call into the driver timed" % name)
    return out


def load(d):
    """({(side, job): cost}, errors) for the cost files of DIR. Lost trace
    events are an error: the sums would be short."""
    out, errors = trace_jobs.read_each(d, SIDES, [job for job, _ in jobs()], "cost", read_cost)
    for (side, job), c in sorted(out.items()):
        if c["overrun"]:
            errors.append("%s-%s.cost: %d trace events lost" % (side, job, c["overrun"]))
    return out, errors


def per_io(c):
    """(microseconds, root calls, microseconds in softirqs) per I/O of one
    window."""
    return (sum(us for _, us in c["roots"].values()) / c["ios"],
            sum(n for n, _ in c["roots"].values()) / c["ios"],
            sum(c["softirq"].values()) / c["ios"])


def fmt(v, digits=2):
    return "-" if v is None else "%.*f" % (digits, v)


def table(cost, shift=None):
    """Markdown lines: the per-I/O totals of A and B per job, their
    softirq part and B - A without it (and, with SHIFT, in instructions),
    then per side the roots' microseconds per I/O, calls per I/O and
    softirq microseconds per I/O in each job, roots by their largest cost."""
    per_instr = None if shift is None else 1000.0 / (1 << shift)
    head = ("| job | A µs/I/O | B µs/I/O | B - A | B/A | A calls/I/O | B calls/I/O "
            "| A in softirqs | B in softirqs | B - A without softirqs |")
    if per_instr:
        head += " the same, instructions |"
    lines = [head, "|---|" + "---:|" * (head.count("|") - 2)]
    for job, title in jobs():
        a, b = cost.get(("A", job)), cost.get(("B", job))
        ua, na, qa = per_io(a) if a else (None, None, None)
        ub, nb, qb = per_io(b) if b else (None, None, None)
        d = ub - ua if a and b else None
        dn = (ub - qb) - (ua - qa) if a and b else None
        row = [title, fmt(ua), fmt(ub), "-" if d is None else "%+.2f" % d,
               fmt(ub / ua if a and b and ua else None, 3), fmt(na), fmt(nb), fmt(qa), fmt(qb),
               "-" if dn is None else "%+.2f" % dn]
        if per_instr:
            row.append("-" if dn is None else "%+.0f" % (dn * per_instr))
        lines.append("| " + " | ".join(row) + " |")
    for side in SIDES:
        names = {n for (s, _), c in cost.items() if s == side for n in c["roots"]}
        if not names:
            continue

        def cell(job, name):
            c = cost.get((side, job))
            if not c or name not in c["roots"]:
                return None
            n, us = c["roots"][name]
            return us / c["ios"], n / c["ios"], c["softirq"].get(name, 0.0) / c["ios"]

        def largest(name):
            return max((v[0] for v in (cell(j, name) for j, _ in jobs()) if v), default=0.0)

        lines += ["", "%s: µs per I/O (calls per I/O; µs of it in softirqs) of each root" % side, "",
                  "| root | " + " | ".join(t for _, t in jobs()) + " |", "|---|" + "---:|" * len(jobs())]
        for name in sorted(names, key=lambda n: (-largest(n), n)):
            cells = []
            for job, _ in jobs():
                v = cell(job, name)
                cells.append("-" if v is None else "%.2f (%.2f; %.2f)" % v)
            lines.append("| `%s` | %s |" % (name, " | ".join(cells)))
    return lines


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip())
        return 2
    trace_jobs.select_run(sys.argv[1])
    cost, errors = load(sys.argv[1])
    print("\n".join(table(cost, int(sys.argv[2]) if len(sys.argv) == 3 else None)))
    for e in errors:
        print("incomplete: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
