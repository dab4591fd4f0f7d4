"""The fio jobs of `make bench-trace`, for the scripts that read its files
(bench-breakdown.py, call_census.py, driver_cost.py): both LUNs, 4k randread and
randwrite, QD1 and QD32. The guest's each_job
(tests/vm/guest/scenarios/bench-trace.sh) runs the same matrix and names
its files <side>-<lun>-<rw>-qd<N>. A run with BT_JOBS ran only some of
them (host-load.txt's 'jobs' line): select() restricts each() and
columns() to those, so that the reports neither ask for the files of a job
that did not run nor show it."""
import os

# (file part, name in the report)
LUNS = (("rd", "rd_mcp"), ("nb", "iblock/null_blk"))
# (fio rw, SCSI command, heading in the report)
JOBS = (("randread", "read", "4k randread (READ)"), ("randwrite", "write", "4k randwrite (WRITE)"))
DEPTHS = (1, 32)


# the jobs select() kept (file parts), None: all of them
_selected = None


def name(lun, rw, qd):
    """A job's file part: <lun>-<rw>-qd<N>, e.g. rd-randread-qd32."""
    return "%s-%s-qd%d" % (lun, rw, qd)


def names():
    """Every job's file part, in the order of the guest's windows."""
    return tuple(name(lun, rw, qd) for lun, _ in LUNS for rw, _, _ in JOBS for qd in DEPTHS)


def select(spec):
    """Restricts each() and columns() to the jobs of SPEC, their file parts
    separated by spaces or commas (bench-trace.sh's BT_JOBS, as recorded in
    host-load.txt); empty or None: every job. ValueError names a job that
    is not in the matrix."""
    global _selected
    wanted = [w for w in (spec or "").replace(",", " ").split() if w]
    unknown = [w for w in wanted if w not in names()]
    if unknown:
        raise ValueError("unknown bench-trace job(s) %s; the jobs are %s" % (" ".join(unknown), " ".join(names())))
    _selected = frozenset(wanted) if wanted else None


def select_run(d):
    """select() the jobs a bench-trace directory D ran: its host-load.txt's
    'jobs' line (bench-trace.sh writes BT_JOBS there); every job when the
    line or the file is missing (runs before BT_JOBS)."""
    spec = ""
    p = os.path.join(d, "host-load.txt")
    if os.path.exists(p):
        with open(p) as f:
            for line in f:
                k, _, v = line.strip().partition(" ")
                if k == "jobs":
                    spec = v
    select(spec)


def each():
    """(lun, lun name, rw, command, qd) per job, LUN by LUN, then by
    direction, then by depth: the order of the guest's windows; only the
    selected jobs (select())."""
    for lun, lun_name in LUNS:
        for rw, command, _ in JOBS:
            for qd in DEPTHS:
                if _selected is None or name(lun, rw, qd) in _selected:
                    yield lun, lun_name, rw, command, qd


def columns():
    """(file part, column heading) per job, in the order of the reports'
    per-job columns; the heading keeps the LUN's first word ("iblock") to
    keep the columns narrow."""
    return tuple((name(lun, rw, qd), "%s %s QD%d" % (lun_name.split("/")[0], command, qd))
                 for lun, lun_name, rw, command, qd in each())


def read_each(d, sides, jobs, ext, read):
    """({(side, job): read(path)}, errors) for DIR's <side>-<job>.<ext>
    files: a missing file, or one read() refuses with ValueError, is named
    in errors and left out."""
    out, errors = {}, []
    for side in sides:
        for job in jobs:
            path = os.path.join(d, "%s-%s.%s" % (side, job, ext))
            if not os.path.exists(path):
                errors.append("missing " + os.path.basename(path))
                continue
            try:
                out[(side, job)] = read(path)
            except ValueError as e:
                errors.append(str(e))
    return out, errors


if __name__ == "__main__":
    # trace_jobs.py check SPEC: bench-trace.sh's check of BT_JOBS; prints
    # the jobs SPEC selects, space-separated (every job for an empty SPEC),
    # or the error and exits 2.
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        print("usage: trace_jobs.py check SPEC")
        sys.exit(2)
    try:
        select(sys.argv[2])
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    print(" ".join(job for job, _ in columns()))
