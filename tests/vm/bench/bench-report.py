#!/usr/bin/python3
"""Reduce the guest's bench results (fio JSON, perftest text) to a table with
medians and the B/A ratio per row, plus bench.csv, bench.json, bench.png.

usage: bench-report.py DIR B [--max-load CPUS] [--clock CLOCK] [--force] [--no-plot]
  DIR  the bench artifacts (r<round>-<A|B>-<lun>-<job>.json, r<round>-<tool>.txt,
       host-load.csv); B  the driver side B ran (port or intree)
Exit status: 0 a verdict (or --force), 1 the results are unusable,
3 figures printed but not a verdict (fewer than MIN_ROUNDS rounds, or the
host was loaded).

Two ratios per row: B/A of the medians, and the median of the per-round
ratios B_r/A_r ("paired"). A and B of one round run back to back, so the
paired ratio cancels load that drifts over the run (other guests, builds on
a shared host); when the two disagree, the host was not quiet.

Next to them, the raw rxe figures measured in the same guest on the SRP
login's path: the 128k read of each LUN and driver as a fraction of the
ceiling, and the QD1 4k read's p50 as a multiple of its pattern floor. The
ceiling is srp_pattern_bw's (r<round>-srp_pattern_bw.txt: SRP's READ
pattern, 128 KiB, run in the kernel); perftest's ib_write_bw is printed
beside it, and is the ceiling only for artifacts of the bench before
srp_pattern_bw. The floor is srp_pattern_bw's too, one command of 4 KiB
outstanding (r<round>-srp_pattern_lat.txt: its round trips' median);
perftest's (one 4 KiB RDMA WRITE plus two small SENDs: ib_write_lat + 2 x
ib_send_lat) is printed beside it, and is the floor only for artifacts
of the bench before srp_pattern_lat. A fraction above 1 means the
"ceiling" was not one, a multiple below 1 that the floor was not one; the
report says so instead of printing them as figures."""
import argparse, csv, glob, json, os, re, statistics, sys

MIN_ROUNDS = 7          # fewer: "not a verdict" (bench.sh's BENCH_MIN_ROUNDS refuses them unless forced)
DEFAULT_MAX_LOAD = 0.5  # CPUs; BENCH_MAX_LOAD, docs/testing-vm.md says why
EXIT_NOT_A_VERDICT = 3

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("dir")
ap.add_argument("bside", choices=["port", "intree"])
ap.add_argument("--max-load", type=float, default=DEFAULT_MAX_LOAD,
                help="CPUs other than the guest's above which a sample is LOADED (default %(default)s)")
ap.add_argument("--force", action="store_true",
                help="exit 0 although the figures are not a verdict (the marks stay)")
ap.add_argument("--clock", default="wall",
                help="the guest's clock: 'wall' (the host's) or 'icount shift=N' (QEMU -icount: "
                     "every time is 2^N ns per guest instruction executed; default %(default)s)")
ap.add_argument("--no-plot", action="store_true", help="write no bench.png")
args = ap.parse_args()
d, bside = args.dir, args.bside
if not re.fullmatch(r"wall|icount shift=([0-9]|10)", args.clock):
    sys.exit("bench-report: --clock must be 'wall' or 'icount shift=N' (N 0-10), not %r" % args.clock)
ICOUNT = args.clock != "wall"

# The fio jobs every round runs per side and LUN (bench's guest scenario
# names its results after them), and what each does.
FIO_JOBS = [  # fio job, label
    ("randread4k-qd32", "4k randread QD32"),
    ("randwrite4k-qd32", "4k randwrite QD32"),
    ("seqread128k-qd32", "128k seq read QD32"),
    ("randread4k-qd1", "4k randread QD1"),
]
JOB_LABEL = dict(FIO_JOBS)
JOBS = [  # key, fio job, field, label, unit, higher_is_better
    ("randread4k_qd32_iops", "randread4k-qd32", "read.iops", "fio " + JOB_LABEL["randread4k-qd32"], "IOPS", True),
    ("randwrite4k_qd32_iops", "randwrite4k-qd32", "write.iops", "fio " + JOB_LABEL["randwrite4k-qd32"], "IOPS", True),
    ("seqread128k_qd32_mibs", "seqread128k-qd32", "read.bw_mib", "fio " + JOB_LABEL["seqread128k-qd32"], "MiB/s", True),
    ("randread4k_qd1_p50_us", "randread4k-qd1", "read.p50_us", "fio " + JOB_LABEL["randread4k-qd1"] + " p50", "us", False),
    ("randread4k_qd1_p99_us", "randread4k-qd1", "read.p99_us", "fio " + JOB_LABEL["randread4k-qd1"] + " p99", "us", False),
]
# Every job on both LUNs: rd_mcp and iblock on a memory-backed null_blk.
LUNS = [("rd", "rd_mcp"), ("nb", "iblock/null_blk")]
rows = [("%s_%s" % (l, key), "%s-%s" % (l, job), field, "%s [%s]" % (label, name), unit, hib)
        for l, name in LUNS for key, job, field, label, unit, hib in JOBS]


