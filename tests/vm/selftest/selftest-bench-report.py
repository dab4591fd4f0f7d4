#!/usr/bin/python3
"""Host-side self-test of tests/vm/bench/bench-report.py, no guest: synthetic bench
artifacts (fio JSON with the fields the report reads, perftest reports in
perftest 4.5's text format, host-load.csv as tests/vm/bench/bench.sh writes it)
with known numbers, and the report's output checked against them: medians,
B/A and paired ratios, the raw ceiling fraction and pattern-floor multiple,
"other load" from the counters, the 7-round minimum, the LOADED and forced
marks with their exit status, the "ceiling below SRP" mark, the guest's
CPU time per I/O from the /proc/stat counters around each fio job, the
guest clock (wall, or QEMU icount: then no perftest reports, and iowait
left out of the CPU rows) named in every output, and an
artifacts directory of the older layouts (no ib_write_lat, no host-load.csv,
no CPU counters; no srp_pattern_bw results, when ib_write_bw is the
ceiling).
Runs in `make check` (suite harness). BENCH_REPORT=path checks another copy
of the report (how the test was shown to fail on a broken one).
Prints one line per check and 'bench-report: N passed, N failed'."""
import csv, json, os, shutil, subprocess, sys, tempfile, traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.environ.get("BENCH_REPORT", os.path.join(os.path.dirname(HERE), "bench", "bench-report.py"))
PY = "/usr/bin/python3"  # Debian's python with matplotlib, as bench.sh runs it
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from selftest_check import Checks  # noqa: E402

CHECKS = Checks()
check = CHECKS.check


def close(a, b, tol=0.0015):
    return a is not None and b is not None and abs(a - b) <= tol


# Per-round base values of one row; every job and LUN derives its own from
# them with a distinct factor (below), so that a row read from the wrong
# field or LUN shows.
A_BASE = [100, 200, 300, 400, 500, 600, 700]   # median 400
B_BASE = [300, 100, 330, 200, 1000, 650, 420]  # median 330
# B/A of the medians: 330/400 = 0.825. Per-round B/A: 3.0 0.5 1.1 0.5 2.0
# 1.0833 0.6 -> median 1.0833 (paired); the two differ on purpose.
RATIO, PAIRED = 0.825, 1.083
LUN_FACTOR = {"rd": 1.0, "nb": 1.5}
# The raw rxe figures per round: srp_pattern_bw (the ceiling) and perftest.
PATTERN_BW = [48, 50, 52, 49, 51, 50, 47]      # MiB/s, median 50
PATTERN_CPUS = [1.7, 1.8, 1.75, 1.6, 1.9, 1.8, 1.7]  # median 1.75
PATTERN_LAT_CPUS = [0.9, 1.0, 0.95, 0.8, 1.1, 1.0, 0.9]  # the floor run's, median 0.95
WRITE_BW = [24, 25, 26, 23, 27, 25, 22]        # MiB/s, median 25: not the ceiling while srp_pattern_bw ran
PATTERN_LAT = [30, 31, 29, 30, 32, 30, 28]     # us, srp_pattern_lat's p50, median 30: the floor (perftest's is 40)
PATTERN_LAT_P99 = [90, 95, 88, 91, 99, 90, 85]  # us, median 90
WRITE_LAT = [20, 22, 18, 20, 21, 19, 20]       # us typical
SEND_LAT = [10, 10, 11, 9, 10, 10, 10]         # us typical; floors 40 42 40 38 41 39 40 -> 40
SEND_P99 = [300, 310, 290, 305, 295, 300, 320]  # median 300


def fio_json(path, job, base):
    """One fio JSON report with the field its job's row reads: randread
    IOPS = base, randwrite IOPS = 2 x base, 128k read base/10 MiB/s (fio's
    bw is KiB/s), QD1 total latency (lat_ns) p50 base us and p99 3 x base us (fio's ns);
    clat_ns, which the report must not read, says a tenth of that. The 128k
    and QD1 jobs' IOPS (which only the CPU rows read): 8 x base/10 and base/10."""
    zero = {"percentile": {"50.000000": 0, "99.000000": 0}}
    read = {"iops": 0.0, "bw": 0, "clat_ns": dict(zero), "lat_ns": dict(zero)}
    write = {"iops": 0.0, "bw": 0, "clat_ns": dict(zero), "lat_ns": dict(zero)}
    if job == "randread4k-qd32":
        read["iops"] = base
    elif job == "randwrite4k-qd32":
        write["iops"] = 2 * base
    elif job == "seqread128k-qd32":
        read["bw"] = int(base / 10 * 1024)
        read["iops"] = 8 * base / 10
    elif job == "randread4k-qd1":
        read["iops"] = base / 10
        read["lat_ns"] = {"percentile": {"50.000000": int(base * 1000), "99.000000": int(3 * base * 1000)}}
        read["clat_ns"] = {"percentile": {"50.000000": int(base * 100), "99.000000": int(3 * base * 100)}}
    with open(path, "w") as f:
        json.dump({"fio version": "fio-3.33", "jobs": [{"jobname": os.path.basename(path)[:-5], "error": 0,
                                                          "read": read, "write": write}]}, f)


# The guest's CPU counters around a job (/proc/stat's 'cpu' line: user nice
# system idle iowait irq softirq steal guest guest_nice), 2 CPUs: 2000 ticks
# between the two lines, of which A busy 1000 (1.0 CPUs) and B 800 (0.8
# CPUs), in user, system, irq, softirq and steal; the rest idle and iowait.
# The guest fields (already inside user) move too and must not count.
CPU_BEFORE = "cpu  5000 7 3000 90000 100 20 400 3 60 0"
CPU_AFTER = {"A": "cpu  5300 7 3500 90990 110 20 600 3 110 0",
             "B": "cpu  5200 7 3400 91190 110 30 590 3 110 0"}
# rd_mcp 4k randread QD32, us per I/O = CPUs / IOPS: A 1e6/A_BASE (median
# 2500), B 0.8e6/B_BASE (median 2424.2); B/A 0.970, per round 0.267 1.6
# 0.727 1.6 0.4 0.738 1.333 -> paired 0.738.
CPU_RD_RANDREAD = (2500, 2424.2, 0.970, 0.738)


def cpu_counters(path, side):
    with open(path, "w") as f:
        f.write("ncpu 2\nbefore %s\nafter %s\n" % (CPU_BEFORE, CPU_AFTER[side]))


