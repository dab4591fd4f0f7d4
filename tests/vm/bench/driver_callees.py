#!/usr/bin/python3
"""Where the driver's root calls spend their time, from `make bench-trace
BT_COST=1 BT_CALLEES=1`: per completed QD1 I/O, the self time of every
function beneath the roots, on each driver.

The guest (tests/vm/guest/trace-lib.sh, callee_window) runs each QD1 job
once more with function_graph hooked on every kernel function beneath the
roots its cost window found (set_graph_function, any depth, interrupts not
traced) and writes <side>-<job>.callees.gz (the raw graph) and
<side>-<job>.callees ('ios N', 'overrun N').

Every hooked call adds the tracer's work to the durations around it: a
part t_in inside the call's own duration (after the entry timestamp: the
entry event written), and a part t_out in its caller's (the fentry
trampoline before the timestamp, the exit event after it). Their sum T
per hooked call is what the roots' mean duration gained over the same
job's cost window (the roots alone hooked), divided by the hooked calls
beneath a root; t_in is taken as the shortest call seen (a leaf that does
next to nothing). A function's self time is its duration less its direct
callees' durations, less its own t_in and t_out per direct callee; the
self times of a root's tree then add up to the root's duration alone. The figures
are estimates: under the instruction clock the tracer's cost per call is
steady, but caches, branches and the like are not modelled there anyway.

  driver_callees.py DIR [SHIFT]   prints the tables for DIR (markdown)"""
import gzip
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver_cost  # noqa: E402
import trace_jobs  # noqa: E402

SIDES = ("A", "B")


def jobs():
    """(file part, column heading) of the run's QD1 jobs (trace_jobs.select())."""
    return tuple((job, title) for job, title in trace_jobs.columns() if job.endswith("-qd1"))


MODULE = " [ib_srpt]"
TOP = 25
# The softirq loop: work run inside a root when it turned interrupts or
# bottom halves back on (rxe's tasks, whoever's they were).
SOFTIRQ = ("__do_softirq", "handle_softirqs")
SOFTIRQ_ROW = "softirqs run inside the roots (whoever's work)"

# ' 0) + 12.345 us   |    name() {': CPU, optional duration (with its
# delay mark), the function column.
LINE = re.compile(r"^\s*\d+\)\s+(?:[-+!#*@$]\s*)?(?:(\d+(?:\.\d+)?) us)?\s*\|(.*)$")


class Node:
    __slots__ = ("name", "children_us", "children", "desc")

    def __init__(self, name):
        self.name = name
        self.children_us = 0.0
        self.children = 0
        self.desc = 0


def parse(lines, roots_wanted):
    """Walks a function_graph text: {'roots': {name without the module
    suffix: [calls, us, hooked calls beneath]},
    'funcs': {(root, name, in a softirq): [calls, us, raw self us, direct
    callees]},
    'min_us': shortest call}. A tree counts only when its bottom call is
    one of ROOTS_WANTED (names without the module suffix) and every call
    in it was seen entering and leaving: calls entered before the window,
    left after it, or cut by lost events are left out with their tree."""
    roots, funcs, stack = {}, {}, []
    min_us = None
    valid = False  # the tree on the stack counts

    def close(name, us):
        nonlocal min_us, valid
        node = stack.pop()
        if node.name != name:
            stack.clear()  # lost events: drop the tree
            valid = False
            return
        if not valid:
            return
        min_us = us if min_us is None else min(min_us, us)
        soft = any(n.name in SOFTIRQ for n in stack) or name in SOFTIRQ
        if stack:
            parent = stack[-1]
            parent.children_us += us
            parent.children += 1
            parent.desc += 1 + node.desc
            key = (stack[0].name, name, soft)
        else:
            r = roots.setdefault(name.replace(MODULE, ""), [0, 0.0, 0])
            r[0] += 1
            r[1] += us
            r[2] += node.desc
            key = (name, name, False)
        f = funcs.setdefault(key, [0, 0.0, 0.0, 0])
        f[0] += 1
        f[1] += us
        f[2] += us - node.children_us
        f[3] += node.children

    def enter(name):
        nonlocal valid
        if not stack:
            valid = name.replace(MODULE, "") in roots_wanted
        stack.append(Node(name))

    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        dur, text = m.group(1), m.group(2).strip()
        if text.endswith("() {"):
            enter(text[:-4])
        elif text.endswith("();") and dur is not None:
            enter(text[:-3])
            close(text[:-3], float(dur))
        elif text.startswith("}") and dur is not None:
            if not stack:
                continue  # entered before the window
            t = re.match(r"^} /\* (.*) \*/$", text)
            close(t.group(1) if t else stack[-1].name, float(dur))
    return {"roots": roots, "funcs": funcs, "min_us": min_us}