def fio_value(path, field):
    j = json.load(open(path))["jobs"][0]
    part, what = field.split(".")
    p = j[part]
    if what == "iops":
        return p["iops"]
    if what == "bw_mib":
        return p["bw"] / 1024.0  # fio's bw is KiB/s
    # Total latency (submission + completion), from fio's lat_percentiles=1.
    # clat alone leaves out the submission, and in one guest the initiator
    # and the target share the CPUs: a change can move target work from
    # one into the other (issue 16's post sections, since removed: clat
    # 0.56 of in-tree, total 0.93). A report without lat_ns percentiles is
    # refused.
    pct = p.get("lat_ns", {}).get("percentile")
    if not pct:
        sys.exit("bench-report: %s has no lat_ns percentiles (fio without lat_percentiles=1)" % path)
    return pct["50.000000" if what == "p50_us" else "99.000000"] / 1000.0


def by_round(pattern):
    """{round number: path} of the files matching DIR/pattern, whose names
    start with r<round>- (numeric order: r10 after r9, not after r1)."""
    out = {}
    for f in glob.glob(os.path.join(d, pattern)):
        m = re.match(r"r(\d+)-", os.path.basename(f))
        if m:
            out[int(m.group(1))] = f
    return dict(sorted(out.items()))


def median(xs):
    return statistics.median(xs) if xs else None


def ratio(num, den, digits=3):
    return round(num / den, digits) if num is not None and den else None


def fmt(x, spec="%.3f"):
    return "n/a" if x is None else spec % x


def paired_row(key, label, unit, higher_is_better, rounds, vals):
    """One A/B row: the per-round values of each side (vals["A"], vals["B"],
    in the order of rounds), their medians, B/A of the medians and the
    median of the per-round ratios B_r/A_r (paired)."""
    ma, mb = median(vals["A"]), median(vals["B"])
    paired = [b / a for a, b in zip(vals["A"], vals["B"]) if a]
    return dict(key=key, label=label, unit=unit, higher_is_better=higher_is_better, rounds=rounds,
                A=vals["A"], B=vals["B"], median_A=ma, median_B=mb, ratio=ratio(mb, ma),
                paired_ratio=round(median(paired), 3) if paired else None)


result = {"A": "intree", "B": bside, "clock": args.clock, "rows": []}
# The initiator's ib_srp parameters as the guest read them after its first
# login (initiator.txt, one "name=value" per word): use_imm_data decides
# whether a 4k write's data comes with the command or by RDMA READ, which
# moves the write rows. None: artifacts of an older bench.
INITIATOR = None
if os.path.exists(os.path.join(d, "initiator.txt")):
    with open(os.path.join(d, "initiator.txt")) as f:
        INITIATOR = " ".join(f.read().split())
result["initiator"] = INITIATOR
rounds = None
for key, job, field, label, unit, hib in rows:
    files = {side: by_round("r*-%s-%s.json" % (side, job)) for side in "AB"}
    if not files["A"] or not files["B"]:
        sys.exit("bench-report: missing fio results for " + job)
    if files["A"].keys() != files["B"].keys():
        sys.exit("bench-report: %s has rounds %s on A and %s on B" % (job, list(files["A"]), list(files["B"])))
    if rounds is not None and list(files["A"]) != rounds:
        sys.exit("bench-report: %s has rounds %s, other jobs %s" % (job, list(files["A"]), rounds))
    rounds = list(files["A"])
    vals = {side: [round(fio_value(files[side][r], field), 2) for r in rounds] for side in "AB"}
    result["rows"].append(paired_row(key, label, unit, hib, rounds, vals))