# perftest 4.5's reports (the lines around the result are what it prints;
# the report reads the first line of numbers after '#bytes').
BW_TXT = """---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF		Device         : rxe1
 Number of qps   : 4		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 TX depth        : 32
 CQ Moderation   : 1
 Mtu             : 1024[B]
 Link type       : Ethernet
 rdma_cm QPs	 : ON
 Data ex. method : rdma_cm
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x0011 PSN 0x6e0a2b
 remote address: LID 0000 QPN 0x0012 PSN 0x2f0c1d
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 131072     {iters}             0.00               {bw:.2f}  		   {rate:.6f}
---------------------------------------------------------------------------------------
"""
LAT_TXT = """---------------------------------------------------------------------------------------
                    {title}
 Dual-port       : OFF		Device         : rxe1
 Number of qps   : 1		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 Mtu             : 1024[B]
 Link type       : Ethernet
 rdma_cm QPs	 : ON
 Data ex. method : rdma_cm
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 {size}       2000          {tmin:.2f}           {tmax:.2f}        {typ:.2f}     	{avg:.2f}      	{sd:.2f}   		{p99:.2f}   		{p999:.2f}   
---------------------------------------------------------------------------------------
"""


PATTERN_TXT = ("mibs={mibs:.3f} bytes=354942976 ns=6258380690 commands=2708 lat_p50_us=470.016 lat_p99_us=900.096"
               " lat_n=2708 channels=2 depth=32 size=131072 ini_poll=unbound tgt_poll=unbound\n")
PATTERN_LAT_TXT = ("mibs=17.405 bytes=112017408 ns=6137704780 commands=27348 lat_p50_us={p50:.3f} lat_p99_us={p99:.3f}"
                   " lat_n=27348 channels=1 depth=1 size=4096 ini_poll=softirq tgt_poll=workqueue\n")


def pattern_cpu_counters(path, cpus, iowait=0):
    """srp_pattern_bw's TAG.cpu: 2 CPUs, 2000 ticks between the counters,
    cpus x 1000 of them busy (user), the rest idle; iowait extra ticks of
    iowait on top (the instruction clock's, which the report leaves out)."""
    busy = int(round(cpus * 1000))
    with open(path, "w") as f:
        f.write("ncpu 2\nbefore %s\nafter cpu  %d 7 3000 %d %d 20 400 3 60 0\n"
                % (CPU_BEFORE, 5000 + busy, 90000 + 2000 - busy, 100 + iowait))


# The SRP disk's KiB per request in the 128 KiB read jobs, per round: as
# the bench with huge-page buffers and merging off sees them, one request
# per fio read (iblock's a little more: the guest's own 4 KiB reads count).
# rd_mcp: A 128, B median 128; iblock: A 127, B median 127.5, B/A 1.004
# (within the report's 2 %: the same command stream, a verdict).
DISK_A = {"rd": [128] * 7, "nb": [127] * 7}
DISK_B = {"rd": [128, 127, 128, 126, 128, 128, 127], "nb": [127.5] * 7}
# The bench before them (5 Dec 2026): in-tree's unsplit (rd_mcp) and
# merged (iblock), the port's split in some rounds. rd_mcp: A 128, B
# median 80, B/A 0.625; iblock: A 256, B median 160: not a verdict.
DISK_SPLIT_A = {"rd": [128] * 7, "nb": [256] * 7}
DISK_SPLIT_B = {"rd": [64, 128, 96, 64, 80, 128, 64], "nb": [128, 256, 192, 128, 160, 256, 128]}


def disk_counters(path, kib):
    """A job's TAG.disk (/sys/block/<disk>/stat before and after, 11
    fields): 1000 requests of kib KiB on average, 995 reads and 5 writes
    of 8 sectors each (in a read job: the guest's own), so that a report
    that leaves the writes out, or reads the wrong fields, is off."""
    sectors = int(kib * 2 * 1000)
    before = "     200        0    51200      300        0        0        0        0        0      400      300"
    after = ("%8d        0 %8d      900        5        0       40        2        0      900      902"
             % (200 + 995, 51200 + sectors - 40))
    with open(path, "w") as f:
        f.write("before %s\nafter %s\n" % (before, after))


def make_artifacts(d, rounds=7, write_bw=WRITE_BW, write_lat=WRITE_LAT, older_layout=False, load=None,
                   pattern_bw=PATTERN_BW, pattern_lat=PATTERN_LAT, disk=(DISK_A, DISK_B)):
    """older_layout: the files as the bench wrote them before issue 16 (no
    ib_write_lat, SRP channel counts, raw-commands.txt or CPU counters).
    pattern_bw: srp_pattern_bw's MiB/s per round, None: none (the bench
    before srp_pattern_bw; the older layout has none either). pattern_lat:
    the QD1 floor run's p50 per round (p99: PATTERN_LAT_P99), None: none
    (the bench before srp_pattern_lat, or before srp_pattern_bw). load: None (no
    host-load.csv) or (gate load1, [(busy, guest) tick deltas per 10 s
    interval]), on 2 CPUs with 2000 total ticks per interval. disk: the
    128k job's KiB per request, ({lun: per round} of A, of B)."""
    os.makedirs(d)
    for r in range(1, rounds + 1):
        for side, bases in (("A", A_BASE), ("B", B_BASE)):
            for lun, lf in LUN_FACTOR.items():
                for job in ("randread4k-qd32", "randwrite4k-qd32", "seqread128k-qd32", "randread4k-qd1"):
                    fio_json(os.path.join(d, "r%d-%s-%s-%s.json" % (r, side, lun, job)), job, bases[(r - 1) % 7] * lf)
                    if not older_layout:
                        cpu_counters(os.path.join(d, "r%d-%s-%s-%s.cpu" % (r, side, lun, job)), side)
                        kib = 4
                        if job == "seqread128k-qd32":
                            kib = disk[0 if side == "A" else 1][lun][(r - 1) % 7]
                        disk_counters(os.path.join(d, "r%d-%s-%s-%s.disk" % (r, side, lun, job)), kib)
            if not older_layout:
                with open(os.path.join(d, "r%d-%s-srp_ch_count.txt" % (r, side)), "w") as f:
                    f.write("2\n")
        i = (r - 1) % 7
        with open(os.path.join(d, "r%d-ib_write_bw.txt" % r), "w") as f:
            f.write(BW_TXT.format(iters=int(write_bw[i] * 8 * 6), bw=write_bw[i], rate=write_bw[i] / 128 / 1024 * 1024 / 1000))
        with open(os.path.join(d, "r%d-ib_send_lat.txt" % r), "w") as f:
            f.write(LAT_TXT.format(title="Send Latency Test", size=64, tmin=SEND_LAT[i] * 0.8, tmax=9000.0, typ=SEND_LAT[i],
                                   avg=SEND_LAT[i] * 1.3, sd=25.0, p99=SEND_P99[i], p999=4000.0))
        if not older_layout and pattern_bw is not None:
            with open(os.path.join(d, "r%d-srp_pattern_bw.txt" % r), "w") as f:
                f.write(PATTERN_TXT.format(mibs=pattern_bw[i]))
            pattern_cpu_counters(os.path.join(d, "r%d-srp_pattern_bw.cpu" % r), PATTERN_CPUS[i])
            if pattern_lat is not None:
                with open(os.path.join(d, "r%d-srp_pattern_lat.txt" % r), "w") as f:
                    f.write(PATTERN_LAT_TXT.format(p50=pattern_lat[i], p99=PATTERN_LAT_P99[i]))
                pattern_cpu_counters(os.path.join(d, "r%d-srp_pattern_lat.cpu" % r), PATTERN_LAT_CPUS[i])
        if not older_layout:
            with open(os.path.join(d, "r%d-ib_write_lat.txt" % r), "w") as f:
                f.write(LAT_TXT.format(title="RDMA_Write Latency Test", size=4096, tmin=write_lat[i] * 0.8, tmax=9000.0,
                                       typ=write_lat[i], avg=write_lat[i] * 1.3, sd=25.0, p99=900.0, p999=4000.0))
    if not older_layout:
        with open(os.path.join(d, "raw-commands.txt"), "w") as f:
            f.write("ib_write_bw -d rxe1 -R -F -s 131072 -q 4 -t 32 -Q 1 -D 10 (server), ... (client)\n")
    if load is not None:
        gate, deltas = load
        with open(os.path.join(d, "host-load.csv"), "w") as f:
            f.write("epoch,phase,load1,busy_ticks,total_ticks,ncpu,guest_ticks\n")
            f.write("1796000000,gate,%.2f,,,,\n" % gate)
            t, busy, total, guest = 1796000010, 50000, 90000, 0
            f.write("%d,run,0.40,%d,%d,2,%d\n" % (t, busy, total, guest))
            for db, dg in deltas:
                t, busy, total, guest = t + 10, busy + db, total + 2000, guest + dg
                f.write("%d,run,2.10,%d,%d,2,%d\n" % (t, busy, total, guest))