def read_callees(path):
    """The parsed graph of <side>-<job>.callees.gz with 'ios' and
    'overrun' of <side>-<job>.callees, its trees rooted in the roots of
    <side>-<job>.cost; ValueError without I/O or roots."""
    head = {"ios": None, "overrun": None}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2 and fields[0] in head:
                head[fields[0]] = int(fields[1])
    name = os.path.basename(path)
    if not head["ios"]:
        raise ValueError("%s: no I/O completed in the window" % name)
    if not os.path.exists(path + ".gz"):
        raise ValueError("missing %s.gz" % name)
    wanted = set(driver_cost.read_cost(path[:-len("callees")] + "cost")["roots"])
    with gzip.open(path + ".gz", "rt", errors="replace") as f:
        out = parse(f, wanted)
    if not out["roots"]:
        raise ValueError("%s: no complete root call in the graph" % name)
    out.update(head)
    return out


def tracer_cost(graph, cost):
    """(T, t_in) in microseconds per hooked call: what the roots gained
    over the cost window per hooked call beneath them, and the shortest
    call of the graph; None when no root is in both windows."""
    gained = hooks = 0.0
    for name, (calls, us, desc) in graph["roots"].items():
        if name not in cost["roots"]:
            continue
        n, us_alone = cost["roots"][name]
        gained += us - calls * us_alone / n
        hooks += desc
    if hooks <= 0:
        return None
    return gained / hooks, graph["min_us"] or 0.0