nrounds = len(rounds)
result["rounds"] = nrounds

# The guest's CPU time per I/O, per fio job: from the job's TAG.cpu (the
# aggregate /proc/stat 'cpu' line before and after it, and the CPU count)
# and its IOPS: busy share x CPUs / IOPS. busy = user + nice + system + irq
# + softirq + steal; idle and iowait are not busy. The counters span the
# whole job (start-up and 2 s ramp included), the IOPS its measured
# window: the same bias on A and B. One guest runs the initiator and the
# target, so the figure is theirs together; the initiator's share is the
# same on both sides, so B/A moves with the target's CPU per I/O (and
# rxe's work on its behalf) but understates it. Artifacts of an older
# bench have no TAG.cpu: no such rows. Some but not all: refused.
BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system [idle iowait] irq softirq steal


def busy_cpus(cpu_path):
    """The CPUs the guest kept busy between the two counters of TAG.cpu
    (bench-lib.sh's cpu_counters): busy share x CPU count."""
    info = {}
    for line in open(cpu_path):
        key, _, rest = line.partition(" ")
        info[key] = rest.split()
    try:
        ncpu = int(info["ncpu"][0])
        before = [int(x) for x in info["before"][1:]]  # drop the "cpu" label
        after = [int(x) for x in info["after"][1:]]
    except (KeyError, IndexError, ValueError):
        sys.exit("bench-report: %s is not 'ncpu N', 'before cpu ...', 'after cpu ...'" % cpu_path)
    delta = [b - a for a, b in zip(before[:8], after[:8])]
    total = sum(delta[:8])
    if ICOUNT and len(delta) == 8:
        # Under icount the guest's iowait runs ahead of its clock (seen:
        # 2803 ticks of iowait in a 6 s job, the other fields adding up to
        # 6 s): its idle accounting measures time across the clock's warps
        # over idle periods. The busy and idle fields stay consistent.
        total -= delta[4]
    if len(delta) < 8 or total <= 0 or ncpu <= 0:
        sys.exit("bench-report: %s: no CPU time between its two counters" % cpu_path)
    return sum(delta[i] for i in BUSY_FIELDS) / total * ncpu


def cpu_us_per_io(cpu_path, fio_path):
    cpus = busy_cpus(cpu_path)
    j = json.load(open(fio_path))["jobs"][0]
    iops = j["read"]["iops"] + j["write"]["iops"]
    if iops <= 0:
        sys.exit("bench-report: %s did no I/O" % fio_path)
    return cpus / iops * 1e6


def counter_rows(ext, what, jobs, value, key, label, unit, higher_is_better):
    """Rows from the counters the guest wrote around each fio job
    (r<N>-<side>-<lun>-<job>.<ext>), per LUN and job of jobs: value(counter
    file, the job's fio JSON) per round and side. None of them: no rows
    (False). Some but not all rounds: refused, naming what."""
    if not glob.glob(os.path.join(d, "r*-[AB]-*." + ext)):
        return False
    for l, name in LUNS:
        for job, job_label in jobs:
            vals = {}
            for side in "AB":
                files = by_round("r*-%s-%s-%s.%s" % (side, l, job, ext))
                if list(files) != rounds:
                    sys.exit("bench-report: %s-%s has %s for rounds %s on %s, fio results for %s"
                             % (l, job, what, list(files), side, rounds))
                jsons = by_round("r*-%s-%s-%s.json" % (side, l, job))
                vals[side] = [round(value(files[r], jsons[r]), 1) for r in rounds]
            result["rows"].append(paired_row("%s_%s_%s" % (l, job.replace("-", "_"), key),
                                             "%s, %s [%s]" % (label, job_label, name), unit, higher_is_better,
                                             rounds, vals))
    return True


result["cpu_rows"] = counter_rows("cpu", "CPU counters", FIO_JOBS, cpu_us_per_io, "cpu_us_per_io",
                                  "guest CPU per I/O", "us", False)


# The SRP disk's mean request in the 128 KiB read jobs: the sectors over
# the requests the initiator's disk completed between the job's two
# /sys/block/<disk>/stat readings (TAG.disk), in KiB, start-up and ramp
# included. A 128 KiB read reaches the target as one SCSI command only
# when the block layer neither splits nor merges it, and every command
# costs its own work on both sides: where this figure differs between A
# and B, the 128k rows and their CPU per I/O differ without any change of
# the target's cost per command (docs/data-path.md, "The send CQ in
# softirq"). The 4 KiB jobs are always 4 KiB: no rows. Artifacts of an
# older bench have no TAG.disk: no such rows. Some but not all: refused.
DISK_JOBS = [("seqread128k-qd32", "128k seq read QD32")]