def run_report(d, *extra):
    p = subprocess.run([PY, REPORT, d, "port", *extra], capture_output=True, text=True)
    js = None
    if os.path.exists(os.path.join(d, "bench.json")):
        js = json.load(open(os.path.join(d, "bench.json")))
    return p.returncode, p.stdout + p.stderr, js


QUIET = (0.20, [(1900, 1800)] * 6)             # other load 100*2/2000 = 0.1 CPUs per interval
LOADED_RUN = (0.20, [(1900, 1800)] * 3 + [(2000, 1000)] + [(1900, 1800)] * 2)  # one interval at 1.0 CPUs
LOADED_GATE = (0.90, [(1900, 1800)] * 6)


# The cases, each a function of the scratch directory TOP: one that raises
# (a report without a field, a crash) is a failed check, not the test's end.
def known_numbers(top):
    # Known numbers, 7 rounds, quiet host: a verdict.
    d = os.path.join(top, "known")
    make_artifacts(d, load=QUIET)
    rc, out, js = run_report(d)
    check("7 rounds, quiet host: exit 0", rc == 0, "rc %d\n%s" % (rc, out))
    rows = {r["key"]: r for r in (js or {}).get("rows", [])}
    check("all 20 rows (5 fio figures, 4 CPU per I/O and the 128k job's KiB per request x 2 LUNs)",
          len(rows) == 20, str(sorted(rows)))
    for lun, name, ma, mb, rt in (("rd", "rd_mcp", 128, 128, 1.0), ("nb", "iblock/null_blk", 127, 127.5, 1.004)):
        r = rows.get("%s_seqread128k_qd32_disk_kib_per_request" % lun, {})
        check("KiB per request, %s 128k read: medians %g | %g, B/A %.3f (writes counted)" % (name, ma, mb, rt),
              r.get("median_A") == ma and r.get("median_B") == mb and close(r.get("ratio"), rt) and
              r.get("unit") == "KiB" and r.get("B") == DISK_B[lun], str(r))
        check("table: the %s KiB per request row" % name,
              ("SRP disk's KiB per request, 128k seq read QD32 [%s]" % name) in out, out)
    check("no KiB per request rows for the 4 KiB jobs",
          not [k for k in rows if "disk" in k and "128k" not in k], str(sorted(rows)))
    check("bench.json says disk rows", (js or {}).get("disk_rows") is True)
    ma, mb, rt, pr = CPU_RD_RANDREAD
    r = rows.get("rd_randread4k_qd32_cpu_us_per_io", {})
    check("CPU per I/O, rd_mcp randread QD32: medians %g | %g us, B/A %.3f, paired %.3f" % (ma, mb, rt, pr),
          close(r.get("median_A"), ma, 0.06) and close(r.get("median_B"), mb, 0.06) and close(r.get("ratio"), rt)
          and close(r.get("paired_ratio"), pr) and r.get("higher_is_better") is False, str(r))
    # iblock's IOPS are 1.5 x rd_mcp's: the same CPUs, 1/1.5 the time per I/O.
    r = rows.get("nb_randread4k_qd32_cpu_us_per_io", {})
    check("CPU per I/O, iblock randread QD32: medians %g | %g us" % (ma / 1.5, mb / 1.5),
          close(r.get("median_A"), ma / 1.5, 0.1) and close(r.get("median_B"), mb / 1.5, 0.1), str(r))  # values kept to 0.1 us
    # QD1: IOPS base/10, so ten times the time per I/O.
    r = rows.get("rd_randread4k_qd1_cpu_us_per_io", {})
    check("CPU per I/O, rd_mcp randread QD1: medians %g | %g us" % (10 * ma, 10 * mb),
          close(r.get("median_A"), 10 * ma, 0.6) and close(r.get("median_B"), 10 * mb, 0.6), str(r))
    check("table: a CPU per I/O row", "guest CPU per I/O, 4k randread QD32 [rd_mcp]" in out, out)
    want = {  # key: (median A, median B)
        "rd_randread4k_qd32_iops": (400, 330), "rd_randwrite4k_qd32_iops": (800, 660),
        "rd_seqread128k_qd32_mibs": (40, 33), "rd_randread4k_qd1_p50_us": (400, 330),
        "rd_randread4k_qd1_p99_us": (1200, 990),
        "nb_randread4k_qd32_iops": (600, 495), "nb_randwrite4k_qd32_iops": (1200, 990),
        "nb_seqread128k_qd32_mibs": (60, 49.5), "nb_randread4k_qd1_p50_us": (600, 495),
        "nb_randread4k_qd1_p99_us": (1800, 1485),
    }
    for key, (ma, mb) in want.items():
        r = rows.get(key, {})
        check("%s medians %g | %g" % (key, ma, mb), close(r.get("median_A"), ma, 0.06) and close(r.get("median_B"), mb, 0.06),
              "got %s | %s" % (r.get("median_A"), r.get("median_B")))
        check("%s B/A %.3f, paired %.3f" % (key, RATIO, PAIRED), close(r.get("ratio"), RATIO) and close(r.get("paired_ratio"), PAIRED),
              "got %s, paired %s" % (r.get("ratio"), r.get("paired_ratio")))
    r = rows.get("rd_randread4k_qd32_iops", {})
    check("per-round values kept in round order", r.get("A") == A_BASE and r.get("B") == B_BASE, "%s | %s" % (r.get("A"), r.get("B")))
    raw = {x["key"]: x for x in (js or {}).get("raw_rxe", [])}
    check("raw ceiling: srp_pattern_bw's, median 50 MiB/s", (js or {}).get("ceiling_key") == "rxe_srp_pattern_bw_128k_mibs" and
          close(raw.get("rxe_srp_pattern_bw_128k_mibs", {}).get("median"), 50) and
          "raw ceiling: SRP READ pattern 128 KiB, kernel" in out, str(raw.get("rxe_srp_pattern_bw_128k_mibs")))
    check("the ceiling's guest CPUs busy, median 1.75", close(raw.get("rxe_srp_pattern_bw_cpus", {}).get("median"), 1.75),
          str(raw.get("rxe_srp_pattern_bw_cpus")))
    check("ib_write_bw beside it, median 25 MiB/s (perftest's MB/sec is MiB/s), not named the ceiling",
          close(raw.get("rxe_write_bw_128k_mibs", {}).get("median"), 25) and "raw ceiling: ib_write_bw" not in out,
          str(raw.get("rxe_write_bw_128k_mibs")))
    check("raw send latency typical 10 us, p99 300 us", close(raw.get("rxe_send_lat_typ_us", {}).get("median"), 10) and
          close(raw.get("rxe_send_lat_p99_us", {}).get("median"), 300))
    check("pattern floor: srp_pattern_lat's p50, median 30 us, p99 median 90 us",
          (js or {}).get("floor_key") == "rxe_srp_pattern_lat_qd1_4k_p50_us" and
          close(raw.get("rxe_srp_pattern_lat_qd1_4k_p50_us", {}).get("median"), 30) and
          close(raw.get("rxe_srp_pattern_lat_qd1_4k_p99_us", {}).get("median"), 90) and
          "pattern floor: SRP READ 4 KiB QD1 p50, kernel" in out, str(raw.get("rxe_srp_pattern_lat_qd1_4k_p50_us")))
    check("the floor's guest CPUs busy, median 0.95", close(raw.get("rxe_srp_pattern_lat_cpus", {}).get("median"), 0.95) and
          "pattern floor's guest CPUs busy" in out, str(raw.get("rxe_srp_pattern_lat_cpus")))
    check("perftest's floor beside it: median of per-round write + 2 x send = 40 us, not named the floor",
          close(raw.get("rxe_pattern_floor_qd1_4k_us", {}).get("median"), 40) and
          "perftest floor: write 4 KiB + 2 x send" in out and "pattern floor: write" not in out,
          str(raw.get("rxe_pattern_floor_qd1_4k_us")))
    vs = {(v["lun"], v["side"]): v for v in (js or {}).get("vs_raw", [])}
    # 128k read / ceiling: rd A 40/50, B 33/50; nb A 60/50 (above: not a ceiling), B 49.5/50.
    # QD1 p50 / floor: rd A 400/30, B 330/30; nb A 600/30, B 495/30.
    for (lun, side), frac, ok, mult in ((("rd_mcp", "A"), 0.8, True, 13.33), (("rd_mcp", "B"), 0.66, True, 11.0),
                                        (("iblock/null_blk", "A"), 1.2, False, 20.0), (("iblock/null_blk", "B"), 0.99, True, 16.5)):
        v = vs.get((lun, side), {})
        check("%s %s: 128k read / ceiling %.3f (%s), QD1 p50 / floor %.2fx" % (lun, side, frac, "ok" if ok else "not a ceiling", mult),
              close(v.get("seqread128k_of_ceiling"), frac) and v.get("ceiling_ok") is ok and close(v.get("qd1_p50_x_floor"), mult, 0.006),
              str(v))
    nb_lines = [l for l in out.splitlines() if l.strip().startswith("iblock/null_blk")]
    rd_lines = [l for l in out.splitlines() if l.strip().startswith("rd_mcp")]
    check("table: 'ceiling below SRP: not a ceiling' on iblock A only",
          len(nb_lines) == 2 and "ceiling below SRP: not a ceiling" in nb_lines[0] and "not a ceiling" not in nb_lines[1]
          and rd_lines and all("not a ceiling" not in l for l in rd_lines), "\n".join(nb_lines + rd_lines))
    check("table: no ratio above 1 printed without the mark",
          all(("1.200" not in l) or ("not a ceiling" in l) for l in out.splitlines()))
    hl = (js or {}).get("host_load") or {}
    check("other load from the counters: 6 samples of 0.1 CPUs", [s["other_cpus"] for s in hl.get("samples", [])] == [0.1] * 6,
          str(hl.get("samples")))
    check("quiet host: no marks, verdict", js is not None and js.get("marks") == [] and js.get("verdict") is True and "MARK" not in out,
          str(js and js.get("marks")))
    with open(os.path.join(d, "bench.csv")) as f:
        crows = list(csv.reader(f))
    cm = {(c[0], c[2]): c for c in crows}
    check("CSV: rows, ratios, ceiling fractions, load samples, verdict",
          cm.get(("rd_randread4k_qd32_iops", "B"), [""] * 7)[6] == "1.083" and
          cm.get(("iblock_seqread128k_of_ceiling", "A"), [""] * 8)[7] == "ceiling below SRP: not a ceiling" and
          cm.get(("host_other_load_cpus", "host"), [""] * 8)[7] == " ".join(["0.1"] * 6) and
          cm.get(("verdict", ""), [""] * 5)[4] == "yes", "\n".join(",".join(c) for c in crows[-12:]))
    png = os.path.join(d, "bench.png")
    check("SRP channel count reported", js["srp_channels"] == [2] and "SRP logins had 2 RC channel(s)" in out, str(js.get("srp_channels")))
    check("bench.png written", os.path.exists(png) and os.path.getsize(png) > 10000)