def demangle(names):
    """{name: readable}: C++ symbols through c++filt without parameter
    lists, the module suffix kept; others as they are."""
    mangled = sorted({n for n in names if n.startswith("_Z")})
    out = {n: n for n in names}
    if not mangled:
        return out
    bare = [n.split(" ")[0] for n in mangled]
    try:
        res = subprocess.run(["c++filt", "-p"], input="\n".join(bare) + "\n",
                             capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return out
    for n, b, d in zip(mangled, bare, res):
        out[n] = d + n[len(b):]
    return out


def self_times(graph, T, t_in):
    """{(root, name, in a softirq): (calls, corrected self µs)} of one
    window. A root keeps its own t_in, as its duration in the cost window
    does: the self times of a root's tree then add up to that duration."""
    t_out = max(T - t_in, 0.0)
    return {(root, name, soft): (calls, self_us - (0.0 if name == root else calls * t_in) - children * t_out)
            for (root, name, soft), (calls, us, self_us, children) in graph["funcs"].items()}


def summary(graph, cost, ios):
    """One job's totals per I/O: (roots µs alone, roots µs hooked, hooked
    calls, T, t_in, own µs, kernel µs, softirq µs) or None without a
    tracer cost. Own and kernel leave out what ran in softirqs."""
    tc = tracer_cost(graph, cost)
    if tc is None:
        return None
    T, t_in = tc
    st = self_times(graph, T, t_in)
    own = sum(us for (r, n, q), (_, us) in st.items() if n.endswith(MODULE) and not q) / ios
    kern = sum(us for (r, n, q), (_, us) in st.items() if not n.endswith(MODULE) and not q) / ios
    soft = sum(us for (r, n, q), (_, us) in st.items() if q) / ios
    calls = sum(c for c, _, _ in graph["roots"].values())
    alone = sum(cost["roots"][n][1] / cost["roots"][n][0] * c
                for n, (c, _, _) in graph["roots"].items() if n in cost["roots"]) / ios
    hooked = sum(us for _, us, _ in graph["roots"].values()) / ios
    desc = sum(d for _, _, d in graph["roots"].values()) / ios
    return alone, hooked, desc, T, t_in, own, kern, soft


def by_function(graph, T, t_in, ios):
    """{name: (calls per I/O, self µs per I/O)} over every root, outside
    softirqs; the softirqs' whole time under SOFTIRQ_ROW."""
    out = {}
    for (_, name, soft), (calls, us) in self_times(graph, T, t_in).items():
        if soft:
            c, u = out.get(SOFTIRQ_ROW, (0.0, 0.0))
            out[SOFTIRQ_ROW] = (c + (calls / ios if name in SOFTIRQ else 0.0), u + us / ios)
            continue
        c, u = out.get(name, (0.0, 0.0))
        out[name] = (c + calls / ios, u + us / ios)
    return out


def tables(graphs, costs, shift=None):
    per_instr = None if shift is None else 1000.0 / (1 << shift)
    lines = ["| job | side | roots µs/I/O alone | hooked | hooked calls/I/O | T µs/call | t_in µs "
             "| driver's own code µs/I/O | kernel beneath it µs/I/O | softirqs inside µs/I/O |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    funcs = {}
    for job, title in jobs():
        for side in SIDES:
            g, c = graphs.get((side, job)), costs.get((side, job))
            if not g or not c:
                continue
            s = summary(g, c, g["ios"])
            if s is None:
                lines.append("| %s | %s | no root in both windows ||||||||" % (title, side))
                continue
            alone, hooked, desc, T, t_in, own, kern, soft = s
            lines.append("| %s | %s | %.2f | %.2f | %.1f | %.3f | %.3f | %.2f | %.2f | %.2f |"
                         % (title, side, alone, hooked, desc, T, t_in, own, kern, soft))
            funcs[(side, job)] = by_function(g, T, t_in, g["ios"])
    names = demangle({n for f in funcs.values() for n in f})
    for job, title in jobs():
        a, b = funcs.get(("A", job)), funcs.get(("B", job))
        if not a or not b:
            continue
        own_a = sum(us for n, (_, us) in a.items() if n.endswith(MODULE))
        own_b = sum(us for n, (_, us) in b.items() if n.endswith(MODULE))
        rows = []
        for n in set(a) | set(b):
            if n.endswith(MODULE):
                continue
            ca, ua = a.get(n, (0.0, 0.0))
            cb, ub = b.get(n, (0.0, 0.0))
            rows.append((ub - ua, n, ca, ua, cb, ub))
        rows.sort(key=lambda r: (-abs(r[0]), r[1]))
        head = "| function | A calls/I/O | A µs/I/O | B calls/I/O | B µs/I/O | B - A |"
        if per_instr:
            head += " instructions |"
        lines += ["", "%s: self time per I/O beneath the roots; the driver's own functions "
                  "together, then the kernel functions whose self time differs most" % title, "",
                  head, "|---|" + "---:|" * (head.count("|") - 2)]

        def row(name, ca, ua, cb, ub):
            r = "| %s | %.2f | %.2f | %.2f | %.2f | %+.2f |" % (name, ca, ua, cb, ub, ub - ua)
            if per_instr:
                r += " %+.0f |" % ((ub - ua) * per_instr)
            return r

        lines.append(row("ib_srpt's own code", sum(c for n, (c, _) in a.items() if n.endswith(MODULE)),
                         own_a, sum(c for n, (c, _) in b.items() if n.endswith(MODULE)), own_b))
        for d, n, ca, ua, cb, ub in rows[:TOP]:
            lines.append(row(n if n == SOFTIRQ_ROW else "`%s`" % names[n], ca, ua, cb, ub))
        for side, f in (("A", a), ("B", b)):
            own = sorted(((us, c, n) for n, (c, us) in f.items() if n.endswith(MODULE)), reverse=True)
            lines += ["", "%s, %s: ib_srpt's own functions by self time per I/O" % (title, side), "",
                      "| function | calls/I/O | µs/I/O |", "|---|---:|---:|"]
            for us, c, n in own[:TOP]:
                lines.append("| `%s` | %.2f | %.2f |" % (names[n][:-len(MODULE)], c, us))
    return lines


def load(d):
    graphs, errors = trace_jobs.read_each(d, SIDES, [j for j, _ in jobs()], "callees", read_callees)
    for (side, job), g in sorted(graphs.items()):
        if g["overrun"]:
            errors.append("%s-%s.callees: %d trace events lost" % (side, job, g["overrun"]))
    costs, cost_errors = trace_jobs.read_each(d, SIDES, [j for j, _ in jobs()], "cost", driver_cost.read_cost)
    return graphs, costs, errors + cost_errors


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip())
        return 2
    trace_jobs.select_run(sys.argv[1])
    graphs, costs, errors = load(sys.argv[1])
    print("\n".join(tables(graphs, costs, int(sys.argv[2]) if len(sys.argv) == 3 else None)))
    for e in errors:
        print("incomplete: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