def disk_kib_per_request(path):
    """KiB per request the disk completed between the two readings of
    TAG.disk ('before <stat>', 'after <stat>': reads 0, read sectors 2,
    writes 4, written sectors 6)."""
    info = {}
    for line in open(path):
        key, _, rest = line.strip().partition(" ")
        info[key] = rest.split()
    try:
        before = [int(x) for x in info["before"]]
        after = [int(x) for x in info["after"]]
    except (KeyError, ValueError):
        sys.exit("bench-report: %s is not 'before <disk stat>', 'after <disk stat>'" % path)
    if min(len(before), len(after)) < 7:
        sys.exit("bench-report: %s: a disk stat line of fewer than 7 fields" % path)
    delta = [b - a for a, b in zip(before, after)]
    requests = delta[0] + delta[4]
    if requests <= 0:
        sys.exit("bench-report: %s: no request completed between its two readings" % path)
    return (delta[2] + delta[6]) * 512 / 1024.0 / requests


result["disk_rows"] = counter_rows("disk", "disk counters", DISK_JOBS, lambda disk, _: disk_kib_per_request(disk),
                                   "disk_kib_per_request", "SRP disk's KiB per request", "KiB", True)


def perftest(pattern, cols):
    """{round: [values of cols]} from perftest's text reports: the first
    line of numbers after the '#bytes' header (perftest prints one summary
    line, all QPs together)."""
    out = {}
    for r, f in by_round(pattern).items():
        lines = open(f).read().splitlines()
        for i, l in enumerate(lines):
            if l.strip().startswith("#bytes"):
                for nxt in lines[i + 1:]:
                    nums = nxt.split()
                    if nums and re.match(r"^\d", nums[0]):
                        out[r] = [float(nums[c]) for c in cols]
                        break
                break
    return out


def pattern_results(pattern, keys):
    """{round: ([figures of keys], guest CPUs busy or None)} from
    srp_pattern_bw's result lines ("mibs=... lat_p50_us=...", bench-lib.sh's
    pattern_bw) and the CPU counters beside them (TAG.cpu; none: no CPU
    figure, as for the bench before dd8eb79, which put its own cpus= on the
    result line; some rounds but not all: refused). A result without one
    of keys: refused."""
    out = {}
    for r, f in by_round(pattern).items():
        kv = dict(w.split("=", 1) for w in open(f).read().split() if "=" in w)
        for k in keys:
            if k not in kv:
                sys.exit("bench-report: %s has no %s= figure" % (f, k))
        cpu = f[:-len(".txt")] + ".cpu"
        out[r] = ([float(kv[k]) for k in keys], round(busy_cpus(cpu), 2) if os.path.exists(cpu) else None)
    with_cpu = [r for r, v in out.items() if v[1] is not None]
    if with_cpu and len(with_cpu) != len(out):
        sys.exit("bench-report: %s has CPU counters for rounds %s only, results for %s"
                 % (pattern, sorted(with_cpu), sorted(out)))
    return out


pbw = pattern_results("r*-srp_pattern_bw.txt", ["mibs"])
plat = pattern_results("r*-srp_pattern_lat.txt", ["lat_p50_us", "lat_p99_us"])
# perftest's "MB/sec" is MiB/s (its --report_gbits help: MiB = 2^20 bytes).
bw = perftest("r*-ib_write_bw.txt", [3])           # BW average [MB/sec]
wlat = perftest("r*-ib_write_lat.txt", [4])        # t_typical [usec] (the median)
slat = perftest("r*-ib_send_lat.txt", [4, 7])      # t_typical, 99% percentile [usec]
# Under icount the guest has one vCPU, on which perftest's busy-polling
# client and server and rxe take turns once per scheduler tick (ib_send_lat
# 4000 us typical at HZ=250): bench.sh runs no perftest then (srp_pattern_bw,
# which polls nothing, it runs on both clocks).
PERFTEST_SKIPPED = ICOUNT and not bw and not slat and not wlat
if not PERFTEST_SKIPPED and (not bw or not slat):
    sys.exit("bench-report: missing perftest results (r*-ib_write_bw.txt, r*-ib_send_lat.txt)")