def ceiling_above_srp(top):
    # A ceiling above SRP everywhere: fractions, no mark.
    d = os.path.join(top, "ceiling-ok")
    make_artifacts(d, pattern_bw=[100] * 7, load=QUIET)
    rc, out, js = run_report(d, "--no-plot")
    check("ceiling 100 MiB/s above every SRP figure: no 'not a ceiling'", rc == 0 and "not a ceiling" not in out and
          all(v["ceiling_ok"] for v in js["vs_raw"]), out)


def ceiling_without_pattern_bw(top):
    # The bench before srp_pattern_bw: ib_write_bw is the ceiling, with the
    # known numbers' fractions (iblock A 60/50: not a ceiling).
    d = os.path.join(top, "no-pattern-bw")
    make_artifacts(d, write_bw=PATTERN_BW, pattern_bw=None, load=QUIET)
    rc, out, js = run_report(d, "--no-plot")
    vs = {(v["lun"], v["side"]): v for v in js["vs_raw"]}
    check("no srp_pattern_bw results: ib_write_bw is the ceiling (50 MiB/s), fractions 0.8 and 1.2",
          rc == 0 and js["ceiling_key"] == "rxe_write_bw_128k_mibs" and "raw ceiling: ib_write_bw 128 KiB" in out and
          close(vs[("rd_mcp", "A")]["seqread128k_of_ceiling"], 0.8) and vs[("iblock/null_blk", "A")]["ceiling_ok"] is False and
          "SRP moved more than perftest's 128 KiB RDMA WRITE" in out, "rc %d\n%s" % (rc, out))


