"""Medians over the runs in a folder (its run_*/coll_<mpi>_<rate>_2x2.csv, bench_coll across the
namespace cluster): per collective and size, each variant's time over the MPI's own collective's
in the same run, and the best flat (one-level) Shoal algorithm's time over auto's. Usage:
python3 medians.py folder (batch_20ms or batch_2ms)"""
import collections
import csv
import glob
import os
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
TWO_LEVEL = ('node', 'node_native', 'native', 'auto', 'mpi', 'shoal_barrier')
for cfg in ('mpich_1gbit', 'mpich_10gbit', 'openmpi_1gbit', 'openmpi_10gbit'):
    runs = sorted(glob.glob(os.path.join(here, 'run_*', 'coll_%s_2x2.csv' % cfg)))
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    chosen = collections.defaultdict(set)
    for path in runs:
        rows = collections.defaultdict(dict)
        with open(path) as f:
            for r in csv.reader(line for line in f if not line.startswith('#')):
                if r[0] == 'collective' or r[8] != 'ok':
                    continue
                rows[(r[0], int(r[1]))][r[2]] = float(r[4])
                if r[2] == 'auto':
                    chosen[(r[0], int(r[1]))].add(r[3])
        for key, v in rows.items():
            if 'mpi' not in v or key[0] in ('alltoall', 'scan'):
                continue
            for name in ('auto', 'node_native', 'native', 'node'):
                if name in v:
                    ratios[key][name].append(v[name] / v['mpi'])
            flat = [x for name, x in v.items() if name not in TWO_LEVEL]
            if flat:
                ratios[key]['flat/auto'].append(min(flat) / v['auto'])
    print('## %s, 2 nodes x 2 units: medians over %d runs (time / the MPI collective\'s)' % (cfg, len(runs)))
    print()
    print('| collective | size | auto (chose) | auto | node_native | native | node | best flat / auto |')
    print('|---|---:|---|---:|---:|---:|---:|---:|')
    for (c, s), v in sorted(ratios.items()):
        if c != 'barrier' and s < 1024:
            continue
        med = {k: statistics.median(x) for k, x in v.items()}
        size = '-' if c == 'barrier' else ('%d KiB' % (s // 1024) if s < 1048576 else '%d MiB' % (s // 1048576))
        print('| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |' % (
            c, size, '/'.join(sorted(chosen[(c, s)])), med['auto'], med.get('node_native', 0),
            med.get('native', 0), med.get('node', 0), med.get('flat/auto', 0)))
    print()