raw = []


def raw_row(key, label, unit, per_round):
    r = dict(key=key, label=label, unit=unit, rounds=list(per_round), values=list(per_round.values()),
             median=round(median(list(per_round.values())), 2))
    raw.append(r)
    return r


def cpus_row(key, label, results):
    """The guest CPUs busy over a srp_pattern_bw run, per round; none for
    artifacts without its CPU counters."""
    cpus = {r: v[1] for r, v in results.items() if v[1] is not None}
    if cpus:
        raw_row(key, label, "CPUs", cpus)


ceiling = floor = None
if pbw:
    if bw and set(pbw) != set(bw):
        sys.exit("bench-report: srp_pattern_bw ran in rounds %s, ib_write_bw in %s" % (sorted(pbw), sorted(bw)))
    ceiling = raw_row("rxe_srp_pattern_bw_128k_mibs", "raw ceiling: SRP READ pattern 128 KiB, kernel", "MiB/s",
                      {r: v[0][0] for r, v in pbw.items()})
    cpus_row("rxe_srp_pattern_bw_cpus", "raw ceiling's guest CPUs busy", pbw)
if plat:
    if set(plat) != set(pbw):
        sys.exit("bench-report: srp_pattern_lat ran in rounds %s, srp_pattern_bw in %s" % (sorted(plat), sorted(pbw)))
    floor = raw_row("rxe_srp_pattern_lat_qd1_4k_p50_us", "pattern floor: SRP READ 4 KiB QD1 p50, kernel", "us",
                    {r: v[0][0] for r, v in plat.items()})
    raw_row("rxe_srp_pattern_lat_qd1_4k_p99_us", "pattern floor's p99", "us", {r: v[0][1] for r, v in plat.items()})
    # At QD1 the link's round trip alone: how much of the guest one
    # outstanding command keeps busy (rxe, both pollers), beside the
    # ceiling's figure for many.
    cpus_row("rxe_srp_pattern_lat_cpus", "pattern floor's guest CPUs busy", plat)
if not PERFTEST_SKIPPED:
    row = raw_row("rxe_write_bw_128k_mibs", "raw ib_write_bw 128 KiB" if pbw else "raw ceiling: ib_write_bw 128 KiB",
                  "MiB/s", {r: v[0] for r, v in bw.items()})
    ceiling = ceiling or row
    raw_row("rxe_send_lat_typ_us", "raw ib_send_lat typical", "us", {r: v[0] for r, v in slat.items()})
    raw_row("rxe_send_lat_p99_us", "raw ib_send_lat p99", "us", {r: v[1] for r, v in slat.items()})
if wlat:
    raw_row("rxe_write_lat_4k_typ_us", "raw ib_write_lat 4 KiB typical", "us", {r: v[0] for r, v in wlat.items()})
    # One QD1 4k read on the wire: SRP_CMD (SEND), the data (RDMA WRITE),
    # SRP_RSP (SEND), one after the other; per round, from that round's runs.
    per_round = {r: wlat[r][0] + 2 * slat[r][0] for r in wlat if r in slat}
    if per_round:
        row = raw_row("rxe_pattern_floor_qd1_4k_us", "%s: write 4 KiB + 2 x send" % ("perftest floor" if plat else "pattern floor"),
                      "us", per_round)
        floor = floor or row
result["raw_rxe"] = raw
result["ceiling_key"] = ceiling["key"] if ceiling else None
result["floor_key"] = floor["key"] if floor else None
# ib_srp's channel count per login (the ceiling's QPs are twice that).
result["srp_channels"] = sorted({int(open(f).read().split()[0]) for f in glob.glob(os.path.join(d, "r*-[AB]-srp_ch_count.txt"))})
cmds_file = os.path.join(d, "raw-commands.txt")
result["raw_commands"] = open(cmds_file).read().splitlines() if os.path.exists(cmds_file) else []