def floor_above_srp(top):
    # A pattern floor above SRP's QD1 p50 (rd_mcp port's p50 is 330 us):
    # says so. srp_pattern_lat's at 400 us; then, for the bench before it,
    # perftest's (write 4 KiB 380 us: 380 + 2 x 10).
    for name, kw, what in (("floor-above", dict(pattern_lat=[400] * 7), "srp_pattern_lat's floor 400 us"),
                           ("floor-above-perftest", dict(pattern_lat=None, write_lat=[380] * 7), "perftest's floor 400 us")):
        d = os.path.join(top, name)
        make_artifacts(d, load=QUIET, **kw)
        rc, out, js = run_report(d, "--no-plot")
        rd_port = [l for l in out.splitlines() if l.strip().startswith("rd_mcp") and " port " in l]
        vs = {(v["lun"], v["side"]): v for v in js["vs_raw"]}
        check("%s above rd_mcp port's p50 330 us: 'floor above SRP: not a floor' there only" % what,
              rc == 0 and len(rd_port) == 1 and "floor above SRP: not a floor" in rd_port[0] and
              vs[("rd_mcp", "B")]["floor_ok"] is False and vs[("rd_mcp", "A")]["floor_ok"] is True and
              out.count("not a floor") == 1, out)
    # Without srp_pattern_lat (the bench of 5 Dec 2026), perftest's is the
    # floor: the known numbers' multiples of 40 us.
    d = os.path.join(top, "floor-perftest")
    make_artifacts(d, load=QUIET, pattern_lat=None)
    rc, out, js = run_report(d, "--no-plot")
    vs = {(v["lun"], v["side"]): v for v in js["vs_raw"]}
    check("no srp_pattern_lat results: perftest's write + 2 x send (40 us) is the floor, rd_mcp A 10.0x",
          rc == 0 and js["floor_key"] == "rxe_pattern_floor_qd1_4k_us" and "pattern floor: write 4 KiB + 2 x send" in out and
          close(vs[("rd_mcp", "A")]["qd1_p50_x_floor"], 10.0) and close(vs[("iblock/null_blk", "B")]["qd1_p50_x_floor"], 12.375, 0.006),
          "rc %d\n%s" % (rc, out))


def round_order(top):
    # 11 rounds: the values stay in round order (r10 after r9) and
    # each B pairs with its own round's A.
    d = os.path.join(top, "eleven")
    make_artifacts(d, rounds=11, load=QUIET)
    rc, out, js = run_report(d, "--no-plot")
    r = [x for x in js["rows"] if x["key"] == "rd_randread4k_qd32_iops"][0]
    check("11 rounds: values in round order 1..11", rc == 0 and r["rounds"] == list(range(1, 12)) and
          r["A"] == A_BASE + A_BASE[:4] and r["B"] == B_BASE + B_BASE[:4], "%s\n%s | %s" % (r["rounds"], r["A"], r["B"]))


def too_few_rounds(top):
    # Fewer than 7 rounds: not a verdict, exit 3; forced: exit 0, mark kept.
    d = os.path.join(top, "five")
    make_artifacts(d, rounds=5, load=QUIET)
    rc, out, js = run_report(d, "--no-plot")
    check("5 rounds: exit 3 and 'not a verdict: 5 rounds'", rc == 3 and "MARK: not a verdict: 5 rounds" in out and
          js["verdict"] is False, "rc %d\n%s" % (rc, out))
    rc, out, js = run_report(d, "--no-plot", "--force")
    check("5 rounds forced: exit 0, mark and 'forced' printed", rc == 0 and "MARK: not a verdict: 5 rounds" in out and
          "MARK: forced" in out and js["forced"] is True and js["verdict"] is False, "rc %d\n%s" % (rc, out))


def loaded_during_run(top):
    # Other load above the threshold in one 10 s interval: LOADED.
    d = os.path.join(top, "loaded-run")
    make_artifacts(d, load=LOADED_RUN)
    rc, out, js = run_report(d, "--no-plot")
    check("other load 1.0 CPUs in 1 of 6 samples: exit 3, LOADED mark",
          rc == 3 and "MARK: LOADED: not a verdict (other load above 0.50 CPUs in 1 of 6 10 s samples, up to 1.00 CPUs)" in out,
          "rc %d\n%s" % (rc, out))
    check("LOADED: the figures are still printed", "fio 4k randread QD32 [rd_mcp]" in out and "0.825" in out)
    check("LOADED: samples recorded in bench.json", js["host_load"]["loaded_samples"] == 1 and
          [s["other_cpus"] for s in js["host_load"]["samples"]] == [0.1, 0.1, 0.1, 1.0, 0.1, 0.1])
    rc, out, js = run_report(d, "--no-plot", "--force")
    check("LOADED forced: exit 0, marks kept", rc == 0 and "MARK: LOADED: not a verdict" in out and "MARK: forced" in out,
          "rc %d\n%s" % (rc, out))
    rc, out, js = run_report(d, "--no-plot", "--max-load", "1.5")
    check("the same samples under --max-load 1.5: a verdict", rc == 0 and "MARK" not in out, "rc %d\n%s" % (rc, out))


def loaded_at_the_gate(top):
    # Forced past the load gate (load average 0.9 before the boot): LOADED.
    d = os.path.join(top, "loaded-gate")
    make_artifacts(d, load=LOADED_GATE)
    rc, out, js = run_report(d, "--no-plot")
    check("gate load average 0.90 >= 0.5: exit 3, LOADED mark",
          rc == 3 and "MARK: LOADED: not a verdict (1-minute load average 0.90 before the boot, >= 0.50)" in out,
          "rc %d\n%s" % (rc, out))


