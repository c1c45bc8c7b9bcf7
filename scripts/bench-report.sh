#!/usr/bin/env bash
# The main job (make bench): installs missing Debian packages, builds Shoal in Release against MPICH
# and against Open MPI (build/bench-<mpi>), runs the benchmarks through bench/report and prints the
# path of the Markdown report.
#
# Contract with bench/report (an executable in the repo's bench/ directory):
#   bench/report --build-dir DIR --mpi NAME --out results/
#     DIR   a configured and built Release tree: benchmark programs in DIR/bench/, the launcher
#           in DIR/bin/shoalrun (it knows the MPI and oversubscription flags), shoal-info in DIR/bin
#     NAME  mpich or openmpi
#     It appends this MPI's section to results/report.md (creating the file, with its title, when
#     it does not exist) and may put plots and raw data beside it under results/. It exits
#     non-zero if a benchmark fails.
#   This script deletes results/report.md first, so the report holds exactly this run, and calls
#   bench/report once per MPI, MPICH first.
#
# Environment: SHOAL_BENCH_MPIS="mpich openmpi" picks the MPIs; SHOAL_BENCH_KEEP=1 reuses build dirs;
# SHOAL_BENCH_TUNE=0 skips tuning the collectives into this host's tuning cache first.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mpis="${SHOAL_BENCH_MPIS:-mpich openmpi}"
out="$root/results"
start=$SECONDS

"$root/scripts/install-deps.sh" bench

for mpi in $mpis; do
    build="$root/build/bench-$mpi"
    echo "=== $mpi: Release build in $build"
    [ "${SHOAL_BENCH_KEEP:-0}" = 1 ] || rm -rf "$build"
    mkdir -p "$build"
    if ! cmake -S "$root" -B "$build" -DSHOAL_MPI="$mpi" -DCMAKE_BUILD_TYPE=Release \
        -DSHOAL_BUILD_TESTS=OFF >"$build/configure.log" 2>&1; then
        cat "$build/configure.log" >&2
        echo "bench-report: configuring for $mpi failed" >&2
        exit 1
    fi
    if ! cmake --build "$build" -j2 >"$build/build.log" 2>&1; then
        tail -n 60 "$build/build.log" >&2
        echo "bench-report: building for $mpi failed (log: $build/build.log)" >&2
        exit 1
    fi
done

if [ ! -x "$root/bench/report" ]; then
    echo "bench-report: $root/bench/report is missing or not executable" >&2
    exit 1
fi
# Decision tables from this host (docs/collectives.md, "The host's own tables"): shoal-coll-tune
# --cache at as many units as CPUs (at least 2), so the benchmarks below, and every later program
# on this host, run with this machine's own choices. SHOAL_BENCH_TUNE=0 skips it.
if [ "${SHOAL_BENCH_TUNE:-1}" = 1 ]; then
    np=$(nproc)
    [ "$np" -lt 2 ] && np=2
    for mpi in $mpis; do
        echo "=== $mpi: tuning the collectives on this host ($np units)"
        "$root/build/bench-$mpi/bin/shoalrun" -n "$np" \
            "$root/build/bench-$mpi/bin/shoal-coll-tune" --cache
    done
fi
mkdir -p "$out"
rm -f "$out/report.md"
for mpi in $mpis; do
    echo "=== $mpi: running benchmarks"
    "$root/bench/report" --build-dir "$root/build/bench-$mpi" --mpi "$mpi" --out "$out/"
done
[ -f "$out/report.md" ] || { echo "bench-report: bench/report wrote no $out/report.md" >&2; exit 1; }
# The OpenSHMEM face against Open MPI's OSHMEM (same MPI underneath: the Open MPI build).
if [[ " $mpis " == *" openmpi "* ]]; then
    echo "=== OpenSHMEM: Shoal against OSHMEM"
    "$root/bench/shmem-compare" --build-dir "$root/build/bench-openmpi" --out "$out/"
    # 4 PEs (oversubscribed on a 2-core machine: --quick keeps it short).
    "$root/bench/shmem-compare" --build-dir "$root/build/bench-openmpi" --np 4 --quick --out "$out/"
fi
# Graceful under load (issue 12): two jobs on the same CPUs, per waiting policy, Shoal against
# the MPI under the same load (MPICH with its yield shim: the steady configuration).
if [[ " $mpis " == *" mpich "* ]]; then
    echo "=== co-located jobs (MPICH)"
    SHOALRUN_MPICH_YIELD=1 "$root/bench/colocated" --jobs 2 --build "$root/build/bench-mpich" \
        --out "$out/colocated" >"$out/colocated_mpich.md"
fi
echo "=== done in $((SECONDS - start)) s"
echo "Report: $out/report.md"