# SRP against the raw figures, per LUN and driver: medians over medians.
NOT_A_CEILING = "ceiling below SRP: not a ceiling"
NOT_A_FLOOR = "floor above SRP: not a floor"
rowmap = {r["key"]: r for r in result["rows"]}
vs_raw = []
for l, name in LUNS if ceiling else []:
    seq, qd1 = rowmap[l + "_seqread128k_qd32_mibs"], rowmap[l + "_randread4k_qd1_p50_us"]
    for side in "AB":
        frac = ratio(seq["median_" + side], ceiling["median"])
        mult = ratio(qd1["median_" + side], floor["median"] if floor else None, 2)
        vs_raw.append(dict(lun=name, side=side, driver="intree" if side == "A" else bside,
                           seqread128k_of_ceiling=frac, ceiling_ok=frac is not None and frac <= 1,
                           qd1_p50_x_floor=mult, floor_ok=mult is None or mult >= 1))
result["vs_raw"] = vs_raw


def host_load(path, max_load):
    """The gate's load average and, per 10 s interval, the CPUs' worth used
    by everything but the guest: (busy - guest ticks) / (total ticks / ncpu)."""
    if not os.path.exists(path):
        return None
    gate, samples, prev = None, [], None
    for row in csv.DictReader(open(path)):
        if row["phase"] == "gate":
            gate = float(row["load1"])
            continue
        cur = {k: int(row[k]) for k in ("busy_ticks", "total_ticks", "ncpu", "guest_ticks")}
        cur["epoch"], cur["load1"] = int(row["epoch"]), float(row["load1"])
        if prev and cur["total_ticks"] > prev["total_ticks"]:
            busy = cur["busy_ticks"] - prev["busy_ticks"]
            guest = cur["guest_ticks"] - prev["guest_ticks"]
            other = (busy - guest) * cur["ncpu"] / (cur["total_ticks"] - prev["total_ticks"])
            samples.append(dict(epoch=cur["epoch"], load1=cur["load1"], other_cpus=round(max(other, 0.0), 3)))
        prev = cur
    others = [s["other_cpus"] for s in samples]
    return dict(max_load=max_load, gate_load1=gate, samples=samples,
                max_other_cpus=max(others) if others else None,
                median_other_cpus=round(median(others), 3) if others else None,
                loaded_samples=sum(1 for o in others if o > max_load))


load = host_load(os.path.join(d, "host-load.csv"), args.max_load)
result["host_load"] = load

# The marks: figures that are not a verdict say so, with why.
marks = []
if nrounds < MIN_ROUNDS:
    marks.append("not a verdict: %d rounds (a verdict needs >= %d)" % (nrounds, MIN_ROUNDS))
# Under icount the host's load does not reach the figures: an A/A run
# with 1.13 CPUs of other load (median; 1.51 max) gave paired ratios of
# 0.996-1.003 on every row but fio's bucketed QD1 p99 (0.986) (3 Dec
# 2026, docs/bench/2026-12-03-icount-*).
# The load is still recorded and printed, not marked.
LOAD_COUNTS = not ICOUNT
if LOAD_COUNTS and load:
    if load["gate_load1"] is not None and load["gate_load1"] >= args.max_load:
        marks.append("LOADED: not a verdict (1-minute load average %.2f before the boot, >= %.2f)" % (load["gate_load1"], args.max_load))
    if not load["samples"]:
        marks.append("not a verdict: host-load.csv has no load samples of the run")
    if load["loaded_samples"]:
        marks.append("LOADED: not a verdict (other load above %.2f CPUs in %d of %d 10 s samples, up to %.2f CPUs)"
                     % (args.max_load, load["loaded_samples"], len(load["samples"]), load["max_other_cpus"]))
# The 128k rows compare targets only where both saw the same commands: the
# SRP disk's KiB per request (median over the rounds) of A and B more than
# STREAM_TOLERANCE apart means the block layer split or merged one side's
# reads otherwise (the bench before huge-page buffers and nomerges: in-tree
# 210-332 KiB, the port 67-68 KiB in one boot, 5 Dec 2026).
STREAM_TOLERANCE = 0.02
for r in result["rows"]:
    if r["key"].endswith("_disk_kib_per_request") and r["median_A"] and \
            abs(r["median_B"] / r["median_A"] - 1) > STREAM_TOLERANCE:
        marks.append("not a verdict: the 128k rows compare different command streams (%s: A %s, B %s)"
                     % (r["label"], fmt(r["median_A"], "%.1f"), fmt(r["median_B"], "%.1f")))
result["marks"] = marks
result["verdict"] = not marks
result["forced"] = args.force