def no_run_samples(top):
    # host-load.csv with the gate's row only (the sampler wrote nothing):
    # no evidence the run was quiet.
    d = os.path.join(top, "no-run-samples")
    make_artifacts(d, load=(0.20, []))
    with open(os.path.join(d, "host-load.csv")) as f:
        kept = [l for l in f if ",run," not in l]
    with open(os.path.join(d, "host-load.csv"), "w") as f:
        f.writelines(kept)
    rc, out, js = run_report(d, "--no-plot")
    check("no load samples of the run: exit 3, 'not a verdict'",
          rc == 3 and "MARK: not a verdict: host-load.csv has no load samples of the run" in out, "rc %d\n%s" % (rc, out))


def older_artifacts(top):
    # Older layout: no host-load.csv, ib_write_lat or raw-commands.txt.
    d = os.path.join(top, "old-layout")
    make_artifacts(d, older_layout=True, load=None)
    rc, out, js = run_report(d, "--no-plot")
    check("older artifacts: exit 0, floor n/a, load and CPU not recorded",
          rc == 0 and "pattern floor: n/a" in out and "host load: not recorded" in out and
          "guest CPU per I/O: not recorded" in out and js["cpu_rows"] is False and len(js["rows"]) == 10 and
          js["disk_rows"] is False and "KiB per request" not in out and
          all(v["qd1_p50_x_floor"] is None for v in js["vs_raw"]) and js["host_load"] is None, "rc %d\n%s" % (rc, out))


def remove(*names):
    """An edit for expect_unusable: delete these artifacts."""
    def edit(d):
        for n in names:
            os.remove(os.path.join(d, n))
    return edit


def overwrite(name, text):
    """An edit for expect_unusable: replace one artifact's content."""
    def edit(d):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    return edit


def expect_unusable(top, name, edit, what, needle):
    """Known artifacts broken by edit: the report must exit 1 saying needle."""
    d = os.path.join(top, name)
    make_artifacts(d, load=QUIET)
    edit(d)
    rc, out, js = run_report(d, "--no-plot")
    check(what, rc == 1 and needle in out, "rc %d\n%s" % (rc, out))


def unusable_results(top):
    # Unusable results: exit 1, not 0 or 3. (name, edit, what, needle)
    frozen = "ncpu 2\nbefore %s\nafter %s\n" % (CPU_BEFORE, CPU_BEFORE)
    cases = (
        ("no-perftest", remove(*["r%d-ib_write_bw.txt" % r for r in range(1, 8)]),
         "no ib_write_bw reports: exit 1", "missing perftest results"),
        ("unpaired", remove("r3-B-nb-randread4k-qd1.json"), "a round without its B side: exit 1", "rounds"),
        ("cpu-missing", remove("r4-A-rd-randwrite4k-qd32.cpu"),
         "CPU counters missing for one job of one round: exit 1", "CPU counters"),
        ("cpu-frozen", overwrite("r2-B-nb-randread4k-qd1.cpu", frozen), "CPU counters that did not move: exit 1",
         "no CPU time"),
        ("disk-missing", remove("r3-B-rd-seqread128k-qd32.disk"),
         "disk counters missing for the 128k job of one round: exit 1", "disk counters for rounds"),
        ("disk-frozen", overwrite("r6-A-nb-seqread128k-qd32.disk", "before 1 0 8 0 0 0 0\nafter 1 0 8 0 0 0 0\n"),
         "disk counters that did not move: exit 1", "no request completed"),
        ("disk-garbled", overwrite("r1-A-rd-seqread128k-qd32.disk", "before 1 0 8\nafter 2 0 16\n"),
         "a disk stat line of 3 fields: exit 1", "fewer than 7 fields"),
        ("pattern-bw-partial", remove("r5-srp_pattern_bw.txt"), "srp_pattern_bw missing in round 5: exit 1",
         "srp_pattern_bw ran in rounds"),
        ("pattern-bw-empty", overwrite("r2-srp_pattern_bw.txt", "commands=0\n"),
         "a srp_pattern_bw result without mibs=: exit 1", "no mibs= figure"),
        ("pattern-lat-partial", remove("r4-srp_pattern_lat.txt"), "srp_pattern_lat missing in round 4: exit 1",
         "srp_pattern_lat ran in rounds"),
        ("pattern-lat-no-p50",
         overwrite("r6-srp_pattern_lat.txt", "mibs=17.4 bytes=1 ns=1 commands=1 channels=1 depth=1 size=4096\n"),
         "a srp_pattern_lat result without lat_p50_us=: exit 1", "no lat_p50_us= figure"),
        ("pattern-bw-cpu-missing", remove("r3-srp_pattern_bw.cpu"),
         "srp_pattern_bw's CPU counters missing in round 3 only: exit 1", "CPU counters for rounds"),
        ("pattern-bw-cpu-frozen", overwrite("r6-srp_pattern_bw.cpu", frozen),
         "srp_pattern_bw's CPU counters that did not move: exit 1", "no CPU time"),
        ("pattern-lat-cpu-missing", remove("r2-srp_pattern_lat.cpu"),
         "the floor run's CPU counters missing in round 2 only: exit 1", "CPU counters for rounds"),
        ("pattern-lat-cpu-frozen", overwrite("r5-srp_pattern_lat.cpu", frozen),
         "the floor run's CPU counters that did not move: exit 1", "no CPU time"),
    )
    for name, edit, what, needle in cases:
        expect_unusable(top, name, edit, what, needle)
    # The bench before dd8eb79 wrote no CPU counters beside srp_pattern_bw's
    # results (its cpus= on the result line is not read): the ceiling
    # without its CPU row, not a refusal.
    d = os.path.join(top, "pattern-bw-no-cpu")
    make_artifacts(d, load=QUIET)
    for r in range(1, 8):
        os.remove(os.path.join(d, "r%d-srp_pattern_bw.cpu" % r))
        os.remove(os.path.join(d, "r%d-srp_pattern_lat.cpu" % r))
    rc, out, js = run_report(d, "--no-plot")
    keys = [x["key"] for x in (js or {}).get("raw_rxe", [])]
    check("srp_pattern_bw without CPU counters in any round: exit 0, the ceiling and the floor, no CPU rows",
          rc == 0 and js["ceiling_key"] == "rxe_srp_pattern_bw_128k_mibs" and
          js["floor_key"] == "rxe_srp_pattern_lat_qd1_4k_p50_us" and
          "rxe_srp_pattern_bw_cpus" not in keys and "rxe_srp_pattern_lat_cpus" not in keys and
          "guest CPUs busy" not in out, "rc %d\n%s" % (rc, out))


