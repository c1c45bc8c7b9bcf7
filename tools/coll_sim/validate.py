#!/usr/bin/env python3
"""Prediction/measurement ratios of shoal-coll-sim against bench_coll results (docs/coll_sim.md).

    tools/coll_sim/validate.py --sim build/X/bin/shoal-coll-sim \
        --params tools/coll_sim/params/direct_mpich.txt results/coll_mpich_direct1.csv [--all]

Reads the measured medians of every algorithm (variant == algorithm: forced, not auto, not the
native MPI) from a bench_coll CSV, runs the simulator at the CSV's team size (its '# ... np=N'
header) for the same collectives and sizes, and prints predicted / measured per row, then per
collective the median ratio and the share of rows within 25 %. Standard library only.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile


def measured(path):
    rows, np_ = {}, None
    with open(path) as f:
        head = f.readline()
        m = re.search(r"np=(\d+)", head)
        np_ = int(m.group(1)) if m else None
        for r in csv.DictReader(f):
            if r["status"] != "ok" or r["variant"] != r["algorithm"]:
                continue
            rows[(r["collective"], int(r["size_bytes"]), r["algorithm"])] = float(r["median_us"])
    return np_, rows


def predicted(sim, params, np_, colls, sizes, b2b):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "sim.csv")
        cmd = [sim, "--coll", ",".join(colls), "--p", str(np_), "--size",
               ",".join(str(s) for s in sizes), "--csv", out]
        if params:
            cmd += ["--params", params]
        if b2b > 0:
            cmd += ["--back-to-back", str(b2b)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        res = {}
        with open(out) as f:
            lines = [l for l in f if not l.startswith("#")]
        for r in csv.DictReader(lines):
            if r["status"] == "ok":
                res[(r["collective"], int(r["size_bytes"]), r["algorithm"])] = float(
                    r["predicted_us"])
        return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--params")
    ap.add_argument("--all", action="store_true", help="print every row, not only the summary")
    ap.add_argument("--back-to-back", type=int, default=8,
                    help="simulate K calls back to back, as bench_coll times them (0: one call)")
    ap.add_argument("csv")
    a = ap.parse_args()
    np_, meas = measured(a.csv)
    if not np_:
        sys.exit("no np= in the CSV header")
    known = {"barrier", "broadcast", "collect", "fcollect", "alltoall", "reduce", "scan"}
    colls = sorted({k[0] for k in meas} & known)
    sizes = sorted({k[1] for k in meas if k[0] in known})
    pred = predicted(a.sim, a.params, np_, colls, sizes, a.back_to_back)
    per = {}
    for key in sorted(meas):
        if key not in pred:
            continue
        ratio = pred[key] / meas[key]
        per.setdefault(key[0], []).append(ratio)
        if a.all:
            print(f"{key[0]:10s} {key[1]:>9d} {key[2]:24s} measured {meas[key]:10.4g} us  "
                  f"predicted {pred[key]:10.4g} us  ratio {ratio:6.3f}")
    print(f"# np={np_}, {a.back_to_back or 1} call(s) {'back to back' if a.back_to_back else 'alone'}: "
          "predicted / measured (median over sizes and algorithms; share within 25 %)")
    allr = []
    for c, rs in per.items():
        allr += rs
        within = sum(1 for r in rs if 0.75 <= r <= 1.25) / len(rs)
        print(f"{c:10s} rows {len(rs):3d}  median ratio {statistics.median(rs):6.3f}  "
              f"min {min(rs):6.3f}  max {max(rs):6.3f}  within 25%: {100 * within:5.1f} %")
    if allr:
        within = sum(1 for r in allr if 0.75 <= r <= 1.25) / len(allr)
        print(f"{'all':10s} rows {len(allr):3d}  median ratio {statistics.median(allr):6.3f}  "
              f"within 25%: {100 * within:5.1f} %")


if __name__ == "__main__":
    main()
