#!/usr/bin/env python3
"""ORC coverage of the C++ objects in a composite object that objtool
processed once, after linking (`objtool --link`, kernels with IBT, e.g.
Debian's 6.12). For each C++ object given, its largest function must have an
ORC entry in the composite (within [start - 16, end): objtool may place
entries in the 16-byte prefix padding). Prints the objects that fail.
Usage: orc-cover.py COMPOSITE.o CXX.o..."""
import re
import subprocess
import sys


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], check=True,
                          capture_output=True, text=True).stdout


def symbols(path):
    out = []
    for line in readelf("-s", path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[6].isdigit():
            out.append((f[7], int(f[6]), int(f[1], 16), int(f[2], 0), f[3]))
    return out  # (name, section index, value, size, type)


def sections(path):
    out = {}
    for line in readelf("-S", path).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


def main():
    comp, objs = sys.argv[1], sys.argv[2:]
    secs = sections(comp)
    by_name = {}
    for name, ndx, val, size, _ in symbols(comp):
        by_name.setdefault(name, []).append((secs.get(ndx, "?"), val, size))
    # ORC entries as (section name, offset).
    orc = {}
    rel, inside = readelf("-r", comp), False
    for line in rel.splitlines():
        if line.startswith("Relocation section"):
            inside = "'.rela.orc_unwind_ip'" in line
            continue
        m = inside and re.match(
            r"[0-9a-f]+\s+[0-9a-f]+\s+\S+\s+([0-9a-f]+)\s+(\S+)\s+([+-])\s+([0-9a-f]+)$",
            line.strip())
        if not m:
            continue
        val, name = int(m.group(1), 16), m.group(2)
        add = int(m.group(4), 16) * (1 if m.group(3) == "+" else -1)
        if name in secs.values():
            orc.setdefault(name, []).append(val + add)
        else:
            for sec, sval, _ in by_name.get(name, []):
                orc.setdefault(sec, []).append(sval + add)
    if not orc:
        print(f"{comp}: no .orc_unwind_ip relocations")
        return 1
    bad = 0
    for o in objs:
        funcs = [s for s in symbols(o) if s[4] == "FUNC" and s[1] != 0]
        if not funcs:
            continue
        name = max(funcs, key=lambda s: s[3])[0]
        ok = False
        for sec, start, size in by_name.get(name, []):
            if any(start - 16 <= a < start + size for a in orc.get(sec, [])):
                ok = True
        if not ok:
            print(f"{o}: no ORC entry for {name} in {comp}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