# table
W = 133
for m in marks:
    print("MARK: " + m)
print()
print("%-50s %-6s %12s %12s %8s %8s   %s" % ("metric", "unit", "A intree", "B " + bside, "B/A", "paired", "rounds A | B"))
print("-" * W)
for r in result["rows"]:
    print("%-50s %-6s %12.1f %12.1f %8s %8s   %s | %s" % (r["label"], r["unit"], r["median_A"], r["median_B"], fmt(r["ratio"]), fmt(r["paired_ratio"]),
          " ".join("%.0f" % x for x in r["A"]), " ".join("%.0f" % x for x in r["B"])))
print()
PERFTEST_WHY = "one vCPU: perftest's polling client and server and rxe take turns per scheduler tick"
if PERFTEST_SKIPPED and not pbw:
    print("raw rxe: not measured under icount (%s)" % PERFTEST_WHY)
else:
    print("raw rxe, %s over RDMA/CM on the SRP login's path (median of rounds | per round):"
          % ("perftest" if not pbw else "srp_pattern_bw" if PERFTEST_SKIPPED else "srp_pattern_bw and perftest"))
if PERFTEST_SKIPPED and pbw:
    print("  perftest: not run under icount (%s)%s" % (PERFTEST_WHY, "" if floor else "; no pattern floor"))
for r in raw:
    print("  %-48s %-6s %12.1f   %s" % (r["label"], r["unit"], r["median"], " ".join("%.1f" % x for x in r["values"])))
for c in result["raw_commands"]:
    print("  ran: " + c)
if not result["raw_commands"] and not PERFTEST_SKIPPED:
    print("  (commands not recorded: artifacts of an older bench)")
if result["srp_channels"]:
    print("  SRP logins had %s RC channel(s)" % "/".join(map(str, result["srp_channels"])))
if floor is None and not PERFTEST_SKIPPED:
    print("  pattern floor: n/a (no ib_write_lat results: artifacts of an older bench)")
print()
if vs_raw:
    print("SRP against the raw figures (medians): 128k read / ceiling; QD1 p50 / pattern floor")
    print("  %-18s %-8s %20s %16s" % ("LUN", "driver", "128k read / ceiling", "QD1 p50 / floor"))
for v in vs_raw:
    why = ([] if v["ceiling_ok"] else [NOT_A_CEILING]) + ([] if v["floor_ok"] else [NOT_A_FLOOR])
    print(("  %-18s %-8s %20s %16s   %s" % (v["lun"], v["driver"], fmt(v["seqread128k_of_ceiling"]),
                                           fmt(v["qd1_p50_x_floor"], "%.2fx"), "; ".join(why))).rstrip())
if any(not v["ceiling_ok"] for v in vs_raw):
    print("NOTE: %s: SRP moved more than %s; the fractions above 1 bound nothing."
          % (NOT_A_CEILING, "srp_pattern_bw's 128 KiB READ pattern" if pbw else "perftest's 128 KiB RDMA WRITE"))
print()
if load is None:
    print("host load: not recorded (artifacts of an older bench)")
else:
    print("host load: 1-minute load average %s before the boot; other load (CPUs used by all but the guest) median %s, max %s in %d 10 s samples; threshold %.2f"
          % (fmt(load["gate_load1"], "%.2f"), fmt(load["median_other_cpus"], "%.2f"), fmt(load["max_other_cpus"], "%.2f"), len(load["samples"]), args.max_load))
print("initiator: %s" % (INITIATOR + " (as loaded; the same on A and B)" if INITIATOR
                         else "not recorded (artifacts of an older bench)"))
if ICOUNT:
    print("guest clock: %s: every time, rate and CPU share above is in the guest's instructions (2^N ns each,"
          " one vCPU, idle time skipped), not in host seconds; the host's load does not count" % args.clock)
print("(medians of %d rounds; paired = median of the per-round B/A; >1 is better for IOPS/MiB/s, <1 is better for latency and CPU per I/O)" % nrounds)
if result["cpu_rows"]:
    print("(guest CPU per I/O: initiator and target together, in one guest; the initiator's share is the same on A and B)")
else:
    print("guest CPU per I/O: not recorded (artifacts of an older bench)")
if result["disk_rows"]:
    print("(SRP disk's KiB per request: fio's 128 KiB reads as the initiator's disk completed them; below 128 split,"
          " above merged: each request is one SCSI command)")