def different_command_streams(top):
    # The 128k job's requests split or merged on one side only (the bench
    # before huge-page buffers and nomerges): the rows are printed, with
    # their KiB per request, but the report is not a verdict (exit 3;
    # forced: exit 0, mark kept). One LUN's sides 3 % apart are enough.
    d = os.path.join(top, "streams")
    make_artifacts(d, load=QUIET, disk=(DISK_SPLIT_A, DISK_SPLIT_B))
    rc, out, js = run_report(d, "--no-plot")
    rows = {r["key"]: r for r in (js or {}).get("rows", [])}
    r = rows.get("rd_seqread128k_qd32_disk_kib_per_request", {})
    check("split and merged 128k streams: KiB per request medians 128 | 80 (B/A 0.625, paired 0.625)",
          r.get("median_A") == 128 and r.get("median_B") == 80 and close(r.get("ratio"), 0.625) and
          close(r.get("paired_ratio"), 0.625), str(r))
    check("split and merged 128k streams: exit 3, a mark per LUN naming both medians",
          rc == 3 and (js or {}).get("verdict") is False and
          "MARK: not a verdict: the 128k rows compare different command streams (SRP disk's KiB per request, "
          "128k seq read QD32 [rd_mcp]: A 128.0, B 80.0)" in out and
          "[iblock/null_blk]: A 256.0, B 160.0)" in out, "rc %d\n%s" % (rc, out))
    rc, out, js = run_report(d, "--no-plot", "--force")
    check("split and merged 128k streams forced: exit 0, the mark kept",
          rc == 0 and "compare different command streams" in out and "MARK: forced" in out, "rc %d\n%s" % (rc, out))
    d = os.path.join(top, "streams-3pc")
    make_artifacts(d, load=QUIET, disk=({"rd": [128] * 7, "nb": [128] * 7}, {"rd": [128] * 7, "nb": [124.1] * 7}))
    rc, out, js = run_report(d, "--no-plot")
    check("iblock's B 3 % below A (124.1 | 128 KiB): exit 3, marked; rd_mcp not",
          rc == 3 and "[iblock/null_blk]: A 128.0, B 124.1)" in out and "[rd_mcp]: A" not in out, "rc %d\n%s" % (rc, out))


def no_disk_counters(top):
    # The bench before the disk counters wrote TAG.cpu but no TAG.disk:
    # every other row, no KiB per request row, no refusal.
    d = os.path.join(top, "no-disk")
    make_artifacts(d, load=QUIET)
    for f in os.listdir(d):
        if f.endswith(".disk"):
            os.remove(os.path.join(d, f))
    rc, out, js = run_report(d, "--no-plot")
    check("no disk counters in any round: exit 0, 18 rows, no KiB per request row or note",
          rc == 0 and len(js["rows"]) == 18 and js["disk_rows"] is False and "KiB per request" not in out,
          "rc %d\n%s" % (rc, out))


def guest_clock(top):
    # The guest's clock: wall by default (no icount line), icount named in
    # the table, bench.json and bench.csv; a malformed clock refused.
    d = os.path.join(top, "clock")
    make_artifacts(d, load=QUIET)
    rc, out, js = run_report(d, "--no-plot")
    check("default clock: wall, no icount line", rc == 0 and js["clock"] == "wall" and "guest clock" not in out,
          "rc %d\n%s" % (rc, out))
    rc, out, js = run_report(d, "--no-plot", "--clock", "icount shift=0")
    with open(os.path.join(d, "bench.csv")) as f:
        cm = {c[0]: c for c in csv.reader(f)}
    check("--clock 'icount shift=0': in the table, bench.json and bench.csv, figures unchanged",
          rc == 0 and js["clock"] == "icount shift=0" and
          "guest clock: icount shift=0: every time, rate and CPU share above is in the guest's instructions" in out and
          cm.get("guest_clock", [""] * 5)[4] == "icount shift=0" and
          [x for x in js["rows"] if x["key"] == "rd_randread4k_qd32_iops"][0]["paired_ratio"] == 1.083,
          "rc %d\n%s" % (rc, out))
    for name, load in (("clock-loaded-run", LOADED_RUN), ("clock-loaded-gate", LOADED_GATE)):
        d2 = os.path.join(top, name)
        make_artifacts(d2, load=load)
        rc, out, js = run_report(d2, "--no-plot", "--clock", "icount shift=2")
        check("icount on a loaded host (%s): a verdict, no LOADED mark, the load still printed" % name,
              rc == 0 and "MARK" not in out and js["verdict"] is True and "host load: 1-minute load average" in out and
              "the host's load does not count" in out, "rc %d\n%s" % (rc, out))
        rc, out, js = run_report(d2, "--no-plot")
        check("the same host load on the wall clock (%s): exit 3, LOADED" % name,
              rc == 3 and "MARK: LOADED: not a verdict" in out, "rc %d\n%s" % (rc, out))
    d3 = os.path.join(top, "clock-few")
    make_artifacts(d3, rounds=5, load=QUIET)
    rc, out, js = run_report(d3, "--no-plot", "--clock", "icount shift=2")
    check("icount with 5 rounds: still 'not a verdict: 5 rounds' (exit 3)",
          rc == 3 and "MARK: not a verdict: 5 rounds" in out, "rc %d\n%s" % (rc, out))
    for bad in ("icount", "icount shift=11", "icount shift=auto", "host"):
        rc, out, js = run_report(d, "--no-plot", "--clock", bad)
        check("--clock %r refused: exit 1" % bad, rc == 1 and "--clock must be" in out, "rc %d\n%s" % (rc, out))


