#!/usr/bin/env python3
"""Checks of calibrate.py's pure parts (no machine needed): the parameter file it writes gives a
collective's wait no relay overhead, and a try is kept only when its parameters and its
collectives saw the same hand-off regime. Run by CTest (tools.coll_sim.calibrate)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate  # noqa: E402


def main():
    near = {"L": 0.056, "a": 0.029}
    far = {"L": 0.265, "a": 0.16}
    checks = [
        # session 13's kept runs and this one: L / hand-off 1.2-1.9
        (calibrate.same_regime("33 ns median", {"L": 0.055}, {"L": 0.061}, True), True),
        (calibrate.same_regime("157 ns median", {"L": 0.27}, {"L": 0.2605}, True), True),
        # session 32's wrongly kept try: far parameters around near collectives
        (calibrate.same_regime("34 ns median", far, far, True), False),
        # near parameters around far collectives
        (calibrate.same_regime("157 ns median", near, near, True), False),
        (calibrate.same_regime("not measured", near, near, True), False),
        # the MPI path's L is MPI's own: no check
        (calibrate.same_regime("34 ns median", far, far, False), True),
    ]
    bad = [i for i, (got, want) in enumerate(checks) if got != want]
    loggp = {"L": 0.07, "o": 0.01, "a": 0.04, "g": 0.01, "G": 2e-5, "o_r": 0.55, "G_copy": 2e-5,
             "reduce_fresh": 7e-5}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.txt")
        calibrate.write_params(path, "t", loggp, loggp, (0.03, {"barrier": 0.01}), True,
                               "33 ns median", True)
        text = open(path).read()
    o_r = [l for l in text.splitlines() if l.startswith("o_r")]
    if len(o_r) != 1 or o_r[0].split("#")[0].split("=")[1].strip() != "0":
        bad.append(f"o_r line: {o_r}")
    # the per-size curves: both runs averaged size by size, a size one run lacks kept
    A = dict(loggp, G_curve="4096:2e-05,65536:3e-05", copy_curve="4096:1e-05",
             reduce_fresh_curve="4096:2e-05", get_fresh_curve="8192:1e-05")
    B = dict(loggp, G_curve="4096:4e-05,65536:5e-05,1048576:9e-05", copy_curve="garbage",
             reduce_fresh_curve="4096:4e-05")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.txt")
        calibrate.write_params(path, "t", A, B, (0.03, {}), True, "33 ns median", True)
        got = {l.split("=")[0].strip(): float(l.split("=")[1].split("#")[0])
               for l in open(path).read().splitlines()
               if l.startswith(("G.", "copy.", "reduce.", "get."))}
    want = {"G.4096": 3e-05, "G.65536": 4e-05, "G.1048576": 9e-05, "copy.4096": 1e-05,
            "reduce.4096": 3e-05}
    if set(got) != set(want) or any(abs(got[k] - want[k]) > 1e-12 for k in want):
        bad.append(f"curves: {got}")
    # the MPI path: a signal priced as the add that fetches nothing, puts and gets as measured;
    # the direct path keeps the fetch-add (its L is derived from it) and 2 L round trips
    M = dict(loggp, a=24.0, a_add=15.0, put_small=14.0, get_small=24.0)
    for direct, want_a, want_small in ((False, 15.0, {"put_small": 14.0, "get_small": 24.0}),
                                       (True, 24.0, {})):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.txt")
            calibrate.write_params(path, "t", M, M, (0.03, {}), direct, "not measured", True, 10.0)
            kv = {l.split("=")[0].strip(): float(l.split("=")[1].split("#")[0])
                  for l in open(path).read().splitlines()
                  if "=" in l and not l.startswith(("#", "name"))}
        if not direct:
            want_small = dict(want_small, native_L=10.0 - M["o"])
        got_small = {k: kv[k] for k in ("put_small", "get_small", "native_L") if k in kv}
        if kv.get("a") != want_a or got_small != want_small:
            bad.append(f"MPI path terms, direct={direct}: a={kv.get('a')}")
    # MPI within a node: the ends' CPUs move the bytes (cpu_ports) and the both-ways curve is
    # written; not on the direct path, nor between nodes
    B2 = dict(loggp, G_both_curve="4096:6e-05,65536:8e-05")
    for direct, one_node, want in ((False, True, True), (True, True, False), (False, False, False)):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.txt")
            calibrate.write_params(path, "t", B2, B2, (0.03, {}), direct, "not measured", True,
                                   one_node=one_node)
            text = open(path).read()
        has = "cpu_ports = 1" in text and "G_both.65536 = 8e-05" in text
        if has != want:
            bad.append(f"cpu_ports, direct={direct} one_node={one_node}: {has}")
    if bad:
        print(f"test_calibrate: FAILED: {bad}")
        return 1
    print(f"test_calibrate: OK ({len(checks)} regime checks, o_r written as 0, curves averaged, MPI path terms, cpu_ports)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
