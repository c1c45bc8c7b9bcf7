#!/usr/bin/env python3
"""Instruction budget (performance issue): runs instr_count under callgrind and checks the
instructions per direct-path operation against a budget. Callgrind counts are exact, so this is a
deterministic regression check, whatever the machine's load.

    instr_budget.py LAUNCHER PROGRAM [--mode M] name=budget ... [a-b=budget ...]

LAUNCHER runs one unit (shoalrun -n 1). --mode M is passed to PROGRAM after the count. A budget
"a-b=N" bounds the difference of two operations' counts (what Shoal adds to the MPI call it
makes, say). Prints every operation's count; fails when one is over its budget or missing."""
import glob
import os
import re
import subprocess
import sys
import tempfile


def totals(path):
    """The dump's total Ir (its 'totals:' line; the 'summary:' line at the top is 0 in dumps
    made by client requests)."""
    with open(path) as f:
        for line in f:
            m = re.match(r"totals:\s+(\d+)", line)
            if m:
                return int(m.group(1))
    raise SystemExit("instr_budget: no totals in %s" % path)


def main():
    launcher, program = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    mode = []
    if args[:1] == ["--mode"]:
        mode, args = [args[1]], args[2:]
    budgets = dict(a.split("=") for a in args)
    n = 1000
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = [launcher, "-n", "1", "valgrind", "--tool=callgrind", "--instr-atstart=no",
               "--callgrind-out-file=" + out, program, str(n)] + mode
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=600)
        if p.returncode != 0:
            sys.stdout.write(p.stdout[-4000:])
            raise SystemExit("instr_budget: %s failed (%d)" % (" ".join(cmd), p.returncode))
        dumps = {}
        for path in glob.glob(out + "*"):
            with open(path) as f:
                head = f.read(4096)
            m = re.search(r"^desc: Trigger: Client Request: (\S+)\.(\d)$", head, re.M)
            if m:
                dumps[(m.group(1), int(m.group(2)))] = totals(path)
    per_op = {}
    for (name, k), _ in dumps.items():
        if k == 1 and (name, 2) in dumps:
            per_op[name] = (dumps[(name, 2)] - dumps[(name, 1)]) / n
    empty = per_op.get("empty", 0.0)
    bad = 0
    print("instructions per operation (callgrind, %s, loop of %.1f removed):"
          % ("mode " + mode[0] if mode else "direct path", empty))
    for name in sorted(per_op):
        if name == "empty":
            continue
        v = per_op[name] - empty
        b = budgets.get(name)
        if v <= 1:  # nothing measured: the harness is broken, never a pass
            print("  %-20s %7.1f  no instructions counted" % (name, v))
            bad += 1
            continue
        verdict = "" if b is None else ("  budget %s: %s" % (b, "ok" if v <= float(b) else "OVER"))
        print("  %-20s %7.1f%s" % (name, v, verdict))
        if b is not None and v > float(b):
            bad += 1
    for name in [b for b in budgets if "-" in b]:
        a, b = name.split("-", 1)
        if a not in per_op or b not in per_op:
            continue  # reported missing below
        v = per_op[a] - per_op[b]
        ok = v <= float(budgets[name])
        print("  %-20s %7.1f  budget %s: %s" % (name, v, budgets[name], "ok" if ok else "OVER"))
        if not ok:
            bad += 1
    for name in budgets:
        parts = name.split("-", 1) if "-" in name else [name]
        for part in parts:
            if part in per_op:
                continue
            print("  %-20s missing" % part)
            bad += 1
    if bad:
        raise SystemExit("instr_budget: %d operation(s) over budget or missing" % bad)
    print("instr_budget: all within budget")


if __name__ == "__main__":
    main()