def icount_layout(top):
    # bench.sh under icount before srp_pattern_bw: one vCPU, no raw
    # figures at all, and an iowait counter that runs ahead of the guest's
    # clock. The report needs no raw figures then (but still does on the
    # wall clock), and the CPU rows leave iowait out: the same rows with
    # 5000 more iowait ticks.
    rows = {}
    for name, extra_iowait in (("icount", 0), ("icount-iowait", 5000)):
        d = os.path.join(top, name)
        make_artifacts(d, load=QUIET)
        for f in os.listdir(d):
            if f.startswith("r") and ("-ib_" in f or "-srp_pattern_" in f) or f == "raw-commands.txt":
                os.remove(os.path.join(d, f))
            elif f.endswith(".cpu") and extra_iowait:
                with open(os.path.join(d, f)) as fh:
                    lines = fh.read().splitlines()
                after = lines[2].split()
                after[6] = str(int(after[6]) + extra_iowait)  # "after", "cpu", user nice system idle iowait
                lines[2] = " ".join(after)
                with open(os.path.join(d, f), "w") as fh:
                    fh.write("\n".join(lines) + "\n")
        rc, out, js = run_report(d, "--no-plot", "--clock", "icount shift=2")
        rows[name] = {r["key"]: r for r in js["rows"]} if js else {}
        if not extra_iowait:
            check("icount, no perftest reports: exit 0, raw figures 'not measured under icount'",
                  rc == 0 and "raw rxe: not measured under icount" in out and js["raw_rxe"] == [] and js["vs_raw"] == [] and
                  "SRP against the raw figures" not in out and len(js["rows"]) == 20, "rc %d\n%s" % (rc, out))
            rc, out, js = run_report(d, "--no-plot")
            check("wall clock, no perftest reports: exit 1", rc == 1 and "missing perftest results" in out, "rc %d\n%s" % (rc, out))
    # The bench since srp_pattern_bw runs under icount too: the ceiling
    # and SRP against it, no perftest; before srp_pattern_lat (5 Dec 2026),
    # no pattern floor.
    d = os.path.join(top, "icount-pattern-bw")
    make_artifacts(d, load=QUIET, pattern_lat=None)
    for f in os.listdir(d):
        if f.startswith("r") and "-ib_" in f:
            os.remove(os.path.join(d, f))
    for r in range(1, 8):  # 5000 ticks of iowait beside each ceiling run
        pattern_cpu_counters(os.path.join(d, "r%d-srp_pattern_bw.cpu" % r), PATTERN_CPUS[r - 1], iowait=5000)
    rc, out, js = run_report(d, "--no-plot", "--clock", "icount shift=2")
    vs = {(v["lun"], v["side"]): v for v in (js or {}).get("vs_raw", [])}
    check("icount: the ceiling's busy CPUs leave iowait out (median 1.75 with 5000 iowait ticks per run)",
          close({x["key"]: x for x in (js or {}).get("raw_rxe", [])}.get("rxe_srp_pattern_bw_cpus", {}).get("median"), 1.75),
          str((js or {}).get("raw_rxe")))
    check("icount with srp_pattern_bw, no perftest: exit 0, the ceiling (50 MiB/s) and SRP against it, no floor",
          rc == 0 and js["ceiling_key"] == "rxe_srp_pattern_bw_128k_mibs" and
          [x["key"] for x in js["raw_rxe"]] == ["rxe_srp_pattern_bw_128k_mibs", "rxe_srp_pattern_bw_cpus"] and
          close(vs.get(("rd_mcp", "A"), {}).get("seqread128k_of_ceiling"), 0.8) and
          all(v["qd1_p50_x_floor"] is None for v in vs.values()) and len(vs) == 4 and
          "perftest: not run under icount" in out and "raw rxe: not measured" not in out and
          "missing perftest results" not in out and "pattern floor: n/a" not in out, "rc %d\n%s" % (rc, out))
    rc, out, js = run_report(d, "--no-plot")
    check("the same on the wall clock: exit 1 (perftest is due there)", rc == 1 and "missing perftest results" in out,
          "rc %d\n%s" % (rc, out))
    # With srp_pattern_lat (the bench since): the floor under icount too.
    d = os.path.join(top, "icount-pattern-lat")
    make_artifacts(d, load=QUIET)
    for f in os.listdir(d):
        if f.startswith("r") and "-ib_" in f:
            os.remove(os.path.join(d, f))
    rc, out, js = run_report(d, "--no-plot", "--clock", "icount shift=2")
    vs = {(v["lun"], v["side"]): v for v in (js or {}).get("vs_raw", [])}
    check("icount with srp_pattern_bw and srp_pattern_lat: exit 0, the floor (30 us) and QD1 p50 against it",
          rc == 0 and js["floor_key"] == "rxe_srp_pattern_lat_qd1_4k_p50_us" and
          [x["key"] for x in js["raw_rxe"]] == ["rxe_srp_pattern_bw_128k_mibs", "rxe_srp_pattern_bw_cpus",
                                                "rxe_srp_pattern_lat_qd1_4k_p50_us", "rxe_srp_pattern_lat_qd1_4k_p99_us",
                                                "rxe_srp_pattern_lat_cpus"] and
          close(vs.get(("rd_mcp", "B"), {}).get("qd1_p50_x_floor"), 11.0) and
          "perftest: not run under icount" in out and "no pattern floor" not in out, "rc %d\n%s" % (rc, out))
    a, b = rows["icount"].get("rd_randread4k_qd32_cpu_us_per_io"), rows["icount-iowait"].get("rd_randread4k_qd32_cpu_us_per_io")
    check("icount: CPU per I/O leaves iowait out (5000 more iowait ticks change nothing)",
          a is not None and b is not None and a["A"] == b["A"] and a["B"] == b["B"], "%s\n%s" % (a, b))


def initiator_params(top):
    # The initiator's ib_srp parameters (initiator.txt, written by the
    # guest after its first login): printed, in bench.json and bench.csv,
    # figures unchanged; without the file "not recorded".
    d = os.path.join(top, "initiator")
    make_artifacts(d, load=QUIET)
    rc, out, js = run_report(d, "--no-plot")
    check("no initiator.txt: 'initiator: not recorded', initiator null",
          rc == 0 and "initiator: not recorded (artifacts of an older bench)" in out and js["initiator"] is None,
          "rc %d\n%s" % (rc, out))
    overwrite("initiator.txt", "ib_srp.use_imm_data=N ib_srp.max_imm_data=8192 \n")(d)
    rc, out, js = run_report(d, "--no-plot")
    with open(os.path.join(d, "bench.csv")) as f:
        cm = {c[0]: c for c in csv.reader(f)}
    want = "ib_srp.use_imm_data=N ib_srp.max_imm_data=8192"
    check("initiator.txt: printed, in bench.json and bench.csv, figures unchanged",
          rc == 0 and "initiator: %s (as loaded; the same on A and B)" % want in out and js["initiator"] == want and
          cm.get("initiator", [""] * 5)[4] == want and
          [x for x in js["rows"] if x["key"] == "rd_randread4k_qd32_iops"][0]["paired_ratio"] == 1.083,
          "rc %d\n%s" % (rc, out))


top = tempfile.mkdtemp(prefix="selftest-bench-report.")
try:
    for case in (known_numbers, ceiling_above_srp, ceiling_without_pattern_bw, floor_above_srp, round_order, too_few_rounds,
                 loaded_during_run, loaded_at_the_gate, no_run_samples, older_artifacts,
                 unusable_results, different_command_streams, no_disk_counters, guest_clock, icount_layout,
                 initiator_params):
        try:
            case(top)
        except Exception:
            check("case %s ran to its end" % case.__name__, False, traceback.format_exc())
finally:
    shutil.rmtree(top, ignore_errors=True)

sys.exit(CHECKS.summary("bench-report"))
