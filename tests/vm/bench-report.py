#!/usr/bin/python3
"""Reduce the guest's bench results (fio JSON, perftest text) to a table with
medians and the B/A ratio per row, plus bench.csv, bench.json, bench.png.

Two ratios per row: B/A of the medians, and the median of the per-round
ratios B_r/A_r ("paired"). A and B of one round run back to back, so the
paired ratio cancels load that drifts over the run (other guests, builds on
a shared host); when the two disagree, the host was not quiet."""
import csv, glob, json, os, re, statistics, sys

d, bside = sys.argv[1], sys.argv[2]
JOBS = [  # key, fio job, field, label, unit, higher_is_better
    ("randread4k_qd32_iops", "randread4k-qd32", "read.iops", "fio 4k randread QD32", "IOPS", True),
    ("randwrite4k_qd32_iops", "randwrite4k-qd32", "write.iops", "fio 4k randwrite QD32", "IOPS", True),
    ("seqread128k_qd32_mibs", "seqread128k-qd32", "read.bw_mib", "fio 128k seq read QD32", "MiB/s", True),
    ("randread4k_qd1_p50_us", "randread4k-qd1", "read.p50_us", "fio 4k randread QD1 p50", "us", False),
    ("randread4k_qd1_p99_us", "randread4k-qd1", "read.p99_us", "fio 4k randread QD1 p99", "us", False),
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
        return p["bw"] / 1024.0
    pct = p["clat_ns"]["percentile"]
    return pct["50.000000" if what == "p50_us" else "99.000000"] / 1000.0

result = {"A": "intree", "B": bside, "rows": []}
for key, job, field, label, unit, hib in rows:
    vals = {}
    for side in "AB":
        files = sorted(glob.glob(os.path.join(d, "r*-%s-%s.json" % (side, job))))
        vals[side] = [round(fio_value(f, field), 2) for f in files]
    if not vals["A"] or not vals["B"]:
        sys.exit("bench-report: missing fio results for " + job)
    ma, mb = statistics.median(vals["A"]), statistics.median(vals["B"])
    if len(vals["A"]) != len(vals["B"]):
        sys.exit("bench-report: %s has %d A rounds and %d B rounds" % (job, len(vals["A"]), len(vals["B"])))
    paired = [b / a for a, b in zip(vals["A"], vals["B"]) if a]
    result["rows"].append(dict(key=key, label=label, unit=unit, higher_is_better=hib,
                               A=vals["A"], B=vals["B"], median_A=ma, median_B=mb,
                               ratio=round(mb / ma, 3) if ma else None,
                               paired_ratio=round(statistics.median(paired), 3) if paired else None))

def perftest(pattern, cols):
    out = []
    for f in sorted(glob.glob(os.path.join(d, pattern))):
        lines = open(f).read().splitlines()
        for i, l in enumerate(lines):
            if l.strip().startswith("#bytes"):
                nums = lines[i + 1].split()
                out.append([float(nums[c]) for c in cols])
                break
    return out

bw = perftest("r*-ib_write_bw.txt", [3])          # BW average [MB/sec]
lat = perftest("r*-ib_send_lat.txt", [4, 7])      # t_typical, 99% percentile [usec]
raw = []
if bw:
    v = [x[0] for x in bw]
    raw.append(dict(key="rxe_write_bw_128k_mbs", label="rxe ib_write_bw 128 KiB (rdma_cm)", unit="MB/s", values=v, median=statistics.median(v)))
if lat:
    v = [x[0] for x in lat]
    raw.append(dict(key="rxe_send_lat_typ_us", label="rxe ib_send_lat typical (rdma_cm)", unit="us", values=v, median=statistics.median(v)))
    v = [x[1] for x in lat]
    raw.append(dict(key="rxe_send_lat_p99_us", label="rxe ib_send_lat p99 (rdma_cm)", unit="us", values=v, median=statistics.median(v)))
if len(raw) != 3:
    sys.exit("bench-report: missing perftest results")
result["raw_rxe"] = raw

# table
print()
print("%-50s %-6s %12s %12s %8s %8s   %s" % ("metric", "unit", "A intree", "B " + bside, "B/A", "paired", "rounds A | B"))
print("-" * 133)
for r in result["rows"]:
    print("%-50s %-6s %12.1f %12.1f %8.3f %8.3f   %s | %s" % (r["label"], r["unit"], r["median_A"], r["median_B"], r["ratio"], r["paired_ratio"],
          " ".join("%.0f" % x for x in r["A"]), " ".join("%.0f" % x for x in r["B"])))
for r in raw:
    print("%-50s %-6s %12.1f %12s %8s %8s   %s" % (r["label"], r["unit"], r["median"], "", "", "", "raw: " + " ".join("%.1f" % x for x in r["values"])))
seq = [r for r in result["rows"] if r["key"] == "rd_seqread128k_qd32_mibs"][0]
rawbw = raw[0]["median"] / 1.048576  # MB/s -> MiB/s
print("SRP 128k seq read (A, rd_mcp) reaches %.0f%% of the raw rxe write bandwidth" % (100 * seq["median_A"] / rawbw))
print("(medians of %d rounds; paired = median of the per-round B/A; >1 is better for IOPS/MiB/s, <1 is better for latency)" % len(seq["A"]))
if bside == "intree":
    print("NOTE: B ran the in-tree driver again (BENCH_B=intree): B/A shows run-to-run noise only.")

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

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
items = result["rows"] + raw
fig, axes = plt.subplots(3, 5, figsize=(20, 11))
for ax, r in zip(axes.flat, items):
    if "A" in r:
        for i, side in enumerate("AB"):
            ys = r[side]
            ax.bar(i, statistics.median(ys), color=["tab:blue", "tab:orange"][i], alpha=0.6)
            ax.scatter([i] * len(ys), ys, color="k", s=12, zorder=3)
        ax.set_xticks([0, 1], ["A intree", "B " + bside])
        ax.set_title("%s\nB/A = %.3f, paired %.3f" % (r["label"], r["ratio"], r["paired_ratio"]), fontsize=9)
    else:
        ax.bar(0, r["median"], color="tab:green", alpha=0.6)
        ax.scatter([0] * len(r["values"]), r["values"], color="k", s=12, zorder=3)
        ax.set_xticks([0], ["raw rxe"])
        ax.set_title(r["label"], fontsize=9)
    ax.set_ylabel(r["unit"])
for ax in list(axes.flat)[len(items):]:
    ax.axis("off")
fig.suptitle("ib_srpt under QEMU TCG + rdma_rxe: A = in-tree, B = %s (bars = median, dots = rounds)" % bside)
fig.tight_layout()
fig.savefig(os.path.join(d, "bench.png"), dpi=90)
print("wrote %s/bench.{csv,json,png}" % d)
