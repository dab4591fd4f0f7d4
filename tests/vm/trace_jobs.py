"""The fio jobs of `make bench-trace`, for the scripts that read its files
(bench-breakdown.py, call_census.py, driver_cost.py): both LUNs, 4k randread and
randwrite, QD1 and QD32. The guest's each_job
(tests/vm/guest/scenarios/bench-trace.sh) runs the same matrix and names
its files <side>-<lun>-<rw>-qd<N>."""
import os

# (file part, name in the report)
LUNS = (("rd", "rd_mcp"), ("nb", "iblock/null_blk"))
# (fio rw, SCSI command, heading in the report)
JOBS = (("randread", "read", "4k randread (READ)"), ("randwrite", "write", "4k randwrite (WRITE)"))
DEPTHS = (1, 32)


def each():
    """(lun, lun name, rw, command, qd) per job, LUN by LUN, then by
    direction, then by depth: the order of the guest's windows."""
    for lun, lun_name in LUNS:
        for rw, command, _ in JOBS:
            for qd in DEPTHS:
                yield lun, lun_name, rw, command, qd


def columns():
    """(file part, column heading) per job, in the order of the reports'
    per-job columns; the heading keeps the LUN's first word ("iblock") to
    keep the columns narrow."""
    return tuple(("%s-%s-qd%d" % (lun, rw, qd), "%s %s QD%d" % (name.split("/")[0], command, qd))
                 for lun, name, rw, command, qd in each())


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
