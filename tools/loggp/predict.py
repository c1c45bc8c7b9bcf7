#!/usr/bin/env python3
"""Predicted against measured crossover of the one-sided broadcast (binomial vs linear).

    tools/loggp/predict.py --loggp FILE [--loggp FILE]... CSV... [--stat median|min]
                           [--params shoal-direct|shoal-mpi] [--detail] [--sizes LIST]

FILE: bench_rma_bcast --loggp output (or its --csv file): lines "loggp: path=... L=... o=...".
CSV: bench_rma_bcast --csv files of one MPI and path, one per unit count (2..8). The parameters
used are those of the CSVs' path (shoal-direct or shoal-mpi, same MPI when several), unless
--params names one. Prints Markdown: the LogGP parameters; per unit count the measured crossover
size (the smallest measured size from which binomial completes before linear) next to the
model's; per size the measured crossover unit count next to the model's; with --detail, the
predicted and measured completion of both algorithms per unit count and size. The model and its
formulas: tools/loggp/loggp.py, tools/loggp/README.md. Standard library only.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loggp  # noqa: E402


def fmt_size(m):
    if m is None:
        return "none"
    if m >= 1 << 20 and m % (1 << 20) == 0:
        return "%d MiB" % (m >> 20)
    if m >= 1024 and m % 1024 == 0:
        return "%d KiB" % (m >> 10)
    if m >= 1 << 20:
        return "%.1f MiB" % (m / float(1 << 20))
    if m >= 1024:
        return "%.1f KiB" % (m / 1024.0)
    return "%d B" % m


def fmt_us(x):
    if x is None:
        return "-"
    return "%.0f" % x if x >= 1000 else "%.1f" % x if x >= 100 else "%.2f" % x if x >= 10 \
        else "%.3f" % x


def pick_params(params, mpi, path, want=None):
    """The Params for the CSVs' MPI and path ("direct" or "mpi")."""
    key = want or ("shoal-%s" % path)
    mpi_key = (mpi or "").replace(" ", "_").replace(",", "_")
    exact = [(k, v) for k, v in params.items() if k[1] == key and k[0] == mpi_key]
    any_mpi = [(k, v) for k, v in params.items() if k[1] == key]
    got = exact or any_mpi
    return got[0] if got else (None, None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loggp", action="append", required=True, help="a file with loggp: lines")
    ap.add_argument("csv", nargs="+", help="bench_rma_bcast --csv files (one per unit count)")
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    ap.add_argument("--params", help="use this loggp path (shoal-direct, shoal-mpi, mpi-raw)")
    ap.add_argument("--detail", action="store_true", help="predicted and measured times too")
    ap.add_argument("--sizes", help="sizes for the per-size tables (comma-separated bytes; "
                                    "default: every measured size)")
    args = ap.parse_args(argv)

    params = {}
    for f in args.loggp:
        if os.path.exists(f):
            params.update(loggp.read_params(f))
    datas = []
    for f in args.csv:
        if os.path.exists(f):
            d = loggp.read_bench_csv(f, args.stat)
            if d["latency"]:
                datas.append(d)
    if not datas:
        print("predict: no bench_rma_bcast CSV with latency rows", file=sys.stderr)
        return 1
    datas.sort(key=lambda d: int(d["meta"].get("np", 0)))
    mpi, path = datas[0]["meta"].get("mpi"), datas[0]["meta"].get("path", "direct")
    key, P = pick_params(params, mpi, path, args.params)
    if P is None:
        print("predict: no loggp line for path shoal-%s in %s" % (path, ", ".join(args.loggp)),
              file=sys.stderr)
        return 1
    out = []
    out.append("LogGP parameters (%s, %s; from `bench_rma_bcast --loggp`): L = %.3g us, o = %.3g "
               "us, g = %.3g us, G = %.3g us/B (%.2f GB/s), a = %.3g us, o_r = %.3g us." %
               (key[1], key[0].replace("_", " "), P.L, P.o, P.g, P.G,
                (1e-3 / P.G) if P.G > 0 else float("inf"), P.a, P.o_r))
    out.append("")
    out.append("| units | measured crossover size | predicted crossover size |")
    out.append("|---:|---:|---:|")
    for d in datas:
        p = int(d["meta"].get("np", 0))
        out.append("| %d | %s | %s |" % (p, fmt_size(loggp.measured_crossover_size(d)),
                                         fmt_size(loggp.crossover_size(p, P))))
    sizes = sorted(set().union(*[set(d["latency"].get("linear", {})) for d in datas]))
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    units = [int(d["meta"].get("np", 0)) for d in datas]
    out.append("")
    out.append("| size | measured crossover units (of %s) | predicted crossover units |" %
               ",".join(str(u) for u in units))
    out.append("|---:|---:|---:|")
    for m in sizes:
        mu = loggp.measured_crossover_units(datas, m)
        pu = loggp.crossover_units(m, P, p_max=4096)
        out.append("| %s | %s | %s |" % (fmt_size(m), mu if mu else "none",
                                          pu if pu else "none up to 4096"))
    if args.detail:
        out.append("")
        out.append("Completion, us: measured / predicted (linear, binomial; the paper's binomial "
                   "formula last).")
        out.append("")
        out.append("| units | size | linear | binomial | paper binomial |")
        out.append("|---:|---:|---:|---:|---:|")
        for d in datas:
            p = int(d["meta"].get("np", 0))
            for m in sizes:
                ml = d["latency"].get("linear", {}).get(m)
                mb = d["latency"].get("binomial", {}).get(m)
                out.append("| %d | %s | %s / %s | %s / %s | %s |" % (
                    p, fmt_size(m), fmt_us(ml), fmt_us(loggp.linear_time(p, m, P)), fmt_us(mb),
                    fmt_us(loggp.binomial_time(p, m, P)), fmt_us(loggp.paper_binomial(p, m, P))))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