if bside == "intree":
    print("NOTE: B ran the in-tree driver again (BENCH_B=intree): B/A shows run-to-run noise only.")
for m in marks:
    print("MARK: " + m)
if marks and args.force:
    print("MARK: forced (BENCH_FORCE=1 / --force): exit status 0 despite the marks")

with open(os.path.join(d, "bench.json"), "w") as f:
    json.dump(result, f, indent=1)
with open(os.path.join(d, "bench.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["metric", "unit", "side", "driver", "median", "ratio_B_over_A", "paired_ratio", "values"])
    for r in result["rows"]:
        w.writerow([r["key"], r["unit"], "A", "intree", r["median_A"], "", "", " ".join(map(str, r["A"]))])
        w.writerow([r["key"], r["unit"], "B", bside, r["median_B"], r["ratio"], r["paired_ratio"], " ".join(map(str, r["B"]))])
    for r in raw:
        w.writerow([r["key"], r["unit"], "raw", "rxe", r["median"], "", "", " ".join(map(str, r["values"]))])
    for v in vs_raw:
        lun = v["lun"].split("/")[0]
        w.writerow(["%s_seqread128k_of_ceiling" % lun, "fraction", v["side"], v["driver"], v["seqread128k_of_ceiling"], "", "",
                    "" if v["ceiling_ok"] else NOT_A_CEILING])
        w.writerow(["%s_randread4k_qd1_p50_x_floor" % lun, "x", v["side"], v["driver"], v["qd1_p50_x_floor"], "", "",
                    "" if v["floor_ok"] else NOT_A_FLOOR])
    if load:
        w.writerow(["host_gate_loadavg1", "load", "host", "", load["gate_load1"], "", "", ""])
        w.writerow(["host_other_load_cpus", "CPUs", "host", "", load["median_other_cpus"], "", "",
                    " ".join(str(s["other_cpus"]) for s in load["samples"])])
        w.writerow(["host_loadavg1", "load", "host", "", median([s["load1"] for s in load["samples"]]), "", "",
                    " ".join(str(s["load1"]) for s in load["samples"])])
    w.writerow(["guest_clock", "", "", "", args.clock, "", "", ""])
    w.writerow(["initiator", "", "", "", INITIATOR or "", "", "", ""])
    w.writerow(["verdict", "", "", "", "yes" if not marks else "no", "", "", "; ".join(marks)])

if not args.no_plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    items = result["rows"] + raw
    ncols = 5
    fig, axes = plt.subplots((len(items) + ncols - 1) // ncols, ncols, figsize=(20, 3.7 * ((len(items) + ncols - 1) // ncols)))
    for ax, r in zip(axes.flat, items):
        if "A" in r:
            for i, side in enumerate("AB"):
                ys = r[side]
                ax.bar(i, statistics.median(ys), color=["tab:blue", "tab:orange"][i], alpha=0.6)
                ax.scatter([i] * len(ys), ys, color="k", s=12, zorder=3)
            ax.set_xticks([0, 1], ["A intree", "B " + bside])
            ax.set_title("%s\nB/A = %s, paired %s" % (r["label"], fmt(r["ratio"]), fmt(r["paired_ratio"])), fontsize=9)
        else:
            ax.bar(0, r["median"], color="tab:green", alpha=0.6)
            ax.scatter([0] * len(r["values"]), r["values"], color="k", s=12, zorder=3)
            ax.set_xticks([0], ["raw rxe"])
            ax.set_title(r["label"], fontsize=9)
        ax.set_ylabel(r["unit"])
    for ax in list(axes.flat)[len(items):]:
        ax.axis("off")
    title = "ib_srpt under QEMU TCG + rdma_rxe: A = in-tree, B = %s (bars = median, dots = rounds)" % bside
    if ICOUNT:
        title += "; guest clock: %s (instructions, not host seconds)" % args.clock
    if INITIATOR:
        title += "; initiator: " + INITIATOR
    if marks:
        title += "\n" + "; ".join(marks)
    fig.suptitle(title, color="red" if marks else "black")
    fig.tight_layout()
    fig.savefig(os.path.join(d, "bench.png"), dpi=90)
print("wrote %s/bench.{csv,json%s}" % (d, "" if args.no_plot else ",png"))
if marks and not args.force:
    sys.exit(EXIT_NOT_A_VERDICT)
